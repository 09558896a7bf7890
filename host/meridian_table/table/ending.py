"""Ends the players choose: a resignation, and an automaton's answer to an offered count.

Pure functions over an adapter's scores and a count; the table session calls them.

- :func:`resignation`: the result when a seat resigns (lichess "Resign", BGA "Concede"):
  with two sides the other wins; with more, the best of the others by score wins (a tie
  for the best leaves no winner). The result names who resigned (``resigned``), so the
  log, the exports and the club's results say so.
- :func:`count_share` and :func:`agrees`: an automaton seat answers an offer to end the
  game by the count by itself: it agrees when the count gives it at least what its own
  analysis expects from playing on (less a margin), and declines a count that takes a
  game its analysis expects to win.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from meridian_table.i18n import _, seat_word

LOGGER = logging.getLogger(__name__)

#: How much worse than its own expectation a count may be and still be agreed: an
#: analysis is an estimate, and a game ended is worth a little to everyone.
AGREE_MARGIN = 0.25


def _total(scores: Mapping[str, Any], seat: str) -> float | None:
    entry = scores.get(seat)
    total = entry.get("total") if isinstance(entry, Mapping) else None
    if isinstance(total, int | float) and not isinstance(total, bool):
        return float(total)
    return None


def best_of(seats: Sequence[str], scores: Mapping[str, Any]) -> str | None:
    """The one seat of ``seats`` with the strictly highest total; None on a tie, or when
    no total is known and there is more than one seat."""
    if len(seats) == 1:
        return seats[0]
    totals = {seat: _total(scores, seat) for seat in seats}
    known = [t for t in totals.values() if t is not None]
    if not known:
        return None
    top = max(known)
    best = [seat for seat, t in totals.items() if t == top]
    return best[0] if len(best) == 1 else None


def resignation(colours: Sequence[str], seat: str, scores: Mapping[str, Any],
                names: Mapping[str, str]) -> dict[str, Any]:
    """The result of ``seat`` resigning: ``{"winner", "reason", "scores", "resigned",
    "resigned_by"}`` (``resigned``: the seat, ``resigned_by``: the player's name)."""
    if seat not in colours:
        raise ValueError(f"seat {seat!r} is not one of {', '.join(colours)}; name the seat "
                         "that resigns")
    others = [c for c in colours if c != seat]
    winner = best_of(others, scores)
    return {
        "winner": winner,
        "reason": _("{seat} resigned").format(seat=seat_word(seat)),
        "scores": dict(scores),
        "resigned": seat,
        "resigned_by": names.get(seat, seat),
    }


def count_share(count: Mapping[str, Any], seat: str) -> float:
    """What the count gives ``seat``: 1 for a win, 0.5 for a draw, 0 for a loss."""
    winner = count.get("winner")
    if winner is None:
        return 0.5
    return 1.0 if winner == seat else 0.0


def agrees(count: Mapping[str, Any], seat: str, expected: float,
           margin: float = AGREE_MARGIN) -> bool:
    """Whether an automaton holding ``seat`` agrees to end by ``count`` when its own
    analysis expects ``expected`` (0 to 1) from playing on."""
    return count_share(count, seat) >= expected - margin


__all__ = ["AGREE_MARGIN", "agrees", "best_of", "count_share", "resignation"]
