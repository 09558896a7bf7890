"""What the table shows: one small class per phase, and the loop that picks it.

:func:`evaluate_board` compares the settled board with the game's expected position
and hands the table to its phase: **paused** (the board is unplugged), **ended** (the
game is over: pieces to take off, then the winner), **execute** (an automaton's move
being carried out on the board, one square at a time), **play** (the board matches: the
adapter's view, or the **adjudicate** count offered over it), **thinking** (an automaton
has the turn), **resync** (the board differs: guided back one square at a time), or a
move read from the board (applied, or read early). Each phase sets the table's phase,
message and lights (``state.py`` ``Shown``) and sends the LED plan.

Also here: the actions that change the game outside a sensed move and so end in a new
look at the board (undo, an automaton's move beginning and finishing).
"""

from __future__ import annotations

import logging
from typing import Any

from meridian_table.games.board import (
    ADJUDICATE,
    CHOICE,
    EXECUTE,
    PASS,
    PAUSED,
    PLAY,
    RESYNC,
    THINKING,
    Interpretation,
    Mistake,
    Observation,
    View,
)
from meridian_table.i18n import _, said
from meridian_table.ledplan import PULSE, Light
from meridian_table.store import events as ev
from meridian_table.table.automata import Execution, automaton_words
from meridian_table.table.errors import SessionError
from meridian_table.table.state import CLOSED, Table
from meridian_table.table.undoguide import undo_guidance
from meridian_table.table.view import result_event

LOGGER = logging.getLogger(__name__)

#: The phases in which the player to act may act (and an automaton may think).
ACTING = (PLAY, PASS, CHOICE)
#: How many moves one look at the board may read before the adapter is deemed inconsistent.
MAX_READS = 8


def evaluate(table: Table, from_board: bool = False) -> None:
    """Recompute phase, message and LEDs (and whose clock runs); apply a sensed action
    when there is one."""
    try:
        evaluate_board(table, from_board)
    finally:
        table.sync_clocks()


def evaluate_board(table: Table, from_board: bool = False) -> None:
    """Pick the phase for the board as it stands; apply a sensed action when there is
    one. Only a freshly settled board may be read as an action: after an undo or on
    resume, a piece still standing where the game no longer has one is guided off
    rather than played again."""
    allow_actions = from_board
    for _attempt in range(MAX_READS):  # an action changes the expectation; re-check
        observation = Observation(table.adapter.expected(), table.settled, table.prior,
                                  frozenset(table.seen_empty))
        result = table.adapter.result()
        # A game ended by a move read early is logged as ended once the move is.
        if result is not None and not table.result_logged and table.early.provisional is None:
            table.log(result_event(result, table.adapter, table.players))
            table.result_logged = True
        table.shown.mistakes = ()
        table.shown.all_at_once = False
        if not table.connected:
            Paused.show(table)
            return
        if result is not None:
            Ended.show(table, observation)
            return
        if table.execution is not None:
            again, from_board = Executing.look(table, table.execution, observation, from_board)
        elif observation.matches:
            Playing.show(table)
            return
        else:
            again, from_board = Reading.look(table, observation, allow_actions, from_board)
        if not again:
            return
    raise RuntimeError("the table kept applying sensed actions; the adapter is inconsistent")


def show_view(table: Table, finale: Observation | None = None, shown: View | None = None) -> None:
    """The adapter's view of the game (or of its end, or one it gave for the board)."""
    if shown is not None:
        view = shown
    elif finale is None:
        view = table.adapter.view(table.flash)
    else:
        view = table.adapter.finale(finale)
    table.shown.view = view
    table.shown.lights = dict(view.lights)
    if table.count.active:
        Adjudicating.show(table)
    else:
        table.phase = view.phase
        table.message = view.message
    table.send_plan()


class Paused:
    """The board is unplugged (or not yet connected, or closed by the host)."""

    @staticmethod
    def show(table: Table) -> None:
        table.phase = PAUSED
        if table.link_state == CLOSED:
            table.message = _("Table closed: the game is saved; it continues when the "
                                   "table starts again")
        elif table.ever_connected:
            table.message = _("Board disconnected: plug it back in to continue")
        else:
            table.message = _("Waiting for the board to connect ({state})").format(
                state=table.link_state)
        table.shown.view = None
        table.shown.lights = {}


