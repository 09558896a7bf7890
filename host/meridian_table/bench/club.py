"""``bench club``: many tables replicating into a real PostgreSQL, watched live by many.

A throwaway cluster is started from the server binaries (initdb, pg_ctl on a free
loopback port) and set up with ``club init``. Each simulated table is a real SQLite log
played by a random policy at one action a second, with its own replicator logging in
with its own role. The club page runs (uvicorn, LISTEN/NOTIFY) and a spectator holds its
WebSocket. Mid-run, PostgreSQL is restarted (``pg_ctl stop -m immediate``, a crash as
far as the server is concerned); one table is cut off from the club for ``offline_s``
while it keeps playing, then reconnects. Another table
switches to a new log mid-run (a new laptop). The club also holds one very long game
(``big_game_events``, 100,000 by default) while ``spectators`` WebSocket clients (200)
watch and the home page ``/`` is fetched over and over. At the end the club's copy is
compared with every table's log, each log known by its identity.

Figures: ``push_to_spectator_ms_p50``/``_p99`` run from the table's local log write (the
event's ``at``) to its arrival on the spectator's WebSocket, for events logged while the
server was up and the table connected (``_p99_all`` counts every event, the outage's
included); ``catch_up_s`` is how long the cut-off table took to ship its backlog;
``lost``/``duplicated`` compare the club with the logs; ``home_ms_p50``/``_p99`` time
``GET /`` while all that runs. The same-run references are one ``INSERT`` and commit on a
loopback connection (``reference_insert_ms_p50``) and one ``GET`` of a page that reads
one row (``reference_page_ms_p50``, a game that is not there).
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import shutil
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import psutil
import psycopg

NAME = "club"
HELP = "tables replicating into a real PostgreSQL: push latency, catch-up, lost/duplicated"

TARGET_P99_MS = 250.0
TARGET_CATCH_UP_S = 5.0
TARGET_HOME_P99_MS = 100.0


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class Spectators:
    """``count`` WebSocket clients on the club page (one asyncio loop on its own thread),
    recording when each event reaches each of them."""

    def __init__(self, url: str, count: int) -> None:
        import asyncio

        self.url = url.replace("http://", "ws://") + "ws"
        self.count = count
        self.arrivals: list[dict[tuple[str, int, int], tuple[float, str]]] = [
            {} for _ in range(count)]
        self.connected = 0
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._loop.run_until_complete,
                                        args=(self._main(),), daemon=True)
        self._thread.start()
        self._ready.wait(60)

    async def _main(self) -> None:
        import asyncio

        self._stop = asyncio.Event()
        tasks = [asyncio.create_task(self._one(i)) for i in range(self.count)]
        while self.connected < self.count and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        self._ready.set()
        await self._stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _one(self, index: int) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        seen = self.arrivals[index]
        async with connect(self.url, open_timeout=30, max_queue=None) as ws:
            self.connected += 1
            try:
                async for message in ws:
                    now = time.time()
                    data = json.loads(message)
                    for item in data if isinstance(data, list) else [data]:
                        if item.get("type") == "event":
                            key = (str(item["table"]), int(item["game"]), int(item["seq"]))
                            seen.setdefault(key, (now, str(item["at"])))
            except ConnectionClosed:
                pass

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def latencies(self, left_out: set[str], excluded: list[tuple[float, float]]
                  ) -> tuple[list[float], list[float], list[int]]:
        """(steady latencies, every latency, events per spectator) in ms: steady leaves
        out the tables in ``left_out`` and the events written in an ``excluded`` span."""
        steady, everything = [], []
        for seen in self.arrivals:
            for (table, _g, _s), (arrived, at) in seen.items():
                written = datetime.fromisoformat(at).timestamp()
                latency = (arrived - written) * 1000
                everything.append(latency)
                if table not in left_out and not any(a <= written <= b for a, b in excluded):
                    steady.append(latency)
        return steady, everything, [len(seen) for seen in self.arrivals]


class PageTimer:
    """``GET path`` over and over on its own thread (a spectator opening the page)."""

    def __init__(self, url: str, every_s: float = 0.1) -> None:
        import httpx

        self.client = httpx.Client(base_url=url, timeout=30)
        self.every_s = every_s
        self.times: list[float] = []
        self.errors = 0
        self.paused = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def once(self, path: str) -> float:
        import httpx

        start = time.perf_counter()
        try:
            ok = self.client.get(path).status_code < 500
        except httpx.HTTPError:
            ok = False
        if not ok:
            self.errors += 1
        return (time.perf_counter() - start) * 1000

    def back_after(self, timeout: float) -> float:
        """Seconds until ``/`` answers 200 again (inf past ``timeout``)."""
        import httpx

        began = time.monotonic()
        while time.monotonic() - began < timeout:
            try:
                if self.client.get("/", timeout=5).status_code == 200:
                    return time.monotonic() - began
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        return float("inf")

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            if not self.paused.is_set():
                self.times.append(self.once("/"))

    def start(self) -> PageTimer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        self._thread.join(30)
        self.client.close()


# The page, its spectators and the page timer each run in a process of their own, as
# they do in a club (the page is `club serve`, the spectators are phones, the tables are
# other machines): in one process they would only measure who waits for the GIL.

def _page_process(page_url: str, pipe: Connection) -> None:
    from meridian_table.club.web import ClubServer

    logging.basicConfig(level=logging.WARNING)
    with ClubServer(page_url, "127.0.0.1", 0) as server:
        server.wait_live(30)
        pipe.send(server.url)
        pipe.recv()


def _spectators_process(url: str, count: int, pipe: Connection) -> None:
    spectators = Spectators(url, count)
    pipe.send(spectators.connected)
    command, argument = pipe.recv()
    spectators.close()
    if command == "count":
        left_out, excluded = argument
        pipe.send(spectators.latencies(left_out, excluded))


def _timer_process(url: str, pipe: Connection) -> None:
    timer = PageTimer(url)
    while True:
        command, argument = pipe.recv()
        if command == "reference":
            pipe.send(statistics.median(timer.once(str(argument)) for _ in range(30)))
        elif command == "start":
            timer.start()
        elif command == "pause":
            timer.paused.set()
        elif command == "resume":
            timer.paused.clear()
        elif command == "back":
            pipe.send(timer.back_after(float(argument)))
        else:
            timer.close()
            pipe.send((timer.times, timer.errors))
            return


class Helper:
    """A bench helper in a process of its own (spawned), spoken to over a pipe."""

    def __init__(self, target: Callable[..., None], *args: object) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, child = context.Pipe()
        self.process = context.Process(target=target, args=(*args, child), daemon=True)
        self.process.start()
        child.close()

    def ask(self, *message: object, timeout: float = 120) -> Any:
        if message:
            self.pipe.send(message[0] if len(message) == 1 else message)
        deadline = time.monotonic() + timeout
        while not self.pipe.poll(0.2):
            if not self.process.is_alive():
                raise RuntimeError(f"a bench helper ({self.process.name}) stopped (exit code "
                                   f"{self.process.exitcode}); its error is above")
            if time.monotonic() > deadline:
                raise RuntimeError(f"a bench helper ({self.process.name}) did not answer in "
                                   f"{timeout:.0f} s")
        return self.pipe.recv()

    def tell(self, *message: object) -> None:
        try:
            self.pipe.send(message[0] if len(message) == 1 else message)
        except OSError:   # it has already stopped
            pass

    def cpu_s(self) -> float:
        """CPU seconds the helper's process used so far."""
        times = psutil.Process(self.process.pid).cpu_times()
        return float(times.user + times.system)

    def close(self) -> None:
        if self.process.is_alive():
            self.process.join(15)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)
        self.pipe.close()


