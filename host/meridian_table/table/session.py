"""The table session: the thin shell around the table core (``core.py``).

The core (:class:`~meridian_table.table.core.TableCore`) is one game on one board with
no threads, no locks and no I/O: it takes events and returns effects (``steps.py``).
This shell owns everything else: the lock, the ticker thread that settles changes in
real time, the automaton's and the hint's threads, the page's subscribers, the link
(its events in, the LED plans out) and the virtual board's switches. It turns each
input into one event, steps the core under the lock, and carries out the effects in
order (an LED plan to the board, a thinker started or cancelled, a hint asked), then
tells the subscribers once the lock is released.

Thread model: the link calls :meth:`on_link_event` on its thread, the page calls
:meth:`command` on its thread, and the ticker thread (:meth:`start`) calls :meth:`tick`
when a change has settled; an automaton thinks on a thread of its own. One re-entrant
lock guards the core; subscribers are called after it is released. Tests inject
``clock`` and call :meth:`tick` by hand, or drive the core itself (tests/table/test_core.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from meridian_table.games import registry
from meridian_table.games.board import Adapter, History
from meridian_table.games.contract import PolicyFactory
from meridian_table.i18n import said
from meridian_table.ledplan import LedPlan
from meridian_table.link.events import BoardFault, LinkState, SenseEvent, Snapshot
from meridian_table.store.errors import StoreError
from meridian_table.table import commands
from meridian_table.table.automata import Seats, Thinker
from meridian_table.table.clocks import ClockRule
from meridian_table.table.core import CONNECTED, LinkInfo, TableCore
from meridian_table.table.countoffer import CountAnswers
from meridian_table.table.errors import SessionError
from meridian_table.table.hints import Hinter
from meridian_table.table.hints import available as hints_available
from meridian_table.table.journal import Journal, MemoryJournal
from meridian_table.table.pending_log import PendingJournal
from meridian_table.table.presenter import PageState
from meridian_table.table.state import ProfileLike
from meridian_table.table.steps import (
    AskHint,
    Cancel,
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
    ShowPlan,
    SnapshotSeen,
    Think,
    Tick,
    WithdrawCount,
)
from meridian_table.table.view import hello_json

LOGGER = logging.getLogger(__name__)

DEFAULT_SETTLE_S = 0.300
#: How long an automaton may think by default (its level may use less).
DEFAULT_THINK_S = 1.0

Subscriber = Callable[[PageState], None]


class BoardLike(Protocol):
    """What the session needs from a board connection (``meridian_table.link.Link``)."""

    @property
    def state(self) -> str: ...

    @property
    def occupancy(self) -> frozenset[int]: ...

    def send_plan(self, plan: LedPlan) -> object: ...

    def stats(self) -> dict[str, Any]: ...


class TableSession:
    """One game at the table: the core, its threads and its board. See the module
    docstring and docs/TABLE.md."""

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
        history: History | None = None,
    ) -> None:
        """``adaptive``: let the game change the settle window (docs/TABLE.md); False
        reads every change after the fixed ``settle_s`` (the reference of bench feel).
        ``policies``: automata the platform adds to the game's own (the club's remote
        player). ``seats``: player index -> automaton description (``random``, ``bot:4``);
        ``pending``: an automaton's move that was being carried out when the last
        process stopped (from the log), to resume in the execute phase; ``clock_rule``: the
        players' clocks (clocks.py), ``clock_state`` their logged times on resume;
        ``history``: the applied actions of a resumed game (storejournal.resume_game),
        bound to ``adapter``; a new game starts one of its own."""
        if settle_s < 0:
            raise SessionError(f"settle window {settle_s!r} s is negative; use 0 or more")
        self.board = board
        self._clock = clock
        self._toggle = toggle
        self._port = port
        self._virtual = virtual
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._closing = threading.Event()
        self._ticker: threading.Thread | None = None
        self._subscribers: list[Subscriber] = []
        self._told = 0  # counts the states taken to tell (_notify)
        self._stat_providers: list[Callable[[], Mapping[str, Any]]] = []
        spec = registry.specs().get(adapter.game)
        hints = spec is not None and hints_available(spec, adapter.settings())
        self._thinker = Thinker(self._on_automaton, clock)
        self._hinter = Hinter(spec, self._on_hint) if spec is not None and hints else None
        self._handlers = self._dispatch()
        self._effects: Mapping[type, Callable[[Any], None]] = {
            ShowPlan: self._show_plan, Think: self._think, Cancel: self._cancel,
            AskHint: self._ask_hint, OfferCount: self._offer_count,
            WithdrawCount: lambda _e: self._count_answers.withdraw(),
        }
        self._count_answers = CountAnswers(adapter.game, self._on_count_answer)
        self._offer_token = 0
        with self._lock:
            self.core = TableCore(
                adapter, profile,
                # A log that cannot be written keeps the events and says so
                # (pending_log.py).
                journal=(MemoryJournal() if journal is None
                         else PendingJournal(journal, self._on_log_change)),
                players=tuple(players) or tuple(
                    f"Player {i + 1}" for i in range(len(adapter.colours))),
                seats=Seats(spec, seats or {}, automaton_seed, policies),
                now=clock(), settle_s=settle_s, adaptive=adaptive,
                link_state=board.state if board is not None else "none",
                link_detail=str(getattr(board, "detail", "")) if board is not None else "",
                occupancy=board.occupancy if board is not None else (),
                think_s=think_s, pending=pending, clock_rule=clock_rule,
                clock_state=clock_state, hints=hints, history=history,
            )
            self._carry_out(self.core.drain())

    # --- what the core holds -----------------------------------------------------------

    @property
    def adapter(self) -> Adapter:
        return self.core.adapter

    @property
    def history(self) -> History:
        """The table's history of the game: the applied actions, oldest first."""
        return self.core.history

    @property
    def profile(self) -> ProfileLike:
        return self.core.profile

    @property
    def journal(self) -> Journal:
        return self.core.journal

    @journal.setter
    def journal(self, value: Journal) -> None:
        """Log to ``value`` from now on (bench feel tees the log)."""
        with self._lock:
            self.core.journal = value

    @property
    def players(self) -> tuple[str, ...]:
        return self.core.players

    @property
    def seats(self) -> Seats:
        return self.core.seats

    @property
    def think_s(self) -> float:
        return self.core.think_s

    @think_s.setter
    def think_s(self, value: float) -> None:
        self.core.think_s = value

    @property
    def adaptive(self) -> bool:
        return self.core.adaptive

    @adaptive.setter
    def adaptive(self, value: bool) -> None:
        self.core.adaptive = value

    @property
    def clock_rule(self) -> ClockRule | None:
        """How the players' clocks run, or None when the game has none."""
        return None if self.core.clocks is None else self.core.clocks.rule

    @property
    def settle_s(self) -> float:
        """The settle window: how long the board must be still before it is read."""
        return self.core.settler.settle_s

    @settle_s.setter
    def settle_s(self, value: float) -> None:
        if value < 0:
            raise SessionError(f"settle window {value!r} s is negative; use 0 or more")
        self.core.settler.settle_s = value

    @property
    def phase(self) -> str:
        return self.core.phase

    @property
    def plan(self) -> LedPlan:
        """The LED plan the table last built (sent when the board is connected)."""
        return self.core.plan

    @property
    def sensed(self) -> frozenset[str]:
        """The sites the board reports occupied right now (not yet settled perhaps)."""
        with self._lock:
            return self.core.settler.sites()

    @property
    def settling(self) -> bool:
        """True while a change waits to be read, or a move read early waits to be logged."""
        with self._lock:
            return self.core.settling

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
        self.core.closing = True
        if isinstance(self.journal, PendingJournal):
            self.journal.close()
        self._thinker.close()
        self._count_answers.close()
        self.core.seats.close()
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

    # --- stepping the core ---------------------------------------------------------------

    def _step(self, event: Event, now: float | None = None) -> bool:
        """Step the core (the lock held) and carry out its effects; True when the page
        must be told. A refused command is raised once the effects are carried out."""
        core = self.core
        try:
            effects = core.step(event, self._clock() if now is None else now)
        except BaseException:
            self._carry_out(core.drain())  # what the step did before it failed
            raise
        return self._carry_out(effects)

    def _carry_out(self, effects: list[Effect]) -> bool:
        notify = False
        refused: ValueError | None = None
        for effect in effects:
            if isinstance(effect, Notify):
                notify = True
            elif isinstance(effect, Refused):
                refused = effect.error
            else:
                self._effects[type(effect)](effect)
        if refused is not None:
            raise refused
        return notify

    def _show_plan(self, effect: ShowPlan) -> None:
        if self.board is not None:
            self.board.send_plan(effect.plan)

    def _think(self, effect: Think) -> None:
        self._thinker.think(effect.player, effect.policy, effect.engine, effect.budget_s)

    def _cancel(self, _effect: Cancel) -> None:
        self._thinker.cancel()

    def _ask_hint(self, effect: AskHint) -> None:
        if self._hinter is not None:
            # A hint known for this position is shown by the core without asking
            # (core ``_ask_hint``); here the hinter coalesces a search on its way.
            self._hinter.ask(effect.ply, effect.engine)

    def _offer_count(self, effect: OfferCount) -> None:
        self._count_answers.offer(effect.count, effect.automata, effect.engine)
        self._offer_token = effect.token

    def _input(self, event: Event) -> None:
        """A command from the page or a button: stepped, then the page is told."""
        with self._lock:
            notify = self._step(event)
        if notify:
            self._notify()

    # --- inputs from the board -------------------------------------------------------

    def on_link_event(self, event: object) -> None:
        """Callback for the link: a SenseEvent, Snapshot, LinkState or BoardFault."""
        notify = False
        with self._lock:
            step: Event | None = None
            if isinstance(event, SenseEvent):
                step = Sensed(event.pos, event.closed)
            elif isinstance(event, Snapshot):
                step = SnapshotSeen(frozenset(event.closed))
            elif isinstance(event, BoardFault):
                step = Faulted(event.code, tuple(event.detail))
            elif isinstance(event, LinkState):
                board = self.board
                occupancy = (frozenset(board.occupancy)
                             if board is not None and event.state == CONNECTED else frozenset())
                step = LinkChanged(event.state, event.detail, occupancy)
            else:
                LOGGER.warning("ignoring unknown link event %r", event)
            if step is not None:
                notify = self._step(step)
        if notify:
            self._notify()
        self._wake.set()

    def tick(self, now: float | None = None) -> float | None:
        """Settle a pending change when the window has passed.

        Returns the seconds until the pending change settles, or None when nothing is
        pending. Called by the ticker thread, or by tests with a fake clock.
        """
        with self._lock:
            now = self._clock() if now is None else now
            notify = self._step(Tick(), now)
            wait = self.core.wait(now)
        if notify:
            self._notify()
        return wait

    # --- inputs from buttons and the page ---------------------------------------------

    def press(self, name: str, source: str = "web") -> None:
        """Press a button by name (the physical button of that name does the same)."""
        self._input(commands.Button(name, source))

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
        except (ValueError, LookupError, TypeError, StoreError) as exc:
            # StoreError: the log refused (a damaged event, a log closed by a new game).
            with self._lock:
                self.core.error = said(exc)
            self._notify()
            return {"ok": False, "error": said(exc)}

    def _dispatch(self) -> Mapping[type, Callable[[Any], dict[str, Any]]]:
        """Each table command's handler (the archive's are the lobby's), built once."""
        return {
            commands.Button: self._on_button, commands.Toggle: self._on_toggle,
            commands.Choose: self._on_choose, commands.Agree: self._on_agree,
            commands.Resign: self._on_resign,
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

    def _on_resign(self, cmd: commands.Resign) -> dict[str, Any]:
        self.resign(cmd.player)
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
        self._input(commands.Seat(str(seat), automaton))

    def refresh(self) -> None:
        """Say everything again (the table's language changed): message, view, state."""
        self._input(Refresh())

    def rename(self, players: tuple[str, ...]) -> None:
        """Give the players new names (seat order) before the first move. Logged."""
        self._input(commands.Rename(tuple(players)))

    def choose(self, field_name: str, value: str) -> None:
        """Answer the adapter's current question (e.g. ``pie`` = ``swap``/``keep``)."""
        self._input(commands.Choose(field_name, value))

    def agree(self, player: str) -> None:
        """One player agrees to end the game by the adjudication count."""
        self._input(commands.Agree(player))

    def resign(self, player: str) -> None:
        """Seat ``player`` (a colour) resigns: the game ends now (table/ending.py)."""
        self._input(commands.Resign(player))

    def toggle(self, site: str) -> None:
        """Toggle a site's simulated switch (virtual board only)."""
        # Not under the lock: the switch event comes back on the link.
        if self._toggle is None:
            raise SessionError(
                f"cannot toggle {site!r}: the board is physical; move the piece by hand"
            )
        if site not in self.core.profile.sites:
            raise SessionError(f"site {site!r} is not on board {self.core.profile.name!r}")
        self._toggle(site)
        with self._lock:
            self.core.error = ""

    # --- answers from the automaton's and the hint's threads ----------------------------

    def _on_automaton(self, token: int, action: str | None, error: str | None) -> None:
        """The thinker's answer, on its thread: carry the move out (or show the error)."""
        with self._lock:
            if token != self._thinker.token or self._closing.is_set():
                return
            self._step(Chose(action, error))
        self._notify()
        self._wake.set()

    def _on_hint(self, ply: int, action: str | None, error: str | None) -> None:
        """The hint's answer, on its thread: lit while the position stands."""
        with self._lock:
            notify = self._step(Hinted(ply, action, error))
            hint = self.core.hint
            if self._hinter is not None and hint is not None and hint.ply == ply:
                self._hinter.hint = hint  # known: a press for this position asks nothing
        if notify:
            self._notify()

    def _on_count_answer(self, token: int, seat: str, agreed: bool,
                         expected: float | None) -> None:
        """A bot's answer to the offered count, on its thread (countoffer.py)."""
        with self._lock:
            if token != self._count_answers.token or self._closing.is_set():
                return
            notify = self._step(CountAnswered(self._offer_token, seat, agreed))
        if notify:
            self._notify()

    # --- outputs ----------------------------------------------------------------------

    def add_stats(self, provider: Callable[[], Mapping[str, Any]]) -> Callable[[], None]:
        """Show ``provider()``'s figures in the page's link panel (the club's connection
        and backlog); returns the function to call when they change."""
        with self._lock:
            self._stat_providers.append(provider)
        return self._notify

    @property
    def hint_pending(self) -> bool:
        """True while the bot looks for a hint (its answer is yet to be shown)."""
        return self._hinter is not None and self._hinter.pending

    def warm(self) -> None:
        """Someone watches the table: start the hint's bot now, not at the first Hint
        (issue 26: the first hint of a session took seconds over its budget)."""
        if self._hinter is not None:
            self._hinter.warm()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(state)`` on every change; returns the unsubscribe function.
        The first subscriber (the page, the terminal's notices) starts the hint's bot."""
        with self._lock:
            first = not self._subscribers
            self._subscribers.append(callback)
        if first:
            self.warm()

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def _on_log_change(self) -> None:
        """The log failed or came back (pending_log.py, on its retry thread): the board
        and the page say so."""
        with self._lock:
            notify = self._step(LogChanged())
        if notify:
            self._notify()

    def _notify(self) -> None:
        """Tell the subscribers the state, outside the lock. Two threads may tell at once
        and the older snapshot reach a subscriber last (a page would show a stale state
        until the next change): a thread whose snapshot was overtaken meanwhile tells the
        newest state again, so the last state told is always the newest."""
        while True:
            with self._lock:
                subscribers = list(self._subscribers)
                if not subscribers:
                    return
                self._told += 1
                told = self._told
                snapshot = self.state()
            for callback in subscribers:
                try:
                    callback(snapshot)
                except Exception:  # a broken page must never stop the table
                    LOGGER.exception("state subscriber %r failed", callback)
            with self._lock:
                if self._told == told:
                    return

    def state(self) -> PageState:
        """The JSON-able snapshot the page draws (presenter.present, PageState)."""
        with self._lock:
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
            link = LinkInfo(self._port, self._virtual, stats, self._firmware())
            return self.core.page_state(self._clock(), link)

    def _firmware(self) -> dict[str, Any] | None:
        """Who the board said it is (its HELLO), or None before the first HELLO."""
        try:
            return hello_json(getattr(self.board, "hello", None))
        except Exception:  # informative only; never fail the page for it
            LOGGER.debug("board hello unavailable", exc_info=True)
            return None


__all__ = [
    "DEFAULT_SETTLE_S",
    "DEFAULT_THINK_S",
    "BoardLike",
    "ProfileLike",
    "SessionError",
    "TableSession",
]
