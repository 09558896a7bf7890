"""A fake CircuitPython ``board`` for an RP2040 board: pins GP0..GP29 and LED."""


class Pin:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "board." + self.name


for _n in range(30):
    globals()["GP" + str(_n)] = Pin("GP" + str(_n))
LED = GP25  # noqa: F821  (defined by the loop above)
