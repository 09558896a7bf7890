"""`profile check` reports every problem of a profile, not only the first (MAKERS.md)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.profiles import load_profile
from meridian_table.profiles.problems import all_problems


def _broken(tmp_path: Path) -> Path:
    data = load_profile("kato-114").to_dict()
    data["name"] = "mine"
    data["colour"] = "blue"                          # not a profile key
    data["matrix"]["row_pins"][3] = 25               # the on-board LED's GPIO
    data["leds"]["brightness"] = 300                 # out of range
    data["leds"]["order"] = "RGBW"                   # not a colour order
    data["debounce"]["scans"] = 40                   # out of range
    first, second = list(data["sites"])[:2]
    data["sites"][second]["led"] = data["sites"][first]["led"]   # an LED used twice
    data["buttons"]["teleport"] = data["buttons"].pop("swap")   # not a Kato button
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    return path


def test_every_problem_is_found_in_one_run(tmp_path: Path) -> None:
    path = _broken(tmp_path)
    keys = [p.key for p in all_problems(path)]
    assert keys[0] == "colour"
    assert set(keys) == {"colour", "matrix.row_pins[3]", "leds.order", "leds.brightness",
                         "debounce.scans", "sites.A2.led", "buttons.teleport"}, keys
    assert all_problems("kato-114") == []


def test_profile_check_prints_them_all(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["profile", "check", str(_broken(tmp_path))])
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "FAIL" in text and "and 6 more problem(s)" in text
    for words in ("GP25 is used on the Pico itself", "300 is outside 1..255",
                  "'RGBW'" if "'RGBW'" in text else '"RGBW" is not a colour order',
                  "40 is outside", "is already used by A1", "is not a button of a kato board",
                  "colour: is not a profile key"):
        assert words in text, words


def test_a_structural_problem_stops_the_list(tmp_path: Path) -> None:
    data = load_profile("kato-114").to_dict()
    data["game"] = "chess"
    data["leds"]["brightness"] = 0
    path = tmp_path / "x.json"
    path.write_text(json.dumps(data))
    keys = [p.key for p in all_problems(path)]
    assert keys == ["game"]   # nothing after it could be read as this game's
