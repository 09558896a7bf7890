"""An integrating debouncer over row bitmasks, with vertical counters.

A switch changes its debounced state after ``n`` consecutive scans that all
disagree with that state; one agreeing scan resets its count. Each row keeps
``k = bits(n)`` counter planes (plane i holds bit i of every switch's count),
so one pass costs O(rows * k) integer operations, not O(switches). Rows whose
raw reading equals their debounced state cost one compare.
"""


class Debouncer:
    """Row-parallel integrating debouncer. ``state[r]`` is row r's debounced mask."""

    def __init__(self, rows, n):
        if not 1 <= n <= 15:
            raise ValueError("debounce_scans must be 1..15, got " + repr(n))
        self.rows = rows
        self.n = n
        k = 0
        while (1 << k) <= n:
            k += 1
        self._k = k
        # For each plane: all-ones if bit i of n is set, else 0; used to test count == n.
        self._want = [(-1 if (n >> i) & 1 else 0) for i in range(k)]
        self.state = [0] * rows
        self._planes = [0] * (rows * k)
        self._counting = bytearray(rows)

    def reset(self, masks=None):
        """Forget every count; with ``masks``, also take them as the debounced state."""
        for r in range(self.rows):
            self.state[r] = masks[r] if masks is not None else 0
            self._counting[r] = 0
        for i in range(self.rows * self._k):
            self._planes[i] = 0

    def update(self, raw, changed):
        """Feed one scan pass. Writes each row's flipped bits to ``changed[r]``.

        Returns the number of rows with at least one flip. Allocates nothing.
        """
        state = self.state
        planes = self._planes
        counting = self._counting
        want = self._want
        k = self._k
        flipped_rows = 0
        for r in range(self.rows):
            delta = raw[r] ^ state[r]
            if not delta:
                changed[r] = 0
                if counting[r]:
                    base = r * k
                    for i in range(k):
                        planes[base + i] = 0
                    counting[r] = 0
                continue
            # Count up where the reading disagrees, reset where it agrees.
            base = r * k
            carry = delta
            eq = delta
            for i in range(k):
                p = planes[base + i] & delta
                s = p ^ carry
                carry = p & carry
                planes[base + i] = s
                eq &= ~(s ^ want[i])
            if eq:
                state[r] ^= eq
                keep = ~eq
                for i in range(k):
                    planes[base + i] &= keep
                flipped_rows += 1
            changed[r] = eq
            counting[r] = 1 if delta & ~eq else 0
        return flipped_rows
