"""``bench club``: many tables replicating into a real PostgreSQL, watched live.

A throwaway cluster is started from the server binaries (initdb, pg_ctl on a free
loopback port) and set up with ``club init``. Each simulated table is a real SQLite log
played by a random policy at one action a second, with its own replicator logging in
with its own role. The club page runs (uvicorn, LISTEN/NOTIFY) and a spectator holds its
WebSocket. Mid-run, PostgreSQL is restarted (``pg_ctl stop -m immediate``, a crash as
far as the server is concerned); one table is cut off from the club for ``offline_s``
while it keeps playing, then reconnects. At the end the club's copy is compared with
every table's log.

Figures: ``push_to_spectator_ms_p50``/``_p99`` run from the table's local log write (the
event's ``at``) to its arrival on the spectator's WebSocket, for events logged while the
server was up and the table connected (``_p99_all`` counts every event, the outage's
included); ``catch_up_s`` is how long the cut-off table took to ship its backlog;
``lost``/``duplicated`` compare the club with the logs. The same-run reference is one
``INSERT`` and commit on a loopback connection (``reference_insert_ms_p50``).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import statistics
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg

NAME = "club"
HELP = "tables replicating into a real PostgreSQL: push latency, catch-up, lost/duplicated"

TARGET_P99_MS = 250.0
TARGET_CATCH_UP_S = 5.0


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class Spectator:
    """A WebSocket client on the club page recording when each event arrives."""

    def __init__(self, url: str) -> None:
        from websockets.sync.client import connect

        self.ws = connect(url.replace("http://", "ws://") + "ws", open_timeout=10, legacy=True)
        self.arrivals: dict[tuple[str, int, int], tuple[float, str]] = {}
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            for message in self.ws:
                now = time.time()
                data = json.loads(message)
                if data.get("type") == "event":
                    key = (str(data["table"]), int(data["game"]), int(data["seq"]))
                    self.arrivals.setdefault(key, (now, str(data["at"])))
        except ConnectionClosed:
            pass

    def close(self) -> None:
        self.ws.close()
        self._thread.join(5)


def _reference_insert_ms(url: str, count: int = 200) -> float:
    with psycopg.connect(url) as conn:
        conn.execute("CREATE TABLE bench_reference (n int)")  # logged, like club.events
        times = []
        for n in range(count):
            start = time.perf_counter()
            conn.execute("INSERT INTO bench_reference VALUES (%s)", (n,))
            conn.commit()
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _compare(page_url: str, logs: dict[str, Path]) -> tuple[int, int, int]:
    """(events in the logs, lost, duplicated) between each log and the club's copy."""
    local: set[tuple[str, int, int, int, str]] = set()
    for name, path in logs.items():
        with sqlite3.connect(path) as conn:
            for gid, seq, lid, kind in conn.execute("SELECT game_id, seq, id, kind FROM events"):
                local.add((name, int(gid), int(seq), int(lid), str(kind)))
    with psycopg.connect(page_url) as conn:
        rows = [(str(t), int(g), int(s), int(lid), str(k)) for t, g, s, lid, k in conn.execute(
            "SELECT table_name, game_id, seq, local_id, kind FROM club.events")]
    club = set(rows)
    duplicated = (len(rows) - len(club)) + len(club - local)
    return len(local), len(local - club), duplicated


