"""The table's model: everything the core knows about one game at the table, and the
primitives every phase uses (log a move, apply it, light the board, start an automaton).

``core.py`` steps it by events; ``phases.py`` decides what the table shows. Neither
threads nor I/O: the journal is the one port (a move is logged before it counts), and
what must happen outside (an LED plan, the page, an automaton) is queued as an effect
(``steps.py``) for the shell.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from meridian_table.games import registry
from meridian_table.games.board import (
    EXECUTE,
    PLAY,
    RESYNC,
    SEEN_ARRIVING,
    SEEN_LEAVING,
    THINKING,
    Adapter,
    Applied,
    History,
    Mistake,
    View,
)
from meridian_table.i18n import _
from meridian_table.ledplan import PULSE, SOLID, LedPlan, Light
from meridian_table.store import events as ev
from meridian_table.table.adjudication import Adjudication
from meridian_table.table.automata import Execution, Seats, automaton_words
from meridian_table.table.clocks import CLOCK_TICK_S, ClockRule, TableClocks
from meridian_table.table.early import EarlyReading
from meridian_table.table.errors import SessionError
from meridian_table.table.faults import Faults
from meridian_table.table.hints import HINT_LIGHT, Hint
from meridian_table.table.journal import Journal
from meridian_table.table.pending_log import LOG_FAULT_LIGHT, log_problem
from meridian_table.table.settler import Settler
from meridian_table.table.steps import Cancel, Effect, ShowPlan, Think, WithdrawCount

LOGGER = logging.getLogger(__name__)

#: The link states in which the board is reachable, and after the host closed it.
CONNECTED = "connected"
CLOSED = "closed"


class ProfileLike(Protocol):
    """What the table reads from a board profile (``meridian_table.profiles``)."""

    @property
    def name(self) -> str: ...

    @property
    def leds(self) -> int: ...

    @property
    def sites(self) -> Mapping[str, Any]: ...

    @property
    def buttons(self) -> Mapping[str, int]: ...


def action_event(applied: Applied, source: str, automaton: str | None = None,
                 clocks: dict[str, object] | None = None,
                 dialogue: dict[str, object] | None = None) -> ev.Action:
    """The logged ``action`` event: the move, who made it and how, the pieces it
    removed (what the page shows as ``×G6 K6``; records and replay show it too), the
    clocks after it, the rest of the table's history entry (``placed``, ``words``) and
    the adapter's dialogue record after it (a resumed game reopens from them)."""
    return ev.Action(applied.notation, applied.player, source,
                     "automaton" if automaton is not None else "person",
                     tuple(sorted(applied.removed)), automaton, clocks,
                     tuple(sorted(applied.placed)), applied.words or None, dialogue,
                     applied.words_lang or None)


def action_payload(applied: Applied, source: str, automaton: str | None = None) -> dict[str, Any]:
    """The ``action`` event's JSON form, as the page's move list shows a move."""
    return action_event(applied, source, automaton).to_json()


@dataclass
class Thinking:
    """The automaton thinking now: whose seat, since when."""

    player: int
    started: float


@dataclass
class Shown:
    """What the table shows now beside its phase and message: the adapter's view (or
    None), the mistakes being guided, and the lights of the phase."""

    view: View | None = None
    mistakes: tuple[Mistake, ...] = ()
    all_at_once: bool = False
    lights: dict[str, Light] = field(default_factory=dict)