def _big_game(url: str, events: int, game: str, folder: Path) -> None:
    """A long game in the club (its table's own role): ``events`` events, mostly clock
    ticks, a few real moves of ``game``, still in play."""
    from psycopg.types.json import Jsonb

    from meridian_table.club.simtable import SimTable

    with SimTable(folder / "long.sqlite3", game, ["Long", "Game"], seed=7) as sim:
        sim.new_game()
        moves = [sim.step() for _ in range(4)]
        options = dict(sim.options)
    with psycopg.connect(url) as conn:
        conn.execute("INSERT INTO club.games (game_id, game, options, players, versions, "
                     "started) VALUES (1, %s, %s, %s, '{}', now())",
                     (game, Jsonb(options), Jsonb(["Long", "Game"])))
        rows: list[tuple[int, int, str, Any]] = [(1, 1, "created", Jsonb({}))]
        played = iter(moves)
        for seq in range(2, events + 1):
            if seq % 25_000 == 0:
                notation = next(played, None)
                if notation is not None:
                    rows.append((seq, seq, "action", Jsonb({"notation": notation,
                                                             "player": "Long"})))
                    continue
            rows.append((seq, seq, "clock", Jsonb({"ms": seq})))
        with conn.cursor() as cur:
            for at in range(0, len(rows), 10_000):
                cur.executemany(
                    "INSERT INTO club.events (game_id, seq, local_id, kind, at, payload) "
                    "VALUES (1, %s, %s, %s, now(), %s)", rows[at:at + 10_000])
                conn.commit()


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


