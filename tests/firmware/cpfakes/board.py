"""A fake CircuitPython ``board`` for the Raspberry Pi Pico: pins GP0..GP28 and LED
(the names of ``board_definitions/raspberry_pi_pico`` in circuitpython-stubs)."""


class Pin:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "board." + self.name


for _n in range(29):
    globals()["GP" + str(_n)] = Pin("GP" + str(_n))
LED = GP25  # noqa: F821  (defined by the loop above)
