"""The committed wiring diagrams are exactly what tools/render_wiring.py draws from
the committed profiles, so the picture cannot drift from the data."""

from __future__ import annotations

import importlib.util
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from meridian_table.profiles import list_profiles, load_profile

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("render_wiring", ROOT / "tools" / "render_wiring.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RENDER = _tool()


@pytest.mark.parametrize("name", list_profiles())
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
