"""`meridian-table bench kato`: random playouts and position analysis of Kato's Meridians.

Figures:
- ``plies_per_s``: random playouts on the standard board in the playout kernel that
  the bots use (``kernel.playout``: the compiled C kernel where it is built, else its
  Python twin; ``kernel`` says which), each ply a uniform choice among the legal moves,
  one core: all plies over all the wall-clock time. ``plies_per_s_rounds`` gives each
  fifth of the games on its own; with ``load_average_1min`` it shows how much other work
  on the machine weighed.
- ``plies_per_s_python``: the pure-Python engine (``Game.random_playout``), the fallback
  the kernel must agree with play for play; ``kernel_speedup`` is the ratio.
- ``plies_per_s_api``: the same through the string API (``legal_moves`` + ``play``).
- ``analysis_us_p50`` / ``analysis_us_p99``: legal moves, dead groups of both colours
  and safe points of both colours for one position, over positions from those games.
- ``reference_plies_per_s``: a plain implementation (coordinate dicts, walks along the
  lines, flood fills) playing the same rules in the same run; ``speedup`` is the ratio.
"""

from __future__ import annotations

import logging
import random
import statistics
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import psutil

from meridian_table.games.kato import geometry, kernel
from meridian_table.games.kato.game import Game

LOGGER = logging.getLogger(__name__)

NAME = "kato"
HELP = "Kato's Meridians: random playouts (plies/s) and analysis latency (us)."

Coord = tuple[int, int]
_DIRS: tuple[Coord, ...] = ((1, 0), (0, 1), (1, -1), (-1, 0), (0, -1), (-1, 1))


class Playouts(NamedTuple):
    """What ``playouts`` measured."""

    plies: int
    seconds: float
    """Wall-clock time inside ``random_playout`` (the headline figure uses this)."""
    round_rates: list[float]
    """Plies per second of each round of games: their spread shows the machine noise."""
    kept: list[Game]


