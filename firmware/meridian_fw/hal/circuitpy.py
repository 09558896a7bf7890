"""The CircuitPython backend: keypad (or digitalio) scanning, the Adafruit neopixel
library, usb_cdc.

Scanning: ``keypad.KeyMatrix`` (``hal/cpkeys.py``), CircuitPython's own background
scanner with its debounce in C, whose events become the same row masks and SENSE
events as any scan; ``config["cp_scanner"] = "digitalio"`` (or a build without
``keypad``) keeps the portable pin-by-pin ``digitalio`` scanner. 74HC165 chains
(``"sr165"``) always use digitalio.

The renderer fills a strip-order byte buffer (``leds.order_offsets`` is the one
place that knows GRB). The Adafruit driver is therefore created with
``pixel_order=RGB`` and brightness 1.0, so it passes those bytes through unchanged.
The link goes over ``usb_cdc.data``, the second USB serial port, enabled in
``boot.py`` with ``usb_cdc.enable(console=True, data=True)``; without it, over
``usb_cdc.console``.
"""

import board
import digitalio
import neopixel
import usb_cdc

from meridian_fw.clock import PeriodClock
from meridian_fw.scan import MatrixScanner, PinColumns, ShiftRegisterScanner

try:
    import supervisor
except ImportError:  # CPython test runs provide time-based stand-ins
    supervisor = None  # type: ignore[assignment]


def _have_keypad():
    try:
        import keypad  # noqa: F401
    except ImportError:
        return False
    return True


def board_pin(n):
    """The ``board`` pin for GPIO number n (``board.GP<n>`` on RP2040 boards)."""
    name = "GP" + str(n)
    pin = getattr(board, name, None)
    if pin is None:
        raise ValueError("board has no pin " + name + "; use GPIO numbers the board names")
    return pin


class _OutPin:
    """A digitalio output with MicroPython's ``value(v)`` call shape."""

    def __init__(self, n):
        self._io = digitalio.DigitalInOut(board_pin(n))
        self._io.switch_to_output(value=True)

    def value(self, v=None):
        if v is None:
            return self._io.value
        self._io.value = bool(v)
        return None

    def deinit(self):
        self._io.deinit()


class _InPin:
    def __init__(self, n):
        self._io = digitalio.DigitalInOut(board_pin(n))
        self._io.switch_to_input(pull=digitalio.Pull.UP)

    def value(self):
        return 1 if self._io.value else 0

    def deinit(self):
        self._io.deinit()


class _Clock(PeriodClock):
    """supervisor.ticks_ms wraps at 2**29 ms on CircuitPython."""

    def __init__(self, ticks_ms, sleep):
        PeriodClock.__init__(self, 1 << 29)
        self._ticks = ticks_ms
        self._sleep = sleep

    def ticks_ms(self):
        return self._ticks() & self._mask

    def ticks_us(self):
        return (self._ticks() * 1000) & self._mask

    def sleep_ms(self, ms):
        if ms > 0:
            self._sleep(ms / 1000)

    def sleep_us(self, us):
        if us > 0:
            self._sleep(us / 1000000)


class _Strip:
    """The Adafruit NeoPixel driver fed with the renderer's strip-order bytes."""

    def __init__(self, pin, n):
        self._px = neopixel.NeoPixel(board_pin(pin), n, brightness=1.0, auto_write=False,
                                     pixel_order=neopixel.RGB)
        self.buf = bytearray(3 * n)
        self._n = n

    def show(self):
        buf = self.buf
        px = self._px
        for i in range(self._n):
            j = 3 * i
            px[i] = (buf[j], buf[j + 1], buf[j + 2])
        px.show()

    def deinit(self):
        self._px.deinit()


class CircuitPyHal:
    """A board running CircuitPython (RP2040 boards name their pins GP0..GP29)."""

    def __init__(self, serial=None, ticks_ms=None, sleep=None):
        import time
        if ticks_ms is None:
            ticks_ms = supervisor.ticks_ms if supervisor is not None else (
                lambda: int(time.monotonic() * 1000))
        self.clock = _Clock(ticks_ms, sleep if sleep is not None else time.sleep)
        if serial is None:
            serial = usb_cdc.data if usb_cdc.data is not None else usb_cdc.console
        self._serial = serial
        serial.timeout = 0
        try:
            serial.write_timeout = 0
        except AttributeError:
            pass
        self._led = None
        self._parts = []
        self.scanner_kind = None  # "keypad" or "digitalio" once make_scanner() ran
        led = getattr(board, "LED", None)
        if led is not None:
            self._led = digitalio.DigitalInOut(led)
            self._led.switch_to_output(value=False)

    def read_byte(self):
        s = self._serial
        if not s.in_waiting:
            return -1
        b = s.read(1)
        if not b:
            return -1
        return b[0]

    def write(self, buf, n):
        if getattr(self._serial, "connected", True):
            self._serial.write(memoryview(buf)[0:n])

    def make_scanner(self, config):
        sleep_us = self.clock.sleep_us
        which = config.get("cp_scanner", "keypad")
        if which not in ("keypad", "digitalio"):
            raise ValueError("cp_scanner %r: use \"keypad\" or \"digitalio\"" % (which,))
        if config["scanner"] == "matrix" and which == "keypad" and _have_keypad():
            from meridian_fw.hal.cpkeys import KeypadScanner
            scanner = KeypadScanner([board_pin(p) for p in config["row_pins"]],
                                    [board_pin(p) for p in config["col_pins"]],
                                    config["scan_period_ms"], config["debounce_scans"])
            self._parts.append(scanner)
            self.scanner_kind = "keypad"
            return scanner
        self.scanner_kind = "digitalio"
        if config["scanner"] == "sr165":
            sr = config["sr"]
            load = _OutPin(sr["load"])
            clk = _OutPin(sr["clk"])
            data = _InPin(sr["data"])
            self._parts.extend((load, clk, data))
            return ShiftRegisterScanner(load, clk, data, sr["bits"], config["rows"],
                                        config["cols"], sleep_us)
        rows = [_OutPin(p) for p in config["row_pins"]]
        cols = [_InPin(p) for p in config["col_pins"]]
        self._parts.extend(rows)
        self._parts.extend(cols)
        return MatrixScanner(rows, len(cols), PinColumns(cols).read, config["settle_us"],
                             sleep_us)

    def make_strip(self, config):
        strip = _Strip(config["led_pin"], config["leds"])
        self._parts.append(strip)
        return strip

    def status_led(self, on):
        if self._led is not None:
            self._led.value = bool(on)

    def boot_id(self):
        import os
        b = os.urandom(4)
        return (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]

    def idle(self, ms):
        self.clock.sleep_ms(ms)

    def deinit(self):
        for part in self._parts:
            part.deinit()
        self._parts = []
        if self._led is not None:
            self._led.deinit()
            self._led = None
