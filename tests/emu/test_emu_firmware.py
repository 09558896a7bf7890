"""The rp2 HAL's own code paths on the emulated Pico, at its REPL: the loop's heap use on
the real port, the PIO ``put`` feed and the DMA feed of the WS2812 strip (both decoded
from the data pin), and USB CDC writes while a host holds the port but does not read."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from tests.patience import patience

from meridian_table.bench._emulated import SCRIPT
from meridian_table.sim.emu import EmulatedBoard

from .conftest import Pool, profile

STALL_PIN = 27  # unused on kato-80: while it is high the emulated host reads nothing


@pytest.fixture(scope="module")
def pico(pool: Pool, emu_ready: None) -> Iterator[EmulatedBoard]:
    pool.close()  # one emulator at a time
    with EmulatedBoard(profile("kato-80"), stall_pin=STALL_PIN) as board:
        yield board


def _result(out: str) -> dict[str, object]:
    line = next(x for x in out.splitlines() if x.startswith("RESULT "))
    value: dict[str, object] = json.loads(line[len("RESULT "):])
    return value


def test_the_loop_allocates_nothing_on_the_rp2_port(pico: EmulatedBoard) -> None:
    # Before the fix the rp2 HAL's poll() allocated 32 bytes every iteration (a new
    # list), so the real port collected garbage every few seconds.
    got = _result(pico.run_python(SCRIPT.replace("PASSES", "10"), restart=False,
                                  soft_reset=True))
    assert got["alloc_bytes"] == 0, got
    assert 0 < got["heap_used"] < 64 * 1024 < got["heap_free"], got  # type: ignore[operator]


PUT = r"""
import time
from meridian_fw.hal.ws2812_pio import PioStrip
s = PioStrip(22, 80, time.sleep_us, dma=DMA)
for i in range(80):
    s.buf[3 * i] = i
    s.buf[3 * i + 1] = 255 - i
    s.buf[3 * i + 2] = (7 * i) & 255
s.show()
time.sleep_ms(20)
s.deinit()
print("FEED", s.feed)
"""


@pytest.mark.parametrize("dma", [False, True], ids=["put", "dma"])
def test_a_frame_through_the_pio_decodes_from_the_pin(pico: EmulatedBoard, dma: bool) -> None:
    before = pico.frames
    out = pico.run_python(PUT.replace("DMA", str(dma)), restart=False)
    assert f"FEED {'dma' if dma else 'put'}" in out, out
    # GRB on the strip: the board maps the decoded bytes back to RGB.
    expected = [(255 - i, i, (7 * i) & 255) for i in range(80)]
    frame = pico.wait_for(lambda f: pico.frames > before and f == expected, timeout=patience(60))
    assert frame == expected


STALL = r"""
import sys, time, machine
from meridian_fw.hal.rp2 import Rp2Hal
hal = Rp2Hal()
stall = machine.Pin(PIN, machine.Pin.OUT, value=0)
line = b"B" * 199 + b"\n"
took = []
time.sleep_ms(20)
stall.value(1)
for i in range(6):
    t0 = time.ticks_us()
    hal.write(line, 200)
    took.append(time.ticks_diff(time.ticks_us(), t0))
stall.value(0)
time.sleep_ms(20)
hal.write(b"END\n", 4)
print("\nRESULT", took)
"""


def test_a_host_that_stops_reading_blocks_one_write_and_no_frame_is_glued(
        pico: EmulatedBoard) -> None:
    out = pico.run_python(STALL.replace("PIN", str(STALL_PIN)), restart=False)
    took = [int(x) for x in re.findall(r"\d+", out.split("RESULT", 1)[1])]
    # The first frame fits the CDC buffer; the second waits for the CDC timeout and
    # goes out cut; after that nothing blocks until the host reads again.
    assert len(took) == 6 and sum(1 for us in took if us > 20_000) == 1, took
    lines = out.split("RESULT", 1)[0].split("\n")
    # The cut frame ends its own line: the next frame is not glued to it.
    assert "END" in lines, [x[:20] for x in lines]
    assert all(x in ("", "END", "B" * 199) or set(x) == {"B"} for x in lines if x.strip()), lines

