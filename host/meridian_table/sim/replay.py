"""Replay hand traces (``meridian_table.sim.hands``) through the real table code.

Two ways, one driver:

- :class:`ClockedBoard`: simulated time. The firmware's own debouncer
  (``meridian_fw.debounce``) scans the traced switches every scan period of the board
  profile, and its flips reach a real :class:`~meridian_table.table.TableSession` (with
  the game's real adapter and engine) as SenseEvents; the session runs on the same
  simulated clock. Thousands of traces replay in seconds, exactly the same each run.
- :class:`VirtualTable`: real time, the whole table: the virtual board (the firmware in
  a thread behind a pty), the link, the session; the rendered LED frames are watched.

Either way the player follows the board as a person does: answers the questions the
trace's inputs answer, puts back or takes off what the board guides, and the replay
says whether the table logged exactly the move the player made.
"""

from __future__ import annotations

import importlib
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from meridian_table.games import registry
from meridian_table.games.board import History
from meridian_table.games.registry import create_adapter as create
from meridian_table.link.events import SenseEvent
from meridian_table.profiles import Profile, load_profile
from meridian_table.sim.hands import Trace
from meridian_table.store.events import LogEvent, kind_of
from meridian_table.table import MemoryJournal, TableSession
from meridian_table.table.presenter import PageState
from meridian_table.table.runner import RunningTable, TableSetup, open_table

#: A hand that moved a switch later than this against its trace (a busy machine made the
#: hand itself late) did not play the trace: a hesitation held longer is a move.
HAND_LATE_OK_MS = 40.0
#: How long the virtual table's replay waits for the frame that shows a logged move.
FRAME_WAIT_S = 5.0
#: How long a player takes to react to the board (a question, a piece to take off).
REACTION_S = (0.25, 0.45)
#: How long the replay waits for the table once the hand is done, before it calls the
#: trace's move lost.
PATIENCE_S = 6.0
#: A player answers at most this many questions in one turn.
MAX_ANSWERS = 8


@dataclass
class Result:
    """What the table made of one trace."""

    trace: Trace
    logged: list[str]
    #: Switch change of the landing -> the tentative cue (ms); None: never seen.
    ack_ms: float | None = None
    #: Landing -> the move applied (or, where the game asks first, the board read).
    commit_ms: float | None = None
    undos: int = 0
    #: The white tentative cue was rendered under the new piece (a quick move's own
    #: frame can replace it before it is drawn).
    cue_seen: bool = False
    notes: list[str] = field(default_factory=list)
    #: How late the hand moved a switch against its trace, at worst (ms). In simulated
    #: time 0; in real time a busy machine can make the hand itself late, and a hand
    #: that rests longer than traced is another trace (a hesitation read as a move).
    late_ms: float = 0.0

    @property
    def on_time(self) -> bool:
        """The hand played the trace as traced (within HAND_LATE_OK_MS)."""
        return self.late_ms <= HAND_LATE_OK_MS

    @property
    def misread(self) -> bool:
        """The table committed a move the player did not make, or lost the one made."""
        if not self.trace.counted:
            return False
        return self.logged != [self.trace.action] or self.undos > 0


