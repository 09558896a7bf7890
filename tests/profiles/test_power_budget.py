"""USB power is settled in one place (hardware/README.md, "Power"): a USB board's LED
budget plus the Pico stays within the 250 mA MicroPython's USB descriptor asks for,
so no shipped profile warns, and the BOM and README say the same figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from meridian_table.maker.bom import bill_of_materials
from meridian_table.profiles import list_profiles, load_profile, pico

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", list_profiles())
def test_no_shipped_profile_is_over_what_it_asks_usb_for(name: str) -> None:
    profile = load_profile(name)
    assert not [w for w in profile.warnings if "USB descriptor" in w], profile.warnings
    if profile.power_source == "usb":
        assert profile.budget_ma + pico.PICO_BOARD_MA <= pico.MICROPYTHON_DESCRIPTOR_MA


@pytest.mark.parametrize("name", list_profiles())
def test_the_bom_lists_fuse_cable_magnets_and_the_supply_jack(name: str) -> None:
    profile = load_profile(name)
    parts = " | ".join(f"{line.qty} {line.part} {line.why}" for line in bill_of_materials(profile))
    assert "fuse" in parts and "USB cable" in parts
    assert f"{len(profile.sites)} neodymium disc magnet" in parts
    assert "pitch must match" in parts
    assert ("DC barrel jack" in parts) == (profile.power_source == "external")
    assert ("(optional)" in parts) == (profile.shift_chain is None)


def test_the_readme_explains_the_budget_once_with_the_inrush() -> None:
    text = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    assert text.count("### Power: the one place this is decided") == 1
    assert "450 mA" not in text and "Inrush at plug-in" in text
