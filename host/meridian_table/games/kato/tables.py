"""Precomputed bitboard tables for one board size.

Bit ``i`` of every mask is ``points(size)[i]``: points are numbered in column order
(``A1`` = bit 0). In that order the three axial directions (1, 0), (0, 1) and (1, -1)
always lead to higher indices, and their opposites to lower ones. So the first
occupied point along a ray is the lowest set bit of ``ray & occupied`` for directions
0-2 and the highest set bit for directions 3-5; nothing is ever scanned point by point.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache

from meridian_table.games.kato.geometry import DIRECTIONS, cells

LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class Tables:
    """Masks for one board size. ``ray[d][i]`` excludes ``i``; ``rayi[d][i]`` includes it."""

    size: int
    n: int
    names: tuple[str, ...]
    index: dict[str, int]
    board: int
    ray: tuple[tuple[int, ...], ...]
    rayi: tuple[tuple[int, ...], ...]
    rays_at: tuple[tuple[int, ...], ...]
    """``rays_at[i][d]`` is ``ray[d][i]``: the six rays of one point in one lookup."""
    neighbour: tuple[tuple[int, ...], ...]
    """``neighbour[d][i]``: the adjacent point in direction ``d``, or -1 off the board."""
    adjacent: tuple[int, ...]
    """``adjacent[i]``: mask of the (up to six) points next to ``i``."""
    neighbours_at: tuple[tuple[int, ...], ...]
    """``neighbours_at[i][d]`` is ``neighbour[d][i]``: the six neighbours in one lookup."""


@cache
def tables(size: int) -> Tables:
    """The tables for board size 5, 6 or 7 (built once per size)."""
    board_cells = cells(size)
    names = tuple(c.name for c in board_cells)
    at = {(c.q, c.r): i for i, c in enumerate(board_cells)}
    n = len(names)
    ray: list[tuple[int, ...]] = []
    rayi: list[tuple[int, ...]] = []
    neighbour: list[tuple[int, ...]] = []
    for dq, dr in DIRECTIONS:
        rays: list[int] = []
        near: list[int] = []
        for c in board_cells:
            mask = 0
            q, r = c.q + dq, c.r + dr
            near.append(at.get((q, r), -1))
            while (q, r) in at:
                mask |= 1 << at[(q, r)]
                q, r = q + dq, r + dr
            rays.append(mask)
        ray.append(tuple(rays))
        rayi.append(tuple(m | (1 << i) for i, m in enumerate(rays)))
        neighbour.append(tuple(near))
    adjacent = tuple(
        sum(1 << neighbour[d][i] for d in range(6) if neighbour[d][i] >= 0) for i in range(n)
    )
    return Tables(
        size=size,
        n=n,
        names=names,
        index={name: i for i, name in enumerate(names)},
        board=(1 << n) - 1,
        ray=tuple(ray),
        rayi=tuple(rayi),
        rays_at=tuple(tuple(ray[d][i] for d in range(6)) for i in range(n)),
        neighbour=tuple(neighbour),
        adjacent=adjacent,
        neighbours_at=tuple(zip(*neighbour, strict=True)),
    )


def bits(mask: int) -> list[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