def _timed_rounds(games: int, rounds: int, play: Callable[[int], tuple[int, float]]
                  ) -> tuple[int, float, list[float]]:
    """Run ``play(n)`` (plies played, seconds it took) for ``games`` games in ``rounds``
    equal rounds: all plies, all seconds, and each round's plies per second."""
    plies = 0
    elapsed = 0.0
    rates: list[float] = []
    per_round = max(1, games // rounds)
    round_plies = 0
    round_seconds = 0.0
    for n in range(games):
        count, seconds = play(n)
        elapsed += seconds
        plies += count
        round_plies += count
        round_seconds += seconds
        if (n + 1) % per_round == 0 or n + 1 == games:
            rates.append(round_plies / round_seconds)
            round_plies = 0
            round_seconds = 0.0
    return plies, elapsed, rates


def playouts(games: int, seed: int, size: int = 6, rounds: int = 5) -> Playouts:
    """Play ``games`` random games in ``rounds`` equal rounds.

    Each game is ``Game.random_playout``: a uniform choice among the legal moves at
    every ply (``pick_move``), applied by the engine's own move code. Timing starts
    after the empty board is set up.
    """
    rng = random.Random(seed)
    kept: list[Game] = []

    def play(n: int) -> tuple[int, float]:
        g = Game(size=size)
        start = time.perf_counter()
        count = g.random_playout(rng, 2000)
        seconds = time.perf_counter() - start
        if n < 40:
            kept.append(g)
        return count, seconds

    plies, elapsed, rates = _timed_rounds(games, rounds, play)
    return Playouts(plies, elapsed, rates, kept)


def kernel_playouts(games: int, seed: int, size: int = 6, rounds: int = 5) -> Playouts:
    """``games`` random games in the playout kernel, timed per call, in ``rounds`` rounds."""
    start_state = kernel.state_of(Game(size=size))

    def play(n: int) -> tuple[int, float]:
        start = time.perf_counter()
        count, _ = kernel.playout(start_state, seed * 1_000_003 + n, 2000)
        return count, time.perf_counter() - start

    plies, elapsed, rates = _timed_rounds(games, rounds, play)
    return Playouts(plies, elapsed, rates, [])


def playouts_api(games: int, seed: int, size: int = 6) -> tuple[int, float]:
    """Random games through ``legal_moves()`` and ``play()``."""
    rng = random.Random(seed)
    plies = 0
    start = time.perf_counter()
    for _ in range(games):
        g = Game(size=size)
        while g.winner is None:
            g.play(rng.choice(sorted(g.legal_moves())))
            plies += 1
    return plies, time.perf_counter() - start


def analysis_times(games: list[Game], rng: random.Random, samples: int) -> list[float]:
    """Microseconds for legal moves + dead groups + safe points, per sampled position."""
    positions: list[Game] = []
    for g in games:
        history = list(g.plies)
        replay = Game(size=g.size)
        marks = set(rng.sample(range(len(history)), min(len(history), 12)))
        for i, ply in enumerate(history):
            replay.play(ply.move)
            if i in marks and replay.winner is None:
                positions.append(Game.from_position(replay.position(), replay.to_move))
    out: list[float] = []
    for i in range(samples):
        g = positions[i % len(positions)]
        start = time.perf_counter()
        g.legal_moves()
        g.dead_groups("light")
        g.dead_groups("dark")
        g.safe_points("light")
        g.safe_points("dark")
        out.append((time.perf_counter() - start) * 1e6)
    return out


class NaiveGame:
    """The reference: the same rules on a dict of coordinates, with no bitboards and no
    incremental state (every question walks the lines again)."""

    def __init__(self, size: int = 6) -> None:
        self.board: dict[Coord, int] = {qr: -1 for qr in geometry.coordinates(size).values()}
        self.order = sorted(self.board)
        self.to_move = 0
        self.turns = [0, 0]
        self.winner = -1

    def _first(self, at: Coord, d: Coord) -> tuple[Coord | None, int]:
        q, r = at
        steps = 0
        while True:
            q, r = q + d[0], r + d[1]
            steps += 1
            if (q, r) not in self.board:
                return None, steps
            if self.board[(q, r)] >= 0:
                return (q, r), steps

    def legal(self) -> list[Coord]:
        c = self.to_move
        turn = self.turns[c]
        out: list[Coord] = []
        own = [p for p in self.order if self.board[p] == c]
        for p in self.order:
            if self.board[p] >= 0:
                continue
            if turn == 0:
                out.append(p)
                continue
            for d in _DIRS:
                hit, steps = self._first(p, d)
                if hit is not None and self.board[hit] == c:
                    if turn >= 2 or (hit == own[0] and steps >= 2):
                        out.append(p)
                        break
        return out

    def _groups(self, c: int) -> list[set[Coord]]:
        seen: set[Coord] = set()
        out: list[set[Coord]] = []
        for p in self.order:
            if self.board[p] != c or p in seen:
                continue
            group = {p}
            todo = [p]
            while todo:
                q, r = todo.pop()
                for dq, dr in _DIRS:
                    n = (q + dq, r + dr)
                    if self.board.get(n, -1) == c and n not in group:
                        group.add(n)
                        todo.append(n)
            seen |= group
            out.append(group)
        return out

    def dead(self, c: int) -> set[Coord]:
        out: set[Coord] = set()
        for group in self._groups(c):
            alive = False
            for s in group:
                for d in _DIRS:
                    hit, steps = self._first(s, d)
                    if hit is not None and steps >= 2 and self.board[hit] == c:
                        if hit not in group:
                            alive = True
                            break
                if alive:
                    break
            if not alive:
                out |= group
        return out

    def play(self, p: Coord | None) -> None:
        c = self.to_move
        if p is not None:
            self.board[p] = c
        self.turns[c] += 1
        o = 1 - c
        if self.turns[o] >= 2:
            for s in self.dead(c):
                self.board[s] = -1
        self.to_move = o
        if self.turns[o] >= 2 and o not in self.board.values():
            self.winner = c
        elif self.turns[c] >= 2 and c not in self.board.values():
            self.winner = o


def naive_playouts(games: int, seed: int, size: int = 6) -> tuple[int, float]:
    rng = random.Random(seed)
    plies = 0
    start = time.perf_counter()
    for _ in range(games):
        g = NaiveGame(size)
        count = 0
        while g.winner < 0 and count < 2000:
            legal = g.legal()
            g.play(rng.choice(legal) if legal else None)
            count += 1
        plies += count
    return plies, time.perf_counter() - start


def run(options: dict[str, Any]) -> dict[str, Any]:
    quick = bool(options.get("quick"))
    games = 20 if quick else 400
    load = psutil.getloadavg()[0]  # os.getloadavg() does not exist on Windows
    fast = kernel_playouts(games * (1 if quick else 10), seed=2024)
    measured = playouts(games, seed=2024)
    plies, seconds, kept = measured.plies, measured.seconds, measured.kept
    api_plies, api_seconds = playouts_api(5 if quick else 60, seed=7)
    ref_plies, ref_seconds = naive_playouts(1 if quick else 4, seed=11)
    times = analysis_times(kept, random.Random(5), 200 if quick else 3000)
    times.sort()
    rate = fast.plies / fast.seconds
    python_rate = plies / seconds
    ref = ref_plies / ref_seconds
    return {
        "kernel": kernel.name(),
        "games": games * (1 if quick else 10),
        "plies": fast.plies,
        "plies_per_game": round(fast.plies / (games * (1 if quick else 10)), 1),
        "plies_per_s": round(rate),
        "plies_per_s_rounds": [round(r) for r in fast.round_rates],
        "plies_per_s_python": round(python_rate),
        "plies_per_s_python_rounds": [round(r) for r in measured.round_rates],
        "kernel_speedup": round(rate / python_rate, 2),
        "plies_per_s_api": round(api_plies / api_seconds),
        "analysis_us_p50": round(statistics.median(times), 1),
        "analysis_us_p99": round(times[min(len(times) - 1, int(len(times) * 0.99))], 1),
        "reference_plies_per_s": round(ref),
        "speedup": round(rate / ref, 1),
        "target_plies_per_s": 300_000,
        "target_plies_per_s_python": 150_000,
        "target_analysis_us_p99": 1000,
        "load_average_1min": round(load, 2),
    }
