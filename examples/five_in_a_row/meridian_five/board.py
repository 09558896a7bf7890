"""The Kato point boards as this game sees them: the points' names, where each sits on
the drawing, and the lines through them.

The names are the ones on the boards' profiles (``kato-80``, ``kato-114``,
``kato-154``): a column letter and a 1-based index along the column. For size ``s`` and
column ``i`` (``A`` = 0) the axial coordinates are ``q = i - s`` and
``r = k - min(i, s)``; the board is ``-s <= q <= s``, ``-(s-1) <= r <= s``,
``-(s-1) <= q + r <= s``.
"""

from __future__ import annotations

from functools import cache

SIZES = (5, 6, 7)
#: The three line directions (a line runs both ways).
DIRECTIONS = ((1, 0), (0, 1), (1, -1))


def on_board(size: int, q: int, r: int) -> bool:
    return -size <= q <= size and -(size - 1) <= r <= size and -(size - 1) <= q + r <= size


@cache
def coordinates(size: int) -> dict[str, tuple[int, int]]:
    """Point name -> axial (q, r), in column order (A1, A2, ..., B1, ...)."""
    if size not in SIZES:
        raise ValueError(f"board size {size!r} is not one of 5, 6 or 7 (80, 114 or 154 points)")
    out: dict[str, tuple[int, int]] = {}
    for i in range(2 * size + 1):
        q = i - size
        k = 1
        while True:
            r = k - min(i, size)
            if r > size or q + r > size:
                break
            if on_board(size, q, r):
                out[f"{chr(ord('A') + i)}{k}"] = (q, r)
            k += 1
    return out


@cache
def points(size: int) -> tuple[str, ...]:
    return tuple(coordinates(size))


@cache
def drawing(size: int) -> dict[str, tuple[float, float]]:
    """Point name -> its place on the page (unit spacing, x right, y down)."""
    return {name: (q + r / 2.0, r * 0.8660254037844386)
            for name, (q, r) in coordinates(size).items()}


@cache
def neighbours(size: int) -> dict[str, tuple[tuple[str | None, str | None], ...]]:
    """Point -> for each direction, (the next point forward, the next point back)."""
    at = {qr: name for name, qr in coordinates(size).items()}
    return {name: tuple((at.get((q + dq, r + dr)), at.get((q - dq, r - dr)))
                        for dq, dr in DIRECTIONS)
            for name, (q, r) in coordinates(size).items()}
