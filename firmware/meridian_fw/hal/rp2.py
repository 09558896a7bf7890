"""The MicroPython rp2 backend: machine.Pin, WS2812 through PIO, USB CDC on stdin/stdout.

LEDs: ``config["led_driver"]`` is ``"pio"`` (default: ``hal/ws2812_pio.py``, a PIO
state machine, interrupts stay on) or ``"neopixel"`` (the built-in bit-banging
module, interrupts off for the whole strip). "pio" falls back to neopixel when
the port has no ``rp2`` module.

Reading never blocks: ``poll.ipoll`` with a zero timeout, then
``sys.stdin.buffer.readinto`` (a bare ``read()`` can block on rp2, micropython
#16550). Writing: when the host has not opened the port, the frame is dropped
(SENSE events stay in the ring and are resent). When a host holds the port open
but stops reading, one write blocks up to the CDC timeout and may send part of a
frame; ``write`` then ends that line and drops frames until the host reads (see
``write``; measured on the emulated Pico, docs/FIRMWARE.md).
"""

import select
import sys
import time

import machine

from meridian_fw.clock import SystemClock
from meridian_fw.scan import MatrixScanner, PinColumns, ShiftRegisterScanner

_GPIO_IN = 0xD0000004  # SIO GPIO_IN: every GPIO level in one 30-bit word


class GpioColumns:
    """Column pins on consecutive GPIOs, read with one load of the GPIO input register."""

    def __init__(self, first, count):
        # type: (int, int) -> None
        self._shift = first
        self._mask = (1 << count) - 1
        self._mem32 = machine.mem32

    def read(self):
        # type: () -> int
        # Active low: a closed switch pulls its column to ground.
        return ~(self._mem32[_GPIO_IN] >> self._shift) & self._mask


def _consecutive(pins):
    for i in range(1, len(pins)):
        if pins[i] != pins[0] + i:
            return False
    return True


LED_DRIVERS = ("pio", "neopixel")


class LedDriverError(ValueError):
    """``config["led_driver"]`` names no driver this backend has."""


class _Strip:
    """A neopixel.NeoPixel whose byte buffer the renderer fills in strip order."""

    def __init__(self, pin, n):
        # type: (int, int) -> None
        import neopixel

        self._np = neopixel.NeoPixel(machine.Pin(pin), n)
        self.buf = self._np.buf

    def show(self):
        self._np.write()

    def deinit(self):
        pass


def _have_rp2():
    try:
        import rp2  # noqa: F401
    except ImportError:
        return False
    return True


class Rp2Hal:
    """The Raspberry Pi Pico under MicroPython."""

    def __init__(self, stdin=None, stdout=None):
        # The streams are parameters so tests can hand in pipes; the Pico uses USB CDC.
        stdin = sys.stdin if stdin is None else stdin
        stdout = sys.stdout if stdout is None else stdout
        self.clock = SystemClock()
        self._poll = select.poll()
        self._poll.register(stdin, select.POLLIN)
        self._out_poll = select.poll()
        self._out_poll.register(stdout, select.POLLOUT)
        self._in = getattr(stdin, "buffer", stdin)
        self._out = getattr(stdout, "buffer", stdout)
        self._rx = bytearray(1)
        self._nl = b"\n"
        self._strip = None
        self.led_driver = None  # "pio" or "neopixel" once make_strip() ran
        try:
            self._led = machine.Pin("LED", machine.Pin.OUT)
        except (TypeError, ValueError):
            self._led = machine.Pin(25, machine.Pin.OUT)

    def read_byte(self):
        # type: () -> int
        # ipoll, not poll: on the rp2 port poll() allocates a new list (32 bytes when
        # nothing is waiting) on every call, and this runs every loop iteration; ipoll
        # reuses one tuple (seen on the emulated Pico: tests/emu, bench firmware).
        for _ in self._poll.ipoll(0):
            if self._in.readinto(self._rx, 1) == 1:
                return self._rx[0]
            return -1
        return -1

    def _writable(self):
        # type: () -> bool
        for _ in self._out_poll.ipoll(0):
            return True
        return False

    def write(self, buf, n):
        # MicroPython streams take a length: write(buf, n) sends buf[0:n] without a slice.
        # POLLOUT only says one byte of USB CDC's transmit buffer is free. When a host
        # holds the port open but stops reading, a longer write waits for room until the
        # CDC timeout (about 250 ms; 500 ms and a partial frame for a frame over 64
        # bytes, seen on the emulated Pico) and returns short. Then fill the buffer with
        # line ends: the cut frame ends there (the host drops it as a bad line) and, the
        # buffer being full, POLLOUT is off, so later frames are dropped at once instead
        # of each blocking the loop again, until the host reads.
        if not self._writable():
            return
        done = self._out.write(buf, n)
        if done is None or done < n:
            self._choke()

    def _choke(self):
        nl = self._nl
        for _ in range(512):  # the buffer holds at most 320 bytes
            if not self._writable() or not self._out.write(nl, 1):
                return

    def make_scanner(self, config):
        sleep_us = self.clock.sleep_us
        if config["scanner"] == "sr165":
            sr = config["sr"]
            pins = (machine.Pin(sr["load"], machine.Pin.OUT),
                    machine.Pin(sr["clk"], machine.Pin.OUT),
                    machine.Pin(sr["data"], machine.Pin.IN, machine.Pin.PULL_UP))
            if sr["clk"] < 30 and sr["data"] < 30:
                # Its own module: boards without a 74HC165 chain never load it.
                from meridian_fw.hal.rp2_sr import GpioShiftRegister
                return GpioShiftRegister(pins[0], pins[1], pins[2], sr["bits"], config["rows"],
                                         config["cols"], sleep_us, sr["clk"], sr["data"])
            return ShiftRegisterScanner(pins[0], pins[1], pins[2], sr["bits"], config["rows"],
                                        config["cols"], sleep_us)
        rows = [machine.Pin(p, machine.Pin.OUT, value=1) for p in config["row_pins"]]
        col_pins = config["col_pins"]
        cols = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in col_pins]
        if _consecutive(col_pins) and col_pins[-1] < 30:
            read = GpioColumns(col_pins[0], len(col_pins)).read
        else:
            read = PinColumns(cols).read
        return MatrixScanner(rows, len(col_pins), read, config["settle_us"], sleep_us)

    def make_strip(self, config):
        """The strip: PIO unless config says "neopixel" or the port has no rp2 module."""
        driver = config.get("led_driver", "pio")
        if driver not in LED_DRIVERS:
            raise LedDriverError("led_driver %r: use \"pio\" or \"neopixel\"" % (driver,))
        if driver == "pio" and _have_rp2():
            from meridian_fw.hal.ws2812_pio import PioStrip
            strip = PioStrip(config["led_pin"], config["leds"],
                             self.clock.sleep_us)  # type: PioStrip | _Strip
        else:
            driver = "neopixel"
            strip = _Strip(config["led_pin"], config["leds"])
        self._strip = strip
        self.led_driver = driver
        return strip

    def status_led(self, on):
        # type: (bool) -> None
        self._led.value(1 if on else 0)

    def boot_id(self):
        # type: () -> int
        import os
        b = os.urandom(4)
        return (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]

    def idle(self, ms):
        # type: (int) -> None
        time.sleep_ms(ms)

    def deinit(self):
        self._led.value(0)
        if self._strip is not None:
            self._strip.deinit()  # PIO: frees the state machine and its program
            self._strip = None
