"""The shipped board profiles load, agree with the game geometry and round-trip."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from meridian_fw import config as fw_config
from meridian_fw import wire
from meridian_table.games.kato import geometry as kato_geometry
from meridian_table.profiles import (
    Site,
    dumps_profile,
    geometry,
    list_profiles,
    load_profile,
    pico,
    profile_from_dict,
    save_profile,
    shipped_profile,
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ["colovini-40", "colovini-50", "empire-in-space", "kato-114", "kato-154", "kato-80"]
PROTOCOL_KEYS = {
    "board", "scanner", "rows", "cols", "led_pin", "leds", "led_order",
    "brightness", "budget_ma", "ma_per_channel", "idle_ma_per_led", "debounce_scans",
    "scan_period_ms", "settle_us", "buttons",
}


def test_every_shipped_profile_is_listed() -> None:
    assert set(SHIPPED) <= set(list_profiles())


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_profile_loads_and_is_consistent(name: str) -> None:
    profile = load_profile(name)
    assert profile.name == name
    assert profile.path == shipped_profile(name)
    expected = geometry.expected_sites(profile.game, profile.variant)
    assert list(profile.sites) == list(expected)
    positions = [s.pos for s in profile.sites.values()] + list(profile.buttons.values())
    assert len(set(positions)) == len(positions)
    assert all(0 <= p < profile.rows * profile.cols for p in positions)
    leds = sorted(s.led for s in profile.sites.values() if s.led is not None)
    assert leds == list(range(profile.leds))
    assert profile.gpio_count <= len(pico.USABLE_GPIOS)
    assert set(profile.buttons) >= set(geometry.CONTROL_BUTTONS)
    for site, where in profile.sites.items():
        assert profile.site_at(where.pos) == site
        assert where.led is not None and profile.site_at_led(where.led) == site


def test_kato_profiles_cover_the_engine_points() -> None:
    for size, name in ((5, "kato-80"), (6, "kato-114"), (7, "kato-154")):
        profile = load_profile(name)
        assert profile.variant == {"size": size}
        assert set(profile.sites) == set(kato_geometry.points(size))


def test_colovini_profiles_have_cities_and_meridian_buttons() -> None:
    fifty = load_profile("colovini-50")
    forty = load_profile("colovini-40")
    assert len(fifty.sites) == 50 and "10.5" in fifty.sites
    assert len(forty.sites) == 40 and "10.5" not in forty.sites and "10.4" in forty.sites
    for profile in (fifty, forty):
        assert {f"meridian{m}" for m in range(1, 11)} <= set(profile.buttons)
        # Meridian m's row holds its cities and its button: the wiring is readable.
        for m in range(1, 11):
            row, _ = profile.row_col(profile.buttons[f"meridian{m}"])
            assert row == m - 1
            assert profile.row_col(profile.sites[f"{m}.1"].pos) == (m - 1, 0)


def test_empire_profile_has_quadrants_and_bodies() -> None:
    profile = load_profile("empire-in-space")
    quadrants = [s for s in profile.sites if s.startswith("S")]
    assert quadrants[0] == "S1Q1" and quadrants[-1] == "S8Q4" and len(quadrants) == 32
    planets = [s for s in profile.sites if s.startswith("planet.")]
    moons = [s for s in profile.sites if s.startswith("moon.")]
    assert len(planets) == 11 and len(moons) == 15


def test_site_at_names_buttons_and_gaps() -> None:
    profile = load_profile("kato-114")
    assert profile.site_at(profile.buttons["confirm"]) == "confirm"
    assert profile.site_at(profile.rows * profile.cols + 5) is None
    assert profile.site_at(profile.sites["G6"].pos) == "G6"
    assert profile.position(*profile.row_col(57)) == 57


@pytest.mark.parametrize("name", SHIPPED)
def test_firmware_config_follows_the_protocol(name: str) -> None:
    profile = load_profile(name)
    config = profile.firmware_config()
    assert PROTOCOL_KEYS <= set(config)
    if profile.scanner == "matrix":
        assert len(config["col_pins"]) == config["cols"] and "sr" not in config
        assert len(config["row_pins"]) == config["rows"]
    else:
        assert set(config["sr"]) == {"load", "clk", "data", "bits"} and "col_pins" not in config
        assert config["sr"]["bits"] >= config["rows"] * config["cols"]
    assert config["board"] == name
    assert config["buttons"] == sorted(profile.buttons.values())
    # The board id travels in HELLO: it must be a single wire field.
    assert " " not in config["board"] and len(config["board"]) < wire.MAX_LINE // 4
    json.dumps(config)  # JSON-able as is
    # The firmware's own validator accepts it (no FAULT CONFIG on the board).
    assert fw_config.validate(config)[1] is None


def test_kato_154_needs_the_shift_register_chain() -> None:
    """154 points + 7 buttons = 161 positions > 156, the most 25 GPIOs can scan directly."""
    profile = load_profile("kato-154")
    free = len(pico.USABLE_GPIOS) - 1  # one GPIO drives the LEDs
    assert pico.direct_matrix_capacity(free) == 156
    assert len(profile.sites) + len(profile.buttons) > pico.direct_matrix_capacity(free)
    assert profile.scanner == "sr165" and profile.shift_chain is not None
    assert profile.gpio_count == 3 + 1 and profile.chips == 21


def test_usb_descriptor_warning_and_missing_buttons_warning() -> None:
    data = load_profile("kato-114").to_dict()
    del data["buttons"]["swap"]
    data["leds"]["budget_ma"] = 400   # more than the USB descriptor's 250 mA allows
    profile = profile_from_dict(data, "t.json")
    assert any("250 mA" in w for w in profile.warnings)
    assert any("no swap button" in w for w in profile.warnings)
    data["leds"]["budget_ma"] = 150
    quiet = profile_from_dict(data, "t.json")
    assert not any("250 mA" in w for w in quiet.warnings)


def test_round_trip_through_the_file_format(tmp_path: Path) -> None:
    profile = load_profile("colovini-50")
    target = tmp_path / "copy.json"
    assert save_profile(profile, target) is None
    again = load_profile(target)
    assert again.to_dict() == profile.to_dict()
    assert target.read_text() == shipped_profile("colovini-50").read_text()
    # Saving over it keeps a backup of what was there.
    changed = profile_from_dict(
        {**profile.to_dict(), "title": "changed"}, str(target)
    )
    backup = save_profile(changed, target)
    assert backup is not None and load_profile(backup).title == profile.title
    assert load_profile(target).title == "changed"


def test_toml_profiles_load_too(tmp_path: Path) -> None:
    data = load_profile("colovini-40").to_dict()
    lines = [f'{k} = {json.dumps(data[k])}' for k in ("format", "name", "title", "game")]
    lines.append("notes = " + json.dumps(data["notes"]))
    for table in ("variant", "matrix", "leds", "power", "debounce", "buttons"):
        lines.append(f"[{table}]")
        for k, v in data[table].items():
            if isinstance(v, dict):
                continue
            lines.append(f"{json.dumps(k)} = {json.dumps(v)}")
    lines.append("[sites]")
    for site, entry in data["sites"].items():
        lines.append(f'"{site}" = {{ pos = {entry["pos"]}, led = {entry["led"]} }}')
    path = tmp_path / "forty.toml"
    path.write_text("\n".join(lines) + "\n")
    assert load_profile(path).sites == load_profile("colovini-40").sites


def test_dumps_keeps_one_site_per_line() -> None:
    text = dumps_profile(load_profile("kato-80").to_dict())
    assert '    "A1": {"pos": 0, "led": 0},\n' in text
    assert '"row_pins": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],' in text


def test_the_generator_writes_valid_profiles_and_keeps_existing_ones(tmp_path: Path) -> None:
    tool = ROOT / "tools" / "gen_profiles.py"
    run = [sys.executable, str(tool), "--out", str(tmp_path)]
    first = subprocess.run(run, capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stderr
    for name in SHIPPED:
        assert load_profile(tmp_path / f"{name}.json").name == name
    # A calibrated (edited) profile is never overwritten without --force.
    edited = tmp_path / "kato-80.json"
    edited.write_text(edited.read_text().replace('"brightness": 64', '"brightness": 50'))
    again = subprocess.run(run, capture_output=True, text=True, check=False)
    assert "kato-80.json exists and differs; kept" in again.stdout
    assert '"brightness": 50' in edited.read_text()
    check = subprocess.run([*run, "--check"], capture_output=True, text=True, check=False)
    assert check.returncode == 1 and "kato-80.json differs" in check.stderr


def test_sites_are_named_tuples() -> None:
    assert Site(3, None).led is None and Site(3, 4) == (3, 4)


def test_profile_show_json_gives_a_shipped_profile_to_edit(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from meridian_table.cli.main import main

    result = CliRunner().invoke(main, ["profile", "show", "kato-80", "--json"])
    assert result.exit_code == 0, result.output
    assert result.output == shipped_profile("kato-80").read_text()
    mine = tmp_path / "mine.json"
    mine.write_text(result.output)
    assert load_profile(mine).sites == load_profile("kato-80").sites
    both = CliRunner().invoke(main, ["profile", "show", "kato-80", "--json", "--config"])
    assert both.exit_code == 2 and "not both" in both.output
