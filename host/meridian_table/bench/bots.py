"""`meridian-table bench bots`: how strong each game's bot is, how long it thinks, and
what its thinking costs the table.

For every installed game whose spec has a ``bot`` policy, real games (no board) are
played with the seats alternated:

- every level against a uniformly random player and against the game's ``greedy``
  one-ply player (at the game's smallest player count), and the top level against
  random players at every other player count (with 4 players: three random players);
- the top level against the game's ``uct`` player (plain UCT with random playouts) at
  equal think time, when the game has one (the reference measured in the same run);
- think time p50/p99 per level (the budget is 0.2 s a move);
- ``switch_to_led_ms_p99_while_thinking``: ``bench table`` on the virtual board while
  a bot thinks without a break in its worker process, beside the same bench idle.

Games per pairing: 100, or ``MERIDIAN_BENCH_BOT_GAMES``; ``--quick`` plays 1 at 0.05 s a
move (the same fields, for tests and CI).
A progress bar goes to stderr.
"""

from __future__ import annotations

import logging
import os
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from meridian_table import bots
from meridian_table.bench import table as table_bench
from meridian_table.bots.arena import play
from meridian_table.bots.worker import WorkerPolicy
from meridian_table.games import registry
from meridian_table.games.contract import GameSpec, Policy, PolicyCancelled

LOGGER = logging.getLogger(__name__)

NAME = "bots"
HELP = "every bot level's win rates (random, greedy, plain UCT), think times, table latency"
BUDGET_S = 0.2
_budget = [BUDGET_S]  # this run's budget (quick runs use less)
GAMES = 100
QUICK_GAMES = 1
QUICK_BUDGET_S = 0.05
SEED = 20261126

Tick = Callable[[], None]


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _match(spec: GameSpec, make_bot: Callable[[int], Policy], opponent: str, players: int,
           games: int, tick: Tick, think: list[float] | None = None) -> dict[str, Any]:
    """``games`` games of the bot against ``players - 1`` ``opponent``s, the bot's seat
    going round; its share of the wins, and its think times into ``think``."""
    share = 0.0
    for k in range(games):
        seed = SEED + k
        me = k % players
        policies = [make_bot(seed) if s == me else spec.policy(opponent, seed * 10 + s)
                    for s in range(players)]
        played = play(spec, policies, seed, _budget[0])
        share += played.share(me)
        if think is not None:
            think.extend(played.think_s[me])
        tick()
    return {"games": games, "players": players, "win_rate": round(share / games, 3),
            "fair_share": round(1 / players, 3)}


def _maker(spec: GameSpec, level: int) -> Callable[[int], Policy]:
    def make(seed: int) -> Policy:
        return bots.create(spec.id, level, seed)

    return make


def _game(spec: GameSpec, games: int, tick: Tick) -> dict[str, Any]:
    players = min(spec.player_counts)
    out: dict[str, Any] = {"budget_s": _budget[0], "levels": {}}
    opponents = [o for o in ("random", "greedy") if o in spec.policies]
    for level in bots.LEVELS:
        think: list[float] = []
        row: dict[str, Any] = {}
        for opponent in opponents:
            row[f"vs_{opponent}"] = _match(spec, _maker(spec, level), opponent, players,
                                           games, tick, think)
        p50, p99 = _percentile(think, 0.5), _percentile(think, 0.99)
        row["think_ms_p50"] = None if p50 is None else round(p50 * 1000, 1)
        row["think_ms_p99"] = None if p99 is None else round(p99 * 1000, 1)
        row["think_p99_within_budget_plus_100ms"] = p99 is not None and p99 <= _budget[0] + 0.1
        out["levels"][str(level)] = row
    top = bots.LEVELS[-1]
    for count in spec.player_counts:
        if count != players:
            out[f"top_vs_random_{count}_players"] = _match(
                spec, _maker(spec, top), "random", count, games, tick)
    if "uct" in spec.policies:
        out["top_vs_uct_equal_time"] = _match(
            spec, _maker(spec, top), "uct", players, games, tick)
    return out


def _pairings(spec: GameSpec) -> int:
    opponents = sum(1 for o in ("random", "greedy") if o in spec.policies)
    return (len(bots.LEVELS) * opponents + len(spec.player_counts) - 1
            + ("uct" in spec.policies))


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
    specs = [s for s in registry.specs().values() if bots.BOT in s.policies]
    if not specs:
        raise RuntimeError("no installed game has a bot (a 'bot' policy in its spec)")
    from rich.console import Console
    from rich.progress import Progress

    started = time.perf_counter()
    _budget[0] = QUICK_BUDGET_S if quick else BUDGET_S
    figures: dict[str, Any] = {"games_per_pairing": games, "budget_s": _budget[0]}
    total = sum(_pairings(s) for s in specs) * games
    # On stderr, so that --json output stays clean.
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("bots", total=total)

        def tick() -> None:
            progress.advance(task)

        for spec in specs:
            figures[spec.id] = _game(spec, games, tick)
    table_game = next((s.id for s in specs if s.table_bench), None)
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
    return figures


def _verdict(figures: dict[str, Any]) -> dict[str, Any]:
    """The issue's targets, each true or false (None: not measured here)."""
    out: dict[str, Any] = {}
    for game, data in figures.items():
        if not isinstance(data, dict) or "levels" not in data:
            continue
        top = data["levels"][str(bots.LEVELS[-1])]
        out[f"{game}_top_vs_random"] = top.get("vs_random", {}).get("win_rate")
        out[f"{game}_top_vs_greedy"] = top.get("vs_greedy", {}).get("win_rate")
        if "top_vs_uct_equal_time" in data:
            out[f"{game}_top_vs_uct"] = data["top_vs_uct_equal_time"]["win_rate"]
        for key, value in data.items():
            if key.startswith("top_vs_random_"):
                out[f"{game}_{key}"] = value["win_rate"]
        out[f"{game}_think_p99_within_budget"] = all(
            lv["think_p99_within_budget_plus_100ms"] for lv in data["levels"].values())
    if "while_thinking_meets_10ms" in figures:
        out["switch_to_led_p99_under_10ms_while_thinking"] = figures["while_thinking_meets_10ms"]
    return out
