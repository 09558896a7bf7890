"""A Colovini game logs its map's text (``map_text``), so it replays, resumes and exports
after the map file has changed or gone; games logged before that read ``map`` as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.games import colovini
from meridian_table.games.colovini.maps import maps_dir
from meridian_table.store import Store
from meridian_table.store.replay import replay


def _own_map(tmp_path: Path) -> Path:
    own = tmp_path / "our-board.toml"
    text = (maps_dir() / "sample-50.toml").read_text(encoding="utf-8")
    own.write_text(text.replace('name = "Albarra"', 'name = "Albarra"\nvalue = 9'),
                   encoding="utf-8")
    return own


def test_the_logged_options_carry_the_map_text() -> None:
    game = colovini.new_game(players=4, map="sample-50", seed=3)
    assert game.options["map"] == "sample-50"
    assert game.options["map_text"] == (maps_dir() / "sample-50.toml").read_text(encoding="utf-8")
    again = colovini.new_game(**game.options)
    assert again.board_map.cities == game.board_map.cities
    assert again.board_map.islands == game.board_map.islands
    assert again.options == game.options


def test_a_game_replays_from_the_logged_text_after_its_file_changed_or_went(
    tmp_path: Path,
) -> None:
    own = _own_map(tmp_path)
    game = colovini.new_game(players=2, map=str(own), seed=5)
    for action in game.legal()[:1]:
        game.play(action)
    logged = json.loads(json.dumps(game.options))  # as the store keeps it
    own.write_text("side = 5\n", encoding="utf-8")  # edited into something else
    changed = colovini.new_game(**logged)
    assert changed.board_map.islands["A"].value == 9
    own.unlink()
    gone = colovini.new_game(**logged)
    assert gone.board_map.name == "our-board" and gone.board_map.islands["A"].value == 9


def test_a_game_logged_before_the_text_reads_its_map_by_name() -> None:
    old = colovini.new_game(players=3, map="sample-40", deck="digital", seed=1,
                            names=["Ann", "Bob", "Cid"])
    assert old.board_map.name == "sample-40" and old.options["map_text"]


def test_a_logged_text_that_is_not_a_map_is_an_error_naming_it() -> None:
    with pytest.raises(colovini.MapError, match="the map 'mine.toml' logged with the game"):
        colovini.new_game(players=4, map="mine.toml", map_text="side = 7\n")
    with pytest.raises(ValueError, match="map_text=3"):
        colovini.new_game(players=4, map_text=3)


def _headless(*args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(
        main, ["play", "colovini", "--headless", "--board", "sim", "--settle-ms", "30", *args],
        input="wait\nquit\n")
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_resume_replay_and_export_need_no_map_file(tmp_path: Path) -> None:
    own = _own_map(tmp_path)
    db = tmp_path / "games.sqlite3"
    _headless("--players", "Ann,Bob", "--map", str(own), "--db", str(db))
    own.unlink()
    with Store.open(db) as store:
        (info,) = store.games()
        assert info.options["map"] == str(own) and "[meridians]" in str(info.options["map_text"])
        assert replay(store, info.id).engine.board_map.islands["A"].value == 9
    records = _headless("--resume", "--db", str(db))
    ready = next(r for r in records if r["event"] == "ready")
    assert ready["resumed"] and ready["game_id"] == info.id
    state = next(r["state"] for r in records if r["event"] == "full-state")
    assert isinstance(state, dict) and "map_text" not in state["board"]
    exported = CliRunner().invoke(main, ["export", str(info.id), "--format", "record",
                                         "--db", str(db)])
    assert exported.exit_code == 0, exported.output
    assert f"Map: {own}" in exported.output
    replayed = CliRunner().invoke(main, ["replay", str(info.id), "--db", str(db)])
    assert replayed.exit_code == 0, replayed.output
    assert "map_text=<" in replayed.output and "[meridians]" not in replayed.output
