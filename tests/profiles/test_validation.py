"""One test per class of profile error: the message names the file, the key and the fix."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from meridian_table.games import registry
from meridian_table.profiles import ProfileError, load_profile

Mutation = Callable[[dict[str, Any]], None]


def _write(tmp_path: Path, base: str, mutate: Mutation) -> Path:
    data = load_profile(base).to_dict()
    mutate(data)
    path = tmp_path / f"{base}-bad.json"
    path.write_text(json.dumps(data))
    return path


def _error(tmp_path: Path, mutate: Mutation, base: str = "kato-114") -> ProfileError:
    path = _write(tmp_path, base, mutate)
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message  # names the file
    assert info.value.fix and info.value.fix in message  # says what to do
    return info.value


def _check(err: ProfileError, key: str, *fragments: str) -> None:
    assert err.key == key, str(err)
    assert f": {key}: " in str(err)
    for fragment in fragments:
        assert fragment in str(err), str(err)


def test_unknown_game(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d.update(game="chess"))
    _check(err, "game", '"chess" is not a game', "use one of " + ", ".join(registry.ids()))


def test_bad_kato_size(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["variant"].update(size=8))
    _check(err, "variant.size", "8 is not a Kato board size", "use 5 (80 points), 6 (114) or 7 (154)")


def test_bad_colovini_side(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["variant"].update(side=45), base="colovini-50")
    _check(err, "variant.side", "45 is not a Colovini board side", "use 50")


def test_empire_planets_must_match_the_tokens(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["variant"]["planets"].update(orange=4), base="empire-in-space")
    _check(err, "variant.planets", "adds up to 12", "add up to 11")


def test_duplicate_matrix_position(tmp_path: Path) -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["sites"]["A2"]["pos"] = d["sites"]["A1"]["pos"]

    err = _error(tmp_path, mutate)
    _check(err, "sites.A2.pos", "matrix position 0 is already used by A1", "calibrate")


def test_button_on_a_site_position(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["buttons"].update(undo=5))
    _check(err, "buttons.undo", "matrix position 5 is already used by A6", "its own position")


def test_duplicate_led(tmp_path: Path) -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["sites"]["B1"]["led"] = d["sites"]["A1"]["led"]

    err = _error(tmp_path, mutate)
    _check(err, "sites.B1.led", "LED 0 is already used by A1", "its own LED")


def test_led_outside_the_strip(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["sites"]["A1"].update(led=114))
    _check(err, "sites.A1.led", "114 is not an LED index of the 114-LED strip (0..113)")


def test_site_missing_from_the_profile(tmp_path: Path) -> None:
    def mutate(d: dict[str, Any]) -> None:
        del d["sites"]["G6"]
        del d["sites"]["M6"]

    err = _error(tmp_path, mutate)
    _check(err, "sites", "2 site(s) of the Kato board of size 6 are missing: G6, M6",
           "meridian-table calibrate")


def test_site_unknown_to_the_game(tmp_path: Path) -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["sites"]["N1"] = {"pos": 120, "led": None}
        del d["buttons"]["minus"]

    err = _error(tmp_path, mutate)
    _check(err, "sites.N1", "is not a site of the Kato board of size 6", "A1, A2, A3")


def test_colovini_city_beyond_the_side(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["sites"].update({"3.5": {"pos": 59, "led": None}}),
                 base="colovini-40")
    _check(err, "sites.3.5", "is not a site of the 40-city Colovini side")


def test_pin_not_on_a_pico(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["leds"].update(pin=30))
    _check(err, "leds.pin", "GP30 does not exist on a Pico", "GP0..GP22 or GP26..GP28")


def test_pin_reserved_on_the_pico(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["matrix"]["col_pins"].__setitem__(0, 25))
    _check(err, "matrix.col_pins[0]", "GP25 is used on the Pico itself", "pick a free GPIO")


def test_pin_used_twice(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["leds"].update(pin=3))
    _check(err, "leds.pin", "GP3 is already used by matrix.row_pins[3]", "its own GPIO")


def test_pin_list_length(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["matrix"]["row_pins"].pop())
    _check(err, "matrix.row_pins", "lists 10 pins for 11 rows", "exactly one GPIO per row")


def test_budget_over_usb(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["leds"].update(budget_ma=480))
    _check(err, "leds.budget_ma", "480 mA for the LEDs plus about 50 mA for the Pico is more "
           "than the 500 mA USB gives", "at most 450 mA", "external")


def test_budget_over_an_external_supply(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["leds"].update(budget_ma=3000), base="kato-154")
    _check(err, "leds.budget_ma", "than the 3000 mA the 5 V supply gives", "at most 2950 mA")


def test_budget_below_the_idle_draw(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["leds"].update(budget_ma=100))
    _check(err, "leds.budget_ma", "idle draw of 114 LEDs (114 x 1 mA = 114 mA)", "above 114 mA")


def test_debounce_window(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["debounce"].update(scans=15, scan_period_ms=4))
    _check(err, "debounce.scans", "15 scans x 4 ms = 60 ms is outside the 2..50 ms",
           "4 x 2 ms is the default")


def test_debounce_settle_time(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["debounce"].update(settle_us=500))
    _check(err, "debounce.settle_us", "11 rows x 500 us", "at most 136 us")


def test_debounce_value_range(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["debounce"].update(scans=1))
    _check(err, "debounce.scans", "1 is outside 2..15", "4 is the default")


def test_matrix_too_small_for_the_sites(tmp_path: Path) -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["matrix"].update(rows=10, row_pins=list(range(10)))

    err = _error(tmp_path, mutate)
    _check(err, "matrix", "10 x 11 = 110 positions cannot hold 114 sites and 7 buttons",
           "add rows or columns")


def test_position_outside_the_matrix(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["buttons"].update(minus=121))
    _check(err, "buttons.minus", "position 121 is outside the 11 x 11 matrix (0..120)",
           "rows x cols is too small")


def test_unknown_button(tmp_path: Path) -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["buttons"]["meridian1"] = d["buttons"].pop("swap")

    err = _error(tmp_path, mutate)
    _check(err, "buttons.meridian1", "is not a button of a kato board", "confirm, undo")


def test_shift_chain_too_short(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["matrix"]["sr"].update(bits=160), base="kato-154")
    _check(err, "matrix.sr.bits", "160 bits (20 chips) cannot read the 7 x 24 = 168 positions",
           "use 168 bits (21 chips)")


def test_shift_chain_too_slow_for_the_scan_period(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["debounce"].update(scan_period_ms=2), base="kato-154")
    _check(err, "debounce.scan_period_ms", "shifting 168 bits takes about 1344 us",
           "at least 3")


def test_snapshot_frame_too_long(tmp_path: Path) -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["matrix"].update(rows=26, cols=30)
        d["matrix"]["sr"].update(bits=784)

    err = _error(tmp_path, mutate, base="kato-154")
    _check(err, "matrix.rows", "259-byte SNAP frame", "fewer rows")


def test_shift_chain_partial_chip(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["matrix"]["sr"].update(bits=20), base="kato-154")
    _check(err, "matrix.sr.bits", "20 is not a whole number of 74HC165 chips", "8 bits per chip")


def test_wrong_scanner_keys(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["matrix"].update(row_pins=[26]), base="kato-154")
    _check(err, "matrix.row_pins", "not used by the sr165 scanner", "remove it")


def test_usb_supply_is_fixed(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["power"].update(supply_ma=2000))
    _check(err, "power.supply_ma", "fixed at 500 mA", '"external"')


def test_misspelt_top_level_key(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d.update(buttonz={}))
    _check(err, "buttonz", "is not a profile key", "fix the spelling")


def test_wrong_type(tmp_path: Path) -> None:
    err = _error(tmp_path, lambda d: d["leds"].update(brightness="bright"))
    _check(err, "leds.brightness", 'must be a whole number, found "bright"', "25 %")


def test_unreadable_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"name": "x",')
    with pytest.raises(ProfileError) as info:
        load_profile(path)
    assert str(info.value).startswith(f"{path}: (file): is not valid JSON")
    assert "fix the syntax" in str(info.value)


def test_unknown_profile_name() -> None:
    with pytest.raises(ProfileError) as info:
        load_profile("kato-115")
    assert "kato-115: (name): no board profile has this name" in str(info.value)
    assert "kato-114" in str(info.value)  # lists the ones that exist


def test_missing_profile_file(tmp_path: Path) -> None:
    with pytest.raises(ProfileError) as info:
        load_profile(tmp_path / "nope.json")
    assert "no such profile file" in str(info.value) and "check the path" in str(info.value)


def test_profile_error_is_a_value_error() -> None:
    assert issubclass(ProfileError, ValueError)