class Ended:
    """After the end nothing on the board is a move: the adapter only says what to
    show for it (pieces to take off, then the winner animation)."""

    @staticmethod
    def show(table: Table, observation: Observation) -> None:
        show_view(table, finale=observation)


class Adjudicating:
    """A count is offered over the game's view: every seat confirms to end by it."""

    @staticmethod
    def show(table: Table) -> None:
        table.phase = ADJUDICATE
        table.message = _("Count offered: each player agrees to end the game by it, or "
                          "plays on")
        # The board shows what the count credits (the page's legend says which colour is
        # whose); a game with nothing to show keeps its own lights.
        marks = table.adapter.count_marks()
        if marks:
            table.shown.lights = {site: mark.light() for mark in marks for site in mark.sites}


class Playing:
    """The board matches the game: the adapter's view; an automaton to move thinks."""

    @staticmethod
    def show(table: Table, shown: View | None = None) -> None:
        show_view(table, shown=shown)
        Thinking.start(table)


class Thinking:
    """An automaton has the turn and chooses its move (in the shell's thread)."""

    @staticmethod
    def start(table: Table) -> None:
        """Start the automaton whose turn it is (called with the board matching)."""
        view = table.shown.view
        if (table.execution is not None or table.count.active or view is None
                or view.phase not in ACTING or table.closing
                or table.early.provisional is not None):
            return
        player = table.player_to_act()
        if player is None or table.seats.policy(player) is None:
            return
        thinking = table.thinking
        if thinking is None or thinking.player != player:
            if table.think_error:
                table.phase = view.phase
                table.message = _("{reason}; press Undo, or give the seat to a person").format(
                    reason=table.think_error)
                return
            table.think(player)
        table.phase = THINKING
        table.message = _("{name} ({automaton}) is thinking…").format(
            name=table.players[player], automaton=automaton_words(table.seats.kind(player)))
        table.shown.lights = {}
        table.send_plan()


class Executing:
    """An automaton's move is carried out on the board: the board is read against where
    it must end up, never as a move of its own; guided one square at a time."""

    @staticmethod
    def look(table: Table, execution: Execution, observation: Observation,
             from_board: bool) -> tuple[bool, bool]:
        """(look again, from_board): the move is applied once the board shows it."""
        if from_board:
            table.log(ev.Sense(extra={"sensed": sorted(observation.sensed),
                                      "expected": sorted(execution.after),
                                      "meaning": "execute", "action": execution.action,
                                      "mistakes": []}))
            from_board = False
        if table.settled != execution.after or not table.adapter.reads_board:
            # A board that is not read (--sensing off) never finishes the move: the
            # people press Confirm once they have carried it out (core ``_press``).
            Executing.show(table, execution)
            return False, from_board
        try:
            finish_execution(table)
        except Exception as exc:
            LOGGER.error("the automaton's move %s could not be saved: %s", execution.action, exc)
            table.error = _("the move {move} could not be saved ({reason}); lift a piece and "
                            "put it back to try again").format(move=execution.action,
                                                               reason=said(exc))
            Executing.show(table, execution)
            return False, from_board
        return True, from_board

    @staticmethod
    def show(table: Table, execution: Execution) -> None:
        name = table.players[execution.player]
        if not table.adapter.reads_board:
            # Nothing on the board is read: the move is shown (lit where it changes the
            # board) and the people press Confirm once they have carried it out.
            table.phase = EXECUTE
            table.shown.mistakes = ()
            table.shown.all_at_once = False
            table.message = _("{name} ({automaton}) plays {words}: carry it out on the "
                              "board, then press Confirm").format(
                name=name, automaton=automaton_words(execution.automaton), words=execution.words)
            table.shown.view = None
            table.shown.lights = {site: Light(0xFFFFFF, PULSE)
                                  for site in sorted(execution.before ^ execution.after)}
            table.send_plan()
            return
        mistakes = execution.guidance(table.settled)
        table.phase = EXECUTE
        table.shown.mistakes = mistakes
        table.shown.all_at_once = False
        first = mistakes[0]
        step = (_("take the {piece} off {site}") if first.kind == "remove"
                else _("put a {piece} on {site}")).format(piece=_(table.piece_word),
                                                           site=first.site)
        table.message = _("{name} ({automaton}) plays {words}: {step}").format(
            name=name, automaton=automaton_words(execution.automaton), words=execution.words,
            step=step)
        table.shown.view = None
        table.shown.lights = {first.site: first.light}
        table.send_plan()


