"""`meridian-table bench bots`: how strong each game's bot is, how long it thinks, and
what its thinking costs the table.

For every installed game whose spec has a ``bot`` policy, real games (no board) are
played with the seats alternated:

- every level against a uniformly random player and against the game's ``greedy``
  one-ply player (at the game's smallest player count), and the top level against
  random players at the largest player count (with 4 players: three random players);
- the top level against the game's ``uct`` player (plain UCT with random playouts) at
  equal think time, when the game has one (the reference measured in the same run);
- think time p50/p99 per level (the budget is 0.2 s a move);
- ``switch_to_led_ms_p99_while_thinking``: ``bench table`` on the virtual board while
  a bot thinks without a break in its worker process, beside the same bench idle.

Games per pairing: 100, or ``MERIDIAN_BENCH_BOT_GAMES``. They run one per core at once
(``MERIDIAN_BENCH_BOT_JOBS``), each in its own process, so every bot has a core to itself
for its 0.2 s. Decided games stop early by resign adjudication (``ADJUDICATION``,
bots/arena.py), as engine matches do, except every ``PLAY_OUT``-th game of each pairing,
which is played to its end: the figures say how often the rule fired in those and how
often it named the real winner (``MERIDIAN_BENCH_BOT_ADJUDICATE=0`` plays every game
out). ``--quick`` plays 1 game a pairing at 0.02 s a move in this process (the same
fields, for tests and CI). A progress bar goes to stderr.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import statistics
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import psutil

from meridian_table import bots
from meridian_table.bench import table as table_bench
from meridian_table.bots.arena import Adjudication, game_options, play
from meridian_table.bots.worker import WorkerPolicy
from meridian_table.games import registry
from meridian_table.games.contract import GameSpec, PolicyCancelled

LOGGER = logging.getLogger(__name__)

NAME = "bots"
HELP = "every bot level's win rates (random, greedy, plain UCT), think times, table latency"
BUDGET_S = 0.2
GAMES = 100
QUICK_GAMES = 1
QUICK_BUDGET_S = 0.02
SEED = 20261126
#: Games end when decided (resign adjudication, bots/arena.py), except every PLAY_OUT-th
#: game of each pairing, which is played to its end to check the rule.
ADJUDICATION = Adjudication(win=0.95, moves=3)
#: Coprime with every player count (2 to 4), so that the played-out games go round the
#: seats like the others (with 4, every played-out game had the bot in the first seat).
PLAY_OUT = 5

def _jobs() -> int:
    """How many games run at once: one per core this process may use, or
    ``MERIDIAN_BENCH_BOT_JOBS``."""
    given = os.environ.get("MERIDIAN_BENCH_BOT_JOBS")
    if given:
        if not given.isdigit() or int(given) < 1:
            raise ValueError(f"MERIDIAN_BENCH_BOT_JOBS={given!r} is not a whole number >= 1")
        return int(given)
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


@dataclass(frozen=True)
class Task:
    """One game of a pairing: the bot (``level``) in seat ``k % players`` against
    ``players - 1`` ``opponent``s, adjudicated unless ``k`` is a multiple of PLAY_OUT."""

    pairing: str
    game: str
    level: int
    opponent: str
    players: int
    k: int
    budget_s: float
    adjudicate: bool
    #: A fixed amount of search instead of the wall-time budget (``bench bots --contend``).
    iterations: int | None = None


@dataclass(frozen=True)
class Result:
    task: Task
    share: float
    think_s: tuple[float, ...]
    adjudicated: bool
    #: In a game played out under adjudication watch: did the rule fire, was it right?
    fired: bool
    right: bool
    #: The game's wall-clock time.
    seconds: float = 0.0


def play_task(task: Task) -> Result:
    """Play one task's game (in a worker process: everything it needs is in the task)."""
    spec = registry.spec(task.game)
    seed = SEED + task.k
    me = task.k % task.players
    policies = [bots.create(task.game, task.level, seed, task.iterations) if s == me
                else spec.policy(task.opponent, seed * 10 + s) for s in range(task.players)]
    watch = task.adjudicate or task.k % PLAY_OUT == 0
    start = time.perf_counter()
    played = play(spec, policies, seed, task.budget_s, ADJUDICATION if watch else None,
                  stop_when_decided=task.adjudicate and task.k % PLAY_OUT != 0)
    would = played.would_adjudicate
    return Result(task, played.share(me), played.think_s[me], played.adjudicated,
                  fired=would is not None,
                  right=would is not None and set(would[0]) == set(played.winners),
                  seconds=time.perf_counter() - start)


