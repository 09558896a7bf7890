"""Map files: the shipped samples, and one test per validation error (file, line, fix)."""

from __future__ import annotations

import pytest

from meridian_table.games import colovini
from meridian_table.games.colovini import MapError
from meridian_table.games.colovini.maps import maps_dir

MAPS = maps_dir()
SAMPLE = (MAPS / "sample-50.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(("name", "side", "cities", "islands"), [
    ("sample-50", 5, 50, 13), ("sample-40", 4, 40, 11),
])
def test_shipped_samples_follow_the_brief(name: str, side: int, cities: int, islands: int) -> None:
    board = colovini.load_map(name)
    assert (board.side, len(board.cities), len(board.islands)) == (side, cities, islands)
    for island in board.islands.values():
        assert 3 <= len(island.cities) <= 5
        meridians = sorted(board.cities[c].meridian for c in island.cities)
        assert len(set(meridians)) == len(meridians)
        assert meridians == list(range(meridians[0], meridians[0] + len(meridians)))
        if any(board.cities[c].capital for c in island.cities):
            assert len(island.cities) >= 4
    assert "NOT the published board" in (MAPS / f"{name}.toml").read_text(encoding="utf-8")


def test_city_ids_count_from_the_north() -> None:
    board = colovini.load_map("sample-50")
    assert [c.id for c in board.meridian(3)] == ["3.1", "3.2", "3.3", "3.4", "3.5"]
    assert board.city(2, 2).capital and board.city(2, 2).island == "D"


def _line(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def test_duplicate_city_is_reported_with_its_line() -> None:
    text = SAMPLE + '3 = ["A", "D", "B", "H*", "J"]\n'
    with pytest.raises(MapError) as info:
        colovini.parse_map(text, "dup.toml")
    assert info.value.line == len(text.splitlines())
    assert "dup.toml:" in str(info.value) and "duplicate city" in str(info.value)
    assert "keep one line per meridian" in str(info.value)


def test_island_with_two_cities_on_one_meridian() -> None:
    text = SAMPLE.replace('4  = ["D", "G", "C", "H", "J*"]', '4  = ["D", "D", "C", "H", "J*"]')
    assert text != SAMPLE
    with pytest.raises(MapError, match="two cities on meridian 4") as info:
        colovini.parse_map(text, "m.toml")
    assert info.value.line == _line(text, "4 ")
    assert "give 4.2 or 4.1 to another island" in info.value.fix


def test_capital_on_a_small_island() -> None:
    text = SAMPLE.replace('1  = ["A",', '1  = ["A*",')
    with pytest.raises(MapError, match="capital on a small island") as info:
        colovini.parse_map(text, "m.toml")
    assert info.value.line == _line(text, "1 ")
    assert "4 or more" in info.value.fix


def test_wrong_city_count_on_a_meridian_and_missing_meridians() -> None:
    text = SAMPLE.replace('10 = ["E", "K", "F", "I", "M"]', '10 = ["E", "K", "F", "I"]')
    with pytest.raises(MapError, match="wrong city count: meridian 10 lists 4") as info:
        colovini.parse_map(text, "m.toml")
    assert info.value.line == _line(text, "10 ")
    text = SAMPLE.replace('10 = ["E", "K", "F", "I", "M"]\n', "")
    with pytest.raises(MapError, match=r"meridians \[10\] are missing"):
        colovini.parse_map(text, "m.toml")


def test_bad_side_toml_syntax_and_stray_island() -> None:
    with pytest.raises(MapError, match="side is 6") as info:
        colovini.parse_map(SAMPLE.replace("side = 5", "side = 6"), "m.toml")
    assert info.value.line == _line(SAMPLE, "side")
    with pytest.raises(MapError, match="not valid TOML") as info:
        colovini.parse_map(SAMPLE.replace("side = 5", "side = = 5"), "m.toml")
    assert info.value.line == _line(SAMPLE, "side")
    with pytest.raises(MapError, match="'Z' is described but no city"):
        colovini.parse_map(SAMPLE + '\n[islands.Z]\nname = "Nowhere"\n', "m.toml")


def test_cities_as_inline_tables_and_unknown_map_names() -> None:
    text = SAMPLE.replace('1  = ["A", "D", "B", "H", "J"]',
                          '1  = [{island = "A"}, "D", "B", "H", {island = "J", capital = false}]')
    assert text != SAMPLE
    assert colovini.parse_map(text).cities["1.5"].island == "J"
    with pytest.raises(MapError, match="sample-40, sample-50"):
        colovini.load_map("no-such-map")
