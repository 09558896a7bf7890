"""The simulated HAL: a switch matrix in memory, an LED strip in memory, any serial.

Used by the tests and by the virtual board (host/meridian_table/sim). It imports
nothing from the host. ``serial`` is any object with ``read_byte() -> int`` (-1
when nothing is waiting; never blocks) and ``write(buf) -> None`` (never blocks).

    hal = SimHal(config, serial, clock=None)
    hal.set_switch(row, col, closed); hal.set_pos(pos, closed)
    hal.frame()      # last rendered LED frame as [(r, g, b), ...], after brightness and limiter
    hal.frames       # number of frames rendered so far
"""

from meridian_fw.clock import SystemClock
from meridian_fw.leds import order_offsets
from meridian_fw.scan import MatrixScanner


def _geometry(config):
    """(rows, cols, leds, order) from a possibly bad config, with safe fallbacks."""
    rows = cols = leds = 0
    order = "GRB"
    if isinstance(config, dict):
        v = config.get("rows")
        rows = v if type(v) is int and 0 < v <= 32 else 0
        v = config.get("cols")
        cols = v if type(v) is int and 0 < v <= 30 else 0
        v = config.get("leds")
        leds = v if type(v) is int and 0 <= v <= 1024 else 0
        v = config.get("led_order")
        if isinstance(v, str) and len(v) == 3 and "R" in v and "G" in v and "B" in v:
            order = v
    return rows, cols, leds, order


class _SimRow:
    """A row line: selecting it (value 0) tells the hal which row the columns see."""

    def __init__(self, hal, row):
        self._hal = hal
        self._row = row

    def value(self, v):
        if v:
            if self._hal._selected == self._row:
                self._hal._selected = -1
        else:
            self._hal._selected = self._row


class _SimStrip:
    def __init__(self, hal, n):
        self._hal = hal
        self.buf = bytearray(3 * n)

    def show(self):
        self._hal._shown(self.buf)


class StdioSerial:
    """Serial over this process's stdin/stdout (MicroPython unix port or CPython).

    Reading never blocks: select.poll with a zero timeout, one byte at a time.
    """

    def __init__(self):
        import select
        import sys
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer

    def read_byte(self):
        if not self._poll.poll(0):
            return -1
        b = self._in.read(1)
        if not b:
            return -1
        return b[0]

    def write(self, buf):
        self._out.write(buf)
        self._out.flush()


class SimHal:
    """A simulated board: switches set by the caller, LEDs read back as RGB."""

    def __init__(self, config, serial, clock=None):
        self.clock = clock if clock is not None else SystemClock()
        self._serial = serial
        self.rows, self.cols, self.leds, order = _geometry(config)
        self._order = order_offsets(order)
        self._closed = [0] * (self.rows if self.rows else 1)
        self.diodes = not (isinstance(config, dict) and config.get("diodes") is False)
        self._selected = -1
        # Two buffers: the loop writes one while frame() reads the other.
        self._bufs = (bytearray(3 * self.leds), bytearray(3 * self.leds))
        self._front = 0
        self.frames = 0
        self.status = False
        self.written = 0
        self._views = None
        self._views_of = None
        self._boot_id = None

    # --- the simulated world (called by tests and the virtual board) -----------------

    def set_switch(self, row, col, closed):
        if not 0 <= row < self.rows or not 0 <= col < self.cols:
            raise ValueError("switch (" + str(row) + ", " + str(col) + ") is outside the "
                             + str(self.rows) + "x" + str(self.cols) + " matrix")
        bit = 1 << col
        if closed:
            self._closed[row] |= bit
        else:
            self._closed[row] &= ~bit

    def set_pos(self, pos, closed):
        if self.cols == 0 or not 0 <= pos < self.rows * self.cols:
            raise ValueError("matrix position " + repr(pos) + " is outside 0.."
                             + str(self.rows * self.cols - 1))
        self.set_switch(pos // self.cols, pos % self.cols, closed)

    def closed(self):
        """The positions closed in the simulated world (a sorted list)."""
        out = []
        for r in range(self.rows):
            for c in range(self.cols):
                if self._closed[r] & (1 << c):
                    out.append(r * self.cols + c)
        return out

    def frame(self):
        """The last rendered frame as RGB tuples (after brightness and the limiter)."""
        buf = self._bufs[self._front]
        o_r, o_g, o_b = self._order
        out = []
        for i in range(self.leds):
            j = 3 * i
            out.append((buf[j + o_r], buf[j + o_g], buf[j + o_b]))
        return out

    def raw_frame(self):
        """The last rendered frame as the strip's bytes (strip order)."""
        return bytes(self._bufs[self._front])

    def _shown(self, buf):
        back = 1 - self._front
        dst = self._bufs[back]
        for i in range(len(dst)):
            dst[i] = buf[i]
        self._front = back
        self.frames += 1

    def _read_cols(self):
        r = self._selected
        if r < 0:
            return 0
        closed = self._closed
        mask = closed[r]
        if not self.diodes and mask:
            # No diodes: current sneaks through any row sharing a closed column.
            for r2 in range(self.rows):
                if r2 != r and closed[r2] & mask:
                    mask |= closed[r2]
        return mask

    # --- the HAL surface ----------------------------------------------------------------

    def read_byte(self):
        return self._serial.read_byte()

    def write(self, buf, n):
        # Hand the serial an exact-length view. Views are cached per length so that
        # the loop allocates nothing once every length has been seen; a dict holds
        # only the lengths met so far (a list for every length costs 2 KB at boot).
        views = self._views
        if self._views_of is not buf:
            self._views_of = buf
            views = self._views = {}
        view = views.get(n)
        if view is None:
            view = memoryview(buf)[0:n]
            views[n] = view
        self._serial.write(view)
        self.written += n

    def make_scanner(self, config):
        rows = [_SimRow(self, r) for r in range(self.rows)]
        # No stray capacitance to wait for in memory: settle time 0.
        return MatrixScanner(rows, self.cols, self._read_cols, 0,
                             self.clock.sleep_us)

    def make_strip(self, config):
        return _SimStrip(self, self.leds)

    def status_led(self, on):
        self.status = bool(on)

    def boot_id(self):
        if self._boot_id is None:
            try:
                import os
                b = os.urandom(4)
                self._boot_id = (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]
            except (ImportError, AttributeError, OSError):
                self._boot_id = self.clock.ticks_us() & 0xFFFFFFFF
        return self._boot_id

    def idle(self, ms):
        self.clock.sleep_ms(ms)

    def deinit(self):
        pass
