"""A scripted stand-in for the Pico, for testing the link's protocol logic without a port.

``FakeBoard`` speaks the wire protocol the way docs/PROTOCOL.md says the firmware
does (HELLO + SNAP on WHO, a ring of unacknowledged SENSE events resent every 250 ms,
BEAT every second, PLAN/PIX/SHOW staging, PONG, STATS, BYE) and lets a test misbehave
on purpose: unplug and replug, reset with a new boot nonce, stall, lose frames,
overflow the ring, inject garbage, speak another protocol version, or override the
reply to any frame type (like python-chess's ``MockTransport``)::

    board = FakeBoard(rows=2, cols=4, leds=8)
    with Link(board.find_port, opener=board.open) as link:
        link.wait_connected()
        board.toggle(3)

It is a fake of the *board*, not of the firmware: the real firmware is exercised
through ``meridian_table.sim.VirtualBoard``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import serial

from meridian_fw import wire
from meridian_table.link.sequencer import is_ahead, next_seq

LOGGER = logging.getLogger(__name__)

Reply = Callable[[wire.Frame], "list[bytes] | None"]


class FakeSerial:
    """One open connection to a FakeBoard (what ``serial.Serial`` is to a real port)."""

    def __init__(self, board: FakeBoard, timeout: float) -> None:
        self._board = board
        self.timeout = timeout
        self.is_open = True

    @property
    def in_waiting(self) -> int:
        board = self._board
        with board._cond:
            board._check_alive(self)
            board._tick()
            return len(board._out)

    def read(self, size: int = 1) -> bytes:
        board = self._board
        deadline = time.monotonic() + self.timeout
        with board._cond:
            while True:
                board._check_alive(self)
                board._tick()
                if board._out:
                    data = bytes(board._out[:size])
                    del board._out[:size]
                    return data
                left = deadline - time.monotonic()
                if left <= 0 or not self.is_open:
                    return b""
                board._cond.wait(min(left, 0.05))

    def write(self, data: bytes, /) -> int:
        board = self._board
        with board._cond:
            board._check_alive(self)
            board._receive(data)
        return len(data)

    def cancel_read(self) -> None:
        with self._board._cond:
            self._board._cond.notify_all()

    def close(self) -> None:
        with self._board._cond:
            self.is_open = False
            if self._board._conn is self:
                self._board._conn = None
            self._board._cond.notify_all()


class FakeBoard:
    """A protocol-level fake Pico; see the module docstring."""

    def __init__(
        self,
        rows: int = 2,
        cols: int = 4,
        leds: int = 8,
        *,
        board: str = "fake",
        fw: str = "0.1.0",
        proto: int = wire.PROTOCOL_VERSION,
        caps: str = "sense,plan,snap",
        boot: str = "00C0FFEE",
        ring_size: int = 32,
        resend_after: float = 0.25,
        beat_every: float = 1.0,
        read_timeout: float = 0.05,
    ) -> None:
        self.rows, self.cols, self.leds = rows, cols, leds
        self.board, self.fw, self.proto, self.caps = board, fw, proto, caps
        self.boot = boot
        self.ring_size = ring_size
        self.resend_after = resend_after
        self.beat_every = beat_every
        self.read_timeout = read_timeout
        self.port = f"fake://{board}"
        self.plugged = True
        self.stalled = False
        self.closed: set[int] = set()
        self.seq = 0
        self.shown_gen = 0
        self.shown: list[str] = ["000000O"] * leds  # palette token per LED as shown
        self.brightness = 64
        self.received: list[wire.Frame] = []
        self.script: dict[str, Reply] = {}
        self.overflows = 0
        self._cond = threading.Condition()
        self._conn: FakeSerial | None = None
        self._out = bytearray()
        self._inbuf = bytearray()
        self._ring: OrderedDict[int, list[float | bytes]] = OrderedDict()
        self._drop: dict[str, int] = {}
        self._tx = 0
        self._last_beat = time.monotonic()
        self._started = time.monotonic()
        self._staged: dict[str, object] = {}

    # -- the host's side: finding and opening ------------------------------------------

    def find_port(self) -> str | None:
        """The port name while plugged in, else None (pass as ``Link(port=...)``)."""
        return self.port if self.plugged else None

    def open(self, url: str) -> FakeSerial:
        """The opener for ``Link(opener=...)``."""
        with self._cond:
            if url != self.port or not self.plugged:
                raise serial.SerialException(f"could not open port {url!r}: no such device")
            if self._conn is not None:
                raise serial.SerialException(f"could not open port {url!r}: busy")
            self._conn = FakeSerial(self, self.read_timeout)
            self._out.clear()
            self._inbuf.clear()
            return self._conn

    # -- the test's side: doing things to the board --------------------------------------

    def set_switch(self, pos: int, closed: bool) -> int:
        """Close or open a switch; queues and sends a SENSE event. Returns its seq (0: no change)."""
        if not 0 <= pos < self.rows * self.cols:
            raise ValueError(f"matrix position {pos} is outside 0..{self.rows * self.cols - 1}")
        with self._cond:
            if (pos in self.closed) == closed:
                return 0
            if closed:
                self.closed.add(pos)
            else:
                self.closed.discard(pos)
            self.seq = next_seq(self.seq)
            ms = int((time.monotonic() - self._started) * 1000) % (1 << 30)
            line = wire.encode("SENSE", self.seq, (ms, pos, 1 if closed else 0))
            if len(self._ring) >= self.ring_size:
                dropped = len(self._ring)
                self._ring.clear()
                self.overflows += 1
                self._emit(wire.encode("FAULT", self._next_tx(), ("OVERFLOW", dropped)))
                self._emit(self._snap())
            else:
                self._ring[self.seq] = [time.monotonic(), line]
                self._emit(line)
            return self.seq

    def toggle(self, pos: int) -> int:
        return self.set_switch(pos, pos not in self.closed)

    def unplug(self) -> None:
        """Pull the cable: the open connection fails, the port disappears."""
        with self._cond:
            self.plugged = False
            self._conn = None  # that connection is dead even if the cable comes back
            self._cond.notify_all()

    def replug(self) -> None:
        with self._cond:
            self.plugged = True

    def reset(self, boot: str | None = None) -> None:
        """A Pico reset: new boot nonce, events restart at 1, the ring and plan are gone.

        The switches keep their state (magnets do not move when the Pico resets)."""
        with self._cond:
            self.boot = boot or f"{(int(self.boot, 16) + 1) & 0xFFFFFFFF:08X}"
            self.seq = 0
            self._ring.clear()
            self.shown_gen = 0
            self.shown = ["000000O"] * self.leds
            self._emit(self._hello())

    def stall(self, stalled: bool = True) -> None:
        """While stalled the board neither answers nor sends (a hung link)."""
        with self._cond:
            self.stalled = stalled

    def inject(self, data: bytes) -> None:
        """Put raw bytes on the line towards the host."""
        with self._cond:
            self._out.extend(data)
            self._cond.notify_all()

    def drop(self, kind: str, count: int = 1) -> None:
        """Lose the next ``count`` outgoing frames of type ``kind`` (first sends and resends)."""
        with self._cond:
            self._drop[kind] = self._drop.get(kind, 0) + count

    def received_types(self) -> list[str]:
        with self._cond:
            return [f.type for f in self.received]

    @property
    def unacked(self) -> list[int]:
        with self._cond:
            return list(self._ring)

    # -- internals (called with _cond held) ---------------------------------------------

    def _check_alive(self, conn: FakeSerial) -> None:
        if not self.plugged or self._conn is not conn or not conn.is_open:
            raise serial.SerialException("device reports readiness to read but returned no data")

    def _next_tx(self) -> int:
        self._tx = (self._tx + 1) % 65536
        return self._tx

    def _emit(self, line: bytes) -> None:
        kind = line.split(b" ", 1)[0].decode()
        if self._drop.get(kind, 0) > 0:
            self._drop[kind] -= 1
            return
        if self._conn is None or not self.plugged or self.stalled:
            return  # USB CDC with no host: output is dropped, never blocks
        self._out.extend(line)
        self._cond.notify_all()

    def _hello(self) -> bytes:
        return wire.encode(
            "HELLO",
            self._next_tx(),
            (self.proto, self.fw, self.board, self.rows, self.cols, self.leds, self.caps, self.boot),
        )

    def _snap(self) -> bytes:
        masks = []
        for row in range(self.rows):
            mask = 0
            for col in range(self.cols):
                if row * self.cols + col in self.closed:
                    mask |= 1 << col
            masks.append(f"{mask:X}")
        return wire.encode("SNAP", self._next_tx(), (self.seq, self.rows, *masks))

    def _tick(self) -> None:
        if self.stalled:
            return
        now = time.monotonic()
        for entry in self._ring.values():
            sent = entry[0]
            if isinstance(sent, float) and now - sent >= self.resend_after:
                entry[0] = now
                line = entry[1]
                if isinstance(line, bytes):
                    self._emit(line)
        if now - self._last_beat >= self.beat_every:
            self._last_beat = now
            self._emit(
                wire.encode("BEAT", self._next_tx(), (int(now - self._started), len(self._ring)))
            )

    def _receive(self, data: bytes) -> None:
        self._inbuf.extend(data)
        while True:
            nl = self._inbuf.find(b"\n")
            if nl < 0:
                return
            line = bytes(self._inbuf[:nl])
            del self._inbuf[: nl + 1]
            try:
                frame = wire.decode(line)
            except wire.FrameError:
                continue
            self.received.append(frame)
            if self.stalled:
                continue
            custom = self.script.get(frame.type)
            if custom is not None:
                replies = custom(frame)
                if replies is not None:
                    for reply in replies:
                        self._emit(reply)
                    continue
            self._answer(frame)

    def _answer(self, frame: wire.Frame) -> None:
        kind, fields = frame.type, frame.fields
        if kind == "WHO":
            self._emit(self._hello())
            if self.proto == wire.PROTOCOL_VERSION:
                self._emit(self._snap())
        elif kind == "ACK":
            upto = int(fields[0])
            for seq in list(self._ring):
                if not is_ahead(upto, seq):
                    del self._ring[seq]
        elif kind == "GETSNAP":
            self._emit(self._snap())
        elif kind == "PING":
            self._emit(wire.encode("PONG", self._next_tx(), (fields[0],)))
        elif kind == "PLAN":
            self._staged = {
                "gen": int(fields[0]),
                "n": int(fields[1]),
                "palette": fields[2].split(","),
                "idx": [None] * int(fields[1]),
            }
        elif kind == "PIX":
            idx = self._staged.get("idx")
            if self._staged.get("gen") == int(fields[0]) and isinstance(idx, list):
                start = int(fields[1])
                for offset, digit in enumerate(fields[2]):
                    if start + offset < len(idx):
                        idx[start + offset] = int(digit, 16)
        elif kind == "SHOW":
            self._show(int(fields[0]))
        elif kind == "BRIGHT":
            self.brightness = int(fields[0])
        elif kind == "STATS":
            self._emit(wire.encode("STATS", self._next_tx(), (f"rx={len(self.received)}",)))
        elif kind == "REPL":
            self._emit(wire.encode("BYE", self._next_tx(), ("repl",)))

    def _show(self, gen: int) -> None:
        idx = self._staged.get("idx")
        palette = self._staged.get("palette")
        if self._staged.get("gen") != gen or not isinstance(idx, list) or None in idx:
            self._emit(wire.encode("NAK", self._next_tx(), ("PLAN", gen, "incomplete")))
            return
        if gen <= self.shown_gen or not isinstance(palette, list):
            return
        self.shown_gen = gen
        self.shown = [palette[i] for i in idx]
        self._emit(wire.encode("SHOWN", self._next_tx(), (gen,)))