def _compare(page_url: str, logs: dict[str, list[Path]]) -> tuple[int, int, int]:
    """(events in the logs, lost, duplicated) between the logs (each known by its
    identity) and the club's copy."""
    from meridian_table.club.replicator import LocalLog

    local: set[tuple[str, str, int, int, str]] = set()
    for name, paths in logs.items():
        for path in paths:
            log = LocalLog(path)
            try:
                identity = str(log.identity())
            finally:
                log.close()
            with sqlite3.connect(path) as conn:
                for seq, lid, kind in conn.execute("SELECT seq, id, kind FROM events"):
                    local.add((name, identity, int(seq), int(lid), str(kind)))
    with psycopg.connect(page_url) as conn:
        rows = [(str(t), str(log_id), int(s), int(lid), str(k))
                for t, log_id, s, lid, k in conn.execute(
                    "SELECT table_name, log_id, seq, local_id, kind FROM club.events "
                    "WHERE table_name <> 'long'")]
    club = set(rows)
    duplicated = (len(rows) - len(club)) + len(club - local)
    return len(local), len(local - club), duplicated


def run(options: dict[str, Any]) -> dict[str, object]:
    from meridian_table.club.admin import ClubAdmin, init_club
    from meridian_table.club.cluster import throwaway
    from meridian_table.club.replicator import Replicator
    from meridian_table.club.simtable import SimTable, two_player_game
    quick = bool(options.get("quick"))
    tables = int(options.get("tables", 10 if quick else 50))
    watchers = int(options.get("spectators", 20 if quick else 200))
    big_events = int(options.get("big_game_events", 2_000 if quick else 100_000))
    offline_s = float(options.get("offline_s", 5 if quick else 60))
    run_s = float(options.get("run_s", 12 if quick else 40))
    game = two_player_game()
    folder = Path(tempfile.mkdtemp(prefix="meridian-bench-club-"))
    cluster = throwaway(fast=False)
    sims: list[SimTable] = []
    reps: dict[str, Replicator] = {}
    stop = threading.Event()
    steps = threading.Lock()
    server: Helper | None = None
    spectators: list[Helper] = []
    timer: Helper | None = None
    connected = 0
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
            long_url = admin.add_table("long")
        _big_game(long_url, big_events, game, folder)
        logs = {name: [folder / f"{name}.sqlite3"] for name in urls}
        sims = [SimTable(logs[name][0], game, [f"{name}-a", f"{name}-b"], seed=i)
                for i, name in enumerate(urls)]
        server = Helper(_page_process, page_url)
        page = str(server.ask())
        # Spread over one process per core: 200 sockets in one Python loop would measure
        # that loop's backlog (each phone is its own device in a club).
        groups = max(1, min(os.cpu_count() or 1, watchers))
        spectators = [Helper(_spectators_process, page, watchers // groups
                             + (1 if g < watchers % groups else 0)) for g in range(groups)]
        connected = sum(int(helper.ask()) for helper in spectators)
        timer = Helper(_timer_process, page)
        reference_page = float(timer.ask("reference", "/game/nosuch/1"))
        timer.tell("start", None)
        page_cpu_from = server.cpu_s()
        time.sleep(0.5)
        for name, url in urls.items():
            reps[name] = Replicator(logs[name][0], url).start()
        excluded: list[tuple[float, float]] = []   # (from, to) wall clock: the outage
        names = list(urls)
        offline_name = names[0]
        switch_name = names[1 % len(names)]

        def drive() -> None:
            # one action a second per table, the tables spread over the second
            start = time.monotonic()
            tick = 0
            while not stop.is_set():
                for i in range(len(sims)):
                    due = start + tick + i / len(sims)
                    delay = due - time.monotonic()
                    if delay > 0 and stop.wait(delay):
                        return
                    with steps:
                        sims[i].step()
                tick += 1

        driver = threading.Thread(target=drive, daemon=True)
        began = time.time()
        driver.start()
        time.sleep(2)
        reps.pop(offline_name).close()              # cut off: the table keeps playing
        offline_at = time.monotonic()
        time.sleep(max(0.0, run_s / 4 - 2))
        # a new laptop at one table: another log, shipped beside the first
        with steps:
            index = names.index(switch_name)
            reps[switch_name].finish()
            sims[index].close()
            logs[switch_name].append(folder / f"{switch_name}-new.sqlite3")
            sims[index] = SimTable(logs[switch_name][-1], game,
                                   [f"{switch_name}-c", f"{switch_name}-d"], seed=99)
            reps[switch_name] = Replicator(logs[switch_name][-1], urls[switch_name]).start()
        time.sleep(max(0.0, began + run_s / 2 - time.time()))
        crash_from = time.time()
        timer.tell("pause", None)
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
        page_back_s = float(timer.ask("back", 30.0))
        timer.tell("resume", None)
        time.sleep(max(0.0, offline_at + offline_s - time.monotonic()))
        back = Replicator(logs[offline_name][0], urls[offline_name]).start()
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
        time.sleep(1.0)
        events, lost, duplicated = _compare(page_url, logs)
        page_cpu_s = server.cpu_s() - page_cpu_from
        # no more arrivals while they are counted
        spectators_cpu_s = sum(helper.cpu_s() for helper in spectators)
        steady, everything, per_spectator = [], [], []
        for helper in spectators:
            one, every, counts = helper.ask("count", ({offline_name, "long"}, excluded))
            steady += one
            everything += every
            per_spectator += counts
        home, home_errors = timer.ask("stop", None)
    finally:
        stop.set()
        helpers: list[Helper | None] = [timer, *spectators, server]
        for running in helpers:
            if running is not None:
                if running.process.is_alive():
                    running.tell("stop", None)
                running.close()
        for rep in reps.values():
            rep.close()
        for sim in sims:
            sim.close()
        cluster.destroy()
        shutil.rmtree(folder, ignore_errors=True)
    p99 = _percentile(steady, 0.99)
    home_p99 = _percentile(home, 0.99)
    verdict = ("pass" if p99 < TARGET_P99_MS and home_p99 < TARGET_HOME_P99_MS and lost == 0
               and duplicated == 0 and catch_up_s < TARGET_CATCH_UP_S else "fail")
    return {
        "tables": tables,
        "spectators": watchers,
        "spectators_connected": connected,
        "game": game,
        "big_game_events": big_events,
        "duration_s": round(duration, 1),
        "events": events,
        "events_per_s": round(events / duration, 1),
        "push_to_spectator_ms_p50": round(_percentile(steady, 0.5), 1),
        "push_to_spectator_ms_p99": round(p99, 1),
        "push_to_spectator_ms_p99_all": round(_percentile(everything, 0.99), 1),
        "spectated_events": len(everything),
        "events_per_spectator_min": min(per_spectator, default=0),
        "home_ms_p50": round(_percentile(home, 0.5), 1),
        "home_ms_p99": round(home_p99, 1),
        "home_requests": len(home),
        "home_errors": home_errors,
        "page_cpu_s": round(page_cpu_s, 2),
        "page_cpu_ms_per_event": round(page_cpu_s * 1000 / events, 2) if events else None,
        "spectator_processes": len(spectators),
        "spectators_cpu_s": round(spectators_cpu_s, 2),
        "page_back_after_restart_s": round(page_back_s, 3),
        "offline_s": offline_s,
        "catch_up_s": round(catch_up_s, 3),
        "postgres_restarts": 1,
        "log_switches": 1,
        "lost": lost,
        "duplicated": duplicated,
        "reference_insert_ms_p50": round(reference_ms, 3),
        "p99_over_reference": round(p99 / reference_ms, 1) if reference_ms else None,
        "reference_page_ms_p50": round(reference_page, 2),
        "home_p99_over_reference": round(home_p99 / reference_page, 1)
        if reference_page else None,
        "targets": {"push_to_spectator_ms_p99": TARGET_P99_MS,
                    "home_ms_p99": TARGET_HOME_P99_MS, "lost": 0, "duplicated": 0,
                    "catch_up_s": TARGET_CATCH_UP_S},
        "verdict": verdict,
    }