def _tasks(spec: GameSpec, games: int, budget_s: float, adjudicate: bool) -> list[Task]:
    players = min(spec.player_counts)
    out: list[Task] = []

    def pairing(name: str, level: int, opponent: str, count: int) -> None:
        # Only the levels that think for the budget: their games are where the time
        # goes, and their values are steady enough to call a game.
        watch = adjudicate and level >= bots.LEVELS[-2]
        out.extend(Task(name, spec.id, level, opponent, count, k, budget_s, watch)
                   for k in range(games))

    for level in bots.LEVELS:
        for opponent in ("random", "greedy"):
            if opponent in spec.policies:
                pairing(f"{level}/vs_{opponent}", level, opponent, players)
    top = bots.LEVELS[-1]
    most = max(spec.player_counts)
    if most != players:
        pairing(f"top_vs_random_{most}_players", top, "random", most)
    if "uct" in spec.policies:
        pairing("top_vs_uct_equal_time", top, "uct", players)
    return out


def _summary(results: list[Result]) -> dict[str, Any]:
    task = results[0].task
    games = len(results)
    out: dict[str, Any] = {
        "games": games,
        "players": task.players,
        "win_rate": round(sum(r.share for r in results) / games, 3),
        "fair_share": round(1 / task.players, 3),
    }
    if task.adjudicate:
        played_out = [r for r in results if not r.adjudicated]
        out["adjudicated"] = games - len(played_out)
        out["played_out"] = len(played_out)
        out["played_out_win_rate"] = (round(sum(r.share for r in played_out) / len(played_out), 3)
                                      if played_out else None)
        checked = [r for r in played_out if r.fired]
        out["adjudication_checked"] = len(checked)
        out["adjudication_right"] = sum(r.right for r in checked)
    out["seconds"] = round(sum(r.seconds for r in results), 1)
    return out


def _rate(summary: dict[str, Any]) -> float | None:
    """The win rate a target is judged on: with adjudicated games, the lower of the rate
    over all games and the rate over the games played out, so that adjudication can
    never carry a target the played-out games do not."""
    rate = summary.get("win_rate")
    played_out = summary.get("played_out_win_rate")
    if rate is None:
        return None
    return float(rate) if played_out is None else min(float(rate), float(played_out))


def _game(spec: GameSpec, results: list[Result]) -> dict[str, Any]:
    out: dict[str, Any] = {"budget_s": results[0].task.budget_s if results else None,
                           "levels": {}}
    by: dict[str, list[Result]] = {}
    for r in results:
        by.setdefault(r.task.pairing, []).append(r)
    for level in bots.LEVELS:
        row: dict[str, Any] = {}
        think: list[float] = []
        for opponent in ("random", "greedy"):
            group = by.get(f"{level}/vs_{opponent}")
            if group:
                row[f"vs_{opponent}"] = _summary(group)
                for r in group:
                    think.extend(r.think_s)
        p50 = table_bench.percentile(think, 0.5) if think else None
        p99 = table_bench.percentile(think, 0.99) if think else None
        row["think_ms_p50"] = None if p50 is None else round(p50 * 1000, 1)
        row["think_ms_p99"] = None if p99 is None else round(p99 * 1000, 1)
        budget = results[0].task.budget_s
        row["think_p99_within_budget_plus_100ms"] = p99 is not None and p99 <= budget + 0.1
        out["levels"][str(level)] = row
    for name, group in by.items():
        if "/" not in name:
            out[name] = _summary(group)
    return out


