"""The committed wiring diagrams are exactly what tools/render_wiring.py draws from
the committed profiles, so the picture cannot drift from the data."""

from __future__ import annotations

import importlib.util
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from meridian_table.profiles import list_profiles, load_profile, resolve

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("render_wiring", ROOT / "tools" / "render_wiring.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RENDER = _tool()
#: The profiles this project's own games ship: a game from another package (the toy)
#: brings its own boards and draws its own diagrams.
OURS = [name for name in list_profiles() if ROOT / "host" in resolve(name).resolve().parents]


@pytest.mark.parametrize("name", OURS)
def test_committed_svg_matches_the_profile(name: str) -> None:
    path = ROOT / "hardware" / "diagrams" / f"{name}.svg"
    assert path.exists(), f"{path} is missing; run tools/render_wiring.py"
    fresh = RENDER.render(load_profile(name))
    assert path.read_text(encoding="utf-8") == fresh, (
        f"{path} is stale; run .venv/bin/python tools/render_wiring.py and commit it"
    )


@pytest.mark.parametrize("name", ["kato-114", "kato-154", "colovini-40", "empire-in-space"])
def test_diagram_shows_every_site_pin_and_button(name: str) -> None:
    profile = load_profile(name)
    root = ET.fromstring(RENDER.render(profile))
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    words = set(" ".join(texts).split())
    assert set(profile.sites) <= words
    assert set(profile.buttons) <= words
    used = set(profile.row_pins) | set(profile.col_pins) | {profile.led_pin}
    if profile.shift_chain is not None:
        used |= {profile.shift_chain.load, profile.shift_chain.clk, profile.shift_chain.data}
    assert {f"GP{p}" for p in used} <= words
    # The LED chain is drawn through every site with an LED, in LED order.
    chain = next(root.iter(f"{SVG}polyline"))
    assert len(chain.get("points", "").split()) == profile.leds


def test_check_mode_reports_a_stale_diagram(tmp_path: Path) -> None:
    stale = tmp_path / "x.svg"
    stale.write_text("<svg/>")
    assert RENDER.main(["kato-80", "-o", str(stale), "--check"]) == 1
    assert RENDER.main(["kato-80", "-o", str(stale)]) == 0
    assert RENDER.main(["kato-80", "-o", str(stale), "--check"]) == 0


def test_committed_bom_matches_the_profiles() -> None:
    spec = importlib.util.spec_from_file_location("render_bom", ROOT / "tools" / "render_bom.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "hardware" / "BOM.md").read_text(encoding="utf-8") == module.render(), (
        "hardware/BOM.md is stale; run .venv/bin/python tools/render_bom.py and commit it"
    )


def test_bom_quantities_follow_the_wiring() -> None:
    from meridian_table.maker.bom import bill_of_materials

    def qty(name: str, part: str) -> int:
        return sum(line.qty for line in bill_of_materials(load_profile(name)) if part in line.part)

    assert qty("kato-114", "1N4148") == 114 + 7
    assert qty("kato-114", "74HC165") == 0
    assert qty("kato-154", "1N4148") == 0 and qty("kato-154", "74HC165") == 21
    assert qty("colovini-50", "push button") == 17
    assert qty("kato-154", "injection lead") == 4 and qty("kato-114", "injection lead") == 0


def _texts(name: str) -> str:
    root = ET.fromstring(RENDER.render(load_profile(name)))
    return " ".join(" ".join((t.text or "").split()) for t in root.iter(f"{SVG}text"))


@pytest.mark.parametrize("name", OURS)
def test_every_diagram_is_wiring_instructions_with_the_picos_physical_pins(name: str) -> None:
    profile = load_profile(name)
    text = _texts(name)
    # The power pins, by their header numbers (the same on a Pico 2).
    for pin, label in ((40, "VBUS"), (36, "3V3(OUT)"), (38, "GND")):
        assert f"pin {pin} {label}" in text, (pin, label)
    assert "GND also on pins 3, 8, 13, 18, 23, 28, 33" in text
    # Every GP used, at its physical pin.
    for gp in {*profile.row_pins, *profile.col_pins, profile.led_pin}:
        assert f"pin {RENDER.PICO_PIN[gp]} GP{gp}" in text
    # The LED and power section, part by part.
    for part in ("fuse", "1000 uF / 10 V", "74AHCT125", "330 ohm", "DIN of LED 0", "inrush"):
        assert part in text, part
    assert ("DC jack" in text) == (profile.power_source == "external")


@pytest.mark.parametrize("name", ["kato-114", "colovini-40", "empire-in-space"])
def test_each_matrix_cell_is_a_reed_switch_and_a_diode_between_its_lines(name: str) -> None:
    profile = load_profile(name)
    svg = RENDER.render(profile)
    used = sum(1 for pos in range(profile.positions) if profile.site_at(pos) is not None)
    assert svg.count('rx="3" fill="none"') == used      # one reed's glass per switch
    assert svg.count("Z M") == used                     # one diode per switch
    assert "column line -> reed -> diode -> row line" in _texts(name)


def test_kato_154_draws_the_74hc165_chain_at_pin_level() -> None:
    profile = load_profile("kato-154")
    chain = profile.shift_chain
    assert chain is not None
    text = _texts("kato-154")
    for words in ("CLK INH (15) -> GND", "VCC (16) -> 3V3 (pin 36)", "GND (8) -> GND",
                  f"SH/LD (1) <- GP{chain.load} (pin {RENDER.PICO_PIN[chain.load]})",
                  f"CLK (2) <- GP{chain.clk} (pin {RENDER.PICO_PIN[chain.clk]})",
                  f"chip 1's QH (9) -> GP{chain.data}",
                  f"chip {profile.chips}'s SER (10) -> GND"):
        assert words in text, words
    # Each chip: its inputs with their pin numbers, and where QH and SER go.
    assert text.count("H( 6)") == profile.chips and text.count("A(11)") == profile.chips
    assert "QH(9) -> chip 1 SER(10)" in text and "SER(10) <- chip 3 QH(9)" in text


def test_a_broken_profile_is_explained_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "broken", "game": "kato"}')
    assert RENDER.main([str(broken)]) == 2
    err = capsys.readouterr().err
    assert "cannot draw" in err and "profile check" in err and "Traceback" not in err
