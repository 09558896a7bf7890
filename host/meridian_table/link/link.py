"""The host's side of the wire: one background thread that keeps a board connected.

``Link`` opens the board's serial port (found by USB VID:PID, an explicit path, any
pyserial URL, or a callable that returns the current port), runs the HELLO handshake,
delivers SENSE events exactly once and in order (see ``sequencer``), sends LED plans
latest-wins, pings the board and notices within 3 s when it has gone. It then closes
the port, searches again (sleeping between tries, never spinning), reopens,
re-handshakes, takes a snapshot and resends the current plan.

Callbacks run on the link's reader thread; keep them short or hand off to a queue.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any

import serial

from meridian_fw import wire
from meridian_table.ledplan import LedPlan
from meridian_table.link import discovery, port_errors
from meridian_table.link.events import (
    Hello,
    LinkEvent,
    LinkState,
    State,
)
from meridian_table.link.frames import MAX_GEN as MAX_GEN
from meridian_table.link.frames import T_MS_MAX as T_MS_MAX
from meridian_table.link.frames import FrameHandler, Opener, PortSpec, Subscriber, Tap, _Lost
from meridian_table.link.frames import SerialLike as SerialLike
from meridian_table.link.frames import mismatch_message as mismatch_message
from meridian_table.link.sequencer import Sequencer

LOGGER = logging.getLogger(__name__)

BAUDRATE = 115200  # ignored by USB CDC and by ptys, but pyserial wants one
READ_TIMEOUT = 0.1  # s: how long one blocking read waits; bounds timer latency
PING_INTERVAL = 0.5  # s: the firmware wants a host frame at least every 1 s
LOST_AFTER = 3.0  # s without any valid frame: the link is lost
WHO_INTERVAL = 0.5  # s between WHO while waiting for HELLO
HELLO_TIMEOUT = 3.0  # s: give up on a port that never says HELLO
SNAP_TIMEOUT = 1.0  # s after HELLO without a SNAP: ask for one
PLAN_RETRY = 1.0  # s without SHOWN: resend the plan
SEARCH_BACKOFF = (0.1, 2.0)  # s: first and longest wait between searches
MISMATCH_RETRY = 5.0  # s: how often to re-check a board that speaks another protocol
STALL_AFTER = 5.0  # s without a turn of the reader loop: the link thread is stuck


class LinkError(RuntimeError):
    """The link could not do what was asked (e.g. it is closed)."""


class ProtocolMismatchError(LinkError):
    """The board speaks another protocol version; the message says which side to update."""


class LinkTimeout(LinkError, TimeoutError):
    """No board answered in time."""


class PlanSizeError(ValueError):
    """An LED plan whose LED count differs from the board's."""


def open_serial(url: str) -> SerialLike:
    """Open a device path or any pyserial URL with DTR asserted (TinyUSB reads DTR as
    "host connected" and drops output without it) and an exclusive lock (two hosts
    reading one port would each see half of every line)."""
    port = serial.serial_for_url(
        url, baudrate=BAUDRATE, timeout=READ_TIMEOUT, do_not_open=True, exclusive=True
    )
    port.dtr = True
    port.open()
    return port


def no_hello(port: str, received: int) -> str:
    """Why a port that never said HELLO is not the board, and what to try next."""
    heard = ("it sent nothing" if received == 0
             else f"it sent {received} bytes that are not Meridian frames")
    return (f"no HELLO from {port} within {HELLO_TIMEOUT:g} s ({heard}): is this the Pico? "
            f"try `meridian-table monitor {port}`, or `--board auto` to find it by USB")