def _latency(game: str, quick: bool) -> dict[str, Any]:
    """``bench table`` idle, then while ``game``'s top bot thinks in its worker."""
    idle = table_bench.run({"quick": quick})
    stop = threading.Event()
    spec = registry.spec(game)
    worker = WorkerPolicy(game, bots.description(bots.LEVELS[-1]), SEED)

    def keep_thinking() -> None:
        engine = spec.new_game({}, SEED)
        while not stop.is_set():
            try:
                worker.choose(engine.clone(), 1.0, stop)
            except PolicyCancelled:
                return

    thinker = threading.Thread(target=keep_thinking, daemon=True)
    thinker.start()
    try:
        busy = table_bench.run({"quick": quick, "game": game})
    finally:
        stop.set()
        thinker.join(5)
        worker.close()
    return {"switch_to_led_ms_p99_idle": idle["switch_to_led_ms_p99"],
            "switch_to_led_ms_p99_while_thinking": busy["switch_to_led_ms_p99"],
            "switch_to_led_ms_p50_while_thinking": busy["switch_to_led_ms_p50"],
            "switch_moves_while_thinking": busy["moves"],
            "while_thinking_meets_10ms": busy["switch_to_led_ms_p99"] < 10.0}


def run(options: dict[str, Any]) -> dict[str, Any]:
    quick = bool(options.get("quick"))
    games = QUICK_GAMES if quick else int(os.environ.get("MERIDIAN_BENCH_BOT_GAMES", GAMES))
    specs = [s for s in registry.specs().values() if s.bot is not None and s.bench.bot_bench]
    if not specs:
        raise RuntimeError("no installed game asks for its bot to be measured "
                           "(GameSpec.bench.bot_bench)")
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    started = time.perf_counter()
    budget = QUICK_BUDGET_S if quick else BUDGET_S
    # Quick runs (tests) play in this process, unadjudicated, unless told otherwise.
    adjudicate = os.environ.get("MERIDIAN_BENCH_BOT_ADJUDICATE", "0" if quick else "1") != "0"
    jobs = 1 if quick and "MERIDIAN_BENCH_BOT_JOBS" not in os.environ else _jobs()
    figures: dict[str, Any] = {"games_per_pairing": games, "budget_s": budget, "jobs": jobs,
                               "load_average_start": [round(x, 2) for x in psutil.getloadavg()]}
    tasks = [t for spec in specs for t in _tasks(spec, games, budget, adjudicate)]
    # The longest pairings first, so that the workers finish together.
    tasks.sort(key=lambda t: (-(t.level == bots.LEVELS[-1]), -t.players, t.pairing, t.k))
    results: list[Result] = []
    # On stderr, so that --json output stays clean. Where stderr is not a terminal (a
    # log file), a line every tenth of the way instead of the bar.
    console = Console(stderr=True)
    step = max(1, len(tasks) // 10)

    def finished(result: Result) -> None:
        results.append(result)
        progress.advance(bar)
        if not console.is_terminal and len(results) % step == 0:
            console.print(f"bench bots: {len(results)} of {len(tasks)} games played "
                          f"({time.perf_counter() - started:.0f} s)")

    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                  transient=True) as progress:
        bar = progress.add_task(f"bots: {len(tasks)} games on {jobs} cores", total=len(tasks))
        if jobs == 1:
            for t in tasks:
                finished(play_task(t))
        else:
            context = multiprocessing.get_context("spawn")  # no fork: rich has a thread
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
                for done in as_completed([pool.submit(play_task, t) for t in tasks]):
                    finished(done.result())
    for spec in specs:
        figures[spec.id] = _game(spec, [r for r in results if r.task.game == spec.id])
    if adjudicate:
        watched = [r for r in results if r.task.adjudicate and r.task.k % PLAY_OUT == 0]
        figures["adjudication"] = {
            "rule": (f"a bot's own value of its seat >= {ADJUDICATION.win} (or <= "
                     f"{1 - ADJUDICATION.win:.2f} with 2 players) for {ADJUDICATION.moves} of "
                     f"its moves in a row; every {PLAY_OUT}th game is played out instead"),
            "adjudicated_games": sum(r.adjudicated for r in results),
            "played_out_games": sum(not r.adjudicated for r in results),
            "checked_in_played_out": sum(r.fired for r in watched),
            "right_in_played_out": sum(r.right for r in watched),
        }
    table_game = next((s.id for s in specs if s.bench.table_bench), None)
    if table_game is not None:
        figures.update(_latency(table_game, quick))
    figures["verdict"] = _verdict(figures)
    figures["seconds"] = round(time.perf_counter() - started, 1)
    figures["think_ms_p99_all_levels"] = max(
        (lv["think_ms_p99"] for s in specs for lv in figures[s.id]["levels"].values()
         if lv["think_ms_p99"] is not None), default=None)
    figures["think_ms_p50_median_all_levels"] = statistics.median(
        [lv["think_ms_p50"] for s in specs for lv in figures[s.id]["levels"].values()
         if lv["think_ms_p50"] is not None] or [0.0])
    figures["load_average_end"] = [round(x, 2) for x in psutil.getloadavg()]
    return figures


