"""Hardware access. The one place that chooses a backend.

Every backend offers the same small surface (docs/FIRMWARE.md, "HAL"):
``clock``, ``read_byte()``, ``write(buf, n)``, ``make_scanner(config)``,
``make_strip(config)``, ``status_led(on)``, ``boot_id()``, ``idle(ms)``, ``deinit()``.
"""

import sys


def backend_name():
    """"rp2", "circuitpython" or "sim", from the running interpreter."""
    impl = sys.implementation.name
    if impl == "circuitpython":
        return "circuitpython"
    if impl == "micropython" and sys.platform == "rp2":
        return "rp2"
    return "sim"


def make_hal(config, serial=None, clock=None):
    """The HAL for this interpreter. ``serial``/``clock`` are for the simulated backend."""
    name = backend_name()
    if name == "rp2" and serial is None:
        from meridian_fw.hal.rp2 import Rp2Hal
        return Rp2Hal()
    if name == "circuitpython" and serial is None:
        from meridian_fw.hal.circuitpy import CircuitPyHal
        return CircuitPyHal()
    from meridian_fw.hal.sim import SimHal, StdioSerial
    return SimHal(config, serial if serial is not None else StdioSerial(), clock)
