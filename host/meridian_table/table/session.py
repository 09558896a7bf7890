"""The table session: one game on one board, from settled switches to LEDs and the log.

The session owns the expected physical position (the adapter's ``expected()``) and the
current LED plan. Switch changes from the board are settled (the sensed board must be
stable for ``settle_s``), then compared with the expected position. A match shows the
adapter's view; a difference goes to the adapter, which answers with an action (logged,
applied, shown), mistakes (guided one square at a time: "remove" fast-blinks red, "put
back" pulses white) or a choice. Buttons on the board and commands from the page are
the same inputs. Unplugging pauses; replugging reconciles through the board's snapshot.

Seats may be automata (``table/automata.py``): when one is to act it thinks in its
own thread, then its move is shown on the LEDs and in words (the ``execute`` phase)
and guided one square at a time until the board matches; only then is it applied.

The parts live apart: the settle window in ``settler.py``, the board faults in words
in ``faults.py``, the page's typed state schema in ``presenter.py``, automata in
``automata.py``; this module ties them to the adapter, the board and the log.

Thread model: the link calls :meth:`on_link_event` on its thread, the page calls
:meth:`command` on its thread, and a ticker thread (:meth:`start`) calls :meth:`tick`
when a change has settled; an automaton thinks on a thread of its own. One re-entrant
lock guards everything; subscribers are called after the lock is released. Tests
inject ``clock`` and call :meth:`tick` by hand.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from meridian_table.games import registry
from meridian_table.games.board import (
    ADJUDICATE,
    CHOICE,
    EXECUTE,
    PASS,
    PAUSED,
    PLAY,
    RESYNC,
    SEEN_ARRIVING,
    SEEN_LEAVING,
    THINKING,
    Adapter,
    Applied,
    Interpretation,
    Mistake,
    Observation,
    View,
)
from meridian_table.games.contract import PolicyFactory
from meridian_table.i18n import _, seat_word
from meridian_table.ledplan import PULSE, SOLID, LedPlan, Light
from meridian_table.link.events import BoardFault, LinkState, SenseEvent, Snapshot
from meridian_table.table import commands
from meridian_table.table.automata import Execution, Seats, Thinker
from meridian_table.table.clocks import ClockRule, Clocks
from meridian_table.table.faults import fault_text
from meridian_table.table.hints import HINT, HINT_LIGHT, Hint, Hinter
from meridian_table.table.hints import available as hints_available
from meridian_table.table.journal import Journal, MemoryJournal
from meridian_table.table.names import clean_names
from meridian_table.table.presenter import (
    Automaton,
    ClockPanel,
    PageState,
    TableView,
    present,
)
from meridian_table.table.settler import Settler

LOGGER = logging.getLogger(__name__)

DEFAULT_SETTLE_S = 0.300
#: The distinct board faults kept for the page (the oldest is dropped first).
MAX_FAULTS = 20
TABLE_BUTTONS = ("undo", "menu")
#: The link states in which the board is reachable.
CONNECTED = "connected"
#: The link state after the host itself closed the link (``Link.close``).
CLOSED = "closed"


def _action_payload(applied: Applied, source: str, automaton: str | None = None) -> dict[str, Any]:
    """The logged ``action`` event: the move, who made it and how, and the pieces it
    removed (what the page shows as ``×G6 K6``; records and replay show it too)."""
    payload: dict[str, Any] = {
        "notation": applied.notation, "player": applied.player, "source": source,
        "by": "automaton" if automaton is not None else "person",
    }
    if applied.removed:
        payload["removed"] = sorted(applied.removed)
    if automaton is not None:
        payload["automaton"] = automaton
    return payload


#: How often the ticker looks at a running clock, and how often the times are logged (a
#: ``clock`` event), so a process killed mid-turn resumes within a second of the truth.
CLOCK_TICK_S = 0.1
CLOCK_SAVE_S = 0.5


def _num(value: object) -> float:
    return float(value) if isinstance(value, int | float) else float("-inf")


class SessionError(ValueError):
    """A command the session cannot carry out (its message says why and what to do)."""


class SiteLike(Protocol):
    @property
    def pos(self) -> int: ...

    @property
    def led(self) -> int | None: ...


class ProfileLike(Protocol):
    """What the session reads from a board profile (``meridian_table.profiles``)."""

    @property
    def name(self) -> str: ...

    @property
    def leds(self) -> int: ...

    @property
    def sites(self) -> Mapping[str, Any]: ...

    @property
    def buttons(self) -> Mapping[str, int]: ...


class BoardLike(Protocol):
    """What the session needs from a board connection (``meridian_table.link.Link``)."""

    @property
    def state(self) -> str: ...

    @property
    def occupancy(self) -> frozenset[int]: ...

    def send_plan(self, plan: LedPlan) -> object: ...

    def stats(self) -> dict[str, Any]: ...


Subscriber = Callable[[PageState], None]
#: How long an automaton may think by default (its level may use less).
DEFAULT_THINK_S = 1.0
#: The phases in which the player to act may act (and an automaton may think).
ACTING = (PLAY, PASS, CHOICE)


@dataclass
class Provisional:
    """A move read early (adaptive settling): applied and shown, logged only once the
    table's full window has passed with no change that contradicts it."""

    applied: Applied
    sense: dict[str, Any]
    deadline: float
    prior: str | None
    seen_empty: set[str]


