"""The Kato bot, the greedy player and plain UCT on the fast engine.

Strength is measured by `meridian-table bench bots`, never here: these tests check that
every choice is legal, that a seed and a fixed amount of search decide the move, and
the rules the bot must know (a winning move, passing, the pie rule's swap).
"""

from __future__ import annotations

import copy
import random
import threading

import pytest

from meridian_table import bots
from meridian_table.games.contract import OptionError, PolicyCancelled
from meridian_table.games.kato.bot import GreedyPlayer, KatoBot, UctPlayer
from meridian_table.games.kato.game import Game
from meridian_table.games.kato.tables import bits, tables


def _surrounded() -> Game:
    """Light's only stone on G6 has Dark on every neighbour: Light can only pass."""
    t = tables(6)
    ring = [t.names[i] for i in bits(t.adjacent[t.index["G6"]])]
    return Game.from_stones(["G6"], [*ring, "A1"], "light")


@pytest.mark.parametrize("seed", range(6))
def test_clone_plays_on_exactly_like_a_deep_copy(seed: int) -> None:
    rng = random.Random(seed)
    game = Game(6, pie=seed % 2 == 0)
    game.random_playout(rng, rng.randrange(0, 90))
    fast, deep = game.clone(), copy.deepcopy(game)
    fast.random_playout(random.Random(seed))
    deep.random_playout(random.Random(seed))
    assert fast.plies == deep.plies and fast.winner == deep.winner
    fast.check_consistency()
    game.check_consistency()  # the original is untouched by its clone's play
    assert len(game.plies) < len(fast.plies) or game.is_over


def test_a_seed_and_a_fixed_amount_of_search_decide_the_move() -> None:
    game = Game(6)
    game.random_playout(random.Random(4), 12)
    first = [bots.create("kato", 3, seed=7, iterations=150).choose(game.clone(), 0.001)
             for _ in range(2)]
    assert first[0] == first[1] and first[0] in game.legal()
    # The clock does not matter with a fixed amount of search (the budget is tiny here).
    assert bots.create("kato", 3, seed=7, iterations=150).choose(game.clone(), 50.0) == first[0]


@pytest.mark.parametrize("level", bots.LEVELS)
def test_every_level_plays_legal_moves_through_a_game(level: int) -> None:
    game = Game(5)
    bot = KatoBot(level, f"{level}:20")
    other = random.Random(level)
    while game.outcome() is None and len(game.plies) < 60:
        if game.turn().seat == 0:
            move = bot.choose(game.clone(), 0.05)
        else:
            move = other.choice(game.legal())
        assert move in game.legal()
        game.play(move)


def test_the_bot_passes_when_nothing_can_be_placed() -> None:
    game = _surrounded()
    assert game.legal() == ("pass",)
    assert KatoBot(1, "5").choose(game.clone(), 0.1) == "pass"
    assert GreedyPlayer(1).choose(game.clone()) == "pass"
    assert UctPlayer(1).choose(game.clone(), 0.05) == "pass"


def test_the_bot_weighs_the_pie_rules_swap() -> None:
    game = Game(6, pie=True)
    game.play("G6")
    game.play("A1")  # the opener's weak second stone
    assert game.choice_open and "swap" in game.legal()
    bot = KatoBot(3, "3:300")
    verdict = bot.analyse(game.clone(), 1.0)
    assert "swap" in verdict.values  # searched like any move
    assert verdict.best in game.legal()


def test_cancelling_stops_the_search() -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(PolicyCancelled):
        KatoBot(1, "5").choose(Game(6), 10.0, cancel)


def test_a_bad_level_is_refused_with_the_levels_named() -> None:
    with pytest.raises(ValueError, match="level 9 is not one of 1 to 5"):
        bots.create("kato", 9)
    with pytest.raises(OptionError, match=r"level '9' is not one of 1 to 5"):
        from meridian_table.games import registry

        registry.spec("kato").policy("bot:9")
    with pytest.raises(OptionError, match="iterations 'x' is not a positive whole number"):
        from meridian_table.games import registry

        registry.spec("kato").policy("bot:3:x")


def test_greedy_and_uct_choose_legal_moves() -> None:
    game = Game(6)
    game.play("G6")
    assert GreedyPlayer(3).choose(game.clone()) in game.legal()
    assert UctPlayer(3).choose(game.clone(), 0.05) in game.legal()