class Driver:
    """What both replays share: time, switches, buttons and the table's state."""

    session: TableSession

    def now(self) -> float:
        raise NotImplementedError

    def run_until(self, t: float) -> None:
        """Let time pass until ``t`` (seconds on :meth:`now`'s clock)."""
        raise NotImplementedError

    def set(self, site: str, closed: bool) -> None:
        raise NotImplementedError

    def logged(self) -> list[tuple[str, dict[str, Any]]]:
        raise NotImplementedError

    def caught_up(self) -> bool:
        """The table has heard every switch the hand set (in simulated time, always)."""
        return True

    def play(self, trace: Trace, rng: random.Random) -> Result:
        """Play ``trace`` from now on; returns what the table logged meanwhile."""
        start_log = len(self.logged())
        session = self.session
        self._match_board(rng)
        inputs = list(trace.inputs)
        for name, value in list(inputs):
            if name == "button":
                session.press(value, source="button")
                inputs.remove((name, value))
            elif name == "meridian":
                session.command({"cmd": "choose", "field": name, "value": value})
                inputs.remove((name, value))
            elif name.startswith("tap:"):
                # Tapped on the page (what the switches cannot see): the board is then
                # guided to it, as a player follows the lit squares.
                session.command({"cmd": "choose", "field": name[4:], "value": value})
                inputs.remove((name, value))
        for _ in range(MAX_ANSWERS):  # what the table asks before any piece moves
            question = session.state().get("question")
            if question is None:
                break
            answer = next((v for f, v in inputs if f == question["field"]), None)
            if answer is None:
                break
            session.command({"cmd": "choose", "field": question["field"], "value": answer})
        if len(inputs) < len(trace.inputs):
            # A button pressed or a question answered first: the hand then reaches for
            # the piece, as a player does, before it moves anything.
            self.run_until(self.now() + rng.uniform(*REACTION_S))
        t0 = self.now()
        landed = t0 + trace.landed_ms / 1000 if trace.landed_ms is not None else None
        late = 0.0
        for step in trace.steps:
            due = t0 + step.t_ms / 1000
            self.run_until(due)
            late = max(late, self.now() - due)
            self.set(step.site, step.closed)
        result = Result(trace, [], late_ms=round(late * 1000, 3))
        answers = 0
        deadline = self.now() + PATIENCE_S
        while self.now() < deadline:
            self.run_until(self.now() + 0.01)
            if session.settling or not self.caught_up():
                continue  # a player reacts to what the board shows for the board as it is
            state = session.state()
            question = state.get("question")
            asked = question["field"] if question else None
            answer = next((v for f, v in inputs if f == asked), None)
            if answer is not None and answers < MAX_ANSWERS:
                # A question asked again (the board changed under it) is answered again.
                self.run_until(self.now() + rng.uniform(*REACTION_S))
                session.command({"cmd": "choose", "field": asked, "value": answer})
                answers += 1
                deadline = self.now() + PATIENCE_S
                continue
            if self._follow(state, rng):
                deadline = self.now() + PATIENCE_S
                continue
            done = [p["notation"] for k, p in self.logged()[start_log:] if k == "action"]
            if done and state["phase"] != "resync":
                break
            if not trace.counted and (not inputs or answers):
                break
        events = self.logged()[start_log:]
        result.logged = [p["notation"] for k, p in events if k == "action"]
        result.undos = sum(1 for k, _ in events if k == "undo")
        if landed is not None and trace.fresh:
            self._timings(result, landed)
        return result

    def _follow(self, state: PageState, rng: random.Random) -> bool:
        """Put on or take off the next piece the board guides, as a player does; False
        when the board asks for nothing."""
        diff = state.get("diff") or {}
        pending = sorted({*diff.get("remove", ()), *diff.get("put_back", ())})
        if not pending:
            return False
        nxt = diff.get("next") or pending[0]
        self.run_until(self.now() + rng.uniform(*REACTION_S))
        self.set(nxt, nxt in diff.get("put_back", ()))
        return True

    def _match_board(self, rng: random.Random) -> None:
        """Before a turn, the board is made to match the game, as a player sets up a new
        game's pieces (the virtual board starts empty) or finishes what the board still
        guides: a tap on a board that does not match waits, and would be lost."""
        deadline = self.now() + PATIENCE_S
        while self.now() < deadline:
            if self.session.settling or not self.caught_up():
                self.run_until(self.now() + 0.01)
                continue
            state = self.session.state()
            if state.get("question") is not None or not self._follow(state, rng):
                return
            deadline = self.now() + PATIENCE_S

    def _timings(self, result: Result, landed: float) -> None:
        del result, landed


