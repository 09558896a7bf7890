"""The Colovini bot: it never sees hidden cards, plays 2, 3 and 4 players (two colours
and two towers per meridian with 2), and weighs not playing.

Strength is measured by `meridian-table bench bots`, never here.
"""

from __future__ import annotations

import random

import pytest

from meridian_table import bots
from meridian_table.games import registry
from meridian_table.games.colovini.bot import ColoviniBot, GreedyPlayer
from meridian_table.games.colovini.engine import FACE_UP, Game, State


def _game(players: int, seed: int, turns: int = 0) -> Game:
    game = registry.spec("colovini").new_game({"players": players}, seed)
    assert isinstance(game, Game)
    rng = random.Random(seed)
    for _ in range(turns):
        game.play(rng.choice(game.legal()))
    return game


def _rehidden(game: Game, seat: int, rng: random.Random) -> Game:
    """The same game as ``seat`` sees it, with every hidden card somewhere else: the
    others' hands and the order of ``seat``'s own face-down cards shuffled."""
    other = game.clone()
    state = other.state
    unplayed = []
    for p, cards in enumerate(state.unplayed):
        keep = cards[:FACE_UP] if p == seat else ()
        rest = list(cards[len(keep):])
        rng.shuffle(rest)
        unplayed.append(keep + tuple(rest))
    other._states[-1] = State(state.columns, state.hands, tuple(unplayed), state.turn)
    return other


@pytest.mark.parametrize("players, turns", [(2, 6), (3, 9), (4, 12)])
def test_the_choice_never_depends_on_hidden_cards(players: int, turns: int) -> None:
    game = _game(players, 100 + players, turns)
    seat = game.to_move
    rng = random.Random(players)
    others = [_rehidden(game, seat, rng) for _ in range(3)]
    # The hidden cards really differ between the copies...
    assert len({g.state.unplayed for g in [game, *others]}) > 1
    for level, argument in ((2, "2"), (3, "3:3")):
        choices = {ColoviniBot(5, argument).choose(g, 1.0) for g in [game, *others]}
        assert len(choices) == 1, (level, choices)
        assert choices <= set(game.legal())
    # ... and the seat's own view of each is the same position.
    views = {g.hidden_from(seat, random.Random(1)).state for g in [game, *others]}
    assert len(views) == 1


def test_hidden_from_keeps_what_the_seat_sees_and_nothing_to_undo_into() -> None:
    game = _game(4, 7, 5)
    seat = game.to_move
    view = game.hidden_from(seat, random.Random(3))
    assert view.state.columns == game.state.columns and view.state.hands == game.state.hands
    assert view.face_up(seat) == game.face_up(seat)
    for p in range(4):
        assert sorted(view.state.unplayed[p]) == sorted(game.state.unplayed[p])
    assert view.steps == () and view.seed is None
    with pytest.raises(IndexError):
        view.undo()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_bot_plays_whole_games_legally(players: int) -> None:
    game = _game(players, 20 + players)
    bot = ColoviniBot(players, "3:1")
    greedy = GreedyPlayer(players)
    while game.outcome() is None:
        policy = bot if game.to_move == 0 else greedy
        action = policy.choose(game.clone(), 0.2)
        assert action in game.legal()
        game.play(action)
    if players == 2:
        assert game.colours == 2 and game.towers_per_meridian == 2


def test_not_playing_is_always_weighed_and_chosen_when_nothing_else_is_legal() -> None:
    game = _game(2, 5, 4)
    verdict = ColoviniBot(1, "3:2").analyse(game.clone(), 1.0)
    assert any(a.endswith(":pass") for a in verdict.values)
    # A player with no piece in hand and no tower of its own can only pass.
    state = game.state
    seat = game.to_move
    hands = tuple(0 if p == seat else h for p, h in enumerate(state.hands))
    empty = tuple((None,) * len(c) for c in state.columns)
    game._states[-1] = State(empty, hands, state.unplayed, state.turn)
    assert all(a.endswith(":pass") for a in game.legal())
    assert ColoviniBot(1, "5").choose(game.clone(), 0.1).endswith(":pass")


def test_create_names_the_game_and_the_level() -> None:
    bot = bots.create("colovini", level=4, seed=1)
    assert bot.name == "bot:4"
    game = _game(2, 3)
    assert bot.choose(game.clone(), 0.1) in game.legal()