class TableSession:
    """One game at the table. See the module docstring and docs/TABLE.md."""

    def __init__(
        self,
        adapter: Adapter,
        profile: ProfileLike,
        board: BoardLike | None = None,
        *,
        journal: Journal | None = None,
        players: tuple[str, ...] = (),
        settle_s: float = DEFAULT_SETTLE_S,
        clock: Callable[[], float] = time.monotonic,
        toggle: Callable[[str], None] | None = None,
        port: str | None = None,
        virtual: bool = False,
        seats: Mapping[int, str] | None = None,
        automaton_seed: int | None = None,
        think_s: float = DEFAULT_THINK_S,
        pending: Mapping[str, Any] | None = None,
        adaptive: bool = True,
        policies: Mapping[str, PolicyFactory] | None = None,
        clock_rule: ClockRule | None = None,
        clock_state: Mapping[str, Any] | None = None,
    ) -> None:
        """``adaptive``: let the game change the settle window (docs/TABLE.md); False
        reads every change after the fixed ``settle_s`` (the reference of bench feel).
        ``policies``: automata the platform adds to the game's own (the club's remote
        player). ``seats``: player index -> automaton description (``random``, ``bot:4``);
        ``pending``: an automaton's move that was being carried out when the last
        process stopped (from the log), to resume in the execute phase; ``clock_rule``: the
        players' clocks (clocks.py), ``clock_state`` their logged times on resume."""
        if settle_s < 0:
            raise SessionError(f"settle window {settle_s!r} s is negative; use 0 or more")
        self.adapter = adapter
        self.profile = profile
        self.board = board
        self.journal: Journal = journal if journal is not None else MemoryJournal()
        self.players = tuple(players) or tuple(
            f"Player {i + 1}" for i in range(len(adapter.colours))
        )
        self._clock = clock
        self.adaptive = adaptive
        self._toggle = toggle
        self._port = port
        self._virtual = virtual
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._closing = threading.Event()
        self._ticker: threading.Thread | None = None
        self._subscribers: list[Subscriber] = []
        self._stat_providers: list[Callable[[], Mapping[str, Any]]] = []

        self._site_of: dict[int, str] = {}
        self._led_of: dict[str, int] = {}
        for name, site in profile.sites.items():
            self._site_of[int(site.pos)] = name
            if site.led is not None:
                self._led_of[name] = int(site.led)
        self._button_of: dict[int, str] = {pos: name for name, pos in profile.buttons.items()}

        self._settler = Settler(
            self._site_of, settle_s, clock, board.occupancy if board is not None else ()
        )
        self._connected = board is None or board.state == CONNECTED
        self._ever_connected = self._connected
        self._link_state = board.state if board is not None else "none"
        # Why the link is in its state (the LinkState's detail, e.g. the version-mismatch
        # advice): the page shows it, so a mismatch says which side to update.
        self._link_detail = str(getattr(board, "detail", "")) if board is not None else ""
        self._settled: frozenset[str] = self._settler.settled
        self._stale: frozenset[str] = frozenset()
        self._provisional: Provisional | None = None
        self._quick = False  # the board being read was settled early (adaptive window)
        self._unread: frozenset[str] = frozenset()  # pieces of a move read early, taken back
        self._full_window_end = 0.0  # when that board's full window ends
        self._all_sites = frozenset(profile.sites)
        self._seen_empty: set[str] = set(self._all_sites - self._settled)
        self._prior: str | None = None
        self._flash: str | None = None
        self._result_logged = adapter.result() is not None
        self._adjudicating = False
        self._agreed: set[str] = set()
        self._adjudicated: dict[str, Any] | None = None
        self._message = ""
        self._error = ""
        self._phase = PLAY
        self._view: View | None = None
        self._mistakes: tuple[Mistake, ...] = ()
        self._all_at_once = False
        self._lights: dict[str, Light] = {}
        self._plan: LedPlan = LedPlan.blank(profile.leds)
        self._plans_sent = 0
        self._faults: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}
        spec = registry.specs().get(adapter.game)
        self._spec_json = spec.to_json() if spec is not None else None
        self._piece_word = spec.page.piece_word if spec is not None else "piece"
        self.seats = Seats(spec, seats or {}, automaton_seed, policies)
        self.think_s = think_s
        self._thinker = Thinker(self._on_automaton, clock)
        self._hinter = (Hinter(spec, self._on_hint)
                        if spec is not None and hints_available(spec, adapter.settings()) else None)
        self._think_error = ""
        self._execution: Execution | None = None
        if pending is not None:
            self._execution = self._restore_execution(pending)
        history = adapter.history()
        self._prior = next(iter(history[-1].placed), None) if history else None
        self._clocks = (Clocks(clock_rule, tuple(adapter.colours))
                        if clock_rule is not None else None)
        if self._clocks is not None and clock_state is not None:
            self._clocks.restore(clock_state)
        self._clock_moves = len(history)
        self._clock_saved_at = clock()
        self._time_up: set[str] = set()  # seats whose flag fell under the "warn" rule
        self._low_leds = False  # the mover's lights breathe: their clock is low
        with self._lock:
            self._evaluate()

    # --- lifecycle -----------------------------------------------------------------

    def start(self) -> TableSession:
        """Start the ticker thread that settles changes in real time."""
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick_loop, name="table-ticker", daemon=True)
            self._ticker.start()
        return self

    def close(self) -> None:
        """Stop the ticker and any thinking automaton. The board and the journal belong
        to the caller."""
        self._closing.set()
        self._thinker.close()
        self.seats.close()
        if self._hinter is not None:
            self._hinter.close()
        self._wake.set()
        if self._ticker is not None and self._ticker is not threading.current_thread():
            self._ticker.join(timeout=2)
        self._ticker = None

    def __enter__(self) -> TableSession:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _tick_loop(self) -> None:
        while not self._closing.is_set():
            try:
                wait = self.tick()
            except Exception:
                # The settled board could not be handled (e.g. the log failed): keep the
                # ticker alive; the change is retried on the next switch event.
                LOGGER.exception("settling the board failed")
                wait = None
            self._wake.wait(timeout=0.5 if wait is None else max(wait, 0.0))
            self._wake.clear()

    # --- inputs from the board -------------------------------------------------------

    def on_link_event(self, event: object) -> None:
        """Callback for the link: a SenseEvent, Snapshot, LinkState or BoardFault."""
        notify = False
        with self._lock:
            if isinstance(event, SenseEvent):
                notify = self._on_sense(event.pos, event.closed)
            elif isinstance(event, Snapshot):
                self._settler.replace(event.closed)
            elif isinstance(event, BoardFault):
                notify = self._on_fault(event.code, tuple(event.detail))
            elif isinstance(event, LinkState):
                notify = self._on_link_state(event.state, event.detail)
            else:
                LOGGER.warning("ignoring unknown link event %r", event)
        if notify:
            self._notify()
        self._wake.set()

    def _on_sense(self, pos: int, closed: bool) -> bool:
        button = self._button_of.get(pos)
        if button is not None:
            if closed:
                try:
                    self._accepted(lambda: self._press(button, source="button"))
                except ValueError as exc:  # a refused press is shown, never raised at the link
                    LOGGER.info("button %s refused: %s", button, exc)
                return True
            return False
        if not self._settler.is_site(pos):
            LOGGER.debug("switch %d is neither a site nor a button of %s", pos, self.profile.name)
            return False
        self._settler.change(pos, closed)
        if self._provisional is not None:
            self._retract()
        if self._may_read_early():
            wait = self.adapter.settle_time(self._settler.motion(
                self.adapter.expected(), neighbours=self.adapter.neighbours()))
            if wait is not None:
                self._settler.set_window(wait)
        self._send_plan()  # the instant acknowledgement: the tentative cue under the piece
        return True

    def _may_read_early(self) -> bool:
        """Whether the game may shorten the window: a person's turn on a quiet table."""
        return (
            self.adaptive and self._connected and self._phase == PLAY and self._execution is None
            and not self._stale and not self._adjudicating
            and self.seats.policy(self._player_to_act()) is None
        )

    def _retract(self) -> None:
        """A change came within the full window of a move read early: take the move
        back (it was never logged) and read the board again once it is still."""
        provisional = self._provisional
        if provisional is None:
            return
        self._provisional = None
        self.adapter.undo()
        self._unread = frozenset(provisional.applied.placed)
        self._prior = provisional.prior
        self._seen_empty = provisional.seen_empty
        self._flash = None
        LOGGER.info("move %s read early is taken back: the board changed again",
                    provisional.applied.notation)
        self._show_view()

    def _flush(self, evaluate: bool = False) -> None:
        """Log the move read early (its window passed, or another input came)."""
        provisional = self._provisional
        if provisional is None:
            return
        self._provisional = None
        applied = provisional.applied
        try:
            self.journal.append("sense", provisional.sense)
            action = _action_payload(applied, "board")
            if self._clocks is not None:
                action["clocks"] = self._clocks.snapshot(self._clock())
            self.journal.append("action", action)
        except Exception as exc:
            # Not durable means not done: take it back so the log and the game agree.
            self.adapter.undo()
            self._prior = provisional.prior
            self._error = (f"the move {applied.notation} could not be saved ({exc}); it was "
                           "not taken: lift the piece and try again")
            LOGGER.error("%s", self._error)
            evaluate = True
        if evaluate:
            self._evaluate()

    def _on_fault(self, code: str, detail: tuple[str, ...]) -> bool:
        """A FAULT from the firmware: shown in ``state()["link"]["faults"]`` with a
        sentence for a person, and logged once as a ``note`` (the firmware repeats a
        config fault every second: a repeat only counts)."""
        key = (code, detail)
        known = self._faults.get(key)
        if known is not None:
            known["count"] += 1
            return True
        text = self._fault_text(code, detail)
        if len(self._faults) >= MAX_FAULTS:
            self._faults.pop(next(iter(self._faults)))  # the oldest makes room
        self._faults[key] = {"code": code, "detail": list(detail), "text": text, "count": 1}
        LOGGER.warning("board fault %s %s: %s", code, " ".join(detail), text)
        try:
            self._log("note", {"text": text, "fault": code, "detail": list(detail)})
        except Exception:  # a note that cannot be stored must not stop the link's thread
            LOGGER.exception("the board fault could not be logged")
        return True

    def _fault_text(self, code: str, detail: tuple[str, ...]) -> str:
        return fault_text(code, detail, self._where, self.profile.name)

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

    def _on_link_state(self, state: str, detail: str) -> bool:
        self._link_state = state
        self._link_detail = detail
        connected = state == CONNECTED
        if connected == self._connected:
            return True
        self._connected = connected
        self._ever_connected |= connected
        if state == CLOSED:
            # The host closed the link (a quit, or a setup error after the board was
            # opened): nothing was disconnected, so nothing is announced as such.
            LOGGER.info("table closed (%s)", detail or state)
        elif connected:
            LOGGER.info("board reconnected: reconciling with its snapshot")
            if self.board is not None:
                self._settler.replace(self.board.occupancy)
        else:
            LOGGER.warning("board disconnected (%s): game paused", detail or state)
        self._evaluate()
        return True

    def tick(self, now: float | None = None) -> float | None:
        """Settle a pending change when the window has passed.

        Returns the seconds until the pending change settles, or None when nothing is
        pending. Called by the ticker thread, or by tests with a fake clock.
        """
        with self._lock:
            now = self._clock() if now is None else now
            flush_left = None
            if self._provisional is not None:
                flush_left = self._provisional.deadline - now
                if flush_left <= 0 and not self._settler.pending:
                    self._flush(evaluate=True)
                    flush_left = None
                    changed = True
                else:
                    changed = False
            else:
                changed = False
            if self._clock_tick(now):
                changed = True
            left = self._settler.due(now)
            if left is not None and left <= 0:
                self._settle()
                changed = True
                left = None
                if self._provisional is not None:
                    flush_left = self._provisional.deadline - now
                    if flush_left <= 0:
                        self._flush(evaluate=True)
                        flush_left = None
        if changed:
            self._notify()
        waits = [w for w in (left, flush_left) if w is not None]
        if self._clocks is not None and self._clocks.running is not None:
            waits.append(CLOCK_TICK_S)  # a flag falls on time, the times are saved often
        return max(0.0, min(waits)) if waits else None

    # --- clocks ------------------------------------------------------------------------

    @property
    def clock_rule(self) -> ClockRule | None:
        """How the players' clocks run, or None when the game has none."""
        return self._clocks.rule if self._clocks is not None else None

    def _mover(self) -> str | None:
        """The seat whose clock should run now, or None (paused, counting, over)."""
        if not self._connected or self._adjudicating or self.adapter.result() is not None:
            return None
        mover = self.adapter.to_move
        if mover is None and self._view is not None:
            mover = self._view.to_move
        return mover

    def _sync_clocks(self) -> None:
        """Run the mover's clock; a turn that ended with a move gets its increment."""
        clocks = self._clocks
        if clocks is None:
            return
        mover = self._mover()
        moves = len(self.adapter.history())
        moved = moves > self._clock_moves
        self._clock_moves = moves
        if mover != clocks.running or moved:
            clocks.run(mover, self._clock(), moved)

    def _clock_tick(self, now: float) -> bool:
        """A flag falling (True: the state changed); else save the times now and then."""
        clocks = self._clocks
        if clocks is None or clocks.running is None:
            return False
        seat = clocks.flagged(now)
        if seat is not None and seat not in self._time_up:
            self._flag_fell(seat, now)
            return True
        if clocks.rule.leds and clocks.low(now) != self._low_leds:
            self._low_leds = not self._low_leds
            self._send_plan()
        if now - self._clock_saved_at >= CLOCK_SAVE_S:
            self._clock_saved_at = now
            try:
                self._log("clock", clocks.snapshot(now))
            except Exception:  # the next save tries again; the game goes on
                LOGGER.exception("the clocks could not be saved")
        return False

    def _flag_fell(self, seat: str, now: float) -> None:
        """``seat``'s time ran out: end the game as the clock's rule says."""
        clocks = self._clocks
        if clocks is None:
            return
        label = seat_word(seat)
        rule = clocks.rule.flag
        result: dict[str, Any] | None = None
        if rule == "score":
            count = self.adapter.adjudicate()
            if count is not None:
                result = dict(count, reason=_("{seat}'s time ran out; the count decides: "
                                              "{reason}").format(
                    seat=label, reason=count.get("reason", "")).rstrip(": "))
        elif rule == "lose":
            others = [c for c in self.adapter.colours if c != seat]
            totals = {c: self.adapter.scores().get(c, {}).get("total") for c in others}
            winner: str | None = others[0] if len(others) == 1 else None
            if winner is None:
                best = [c for c in others if totals[c] == max(totals.values(), key=_num)]
                winner = best[0] if len(best) == 1 else None
            result = {"winner": winner,
                      "reason": _("{seat}'s time ran out").format(seat=label),
                      "scores": self.adapter.scores()}
        if result is not None:
            try:
                self.adapter.conclude(result)
            except ValueError as exc:
                LOGGER.info("%s cannot end on a flag (%s): time is up only", self.adapter.game, exc)
                result = None
        if result is None:
            self._time_up.add(seat)
            try:
                self._log("note", {"text": _("{seat}'s time is up").format(seat=label),
                                   "clock": seat,
                                   "clocks": clocks.snapshot(now)})
            except Exception:
                LOGGER.exception("the flag fall could not be noted")
        LOGGER.info("%s's flag fell (%s)", seat, rule)
        self._evaluate()

    def _settle(self) -> None:
        self._quick = self._settler.window < self._settler.settle_s
        self._full_window_end = self._settler.full_window_end() or self._clock()
        self._settled = self._settler.settle()
        self._unread = frozenset()
        self._stale &= self._settled
        self._seen_empty |= self._all_sites - self._settled
        self._flash = None
        self._error = ""
        self._evaluate(from_board=True)

    # --- inputs from buttons and the page ---------------------------------------------

    def press(self, name: str, source: str = "web") -> None:
        """Press a button by name (the physical button of that name does the same)."""
        with self._lock:
            self._accepted(lambda: self._press(name, source))
        self._notify()

    def _accepted(self, run: Callable[[], None]) -> None:
        """Run one input; an accepted input clears the last refusal, a refused one
        (``ValueError``) becomes ``state()["error"]`` and is raised again.

        The error is cleared before the input runs, so an error the input itself sets
        (a sensed move the log could not store) survives it. Called with the lock held.
        """
        self._error = ""
        self._flush()  # an input accepts the move read early: it is logged first
        try:
            run()
        except ValueError as exc:
            self._error = str(exc)
            raise

    def command(self, cmd: Mapping[str, Any]) -> dict[str, Any]:
        """A command from the page (docs/TABLE.md), parsed once into its typed record
        (``commands.py``) and run by its handler. Never raises for bad input."""
        try:
            parsed = commands.parse(cmd)
            handler = self._handlers.get(type(parsed))
            if handler is None:
                # The archive's commands are the lobby's (it keeps the log across games).
                raise SessionError(f"{commands.kind_of(cmd)} needs the game log; serve the "
                                   "table through its lobby (meridian-table play) with a database")
            return handler(parsed)
        except (ValueError, LookupError, TypeError) as exc:
            with self._lock:
                self._error = str(exc)
            self._notify()
            return {"ok": False, "error": str(exc)}

    @property
    def _handlers(self) -> Mapping[type, Callable[[Any], dict[str, Any]]]:
        """Each table command's handler (the archive's are the lobby's)."""
        return {
            commands.Button: self._on_button, commands.Toggle: self._on_toggle,
            commands.Choose: self._on_choose, commands.Agree: self._on_agree,
            commands.Seat: self._on_seat, commands.Rename: self._on_rename,
            commands.State: lambda c: {"ok": True, "state": self.state()},
        }

    def _on_button(self, cmd: commands.Button) -> dict[str, Any]:
        self.press(cmd.name, source=cmd.source)
        return {"ok": True}

    def _on_toggle(self, cmd: commands.Toggle) -> dict[str, Any]:
        self.toggle(cmd.site)
        return {"ok": True}

    def _on_choose(self, cmd: commands.Choose) -> dict[str, Any]:
        self.choose(cmd.field, cmd.value)
        return {"ok": True}

    def _on_agree(self, cmd: commands.Agree) -> dict[str, Any]:
        self.agree(cmd.player)
        return {"ok": True}

    def _on_seat(self, cmd: commands.Seat) -> dict[str, Any]:
        self.set_seat(cmd.seat, cmd.automaton)
        return {"ok": True}

    def _on_rename(self, cmd: commands.Rename) -> dict[str, Any]:
        self.rename(cmd.players)
        return {"ok": True}

    def set_seat(self, seat: object, automaton: str | None) -> None:
        """Give player ``seat`` (1 = the first, or a seat's colour) to an automaton
        (``random``, ``bot:4``), or back to a person (None or ``person``). Logged."""
        with self._lock:
            self._accepted(lambda: self._set_seat(seat, automaton))
        self._notify()

    def _set_seat(self, seat: object, automaton: str | None) -> None:
        player = self._player_index(seat)
        previous = self.seats.kind(player)
        self.seats.set(player, automaton)
        try:
            self._log("settings", {"seats": self.seats.to_setting()})
        except Exception:
            self.seats.set(player, previous)
            raise
        if self._thinker.player == player and self.seats.policy(player) is None:
            self._thinker.cancel()
        self._evaluate()

    def refresh(self) -> None:
        """Say everything again (the table's language changed): message, view, state."""
        with self._lock:
            self._evaluate()
        self._notify()

    def rename(self, players: tuple[str, ...]) -> None:
        """Give the players new names (seat order) before the first move. Logged."""
        with self._lock:
            self._accepted(lambda: self._rename(players))
        self._notify()

    def _rename(self, players: tuple[str, ...]) -> None:
        if len(players) != len(self.players):
            raise SessionError(
                f"players {list(players)!r}: this game has {len(self.players)} players; give "
                "one name for each"
            )
        if self.adapter.history() or self.adapter.result() is not None:
            raise SessionError(
                "the names are kept once the first move is played; start a new game to play "
                "under other names"
            )
        names = clean_names(players)
        if names == self.players:
            return
        self._log("players", {"players": list(names), "previous": list(self.players)})
        self.players = names
        self._evaluate()

    def _player_index(self, seat: object) -> int:
        """A player number (1..N, as text or int) or a seat colour, as a player index."""
        if isinstance(seat, str) and seat in self.adapter.colours:
            return self.adapter.seats()[seat]
        text = str(seat).strip()
        if text.isascii() and text.isdigit() and 1 <= int(text) <= len(self.players):
            return int(text) - 1
        raise SessionError(
            f"seat {seat!r} is not a player number 1..{len(self.players)} or one of "
            f"{', '.join(self.adapter.colours)}"
        )

    def toggle(self, site: str) -> None:
        """Toggle a site's simulated switch (virtual board only)."""
        self._toggle_site(site)  # not under the lock: the switch event comes back on the link
        with self._lock:
            self._error = ""

    def _toggle_site(self, site: str) -> None:
        if self._toggle is None:
            raise SessionError(
                f"cannot toggle {site!r}: the board is physical; move the piece by hand"
            )
        if site not in self.profile.sites:
            raise SessionError(f"site {site!r} is not on board {self.profile.name!r}")
        self._toggle(site)

    def choose(self, field_name: str, value: str) -> None:
        """Answer the adapter's current question (e.g. ``pie`` = ``swap``/``keep``)."""
        with self._lock:
            self._accepted(lambda: self._choose(field_name, value))
        self._notify()

    def _choose(self, field_name: str, value: str) -> None:
        self._require_connected("answer")
        if self._phase == RESYNC:
            raise SessionError(f"the answer waits: first make the board match ({self._message})")
        self._require_person("the answer")
        self._handle(self.adapter.answer(field_name, value), source="web")

    def agree(self, player: str) -> None:
        """One player agrees to end the game by the adjudication count."""
        with self._lock:
            self._accepted(lambda: self._agree(player))
        self._notify()

    def _agree(self, player: str) -> None:
        if not self._adjudicating:
            raise SessionError("no count is offered; press Menu to offer the safe-points count")
        if player not in self.adapter.colours:
            raise SessionError(f"player {player!r} is not one of {', '.join(self.adapter.colours)}")
        self._agreed.add(player)
        self._check_agreement()

    def _press(self, name: str, source: str) -> None:
        if name == HINT and self._hinter is not None:
            self._ask_hint()
            return
        if name == "undo":
            self._require_connected("undo")
            self._undo(source)
            return
        if name == "menu":
            self._toggle_adjudication()
            return
        if self._adjudicating and name == "confirm":
            # A physical Confirm cannot tell who pressed it: the first press agrees for
            # one side, the second for the other.
            left = [c for c in self.adapter.colours if c not in self._agreed]
            if left:
                self._agreed.add(left[0])
            self._check_agreement()
            return
        self._require_connected(name)
        if self._phase == RESYNC:
            raise SessionError(
                f"button {name!r} waits: first make the board match ({self._message})"
            )
        self._require_person(f"button {name!r}")
        self._handle(self.adapter.button(name), source=source)

    # --- hints (table/hints.py) ------------------------------------------------------

    def _ask_hint(self) -> None:
        if self.adapter.result() is not None:
            raise SessionError("the game is over: there is no move to hint")
        if self._phase in (RESYNC, THINKING, EXECUTE):
            raise SessionError(f"a hint waits: {self._message}")
        self._require_person("a hint")
        if self._hinter is not None:
            self._hinter.ask(len(self.adapter.history()), self.adapter.engine.clone())
            self._message = "The bot is looking for a move to suggest…"

    def _on_hint(self, ply: int, action: str | None, error: str | None) -> None:
        """The hint's answer, on its thread: lit while the position stands."""
        with self._lock:
            if self._hinter is None or ply != len(self.adapter.history()):
                return
            if action is None:
                self._error = error or "no hint"
            else:
                try:
                    before, after, _, words = self._preview(action)
                except (ValueError, LookupError) as exc:
                    self._error = f"the hint {action!r} does not apply: {exc}"
                else:
                    self._hinter.hint = Hint(ply, action, words, before ^ after)
                    self._message = f"Hint: {words}"
                    self._send_plan()
        self._notify()

    def _hint_lights(self) -> dict[str, Light]:
        hint = None if self._hinter is None else self._hinter.current(
            len(self.adapter.history()))
        if hint is None or self._phase in (RESYNC, THINKING, EXECUTE):
            return {}
        return {site: HINT_LIGHT for site in hint.sites}

    def _require_connected(self, what: str) -> None:
        if not self._connected:
            raise SessionError(f"{what!r} waits: the board is disconnected; plug it back in")

    def _require_person(self, what: str) -> None:
        """Refuse a person's input while an automaton has the turn."""
        if self._execution is not None:
            raise SessionError(
                f"{what} waits: first carry out {self._execution.automaton}'s move "
                f"({self._execution.words}), or press Undo"
            )
        player = self._player_to_act()
        if self.seats.policy(player) is not None and player is not None:
            raise SessionError(
                f"{what} waits: it is {self.players[player]}'s turn, played by the "
                f"{self.seats.kind(player)} automaton"
            )

    def _toggle_adjudication(self) -> None:
        if self._adjudicating:
            self._adjudicating = False
            self._agreed.clear()
        else:
            if self.adapter.result() is not None:
                raise SessionError("the game is over; there is nothing to count")
            if self.adapter.adjudicate() is None:
                raise SessionError(f"{self.adapter.game} offers no count to end the game by")
            self._adjudicating = True
        self._evaluate()

    def _check_agreement(self) -> None:
        if set(self.adapter.colours) <= self._agreed:
            result = self.adapter.adjudicate()
            if result is None:
                raise SessionError("the count is no longer available")
            self._adjudicating = False
            self.adapter.conclude(result)
        self._evaluate()

    # --- the core ------------------------------------------------------------------

    def _handle(self, interp: Interpretation, source: str) -> None:
        if interp.action is not None:
            self._apply(interp.action, source)
        elif interp.choice is not None:
            field_name, value = interp.choice
            self._log("choice", {"field": field_name, "value": value, "source": source})
        elif interp.mistakes:
            raise SessionError(interp.message or "the board does not match")
        self._evaluate()

    def _apply(self, action: str, source: str, automaton: str | None = None) -> Applied:
        applied = self.adapter.play(action)
        payload = _action_payload(applied, source, automaton)
        if self._clocks is not None:
            self._sync_clocks()
            payload["clocks"] = self._clocks.snapshot(self._clock())
        try:
            self._log("action", payload)
        except Exception:
            # Not durable means not done: take it back so the log and the game agree.
            self.adapter.undo()
            raise
        self._seen_empty = set(self._all_sites - self._settled)
        if applied.placed:
            self._prior = sorted(applied.placed)[0]
            if source in ("board", "automaton"):
                self._flash = self._prior
        LOGGER.info("%s played %s", applied.player, applied.notation)
        return applied

    def _undo(self, source: str) -> None:
        """Take back the last move. With automata, also the moves back to the last
        person's turn: an automaton's move and the person's move before it; a move an
        automaton is choosing or waiting to see carried out is cancelled first."""
        if self._result_logged:
            raise SessionError("the game is over; start a new game instead of undoing")
        waits = self._undo_waits()
        if waits:
            # Undoing now would leave a piece nobody can account for next to the one the
            # undo asks to lift; the board is resolved first (issue 10).
            raise SessionError(f"Undo waits: {waits}")
        cancelled = self._cancel_automaton(source)
        before = self.adapter.expected()
        if not self.adapter.history():
            if cancelled:
                self._evaluate()
                return
            raise SessionError("nothing to undo: no move has been played yet")
        self._undo_one(source)
        while self.adapter.history() and self.seats.policy(self._player_to_act()) is not None:
            self._undo_one(source)
        history = self.adapter.history()
        self._prior = next(iter(sorted(history[-1].placed)), None) if history else None
        self._seen_empty = set(self._all_sites - self._settled)
        # A piece still standing where the undone moves put it is no new move: it must
        # be lifted (seen empty) before anything on the board is read as one.
        self._stale = (before - self.adapter.expected()) & self._settled
        self._flash = None
        self._adjudicating = False
        self._agreed.clear()
        self._evaluate()

    def _undo_waits(self) -> str:
        """Why Undo waits ("" when it may act): a piece stands where no move put it (not
        the last move's captures still to lift, nor a piece an earlier undo took back).
        Undoing past it would mix it with the undone piece and mislead the guidance."""
        history = self.adapter.history()
        if not history:
            return ""
        explained = set(history[-1].removed) | self._stale
        strays = sorted(self._settled - self.adapter.expected() - explained)
        if not strays:
            return ""
        return (f"first lift the piece from {', '.join(strays)} (no move put it there); "
                f"then Undo takes back {history[-1].notation}")

    def _undo_one(self, source: str) -> None:
        undone = self.adapter.undo()
        if undone is None:
            raise SessionError("nothing to undo: no move has been played yet")
        try:
            self._log("undo", {"notation": undone.notation, "source": source})
        except Exception:
            self.adapter.play(undone.notation)
            raise

    # --- automata ---------------------------------------------------------------------

    def _player_to_act(self) -> int | None:
        """The index of the player who acts now (the engine says, pie openings too)."""
        if self.adapter.result() is not None:
            return None
        return self.adapter.engine.turn().seat

    def _cancel_automaton(self, source: str) -> bool:
        """Stop a thinking automaton and drop a move waiting to be carried out (logged,
        so a resumed game does not bring it back). True when something was cancelled."""
        cancelled = self._thinker.thinking
        self._thinker.cancel()
        execution = self._execution
        if execution is not None:
            self._log("cancel", {"notation": execution.action, "source": source})
            self._execution = None
            cancelled = True
        return cancelled

    def _maybe_think(self) -> None:
        """Start the automaton whose turn it is (called with the board matching)."""
        view = self._view
        if (self._execution is not None or self._adjudicating or view is None
                or view.phase not in ACTING or self._closing.is_set()
                or self._provisional is not None):
            return
        player = self._player_to_act()
        policy = self.seats.policy(player)
        if policy is None or player is None:
            return
        if not (self._thinker.thinking and self._thinker.player == player):
            if self._think_error:
                self._phase = view.phase
                self._message = f"{self._think_error}; press Undo, or give the seat to a person"
                return
            self._thinker.think(player, policy, self.adapter.engine.clone(), self.think_s)
        self._phase = THINKING
        self._message = f"{self.players[player]} ({self.seats.kind(player)}) is thinking…"
        self._lights = {}
        self._send_plan()

    def _on_automaton(self, token: int, action: str | None, error: str | None) -> None:
        """The thinker's answer, on its thread: carry the move out (or show the error)."""
        with self._lock:
            if token != self._thinker.token or self._closing.is_set():
                return
            if error is not None or action is None:
                self._think_error = error or "the automaton chose nothing"
                self._error = self._think_error
                self._evaluate()
            else:
                try:
                    self._begin_execution(action)
                except (ValueError, LookupError) as exc:
                    self._think_error = f"the automaton's move {action!r} was refused: {exc}"
                    self._error = self._think_error
                    LOGGER.error("%s", self._think_error)
                    self._evaluate()
        self._notify()
        self._wake.set()

    def _preview(self, action: str) -> tuple[frozenset[str], frozenset[str], str, str]:
        """``(before, after, seat, words)`` of ``action``, without changing the game."""
        words = self.adapter.describe(action)
        before = self.adapter.expected()
        applied = self.adapter.play(action)
        after = self.adapter.expected()
        self.adapter.undo()
        return before, after, applied.player, words

    def _begin_execution(self, action: str) -> None:
        player = self._player_to_act()
        if player is None:
            raise SessionError("the game is over")
        automaton = self.seats.kind(player)
        for field_name, value in self.adapter.automaton_inputs(action):
            interp = self.adapter.answer(field_name, value)
            if interp.choice is not None:
                self._log("choice", {"field": interp.choice[0], "value": interp.choice[1],
                                     "source": "automaton", "automaton": automaton})
        before, after, seat, words = self._preview(action)
        if before == after:
            # Nothing to carry out on the board (a pass, a swap): played at once.
            self._apply(action, "automaton", automaton)
            LOGGER.info("%s (%s) played %s", seat, automaton, action)
        else:
            execution = Execution(action, player, seat, automaton, before, after, words)
            self._log("execute", {"notation": action, "player": seat, "automaton": automaton})
            self._execution = execution
            LOGGER.info("%s (%s) chose %s: waiting for the board", seat, automaton, action)
        self._think_error = ""
        self._evaluate()

    def _restore_execution(self, pending: Mapping[str, Any]) -> Execution | None:
        """The logged move an automaton was waiting for, rebuilt for this game state."""
        action = str(pending.get("notation", ""))
        player = self._player_to_act()
        if player is None:
            return None
        try:
            before, after, seat, words = self._preview(action)
        except (ValueError, LookupError) as exc:
            LOGGER.warning("the pending automaton move %r no longer applies: %s", action, exc)
            return None
        automaton = str(pending.get("automaton") or self.seats.kind(player))
        return Execution(action, player, seat, automaton, before, after, words)

    def _finish_execution(self) -> None:
        execution = self._execution
        if execution is None:
            return
        self._execution = None
        try:
            self._apply(execution.action, "automaton", execution.automaton)
        except Exception:
            self._execution = execution
            raise

    def _show_execute(self, execution: Execution) -> None:
        mistakes = execution.guidance(self._settled)
        self._phase = EXECUTE
        self._mistakes = mistakes
        self._all_at_once = False
        name = self.players[execution.player]
        first = mistakes[0]
        step = (f"take the {self._piece_word} off {first.site}" if first.kind == "remove"
                else f"put a {self._piece_word} on {first.site}")
        self._message = f"{name} ({execution.automaton}) plays {execution.words}: {step}"
        self._view = None
        self._lights = {first.site: first.light}
        self._send_plan()

    def _log(self, kind: str, payload: Mapping[str, Any]) -> None:
        if self._provisional is not None:
            self._flush()  # the log keeps the order of the game
        self.journal.append(kind, payload)

    def _evaluate(self, from_board: bool = False) -> None:
        """Recompute phase, message and LEDs (and whose clock runs); apply a sensed
        action when there is one."""
        try:
            self._evaluate_board(from_board)
        finally:
            self._sync_clocks()

    def _evaluate_board(self, from_board: bool = False) -> None:
        """Recompute phase, message and LEDs; apply a sensed action when there is one.

        Only a freshly settled board may be read as an action: after an undo or on
        resume, a stone still standing where the game no longer has one is guided off
        rather than played again.
        """
        allow_actions = from_board
        for _attempt in range(8):  # an action changes the expectation; re-check, never loop forever
            observation = Observation(
                self.adapter.expected(),
                self._settled,
                self._prior,
                frozenset(self._seen_empty),
            )
            result = self.adapter.result()
            # A game ended by a move read early is logged as ended once the move is.
            if result is not None and not self._result_logged and self._provisional is None:
                self._log("result", self._result_payload(result))
                self._result_logged = True
            self._mistakes = ()
            self._all_at_once = False
            if not self._connected:
                self._phase = PAUSED
                if self._link_state == CLOSED:
                    self._message = _("Table closed: the game is saved; --resume continues it")
                elif self._ever_connected:
                    self._message = _("Board disconnected: plug it back in to continue")
                else:
                    self._message = _("Waiting for the board to connect ({state})").format(
                        state=self._link_state)
                self._view = None
                self._lights = {}
                return
            if result is not None:
                # After the end nothing on the board is a move: the adapter only says
                # what to show for it (pieces to take off, then the winner animation).
                self._show_view(finale=observation)
                return
            execution = self._execution
            if execution is not None:
                # An automaton's move is being carried out: the board is read against
                # where it must end up, never as a move of its own.
                if from_board:
                    self._log("sense", {"sensed": sorted(observation.sensed),
                                        "expected": sorted(execution.after),
                                        "meaning": "execute", "action": execution.action,
                                        "mistakes": []})
                    from_board = False
                if self._settled == execution.after:
                    try:
                        self._finish_execution()
                    except Exception as exc:
                        LOGGER.error("the automaton's move %s could not be saved: %s",
                                     execution.action, exc)
                        self._error = (f"the move {execution.action} could not be saved "
                                       f"({exc}); lift a piece and put it back to try again")
                        self._show_execute(execution)
                        return
                    continue
                self._show_execute(execution)
                return
            if observation.matches:
                self._show_view()
                self._maybe_think()
                return
            if self.seats.policy(self._player_to_act()) is not None or self._stale:
                # An automaton has the turn (nothing a person does on the board is its
                # move), or an undone piece still stands: nothing is read as a move.
                allow_actions = False
            interp = self.adapter.interpret(observation)
            if interp.action is not None and not allow_actions:
                interp = _generic_guidance(observation, "")
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
                if not (self._quick and interp.action is not None):
                    self._log("sense", sense)
                    sense = None
            if interp.action is not None and sense is not None:
                # Read early (adaptive settling): applied and shown now, logged once the
                # full window passes with no contradicting change (else taken back).
                self._read_early(interp.action, sense)
                continue
            if interp.action is not None:
                try:
                    self._apply(interp.action, "board")
                except Exception as exc:
                    # The engine refused the adapter's action, or the log could not store
                    # it: the move is not taken. Guide the board back to the last stored
                    # position rather than lose the sensed change or show it as done.
                    LOGGER.error("sensed action %r not taken: %s", interp.action, exc)
                    if not isinstance(exc, ValueError):
                        exc = SessionError(
                            f"the move {interp.action} could not be saved ({exc}); it was not "
                            "taken: lift the stone and try again"
                        )
                    self._error = str(exc)
                    self._show_resync(
                        Interpretation(
                            mistakes=tuple(
                                Mistake(s, "remove", str(exc)) for s in sorted(observation.extra)
                            )
                            + tuple(
                                Mistake(s, "put_back", str(exc))
                                for s in sorted(observation.missing)
                            ),
                            message=str(exc),
                        )
                    )
                    return
                continue
            if not interp.mistakes:
                # The adapter accepts the board as it stands (e.g. a tournament
                # level: dead stones the mover may still lift or overlook), maybe with
                # a view of its own for it (a piece in the hand).
                self._show_view(shown=interp.view)
                self._maybe_think()
                return
            self._show_resync(interp)
            return
        raise RuntimeError("the table kept applying sensed actions; the adapter is inconsistent")

    def _read_early(self, action: str, sense: dict[str, Any]) -> None:
        prior, seen_empty = self._prior, set(self._seen_empty)
        applied = self.adapter.play(action)
        deadline = self._full_window_end
        self._provisional = Provisional(applied, sense, deadline, prior, seen_empty)
        self._seen_empty = set(self._all_sites - self._settled)
        if applied.placed:
            self._prior = sorted(applied.placed)[0]
            self._flash = self._prior
        self._quick = False
        LOGGER.info("%s played %s (read early)", applied.player, applied.notation)

    def _show_view(self, finale: Observation | None = None, shown: View | None = None) -> None:
        if shown is not None:
            view = shown
        else:
            view = self.adapter.view(self._flash) if finale is None else self.adapter.finale(finale)
        self._view = view
        self._phase = ADJUDICATE if self._adjudicating else view.phase
        self._message = view.message
        self._lights = dict(view.lights)
        if self._adjudicating:
            self._message = _("Count offered: both players confirm to end the game by it")
        self._send_plan()

    def _result_payload(self, result: Mapping[str, Any]) -> dict[str, Any]:
        """The adapter's result in the store's shape (docs/STORE.md): names, seats."""
        names = self._names()
        winner = result.get("winner")
        scores = result.get("scores") or {}
        return {
            **result,
            "winners": [names[winner]] if isinstance(winner, str) and winner in names else [],
            "scores": [
                {
                    "player": names.get(colour, colour),
                    "seat": colour,
                    "total": score.get("total"),
                    "breakdown": list(score.get("breakdown", [])),
                }
                for colour, score in scores.items()
            ],
            "by_seat": scores,
        }

    def _names(self) -> dict[str, str]:
        seats = self.adapter.seats()
        return {
            colour: self.players[index] if index < len(self.players) else colour
            for colour, index in seats.items()
        }

    def _show_resync(self, interp: Interpretation) -> None:
        self._phase = RESYNC
        self._mistakes = interp.mistakes
        self._all_at_once = interp.all_at_once
        self._message = interp.message or _describe(interp.mistakes[0])
        self._view = None
        shown = interp.mistakes if interp.all_at_once else interp.mistakes[:1]
        self._lights = {m.site: m.light for m in shown}
        self._send_plan()

    def _tentative(self) -> tuple[frozenset[str], frozenset[str]]:
        """Sites whose switch changed since the board was last read: (arriving, leaving)."""
        sensed = self._settler.sites()
        # A piece of a move read early and taken back is unread again: put down once
        # more, it is seen arriving; lifted, it is not a read piece leaving.
        unread = self._unread
        return (sensed - self._settled) | (sensed & unread), self._settled - sensed - unread

    def _send_plan(self) -> None:
        shown = {**self._lights, **self._hint_lights()}
        clocks = self._clocks
        if clocks is not None and clocks.rule.leds:
            self._low_leds = clocks.low(self._clock())
            if self._low_leds:
                # Low on time: the steady lights (the legal points) breathe.
                shown = {s: Light(light.colour, PULSE) if light.effect == SOLID else light
                         for s, light in shown.items()}
        arriving, leaving = self._tentative()
        for site in arriving:
            shown[site] = SEEN_ARRIVING
        for site in leaving:
            shown[site] = SEEN_LEAVING
        lights = {self._led_of[s]: light for s, light in shown.items() if s in self._led_of}
        plan = LedPlan.from_mapping(self.profile.leds, lights)
        self._plan = plan
        if self.board is not None and self._connected:
            self.board.send_plan(plan)
            self._plans_sent += 1

    def _sites(self, positions: set[int]) -> frozenset[str]:
        return frozenset(self._site_of[p] for p in positions if p in self._site_of)

    # --- outputs ----------------------------------------------------------------------

    @property
    def settle_s(self) -> float:
        """The settle window: how long the board must be still before it is read."""
        return self._settler.settle_s

    @settle_s.setter
    def settle_s(self, value: float) -> None:
        if value < 0:
            raise SessionError(f"settle window {value!r} s is negative; use 0 or more")
        self._settler.settle_s = value

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def plan(self) -> LedPlan:
        """The LED plan the session last built (sent when the board is connected)."""
        return self._plan

    @property
    def sensed(self) -> frozenset[str]:
        """The sites the board reports occupied right now (not yet settled perhaps)."""
        with self._lock:
            return self._settler.sites()

    @property
    def settling(self) -> bool:
        """True while a change waits to be read, or a move read early waits to be logged."""
        with self._lock:
            return self._settler.pending or self._provisional is not None

    def _firmware(self) -> dict[str, Any] | None:
        """Who the board said it is (its HELLO), or None before the first HELLO."""
        try:
            return _hello_json(getattr(self.board, "hello", None))
        except Exception:  # informative only; never fail the page for it
            LOGGER.debug("board hello unavailable", exc_info=True)
            return None

    def add_stats(self, provider: Callable[[], Mapping[str, Any]]) -> Callable[[], None]:
        """Show ``provider()``'s figures in the page's link panel (the club's connection
        and backlog); returns the function to call when they change."""
        with self._lock:
            self._stat_providers.append(provider)
        return self._notify

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(state)`` on every change; returns the unsubscribe function."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def _notify(self) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
            if not subscribers:
                return
            snapshot = self.state()
        for callback in subscribers:
            try:
                callback(snapshot)
            except Exception:  # a broken page must never stop the table
                LOGGER.exception("state subscriber %r failed", callback)

    def _moves_json(self, history: tuple[Applied, ...]) -> list[dict[str, Any]]:
        """The moves; one read early and not logged yet is marked ``provisional``."""
        moves = [a.to_json(i + 1) for i, a in enumerate(history)]
        names = self._names()
        for move in moves:
            words = self.adapter.move_words(str(move.get("notation", "")))
            if words:
                move["words"] = f"{names.get(str(move.get('player')), move.get('player'))}: {words}"
        if self._provisional is not None and moves:
            moves[-1]["provisional"] = True
        return moves

    def _automaton_json(self) -> Automaton | None:
        """The automaton at work, for the page: thinking, or waiting for its move."""
        execution = self._execution
        if execution is not None:
            return {"seat": execution.seat, "player": self.players[execution.player],
                    "automaton": execution.automaton, "status": "executing",
                    "elapsed_s": None, "action": execution.action, "words": execution.words}
        player = self._thinker.player
        if player is None or not self._thinker.thinking:
            return None
        colour = next((c for c, i in self.adapter.seats().items() if i == player), "")
        elapsed = self._thinker.elapsed()
        return {"seat": colour, "player": self.players[player],
                "automaton": self.seats.kind(player), "status": "thinking",
                "elapsed_s": None if elapsed is None else round(elapsed, 2),
                "budget_s": self.think_s,
                "action": None, "words": None}

    def state(self) -> PageState:
        """The JSON-able snapshot the page draws (presenter.present, PageState)."""
        with self._lock:
            adapter = self.adapter
            stats: dict[str, Any] = {}
            if self.board is not None:
                try:
                    stats = dict(self.board.stats())
                except Exception:  # stats are informative; never fail the page for them
                    LOGGER.debug("board stats unavailable", exc_info=True)
            for provider in self._stat_providers:
                try:
                    stats.update(provider())
                except Exception:
                    LOGGER.debug("extra link figures unavailable", exc_info=True)
            arriving, leaving = self._tentative()
            return present(adapter, TableView(
                spec=self._spec_json,
                game_id=self.journal.game_id,
                players=self.players,
                names=self._names(),
                seats_kind={colour: self.seats.kind(index)
                            for colour, index in adapter.seats().items()},
                automaton=self._automaton_json(),
                phase=self._phase,
                message=self._message,
                error=self._error,
                settled=self._settled,
                view=self._view,
                mistakes=self._mistakes,
                lights={**self._lights, **self._hint_lights()},
                agreed=frozenset(self._agreed),
                moves=self._moves_json(adapter.history()),
                link={
                    "state": self._link_state,
                    "detail": self._link_detail,
                    "ever_connected": self._ever_connected,
                    "port": self._port,
                    "virtual": self._virtual,
                    "stats": stats,
                    "firmware": self._firmware(),
                    "faults": [dict(f, detail=list(f["detail"])) for f in self._faults.values()],
                },
                controls=_controls(adapter, self.profile) + ((HINT,) if self._hinter else ()),
                connected=self._connected,
                adjudicating=self._adjudicating,
                settle_ms=round(self.settle_s * 1000),
                arriving=arriving,
                leaving=leaving,
                undo_waits=self._undo_waits(),
                clocks=self._clocks_json(),
            ))

    def _clocks_json(self) -> ClockPanel | None:
        clocks = self._clocks
        if clocks is None:
            return None
        now = self._clock()
        return {
            "rule": clocks.rule.to_setting(),
            "words": clocks.rule.words(),
            "low_s": clocks.rule.low_s,
            "running": clocks.running,
            "seats": {seat: {"remaining_s": round(clocks.left(seat, now), 3),
                             "time_up": seat in self._time_up
                             or (clocks.left(seat, now) <= 0 and seat != clocks.running)}
                      for seat in clocks.seats},
        }


