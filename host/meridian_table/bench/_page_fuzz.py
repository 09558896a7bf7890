"""`bench fuzz`'s page-command fuzzer (``page_sequences``): whole sequences of what a page
can ask (new game, review, hint, rematch, seat, clock, and hostile values of each) at a
high rate against a live table: the real TableHost on the virtual board, its SQLite log
and the page's server (uvicorn), over real HTTP from several clients at once.

Figures: ``page_commands``, ``page_status_500`` (answers with status 500), ``page_hangs``
(a command not answered within :data:`HANG_S`), ``page_rss_growth_mb`` (the table's
resident memory at its highest, less its memory after a warm-up), ``page_max_children``
(the table's child processes at the most, sampled every 50 ms) against
``page_child_bound`` (the table's own bound: one hint worker, a bot worker per seat, one
review, and multiprocessing's resource tracker), and ``page_p99_ms`` (the 99th
percentile of a ``state`` probe sent every 50 ms while the fuzzing runs: how long a
person's page waits), with the same run's reference ``page_p99_idle_ms`` (the probe on
the same table before the fuzzing starts) and their ratio ``page_p99_ratio``.
"""

from __future__ import annotations

import logging
import random
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil

from meridian_table import bots
from meridian_table.games import registry
from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import TableSetup, open_table
from meridian_table.web.server import serve

LOGGER = logging.getLogger(__name__)

SEQUENCES = 400
QUICK_SEQUENCES = 60
CLIENTS = 4
HANG_S = 30.0
PROBE_S = 0.05
#: One hint worker, a bot worker for each of up to 4 seats, one review, and the
#: resource tracker of multiprocessing's spawn start method.
CHILD_BOUND = 1 + 4 + 1 + 1

HOSTILE: tuple[object, ...] = (
    "/dev/zero", "/etc/shadow", "../../etc/passwd", "x" * 300, "bot:١", "²", "\u202e",
    "=HYPERLINK(1)", 10**40, -1, None, [], {"a": 1}, True, 1e308)


def _sequence(rng: random.Random, games: list[str]) -> list[dict[str, Any]]:
    """One page's burst: a new game or a rematch, seats, hints, a review, the clock."""
    game = rng.choice(games)
    start: dict[str, Any]
    if rng.random() < 0.3:
        start = {"cmd": "rematch"}
    else:
        start = {"cmd": "new_game", "game": game,
                 "players": rng.choice((["Ann", "Bob"], ["Ann", "Bob", "Cy"], ["Zoë", "حسن"]))}
        if rng.random() < 0.4:
            start["clock"] = rng.choice(("fischer:5m+3s", "sudden:10m", "hourglass", "1e9"))
        options = [o for o in registry.spec(game).options if not o.from_table]
        if options and rng.random() < 0.3:
            option = rng.choice(options)
            start["options"] = {option.name: rng.choice((*HOSTILE, option.default))}
        if rng.random() < 0.3:
            start["seats"] = {"2": rng.choice(("random", "bot:1", "bot:١", "oracle"))}
    steps = [start]
    for _ in range(rng.randrange(3, 12)):
        roll = rng.random()
        if roll < 0.45:
            steps.append({"cmd": "button", "name": "hint"})
        elif roll < 0.6:
            steps.append({"cmd": "seat", "seat": rng.choice((2, "2", "²", 9)),
                          "automaton": rng.choice(("random", "bot:1", None, "bot:١"))})
        elif roll < 0.75:
            steps.append({"cmd": "review", "game_id": rng.choice((1, 2, 3, 10**30)),
                          "level": rng.choice((1, 5, 9)), "budget_s": rng.choice((0.05, 10))})
        elif roll < 0.85:
            steps.append({"cmd": "review_progress", "game_id": rng.randrange(1, 5)})
        elif roll < 0.93:
            steps.append({"cmd": "games"})
        else:
            steps.append({"cmd": rng.choice(("rename", "replay", "nope")),
                          "players": [rng.choice(HOSTILE), "Bob"],
                          "game_id": rng.choice(HOSTILE)})
    return steps


class _Sampler:
    """The table process's RSS and child processes, every ``PROBE_S``."""

    def __init__(self) -> None:
        self.me = psutil.Process()
        self.max_rss = self.me.memory_info().rss
        self.max_children = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="page-fuzz-sampler", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(PROBE_S):
            try:
                rss = self.me.memory_info().rss
                children = [c for c in self.me.children(recursive=True)
                            if c.status() != psutil.STATUS_ZOMBIE]
            except psutil.Error:
                continue
            self.max_rss = max(self.max_rss, rss)
            self.max_children = max(self.max_children, len(children))

    def __enter__(self) -> _Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


def _timed(send: Callable[[], httpx.Response]) -> tuple[float, int | None]:
    started = time.perf_counter()
    try:
        status: int | None = send().status_code
    except httpx.TimeoutException:
        status = None
    except httpx.HTTPError as exc:
        LOGGER.warning("page fuzz request failed: %s", exc)
        status = -1
    return time.perf_counter() - started, status