class Resync:
    """The board differs from the game: guided back one square at a time (or all at
    once, when the adapter says so)."""

    @staticmethod
    def show(table: Table, interp: Interpretation) -> None:
        table.phase = RESYNC
        table.shown.mistakes = interp.mistakes
        table.shown.all_at_once = interp.all_at_once
        table.message = interp.message or describe(interp.mistakes[0])
        table.shown.view = None
        shown = interp.mistakes if interp.all_at_once else interp.mistakes[:1]
        table.shown.lights = {m.site: m.light for m in shown}
        table.send_plan()


class Reading:
    """The settled board differs from the game: the adapter reads it as a move (applied,
    or read early), a view of its own, or mistakes to guide."""

    @staticmethod
    def look(table: Table, observation: Observation, allow_actions: bool,
             from_board: bool) -> tuple[bool, bool]:
        """(look again, from_board) after reading the board."""
        if table.seats.policy(table.player_to_act()) is not None or table.stale:
            # An automaton has the turn (nothing a person does on the board is its
            # move), or an undone piece still stands: nothing is read as a move.
            allow_actions = False
        interp = table.adapter.interpret(observation)
        if interp.action is not None and not allow_actions:
            interp = generic_guidance(observation, "")
        undone = undo_guidance(observation, table.stale, table.piece_word)
        if undone is not None:
            interp = undone
        sense: dict[str, Any] | None = None
        if from_board:
            sense = {
                "sensed": sorted(observation.sensed),
                "expected": sorted(observation.expected),
                "meaning": interp.kind,
                "action": interp.action,
                "mistakes": [[m.site, m.kind] for m in interp.mistakes],
            }
            from_board = False
            if not (table.early.quick and interp.action is not None):
                table.log(ev.Sense(extra=sense))
                sense = None
        if interp.action is not None and sense is not None:
            # Read early (adaptive settling): applied and shown now, logged once the
            # full window passes with no contradicting change (else taken back).
            table.read_early(interp.action, sense)
            return True, from_board
        if interp.action is not None:
            return Reading.apply(table, interp.action, observation), from_board
        if not interp.mistakes:
            # The adapter accepts the board as it stands (e.g. a tournament level: dead
            # stones the mover may still lift or overlook), maybe with a view of its own
            # for it (a piece in the hand).
            Playing.show(table, interp.view)
            return False, from_board
        Resync.show(table, interp)
        return False, from_board

    @staticmethod
    def apply(table: Table, action: str, observation: Observation) -> bool:
        """Apply the sensed ``action`` (True: look again); on a refusal guide the board
        back to the last stored position rather than lose it or show it as done."""
        try:
            table.apply(action, "board")
        except Exception as exc:
            # The engine refused the adapter's action, or the log could not store it.
            LOGGER.error("sensed action %r not taken: %s", action, exc)
            if not isinstance(exc, ValueError):
                exc = SessionError(
                    _("the move {move} could not be saved ({reason}); it was not taken: lift "
                      "the {piece} and try again").format(move=action, reason=said(exc),
                                                         piece=_(table.piece_word)))
            table.error = said(exc)
            Resync.show(table, Interpretation(
                mistakes=tuple(Mistake(s, "remove", said(exc)) for s in sorted(observation.extra))
                + tuple(Mistake(s, "put_back", said(exc)) for s in sorted(observation.missing)),
                message=said(exc),
            ))
            return False
        return True


# --- the game changed outside a sensed move ---------------------------------------------


def begin_execution(table: Table, action: str) -> None:
    """The automaton chose ``action``: played at once when the board has nothing to do
    (a pass, a swap), else carried out by the people (the execute phase)."""
    player = table.player_to_act()
    if player is None:
        raise SessionError(_("the game is over"))
    automaton = table.seats.kind(player)
    for field_name, value in table.adapter.automaton_inputs(action):
        interp = table.adapter.answer(field_name, value)
        if interp.choice is not None:
            table.log(ev.Choice(interp.choice[0], interp.choice[1], "automaton",
                                table.adapter.dialogue(), extra={"automaton": automaton}))
    before, after, seat, words = table.preview(action)
    if before == after:
        table.apply(action, "automaton", automaton)
        LOGGER.info("%s (%s) played %s", seat, automaton, action)
    else:
        execution = Execution(action, player, seat, automaton, before, after, words)
        table.log(ev.Execute(action, seat, automaton))
        table.execution = execution
        LOGGER.info("%s (%s) chose %s: waiting for the board", seat, automaton, action)
    table.think_error = ""
    evaluate(table)


