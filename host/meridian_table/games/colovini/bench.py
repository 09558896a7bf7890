"""`meridian-table bench colovini`: legal-action generation over positions from random games.

The figure that matters is ``legal_actions_us_p99`` (target: under 1,000 us). The
reference, measured in the same run, is the time to copy a position's columns into
lists and back (the least work any move generator must do), so the ratio stays
comparable across machines.
"""

from __future__ import annotations

import logging
import random
import statistics
import time
from typing import Any

from meridian_table.games import colovini

LOGGER = logging.getLogger(__name__)

NAME = "colovini"
HELP = "Colovini's Meridian: legal_actions() latency over positions from random games."
TARGET_US = 1000.0


def _positions(games: int, seed: int) -> list[colovini.Game]:
    """Snapshots (as live games) at every turn of random games, all player counts."""
    rng = random.Random(seed)
    found: list[colovini.Game] = []
    for n in range(games):
        players = (2, 3, 4)[n % 3]
        deck = "physical" if n % 4 == 3 else "digital"
        game = colovini.new_game(players=players, deck=deck, seed=seed + n)
        while not game.is_over:
            snapshot = colovini.new_game(**game.options)
            for step in game.steps:
                snapshot.play(step.action)
            found.append(snapshot)
            game.play(rng.choice(game.legal_actions()))
    return found


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(options: dict[str, Any]) -> dict[str, Any]:
    quick = bool(options.get("quick"))
    positions = _positions(4 if quick else 24, seed=20260)
    repeats = 3 if quick else 5
    timings: list[float] = []
    reference: list[float] = []
    counts: list[int] = []
    clock = time.perf_counter_ns
    for game in positions:
        best = float("inf")
        for _ in range(repeats):
            t0 = clock()
            actions = game.legal_actions()
            best = min(best, (clock() - t0) / 1000)
        timings.append(best)
        counts.append(len(actions))
        columns = game.state.columns
        best_ref = float("inf")
        for _ in range(repeats):
            t0 = clock()
            tuple(tuple(list(c)) for c in columns)
            best_ref = min(best_ref, (clock() - t0) / 1000)
        reference.append(best_ref)
    p99 = _percentile(timings, 0.99)
    ref50 = statistics.median(reference)
    figures = {
        "positions": len(positions),
        "legal_actions_us_p50": round(statistics.median(timings), 1),
        "legal_actions_us_p99": round(p99, 1),
        "legal_actions_us_max": round(max(timings), 1),
        "actions_per_position_p50": int(statistics.median(counts)),
        "actions_per_position_max": max(counts),
        "reference_copy_columns_us_p50": round(ref50, 2),
        "p99_over_reference": round(p99 / ref50, 1) if ref50 else None,
        "target_us": TARGET_US,
        "meets_target": p99 < TARGET_US,
    }
    LOGGER.info("bench colovini: %s", figures)
    return figures
