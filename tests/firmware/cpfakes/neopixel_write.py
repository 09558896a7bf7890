"""A fake CircuitPython ``neopixel_write``: records every buffer sent to a pin."""

calls = []


def neopixel_write(pin, buf):
    calls.append((pin, bytes(buf)))
