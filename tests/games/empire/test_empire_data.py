"""The board map and card set files: the shipped samples, and errors that name the file,
the line, the key and a fix, with nothing half-loaded."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.games.empire import DataError, load_cards, load_map, load_pair
from meridian_table.games.empire.board import expected_sites
from meridian_table.profiles import load_profile

DATA = resources.files("meridian_table.games.empire").joinpath("data")
MAP = DATA.joinpath("sample-map.toml").read_text(encoding="utf-8")
CARDS = DATA.joinpath("sample-cards.toml").read_text(encoding="utf-8")


def _line(text: str, start: str) -> int:
    return next(n for n, row in enumerate(text.splitlines(), 1) if row.startswith(start))


def _bad(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_samples_load_and_say_they_are_ours() -> None:
    board, cards = load_pair()
    assert "ours" in board.title and "ours" in cards.title
    assert "NOT a transcription" in MAP and "OURS" in CARDS
    assert len(board.quadrants) == 32 and len(board.bodies) == 26
    barlow = cards.planets["Barlow"]
    assert (barlow.cost, barlow.production, barlow.capacity) == (4, 2, 3)
    assert all((m.cost, m.production, m.capacity) == (2, 1, 1) for m in cards.moons.values())
    assert {c.name for c in cards.planets.values() if c.inner} == {
        "New Earth", "Slate", "Concordia", "Nexus"}
    assert {"Thrace", "Moji", "Hadron"} <= set(cards.planets)


def test_the_map_matches_the_board_profile_sites() -> None:
    profile = load_profile("empire-in-space")
    assert load_map().sites() == expected_sites(profile.variant)
    assert set(load_map().sites()) == set(profile.sites)


def test_no_adjacency_crosses_the_centre() -> None:
    board = load_map()
    for quad in board.quadrants.values():
        for other in quad.adjacent:
            both = quad.centre and board.quadrants[other].centre
            assert not both or abs(quad.sector - board.quadrants[other].sector) in (0, 1, 7)
    assert board.distance["S1Q1"]["S5Q1"] > 2  # no short cut through the middle


@pytest.mark.parametrize(("start", "old", "new", "key", "fix"), [
    ('S1Q1 =', 'capacity = 1', 'capacity = 0', "quadrants.S1Q1.capacity", "whole number"),
    ('S1Q1 =', '"S8Q2"]', '"S5Q1"]', "quadrants.S1Q1.adjacent", 'add "S1Q1"'),
    ('"planet.white.1"', 'borders = [2, 3]', 'borders = [2]', "bodies.planet.white.1.borders",
     "write borders = [2, 3]"),
    ('"moon.3"', 'ring = "grey"', 'ring = "blue"', "bodies.moon.3.ring", "grey for a moon"),
    ('"planet.yellow.2"', 'orbit = ["S3Q1", "S3Q2", "S3Q3", "S3Q4"]', 'orbit = ["S3Q1"]',
     "bodies.planet.yellow.2.orbit", "2 to 4 quadrants"),
])
def test_a_bad_map_names_file_line_key_and_fix(tmp_path: Path, start: str, old: str, new: str,
                                                key: str, fix: str) -> None:
    line = _line(MAP, start)
    rows = MAP.splitlines()
    assert old in rows[line - 1]
    rows[line - 1] = rows[line - 1].replace(old, new)
    path = _bad(tmp_path, "bad-map.toml", "\n".join(rows) + "\n")
    with pytest.raises(DataError) as err:
        load_map(path)
    assert err.value.source == path and err.value.key == key
    assert err.value.line == line and fix in err.value.fix
    assert str(err.value).startswith(f"{path}:{line}: {key}:")


@pytest.mark.parametrize(("start", "old", "new", "key", "fix"), [
    ('"Barlow"', '{ effect = "move", change = 1 }', '{ effect = "teleport", change = 1 }',
     "planets.Barlow.ability[0].effect", "use one of cost"),
    ('"Calder"', 'action = "colony-ship"', 'action = "dance"',
     "planets.Calder.ability[0].action", "use one of move-fighter"),
    ('"Relay"', '{ effect = "move", change = 1 }', '{ effect = "production", change = 1 }',
     "waypoints.Relay.ability[0].effect", "planet or moon card"),
    ('"Aster"', 'cost = 2', 'cost = "two"', "moons.Aster.cost", "whole number"),
    ('"Ophir"', 'capacity = 3,', 'capacity = 3, colour = "red",', "planets.Ophir.colour",
     "use only"),
])
def test_bad_cards_name_file_line_card_and_field(tmp_path: Path, start: str, old: str, new: str,
                                                 key: str, fix: str) -> None:
    line = _line(CARDS, start)
    rows = CARDS.splitlines()
    assert old in rows[line - 1]
    rows[line - 1] = rows[line - 1].replace(old, new)
    path = _bad(tmp_path, "bad-cards.toml", "\n".join(rows) + "\n")
    with pytest.raises(DataError) as err:
        load_cards(path)
    assert err.value.key == key and err.value.line == line and fix in err.value.fix


def test_an_edge_across_the_centre_is_refused(tmp_path: Path) -> None:
    text = MAP.replace('"S8Q2"] }', '"S8Q2", "S5Q1"] }', 1).replace(
        'S5Q1 = { capacity = 1, centre = true, adjacent = ["S5Q2", "S5Q3", "S4Q2"] }',
        'S5Q1 = { capacity = 1, centre = true, adjacent = ["S5Q2", "S5Q3", "S4Q2", "S1Q1"] }')
    with pytest.raises(DataError) as err:
        load_map(_bad(tmp_path, "m.toml", text))
    assert err.value.key == "quadrants.S1Q1.adjacent" and "across the centre" in str(err.value)
    assert err.value.line == _line(MAP, "S1Q1 =")


def test_a_toml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = _bad(tmp_path, "broken.toml", MAP.replace('S2Q1 = {', 'S2Q1 = {{', 1))
    with pytest.raises(DataError) as err:
        load_map(path)
    assert err.value.line == _line(MAP, "S2Q1 =") and "not valid TOML" in str(err.value)


def test_counts_that_break_the_book_are_refused(tmp_path: Path) -> None:
    text = CARDS.replace('"Hadron" = { ring = "orange"', '"Hadron" = { ring = "white"')
    with pytest.raises(DataError, match="4 yellow, 5 white and 2 orange"):
        load_cards(_bad(tmp_path, "c.toml", text))


def test_nothing_is_half_loaded(tmp_path: Path) -> None:
    """A bad cards file fails the pair: no map without its cards, no game from half."""
    bad = _bad(tmp_path, "c.toml", CARDS.replace("[moons]", "[moons]\nX = 1", 1))
    with pytest.raises(DataError):
        load_pair("sample", bad)
    from meridian_table.games.empire import new_game

    with pytest.raises(DataError):
        new_game(players=2, cards=bad)


def test_empire_check_command(tmp_path: Path) -> None:
    ok = CliRunner().invoke(main, ["empire", "check"])
    assert ok.exit_code == 0, ok.output
    assert "valid map" in ok.output and "valid card set" in ok.output
    bad_map = _bad(tmp_path, "m.toml", MAP.replace('capacity = 1', 'capacity = 0', 1))
    bad_cards = _bad(tmp_path, "c.toml", CARDS.replace('"teleport"', '"x"').replace(
        '{ effect = "move", change = 1 }', '{ effect = "warp", change = 1 }', 1))
    result = CliRunner().invoke(main, ["empire", "check", "--map", bad_map, "--cards", bad_cards])
    assert result.exit_code == 1
    assert f"{bad_map}:{_line(MAP, 'S1Q1 =')}: quadrants.S1Q1.capacity" in result.output
    barlow = _line(CARDS, '"Barlow"')
    assert f"{bad_cards}:{barlow}: planets.Barlow.ability[0].effect" in result.output
    assert "Fix:" in result.output
    missing = CliRunner().invoke(main, ["empire", "check", "--map", str(tmp_path / "none.toml")])
    assert missing.exit_code == 1 and "cannot be read" in missing.output


def test_empire_check_prints_every_error_of_a_file(tmp_path: Path) -> None:
    """Issue 24: the check went on to the next entry, so one run names every mistake
    (each with its line); a planet cost off the costs table ("SETTLE Planet or Moon
    2E/4E/6E") and a moon orbiting on opposite sides are refused."""
    bad_map = _bad(tmp_path, "m.toml", MAP.replace(
        'S1Q2 = { capacity = 1,', 'S1Q2 = { capacity = 0,').replace(
        '"moon.5" = { ring = "grey", orbit = ["S1Q3", "S1Q4"], borders = [1] }',
        '"moon.5" = { ring = "grey", orbit = ["S1Q3", "S5Q3"], borders = [1, 5] }'))
    bad_cards = _bad(tmp_path, "c.toml", CARDS.replace(
        '"Barlow" = { ring = "yellow", cost = 4,', '"Barlow" = { ring = "yellow", cost = 5,').replace(
        '"Moji" = { ring = "orange", cost = 4,', '"Moji" = { ring = "orange", cost = 7,'))
    result = CliRunner().invoke(main, ["empire", "check", "--map", bad_map, "--cards", bad_cards])
    assert result.exit_code == 1
    out = result.output
    assert f"{bad_map}:{_line(MAP, 'S1Q2 =')}: quadrants.S1Q2.capacity" in out
    barlow, moji = _line(CARDS, '"Barlow"'), _line(CARDS, '"Moji"')
    assert f"{bad_cards}:{barlow}: planets.Barlow.cost: is 5" in out
    assert f"{bad_cards}:{moji}: planets.Moji.cost: is 7" in out
    fixed = _bad(tmp_path, "m2.toml", MAP.replace(
        '"moon.5" = { ring = "grey", orbit = ["S1Q3", "S1Q4"], borders = [1] }',
        '"moon.5" = { ring = "grey", orbit = ["S1Q3", "S5Q3"], borders = [1, 5] }'))
    again = CliRunner().invoke(main, ["empire", "check", "--map", fixed])
    assert again.exit_code == 1
    assert "bodies.moon.5.orbit" in again.output and "opposite sides" in again.output