def _hello_json(hello: object) -> dict[str, Any] | None:
    """The board's HELLO as the page shows it: firmware version, board id, protocol."""
    if hello is None:
        return None
    return {
        "version": str(getattr(hello, "fw", "")),
        "board": str(getattr(hello, "board", "")),
        "proto": getattr(hello, "proto", None),
    }


def _controls(adapter: Adapter, profile: ProfileLike) -> tuple[str, ...]:
    names = [*adapter.controls, *TABLE_BUTTONS]
    names += [b for b in profile.buttons if b not in names]
    return tuple(dict.fromkeys(names))


def _describe(mistake: Mistake) -> str:
    verb = (_("Remove the piece from {site}: {reason}") if mistake.kind == "remove"
            else _("Put the piece back on {site}: {reason}"))
    return verb.format(site=mistake.site, reason=mistake.reason)


def _generic_guidance(observation: Observation, message: str) -> Interpretation:
    mistakes = tuple(
        Mistake(s, "remove", "no piece belongs here now: lift it")
        for s in sorted(observation.extra)
    ) + tuple(
        Mistake(s, "put_back", "a piece belongs here: put it back")
        for s in sorted(observation.missing)
    )
    return Interpretation(mistakes=mistakes, message=message)


__all__ = [
    "DEFAULT_SETTLE_S",
    "BoardLike",
    "ProfileLike",
    "SessionError",
    "TableSession",
]
