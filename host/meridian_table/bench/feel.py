"""`meridian-table bench feel`: how the board feels to a hand, adaptive settling against
the fixed window, per game (docs/TABLE.md, "How it feels").

Two runs of the same seeded hand corpus (``meridian_table.sim.hands``) per game:

- **misreads**: every trace (at least 1,000 per game; 200 with ``quick``) replayed in
  simulated time through the firmware's debouncer and the real table session, once with
  adaptive settling and once with the fixed 300 ms window (the reference). A trace is
  misread when the table logs a move the player did not make, or loses the one made.
- **latency**, in real time through the whole table on the virtual board (the firmware
  in a thread behind a pty, the link, the session): ``ack_ms`` from the switch change to
  the frame that shows the tentative cue under the piece, and ``commit_ms`` for clean
  placements from the switch change to the first frame rendered after the move is
  applied (or, where the game asks first, after the board is read). A mixed slice of
  the corpus is also replayed there, and must read right too. The hand there sleeps
  between its switches: a trace the machine made it play late (more than
  ``HAND_LATE_OK_MS`` behind its times: a hesitation held longer is a move) is another
  gesture, counted apart (``live_hand_late_traces``, ``live_misreads_hand_late``). The
  fillers between the counted turns (a pass, a tap on the page) are not misreads, but
  each must be logged as well: ``live_fillers_lost`` counts those that were not (a lost
  one plays the rest of the game from another position than the corpus's).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from meridian_table.bench.table import percentile, plan_reference
from meridian_table.games import registry
from meridian_table.sim.hands import corpus
from meridian_table.sim.replay import Result, VirtualTable, replay_clocked

NAME = "feel"
HELP = ("hand corpus through the table: tentative cue and commit latency, misreads, "
        "adaptive settling against the fixed window")
TRACES = 1000
QUICK_TRACES = 200
LIVE_CLEAN = 60
QUICK_LIVE_CLEAN = 15
LIVE_MIXED = 16
QUICK_LIVE_MIXED = 6
SEED = 20261126
#: The firmware behind the virtual board runs in the real MicroPython unix port, in its
#: own process, as on the Pico: its scan and render loop does not share this process.
SIM_MODE = "micropython"
TARGETS = {"ack_ms_p99": 20.0, "misreads": 0}  # and each game's commit_target_ms


def _pct(values: list[float], q: float) -> float | None:
    return round(percentile(values, q), 3) if values else None


def _misreads(results: list[Result]) -> dict[str, Any]:
    counted = [r for r in results if r.trace.counted]
    wrong = [r for r in counted if r.misread]
    return {
        "traces": len(counted),
        "misreads": len(wrong),
        "misreads_by_pattern": dict(Counter(r.trace.pattern for r in wrong)),
        "examples": [f"{r.trace.describe()} -> logged {r.logged or 'nothing'}"
                     for r in wrong[:3]],
    }


def _live(game: str, adaptive: bool, clean: int, mixed: int) -> dict[str, Any]:
    """Real time on the virtual board: clean placements, then a mixed slice."""
    acks: list[float] = []
    commits: list[float] = []
    wrong = 0
    late_wrong = 0
    late = 0
    played = 0
    fillers = 0
    fillers_lost = 0
    cues = 0
    examples: list[str] = []
    reference: list[float] = []
    rng = random.Random(SEED)
    for patterns, count in ((("clean",), clean), (None, mixed)):
        table: VirtualTable | None = None
        try:
            for trace in corpus(game, count, seed=SEED + 1, patterns=patterns):
                if table is None or trace.new_game:
                    if table is not None:
                        table.close()
                    table = VirtualTable(game, adaptive=adaptive, options=dict(trace.options),
                                         sim_mode=SIM_MODE)
                result = table.play(trace, rng)
                if not trace.counted:
                    # A filler (a pass, a tap on the page) must be logged too: one lost
                    # plays the rest of the game from another position than the corpus's.
                    fillers += 1
                    if result.logged != [trace.action]:
                        fillers_lost += 1
                        if len(examples) < 3:
                            examples.append(f"{trace.describe()} -> logged "
                                            f"{result.logged or 'nothing'}")
                    continue
                played += 1
                if not result.on_time:
                    # The machine made the hand itself late: another gesture than the
                    # trace's (a hesitation held longer is a move). Counted apart.
                    late += 1
                    late_wrong += result.misread
                    continue
                wrong += result.misread
                if result.misread and len(examples) < 3:
                    examples.append(f"{trace.describe()} -> logged {result.logged or 'nothing'}"
                                    f"{' and an undo' if result.undos else ''}")
                if result.ack_ms is not None:
                    acks.append(result.ack_ms)
                    cues += result.cue_seen
                if trace.pattern == "clean" and result.commit_ms is not None:
                    commits.append(result.commit_ms)
            if table is not None and patterns is not None:
                # The reference, same run, same table: a bare LED plan round trip
                # (link and firmware, no switch, no session).
                reference = plan_reference(table.running, 40)
        finally:
            if table is not None:
                table.close()
    return {
        "reference_plan_ms_p50": _pct(reference, 0.5),
        "reference_plan_ms_p99": _pct(reference, 0.99),
        "live_traces": played,
        "live_misreads": wrong,
        "live_fillers": fillers,
        "live_fillers_lost": fillers_lost,
        "live_hand_late_traces": late,
        "live_misreads_hand_late": late_wrong,
        "live_examples": examples,
        "ack_ms_p50": _pct(acks, 0.5),
        "ack_ms_p99": _pct(acks, 0.99),
        "ack_samples": len(acks),
        "cue_frames_seen": cues,
        "commit_ms_p50": _pct(commits, 0.5),
        "commit_ms_p99": _pct(commits, 0.99),
        "commit_samples": len(commits),
    }


def run(options: dict[str, Any]) -> dict[str, Any]:
    quick = bool(options.get("quick"))
    count = QUICK_TRACES if quick else TRACES
    clean = QUICK_LIVE_CLEAN if quick else LIVE_CLEAN
    mixed = QUICK_LIVE_MIXED if quick else LIVE_MIXED
    games = ([options["game"]] if isinstance(options.get("game"), str)
             else [s.id for s in registry.specs().values() if s.bench.hand_corpus])
    out: dict[str, Any] = {"seed": SEED, "targets": TARGETS, "games": {}}
    verdicts: list[bool] = []
    for game in games:
        traces = list(corpus(game, count, seed=SEED))
        figures: dict[str, Any] = {}
        for mode, adaptive in (("adaptive", True), ("fixed_300ms", False)):
            clocked = replay_clocked(traces, adaptive=adaptive, seed=SEED)
            entry = _misreads(clocked)
            sim_commits = [r.commit_ms for r in clocked
                           if r.trace.pattern == "clean" and r.commit_ms is not None]
            entry["sim_commit_ms_p50"] = _pct(sim_commits, 0.5)
            entry.update(_live(game, adaptive, clean, mixed))
            figures[mode] = entry
        adaptive_fig, fixed = figures["adaptive"], figures["fixed_300ms"]
        ok = (
            adaptive_fig["misreads"] == 0 and adaptive_fig["live_misreads"] == 0
            and adaptive_fig["live_fillers_lost"] == 0
            and adaptive_fig["misreads"] <= fixed["misreads"]
            and (adaptive_fig["ack_ms_p99"] or 1e9) < TARGETS["ack_ms_p99"]
        )
        target = registry.spec(game).bench.commit_target_ms
        figures["commit_target_ms_p99"] = target
        if target is not None:
            ok = ok and (adaptive_fig["commit_ms_p99"] or 1e9) < target
        a50, f50 = adaptive_fig["commit_ms_p50"], fixed["commit_ms_p50"]
        figures["commit_p50_adaptive_over_fixed"] = (
            round(a50 / f50, 3) if a50 is not None and f50 else None)
        figures["meets_targets"] = ok
        verdicts.append(ok)
        out["games"][game] = figures
    out["meets_targets"] = all(verdicts)
    out["ack_ms_p99"] = max((g["adaptive"]["ack_ms_p99"] or 0.0) for g in out["games"].values())
    out["misreads"] = sum(g["adaptive"]["misreads"] for g in out["games"].values())
    out["misreads_fixed_window"] = sum(g["fixed_300ms"]["misreads"]
                                       for g in out["games"].values())
    out["live_misreads"] = sum(g["adaptive"]["live_misreads"] for g in out["games"].values())
    out["live_fillers_lost"] = sum(g["adaptive"]["live_fillers_lost"]
                                   for g in out["games"].values())
    for game, g in out["games"].items():
        out[f"commit_ms_p99_{game}"] = g["adaptive"]["commit_ms_p99"]
    out["median_commit_ms"] = {
        game: g["adaptive"]["commit_ms_p50"] for game, g in out["games"].items()}
    return out
