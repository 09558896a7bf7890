"""`meridian-table bench host`: the table's footprint, against a Raspberry Pi Zero 2 W's.

The real command, ``meridian-table play GAME --board sim`` (the registry's default game:
the first that drives the table bench), runs in a child process
(the virtual board in it, on the transport this system uses), watched with psutil:

- ``cold_start_to_page_s``: from starting the process until its page answers HTTP 200,
  the median of ``COLD_STARTS`` starts (each its own new log; 1 with ``quick``), every
  one listed in ``cold_start_runs_s``: one start is one sample of a noisy machine;
- ``rss_after_start_mb``: resident memory once the page answers and the board is
  connected;
- ``idle_cpu_percent``: CPU time of the whole process (table, link, web server and the
  virtual board's firmware thread) over a quiet stretch, in percent of one core; and
  ``idle_wakeups_per_s``: its voluntary context switches, which busy polling would raise;
- ``rss_after_game_mb``: resident memory after ``MOVES`` moves played through the page's
  own command API (``toggle``: the virtual switch, then firmware, link, settling, rules,
  log). Random Kato games end after about 80 to 150 moves, and the table offers no new
  game, so every time the game reaches 60 moves the last 40 are taken back (the
  ``undo`` button, the stones lifted and put back as the table asks) and play goes on:
  ``moves_played`` counts every move logged, ``undos`` the take-backs.

Start-up (what a player feels first):

- ``help_s``: ``meridian-table --help``, start to exit (the median of 5 runs);
- ``modules_imported_by_help`` and ``modules_imported_by_play``: modules imported by
  ``--help``, and by ``play kato`` until its page answers (counted with Python's
  ``-X importtime``, in runs of their own so the counting does not slow the timed ones),
  beside ``reference_interpreter_modules`` (``python -c pass``).

References measured in the same run: a bare interpreter's start (``python -c pass``)
and resident memory, and the virtual board with a bare ``Link`` connected to it in a
process of their own (no table, no page): ``host_share_idle_cpu_percent`` is what the
table and its page add to that at idle. The
verdict compares against the budgets for a 512 MB Raspberry Pi Zero 2 W: RSS under
80 MB, idle CPU under 2 % of one core on this machine.
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import psutil

from meridian_table.games import registry
from meridian_table.sim.transport import choose

LOGGER = logging.getLogger(__name__)

NAME = "host"
TARGETS = {"cold_start_to_page_s": ("<", 0.5), "help_s": ("<", 0.2)}
HELP = ("footprint on a small host: cold start to page, RSS after start and after a "
        "200-move game, idle CPU with the virtual board")
MOVES = 200
COLD_STARTS = 3
QUICK_MOVES = 30
RSS_BUDGET_MB = 80.0
IDLE_CPU_BUDGET = 2.0  # percent of one core
START_TIMEOUT_S = 60.0
MOVE_TIMEOUT_S = 10.0
# A game never ends (the table offers no new game), so past TAKE_BACK_AT moves the
# last ones are taken back down to TAKE_BACK_TO; random Kato games last 80 moves or more.
TAKE_BACK_AT = 60
TAKE_BACK_TO = 20
URL = re.compile(r"Table page: (http://\S+)")
MB = 1024 * 1024
BOARD_AND_LINK = (
    "import sys\n"
    "from meridian_table.link import Link\n"
    "from meridian_table.sim import VirtualBoard\n"
    "vb = VirtualBoard(sys.argv[1]).start()\n"
    "link = Link(vb.find_port)\n"
    "link.start()\n"
    "link.wait_connected(30)\n"
    "print('ready', flush=True)\n"
    "sys.stdin.read()\n"  # until the bench closes our stdin
    "link.close()\n"
    "vb.close()\n"
)


def _command() -> list[str]:
    """The installed `meridian-table` (beside this interpreter), else the module."""
    name = "meridian-table.exe" if os.name == "nt" else "meridian-table"
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return [str(beside)]
    return [sys.executable, "-m", "meridian_table.cli.main"]


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _cpu_seconds(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def _wakeups(process: psutil.Process) -> int:
    """Voluntary context switches of every thread (each is a sleep that ended)."""
    total = 0
    for thread in process.threads():
        try:
            # On Linux a thread id is a task psutil can read; elsewhere it is not.
            total += psutil.Process(thread.id).num_ctx_switches().voluntary
        except (psutil.Error, OSError):
            return process.num_ctx_switches().voluntary  # the whole process, if it counts so
    return total


def _idle(process: psutil.Process, seconds: float) -> tuple[float, float]:
    """(CPU percent of one core, voluntary wakeups per second) over ``seconds``."""
    c0, w0, t0 = _cpu_seconds(process), _wakeups(process), time.monotonic()
    time.sleep(seconds)  # idle on purpose: this is what is measured
    wall = time.monotonic() - t0
    cpu = _cpu_seconds(process) - c0
    wakeups = _wakeups(process) - w0
    return 100.0 * cpu / wall, wakeups / wall


class _Page:
    """The table page's HTTP API: state and commands."""

    def __init__(self, url: str) -> None:
        self.url = url

    def get_ok(self) -> bool:
        try:
            with urllib.request.urlopen(self.url, timeout=2) as reply:
                return bool(reply.status == 200)
        except OSError:
            return False

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "api/state", timeout=5) as reply:
            state: dict[str, Any] = json.loads(reply.read())
        return state

    def command(self, cmd: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            self.url + "api/command", data=json.dumps(cmd).encode(), method="POST",
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as reply:
            result: dict[str, Any] = json.loads(reply.read())
        return result


def _logged(state: dict[str, Any]) -> int:
    return sum(1 for m in state["moves"] if not m.get("provisional"))


def _settled(page: _Page, done: Any) -> dict[str, Any]:
    """Poll the page's state until ``done(state)`` holds (the bench's driver, not the
    table's idle path)."""
    deadline = time.monotonic() + MOVE_TIMEOUT_S
    while True:
        state = page.state()
        if done(state):
            return state
        if time.monotonic() > deadline:
            raise TimeoutError(f"the table did not reach the expected state: {state['message']!r}")
        time.sleep(0.005)


def _tidy(page: _Page, state: dict[str, Any]) -> dict[str, Any]:
    """Lift and put back what the table asks for, until the board matches the game."""
    for _ in range(200):
        diff = state["diff"]
        todo = list(diff["remove"]) + list(diff["put_back"])
        if not todo:
            return state
        for site in todo:
            _send(page, {"cmd": "toggle", "site": site})
        state = _settled(page, lambda s, todo=todo: not (set(todo) & set(
            s["diff"]["remove"] + s["diff"]["put_back"])) or s["diff"]["next"] is None)
    raise TimeoutError("the board never matched the game")


def _send(page: _Page, cmd: dict[str, Any]) -> None:
    result = page.command(cmd)
    if not result.get("ok"):
        raise RuntimeError(f"the table refused {cmd}: {result.get('error')}")


def _play(page: _Page, moves: int, seed: int) -> tuple[int, int]:
    """Play ``moves`` logged moves (taking back moves when a game ends). (played, undos)"""
    rng = random.Random(seed)
    played = undos = 0
    state = _tidy(page, page.state())
    while played < moves:
        if state["result"] is not None:
            raise RuntimeError(f"the game ended after {_logged(state)} moves: "
                               f"{state['message']}")
        if _logged(state) >= TAKE_BACK_AT:
            for _ in range(TAKE_BACK_AT - TAKE_BACK_TO):
                before = _logged(state)
                _send(page, {"cmd": "button", "name": "undo"})
                state = _settled(page, lambda s, before=before: _logged(s) < before)
                state = _tidy(page, state)
                undos += 1
            continue
        before = _logged(state)
        _send(page, {"cmd": "toggle", "site": rng.choice(state["legal"])})
        state = _settled(page, lambda s, before=before: _logged(s) > before)
        state = _tidy(page, state)
        played += 1
    return played, undos


def _imports(command: list[str]) -> int:
    """Modules a short command imports (one ``-X importtime`` line per module)."""
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    return sum(1 for line in done.stderr.splitlines() if line.startswith("import time:"))


def _help_start(runs: int = 5) -> float:
    """Median seconds of ``meridian-table --help``, start to exit."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([*_command(), "--help"], check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return sorted(times)[len(times) // 2]


def _start_table(command: list[str], env: dict[str, str],
                 started: float) -> tuple[subprocess.Popen[str], _Page, list[str]]:
    """Start ``command`` (a `play` that prints its page URL) and wait until the page
    answers: (the process, its page, the lines it printed so far)."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    lines: list[str] = []
    found = threading.Event()

    def reader() -> None:
        out = proc.stdout
        if out is None:
            return
        for line in out:
            lines.append(line.rstrip())
            if URL.search(line):
                found.set()
    threading.Thread(target=reader, daemon=True).start()
    try:
        if not found.wait(START_TIMEOUT_S):
            raise RuntimeError("the table printed no page URL: " + " | ".join(lines[-5:]))
        match = URL.search("\n".join(line for line in lines if "Table page" in line))
        page = _Page(match.group(1) if match else "")
        while not page.get_ok():
            if time.perf_counter() - started > START_TIMEOUT_S or proc.poll() is not None:
                raise RuntimeError("the table page never answered: " + " | ".join(lines[-5:]))
            time.sleep(0.005)
    except BaseException:
        _stop(proc)
        raise
    return proc, page, lines


def _play_imports(command: list[str], env: dict[str, str]) -> int:
    """Modules ``play`` imported by the time its page answered."""
    counted = dict(env, PYTHONPROFILEIMPORTTIME="1")
    proc, _page, lines = _start_table(command, counted, time.perf_counter())
    try:
        return sum(1 for line in list(lines) if line.startswith("import time:"))
    finally:
        _stop(proc)


def _compile_package() -> bool:
    """Compile the package to bytecode first, as pip does when it installs a wheel: a
    checkout run with PYTHONDONTWRITEBYTECODE would otherwise compile some 300 modules on
    every start, which no installed table does. True when every file compiled."""
    import compileall

    import meridian_fw
    import meridian_table

    folders = [Path(meridian_table.__file__).parent, Path(meridian_fw.__file__).parent]
    return all(compileall.compile_dir(str(f), quiet=1, workers=0) for f in folders)


def _reference_start() -> tuple[float, float]:
    """A bare interpreter: (seconds to start and exit, resident MB while alive)."""
    times = []
    for _ in range(5):  # the median, as for --help
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - started)
    seconds = sorted(times)[len(times) // 2]
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                            stdin=subprocess.PIPE, text=True)
    try:
        time.sleep(0.3)
        rss = psutil.Process(proc.pid).memory_info().rss / MB
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(10)
    return seconds, rss


