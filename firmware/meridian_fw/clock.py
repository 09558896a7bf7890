"""Tick clocks with an explicit wrap period.

Every time difference in the firmware goes through ``clock.ticks_diff`` and every
deadline through ``clock.ticks_add``, so code tested with a fake clock that wraps at
2**30 (the RP2040's ticks_ms period) behaves the same on the board.

A clock object offers: ``ticks_ms()``, ``ticks_us()``, ``ticks_diff(a, b)``,
``ticks_add(t, delta)``, ``sleep_ms(ms)`` and ``sleep_us(us)``.
"""

import time

RP2040_PERIOD = 1 << 30


class PeriodClock:
    """Tick arithmetic for a counter that wraps at ``period`` (a power of two)."""

    def __init__(self, period=RP2040_PERIOD):
        if period < 4 or period & (period - 1):
            raise ValueError("clock period must be a power of two, got " + repr(period))
        self.period = period
        self._mask = period - 1
        self._half = period >> 1

    def ticks_diff(self, a, b):
        """Signed a - b, correct across one wrap (|a - b| < period / 2)."""
        return ((a - b + self._half) & self._mask) - self._half

    def ticks_add(self, t, delta):
        return (t + delta) & self._mask


class FakeClock(PeriodClock):
    """A clock the caller moves by hand. Sleeping advances it; nothing blocks.

    Tests start it just before the wrap: ``FakeClock(start=(1 << 30) - 50)``.
    """

    def __init__(self, start=0, period=RP2040_PERIOD):
        PeriodClock.__init__(self, period)
        self._ms = start & self._mask
        self._us = 0  # microseconds past the current millisecond

    def ticks_ms(self):
        return self._ms

    def ticks_us(self):
        # Microseconds share the period, good enough for settle delays in tests.
        return ((self._ms * 1000) + self._us) & self._mask

    def advance(self, ms):
        self._ms = (self._ms + ms) & self._mask

    def advance_us(self, us):
        us += self._us
        self._ms = (self._ms + us // 1000) & self._mask
        self._us = us % 1000

    def sleep_ms(self, ms):
        if ms > 0:
            self.advance(ms)

    def sleep_us(self, us):
        if us > 0:
            self.advance_us(us)


class SystemClock(PeriodClock):
    """The machine's own clock: ``time.ticks_*`` on MicroPython, else a monotonic emulation."""

    def __init__(self):
        if hasattr(time, "ticks_ms"):
            # MicroPython: the port's own period. ticks_add(0, -1) is period - 1.
            # The port's own functions replace the methods: one call, no Python frame.
            # (The stubs type ticks as a private class and CircuitPython's time has no
            # ticks_*: hasattr guards this branch, which mypy cannot see.)
            period = time.ticks_add(0, -1) + 1  # type: ignore[attr-defined, type-var, unused-ignore]
            PeriodClock.__init__(self, period)
            self.ticks_ms = time.ticks_ms  # type: ignore[attr-defined, method-assign, unused-ignore]
            self.ticks_us = time.ticks_us  # type: ignore[attr-defined, method-assign, unused-ignore]
            self.ticks_diff = time.ticks_diff  # type: ignore[attr-defined, method-assign, unused-ignore]
            self.ticks_add = time.ticks_add  # type: ignore[attr-defined, method-assign, unused-ignore]
            self.sleep_ms = time.sleep_ms  # type: ignore[attr-defined, method-assign, unused-ignore]
            self.sleep_us = time.sleep_us  # type: ignore[attr-defined, method-assign, unused-ignore]
        else:
            # CPython (in-process virtual board): RP2040's period, so wraps behave alike.
            PeriodClock.__init__(self, RP2040_PERIOD)

    def ticks_ms(self):
        return int(time.monotonic() * 1000) & self._mask  # type: ignore[attr-defined, unused-ignore]  # CPython only

    def ticks_us(self):
        return int(time.monotonic() * 1000000) & self._mask  # type: ignore[attr-defined, unused-ignore]  # CPython only

    def sleep_ms(self, ms):
        if ms > 0:
            time.sleep(ms / 1000)

    def sleep_us(self, us):
        if us > 0:
            time.sleep(us / 1000000)
