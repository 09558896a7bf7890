"""A fake MicroPython ``neopixel`` module: keeps the bytes each write() would send."""

written = []


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)

    def write(self):
        written.append(bytes(self.buf))
