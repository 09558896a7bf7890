"""Random legal play never breaks the invariants (seeded games and hypothesis).

Thousands of games on the sample data, 2, 3 and 4 players, two-player mode and both
infection modes: energy never negative, every colony on a holder with an owner, quadrant
and holder capacities, one waypoint per sector and player, no legal action raising,
undo restoring the state exactly, records round-tripping, every game ending (the table
calls time after a fixed number of actions).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meridian_table.games.empire import Game, new_game, record
from meridian_table.games.empire.bench import CORPUS_SLICE, corpus_game
from meridian_table.games.empire.invariants import problems

SETUPS = [("standard", 2), ("standard", 3), ("standard", 4), ("two-player", 2),
          ("infection-solo", 1), ("infection-coop", 3)]


def check_invariants(game: Game) -> None:
    assert problems(game) == []


def play(game: Game, rng: random.Random, time_call: int, undo_every: int = 0,
         aggressive: bool = False) -> int:
    """Random legal play; ``aggressive`` picks an attack half the time one is legal (pure
    random play rarely fights, and combat has the most steps to check)."""
    played = 0
    while not game.is_over:
        if played == time_call and not game.state.trigger and not game.state.final:
            game.play("time")
            check_invariants(game)
            if game.is_over:
                break
        legal = game.legal()
        assert legal, "a live game always has a legal action"
        action = rng.choice(legal)
        attacks = [a for a in legal if a.startswith(("attack", "strike", "waypoint"))]
        if aggressive and attacks and rng.random() < 0.5:
            action = rng.choice(attacks)
        if undo_every and played % undo_every == 0:
            before = game.state.copy()
            game.play(action)
            game.undo()
            assert game.state == before, action
        game.play(action)  # no legal action raises
        check_invariants(game)
        played += 1
        assert played < 20 * time_call, "the game did not end"
    return played


@pytest.mark.parametrize(("mode", "players"), SETUPS)
def test_seeded_random_games(mode: str, players: int) -> None:
    """A fixed slice of the corpus ``bench empire`` checks whole (``invariant_games``):
    its first seeds of each setup, every position checked, every game ending."""
    for seed in range(CORPUS_SLICE):
        assert corpus_game(mode, players, seed) == []


def test_the_corpus_names_a_broken_invariant_with_its_game_and_action() -> None:
    game = new_game(players=2, mode="standard", seed=0)
    assert problems(game) == []
    game.state.seats[0].charges = -1
    assert any(p.startswith("seat 0 has negative energy or charges") for p in problems(game))
    game.state.seats[0].charges = 0
    game.state.seats[1].used = game.state.seats[1].cells + 1
    assert [p.split(":")[0] for p in problems(game)] == [
        f"seat 1 uses {game.state.seats[1].cells + 1} of {game.state.seats[1].cells} cells"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**31 - 1),
       time_call=st.integers(20, 300))
def test_random_play_undo_and_records(setup: tuple[str, int], seed: int, time_call: int) -> None:
    mode, players = setup
    game = new_game(players=players, mode=mode, seed=seed, events=seed % 2 == 0,
                    guilds=seed % 3 == 0)
    play(game, random.Random(seed), time_call=time_call, undo_every=3,
         aggressive=seed % 2 == 1)
    _, again = record.parse(record.export(game))
    assert again.state == game.state
    while game.history:  # undo all the way back to the deal
        game.undo()
    assert game.state == new_game(players=players, mode=mode, seed=seed, events=seed % 2 == 0,
                                  guilds=seed % 3 == 0).state
