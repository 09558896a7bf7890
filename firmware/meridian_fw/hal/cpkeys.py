"""CircuitPython's own matrix scanner: ``keypad.KeyMatrix`` scans and debounces in C, in
the background, and queues key events; ``KeypadScanner`` turns them back into the row
masks every scanner fills, so they take the same SENSE path as any other scan.

Key numbers are ``row * cols + col``, the firmware's matrix positions. The diodes sit
as the diagrams draw them (anode to the column, cathode to the row), which is
KeyMatrix's ``columns_to_anodes=True``. The event is preallocated and filled with
``get_into``, so a scan allocates nothing. If the event queue overflowed, the
state is rebuilt: ``reset()`` makes KeyMatrix report every closed key again.
"""

import keypad


class KeypadScanner:
    """The scanner interface (``rows``, ``cols``, ``scan(masks)``, ``deinit()``) over a
    ``keypad.KeyMatrix`` on ``row_pins`` and ``col_pins`` (``board`` pins)."""

    def __init__(self, row_pins, col_pins, interval_ms, debounce_scans):
        # type: (list, list, int, int) -> None
        self.rows = len(row_pins)
        self.cols = len(col_pins)
        self._km = keypad.KeyMatrix(row_pins, col_pins, columns_to_anodes=True,
                                    interval=interval_ms / 1000,
                                    debounce_threshold=debounce_scans)
        self._event = keypad.Event()
        self._state = [0] * self.rows

    def scan(self, masks):
        km = self._km
        ev = self._event
        state = self._state
        cols = self.cols
        if km.events.overflowed:
            km.events.clear()
            for r in range(self.rows):
                state[r] = 0
            km.reset()  # every key still closed is reported pressed again
        while km.events.get_into(ev):
            r = ev.key_number // cols
            bit = 1 << (ev.key_number - r * cols)
            if ev.pressed:
                state[r] |= bit
            else:
                state[r] &= ~bit
        for r in range(self.rows):
            masks[r] = state[r]

    def deinit(self):
        self._km.deinit()
