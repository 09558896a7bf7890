"""The table's quick answers to a ship lifted and to a sensed change are the slow ones'.

``reach.moves_of`` and ``reach.reach`` (games/empire/reach.py) work a ship's moves out on the position as it stands
(no state copied, no move played), and ``explain`` plays only the actions whose piece
put down stands on a sensed site (issue 29: the table's work per switch change). Each is
checked here against its plain definition, on every position of seeded random games of
every mode: ``legal()`` filtered, each first move played and ``legal()`` asked again,
every candidate action played.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from meridian_table.games.empire import Game, new_game
from meridian_table.games.empire.drawing import (
    SENSED_VERBS,
    explain,
    occupancy,
    put_down,
)
from meridian_table.games.empire.reach import moves_of, reach

SETUPS = [("standard", 3, False), ("standard", 4, True), ("two-player", 2, True),
          ("infection-solo", 1, False), ("infection-coop", 3, True)]
#: The table calls time after this many actions, so every game ends.
TIME_CALL = 250


def legal_moves(game: Game, ship: str) -> tuple[str, ...]:
    """The definition: legal()'s moves of ``ship``."""
    return tuple(a for a in game.legal() if a.startswith(f"move {ship} "))


def reach_by_play(game: Game, ship: str) -> dict[str, int]:
    """The definition: each first move played, the moves from there asked again."""
    one = {a.split()[2] for a in legal_moves(game, ship)}
    out = dict.fromkeys(one, 1)
    for mid in sorted(one):
        game.play(f"move {ship} {mid}")
        try:
            for action in legal_moves(game, ship):
                out.setdefault(action.split()[2], 2)
        finally:
            game.undo()
    out.pop(game.state.ships[ship].quadrant, None)
    return out


def explain_by_play(game: Game, sensed: frozenset[str], changed: frozenset[str]) -> tuple[str, ...]:
    """The definition: every candidate touching a changed site played."""
    state = game.state
    ships_on = {sid for sid, ship in state.ships.items() if ship.quadrant in changed}
    found = []
    for action in game.legal():
        words = action.split()
        if words[0] not in SENSED_VERBS or not (set(words[1:]) & (changed | ships_on)):
            continue
        game.play(action)
        try:
            if occupancy(game) == sensed:
                found.append(action)
        finally:
            game.undo()
    return tuple(found)


def positions(mode: str, players: int, events: bool, seed: int) -> Iterator[Game]:
    """Every position of one seeded random game (the game itself, moved on in place)."""
    game = new_game(players=players, mode=mode, seed=seed, guilds=events, events=events)
    rng = random.Random(seed)
    played = 0
    while not game.is_over:
        yield game
        if played == TIME_CALL and not game.state.trigger and not game.state.final:
            game.play("time")
        game.play(rng.choice(game.legal()))
        played += 1


@pytest.mark.parametrize(("mode", "players", "events"), SETUPS)
def test_moves_and_reach_of_every_ship_are_the_ones_played_out(
        mode: str, players: int, events: bool) -> None:
    checked = reached = 0
    for game in positions(mode, players, events, seed=29):
        before = game.state.copy()
        for ship in sorted(game.state.ships):
            assert moves_of(game, ship) == legal_moves(game, ship), ship
            quick = reach(game, ship)
            assert quick == reach_by_play(game, ship), ship
            checked += 1
            reached += bool(quick)
        assert game.state == before  # asking changes nothing
    assert checked > 30 and reached > 10, (checked, reached)  # the games moved ships


@pytest.mark.parametrize(("mode", "players", "events"), SETUPS)
def test_explain_finds_what_playing_every_candidate_finds(
        mode: str, players: int, events: bool) -> None:
    """Boards sensed after each sensed action of the position, and after each ship lifted
    (nothing explains it: the table lights the ship's reach)."""
    explained = 0
    for index, game in enumerate(positions(mode, players, events, seed=2029)):
        if index % 3:
            continue  # every third position keeps the test quick
        expected = occupancy(game)
        boards: set[frozenset[str]] = set()
        for action in game.legal():
            if action.split()[0] in SENSED_VERBS:
                game.play(action)
                boards.add(occupancy(game))
                game.undo()
        for ship in game.state.ships.values():
            boards.add(expected - {ship.quadrant})
        for sensed in boards:
            changed = (sensed - expected) | (expected - sensed)
            found = explain(game, sensed, changed).actions
            assert found == explain_by_play(game, sensed, changed), sorted(changed)
            explained += bool(found)
    assert explained > 50


def test_put_down_names_the_site_an_action_fills() -> None:
    assert put_down("move s3 S2Q4".split()) == "S2Q4"
    assert put_down("build frigate planet.yellow.1 S1Q3 1".split()) == "S1Q3"
    assert put_down("settle planet.yellow.1 s2".split()) == "planet.yellow.1"
    assert put_down("transfer s1 planet.yellow.1 1".split()) is None
