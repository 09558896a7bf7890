"""The frames a board sends, read: the link's half that turns a decoded line into
events, state and counters (HELLO, SENSE, SNAP, BEAT, PONG, SHOWN, NAK, STATS, FAULT, BYE).

:class:`FrameHandler` is a mixin of :class:`meridian_table.link.link.Link`: it reads and
changes the link's state (declared here) under the link's locks, and calls back into
the link for what it shares with the rest of it (sending, counting, announcing).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from meridian_fw import wire
from meridian_table import __version__ as HOST_VERSION
from meridian_table.ledplan import LedPlan
from meridian_table.link import fields as grammar
from meridian_table.link.events import BoardFault, Hello, LinkEvent, SenseEvent, Snapshot, State
from meridian_table.link.sequencer import Sequencer

LOGGER = logging.getLogger(__name__)

MAX_GEN = (1 << 30) - 1  # plan generations stay small ints on the RP2040
T_MS_MAX = (1 << 30) - 1  # SENSE times are ticks_ms modulo 2**30


class SerialLike(Protocol):
    """The part of ``serial.Serial`` the link uses (a fake board implements it too)."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


Opener = Callable[[str], SerialLike]
PortSpec = str | Callable[[], "str | None"]
Subscriber = Callable[[LinkEvent], None]
Tap = Callable[[str, bytes], None]


def mismatch_message(board_proto: int, board_fw: str, port: str) -> str:
    """The words for a protocol-version mismatch: which side to update, and how."""
    host = wire.PROTOCOL_VERSION
    if board_proto < host:
        return (
            f"the board on {port} runs firmware {board_fw} speaking protocol {board_proto}, "
            f"but meridian-table {HOST_VERSION} speaks protocol {host}: update the board's "
            f"firmware with `meridian-table flash --port {port}`"
        )
    return (
        f"the board on {port} runs firmware {board_fw} speaking protocol {board_proto}, "
        f"but meridian-table {HOST_VERSION} only speaks protocol {host}: upgrade the host "
        f"package (`pip install --upgrade meridian-table`) or flash the firmware that "
        f"ships with this host (`meridian-table flash --port {port}`)"
    )


def _closed_from_masks(rows: int, cols: int, masks: list[str]) -> frozenset[int]:
    """The closed positions of a SNAP's row masks; raises ValueError unless there is one
    upper-case hex mask per row with no bit beyond the last column."""
    if len(masks) != rows:
        raise ValueError(f"SNAP has {len(masks)} row masks for a board of {rows} rows")
    closed: set[int] = set()
    for row, text in enumerate(masks):
        mask = grammar.hex_mask(text, f"SNAP row {row} mask", cols)
        closed.update(row * cols + col for col in range(cols) if mask >> col & 1)
    return frozenset(closed)


def _sense_event(seq: int, fields: list[str], hello: Hello) -> SenseEvent:
    """A SENSE frame's event; raises ValueError for a field the firmware cannot send."""
    if len(fields) != 3:
        raise ValueError(f"SENSE needs 3 fields (t pos st), got {len(fields)}")
    if seq == 0:
        raise ValueError("SENSE event number 0 is never used")
    t_ms = grammar.dec(fields[0], "SENSE time", T_MS_MAX)
    pos = grammar.dec(fields[1], "SENSE position", hello.rows * hello.cols - 1)
    return SenseEvent(seq, t_ms, pos, grammar.flag(fields[2], "SENSE state"))


_STAT_KEY = re.compile(r"[a-z_]{1,16}")


def _board_counters(fields: list[str]) -> dict[str, str]:
    """A STATS frame's ``key=value`` counters; raises ValueError for any other field."""
    out: dict[str, str] = {}
    for text in fields:
        key, eq, value = text.partition("=")
        if not eq or _STAT_KEY.fullmatch(key) is None:
            raise ValueError(f"STATS field {text!r} is not key=value")
        out[key] = str(grammar.dec(value, f"STATS {key}", (1 << 32) - 1))
    return out


class _Lost(Exception):
    """Internal: the current port is gone or silent; reopen."""


