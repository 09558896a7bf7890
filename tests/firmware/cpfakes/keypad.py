"""A fake CircuitPython ``keypad``: a KeyMatrix whose keys the test presses; events are
queued as the real one queues them (debounced in C there, at once here)."""

matrices = []   # every KeyMatrix made, for the tests to press keys on


class Event:
    def __init__(self, key_number=0, pressed=True, timestamp=None):
        self.key_number = key_number
        self.pressed = pressed
        self.released = not pressed
        self.timestamp = 0 if timestamp is None else timestamp


class EventQueue:
    def __init__(self, max_events):
        self._q = []
        self._max = max_events
        self.overflowed = False

    def _put(self, key_number, pressed):
        if len(self._q) >= self._max:
            self.overflowed = True
            return
        self._q.append((key_number, pressed))

    def get(self):
        if not self._q:
            return None
        n, p = self._q.pop(0)
        return Event(n, p)

    def get_into(self, event):
        if not self._q:
            return False
        n, p = self._q.pop(0)
        event.key_number = n
        event.pressed = p
        event.released = not p
        return True

    def clear(self):
        self._q = []
        self.overflowed = False

    def __bool__(self):
        return bool(self._q)

    def __len__(self):
        return len(self._q)


class KeyMatrix:
    def __init__(self, row_pins, column_pins, columns_to_anodes=True, interval=0.020,
                 max_events=64, debounce_threshold=1):
        self.row_pins = list(row_pins)
        self.column_pins = list(column_pins)
        self.columns_to_anodes = columns_to_anodes
        self.interval = interval
        self.debounce_threshold = debounce_threshold
        self.key_count = len(self.row_pins) * len(self.column_pins)
        self.events = EventQueue(max_events)
        self.closed = set()
        self.deinited = False
        matrices.append(self)

    def press(self, key_number, pressed=True):
        """Test helper: a key closes (or opens); queued as an event."""
        if pressed:
            self.closed.add(key_number)
        else:
            self.closed.discard(key_number)
        self.events._put(key_number, pressed)

    def reset(self):
        for n in sorted(self.closed):
            self.events._put(n, True)

    def key_number_to_row_column(self, key_number):
        return divmod(key_number, len(self.column_pins))

    def row_column_to_key_number(self, row, column):
        return row * len(self.column_pins) + column

    def deinit(self):
        self.deinited = True

    def __enter__(self):
        return self

    def __exit__(self):
        self.deinit()
