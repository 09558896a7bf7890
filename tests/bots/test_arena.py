"""Games between policies, and the resign adjudication the bench uses to stop decided
games early (bots/arena.py), with real bots."""

from __future__ import annotations

from meridian_table import bots
from meridian_table.bots.arena import Adjudication, Played, _Referee, play
from meridian_table.games import registry

RULE = Adjudication(win=0.9, moves=2)


def _kato_game(stop: bool) -> Played:
    spec = registry.spec("kato")
    policies = [bots.create("kato", 5, seed=3, iterations=400), spec.policy("random", 31)]
    return play(spec, policies, 3, 1.0, RULE, stop_when_decided=stop)


def test_a_decided_game_stops_with_the_winner_the_played_out_game_confirms() -> None:
    full = _kato_game(stop=False)
    assert not full.adjudicated
    assert full.winners == (0,), "the level 5 bot lost to a random player"
    assert full.would_adjudicate is not None, "the bot never rated its won game as won"
    called, at = full.would_adjudicate
    assert called == full.winners and at < len(full.actions)
    cut = _kato_game(stop=True)
    assert cut.adjudicated and cut.winners == called
    # The same seed and a fixed search: the same game up to the call.
    assert cut.actions == full.actions[:at]
    assert sum(map(len, cut.think_s)) < sum(map(len, full.think_s))


def test_the_referee_needs_a_run_and_calls_losses_only_between_two() -> None:
    two = _Referee(Adjudication(win=0.95, moves=3), 2)
    assert two.verdict(0, 0.97) is None
    assert two.verdict(0, 0.5) is None  # the run is broken
    assert [two.verdict(0, v) for v in (0.96, 0.99, 0.95)] == [None, None, (0,)]
    assert [two.verdict(1, v) for v in (0.01, 0.02, 0.04)] == [None, None, (0,)]
    four = _Referee(Adjudication(win=0.95, moves=2), 4)
    assert [four.verdict(2, v) for v in (0.0, 0.0, 0.0)] == [None, None, None]
    assert [four.verdict(3, v) for v in (0.99, 0.99)] == [None, (3,)]


def test_policies_that_cannot_analyse_play_on_unjudged() -> None:
    spec = registry.spec("kato")
    played = play(spec, [spec.policy("greedy", 1), spec.policy("random", 2)], 5, 0.1, RULE)
    assert not played.adjudicated and played.would_adjudicate is None
    assert played.winners in ((0,), (1,))