class Link(FrameHandler):
    """A self-healing connection to one board. See the module docstring.

    ``port``: "auto" (a Pico by VID:PID, else a registered virtual board), "pico",
    "sim", a device path, any pyserial URL, or a callable returning the port to open
    now (or None while there is none, e.g. ``VirtualBoard.find_port``).
    """

    def __init__(
        self,
        port: PortSpec = "auto",
        on_event: Subscriber | None = None,
        *,
        serial_number: str | None = None,
        opener: Opener = open_serial,
        lost_after: float = LOST_AFTER,
        ping_interval: float = PING_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        stall_after: float = STALL_AFTER,
    ) -> None:
        if isinstance(port, str) and not port.strip():
            raise ValueError("port is empty: give a device path, a pyserial URL or \"auto\"")
        self._port_spec = port
        self._serial_number = serial_number
        self._opener = opener
        self._lost_after = lost_after
        self._ping_interval = ping_interval
        self._clock = clock
        self._subscribers: list[Subscriber] = [on_event] if on_event is not None else []
        self._taps: list[Tap] = []
        self._cond = threading.Condition()
        self._wlock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._watchdog: threading.Thread | None = None
        self._stall_after = stall_after
        self._turned_at = time.monotonic()  # the reader loop's last turn (real time)
        self._stalled = False
        self._ser: SerialLike | None = None
        self._port_name = ""
        self._state: State = "searching"
        # Nothing found yet, nothing to add: the page says "Looking for the board…" in
        # its own language (an English "not started" after it showed on French pages
        # while a new table's link was still starting, in a busy test run).
        self._detail = ""
        self._hello: Hello | None = None
        self._seq = Sequencer()
        self._tx_seq = 0
        self._plan: LedPlan | None = None
        self._gen = 0
        self._plan_sent_at: float | None = None  # None: not on the wire since (re)connect
        self._shown_gen = 0
        self._brightness: int | None = None
        self._board_stats: dict[str, str] = {}
        self._board_pending = 0
        self._pings: dict[int, float] = {}
        self._ping_token = 0
        self._stats: dict[str, Any] = {
            "frames_in": 0,
            "frames_out": 0,
            "bytes_in": 0,
            "bytes_out": 0,
            "crc_errors": 0,
            "garbage": 0,
            "resends": 0,
            "reconnects": 0,
            "plans_sent": 0,
            "plans_shown": 0,
            "last_rtt_ms": None,
            "last_plan_rtt_ms": None,
            "callback_errors": 0,
            "faults": 0,
            "naks": 0,
            "bad_frames": 0,
            "stalls": 0,
        }
        self._ack_dirty = False
        self._snap_requested = False
        self._nak_streak = 0

    # -- public API -----------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<Link port={self._port_spec!r} state={self._state!r}>"

    def __enter__(self) -> Link:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Start the reader thread (idempotent)."""
        if self._stop.is_set():
            raise LinkError("this Link was closed; create a new one")
        if self._thread is None:
            self._turned_at = time.monotonic()
            self._thread = threading.Thread(target=self._run, name="meridian-link", daemon=True)
            self._thread.start()
            self._watchdog = threading.Thread(
                target=self._watch, name="meridian-link-watchdog", daemon=True
            )
            self._watchdog.start()

    def close(self) -> None:
        """Stop the thread and close the port. Safe to call twice."""
        self._stop.set()
        ser = self._ser
        cancel = getattr(ser, "cancel_read", None)
        if cancel is not None:
            try:
                cancel()
            except (OSError, serial.SerialException):
                pass
        for thread in (self._thread, self._watchdog):
            if thread is not None and thread is not threading.current_thread():
                thread.join(timeout=5)
        self._set_state("closed", "closed by the host")

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Add a subscriber; returns a function that removes it."""
        with self._cond:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._cond:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def tap(self, callback: Tap) -> None:
        """Watch every raw line: ``callback("in"|"out", line)`` (used by `monitor`)."""
        self._taps.append(callback)

    @property
    def state(self) -> State:
        return self._state

    @property
    def detail(self) -> str:
        """Why the link is in its state, in words (e.g. the version-mismatch advice)."""
        return self._detail

    @property
    def port(self) -> str:
        """The port currently open (or last tried); "" before the first."""
        return self._port_name

    @property
    def hello(self) -> Hello | None:
        return self._hello

    @property
    def occupancy(self) -> frozenset[int]:
        """Closed matrix positions, as far as the delivered events and snapshots say."""
        return self._seq.occupancy

    @property
    def shown_gen(self) -> int:
        """The last plan generation the board confirmed with SHOWN."""
        return self._shown_gen

    @property
    def plan_gen(self) -> int:
        """The generation of the current plan (0: none yet)."""
        return self._gen

    def stats(self) -> dict[str, Any]:
        """A copy of the counters, for the UI and `monitor`."""
        with self._cond:
            out = dict(self._stats)
        seq = self._seq.stats
        out.update(
            state=self._state,
            port=self._port_name,
            events_delivered=seq.delivered,
            duplicates=seq.duplicates,
            held_back=seq.held_back,
            gaps=seq.gaps,
            snapshots=seq.snapshots,
            events_folded=seq.folded,
            last_seq=self._seq.delivered,
            board_pending=self._board_pending,
            board=dict(self._board_stats),
        )
        return out

    def wait_connected(self, timeout: float = 10.0) -> Hello:
        """Block until connected; raises ProtocolMismatchError or LinkTimeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._state != "connected":
                if self._state == "version-mismatch":
                    raise ProtocolMismatchError(self._detail)
                if self._state == "closed":
                    raise LinkError("the link is closed")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LinkTimeout(
                        f"no board connected on {self._describe_port()} within {timeout:g} s "
                        f"(state {self._state}: {self._detail})"
                    )
                self._cond.wait(left)
            hello = self._hello
        if hello is None:
            raise LinkError("connected without a HELLO (this is a bug in the link)")
        return hello

    def wait_shown(self, gen: int | None = None, timeout: float = 5.0) -> None:
        """Block until the board confirmed plan ``gen`` (default: the current one)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._shown_gen < (gen if gen is not None else self._gen):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LinkTimeout(f"plan {gen or self._gen} not shown within {timeout:g} s")
                self._cond.wait(left)

    def send_plan(self, plan: LedPlan) -> bool:
        """Make ``plan`` the one the board shows (latest wins).

        Returns False when it equals the current plan (nothing is sent). The plan is
        sent now if connected, else as soon as the board is back.
        """
        hello = self._hello
        if hello is not None and len(plan) != hello.leds:
            raise PlanSizeError(
                f"LED plan has {len(plan)} LEDs but board {hello.board!r} has {hello.leds}; "
                f"build the plan from the board's profile"
            )
        with self._wlock:
            if plan == self._plan:
                return False
            self._plan = plan
            self._gen = self._gen % MAX_GEN + 1
            self._plan_sent_at = None
            if self._state == "connected":
                self._write_plan()
        return True

    def set_brightness(self, level: int) -> None:
        """Global LED brightness 0..255 (kept and re-sent after a reconnect)."""
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 255:
            raise ValueError(f"brightness {level!r} is not an integer in 0..255")
        self._brightness = level
        self._send_if_connected("BRIGHT", (level,))

    def identify(self, seconds: int) -> None:
        """Show the identify pattern for ``seconds`` (0 stops it)."""
        if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= 3600:
            raise ValueError(f"identify seconds {seconds!r} is not an integer in 0..3600")
        self._send_if_connected("IDENT", (seconds,))

    def request_snapshot(self) -> None:
        """Ask the board for its occupancy; it is delivered as a Snapshot (the truth)."""
        self._seq.want_resync()
        self._send_if_connected("GETSNAP", ())

    def request_stats(self) -> None:
        """Ask the board for its counters (they appear in ``stats()["board"]``)."""
        self._send_if_connected("STATS", ())

    def send_raw(self, line: bytes) -> None:
        """Write bytes as they are (tests inject garbage with this). Needs a connection."""
        with self._wlock:
            ser = self._ser
            if ser is None:
                raise LinkError("no port is open")
            self._write_bytes(ser, line)

    # -- the thread -----------------------------------------------------------------

    def _describe_port(self) -> str:
        spec = self._port_spec
        return spec if isinstance(spec, str) else getattr(spec, "__qualname__", repr(spec))

    def _not_found(self) -> str:
        """The searching detail: what was looked for, and what would make it appear."""
        what = {
            "auto": "no Pico on USB and no `meridian-table sim` running; plug the board in",
            "pico": "no Pico on USB (VID:PID 2E8A:0005); plug it in",
            "sim": "no `meridian-table sim` running; start one",
        }.get(self._port_spec if isinstance(self._port_spec, str) else "", "")
        return f"no board found ({self._describe_port()}{': ' + what if what else ''})"

    def _resolve(self) -> str | None:
        spec = self._port_spec
        if callable(spec):
            return spec()
        return discovery.resolve(spec, self._serial_number)

    def _run(self) -> None:
        backoff = SEARCH_BACKOFF[0]
        while not self._stop.is_set():
            port = None
            try:
                port = self._resolve()
            except Exception:  # a user's port hook must not kill the link
                LOGGER.exception("port lookup failed")
            if port is None:
                self._set_state("searching", self._not_found())
                self._stop.wait(backoff)
                backoff = min(backoff * 2, SEARCH_BACKOFF[1])
                continue
            self._port_name = port
            try:
                ser = self._opener(port)
            except (OSError, serial.SerialException, ValueError) as exc:
                self._set_state("searching", port_errors.explain(port, exc))
                self._stop.wait(backoff)
                backoff = min(backoff * 2, SEARCH_BACKOFF[1])
                continue
            outcome = "lost"
            try:
                outcome = self._session(ser, port)
            except _Lost as exc:
                LOGGER.info("link on %s lost: %s", port, exc)
                if self._state == "connected":
                    self._bump("reconnects")
                self._set_state("searching", f"lost {port}: {exc}")
            except Exception:
                LOGGER.exception("link thread error on %s", port)
                self._set_state("searching", f"internal error on {port}; reopening")
            finally:
                with self._wlock:
                    self._ser = None
                try:
                    ser.close()
                except (OSError, serial.SerialException):
                    pass
            if outcome == "mismatch":
                self._stop.wait(MISMATCH_RETRY)
            else:
                backoff = SEARCH_BACKOFF[0]
                self._stop.wait(backoff)

    def _watch(self) -> None:
        """The watchdog: the reader loop turns at least every READ_TIMEOUT while
        connected, so a loop that has not turned for ``stall_after`` seconds is stuck
        (a subscriber that never returns, a bug in a parser). Its own timers cannot
        notice that, so this thread says so: the state leaves "connected", with the
        place it is stuck in the log. When the loop turns again it reconnects and
        resynchronises from a snapshot."""
        while not self._stop.wait(min(0.5, self._stall_after / 4)):
            idle = time.monotonic() - self._turned_at
            if self._stalled or self._state != "connected" or idle < self._stall_after:
                continue
            self._stalled = True
            self._bump("stalls")
            thread = self._thread
            frame = sys._current_frames().get(thread.ident or -1) if thread else None
            where = "".join(traceback.format_stack(frame)) if frame is not None else "?"
            LOGGER.error("link thread stuck for %.1f s; it is at:\n%s", idle, where)
            self._set_state(
                "searching",
                f"the link stopped reading {self._port_name} (stuck for {idle:.0f} s); "
                f"the board's moves are not being read until it recovers",
            )

    def _session(self, ser: SerialLike, port: str) -> str:
        """Talk to one open port until it is lost, closed or mismatched."""
        with self._wlock:
            self._ser = ser
            self._plan_sent_at = None
        self._pings.clear()
        buf = bytearray()
        skipping = False
        now = self._clock()
        opened_at = last_rx = now
        last_who = last_ping = -1e9
        snap_deadline: float | None = None
        self._send("WHO", ())
        last_who = now
        connected = False
        bytes_at_open = self._stats["bytes_in"]
        while not self._stop.is_set():
            self._turned_at = time.monotonic()
            if self._stalled:
                self._stalled = False
                raise _Lost("the link thread was stuck; reconnecting to resynchronise")
            try:
                waiting = ser.in_waiting
                data = ser.read(waiting if waiting > 0 else 1)
            except (OSError, serial.SerialException) as exc:
                raise _Lost(f"read failed ({exc})") from None
            now = self._clock()
            if data:
                self._stats["bytes_in"] += len(data)
                buf.extend(data)
                while True:
                    nl = buf.find(b"\n")
                    if nl < 0:
                        if len(buf) >= wire.MAX_LINE:
                            # No newline in a whole line's worth: garbage; skip to the next.
                            self._bump("garbage")
                            buf.clear()
                            skipping = True
                        break
                    line = bytes(buf[:nl])
                    del buf[: nl + 1]
                    if skipping:
                        skipping = False
                        continue
                    frame = self._decode(line)
                    if frame is None:
                        continue
                    last_rx = now
                    result = self._handle(frame, port, now, connected)
                    if result == "mismatch":
                        return "mismatch"
                    if result == "hello":
                        connected = True
                        snap_deadline = now + SNAP_TIMEOUT
                    elif result == "snap":
                        snap_deadline = None
            # Timers.
            if not connected:
                if now - last_who >= WHO_INTERVAL:
                    self._send("WHO", ())
                    last_who = now
                if now - opened_at >= HELLO_TIMEOUT and now - last_rx >= HELLO_TIMEOUT:
                    raise _Lost(no_hello(port, self._stats["bytes_in"] - bytes_at_open))
                continue
            if now - last_rx >= self._lost_after:
                raise _Lost(f"no frame for {now - last_rx:.1f} s")
            if snap_deadline is not None and now >= snap_deadline:
                self._send("GETSNAP", ())
                snap_deadline = now + SNAP_TIMEOUT
            deliveries, ask = self._seq.poll(now)
            if deliveries:
                self._deliver(deliveries)
            if ask:
                self._send("GETSNAP", ())
            self._ack_if_needed()
            if now - last_ping >= self._ping_interval:
                last_ping = now
                self._ping_token = (self._ping_token + 1) % 65536
                self._pings[self._ping_token] = now
                if len(self._pings) > 16:
                    self._pings.pop(next(iter(self._pings)))
                self._send("PING", (self._ping_token,))
            with self._wlock:
                sent = self._plan_sent_at
                if self._plan is not None and (sent is None or now - sent >= PLAN_RETRY):
                    if self._shown_gen < self._gen:
                        if sent is not None:
                            self._bump("resends")
                            LOGGER.info("plan %d not confirmed; resending", self._gen)
                            self._gen = self._gen % MAX_GEN + 1
                        self._write_plan()
        return "closed"

    # -- helpers --------------------------------------------------------------------

    def _deliver(self, events: Iterable[LinkEvent]) -> bool:
        """Call every subscriber with each event; True when every event was taken by at
        least one subscriber without raising."""
        all_taken = True
        for event in events:
            taken = False
            for callback in list(self._subscribers):
                try:
                    callback(event)
                except Exception:
                    self._bump("callback_errors")
                    LOGGER.exception("link subscriber %r failed on %r", callback, event)
                else:
                    taken = True
            all_taken &= taken
        return all_taken

    def _ack_if_needed(self) -> None:
        if self._ack_dirty and self._seq.delivered > 0:
            self._ack_dirty = False
            self._send("ACK", (self._seq.delivered,))

    def _bump(self, key: str, by: int = 1) -> None:
        with self._cond:
            self._stats[key] += by

    def _set_state(self, state: State, detail: str) -> None:
        """Record and announce a state; a new detail in the same state is announced too
        (e.g. "no board found" becoming "cannot open /dev/ttyACM0: busy")."""
        with self._cond:
            if state == self._state and detail == self._detail:
                return
            changed = state != self._state
            self._state = state
            self._detail = detail
            self._cond.notify_all()
        if changed:
            LOGGER.info("link %s: %s", state, detail)
        else:
            LOGGER.debug("link %s: %s", state, detail)
        self._deliver([LinkState(state, detail)])

    def _send_if_connected(self, kind: str, fields: tuple[int | str, ...]) -> None:
        if kind == "GETSNAP":
            self._snap_requested = True
        if self._state == "connected":
            self._send(kind, fields)

    def _send(self, kind: str, fields: tuple[int | str, ...]) -> None:
        with self._wlock:
            ser = self._ser
            if ser is None:
                return
            self._tx_seq = (self._tx_seq + 1) % 65536
            self._write_bytes(ser, wire.encode(kind, self._tx_seq, fields))

    def _write_plan(self) -> None:
        """Write the current plan as generation ``self._gen`` (caller holds _wlock)."""
        plan, ser = self._plan, self._ser
        if plan is None or ser is None:
            return
        frames = plan.frames(self._gen, seq_start=(self._tx_seq + 1) % 65536)
        self._tx_seq = (self._tx_seq + len(frames)) % 65536
        self._plan_sent_at = self._clock()
        self._bump("plans_sent")
        self._write_bytes(ser, b"".join(frames), frames=len(frames))

    def _write_bytes(self, ser: SerialLike, data: bytes, frames: int = 1) -> None:
        for tap in self._taps:
            for line in data.splitlines():
                tap("out", line)
        try:
            ser.write(data)
        except (OSError, serial.SerialException) as exc:
            # The reader notices the dead port on its next read and reopens.
            LOGGER.info("write failed: %s", exc)
            return
        with self._cond:
            self._stats["frames_out"] += frames
            self._stats["bytes_out"] += len(data)
