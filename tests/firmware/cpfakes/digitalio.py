"""A fake CircuitPython ``digitalio`` that records directions and values."""


class Direction:
    INPUT = "input"
    OUTPUT = "output"


class Pull:
    UP = "up"
    DOWN = "down"


levels = {}  # pin name -> level an input reads (default: pulled up)


class DigitalInOut:
    def __init__(self, pin):
        self.pin = pin
        self.direction = Direction.INPUT
        self.pull = None
        self._value = False
        self.deinited = False

    def switch_to_output(self, value=False, drive_mode=None):
        self.direction = Direction.OUTPUT
        self._value = value

    def switch_to_input(self, pull=None):
        self.direction = Direction.INPUT
        self.pull = pull

    @property
    def value(self):
        if self.direction == Direction.INPUT:
            return levels.get(self.pin.name, self.pull == Pull.UP)
        return self._value

    @value.setter
    def value(self, v):
        self._value = bool(v)

    def deinit(self):
        self.deinited = True