class Table:
    """One game at the table: the model the core steps. See the module docstring."""

    def __init__(
        self,
        adapter: Adapter,
        profile: ProfileLike,
        *,
        journal: Journal,
        players: tuple[str, ...],
        seats: Seats,
        now: float,
        settle_s: float,
        adaptive: bool = True,
        link_state: str = CONNECTED,
        link_detail: str = "",
        occupancy: Iterable[int] = (),
        think_s: float = 1.0,
        pending: Mapping[str, Any] | None = None,
        clock_rule: ClockRule | None = None,
        clock_state: Mapping[str, Any] | None = None,
        hints: bool = False,
        history: History | None = None,
    ) -> None:
        if settle_s < 0:
            raise SessionError(f"settle window {settle_s!r} s is negative; use 0 or more")
        if history is not None and history.adapter is not adapter:
            raise SessionError(f"history {history!r} belongs to another adapter than "
                               f"{adapter!r}; give the history the game was resumed with")
        self.adapter = adapter
        #: The applied actions, oldest first: the table's (a resumed game's from the log).
        self.history = history if history is not None else History(adapter)
        self.profile = profile
        self.journal = journal
        self.players = players
        self.seats = seats
        self.think_s = think_s
        self.adaptive = adaptive
        self.closing = False
        self._now = now
        self._out: list[Effect] = []
        self._site_of: dict[int, str] = {}
        self._led_of: dict[str, int] = {}
        for name, site in profile.sites.items():
            self._site_of[int(site.pos)] = name
            if site.led is not None:
                self._led_of[name] = int(site.led)
        self._button_of: dict[int, str] = {pos: name for name, pos in profile.buttons.items()}
        self.settler = Settler(self._site_of, settle_s, lambda: self._now, occupancy)
        self.connected = link_state in (CONNECTED, "none")
        self.ever_connected = self.connected
        self.link_state = link_state
        self.link_detail = link_detail  # why the link is in its state (the page says it)
        self.settled: frozenset[str] = self.settler.settled
        self.stale: frozenset[str] = frozenset()
        self.early = EarlyReading()
        self.all_sites = frozenset(profile.sites)
        self.seen_empty: set[str] = set(self.all_sites - self.settled)
        self.flash: str | None = None
        self.result_logged = adapter.result() is not None
        self.count = Adjudication()
        self.message = ""
        self.error = ""
        self.phase = PLAY
        self.shown = Shown()
        self.plan: LedPlan = LedPlan.blank(profile.leds)
        self.faults = Faults()
        spec = registry.specs().get(adapter.game)
        self.spec_json = spec.to_json() if spec is not None else None
        self.piece_word = spec.page.piece_word if spec is not None else "piece"
        self.hints = hints
        self.hint: Hint | None = None
        self.thinking: Thinking | None = None
        self.think_error = ""
        self.execution: Execution | None = None
        if pending is not None:
            self.execution = self.restore_execution(pending)
        last = self.history.last
        self.prior = next(iter(last.placed), None) if last is not None else None
        self.clocks = (TableClocks(clock_rule, tuple(adapter.colours), clock_state,
                                   len(self.history), now) if clock_rule is not None else None)

    def evaluate(self, from_board: bool = False) -> None:
        """Recompute what the table shows (the core's phases do it)."""
        raise NotImplementedError

    def emit(self, effect: Effect) -> None:
        """Queue an effect for the shell (see steps.py)."""
        self._out.append(effect)

    def now(self) -> float:
        """The time of the step being taken (or of the last one)."""
        return self._now

    def wait(self, now: float) -> float | None:
        """Seconds until the core needs a :class:`Tick` (None: only on the next event)."""
        waits = [w for w in (self.settler.due(now), self.early.left(now)) if w is not None]
        if self.clocks is not None and self.clocks.running is not None:
            waits.append(CLOCK_TICK_S)  # a flag falls on time, the times are saved often
        return max(0.0, min(waits)) if waits else None

    @property
    def settling(self) -> bool:
        """True while a change waits to be read, or a move read early waits to be logged."""
        return self.settler.pending or self.early.provisional is not None

    def flush(self) -> bool:
        """Log the move read early (its window passed, or another input came); False
        when it could not be stored (it is taken back: the table must look again)."""
        provisional = self.early.take()
        if provisional is None:
            return True
        applied = provisional.applied
        try:
            self.journal.append(ev.Sense(extra=dict(provisional.sense)))
            clocks = self.clocks.snapshot(self._now) if self.clocks is not None else None
            self.journal.append(action_event(applied, "board", clocks=clocks,
                                             dialogue=provisional.dialogue))
        except Exception as exc:
            # Not durable means not done: take it back so the log and the game agree.
            self.history.undo()
            self.prior = provisional.prior
            self.error = (f"the move {applied.notation} could not be saved ({exc}); it was "
                          "not taken: lift the piece and try again")
            LOGGER.error("%s", self.error)
            return False
        return True

    def mover(self) -> str | None:
        """The seat whose clock should run now, or None (paused, counting, over)."""
        if not self.connected or self.count.active or self.adapter.result() is not None:
            return None
        if not self.history:
            return None  # as on lichess, the clocks start with the first move
        mover = self.adapter.to_move
        if mover is None and self.shown.view is not None:
            mover = self.shown.view.to_move
        if mover is not None and self.phase in (EXECUTE, RESYNC):
            index = self.adapter.seats().get(mover)
            if index is not None and self.seats.policy(index) is not None:
                return None  # people carry out the automaton's move: not its time
        return mover

    def withdraw_count(self) -> None:
        """Withdraw the offered count (the automata still weighing it are stopped)."""
        if self.count.active:
            self.emit(WithdrawCount())
        self.count.withdraw()

    def require_connected(self, what: str) -> None:
        if not self.connected:
            raise SessionError(_("{what} waits: the board is disconnected; plug it back in")
                               .format(what=what))

    def require_person(self, what: str) -> None:
        """Refuse a person's input while an automaton has the turn."""
        if self.execution is not None:
            raise SessionError(
                _("{what} waits: first carry out the move of {automaton} ({words}), or "
                  "press Undo").format(what=what,
                                       automaton=automaton_words(self.execution.automaton),
                                       words=self.execution.words))
        player = self.player_to_act()
        if self.seats.policy(player) is not None and player is not None:
            raise SessionError(
                _("{what} waits: it is the turn of {name}, played by {automaton}").format(
                    what=what, name=self.players[player],
                    automaton=automaton_words(self.seats.kind(player))))

    def hint_lights(self) -> dict[str, Light]:
        hint = self.hint
        if (hint is None or hint.ply != len(self.history)
                or self.phase in (RESYNC, THINKING, EXECUTE)):
            return {}
        return {site: HINT_LIGHT for site in hint.sites}

    def player_to_act(self) -> int | None:
        """The index of the player who acts now (the engine says, pie openings too)."""
        if self.adapter.result() is not None:
            return None
        return self.adapter.engine.turn().seat

    def think(self, player: int) -> None:
        """Start the automaton of ``player`` on a copy of the game."""
        policy = self.seats.policy(player)
        if policy is None:
            return
        self.thinking = Thinking(player, self._now)
        self.emit(Think(player, policy, self.adapter.engine.clone(), self.think_s))

    @property
    def thinking_player(self) -> int | None:
        return None if self.thinking is None else self.thinking.player

    def thinking_since(self) -> float | None:
        return None if self.thinking is None else self.thinking.started

    def cancel_thinking(self) -> bool:
        """Stop the thinking automaton (a late answer is dropped); True if one was."""
        was = self.thinking is not None
        self.thinking = None
        self.emit(Cancel())
        return was

    def preview(self, action: str) -> tuple[frozenset[str], frozenset[str], str, str]:
        """``(before, after, seat, words)`` of ``action``, without changing the game."""
        words = self.adapter.describe(action)
        before = self.adapter.expected()
        applied = self.history.play(action)
        after = self.adapter.expected()
        self.history.undo()
        return before, after, applied.player, words

    def restore_execution(self, pending: Mapping[str, Any]) -> Execution | None:
        """The logged move an automaton was waiting for, rebuilt for this game state."""
        action = str(pending.get("notation", ""))
        player = self.player_to_act()
        if player is None:
            return None
        try:
            before, after, seat, words = self.preview(action)
        except (ValueError, LookupError) as exc:
            LOGGER.warning("the pending automaton move %r no longer applies: %s", action, exc)
            return None
        automaton = str(pending.get("automaton") or self.seats.kind(player))
        return Execution(action, player, seat, automaton, before, after, words)

    def apply(self, action: str, source: str, automaton: str | None = None) -> Applied:
        applied = self.history.play(action)
        clocks = None
        if self.clocks is not None:
            self.sync_clocks()
            clocks = self.clocks.snapshot(self._now)
        try:
            self.log(action_event(applied, source, automaton, clocks, self.adapter.dialogue()))
        except Exception:
            # Not durable means not done: take it back so the log and the game agree.
            self.history.undo()
            raise
        self.seen_empty = set(self.all_sites - self.settled)
        if applied.placed:
            self.prior = sorted(applied.placed)[0]
            if source in ("board", "automaton"):
                self.flash = self.prior
        LOGGER.info("%s played %s", applied.player, applied.notation)
        return applied

    def read_early(self, action: str, sense: dict[str, Any]) -> None:
        """Apply a move read early; it is logged once its full window has passed."""
        applied = self.early.begin(self.history.play, action, sense, self.prior,
                                   set(self.seen_empty), self.adapter.dialogue)
        self.seen_empty = set(self.all_sites - self.settled)
        if applied.placed:
            self.prior = sorted(applied.placed)[0]
            self.flash = self.prior
        LOGGER.info("%s played %s (read early)", applied.player, applied.notation)

    def log(self, event: ev.LogEvent) -> None:
        if self.early.provisional is not None and not self.flush():  # the log keeps the order
            self.evaluate()  # the move read early could not be stored: it was taken back
        self.journal.append(event)

    def sync_clocks(self) -> None:
        if self.clocks is not None:
            self.clocks.sync(self.mover(), len(self.history), self._now)

    def tentative(self) -> tuple[frozenset[str], frozenset[str]]:
        """Sites whose switch changed since the board was last read: (arriving, leaving)."""
        sensed = self.settler.sites()
        # A piece of a move read early and taken back is unread again: put down once
        # more, it is seen arriving; lifted, it is not a read piece leaving.
        unread = self.early.unread
        return (sensed - self.settled) | (sensed & unread), self.settled - sensed - unread

    def log_lights(self) -> dict[str, Light]:
        """While the log cannot be written, every site the game leaves dark blinks amber."""
        if log_problem(self.journal) is None:
            return {}
        return dict.fromkeys(self._led_of, LOG_FAULT_LIGHT)

    def send_plan(self) -> None:
        shown = {**self.log_lights(), **self.shown.lights, **self.hint_lights()}
        if self.clocks is not None and self.clocks.breathing(self._now):
            # Low on time: the steady lights (the legal points) breathe.
            shown = {s: Light(light.colour, PULSE) if light.effect == SOLID else light
                     for s, light in shown.items()}
        arriving, leaving = self.tentative()
        for site in arriving:
            shown[site] = SEEN_ARRIVING
        for site in leaving:
            shown[site] = SEEN_LEAVING
        lights = {self._led_of[s]: light for s, light in shown.items() if s in self._led_of}
        self.plan = LedPlan.from_mapping(self.profile.leds, lights)
        if self.connected:
            self.emit(ShowPlan(self.plan))



__all__ = ["CLOSED", "CONNECTED", "ProfileLike", "Shown", "Table", "Thinking", "action_payload"]
