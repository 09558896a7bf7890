"""`bench firmware`'s ``rp2040_emulated`` section: the firmware's figures on the emulated
RP2040 (MicroPython's own RPI_PICO build in rp2040js, ``meridian_table.sim.emu``), one
block per Pico board profile, each against the MicroPython unix port in the same run.

On the emulated Pico the firmware boots from its littlefs image exactly as ``flash``
leaves it; then the host takes the REPL (soft reset in raw REPL: a fresh heap, main.py
not run) and runs ``SCRIPT``, which boots the App the way ``main.py`` does
(``meridian_fw.app.boot``: config.json, the rp2 HAL with real ``machine.Pin`` rows and
columns or the 74HC165 chain, PIO strip, USB CDC) and measures with the firmware's own
``time.ticks_us`` on the emulated 125 MHz Cortex-M0+:

- ``scan_us_per_pass``: one scan of the profile's matrix plus the debounce update
  (settle time included: ``settle_us`` per row on a direct matrix);
- ``loop_us_per_iteration``: ``App.step()`` back to back (scans when due, the link's
  poll, the LEDs' step), the mean over 300 iterations;
- ``alloc_bytes_per_iteration``: heap bytes allocated per ``App.step()`` (target 0);
- ``heap_free_after_boot_bytes`` / ``heap_used_after_boot_bytes``: ``gc.mem_free()`` /
  ``gc.mem_alloc()`` after boot and a collection, on the rp2 port itself;
- ``switch_to_led_latency_ms``: modelled on the device from these figures: the debounce
  window (``debounce_scans`` x ``scan_period_ms``), one loop iteration, the 20 ms frame
  pacing and the frame's time on the wire (30 us a LED + the 300 us latch).

The reference is the same script on the unix port (``-X heapsize=192k``, the simulated
HAL: no settle wait, no pins), and ``*_ratio`` is emulated / unix. The emulator's own
speed does not enter these figures: they are emulated microseconds.
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOGGER = logging.getLogger(__name__)

FRAME_MS = 20
WS2812_US_PER_LED = 30
LATCH_US = 300

SCRIPT = r"""
import gc
import json
import time
gc.collect()
from meridian_fw.app import boot
app = boot()
gc.collect()
heap_free = gc.mem_free()
heap_used = gc.mem_alloc()
scanner = app.scanner
deb = app.debouncer
raw = app._raw
changed = app._changed


def passes(k):
    for _ in range(k):
        scanner.scan(raw)
        deb.update(raw, changed)


def steps(k):
    for _ in range(k):
        app.step()


def best(fn, k):
    low = None
    for _ in range(3):
        t0 = time.ticks_us()
        fn(k)
        dt = time.ticks_diff(time.ticks_us(), t0)
        if low is None or dt < low:
            low = dt
    return low / k


scan_us = best(passes, PASSES)
steps(50)
loop_us = best(steps, 300)
gc.collect()
gc.disable()
before = gc.mem_alloc()
steps(300)
alloc = gc.mem_alloc() - before
gc.enable()
app.deinit()
print("RESULT " + json.dumps({"scan_us_per_pass": scan_us, "loop_us_per_iteration": loop_us,
                              "alloc_bytes": alloc, "iterations": 300,
                              "heap_free": heap_free, "heap_used": heap_used}))
