"""`meridian-table bench table`: switch change to new LED frame, through the whole table.

A random game is played on the virtual board (``options["game"]``, else the first
installed game whose spec says ``table_bench``) (the real firmware behind a pty, the
real link, the session, the adapter and the engine), with the settle window set to 0 so
that it is excluded. The firmware runs in this process (``SIM_MODE`` "cpython", as in
every earlier run of this bench); ``options["sim_mode"] = "micropython"`` runs it in the
real MicroPython unix port in a process of its own, as ``bench feel`` does. Every switch change (a placement, a dead stone lifted, a stone put
back after an undo) is timed from the simulated switch change until the firmware
reports the resulting LED plan shown (SHOWN, sent once the frame is on the LEDs).
The reference measured in the same run is a bare plan round trip (link.send_plan to
SHOWN, with no switch and no table), so the ratio is the table's own share.
"""

from __future__ import annotations

import logging
import random
import statistics
import threading
import time
from typing import Any

from meridian_table.games import registry
from meridian_table.ledplan import SOLID, LedPlan, Light
from meridian_table.table.runner import RunningTable, TableSetup, open_table

LOGGER = logging.getLogger(__name__)

NAME = "table"
TARGETS = {"switch_to_led_ms_p99": ("<", 10.0)}
HELP = "switch change -> LED frame rendered by the firmware, through link, table and adapter"
MOVES = 1000
QUICK_MOVES = 60
TIMEOUT_S = 5.0
#: Where the virtual board's firmware runs (``options["sim_mode"]`` overrides).
SIM_MODE = "cpython"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def timed_change(table: RunningTable, site: str, closed: bool) -> float | None:
    """Set ``site``'s switch; ms until the firmware shows the next plan (None: no new plan)."""
    link = table.link
    before = link.plan_gen
    start = time.perf_counter()
    table.virtual.set_site(site, closed)
    deadline = start + TIMEOUT_S
    pause = threading.Event()
    while link.shown_gen <= before:
        if time.perf_counter() > deadline:
            return None
        pause.wait(0.0002)
    return (time.perf_counter() - start) * 1000.0


def wait_idle(table: RunningTable) -> None:
    pause = threading.Event()
    deadline = time.monotonic() + TIMEOUT_S
    while table.session.settling and time.monotonic() < deadline:
        pause.wait(0.001)


def run(options: dict[str, Any]) -> dict[str, Any]:
    """Time MOVES switch changes (QUICK_MOVES with ``quick``)."""
    target = QUICK_MOVES if options.get("quick") else MOVES
    rng = random.Random(20261122)
    samples: list[float] = []
    missing = 0
    games = 0
    game = options.get("game") or next(
        (s.id for s in registry.specs().values() if s.bench.table_bench), None)
    if not isinstance(game, str):
        raise RuntimeError("no installed game can drive the table bench "
                           "(GameSpec.bench.table_bench)")
    sim_mode = str(options.get("sim_mode") or SIM_MODE)
    setup = TableSetup(game=game, board="sim", db=":memory:", settle_s=0.0, sim_mode=sim_mode)
    reference: list[float] = []
    stats: dict[str, Any] = {}
    debounce_ms = 0
    while len(samples) + missing < target:
        games += 1
        with open_table(setup) as table:  # a finished game cannot be undone: a new table
            if not table.wait_ready(30):
                raise RuntimeError("the virtual board did not connect within 30 s")
            missing += _play(table, rng, target - len(samples) - missing, samples)
            if len(samples) + missing >= target:
                stats = table.link.stats()
                debounce_ms = table.profile.debounce_scans * table.profile.scan_period_ms
                reference = plan_reference(table, 30 if options.get("quick") else 200)
    p50 = percentile(samples, 0.50)
    p99 = percentile(samples, 0.99)
    ref50 = statistics.median(reference) if reference else None
    return {
        "game": game,
        "firmware": sim_mode,
        "moves": len(samples),
        "no_new_frame": missing,
        "games": games,
        "switch_to_led_ms_p50": round(p50, 3),
        "switch_to_led_ms_p99": round(p99, 3),
        "switch_to_led_ms_max": round(max(samples), 3),
        "target_p99_ms": 10.0,
        "meets_target": p99 < 10.0,  # kept for old readers; the CLI judges TARGETS
        "reference_plan_ms_p50": round(ref50, 3) if ref50 is not None else None,
        # The firmware's debounce (N equal scans) is inside the measured path by design.
        "firmware_debounce_ms": debounce_ms,
        "p50_over_reference": round(p50 / ref50, 2) if ref50 else None,
        # What is left once the profile's nominal debounce time is taken off (approximate:
        # the real debounce also waits for the next scan).
        "beyond_debounce_ms_p50": round(p50 - debounce_ms, 3),
        "beyond_debounce_ms_p99": round(p99 - debounce_ms, 3),
        "crc_errors": stats.get("crc_errors", 0),
    }


def _play(table: RunningTable, rng: random.Random, budget: int, samples: list[float]) -> int:
    """Play one random game (or ``budget`` switch changes); returns changes with no frame."""
    session = table.session
    missing = 0
    done = 0
    while done < budget:
        wait_idle(table)
        state = session.state()
        if state["phase"] == "resync" and state["diff"]["next"] is not None:
            site = state["diff"]["next"]
            change = (site, site in state["diff"]["put_back"])
        elif state["phase"] == "play" and state["legal"]:
            change = (rng.choice(state["legal"]), True)
        elif state["phase"] == "pass":
            session.press("confirm")
            continue
        else:
            break  # the game is over
        ms = timed_change(table, *change)
        done += 1
        if ms is None:
            missing += 1
        else:
            samples.append(ms)
    return missing


def plan_reference(table: RunningTable, count: int) -> list[float]:
    """Plan round trips with no switch and no table: link and firmware alone (ms)."""
    link = table.link
    table.session.close()  # the session must not send plans of its own meanwhile
    leds = table.profile.leds
    out: list[float] = []
    pause = threading.Event()
    for i in range(count):
        plan = LedPlan.from_mapping(leds, {i % leds: Light(0x102030 + i % 2, SOLID)})
        before = link.plan_gen
        start = time.perf_counter()
        link.send_plan(plan)
        deadline = start + TIMEOUT_S
        while link.shown_gen <= before and time.perf_counter() < deadline:
            pause.wait(0.0002)
        if link.shown_gen > before:
            out.append((time.perf_counter() - start) * 1000.0)
    return out