class ClockedBoard(Driver):
    """A board in simulated time: traced switches, the firmware's debouncer, a session.

    It is the session's ``board`` (occupancy, plans) and its clock.
    """

    state = "connected"

    def __init__(self, game: str, profile: str | None = None, adaptive: bool = True,
                 settle_s: float = 0.3, options: dict[str, Any] | None = None,
                 history: History | None = None) -> None:
        """``history``: a game already under way (its adapter and the moves played)."""
        # The firmware's own debouncer (untyped MicroPython code).
        debouncer: Any = importlib.import_module("meridian_fw.debounce").Debouncer

        self.game = game
        self.options = dict(options or {})
        self.adaptive = adaptive
        self.settle_s = settle_s
        self.adapter = history.adapter if history is not None else create(game, self.options)
        self.profile: Profile = load_profile(profile or registry.spec(game).default_profile(
            len(self.adapter.colours), self.options))
        self._t = 1000.0
        self._period = self.profile.scan_period_ms / 1000
        self._next_scan = self._t
        self._debouncer: Any = debouncer(self.profile.rows, self.profile.debounce_scans)
        self._raw = [0] * self.profile.rows
        self._changed = [0] * self.profile.rows
        self._seq = 0
        self.plans: list[tuple[float, Any]] = []
        self.sensed_at: dict[str, float] = {}
        self.journal = MemoryJournal(1)
        self._pos = {name: site.pos for name, site in self.profile.sites.items()}
        for site in self.adapter.expected():
            self._set_raw(self._pos[site], True)
        self._debouncer.reset(list(self._raw))
        self.session = TableSession(self.adapter, self.profile, self, journal=self.journal,
                                    clock=self.now, settle_s=settle_s, adaptive=adaptive,
                                    history=history)
        self._site_at = {site.pos: name for name, site in self.profile.sites.items()}
        self._moves = 0
        self.applied_at: list[float] = []
        self.session.subscribe(self._state)

    def _state(self, state: Any) -> None:
        moves = len(state.get("moves") or [])
        if moves > self._moves or state.get("question") is not None:
            self.applied_at.append(self._t)
        self._moves = moves

    # --- BoardLike -------------------------------------------------------------------
    @property
    def occupancy(self) -> frozenset[int]:
        cols = self.profile.cols
        return frozenset(r * cols + c for r, mask in enumerate(self._debouncer.state)
                         for c in range(cols) if mask >> c & 1)

    def send_plan(self, plan: object) -> None:
        self.plans.append((self._t, plan))

    def stats(self) -> dict[str, Any]:
        return {}

    # --- Driver ----------------------------------------------------------------------
    def now(self) -> float:
        return self._t

    def _set_raw(self, pos: int, closed: bool) -> None:
        row, col = divmod(pos, self.profile.cols)
        if closed:
            self._raw[row] |= 1 << col
        else:
            self._raw[row] &= ~(1 << col)

    def set(self, site: str, closed: bool) -> None:
        self._set_raw(self._pos[site], closed)

    def run_until(self, t: float) -> None:
        """Scan every period up to ``t``: debounced flips go to the session, which ticks."""
        cols = self.profile.cols
        while self._next_scan <= t:
            self._t = self._next_scan
            if self._debouncer.update(self._raw, self._changed):
                for r, flips in enumerate(self._changed):
                    c = 0
                    while flips:
                        if flips & 1:
                            pos = r * cols + c
                            closed = bool(self._debouncer.state[r] >> c & 1)
                            self._seq += 1
                            self.session.on_link_event(
                                SenseEvent(self._seq, int(self._t * 1000) & 0x3FFFFFFF,
                                           pos, closed))
                            name = self._site_at.get(pos)
                            if name is not None:
                                self.sensed_at[name] = self._t
                        flips >>= 1
                        c += 1
            self.session.tick(self._t)
            self._next_scan += self._period
        self._t = max(self._t, t)

    def logged(self) -> list[tuple[str, dict[str, Any]]]:
        return list(self.journal.events)

    def _timings(self, result: Result, landed: float) -> None:
        target = result.trace.target
        led = self.profile.sites[target].led if target else None
        if led is None:
            return
        for t, plan in self.plans:
            if t >= landed and getattr(plan, "lights", None) is not None:
                light = plan.lights[led]
                if not light.is_off and light.colour == 0xFFFFFF:
                    result.ack_ms = round((t - landed) * 1000, 3)
                    result.cue_seen = True
                    break
        applied = [t for t in self.applied_at if t >= landed]
        if applied:
            result.commit_ms = round((applied[0] - landed) * 1000, 3)


def replay_clocked(traces: Iterable[Trace], adaptive: bool = True,
                   progress: Callable[[Result], None] | None = None,
                   seed: int = 7) -> list[Result]:
    """Replay ``traces`` in simulated time; a new table for each new game, and after a
    misread a new table from the moves meant so far (so one misread costs one trace)."""
    rng = random.Random(seed)
    results: list[Result] = []
    board: ClockedBoard | None = None
    meant: list[str] = []
    for trace in traces:
        if board is None or trace.new_game:
            meant = []
            board = ClockedBoard(trace.game, adaptive=adaptive, options=dict(trace.options))
        result = board.play(trace, rng)
        meant.append(trace.action)
        results.append(result)
        if result.misread:
            history = History(create(trace.game, dict(trace.options)))
            for action in meant:
                history.play(action)
            board = ClockedBoard(trace.game, adaptive=adaptive, history=history,
                                 options=dict(trace.options))
        if progress is not None:
            progress(result)
    return results


class _Tee:
    """The session's journal, also kept in a list for the replay to read."""

    def __init__(self, journal: Any) -> None:
        self._journal = journal
        self._events: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def append(self, event: LogEvent) -> None:
        self._journal.append(event)
        with self._lock:
            self._events.append((kind_of(event), event.to_json()))

    def logged(self) -> list[tuple[str, dict[str, Any]]]:
        with self._lock:
            return list(self._events)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._journal, name)


