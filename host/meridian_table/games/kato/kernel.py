"""The playout kernel: whole random playouts and the search's short rollouts in one call.

Two implementations play exactly the same games, draw for draw:

- **compiled**: ``_kernel.c``, a C extension built by ``pip install`` (``setup.py``) where
  a C compiler exists. Plain rules (a colour per point, walks along the lines, flood
  fills) with no Python objects in the loop.
- **python**: the twin below, which drives :class:`~.game.Game` (``legal_mask`` and
  ``play_index``) with the same random numbers. It is the fallback when the extension
  is missing, and the reference the tests compare the compiled kernel with, play for
  play (tests/games/test_kato_kernel.py).

Both draw from splitmix64 seeded by the caller, so a search is deterministic whichever
kernel runs. Each ply is a uniform choice among: the legal points in board order
(``pass`` alone when there are none), then ``swap`` while the pie choice is open. From
a player's third turn on it first draws up to ``PICK_TRIES`` points of the whole board
and takes the first legal one (still uniform among the legal points), and lists them
only when all miss.

``MERIDIAN_KATO_KERNEL=python`` in the environment forces the twin (for comparisons).
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Sequence
from typing import Final, NamedTuple, Protocol, cast

from meridian_table.games.kato.game import DARK, LIGHT, PASS, SWAP, Game
from meridian_table.games.kato.tables import bits, tables

LOGGER = logging.getLogger(__name__)

M64: Final = (1 << 64) - 1
GOLDEN: Final = 0x9E3779B97F4A7C15

#: A state as it crosses into the compiled kernel: (size, light0, light1, light2, dark0,
#: dark1, dark2, to_move, turns_light, turns_dark, choice_open, swapped, winner, pie,
#: tournament), the bitboards cut into 64-bit words.
State = tuple[int, int, int, int, int, int, int, int, int, int, int, int, int, int, int]


class Rollout(NamedTuple):
    """What a short rollout leaves: each ply's (seat, code), the final game state, and
    the safe-point counts of the final position (0, 0 once the game is won)."""

    moves: list[tuple[int, int]]
    state: State
    light_safe: int
    dark_safe: int


class _Compiled(Protocol):
    def setup(self, size: int, neighbours: Sequence[Sequence[int]]) -> None: ...
    def legal(self, state: State) -> tuple[int, ...]: ...
    def play(self, state: State, code: int) -> tuple[State, list[int]]: ...
    def safe_counts(self, state: State) -> tuple[int, int]: ...
    def playout(self, state: State, seed: int, limit: int) -> tuple[int, State]: ...
    def rollout(
        self, state: State, seed: int, plies: int
    ) -> tuple[tuple[int, ...], State, int, int]: ...
    def select(
        self, n: list[int], w: list[float], an: list[int], aw: list[float], visits: int,
        rave: bool, rave_k: float, explore: float,
    ) -> int: ...


def _load() -> _Compiled | None:
    if os.environ.get("MERIDIAN_KATO_KERNEL", "").lower() == "python":
        return None
    try:
        from meridian_table.games.kato import _kernel
    except ImportError:
        LOGGER.info("the compiled Kato kernel is not built here: using the Python twin")
        return None
    compiled = cast(_Compiled, _kernel)
    for size in (5, 6, 7):
        compiled.setup(size, tables(size).neighbour)
    return compiled


_C: _Compiled | None = _load()


def compiled() -> bool:
    """True when the C kernel is built and in use."""
    return _C is not None


def name() -> str:
    return "compiled" if _C is not None else "python"


# --- states ---------------------------------------------------------------------------------


def state_of(g: Game) -> State:
    """``g``'s position and turn state, as the kernel takes it."""
    light, dark = g._stones
    turns = g._turns
    return (
        g.size,
        light & M64, (light >> 64) & M64, light >> 128,
        dark & M64, (dark >> 64) & M64, dark >> 128,
        g._to_move, turns[0], turns[1], int(g._choice_open), int(g._swapped), g._winner,
        int(g.pie), int(g.tournament),
    )  # fmt: skip


def game_of(state: State) -> Game:
    """A game at ``state`` (a set-up position: nothing to undo into)."""
    light = state[1] | state[2] << 64 | state[3] << 128
    dark = state[4] | state[5] << 64 | state[6] << 128
    g = Game(size=state[0], pie=bool(state[13]), tournament=bool(state[14]))
    g._stones = [light, dark]
    g._to_move = state[7]
    g._turns = [state[8], state[9]]
    g._choice_open = bool(state[10])
    g._swapped = bool(state[11])
    g._winner = state[12]
    g._base = g._snapshot()
    g._set_up = bool(light | dark)
    g._rebuild()
    return g


def winner(state: State) -> int:
    """-1 while the game goes on, else the winning colour index."""
    return state[12]


def seat_to_move(state: State) -> int:
    """The seat (0 or 1) that acts at ``state``, as ``Game.seat_to_move - 1``."""
    to_move, turns_dark, swapped, pie = state[7], state[9], state[11], state[13]
    if not pie:
        return to_move
    if turns_dark == 0:
        return 0
    holds_dark = 1 if swapped else 0
    return holds_dark if to_move == DARK else 1 - holds_dark


def seat_of_colour(state: State, colour: int) -> int:
    """The seat (0 or 1) holding colour index ``colour`` at ``state``."""
    if not state[13]:
        return colour
    holds_dark = 1 if state[11] else 0
    return holds_dark if colour == DARK else 1 - holds_dark


# --- the twin's random numbers ----------------------------------------------------------------


