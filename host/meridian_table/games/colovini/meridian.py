"""One meridian: where a new tower may stand, and the pushes it causes.

A column is a tuple of cities from north (index 1) to south; each city is ``None`` or a
tower ``(owner, height)``. The rules (docs/games/colovini.md) keep every column ordered:
going north, heights strictly increase, and no two towers share a height.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Sequence
from typing import TypeAlias

LOGGER = logging.getLogger(__name__)

Tower: TypeAlias = tuple[Hashable, int]
Column: TypeAlias = tuple[Tower | None, ...]
FIRST_TOWER_MIN = 2


def heights(column: Sequence[Tower | None]) -> list[int]:
    """The tower heights of a column, north to south."""
    return [t[1] for t in column if t is not None]


def is_ordered(column: Sequence[Tower | None]) -> bool:
    """True when heights strictly decrease going south (so all differ)."""
    hs = heights(column)
    return all(a > b for a, b in zip(hs, hs[1:], strict=False))


def placement_cities(column: Sequence[Tower | None], height: int) -> list[tuple[int, int]]:
    """Every legal city for a new tower of ``height``, as ``(index0, push)``.

    ``push`` is 0 (the city is empty), -1 (the chain moves north) or +1 (south).
    This is the hot path of legal-move generation, so it works on the column directly.
    """
    n = len(column)
    if height < 1:
        return []
    # north[i]: height of the nearest tower strictly north of i (or a sentinel)
    north_h = [0] * n
    best = 1 << 30
    any_tower = False
    for i in range(n):
        north_h[i] = best
        tower = column[i]
        if tower is not None:
            any_tower = True
            if tower[1] == height:
                return []  # rule 2: heights are unique on a meridian
            best = tower[1]
    if not any_tower:
        # rule 1: the first tower on an empty meridian is at least 2 high
        return [(i, 0) for i in range(n)] if height >= FIRST_TOWER_MIN else []
    result: list[tuple[int, int]] = []
    south = 0  # height of the nearest tower strictly south of i
    empty_south = False  # is there an empty city strictly south of i?
    for i in range(n - 1, -1, -1):
        tower = column[i]
        if tower is None:
            if north_h[i] > height > south:
                result.append((i, 0))
        elif height < tower[1]:
            # shorter: the occupant is pushed north; there must be a gap to the north
            if height > south and any(column[j] is None for j in range(i)):
                result.append((i, -1))
        elif north_h[i] > height and empty_south:
            # taller: the occupant is pushed south; there must be a gap to the south
            result.append((i, 1))
        if tower is None:
            empty_south = True
        else:
            south = tower[1]
    result.reverse()
    return result


def apply_placement(column: Column, index0: int, push: int, tower: Tower) -> Column:
    """The column after a new ``tower`` stands at ``index0`` with the given push."""
    cells = list(column)
    if push:
        j = index0
        while cells[j] is not None:
            j += push
        # shift the chain one city in the push direction, nearest the gap first
        while j != index0:
            cells[j] = cells[j - push]
            j -= push
    cells[index0] = tower
    return tuple(cells)


def meridian_placements(column: Sequence[Tower | None], height: int) -> list[tuple[int, Column]]:
    """Every legal ``(city_index, resulting_column)`` for a new tower of ``height``.

    ``city_index`` counts from 1 at the north edge, as in city ids (``"3.1"``). The new
    tower's owner is ``"new"``; pushes are applied. Rules 1-3 are checked here; rule 4
    (towers per player per meridian) is the caller's concern.
    """
    col = tuple(column)
    if not is_ordered(col):
        raise ValueError(f"column {col!r} is not ordered: heights must decrease going south")
    return [
        (i + 1, apply_placement(col, i, push, ("new", height)))
        for i, push in placement_cities(col, height)
    ]
