"""The 74HC165 chain of the 154-point Kato board on the emulated Pico: the rp2 HAL's
SIO-register reader (hal/rp2_sr.py) keeps a pass inside the profile's scan period."""

from __future__ import annotations

from meridian_table.sim.emu import EmulatedBoard

from .conftest import Pool, profile

SCAN_TIME = r"""
import time
from meridian_fw.app import boot
app = boot()
best = None
for _ in range(5):
    t0 = time.ticks_us()
    app.scanner.scan(app._raw)
    dt = time.ticks_diff(time.ticks_us(), t0)
    best = dt if best is None or dt < best else best
print("RESULT", best, type(app.scanner).__name__)
app.deinit()
"""


def test_the_74hc165_chain_is_read_within_the_scan_period(pool: Pool) -> None:
    # kato-154: 168 bits through Pin.value() took 4.4 ms on the emulated 125 MHz RP2040,
    # over the profile's 3 ms scan period; the SIO-register reader takes about 2.7 ms.
    p = profile("kato-154")
    pool.close()  # one emulator at a time
    with EmulatedBoard(p) as board:
        out = board.run_python(SCAN_TIME, restart=False, soft_reset=True)
    best, kind = out.split("RESULT", 1)[1].split()[:2]
    assert kind == "GpioShiftRegister"
    assert int(best) < p.firmware_config()["scan_period_ms"] * 1000, best