"""


def _result(text: str) -> dict[str, Any]:
    line = next((x for x in text.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"no RESULT line in the firmware's output: {text[-800:]!r}")
    figures: dict[str, Any] = json.loads(line[len("RESULT "):])
    return figures


def pico_profiles() -> list[str]:
    """Every installed board profile that runs on an RP2040 ("any" Pico, or a Pico or
    Pico W by name)."""
    from meridian_table.maker import boards
    from meridian_table.profiles import list_profiles, load_profile

    out = []
    for name in list_profiles():
        model = boards.MODELS.get(load_profile(name).pico)
        if model is None or model.chip == "RP2040":
            out.append(name)
    return out


def _emulated(name: str, passes: int) -> dict[str, Any]:
    from meridian_table.profiles import load_profile
    from meridian_table.sim.emu import EmulatedBoard

    with EmulatedBoard(load_profile(name)) as board:
        out = board.run_python(SCRIPT.replace("PASSES", str(passes)), restart=False,
                               soft_reset=True)
        status = board.status()
    figures = _result(out)
    figures["emulator"] = {"emulated_s": round(float(status["emulated_s"]), 3),
                           "cycles": int(status["cycles"])}
    return figures


def _unix(name: str, passes: int, micropython: Callable[[Path, list[str]], str],
          build: Path) -> dict[str, Any]:
    from meridian_table.profiles import load_profile

    (build.parent / "config.json").write_text(json.dumps(load_profile(name).firmware_config()))
    script = build.parent / "emu_ref.py"
    script.write_text(SCRIPT.replace("PASSES", str(passes)))
    return _result("RESULT " + micropython(build, [str(script)]))


def _latency(config: dict[str, Any], loop_us: float) -> float:
    debounce_ms = int(config["debounce_scans"]) * int(config["scan_period_ms"])
    wire_ms = (int(config["leds"]) * WS2812_US_PER_LED + LATCH_US) / 1000
    return round(debounce_ms + loop_us / 1000 + FRAME_MS + wire_ms, 2)


def run(options: dict[str, Any], compile_build: Callable[[Path], None],
        micropython: Callable[[Path, list[str]], str]) -> dict[str, Any]:
    """The ``rp2040_emulated`` section: per profile figures, or why there are none.
    ``compile_build(dest)`` compiles the firmware to ``.mpy`` files and
    ``micropython(build, args)`` runs the unix port on them, returning the RESULT line's
    payload (``bench.firmware``'s own helpers, handed in)."""
    from meridian_table.profiles import load_profile
    from meridian_table.sim import emu

    problem = emu.missing()
    if problem is not None:
        return {"available": False, "reason": problem}
    passes = 20 if options.get("quick") else 100
    section: dict[str, Any] = {"available": True, "clock_mhz": 125,
                               "reference": "MicroPython unix port, simulated HAL, same script",
                               "profiles": {}}
    with tempfile.TemporaryDirectory() as tmp:
        build = Path(tmp) / "build"
        compile_build(build)
        for name in pico_profiles():
            config = load_profile(name).firmware_config()
            rp2 = _emulated(name, passes)
            unix = _unix(name, passes, micropython, build)
            block = {
                "scan_us_per_pass": round(rp2["scan_us_per_pass"], 1),
                "scan_us_per_pass_unix": round(unix["scan_us_per_pass"], 2),
                "scan_ratio": round(rp2["scan_us_per_pass"] / unix["scan_us_per_pass"], 1),
                "loop_us_per_iteration": round(rp2["loop_us_per_iteration"], 1),
                "loop_us_per_iteration_unix": round(unix["loop_us_per_iteration"], 2),
                "loop_ratio": round(rp2["loop_us_per_iteration"] / unix["loop_us_per_iteration"],
                                    1),
                "alloc_bytes_per_iteration": rp2["alloc_bytes"] / rp2["iterations"],
                "alloc_bytes_per_iteration_unix": unix["alloc_bytes"] / unix["iterations"],
                "heap_free_after_boot_bytes": rp2["heap_free"],
                "heap_used_after_boot_bytes": rp2["heap_used"],
                "heap_used_after_boot_unix_bytes": unix["heap_used"],
                "scan_period_ms": config["scan_period_ms"],
                "scan_fits_period": rp2["scan_us_per_pass"] < config["scan_period_ms"] * 1000,
                "switch_to_led_latency_ms": _latency(config, rp2["loop_us_per_iteration"]),
                "emulator": rp2["emulator"],
            }
            LOGGER.info("rp2040_emulated %s: %r", name, block)
            section["profiles"][name] = block
    return section
