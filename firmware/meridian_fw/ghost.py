"""Ghost detection for matrices built without diodes.

Without a diode per switch, three closed corners of a rectangle make the fourth
read closed. The fourth corner closes electrically at the same instant as the
third, so a single reading cannot tell which of the new closures is real. This
guard holds back every new closure that completes a rectangle of four closed
switches, reports it (``FAULT GHOST pos``) and releases it as a real closure
once it is no longer part of a complete rectangle but still reads closed. A held
switch that opens again is dropped silently: it was never reported.

With ``enabled`` False (the default: boards have diodes, and four real pieces on
a rectangle are normal) the guard passes every change through untouched.
"""


class GhostGuard:
    """Filters debounced changes into reported changes. ``reported[r]`` is what the host knows."""

    def __init__(self, rows, cols, enabled):
        self.rows = rows
        self.cols = cols
        self.enabled = enabled
        self.reported = [0] * rows
        self.held = [0] * rows
        self.new_faults = [0] * rows  # held this pass: the app reports FAULT GHOST for each
        self.holding = 0

    def reset(self, state):
        for r in range(self.rows):
            self.reported[r] = state[r]
            self.held[r] = 0
            self.new_faults[r] = 0
        self.holding = 0

    def _in_rectangle(self, state, r, bit):
        row = state[r]
        for r2 in range(self.rows):
            if r2 != r:
                other = state[r2]
                if other & bit:
                    shared = other & row
                    if shared & (shared - 1):  # at least two shared columns
                        return True
        return False

    def filter(self, state, changed):
        """Turn debounced flips (``changed``) into reported flips, in place.

        Returns the number of rows whose reported state changed. Allocates nothing.
        """
        rows = self.rows
        reported = self.reported
        if not self.enabled:
            n = 0
            for r in range(rows):
                if changed[r]:
                    reported[r] = state[r]
                    n += 1
            return n
        held = self.held
        faults = self.new_faults
        for r in range(rows):
            faults[r] = 0
            c = changed[r]
            if not c:
                continue
            closing = c & state[r] & ~held[r]
            if closing:
                for col in range(self.cols):
                    bit = 1 << col
                    if closing & bit and self._in_rectangle(state, r, bit):
                        held[r] |= bit
                        faults[r] |= bit
                        self.holding += 1
        # Release or drop held switches, then report what is left.
        n = 0
        for r in range(rows):
            h = held[r]
            if h:
                for col in range(self.cols):
                    bit = 1 << col
                    if h & bit and not faults[r] & bit:
                        if not state[r] & bit:
                            held[r] &= ~bit
                            self.holding -= 1
                        elif not self._in_rectangle(state, r, bit):
                            held[r] &= ~bit
                            self.holding -= 1
            visible = state[r] & ~held[r]
            changed[r] = visible ^ reported[r]
            if changed[r]:
                reported[r] = visible
                n += 1
        return n