#: The tentative cue is white; the firmware's current limiter dims it with the rest of
#: the board (48 at full budget, 40 to 45 with many lights on), never to a glow.
CUE_MIN = 16


def _white(led: Any) -> bool:
    """The light is the tentative cue: white, brighter than a glow."""
    r, g, b = led[:3]
    return bool(r == g == b and r >= CUE_MIN)


def _shows_move(led: Any, baseline: tuple[int, ...]) -> bool:
    """The light under the piece shows the move: lit, not white, not as it was."""
    rgb = tuple(led[:3])
    return rgb != baseline and any(rgb) and not rgb[0] == rgb[1] == rgb[2]


class VirtualTable(Driver):
    """The whole table in real time on the virtual board; LED frames are watched."""

    def __init__(self, game: str, adaptive: bool = True, settle_s: float = 0.3,
                 options: dict[str, Any] | None = None, sim_mode: str = "cpython") -> None:
        """``sim_mode`` "micropython" runs the firmware in the real MicroPython unix
        port (its own process), "cpython" in a thread of this one."""
        self.running: RunningTable = open_table(TableSetup(
            game=game, board="sim", db=":memory:", settle_s=settle_s, adaptive=adaptive,
            options=dict(options or {}), sim_mode=sim_mode))
        if not self.running.wait_ready(30):
            self.running.close()
            raise RuntimeError("the virtual board did not connect within 30 s")
        self.session = self.running.session
        self.profile = self.running.profile
        self.tee = _Tee(self.session.journal)
        self.session.journal = self.tee
        self.frames: list[tuple[float, list[Any]]] = []
        self._lock = threading.Lock()
        self._unsub = self.running.virtual.on_frame(self._frame)
        # Let the first snapshot settle and its frame show before a hand moves.
        time.sleep(settle_s + 0.2)

    def _frame(self, leds: list[Any]) -> None:
        with self._lock:
            self.frames.append((time.perf_counter(), list(leds)))

    def close(self) -> None:
        self._unsub()
        self.running.close()

    def now(self) -> float:
        return time.perf_counter()

    def run_until(self, t: float) -> None:
        left = t - time.perf_counter()
        if left > 0:
            time.sleep(left)

    def set(self, site: str, closed: bool) -> None:
        self.running.virtual.set_site(site, closed)

    def caught_up(self) -> bool:
        closed = self.running.virtual.closed
        want = {name for name, site in self.profile.sites.items() if site.pos in closed}
        return self.session.sensed == want

    def logged(self) -> list[tuple[str, dict[str, Any]]]:
        return self.tee.logged()

    def _timings(self, result: Result, landed: float) -> None:
        target = result.trace.target
        led = self.profile.sites[target].led if target else None
        if led is None:
            return
        with self._lock:
            before = [leds[led] for t, leds in self.frames if t < landed]
        baseline = tuple(before[-1][:3]) if before else (0, 0, 0)
        # The move is logged; its frame may still be on its way on a busy machine (the
        # link's writer and the board's renderer are threads of their own): wait for the
        # frame that shows the move under the piece, FRAME_WAIT_S at most. The timings
        # are the frames' own times, so waiting does not change them.
        deadline = time.perf_counter() + FRAME_WAIT_S
        while True:
            with self._lock:
                frames = [f for f in self.frames if f[0] >= landed]
            if any(_shows_move(leds[led], baseline) for _t, leds in frames) \
                    or time.perf_counter() >= deadline:
                break
            time.sleep(0.01)
        for t, leds in frames:
            if _white(leds[led]):
                result.ack_ms = round((t - landed) * 1000, 3)
                result.cue_seen = True
                break
        # The move shown: the first frame whose light under the piece is neither what
        # it was before, nor the cue, nor dark (a read move lights its piece; a board
        # read that asks first lights it as waiting for the answer).
        for t, leds in frames:
            if _shows_move(leds[led], baseline):
                result.commit_ms = round((t - landed) * 1000, 3)
                break
        if result.commit_ms is not None and (result.ack_ms is None
                                             or result.commit_ms < result.ack_ms):
            # The move was shown before the cue's frame: the firmware drew the newer
            # plan at once (the board answered all the same).
            result.ack_ms = result.commit_ms


__all__ = ["HAND_LATE_OK_MS", "ClockedBoard", "Driver", "Result", "VirtualTable", "replay_clocked"]