class SplitMix:
    """splitmix64, as ``_kernel.c`` draws: ``below(n)`` is ``((next >> 32) * n) >> 32``."""

    __slots__ = ("s",)

    def __init__(self, seed: int) -> None:
        self.s = seed & M64

    def below(self, n: int) -> int:
        self.s = s = (self.s + GOLDEN) & M64
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        z ^= z >> 31
        return ((z >> 32) * n) >> 32


#: How many points drawn from the whole board the pick tries before listing the legal
#: ones (``_kernel.c``'s PICK_TRIES).
PICK_TRIES: Final = 12


def _pick(g: Game, rng: SplitMix) -> int:
    mask = g.legal_mask()
    if not g._choice_open and g._turns[g._to_move] >= 2 and g._winner < 0:
        # Tries among all points first: the first legal one drawn is a uniform choice.
        n = g._t.n
        for _ in range(PICK_TRIES):
            p = rng.below(n)
            if mask >> p & 1:
                return p
    codes = bits(mask) if mask else [PASS]
    if g.choice_open:
        codes.append(SWAP)
    return codes[rng.below(len(codes))]


# --- the kernel's calls -----------------------------------------------------------------------


def legal(state: State) -> tuple[int, ...]:
    """The legal points at ``state``, ascending (no pass or swap)."""
    if _C is not None:
        return _C.legal(state)
    return tuple(bits(game_of(state).legal_mask()))


def play(state: State, code: int) -> tuple[State, list[int]]:
    """Apply a legal move code (a point, ``PASS`` or ``SWAP``): the new state and the
    points the removal step took."""
    if _C is not None:
        return _C.play(state, code)
    g = game_of(state)
    removed = g.play_index(code)
    return state_of(g), bits(removed)


def safe_counts(state: State) -> tuple[int, int]:
    """The number of safe points of Light and of Dark (the secondary ending's estimate)."""
    if _C is not None:
        return _C.safe_counts(state)
    g = game_of(state)
    return g.safe_mask(LIGHT).bit_count(), g.safe_mask(DARK).bit_count()


def game_safe_counts(g: Game) -> tuple[int, int]:
    """``safe_counts`` of a game, through the compiled kernel when there is one."""
    if _C is not None:
        return _C.safe_counts(state_of(g))
    return g.safe_mask(LIGHT).bit_count(), g.safe_mask(DARK).bit_count()


def playout(state: State, seed: int, limit: int = 1_000_000) -> tuple[int, State]:
    """Uniformly random legal moves from ``state`` until the game ends or ``limit``
    plies are played: how many were played, and the final state."""
    if _C is not None:
        return _C.playout(state, seed & M64, limit)
    g = game_of(state)
    rng = SplitMix(seed)
    plies = 0
    while g._winner < 0 and plies < limit:
        g.play_index(_pick(g, rng))
        plies += 1
    return plies, state_of(g)


def rollout(state: State, seed: int, plies: int) -> Rollout:
    """A short random playout for a search: at most ``plies`` plies, each recorded with
    the seat that played it, then the safe points of the position it leaves."""
    if not 0 <= plies <= 512:
        raise ValueError(f"a rollout is 0 to 512 plies, not {plies}")
    if _C is not None:
        packed, final, light, dark = _C.rollout(state, seed & M64, plies)
        return Rollout([(m >> 10, (m & 1023) - 2) for m in packed], final, light, dark)
    return _twin_rollout(game_of(state), seed, plies)


def rollout_game(g: Game, seed: int, plies: int) -> Rollout:
    """``rollout(state_of(g), seed, plies)``; the Python twin plays on ``g`` itself, so
    pass a copy you can spare."""
    if _C is not None:
        return rollout(state_of(g), seed, plies)
    if not 0 <= plies <= 512:
        raise ValueError(f"a rollout is 0 to 512 plies, not {plies}")
    return _twin_rollout(g, seed, plies)


def _twin_rollout(g: Game, seed: int, plies: int) -> Rollout:
    rng = SplitMix(seed)
    moves: list[tuple[int, int]] = []
    while g._winner < 0 and len(moves) < plies:
        seat = g.seat_to_move - 1
        code = _pick(g, rng)
        moves.append((seat, code))
        g.play_index(code)
    if g._winner >= 0:
        return Rollout(moves, state_of(g), 0, 0)
    return Rollout(
        moves, state_of(g), g.safe_mask(LIGHT).bit_count(), g.safe_mask(DARK).bit_count()
    )


def select(n: list[int], w: list[float], an: list[int], aw: list[float], visits: int,
           rave: bool, rave_k: float, explore: float) -> int:
    """The child a search descends into: UCT, its value blended with the all-moves-as-
    first value (RAVE) while that has weight, the first best on ties. ``n``/``w`` are the
    children's visits and summed values, ``an``/``aw`` their RAVE counts and values."""
    if _C is not None:
        return _C.select(n, w, an, aw, visits, rave, rave_k, explore)
    log_n = math.log(visits + 1)
    beta = math.sqrt(rave_k / (3 * visits + rave_k))
    best, best_score = 0, -1.0
    for i in range(len(n)):
        ni = n[i]
        if ni == 0:
            score = (aw[i] / an[i] if an[i] else 0.5) + 1.0 if rave else 2.0
        else:
            q = w[i] / ni
            if rave and an[i]:
                q = (1 - beta) * q + beta * aw[i] / an[i]
            score = q + explore * math.sqrt(log_n / ni)
        if score > best_score:
            best, best_score = i, score
    return best


__all__ = [
    "Rollout",
    "SplitMix",
    "State",
    "compiled",
    "game_of",
    "game_safe_counts",
    "legal",
    "name",
    "play",
    "playout",
    "rollout",
    "rollout_game",
    "safe_counts",
    "seat_of_colour",
    "seat_to_move",
    "select",
    "state_of",
    "winner",
]