def run(options: dict[str, Any]) -> dict[str, object]:
    from meridian_table.club.admin import ClubAdmin, init_club
    from meridian_table.club.cluster import throwaway
    from meridian_table.club.replicator import Replicator
    from meridian_table.club.simtable import SimTable, two_player_game
    from meridian_table.club.web import ClubServer

    quick = bool(options.get("quick"))
    tables = int(options.get("tables", 10 if quick else 50))
    offline_s = float(options.get("offline_s", 5 if quick else 60))
    run_s = float(options.get("run_s", 12 if quick else 40))
    game = two_player_game()
    folder = Path(tempfile.mkdtemp(prefix="meridian-bench-club-"))
    cluster = throwaway(fast=False)
    sims: list[SimTable] = []
    reps: dict[str, Replicator] = {}
    stop = threading.Event()
    server: ClubServer | None = None
    spectator: Spectator | None = None
    try:
        with psycopg.connect(cluster.url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE club")
        made = init_club(cluster.url("club"))
        assert made.admin_url is not None and made.page_url is not None
        page_url = made.page_url
        reference_ms = _reference_insert_ms(cluster.url("club"))
        urls: dict[str, str] = {}
        with ClubAdmin(made.admin_url) as admin:
            for i in range(tables):
                urls[f"t{i:02d}"] = admin.add_table(f"t{i:02d}")
        logs = {name: folder / f"{name}.sqlite3" for name in urls}
        sims = [SimTable(logs[name], game, [f"{name}-a", f"{name}-b"], seed=i)
                for i, name in enumerate(urls)]
        server = ClubServer(page_url, "127.0.0.1", 0).start()
        spectator = Spectator(server.url)
        time.sleep(0.5)
        for name, url in urls.items():
            reps[name] = Replicator(logs[name], url).start()
        excluded: list[tuple[float, float]] = []   # (from, to) wall clock: the outage
        offline_name = next(iter(urls))

        def drive() -> None:
            # one action a second per table, the tables spread over the second
            start = time.monotonic()
            tick = 0
            while not stop.is_set():
                for i, sim in enumerate(sims):
                    due = start + tick + i / len(sims)
                    delay = due - time.monotonic()
                    if delay > 0 and stop.wait(delay):
                        return
                    sim.step()
                tick += 1

        driver = threading.Thread(target=drive, daemon=True)
        began = time.time()
        driver.start()
        time.sleep(2)
        reps.pop(offline_name).close()              # cut off: the table keeps playing
        offline_at = time.monotonic()
        time.sleep(max(0.0, run_s / 2 - 2))
        crash_from = time.time()
        cluster.stop("immediate")
        time.sleep(1.0)
        cluster.start()
        for rep in reps.values():
            rep.wake()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(
                r.status().state != "connected" for r in reps.values()):
            time.sleep(0.05)
        excluded.append((crash_from, time.time() + 1.0))
        time.sleep(max(0.0, offline_at + offline_s - time.monotonic()))
        back = Replicator(logs[offline_name], urls[offline_name]).start()
        reps[offline_name] = back
        t0 = time.monotonic()
        caught = back.wait_caught_up(60)
        catch_up_s = time.monotonic() - t0 if caught else float("inf")
        time.sleep(max(0.0, began + run_s - time.time()))
        stop.set()
        driver.join(5)
        duration = time.time() - began
        for rep in reps.values():
            rep.wait_caught_up(30)
        time.sleep(0.5)
        events, lost, duplicated = _compare(page_url, logs)
        steady, everything = [], []
        for (table, _g, _s), (arrived, at) in spectator.arrivals.items():
            written = datetime.fromisoformat(at).timestamp()
            latency = (arrived - written) * 1000
            everything.append(latency)
            if table != offline_name and not any(a <= written <= b for a, b in excluded):
                steady.append(latency)
    finally:
        stop.set()
        if spectator is not None:
            spectator.close()
        if server is not None:
            server.close()
        for rep in reps.values():
            rep.close()
        for sim in sims:
            sim.close()
        cluster.destroy()
        shutil.rmtree(folder, ignore_errors=True)
    p99 = _percentile(steady, 0.99)
    verdict = ("pass" if p99 < TARGET_P99_MS and lost == 0 and duplicated == 0
               and catch_up_s < TARGET_CATCH_UP_S else "fail")
    return {
        "tables": tables,
        "game": game,
        "duration_s": round(duration, 1),
        "events": events,
        "events_per_s": round(events / duration, 1),
        "push_to_spectator_ms_p50": round(_percentile(steady, 0.5), 1),
        "push_to_spectator_ms_p99": round(p99, 1),
        "push_to_spectator_ms_p99_all": round(_percentile(everything, 0.99), 1),
        "spectated_events": len(everything),
        "offline_s": offline_s,
        "catch_up_s": round(catch_up_s, 3),
        "postgres_restarts": 1,
        "lost": lost,
        "duplicated": duplicated,
        "reference_insert_ms_p50": round(reference_ms, 3),
        "p99_over_reference": round(p99 / reference_ms, 1) if reference_ms else None,
        "targets": {"push_to_spectator_ms_p99": TARGET_P99_MS, "lost": 0, "duplicated": 0,
                    "catch_up_s": TARGET_CATCH_UP_S},
        "verdict": verdict,
    }