class FrameHandler:
    """Reads the board's frames into the link's state (a mixin of ``Link``)."""

    # The link's state this half reads and changes (set in Link.__init__).
    _taps: list[Tap]
    _stats: dict[str, Any]
    _hello: Hello | None
    _seq: Sequencer
    _ack_dirty: bool
    _snap_requested: bool
    _board_pending: int
    _pings: dict[int, float]
    _board_stats: dict[str, str]
    _wlock: threading.RLock
    _cond: threading.Condition
    _plan_sent_at: float | None
    _shown_gen: int
    _plan: LedPlan | None
    _gen: int
    _state: State
    _brightness: int | None
    _nak_streak: int

    # What it calls back (Link defines them).
    def _bump(self, key: str, by: int = 1) -> None:
        raise NotImplementedError

    def _deliver(self, events: Iterable[LinkEvent]) -> bool:
        raise NotImplementedError

    def _set_state(self, state: State, detail: str) -> None:
        raise NotImplementedError

    def _send(self, kind: str, fields: tuple[int | str, ...]) -> None:
        raise NotImplementedError

    def _write_plan(self) -> None:
        raise NotImplementedError

    def _decode(self, line: bytes) -> wire.Frame | None:
        for tap in self._taps:
            tap("in", line)
        try:
            frame = wire.decode(line)
        except wire.FrameError as exc:
            if exc.code == wire.ERR_EMPTY:
                return None
            self._bump("crc_errors" if exc.code == wire.ERR_CRC else "garbage")
            LOGGER.debug("dropped line: %s", exc)
            return None
        self._stats["frames_in"] += 1
        return frame

    def _handle(self, frame: wire.Frame, port: str, now: float, connected: bool) -> str:
        kind, fields = frame.type, frame.fields
        try:
            if kind == "HELLO":
                return self._on_hello(fields, port, now)
            if not connected:
                return ""  # nothing means anything before we know which boot this is
            hello = self._hello
            if hello is None:
                return ""
            if kind == "SENSE":
                event = _sense_event(frame.seq, fields, hello)
                self._deliver(self._seq.sense(event, now))
                self._ack_dirty = True
            elif kind == "SNAP":
                if len(fields) < 2:
                    raise ValueError("SNAP needs its last event number and its row count")
                last = grammar.dec(fields[0], "SNAP last event", wire.MAX_SEQ)
                rows = grammar.dec(fields[1], "SNAP rows", hello.rows, hello.rows)
                closed = _closed_from_masks(rows, hello.cols, fields[2:])
                reason = "request" if self._snap_requested else "reconnect"
                self._snap_requested = False
                self._deliver(self._seq.snapshot(Snapshot(last, closed, reason), now))
                self._ack_dirty = True
                return "snap"
            elif kind == "BEAT":
                self._board_pending = grammar.dec(fields[1], "BEAT pending", wire.MAX_SEQ)
            elif kind == "PONG":
                token = grammar.dec(fields[0], "PONG token", wire.MAX_SEQ)
                sent = self._pings.pop(token, None)
                if sent is not None:
                    self._stats["last_rtt_ms"] = round((now - sent) * 1000, 3)
            elif kind == "SHOWN":
                self._on_shown(grammar.dec(fields[0], "SHOWN generation", MAX_GEN), now)
            elif kind == "NAK":
                self._on_nak(fields)
            elif kind == "STATS":
                self._board_stats = _board_counters(fields)
            elif kind == "FAULT":
                self._bump("faults")
                code = fields[0] if fields else "?"
                if code == "OVERFLOW":
                    self._seq.overflow()
                taken = self._deliver([BoardFault(code, tuple(fields[1:]))])
                # A subscriber that took the fault (the table, the monitor) words it for
                # people, naming the profile's sites; the raw frame is then only a debug
                # line. With nobody to take it the link's own warning is all there is.
                level = logging.DEBUG if taken else logging.WARNING
                LOGGER.log(level, "board fault: %s", " ".join(fields))
            elif kind == "BYE":
                raise _Lost(f"the board left its loop ({' '.join(fields) or 'BYE'})")
            else:
                LOGGER.debug("ignored frame %r", frame)
        except (ValueError, IndexError) as exc:
            # CRC-valid but not what the firmware sends: drop it, count it, say why.
            self._bump("bad_frames")
            LOGGER.warning("malformed %s frame %r: %s", kind, fields, exc)
        return ""

    def _on_hello(self, fields: list[str], port: str, now: float) -> str:
        try:
            proto = grammar.dec(fields[0], "HELLO protocol", wire.MAX_SEQ)
        except (ValueError, IndexError):
            raise _Lost(f"HELLO without a protocol version: {fields!r}") from None
        if proto != wire.PROTOCOL_VERSION:
            fw = fields[1] if len(fields) > 1 else "?"
            message = mismatch_message(proto, fw, port)
            LOGGER.error("%s", message)
            self._set_state("version-mismatch", message)
            return "mismatch"
        hello = Hello.from_fields(fields)
        reset = self._seq.hello(hello.boot)
        self._hello = hello
        with self._wlock:
            # Resend the plan on every (re)connect: the board showed "no host" meanwhile,
            # or was reset and shows nothing. A new generation makes it newer than any
            # plan the board has shown.
            self._plan_sent_at = None
            if reset:
                self._shown_gen = 0
            if self._plan is not None:
                self._gen = self._gen % MAX_GEN + 1
        if self._state != "connected":
            self._set_state(
                "connected",
                f"{hello.board} (firmware {hello.fw}, {hello.rows}x{hello.cols}, "
                f"{hello.leds} LEDs) on {port}",
            )
        if self._brightness is not None:
            self._send("BRIGHT", (self._brightness,))
        if self._plan is not None and len(self._plan) != hello.leds:
            LOGGER.error(
                "current LED plan has %d LEDs but board %r has %d; not sent",
                len(self._plan),
                hello.board,
                hello.leds,
            )
            self._plan = None
        return "hello"

    def _on_shown(self, gen: int, now: float) -> None:
        with self._cond:
            if gen > self._shown_gen:
                self._shown_gen = gen
                self._nak_streak = 0
                self._stats["plans_shown"] += 1
            sent = self._plan_sent_at
            if gen == self._gen and sent is not None:
                self._stats["last_plan_rtt_ms"] = round((now - sent) * 1000, 3)
            self._cond.notify_all()

    def _on_nak(self, fields: list[str]) -> None:
        self._bump("naks")
        LOGGER.warning("board refused: %s", " ".join(fields))
        if len(fields) >= 2 and fields[0] == "PLAN":
            with self._wlock:
                gen = grammar.dec(fields[1], "NAK PLAN generation", MAX_GEN)
                if gen == self._gen and self._plan is not None:
                    self._nak_streak += 1
                    if self._nak_streak == 1:
                        self._bump("resends")
                        self._gen = self._gen % MAX_GEN + 1
                        self._write_plan()
                    # Refused again: leave it to the PLAN_RETRY timer rather than flood.


__all__ = ["MAX_GEN", "T_MS_MAX", "FrameHandler", "Opener", "PortSpec", "SerialLike", "Subscriber",
           "Tap", "mismatch_message"]