def finish_execution(table: Table) -> None:
    execution = table.execution
    if execution is None:
        return
    table.execution = None
    try:
        table.apply(execution.action, "automaton", execution.automaton)
    except Exception:
        table.execution = execution
        raise


def cancel_automaton(table: Table, source: str) -> bool:
    """Stop a thinking automaton and drop a move waiting to be carried out (logged, so a
    resumed game does not bring it back). True when something was cancelled."""
    cancelled = table.cancel_thinking()
    execution = table.execution
    if execution is not None:
        table.log(ev.Cancel(execution.action, source))
        table.execution = None
        cancelled = True
    return cancelled


def undo(table: Table, source: str) -> None:
    """Take back the last move. With automata, also the moves back to the last person's
    turn: an automaton's move and the person's move before it; a move an automaton is
    choosing or waiting to see carried out is cancelled first."""
    if table.result_logged:
        raise SessionError(_("the game is over; start a new game instead of undoing"))
    waits = undo_waits(table)
    if waits:
        # Undoing now would leave a piece nobody can account for next to the one the
        # undo asks to lift; the board is resolved first (issue 10).
        raise SessionError(_("Undo waits: {reason}").format(reason=waits))
    cancelled = cancel_automaton(table, source)
    before = table.adapter.expected()
    if not table.history:
        if cancelled:
            evaluate(table)
            return
        raise SessionError(_("nothing to undo: no move has been played yet"))
    _undo_one(table, source)
    while table.history and table.seats.policy(table.player_to_act()) is not None:
        _undo_one(table, source)
    last = table.history.last
    table.prior = next(iter(sorted(last.placed)), None) if last is not None else None
    table.seen_empty = set(table.all_sites - table.settled)
    # A piece still standing where the undone moves put it is no new move: it must be
    # lifted (seen empty) before anything on the board is read as one.
    table.stale = (before - table.adapter.expected()) & table.settled
    table.flash = None
    table.withdraw_count()
    evaluate(table)


def undo_waits(table: Table) -> str:
    """Why Undo waits ("" when it may act): a piece stands where no move put it (not the
    last move's captures still to lift, nor a piece an earlier undo took back). Undoing
    past it would mix it with the undone piece and mislead the guidance."""
    last = table.history.last
    if last is None:
        return ""
    explained = set(last.removed) | table.stale
    strays = sorted(table.settled - table.adapter.expected() - explained)
    if not strays:
        return ""
    return _("first lift the piece from {sites} (no move put it there); then Undo takes "
             "back {move}").format(sites=", ".join(strays), move=last.notation)


def _undo_one(table: Table, source: str) -> None:
    undone = table.history.undo()
    if undone is None:
        raise SessionError(_("nothing to undo: no move has been played yet"))
    try:
        table.log(ev.Undo(undone.notation, source, table.adapter.dialogue()))
    except Exception:
        table.history.play(undone.notation)
        raise


def describe(mistake: Mistake) -> str:
    verb = (_("Remove the piece from {site}: {reason}") if mistake.kind == "remove"
            else _("Put the piece back on {site}: {reason}"))
    return verb.format(site=mistake.site, reason=mistake.reason)


def generic_guidance(observation: Observation, message: str) -> Interpretation:
    mistakes = tuple(
        Mistake(s, "remove", _("no piece belongs here now: lift it"))
        for s in sorted(observation.extra)
    ) + tuple(
        Mistake(s, "put_back", _("a piece belongs here: put it back"))
        for s in sorted(observation.missing)
    )
    return Interpretation(mistakes=mistakes, message=message)


__all__ = ["ACTING", "Adjudicating", "Ended", "Executing", "Paused", "Playing", "Reading",
           "Resync", "Thinking", "begin_execution", "cancel_automaton", "evaluate",
           "evaluate_board", "show_view", "undo", "undo_waits"]
