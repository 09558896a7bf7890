"""A fake ``machine`` module for tests: GPIOs wired to a simulated switch matrix.

The test wires it with ``wire_matrix(row_gpios, col_gpios)`` and closes switches
with ``close(row, col, closed)``. A column input reads low while a row that is
driven low has a closed switch on that column (active-low scanning, diodes).
``mem32[0xD0000004]`` returns every GPIO level in one word, like the RP2040's SIO.
"""

_levels = {}     # gpio -> driven output level
_modes = {}      # gpio -> mode
_pulls = {}
_rows = []
_cols = []
_closed = []
reads = [0]      # how many GPIO reads the code under test made


def wire_matrix(row_gpios, col_gpios):
    global _rows, _cols, _closed
    _rows = list(row_gpios)
    _cols = list(col_gpios)
    _closed = [0] * len(_rows)
    _levels.clear()
    _modes.clear()


def close(row, col, closed=True):
    if closed:
        _closed[row] |= 1 << col
    else:
        _closed[row] &= ~(1 << col)


def _level(gpio):
    if _modes.get(gpio) == Pin.OUT:
        return _levels.get(gpio, 0)
    if gpio in _cols:
        c = _cols.index(gpio)
        for r in range(len(_rows)):
            if _levels.get(_rows[r], 1) == 0 and _closed[r] & (1 << c):
                return 0
        return 1
    return 1 if _pulls.get(gpio) == Pin.PULL_UP else 0


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, *, value=None, drive=None, alt=None):
        gpio = id
        if gpio == "LED":
            gpio = 25
        if not isinstance(gpio, int) or not 0 <= gpio <= 29:
            raise ValueError("invalid pin")
        self.gpio = gpio
        if mode != -1:
            _modes[gpio] = mode
        if pull != -1:
            _pulls[gpio] = pull
        if value is not None:
            _levels[gpio] = 1 if value else 0

    def value(self, v=None):
        if v is None:
            reads[0] += 1
            return _level(self.gpio)
        _levels[self.gpio] = 1 if v else 0
        return None

    def on(self):
        _levels[self.gpio] = 1

    def off(self):
        _levels[self.gpio] = 0


class _Mem32:
    def __getitem__(self, addr):
        if addr != 0xD0000004:
            raise ValueError("fake mem32 only models SIO GPIO_IN")
        reads[0] += 1
        word = 0
        for gpio in range(30):
            if _level(gpio):
                word |= 1 << gpio
        return word


mem32 = _Mem32()
