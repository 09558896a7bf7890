"""The board of Kato's Meridians: a hexagon of triangular-grid points with two short sides.

Cells are named as the online implementations name them: a column letter, then a
1-based index along that column. For size ``s`` (5, 6 or 7) and column ``i``
(``A`` = 0), the axial coordinates are ``q = i - s`` and ``r = k - min(i, s)``. The
points satisfy ``-s <= q <= s``, ``-(s-1) <= r <= s`` and ``-(s-1) <= q + r <= s``:
80, 114 and 154 points. Lines run along the axial directions (1, 0), (0, 1) and (1, -1).
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

SIZES = (5, 6, 7)
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (1, -1), (-1, 0), (0, -1), (-1, 1))


class Cell(NamedTuple):
    name: str
    q: int
    r: int


def _check_size(size: int) -> None:
    if size not in SIZES:
        raise ValueError(f"board size {size!r} is not one of {SIZES} (80, 114 or 154 points)")


def on_board(size: int, q: int, r: int) -> bool:
    """True when axial (q, r) is a point of the board of this size."""
    return -size <= q <= size and -(size - 1) <= r <= size and -(size - 1) <= q + r <= size


@cache
def cells(size: int = 6) -> tuple[Cell, ...]:
    """Every point in column order: A1, A2, ..., then B1, ... (114 for size 6)."""
    _check_size(size)
    out: list[Cell] = []
    for i in range(2 * size + 1):
        q = i - size
        letter = chr(ord("A") + i)
        k = 1
        while True:
            r = k - min(i, size)
            if r > size or q + r > size:
                break
            if on_board(size, q, r):
                out.append(Cell(f"{letter}{k}", q, r))
            k += 1
    return tuple(out)


@cache
def points(size: int = 6) -> tuple[str, ...]:
    """The cell names in column order."""
    return tuple(c.name for c in cells(size))


@cache
def coordinates(size: int = 6) -> dict[str, tuple[int, int]]:
    """Cell name -> axial (q, r)."""
    return {c.name: (c.q, c.r) for c in cells(size)}


def layout_xy(q: int, r: int) -> tuple[float, float]:
    """Where a point sits on a drawing with unit spacing (x right, y down)."""
    return (q + r / 2.0, r * 0.8660254037844386)


@cache
def lines(size: int = 6) -> tuple[tuple[str, ...], ...]:
    """Every maximal straight line of the board, as cell names in axial order.

    Lines along (0, 1) come first (the columns A..), then (1, 0), then (1, -1).
    """
    coords = coordinates(size)
    at = {qr: name for name, qr in coords.items()}
    out: list[tuple[str, ...]] = []
    for dq, dr in ((0, 1), (1, 0), (1, -1)):
        for q, r in coords.values():
            if (q - dq, r - dr) in at:
                continue  # not the start of its line
            line = []
            while (q, r) in at:
                line.append(at[(q, r)])
                q, r = q + dq, r + dr
            out.append(tuple(line))
    return tuple(out)
