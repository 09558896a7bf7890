"""Which controls mean something right now, and why the others do not.

The page shows the game's controls (``state()["controls"]``) and greys out those that
would only be refused in the current phase, with a short reason. This is a hint: the
physical buttons and the ``button`` command work exactly as before, and a press that
the hint calls disabled is still refused by the adapter with its own message.

The table's own rules come first (disconnected, out of sync, game over, nothing to
undo, no count to offer). Then the game's: an adapter answers for its buttons with an
optional ``control_state(view)`` method returning ``{name: (enabled, why)}`` (the games
this package ships all do). For a button it does not answer for, the fallback reads
only the adapter's :class:`View`: the question's buttons, and the legal actions named
like the button. The table knows no game: every game-specific rule lives in its adapter.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from meridian_table.games.board import ENDED, EXECUTE, RESYNC, THINKING, Adapter, View
from meridian_table.i18n import _

LOGGER = logging.getLogger(__name__)

#: The bot's suggested move (table/hints.py), when the game has a bot.
HINT = "hint"
#: The table's own buttons (every game has them).
TABLE_CONTROLS = ("undo", "menu")


@dataclass(frozen=True)
class TableFacts:
    """What the session knows that the adapter does not."""

    phase: str
    connected: bool
    adjudicating: bool
    game_over: bool
    undoable: bool
    count_offered: bool
    resync_message: str = ""
    undo_waits: str = ""
    #: False when the board is not read: Confirm says an automaton's move is carried out.
    reads_board: bool = True


def control_state(
    adapter: Adapter, view: View | None, facts: TableFacts, controls: Iterable[str]
) -> dict[str, dict[str, Any]]:
    """``{name: {"enabled": bool, "why": str, "used": bool}}`` for every name in ``controls``.

    ``why`` says what the control does now when enabled, or why it does nothing now
    (short enough for a tooltip). ``used`` is False for a board button the game never
    reads (the page hides those).
    """
    from_adapter: Mapping[str, tuple[bool, str]] = {}
    try:
        from_adapter = adapter.control_state(view)
    except Exception:  # a hint must never break the page
        LOGGER.exception("%s.control_state failed; using the table's rules", adapter.game)
    # The hint control is listed by the session only when the game has a bot to ask.
    used = {*adapter.controls, *TABLE_CONTROLS, *from_adapter, HINT}
    out: dict[str, dict[str, Any]] = {}
    for name in controls:
        if name not in used:
            # A button the board has but this game does not read (plus/minus, say):
            # the page hides it; a press is refused by the adapter as before.
            why = f"{adapter.game.capitalize()} does not use this button"
            out[name] = {"enabled": False, "why": why, "used": False}
            continue
        enabled, why = _one(name, adapter, view, facts, from_adapter)
        out[name] = {"enabled": enabled, "why": why, "used": True}
    return out


def _one(
    name: str,
    adapter: Adapter,
    view: View | None,
    facts: TableFacts,
    from_adapter: Mapping[str, tuple[bool, str]],
) -> tuple[bool, str]:
    if name == "menu":
        return _menu(adapter, facts)
    if not facts.connected:
        return False, _("The board is disconnected: plug it back in")
    if name == "undo":
        if facts.game_over:
            return False, _("The game is over: start a new game instead")
        if not facts.undoable:
            return False, _("Nothing to undo yet")
        if facts.undo_waits:
            return False, facts.undo_waits
        return True, _("Take back the last move")
    if facts.adjudicating and name == "confirm":
        return True, _("Agree to end the game by the count")
    if facts.phase == RESYNC:
        return False, _("Fix the board first (the lit squares show how)")
    if facts.phase == EXECUTE and name == "confirm" and not facts.reads_board:
        return True, _("Done: the automaton's move is carried out on the board")
    if facts.phase == EXECUTE:
        return False, _("Carry out the automaton's move first (the lit squares show how)")
    if facts.phase == THINKING:
        return False, _("Wait: the automaton is choosing its move")
    if name == HINT:
        if facts.game_over or facts.phase == ENDED:
            return False, _("The game is over")
        return True, _("Light the bot's suggested move")
    if name in from_adapter:
        enabled, why = from_adapter[name]
        return bool(enabled), str(why)
    return _game_button(name, adapter, view, facts)


def _menu(adapter: Adapter, facts: TableFacts) -> tuple[bool, str]:
    if facts.adjudicating:
        return True, _("Withdraw the count and play on")
    if facts.game_over:
        return False, _("The game is over: there is nothing to count")
    if not facts.count_offered:
        return False, _("{game} offers no count to end the game by").format(
            game=adapter.game.capitalize())
    return True, _("Offer to end the game by the count")


def _game_button(
    name: str, adapter: Adapter, view: View | None, facts: TableFacts
) -> tuple[bool, str]:
    """The fallback for a game button the adapter does not answer for: what the table
    can read from any game's :class:`View` without knowing the game."""
    if facts.game_over or facts.phase == ENDED:
        return False, _("The game is over")
    question = view.question if view is not None else None
    answers = dict(question.buttons) if question is not None else {}
    if name in answers:
        return True, _("Answer: {answer}").format(answer=answers[name])
    if view is not None and name in view.legal:
        # a legal action named like the button (a pass, a swap)
        return True, name.capitalize()
    return False, _("Nothing to do with this button now")


__all__ = ["TableFacts", "control_state"]
