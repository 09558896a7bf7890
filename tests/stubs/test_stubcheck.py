"""The firmware against the published board stubs (tools/stubcheck.py, `make test`).

Each target's mypy configuration (firmware/typecheck/) must pass with 0 errors, must
cover the core and that target's HAL, and must catch a wrong call into the board's
API: the tests copy the tree, put one in, and expect mypy to name it.
"""

from __future__ import annotations

import configparser
import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "firmware" / "meridian_fw"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stubcheck", ROOT / "tools" / "stubcheck.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["stubcheck"] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


stubcheck = _tool()

# What each target checks besides the core: its own HAL, and nothing of another board's.
HALS = {
    "rp2-pico": {"hal/rp2.py", "hal/rp2_sr.py", "hal/ws2812_pio.py"},
    "rp2-pico2": {"hal/rp2.py", "hal/rp2_sr.py", "hal/ws2812_pio.py"},
    "circuitpython": {"hal/circuitpy.py", "hal/cpkeys.py"},
}
NOT_ON_A_BOARD = {"hal/sim.py"}  # the virtual board's HAL: CPython and the unix port only

# A wrong call per target: (file, text in it, the wrong text, a word mypy's message holds).
WRONG_CALLS = {
    "rp2-pico": [
        ("hal/rp2.py", "machine.Pin.PULL_UP)", "machine.Pin.PULL_UPP)", "PULL_UPP"),
        ("hal/ws2812_pio.py", "freq=FREQ,", 'freq="8 MHz",', "freq"),
    ],
    "rp2-pico2": [
        ("hal/rp2.py", "select.POLLIN)", "select.POLL_IN)", "POLL_IN"),
        ("hal/ws2812_pio.py", "sm.active(0)", "sm.active(0, 1)", "active"),
    ],
    "circuitpython": [
        ("hal/circuitpy.py", "digitalio.Pull.UP", "digitalio.Pull.HIGH", "HIGH"),
        ("hal/circuitpy.py", "switch_to_output(value=True)", "switch_to_output(level=True)",
         "level"),
    ],
}


def _files(target: str) -> set[str]:
    parser = configparser.ConfigParser()
    parser.read(ROOT / "firmware" / "typecheck" / f"{target}.ini")
    listed = [f.strip() for f in parser["mypy"]["files"].split(",") if f.strip()]
    return {str(Path(f).relative_to("firmware/meridian_fw")) for f in listed}


def _copy_tree(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "firmware", tmp_path / "firmware",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


@pytest.mark.parametrize("target", sorted(stubcheck.TARGETS))
def test_the_firmware_has_no_error_against_the_stubs(target: str) -> None:
    errors, out = stubcheck.check(stubcheck.TARGETS[target])
    assert errors == 0, out


@pytest.mark.parametrize("target", sorted(stubcheck.TARGETS))
def test_each_target_checks_the_core_and_its_own_hal(target: str) -> None:
    every = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")}
    hals = set().union(*HALS.values())
    core = every - hals - NOT_ON_A_BOARD
    mine = HALS[target] & every
    assert _files(target) == core | mine


@pytest.mark.parametrize("target", sorted(stubcheck.TARGETS))
def test_a_wrong_call_into_the_board_api_is_caught(target: str, tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    for rel, right, wrong, word in WRONG_CALLS[target]:
        path = root / "firmware" / "meridian_fw" / rel
        text = path.read_text()
        assert right in text, f"{rel} no longer holds {right!r}: update WRONG_CALLS"
        path.write_text(text.replace(right, wrong, 1))
        errors, out = stubcheck.check(stubcheck.TARGETS[target], root)
        path.write_text(text)
        assert errors >= 1, f"{target}: {wrong!r} in {rel} passed the type check"
        line = next(ln for ln in out.splitlines() if ": error:" in ln)
        assert line.startswith(f"firmware/meridian_fw/{rel}:"), out
        assert word in out, out