#: The issue's targets: (figure in the verdict, at least this win rate). A game's bot is
#: held to them when the game has the pairing.
TARGETS: dict[str, float] = {
    "top_vs_random": 0.99,  # a game's spec may set its own (GameSpec.bench.top_vs_random)
    "top_vs_greedy": 0.95,
    "top_vs_uct": 0.75,
    "top_vs_random_4_players": 0.50,
}


def _bound(game: str, name: str) -> float | None:
    """The win rate ``game``'s bot is held to in pairing ``name``; None: no target (its
    spec's ``bench.untargeted``)."""
    settings = registry.spec(game).bench
    if name in settings.untargeted:
        return None
    if name == "top_vs_random" and settings.top_vs_random is not None:
        return settings.top_vs_random
    return TARGETS[name]


def _verdict(figures: dict[str, Any]) -> dict[str, Any]:
    """Each target: "pass" or "fail", with the figure judged and its bound in ``targets``
    (win rates: see ``_rate``)."""
    out: dict[str, Any] = {}
    bounds: dict[str, str] = {}
    for game, data in figures.items():
        if not isinstance(data, dict) or "levels" not in data:
            continue
        top = data["levels"][str(bots.LEVELS[-1])]
        rates = {
            "top_vs_random": _rate(top.get("vs_random", {})),
            "top_vs_greedy": _rate(top.get("vs_greedy", {})),
            "top_vs_uct": _rate(data.get("top_vs_uct_equal_time", {})),
            "top_vs_random_4_players": _rate(data.get("top_vs_random_4_players", {})),
        }
        for name, rate in rates.items():
            bound = _bound(game, name) if rate is not None else None
            if rate is None or bound is None:
                continue
            out[f"{game}_{name}"] = "pass" if rate >= bound else "fail"
            bounds[f"{game}_{name}"] = f"{rate:.3f} >= {bound:.2f}"
        within = all(lv["think_p99_within_budget_plus_100ms"] for lv in data["levels"].values())
        out[f"{game}_think_p99_within_budget"] = "pass" if within else "fail"
        worst = max((lv["think_ms_p99"] or 0.0) for lv in data["levels"].values())
        bounds[f"{game}_think_p99_within_budget"] = (
            f"{worst:.0f} ms <= {(data['budget_s'] + 0.1) * 1000:.0f} ms")
    if "while_thinking_meets_10ms" in figures:
        out["switch_to_led_p99_under_10ms_while_thinking"] = (
            "pass" if figures["while_thinking_meets_10ms"] else "fail")
        bounds["switch_to_led_p99_under_10ms_while_thinking"] = (
            f"{figures['switch_to_led_ms_p99_while_thinking']:.2f} ms < 10 ms")
    figures["targets"] = bounds
    return out


# --- bench bots --contend: strength with the machine busy -------------------------------

#: Games per mode in ``bench bots --contend`` (``MERIDIAN_BENCH_BOT_CONTEND_GAMES``).
CONTEND_GAMES = 20
QUICK_CONTEND_GAMES = 1
#: Positions the bot's speed is measured on, idle, before the games.
CALIBRATION_POSITIONS = 6
#: The contended win rate may fall this far below the idle one and still "keep" strength
#: (20 games a mode: one game is 0.05).
STRENGTH_TOLERANCE = 0.10
CONTEND_TARGETS: dict[str, tuple[str, float]] = {
    "strength_kept_contended": (">=", 1.0),
}


