"""Helpers shared by the firmware tests (MicroPython and CPython alike)."""

import sys

from meridian_fw import wire
from meridian_fw.app import App
from meridian_fw.clock import FakeClock
from meridian_fw.hal.sim import SimHal

MICROPYTHON = sys.implementation.name == "micropython"
WRAP = 1 << 30
NEAR_WRAP = WRAP - 40   # fake clocks start 40 ms before ticks_ms wraps, as on the RP2040


class FakeSerial:
    """In-memory serial: ``feed()`` queues host bytes, ``frames()`` decodes what was written."""

    def __init__(self):
        self.inbox = bytearray(4096)
        self._head = 0
        self._tail = 0
        self.out = bytearray()

    def feed(self, data):
        for b in data:
            self.inbox[self._tail] = b
            self._tail = (self._tail + 1) % len(self.inbox)

    def send(self, ftype, seq, fields=()):
        self.feed(wire.encode(ftype, seq, fields))

    def read_byte(self):
        if self._head == self._tail:
            return -1
        b = self.inbox[self._head]
        self._head = (self._head + 1) % len(self.inbox)
        return b

    def write(self, buf):
        self.out.extend(buf)

    def frames(self, ftype=None):
        """Decode and clear everything written so far; only ``ftype`` when given."""
        data = bytes(self.out)
        self.out = bytearray()
        out = []
        for line in data.split(b"\n"):
            if line:
                f = wire.decode(line)
                if ftype is None or f.type == ftype:
                    out.append(f)
        return out


def config(**changes):
    cfg = {
        "board": "test-12",
        "scanner": "matrix",
        "rows": 12,
        "cols": 12,
        "row_pins": list(range(12)),
        "col_pins": list(range(12, 24)),
        "led_pin": 28,
        "leds": 20,
        "debounce_scans": 4,
        "scan_period_ms": 2,
    }
    for k in changes:
        cfg[k] = changes[k]
    return cfg


def make_app(cfg=None, start=NEAR_WRAP, problem=None):
    """(app, hal, serial, clock) for a simulated board whose clock is about to wrap."""
    if cfg is None:
        cfg = config()
    clock = FakeClock(start=start)
    ser = FakeSerial()
    hal = SimHal(cfg, ser, clock)
    app = App(hal, cfg, problem)
    return app, hal, ser, clock


def run_ms(app, clock, ms):
    """Step the app once per simulated millisecond."""
    for _ in range(ms):
        app.step()
        clock.advance(1)


def senses(ser):
    """(seq, pos, closed) for every SENSE written so far."""
    return [(f.seq, int(f.fields[1]), f.fields[2] == "1") for f in ser.frames("SENSE")]


def ack_all(app, ser):
    ser.send("ACK", 1, [app.link.last_seq])