def _poster(http: httpx.Client, cmd: dict[str, Any]) -> Callable[[], httpx.Response]:
    def send() -> httpx.Response:
        return http.post("/api/command", json=cmd)

    return send


class _Tracebacks(logging.Handler):
    """Counts records logged with a traceback anywhere in the table while it runs."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0
        self.first: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info is not None:
            self.count += 1
            if self.first is None:
                self.first = record.getMessage()


def fuzz_pages(sequences: int, seed: int = 27) -> dict[str, Any]:
    """Run ``sequences`` page sequences from :data:`CLIENTS` clients against a live table."""
    with tempfile.TemporaryDirectory() as tmp:
        # The games with a bot (hints and reviews), found in the registry.
        games = sorted(g for g, spec in registry.specs().items() if bots.has_bot(spec))
        setup = TableSetup(game=games[0], board="sim", players=("Ann", "Bob"),
                           db=str(Path(tmp) / "games.sqlite3"), settle_s=0.03)
        host = TableHost(open_table(setup))
        server = serve(host, "127.0.0.1", 0)
        base = f"http://127.0.0.1:{server.port}"
        try:
            if not host.table.wait_ready(30):
                raise RuntimeError("the virtual board did not connect within 30 s")
            with httpx.Client(base_url=base, timeout=HANG_S) as warm:
                for _ in range(20):  # warm-up: imports, the first hint worker, caches
                    warm.post("/api/command", json={"cmd": "button", "name": "hint"})
                    warm.post("/api/command", json={"cmd": "state"})
            time.sleep(1.0)
            idle = _idle_p99(base)
            figures = _run(base, sequences, seed, games)
            figures["page_p99_idle_ms"] = round(idle * 1000, 1)
            figures["page_p99_ratio"] = round(figures["page_p99_ms"] / max(idle * 1000, 0.1),
                                              1)
            return figures
        finally:
            server.close()
            host.close()


def _idle_p99(base: str, count: int = 100) -> float:
    """The same run's reference: the state probe's p99 on the same table, with no page
    sequences running."""
    times = []
    with httpx.Client(base_url=base, timeout=HANG_S) as http:
        for _ in range(count):
            seconds, _status = _timed(_poster(http, {"cmd": "state"}))
            times.append(seconds)
            time.sleep(PROBE_S)
    times.sort()
    return times[min(count - 1, int(count * 0.99))]


def _run(base: str, sequences: int, seed: int, games: list[str]) -> dict[str, Any]:
    rng = random.Random(seed)
    plans = [_sequence(rng, games) for _ in range(sequences)]
    lock = threading.Lock()
    counts = {"commands": 0, "status_500": 0, "hangs": 0, "errors": 0}
    probes: list[float] = []
    done = threading.Event()

    def client(index: int) -> None:
        with httpx.Client(base_url=base, timeout=HANG_S) as http:
            for plan in plans[index::CLIENTS]:
                for cmd in plan:
                    _seconds, status = _timed(_poster(http, cmd))
                    with lock:
                        counts["commands"] += 1
                        counts["status_500"] += status == 500
                        counts["hangs"] += status is None
                        counts["errors"] += status == -1

    def probe() -> None:
        with httpx.Client(base_url=base, timeout=HANG_S) as http:
            while not done.wait(PROBE_S):
                seconds, status = _timed(_poster(http, {"cmd": "state"}))
                with lock:
                    probes.append(seconds if status == 200 else HANG_S)

    sampler = _Sampler()
    start_rss = sampler.max_rss
    started = time.perf_counter()
    watch = _Tracebacks()
    root = logging.getLogger("meridian_table")
    root.addHandler(watch)
    try:
        _drive(client, probe, done, sampler)
    finally:
        root.removeHandler(watch)
    if watch.first is not None:
        LOGGER.warning("page fuzz: first traceback: %s", watch.first)
    probes.sort()

    p99 = probes[min(len(probes) - 1, int(len(probes) * 0.99))] if probes else HANG_S
    return {
        "page_sequences": sequences,
        "page_commands": counts["commands"],
        "page_status_500": counts["status_500"],
        "page_hangs": counts["hangs"],
        "page_transport_errors": counts["errors"],
        "page_tracebacks": watch.count,
        "page_rss_growth_mb": round((sampler.max_rss - start_rss) / 2**20, 1),
        "page_max_children": sampler.max_children,
        "page_child_bound": CHILD_BOUND,
        "page_probes": len(probes),
        "page_p99_ms": round(p99 * 1000, 1),
        "page_seconds": round(time.perf_counter() - started, 1),
    }


def _drive(client: Callable[[int], None], probe: Callable[[], None], done: threading.Event,
           sampler: _Sampler) -> None:
    with sampler:
        prober = threading.Thread(target=probe, name="page-fuzz-probe", daemon=True)
        prober.start()
        clients = [threading.Thread(target=client, args=(i,), daemon=True)
                   for i in range(CLIENTS)]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
        done.set()
        prober.join(HANG_S + 5)


__all__ = ["CHILD_BOUND", "fuzz_pages"]
