"""A fake CircuitPython ``neopixel_write``: records every buffer sent to a pin."""

calls = []


def neopixel_write(digitalinout, buf):
    calls.append((digitalinout, bytes(buf)))
