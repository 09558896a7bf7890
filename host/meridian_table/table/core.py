"""The table core: one game on one board, from settled switches to LEDs and the log,
with no threads, no locks and no I/O of its own.

In the style of ``settler.py`` and ``link/sequencer.py``: :meth:`TableCore.step` takes
one event (``steps.py``: a switch sensed, the board's snapshot, a fault, the link's
state, a tick, a command, an automaton's or a hint's answer) and the time ``now``, and
returns the effects the shell (``session.py``) carries out: an LED plan to show, the
page to tell, an automaton to start or cancel, a hint to ask, a refusal to report.
Moves are logged through the journal before they count (not durable means not done).
Every case can be driven from a test with a fake clock and no thread.

The core owns the expected physical position (the adapter's ``expected()``) and the
LED plan. A settled board is compared with the expected position; what the table shows
then is one of its phases (``phases.py``): play, resync, execute, thinking, adjudicate,
paused, ended. The parts live apart: the settle window in ``settler.py``, early reading
in ``early.py``, the clocks in ``clocks.py``, the count in ``adjudication.py``, hints in
``hints.py``, automata in ``automata.py``, the page's state in ``presenter.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from meridian_table.games.board import EXECUTE, PLAY, RESYNC, THINKING, Interpretation
from meridian_table.i18n import _, said, seat_word
from meridian_table.store import events as ev
from meridian_table.table import commands, phases
from meridian_table.table.clocks import TableClocks
from meridian_table.table.countoffer import bot_level
from meridian_table.table.ending import resignation
from meridian_table.table.errors import SessionError
from meridian_table.table.hints import HINT, Hint, hint_sites
from meridian_table.table.names import clean_names
from meridian_table.table.pending_log import log_words
from meridian_table.table.presenter import PageState, TableView, present
from meridian_table.table.state import CLOSED, CONNECTED, Table, action_payload
from meridian_table.table.steps import (
    AskHint,
    Chose,
    CountAnswered,
    Effect,
    Event,
    Faulted,
    Hinted,
    LinkChanged,
    LogChanged,
    Notify,
    OfferCount,
    Refresh,
    Refused,
    Sensed,
    SnapshotSeen,
    Tick,
)
from meridian_table.table.view import automaton_json, controls, moves_json, names_of

LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class LinkInfo:
    """What the shell knows of the link for the page: its port, board figures, HELLO."""

    port: str | None = None
    virtual: bool = False
    stats: Mapping[str, Any] | None = None
    firmware: dict[str, Any] | None = None


class TableCore(Table):
    """One game at the table, stepped by events (the model is ``state.Table``). See
    the module docstring."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._handlers = self._dispatch()
        self.evaluate()  # its effects (the first plan, an automaton to think) wait in drain()

    # --- stepping ------------------------------------------------------------------

    def step(self, event: Event, now: float) -> list[Effect]:
        """Take one event at ``now``; returns the effects, in order (see steps.py)."""
        self._now = now
        handler = self._handlers[type(event)]
        try:
            handler(event)
        except ValueError as exc:
            if not isinstance(event, Sensed | Tick | LinkChanged | SnapshotSeen | Faulted | LogChanged):
                self._out.append(Refused(exc))
            else:
                raise
        return self.drain()

    def drain(self) -> list[Effect]:
        """The effects produced so far (after a step that raised, what it did first)."""
        out, self._out = self._out, []
        return out

    def _dispatch(self) -> Mapping[type, Callable[[Any], None]]:
        """Each event's handler (built once)."""
        return {
            Sensed: self._on_sensed, SnapshotSeen: self._on_snapshot,
            Faulted: self._on_fault, LinkChanged: self._on_link, Tick: self._on_tick,
            Refresh: self._on_refresh, Chose: self._on_chose, Hinted: self._on_hinted,
            LogChanged: self._on_log_changed, CountAnswered: self._on_count_answered,
            commands.Button: self._input(lambda c: self._press(c.name, c.source)),
            commands.Choose: self._input(lambda c: self._choose(c.field, c.value)),
            commands.Agree: self._input(lambda c: self._agree(c.player)),
            commands.Resign: self._input(lambda c: self._resign(c.player)),
            commands.Seat: self._input(lambda c: self._set_seat(c.seat, c.automaton)),
            commands.Rename: self._input(lambda c: self._rename(c.players)),
        }

    def _input(self, run: Callable[[Any], None]) -> Callable[[Any], None]:
        """A command: an accepted one clears the last refusal and tells the page; a
        refused one (``ValueError``) becomes the page's error and is raised again.

        The error is cleared before the input runs, so an error the input itself sets
        (a sensed move the log could not store) survives it.
        """
        def accepted(cmd: Any) -> None:
            self.error = ""
            self._flush()  # an input accepts the move read early: it is logged first
            try:
                run(cmd)
            except ValueError as exc:
                self.error = said(exc)
                raise
            self._out.append(Notify())
        return accepted

    # --- inputs from the board -----------------------------------------------------

    def _on_sensed(self, event: Sensed) -> None:
        button = self._button_of.get(event.pos)
        if button is not None:
            if event.closed:
                try:
                    self._input(lambda _c: self._press(button, "button"))(None)
                except ValueError as exc:  # a refused press is shown, never raised at the link
                    LOGGER.info("button %s refused: %s", button, exc)
                    self._out.append(Notify())
            return
        if not self.settler.is_site(event.pos):
            LOGGER.debug("switch %d is neither a site nor a button of %s", event.pos,
                         self.profile.name)
            return
        self.settler.change(event.pos, event.closed)
        if self.early.provisional is not None:
            self._retract()
        if self._may_read_early():
            wait = self.adapter.settle_time(self.settler.motion(
                self.adapter.expected(), neighbours=self.adapter.neighbours()))
            if wait is not None:
                self.settler.set_window(wait)
        self.send_plan()  # the instant acknowledgement: the tentative cue under the piece
        self._out.append(Notify())

    def _on_snapshot(self, event: SnapshotSeen) -> None:
        self.settler.replace(event.closed)

    def _may_read_early(self) -> bool:
        """Whether the game may shorten the window: a person's turn on a quiet table."""
        return (
            self.adaptive and self.connected and self.phase == PLAY and self.execution is None
            and not self.stale and not self.count.active
            and self.seats.policy(self.player_to_act()) is None
        )

    def _retract(self) -> None:
        """A change came within the full window of a move read early: take the move
        back (it was never logged) and read the board again once it is still."""
        provisional = self.early.retract(self.history.undo)
        if provisional is None:
            return
        self.prior = provisional.prior
        self.seen_empty = provisional.seen_empty
        self.flash = None
        LOGGER.info("move %s read early is taken back: the board changed again",
                    provisional.applied.notation)
        phases.show_view(self)

    def _flush(self, evaluate: bool = False) -> None:
        """Log the move read early (its window passed, or another input came); look
        at the board again when asked, or when it could not be stored."""
        if not self.flush() or evaluate:
            self.evaluate()

    def _on_fault(self, event: Faulted) -> None:
        """A FAULT from the firmware: shown on the page with a sentence for a person,
        and logged once as a ``note`` (a repeat only counts)."""
        text = self.faults.add(event.code, event.detail, self._where, self.profile.name)
        if text is not None:
            LOGGER.warning("board fault %s %s: %s", event.code, " ".join(event.detail), text)
            try:
                self.log(ev.Note(text, extra={"fault": event.code,
                                              "detail": list(event.detail)}))
            except Exception:  # a note that cannot be stored must not stop the link's thread
                LOGGER.exception("the board fault could not be logged")
        self._out.append(Notify())

    def _where(self, pos: int) -> str:
        """A matrix position in the maker's words: its site or button, row and column."""
        name = self._site_of.get(pos)
        what = f"site {name}" if name is not None else None
        if what is None and pos in self._button_of:
            what = f"button {self._button_of[pos]}"
        cols = getattr(self.profile, "cols", None)
        grid = f"row {pos // cols}, column {pos % cols}" if isinstance(cols, int) and cols else ""
        if what is None:
            what = f"no site of profile {self.profile.name}"
        return f"{what}, {grid}" if grid else what

    def _on_link(self, event: LinkChanged) -> None:
        self.link_state = event.state
        self.link_detail = event.detail
        self._out.append(Notify())
        connected = event.state == CONNECTED
        if connected == self.connected:
            return
        self.connected = connected
        self.ever_connected |= connected
        if event.state == CLOSED:
            # The host closed the link (a quit, or a setup error after the board was
            # opened): nothing was disconnected, so nothing is announced as such.
            LOGGER.info("table closed (%s)", event.detail or event.state)
        elif connected:
            LOGGER.info("board reconnected: reconciling with its snapshot")
            self.settler.replace(event.occupancy)
        else:
            LOGGER.warning("board disconnected (%s): game paused", event.detail or event.state)
        self.evaluate()

    def _on_tick(self, _event: Tick) -> None:
        """Settle a pending change when its window has passed; log a move read early
        when its own window has; run the clocks."""
        now = self._now
        changed = False
        flush_left = self.early.left(now)
        if flush_left is not None and flush_left <= 0 and not self.settler.pending:
            self._flush(evaluate=True)
            changed = True
        if self._clock_tick(now):
            changed = True
        left = self.settler.due(now)
        if left is not None and left <= 0:
            self._settle()
            changed = True
            flush_left = self.early.left(now)
            if flush_left is not None and flush_left <= 0:
                self._flush(evaluate=True)
        if changed:
            self._out.append(Notify())

    def _settle(self) -> None:
        self.early.settled(self.settler.window < self.settler.settle_s,
                           self.settler.full_window_end() or self._now)
        self.settled = self.settler.settle()
        self.stale &= self.settled
        self.seen_empty |= self.all_sites - self.settled
        self.flash = None
        self.error = ""
        self.evaluate(from_board=True)

    def _on_log_changed(self, _event: LogChanged) -> None:
        """The log failed or came back (pending_log.py): the board and the page say so."""
        self.send_plan()
        self._out.append(Notify())

    def _on_refresh(self, _event: Refresh) -> None:
        self.evaluate()
        self._out.append(Notify())

    # --- clocks ----------------------------------------------------------------------

    def _clock_tick(self, now: float) -> bool:
        """A flag falling (True: the state changed); else save the times now and then."""
        clocks = self.clocks
        if clocks is None or clocks.running is None:
            return False
        seat = clocks.fallen(now)
        if seat is not None:
            self._flag_fell(clocks, seat, now)
            return True
        if clocks.leds_turned(now):
            self.send_plan()
        snapshot = clocks.save_due(now)
        if snapshot is not None:
            try:
                self.log(ev.Clock(dict(snapshot["remaining"]), snapshot["running"]))
            except Exception:  # the next save tries again; the game goes on
                LOGGER.exception("the clocks could not be saved")
        return False

    def _flag_fell(self, clocks: TableClocks, seat: str, now: float) -> None:
        """``seat``'s time ran out: end the game as the clock's rule says."""
        result = clocks.flag_result(seat, self.adapter)
        if result is not None:
            try:
                self.adapter.conclude(result)
            except ValueError as exc:
                LOGGER.info("%s cannot end on a flag (%s): time is up only", self.adapter.game, exc)
                result = None
        if result is None:
            try:
                self.log(clocks.time_up_note(seat, now))
            except Exception:
                LOGGER.exception("the flag fall could not be noted")
        LOGGER.info("%s's flag fell (%s)", seat, clocks.rule.flag)
        self.evaluate()

    # --- commands ----------------------------------------------------------------------

    def _press(self, name: str, source: str) -> None:
        if name == HINT and self.hints:
            self._ask_hint()
            return
        if name == "undo":
            self.require_connected(_("Undo"))
            phases.undo(self, source)
            return
        if name == "menu":
            if self.count.active:
                self.withdraw_count()
            else:
                self._offer_count()
            self.evaluate()
            return
        if self.count.active and name == "confirm":
            # People first: the automata answer the count alone (countoffer.py).
            self.count.confirm(self.adapter, lambda c: self.seats.policy(
                self.adapter.seats().get(c)) is not None)
            self.evaluate()
            return
        self.require_connected(_("button {name}").format(name=repr(name)))
        if name == "confirm" and self.execution is not None and not self.adapter.reads_board:
            # A board that is not read: the people say they carried the move out.
            phases.finish_execution(self)
            self.evaluate()
            return
        if self.phase == RESYNC:
            raise SessionError(_("button {name} waits: first make the board match ({message})")
                               .format(name=repr(name), message=self.message))
        self.require_person(_("button {name}").format(name=repr(name)))
        self.handle(self.adapter.button(name), source=source)

    def _choose(self, field_name: str, value: str) -> None:
        self.require_connected(_("the answer"))
        if self.phase == RESYNC:
            raise SessionError(_("the answer waits: first make the board match ({message})")
                               .format(message=self.message))
        self.require_person(_("the answer"))
        self.handle(self.adapter.answer(field_name, value), source="web")

    def _offer_count(self) -> None:
        """Offer the count; every automaton seat answers it alone: ``random`` agrees at
        once, a bot weighs it in the shell (an :class:`OfferCount`), any other is left to
        the person behind it."""
        count = self.count.offer(self.adapter)
        automata = {colour: (index, self.seats.kind(index))
                    for colour, index in self.adapter.seats().items()
                    if self.seats.policy(index) is not None}
        bots = {seat: who for seat, who in automata.items() if bot_level(who[1]) is not None}
        self.count.agreed.update(seat for seat, (_i, kind) in automata.items()
                                 if kind.partition(":")[0] == "random")
        if bots:
            self.emit(OfferCount(self.count.token, count, bots, self.adapter.engine.clone()))

    def _on_count_answered(self, event: CountAnswered) -> None:
        """A bot's answer to the offered count (dropped when the offer is gone)."""
        if not self.count.active or event.token != self.count.token:
            return
        if event.agreed:
            self.count.agreed.add(event.seat)
            try:
                self.count.settle(self.adapter)
            except ValueError as exc:
                self.error = said(exc)
        else:
            self.withdraw_count()
            self.error = _("{name} declines the count: the computer expects more from "
                           "playing on").format(name=names_of(self.adapter, self.players).get(event.seat, event.seat))
        self.evaluate()
        self._out.append(Notify())

    def _resign(self, player: str) -> None:
        """Seat ``player`` (a colour) resigns: the game ends now (table/ending.py)."""
        if self.adapter.result() is not None:
            raise SessionError(_("the game is over; there is nothing to resign"))
        if player not in self.adapter.colours:
            raise SessionError(_("seat {seat!r} is not one of {seats}; name the seat that "
                                 "resigns").format(seat=player,
                                                   seats=", ".join(self.adapter.colours)))
        index = self.adapter.seats().get(player)
        if index is not None and self.seats.policy(index) is not None:
            raise SessionError(_("{seat} is played by the computer, which does not resign; "
                                 "resign for a person's seat").format(seat=seat_word(player)))
        phases.cancel_automaton(self, "web")
        self.withdraw_count()
        result = resignation(self.adapter.colours, player, self.adapter.scores(),
                             names_of(self.adapter, self.players))
        self.adapter.conclude(result)
        LOGGER.info("%s resigned", player)
        self.evaluate()

    def _agree(self, player: str) -> None:
        self.count.agree(self.adapter, player)
        self.evaluate()

    def _set_seat(self, seat: object, automaton: str | None) -> None:
        player = self._player_index(seat)
        previous = self.seats.kind(player)
        self.seats.set(player, automaton)
        try:
            self.log(ev.Settings(extra={"seats": self.seats.to_setting()}))
        except Exception:
            self.seats.set(player, previous)
            raise
        thinking = self.thinking
        if thinking is not None and thinking.player == player and self.seats.policy(player) is None:
            self.cancel_thinking()
        self.evaluate()

    def _rename(self, players: tuple[str, ...]) -> None:
        if len(players) != len(self.players):
            raise SessionError(
                _("players {names}: this game has {count} players; give one name for each")
                .format(names=repr(list(players)), count=len(self.players)))
        if self.history or self.adapter.result() is not None:
            raise SessionError(
                _("the names are kept once the first move is played; start a new game to "
                  "play under other names"))
        names = clean_names(players)
        if names == self.players:
            return
        self.log(ev.Players(tuple(names), tuple(self.players)))
        self.players = names
        self.evaluate()

    def _player_index(self, seat: object) -> int:
        """A player number (1..N, as text or int) or a seat colour, as a player index."""
        if isinstance(seat, str) and seat in self.adapter.colours:
            return self.adapter.seats()[seat]
        text = str(seat).strip()
        if text.isascii() and text.isdigit() and 1 <= int(text) <= len(self.players):
            return int(text) - 1
        raise SessionError(
            _("seat {seat} is not a player number 1..{count} or one of {seats}").format(
                seat=repr(seat), count=len(self.players), seats=", ".join(self.adapter.colours)))

    # --- hints (table/hints.py) --------------------------------------------------------

    def _ask_hint(self) -> None:
        if self.adapter.result() is not None:
            raise SessionError(_("the game is over: there is no move to hint"))
        if self.phase in (RESYNC, THINKING, EXECUTE):
            raise SessionError(_("a hint waits: {message}").format(message=self.message))
        self.require_person(_("a hint"))
        ply = len(self.history)
        known = self.hint
        if known is not None and known.ply == ply:
            # Known for this position: shown again, nothing asked of the bot.
            self.message = _("Hint: {words}").format(words=known.words)
            return
        # The hinter copies the engine only when a search is really needed (hints.py).
        self._out.append(AskHint(ply, self.adapter.engine.clone))
        self.message = _("The bot is looking for a move to suggest…")

    def _on_hinted(self, event: Hinted) -> None:
        """The hint's answer: lit while the position stands."""
        if not self.hints or event.ply != len(self.history):
            return
        if event.action is None:
            self.error = event.error or _("no hint")
        else:
            try:
                before, after, _seat, words = self.preview(event.action)
            except (ValueError, LookupError) as exc:
                self.error = _("the hint {action} does not apply: {reason}").format(
                    action=repr(event.action), reason=said(exc))
            else:
                self.hint = Hint(event.ply, event.action, words, hint_sites(before, after))
                self.message = _("Hint: {words}").format(words=words)
                self.send_plan()
        self._out.append(Notify())

    def _on_chose(self, event: Chose) -> None:
        """The thinking automaton's answer: carry the move out (or show the error)."""
        if self.closing:
            return
        self.thinking = None
        if event.error is not None or event.action is None:
            self.think_error = event.error or _("the automaton chose nothing")
            self.error = self.think_error
            self.evaluate()
        else:
            try:
                phases.begin_execution(self, event.action)
            except (ValueError, LookupError) as exc:
                self.think_error = _("the automaton's move {action} was refused: {reason}").format(
                    action=repr(event.action), reason=said(exc))
                self.error = self.think_error
                LOGGER.error("%s", self.think_error)
                self.evaluate()
        self._out.append(Notify())

    # --- the game and what the table shows ------------------------------------------

    def handle(self, interp: Interpretation, source: str) -> None:
        if interp.action is not None:
            self.apply(interp.action, source)
        elif interp.choice is not None:
            field_name, value = interp.choice
            self.log(ev.Choice(field_name, value, source, self.adapter.dialogue()))
        elif interp.mistakes:
            raise SessionError(interp.message or _("the board does not match"))
        self.evaluate()

    def evaluate(self, from_board: bool = False) -> None:
        """Recompute phase, message and LEDs (and whose clock runs)."""
        phases.evaluate(self, from_board)

    def page_state(self, now: float, link: LinkInfo) -> PageState:
        """The JSON-able snapshot the page draws (presenter.present, PageState)."""
        adapter = self.adapter
        arriving, leaving = self.tentative()
        names = names_of(adapter, self.players)
        return present(adapter, TableView(
            spec=self.spec_json,
            game_id=self.journal.game_id,
            players=self.players,
            names=names,
            seats_kind={colour: self.seats.kind(index)
                        for colour, index in adapter.seats().items()},
            automaton=automaton_json(self, now),
            phase=self.phase,
            message=self.message,
            error=log_words(self.journal) or self.error,
            settled=self.settled,
            view=self.shown.view,
            mistakes=self.shown.mistakes,
            lights={**self.log_lights(), **self.shown.lights, **self.hint_lights()},
            agreed=frozenset(self.count.agreed),
            moves=moves_json(adapter, self.history, names, self.early.provisional is not None),
            history=self.history,
            link={
                "state": self.link_state,
                "detail": self.link_detail,
                "ever_connected": self.ever_connected,
                "port": link.port,
                "virtual": link.virtual,
                "stats": dict(link.stats or {}),
                "firmware": link.firmware,
                "faults": self.faults.to_json(),
            },
            controls=controls(adapter, self.profile) + ((HINT,) if self.hints else ()),
            connected=self.connected,
            adjudicating=self.count.active,
            settle_ms=round(self.settler.settle_s * 1000),
            arriving=arriving,
            leaving=leaving,
            undo_waits=phases.undo_waits(self),
            clocks=None if self.clocks is None else self.clocks.panel(now),
        ))


__all__ = ["CLOSED", "CONNECTED", "LinkInfo", "TableCore", "action_payload"]