def _board_and_link(idle_s: float, env: dict[str, str]) -> tuple[float, float, float]:
    """The virtual board and a bare link in a process of their own: (idle CPU percent,
    wakeups per second, resident MB)."""
    spec = registry.spec(registry.default_game())
    profile = spec.default_profile(min(spec.player_counts), {})
    proc = subprocess.Popen([sys.executable, "-c", BOARD_AND_LINK, profile], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        ready = proc.stdout.readline() if proc.stdout is not None else ""
        if ready.strip() != "ready":
            raise RuntimeError("the virtual board and link alone did not start")
        process = psutil.Process(proc.pid)
        time.sleep(1.0)  # as for the table: let the boot pattern pass
        cpu, wakeups = _idle(process, idle_s)
        rss = process.memory_info().rss / MB
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    return cpu, wakeups, rss


def run(options: dict[str, Any]) -> dict[str, Any]:
    quick = bool(options.get("quick"))
    moves = QUICK_MOVES if quick else MOVES
    idle_s = 1.0 if quick else 10.0
    figures: dict[str, Any] = {"transport": choose(), "cpu_count": os.cpu_count(),
                               "platform": sys.platform}
    try:
        _measure(figures, moves, idle_s)
    except (RuntimeError, TimeoutError, OSError, ValueError) as exc:
        figures["verdict"] = f"not measured: {exc}"
        return figures
    figures["verdict"] = _verdict(figures)
    return figures


def _measure(figures: dict[str, Any], moves: int, idle_s: float) -> None:
    with tempfile.TemporaryDirectory(prefix="meridian-bench-host-") as tmp:
        env = dict(os.environ, MERIDIAN_SIM_REGISTRY=str(Path(tmp) / "sims"),
                   PYTHONUNBUFFERED="1")
        figures["bytecode_compiled"] = _compile_package()
        ref_start, ref_rss = _reference_start()
        def command_for(db: str) -> list[str]:
            return [*_command(), "play", registry.default_game(), "--board", "sim",
                    "--port", "0", "--settle-ms", "0", "--db", str(Path(tmp) / db)]

        command = command_for("games.sqlite3")
        quick = moves == QUICK_MOVES
        figures["help_s"] = round(_help_start(3 if quick else 5), 3)
        starts = []
        for run in range(0 if quick else COLD_STARTS - 1):
            # Starts of their own (a new log each), stopped once the page answers; the
            # last start is the table measured below.
            started = time.perf_counter()
            proc, _page, _lines = _start_table(command_for(f"start{run}.sqlite3"), env,
                                               started)
            starts.append(time.perf_counter() - started)
            _stop(proc)
        started = time.perf_counter()
        proc, page, _lines = _start_table(command, env, started)
        try:
            starts.append(time.perf_counter() - started)
            figures["cold_start_runs_s"] = [round(t, 3) for t in starts]
            figures["cold_start_to_page_s"] = round(sorted(starts)[len(starts) // 2], 3)
            _settled(page, lambda s: s["link"]["state"] == "connected")
            process = psutil.Process(proc.pid)
            time.sleep(1.0)  # let the boot pattern and the first plan pass
            figures["rss_after_start_mb"] = round(process.memory_info().rss / MB, 1)
            cpu, wakeups = _idle(process, idle_s)
            figures["idle_cpu_percent"] = round(cpu, 2)
            figures["idle_wakeups_per_s"] = round(wakeups, 1)
            figures["idle_seconds"] = idle_s
            t0 = time.perf_counter()
            played, undos = _play(page, moves, seed=15)
            figures["game_seconds"] = round(time.perf_counter() - t0, 2)
            figures["moves_played"] = played
            figures["undos"] = undos
            figures["rss_after_game_mb"] = round(process.memory_info().rss / MB, 1)
        finally:
            _stop(proc)
        board_cpu, board_wakeups, board_rss = _board_and_link(idle_s, env)
        figures["modules_imported_by_help"] = _imports([*_command(), "--help"])
        figures["modules_imported_by_play"] = _play_imports(command, env)
        figures["reference_interpreter_modules"] = _imports([sys.executable, "-c", "pass"])
    figures["reference_interpreter_start_s"] = round(ref_start, 3)
    figures["reference_interpreter_rss_mb"] = round(ref_rss, 1)
    figures["reference_board_and_link_idle_cpu_percent"] = round(board_cpu, 2)
    figures["reference_board_and_link_wakeups_per_s"] = round(board_wakeups, 1)
    figures["reference_board_and_link_rss_mb"] = round(board_rss, 1)
    figures["cold_start_ratio"] = round(figures["cold_start_to_page_s"] / ref_start, 1)
    figures["help_ratio"] = round(figures["help_s"] / ref_start, 1)
    figures["rss_ratio"] = round(figures["rss_after_start_mb"] / ref_rss, 1)
    figures["host_share_idle_cpu_percent"] = round(max(0.0, cpu - board_cpu), 2)
    figures["budgets"] = {"rss_mb": RSS_BUDGET_MB, "idle_cpu_percent": IDLE_CPU_BUDGET}


def _verdict(figures: dict[str, Any]) -> str:
    over = []
    for key in ("rss_after_start_mb", "rss_after_game_mb"):
        if figures[key] >= RSS_BUDGET_MB:
            over.append(f"{key} {figures[key]} >= {RSS_BUDGET_MB}")
    if figures["idle_cpu_percent"] >= IDLE_CPU_BUDGET:
        over.append(f"idle_cpu_percent {figures['idle_cpu_percent']} >= {IDLE_CPU_BUDGET}")
    return "within budget" if not over else "over budget: " + "; ".join(over)
