"""`meridian-table bench <id>-table`: switch change to LED frame with a game's own adapter.

The platform's table bench (``bench table``) measured for a game whose spec declares a
:class:`~meridian_table.games.contract.TableDriver` (``GameSpec.bench.table_driver``): seeded
games on the driver's profile on the virtual board (the real firmware behind a pty, the
real link, the session, the adapter and the engine), each action's switch changes made
as the driver says (the rest given on the page), guidance followed. The settle window is 0,
so it is excluded. Each switch change is timed from the simulated switch until the
firmware reports the resulting LED plan shown. The reference, in the same run, is a bare
plan round trip (link and firmware, no switch, no table). The firmware's debounce is in
the measured path, as in ``bench table``; the figures beyond it are reported apart.
"""

from __future__ import annotations

import logging
import random
import statistics
from typing import Any

from meridian_table.bench.table import (
    SIM_MODE,
    percentile,
    plan_reference,
    timed_change,
    wait_idle,
)
from meridian_table.games import registry
from meridian_table.games.contract import TableDriver
from meridian_table.table.runner import RunningTable, TableSetup, open_table

LOGGER = logging.getLogger(__name__)

HELP = "a game at the table: switch change to LED frame with its own adapter"

CHANGES = 600
QUICK_CHANGES = 60
TIMEOUT_S = 5.0
SEED = 20261126


def _play(table: RunningTable, driver: TableDriver, rng: random.Random, budget: int,
          samples: list[float]) -> int:
    """Play one game (or ``budget`` changes); returns the changes that showed no frame."""
    session = table.session
    missing = 0
    done = 0
    steps = 0
    while done < budget and steps < 4 * budget:
        steps += 1
        wait_idle(table)
        state = session.state()
        changes: list[tuple[str, bool]] = []
        if state["phase"] in ("resync", "execute") and state["diff"]["next"] is not None:
            site = state["diff"]["next"]
            changes = [(site, site in state["diff"]["put_back"])]
            action = None
        elif state["phase"] == "ended":
            break
        else:
            action, made = driver.step(session.adapter.engine.clone(), rng)
            changes = list(made)
        count = len(state["moves"])
        for site, closed in changes:
            ms = timed_change(table, site, closed)
            done += 1
            if ms is None:
                missing += 1
            else:
                samples.append(ms)
            wait_idle(table)
        if action is not None and len(session.state()["moves"]) == count:
            session.command({"cmd": "choose", "field": "action", "value": action})
    return missing


def run(game: str, options: dict[str, Any]) -> dict[str, Any]:
    """Time CHANGES switch changes (QUICK_CHANGES with ``quick``) of ``game``."""
    driver = registry.spec(game).bench.table_driver
    if driver is None:
        raise RuntimeError(f"{game} declares no table driver (GameSpec.bench.table_driver)")
    target = QUICK_CHANGES if options.get("quick") else CHANGES
    rng = random.Random(SEED)
    samples: list[float] = []
    missing = 0
    games = 0
    reference: list[float] = []
    debounce_ms = 0
    while len(samples) + missing < target:
        games += 1
        setup = TableSetup(game=game, board="sim", profile=driver.profile,
                           players=driver.players, options=dict(driver.options(SEED + games)),
                           db=":memory:", settle_s=0.0,
                           sim_mode=str(options.get("sim_mode") or SIM_MODE))
        with open_table(setup) as table:
            if not table.wait_ready(30):
                raise RuntimeError("the virtual board did not connect within 30 s")
            missing += _play(table, driver, rng, target - len(samples) - missing, samples)
            if len(samples) + missing >= target:
                debounce_ms = table.profile.debounce_scans * table.profile.scan_period_ms
                reference = plan_reference(table, 30 if options.get("quick") else 200)
    if not samples:
        raise RuntimeError("no switch change showed a frame")
    p50, p99 = percentile(samples, 0.50), percentile(samples, 0.99)
    ref50 = statistics.median(reference) if reference else None
    return {
        "game": game,
        "profile": driver.profile,
        "firmware": str(options.get("sim_mode") or SIM_MODE),
        "changes": len(samples),
        "no_new_frame": missing,
        "games": games,
        "switch_to_led_ms_p50": round(p50, 3),
        "switch_to_led_ms_p99": round(p99, 3),
        "switch_to_led_ms_max": round(max(samples), 3),
        "target_p99_ms": driver.target_p99_ms,
        "meets_target": p99 < driver.target_p99_ms,
        "reference_plan_ms_p50": round(ref50, 3) if ref50 is not None else None,
        "p50_over_reference": round(p50 / ref50, 2) if ref50 else None,
        # The firmware's debounce (N equal scans) is inside the measured path by design;
        # what is left once it is taken off is the link's, the table's and the adapter's.
        "firmware_debounce_ms": debounce_ms,
        "beyond_debounce_ms_p50": round(p50 - debounce_ms, 3),
        "beyond_debounce_ms_p99": round(p99 - debounce_ms, 3),
    }


__all__ = ["run"]
