"""Every fake board module the firmware tests use matches the published stubs.

tests/firmware/fakes (machine, neopixel, rp2) stand for MicroPython on the Pico and
the Pico 2; tests/firmware/cpfakes (board, digitalio, neopixel_write, usb_cdc) for
CircuitPython. A fake that drifted from the real API would let a wrong call pass
every test, so each public name and signature is compared with the stub
(tests/stubs/signatures.py). The names below are the fakes' own test helpers.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from tests.stubs.signatures import StubModule, compare
from tests.stubs.test_stubcheck import stubcheck

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "firmware" / "fakes"
CPFAKES = ROOT / "tests" / "firmware" / "cpfakes"

# (fake file, target, stub path inside the target's directory, the fake's test helpers)
CASES = [
    (FAKES / "machine.py", "rp2-pico", "machine.pyi", {"wire_matrix", "close", "reads"}),
    (FAKES / "machine.py", "rp2-pico2", "machine.pyi", {"wire_matrix", "close", "reads"}),
    (FAKES / "neopixel.py", "rp2-pico", "neopixel.pyi", {"written"}),
    (FAKES / "neopixel.py", "rp2-pico2", "neopixel.pyi", {"written"}),
    (FAKES / "rp2.py", "rp2-pico", "rp2/__init__.pyi",
     {"machines", "removed", "waveform", "Program", "fake_rp2.StateMachine.words",
      "fake_rp2.DMA.run", "dma_channels", "dma_limit"}),
    (FAKES / "rp2.py", "rp2-pico2", "rp2/__init__.pyi",
     {"machines", "removed", "waveform", "Program", "fake_rp2.StateMachine.words",
      "fake_rp2.DMA.run", "dma_channels", "dma_limit"}),
    (CPFAKES / "board.py", "circuitpython",
     "board_definitions/raspberry_pi_pico/__init__.pyi", {"Pin"}),
    (CPFAKES / "digitalio.py", "circuitpython", "digitalio-stubs/__init__.pyi", {"levels"}),
    (CPFAKES / "neopixel_write.py", "circuitpython", "neopixel_write-stubs/__init__.pyi",
     {"calls"}),
    (CPFAKES / "usb_cdc.py", "circuitpython", "usb_cdc-stubs/__init__.pyi", set()),
    (CPFAKES / "keypad.py", "circuitpython", "keypad-stubs/__init__.pyi",
     {"matrices", "fake_keypad.KeyMatrix.press"}),
]


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("fake_" + path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize(("fake", "target", "stub", "test_only"), [
    pytest.param(*c, id=f"{c[0].parent.name}/{c[0].name}-{c[1]}") for c in CASES
    if c[0].exists()
])
def test_the_fake_matches_the_stub(fake: Path, target: str, stub: str,
                                   test_only: set[str]) -> None:
    stubs = stubcheck.ensure_stubs(stubcheck.TARGETS[target])
    problems = compare(_load(fake), StubModule(stubs / stub), test_only)
    assert not problems, "\n".join(problems)


def test_every_fake_module_is_compared() -> None:
    compared = {c[0].name for c in CASES if c[0].parent == FAKES}
    cpcompared = {c[0].name for c in CASES if c[0].parent == CPFAKES}
    assert {p.name for p in FAKES.glob("*.py")} <= compared
    assert {p.name for p in CPFAKES.glob("*.py")} <= cpcompared


def test_a_drifted_fake_is_named(tmp_path: Path) -> None:
    # The comparison itself can fail: a fake Pin whose value() lost its argument and
    # whose constructor calls the pin "gpio" is caught on both counts.
    text = (FAKES / "machine.py").read_text()
    text = text.replace("def value(self, v=None):", "def value(self):")
    text = text.replace("def on(self):", "def on(self, level):")
    drifted = tmp_path / "machine.py"
    drifted.write_text(text)
    stubs = stubcheck.ensure_stubs(stubcheck.TARGETS["rp2-pico"])
    problems = compare(_load(drifted), StubModule(stubs / "machine.pyi"),
                       {"wire_matrix", "close", "reads"})
    assert any("Pin.value" in p for p in problems), problems
    assert any("Pin.on" in p and "level" in p for p in problems), problems
