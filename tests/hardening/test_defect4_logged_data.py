"""Defect 4 of issue 27: every game logs the content of each data file it depends on, and
a replay never reads the original file (Empire's map and cards; Colovini's map)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.games.empire import record
from meridian_table.games.empire.files import cards_text, map_text
from meridian_table.games.registry import create_adapter, spec
from meridian_table.store import Store
from meridian_table.store.replay import replay
from meridian_table.table.storejournal import start_game


def _own_files(tmp_path: Path) -> tuple[Path, Path]:
    own_map = tmp_path / "my-map.toml"
    own_cards = tmp_path / "my-cards.toml"
    own_map.write_text(map_text("sample")[0], encoding="utf-8")
    own_cards.write_text(cards_text("sample")[0], encoding="utf-8")
    return own_map, own_cards


def _log_game(db: Path, own_map: Path, own_cards: Path) -> int:
    empire = spec("empire")
    assert empire.prepare is not None
    options = empire.prepare({"map": str(own_map), "cards": str(own_cards), "seed": 5,
                              "names": ["Ann", "Bob"]})
    adapter = create_adapter("empire", options, {"sensing": "off"}, {})
    with Store.open(db) as store:
        journal = start_game(store, adapter, ["Ann", "Bob"])
        return journal.game_id


def test_logged_data_empire_replays_after_its_files_change_and_go(tmp_path: Path) -> None:
    own_map, own_cards = _own_files(tmp_path)
    db = tmp_path / "log.sqlite3"
    gid = _log_game(db, own_map, own_cards)
    with Store.open(db, readonly=True) as store:
        logged = store.game(gid).options
        first = replay(store, gid).engine
    assert logged["map_text"] == map_text("sample")[0]
    assert logged["cards_text"] == cards_text("sample")[0]
    barlow = first.cards.planets["Barlow"].cost  # type: ignore[attr-defined]
    # Editing the cards must not change the replay; moving the map must not stop it.
    own_cards.write_text(own_cards.read_text(encoding="utf-8").replace(
        '"Barlow" = { ring = "yellow", cost = 4', '"Barlow" = { ring = "yellow", cost = 9'),
        encoding="utf-8")
    own_map.rename(tmp_path / "moved.toml")
    with Store.open(db, readonly=True) as store:
        again = replay(store, gid).engine
    assert again.cards.planets["Barlow"].cost == barlow == 4  # type: ignore[attr-defined]
    result = CliRunner().invoke(main, ["export", "--db", str(db), "--format", "record",
                                       str(gid)])
    assert result.exit_code == 0, result.output
    assert "Map-Text: " in result.output and "Cards-Text: " in result.output
    _headers, parsed = record.parse(result.output)
    assert parsed.cards.planets["Barlow"].cost == 4


def test_logged_data_empire_game_options_carry_both_texts() -> None:
    game = spec("empire").new_game({"names": ["Ann", "Bob"]}, 3)
    assert game.options["map_text"].startswith("#") or "format" in game.options["map_text"]
    assert "[planets]" in game.options["cards_text"]
