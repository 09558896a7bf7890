"""What the table says after an Undo while the undone pieces still stand on the board.

An Undo in a game against the computer takes back two moves (the computer's and the
person's before it), so two pieces stand where the game no longer has any. The game's
own reading of that board ("2 stones were placed at once") is wrong: nobody placed
them; the Undo took them back. :func:`undo_guidance` says so and guides them off one at
a time, then any piece the undone moves had taken off back on.
"""

from __future__ import annotations

import logging

from meridian_table.games.board import Interpretation, Mistake, Observation
from meridian_table.i18n import _

LOGGER = logging.getLogger(__name__)


def _and(sites: list[str]) -> str:
    return sites[0] if len(sites) == 1 else _("{some} and {last}").format(
        some=", ".join(sites[:-1]), last=sites[-1])


def undo_guidance(observation: Observation, stale: frozenset[str],
                  piece: str) -> Interpretation | None:
    """The guidance for a board where every extra piece is one an Undo took back
    (``stale``); None when some other piece stands where none belongs (the game's own
    reading then applies)."""
    extra = sorted(observation.extra)
    if not extra or not set(extra) <= stale:
        return None
    lift = _("taken back by Undo: lift it")
    back = _("a piece belongs here: put it back")
    mistakes = tuple(Mistake(site, "remove", lift) for site in extra) + tuple(
        Mistake(site, "put_back", back) for site in sorted(observation.missing))
    message = _("Undone: take the {piece} off {sites}").format(piece=_(piece),
                                                              sites=_and(extra))
    return Interpretation(mistakes=mistakes, message=message)


__all__ = ["undo_guidance"]
