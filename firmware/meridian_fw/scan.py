"""Switch scanners. Each fills a list of row masks (bit c set = switch (row, c) closed).

Every scanner offers ``rows``, ``cols``, ``scan(masks)`` (one full pass, writes
``masks[0:rows]``, allocates nothing) and ``deinit()``. Pins and delays are
injected, so the same code runs with ``machine.Pin``, CircuitPython adapters,
or the simulated HAL.
"""


class PinColumns:
    """Reads column pins one by one (active low: a closed switch pulls the pin low).

    The portable path. The rp2 HAL replaces it with one read of the GPIO input
    register when the column pins are consecutive GPIOs.
    """

    def __init__(self, pins):
        self._pins = pins
        self._n = len(pins)

    def read(self):
        mask = 0
        pins = self._pins
        for c in range(self._n):
            if not pins[c].value():
                mask |= 1 << c
        return mask


class MatrixScanner:
    """Drives one row low at a time, waits ``settle_us``, reads all columns as one mask.

    ``row_pins``: objects with ``value(v)``; ``read_cols()`` returns the column mask
    for the selected row (closed = 1); ``sleep_us(us)`` waits for stray capacitance
    to settle (FACTS.md: 100-500 us on hand-wired boards).
    """

    def __init__(self, row_pins, cols, read_cols, settle_us, sleep_us):
        self.rows = len(row_pins)
        self.cols = cols
        self._row_pins = row_pins
        self._read = read_cols
        self._settle = settle_us
        self._sleep_us = sleep_us
        for pin in row_pins:
            pin.value(1)

    def scan(self, masks):
        pins = self._row_pins
        read = self._read
        settle = self._settle
        sleep_us = self._sleep_us
        for r in range(self.rows):
            pin = pins[r]
            pin.value(0)
            if settle:
                sleep_us(settle)
            masks[r] = read()
            pin.value(1)

    def deinit(self):
        for pin in self._row_pins:
            pin.value(1)


class ShiftRegisterScanner:
    """A chain of 74HC165 parallel-in shift registers, read bit by bit.

    Bit i of the chain (the first bit shifted out is 0) is matrix position i, so row r
    holds bits r*cols .. r*cols+cols-1. Inputs are active low (pull-ups, switch to
    ground). ``load``, ``clk`` and ``data`` are pin objects with ``value()``.
    """

    def __init__(self, load, clk, data, bits, rows, cols, sleep_us):
        self.rows = rows
        self.cols = cols
        self._load = load
        self._clk = clk
        self._data = data
        self._bits = bits
        self._sleep_us = sleep_us
        load.value(1)
        clk.value(0)

    def scan(self, masks):
        load = self._load
        clk = self._clk
        data = self._data
        cols = self.cols
        # SH/LD low latches every input at once; the chain then shifts on clock edges.
        load.value(0)
        self._sleep_us(1)
        load.value(1)
        row = 0
        col = 0
        mask = 0
        used = self.rows * cols
        for i in range(self._bits):
            if i < used and not data.value():
                mask |= 1 << col
            clk.value(1)
            clk.value(0)
            col += 1
            if col == cols:
                if row < self.rows:
                    masks[row] = mask
                row += 1
                col = 0
                mask = 0

    def deinit(self):
        self._clk.value(0)
        self._load.value(1)