def _calibrate(spec: GameSpec, level: int, budget_s: float, positions: int) -> dict[str, Any]:
    """The top bot's search per second, idle: it thinks ``budget_s`` on the first
    ``positions`` positions of a game it plays against itself."""
    bot = bots.create(spec.id, level, SEED)
    engine = spec.new_game(game_options(spec, min(spec.player_counts)), SEED)
    done: list[int] = []
    spent: list[float] = []
    for _ in range(positions):
        if engine.outcome() is not None:
            break
        start = time.perf_counter()
        verdict = bot.analyse(engine.clone(), budget_s)
        spent.append(time.perf_counter() - start)
        done.append(verdict.iterations)
        engine.play(verdict.best)
    per_move = int(statistics.median(done)) if done else 0
    return {"iterations_per_move": per_move,
            "iterations_per_s": round(sum(done) / sum(spent), 1) if spent else None,
            "positions": len(done)}


def _mode(spec: GameSpec, level: int, opponent: str, games: int, budget_s: float,
          iterations: int | None, label: str) -> dict[str, Any]:
    players = min(spec.player_counts)
    tasks = [Task(label, spec.id, level, opponent, players, k, budget_s, True, iterations)
             for k in range(games)]
    results = [play_task(t) for t in tasks]
    out = _summary(results)
    think = [t for r in results for t in r.think_s]
    for q, name in ((0.5, "think_ms_p50"), (0.99, "think_ms_p99")):
        value = table_bench.percentile(think, q) if think else None
        out[name] = None if value is None else round(value * 1000, 1)
    out["iterations"] = iterations
    return out


def run_contend(options: dict[str, Any]) -> dict[str, Any]:
    """``bench bots --contend``: the top bot against the game's greedy player, idle and
    with one busy process per core beside it, first with the wall-time budget the table
    gives it, then with a fixed amount of search: the iterations per move measured idle
    at the start (what a bot that counts its search instead of the clock would do)."""
    from meridian_table.bench._contend import bot_game, busy_cores

    quick = bool(options.get("quick"))
    games = QUICK_CONTEND_GAMES if quick else int(
        os.environ.get("MERIDIAN_BENCH_BOT_CONTEND_GAMES", CONTEND_GAMES))
    budget = QUICK_BUDGET_S if quick else BUDGET_S
    spec = registry.spec(bot_game())
    level = bots.LEVELS[-1]
    opponent = "greedy" if "greedy" in spec.policies else "random"
    started = time.perf_counter()
    figures: dict[str, Any] = {
        "game": spec.id, "level": level, "opponent": opponent, "games_per_mode": games,
        "budget_s": budget, "busy_processes": os.cpu_count() or 1,
        "load_average_start": [round(x, 2) for x in psutil.getloadavg()],
    }
    from rich.console import Console
    console = Console(stderr=True)
    calibration = _calibrate(spec, level, budget, 2 if quick else CALIBRATION_POSITIONS)
    figures["calibration_idle"] = calibration
    iterations = max(1, calibration["iterations_per_move"])
    modes = (("idle_time_budget", False, None), ("contended_time_budget", True, None),
             ("contended_iteration_budget", True, iterations))
    for label, busy, fixed in modes:
        console.print(f"bench bots --contend: {label} ({games} games)")
        if busy:
            with busy_cores() as load:
                figures[label] = _mode(spec, level, opponent, games, budget, fixed, label)
                figures[label]["contention"] = load
        else:
            figures[label] = _mode(spec, level, opponent, games, budget, fixed, label)
    idle = _rate(figures["idle_time_budget"]) or 0.0
    timed = _rate(figures["contended_time_budget"]) or 0.0
    counted = _rate(figures["contended_iteration_budget"]) or 0.0
    figures["win_rate_idle"] = idle
    figures["win_rate_contended_time_budget"] = timed
    figures["win_rate_contended_iteration_budget"] = counted
    figures["iterations_kept_stronger"] = counted > timed
    best = max(timed, counted)
    figures["strength_kept_contended"] = 1.0 if best >= idle - STRENGTH_TOLERANCE else 0.0
    figures["strength_tolerance"] = STRENGTH_TOLERANCE
    figures["load_average_end"] = [round(x, 2) for x in psutil.getloadavg()]
    figures["seconds"] = round(time.perf_counter() - started, 1)
    return figures
