"""`play colovini --deck/--seed/--map`: passed to the game, logged, and checked first."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from tests.cli.helpers import refuse

from meridian_table.cli.main import main
from meridian_table.games import colovini
from meridian_table.games.colovini.maps import MAPS_DIR
from meridian_table.store import Store


def headless_state(*args: str) -> dict[str, Any]:
    """Run `play colovini --headless ARGS` on the virtual board; the state after `wait`."""
    result = CliRunner().invoke(
        main, ["play", "colovini", "--headless", "--board", "sim", "--settle-ms", "30", *args],
        input="wait\nquit\n")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return dict(next(r["state"] for r in records if r["event"] == "full-state"))


def test_seed_deals_the_same_digital_deck_and_is_logged(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    first = headless_state("--players", "Ann,Bob", "--deck", "digital", "--seed", "42",
                           "--db", str(db))
    again = headless_state("--players", "Ann,Bob", "--seed", "42", "--db", ":memory:")
    assert first["options"]["seed"] == 42 and first["options"]["deck"] == "digital"
    assert first["message"] == again["message"]  # the same face-up cards
    engine = colovini.new_game(players=2, seed=42, deck="digital")
    assert f"cards: {', '.join(engine.face_up(0))}" in first["message"]
    with Store.open(db) as store:
        (info,) = store.games()
        assert store.game(info.id).options["seed"] == 42


def test_physical_deck_and_a_map_file_reach_the_game(tmp_path: Path) -> None:
    own = tmp_path / "my-board.toml"
    shutil.copy(MAPS_DIR / "sample-50.toml", own)
    state = headless_state("--players", "Ann,Bob", "--deck", "physical", "--map", str(own),
                           "--db", ":memory:")
    assert state["options"]["deck"] == "physical" and state["options"].get("seed") is None
    assert state["options"]["map"] == str(own)
    assert "any card left" in state["message"]  # a physical deck's cards are not known


def test_bad_colovini_options_are_clean_errors(tmp_path: Path) -> None:
    refuse(["play", "colovini", "--deck", "paper"], "--deck", "paper", code=2)
    refuse(["play", "colovini", "--seed", "-1"], "--seed", code=2)
    refuse(["play", "colovini", "--deck", "physical", "--seed", "3"], "--seed 3", "--deck digital",
           code=2)
    refuse(["play", "colovini", "--map", str(tmp_path / "nosuch.toml")], "--map", "nosuch.toml",
           code=2)
    broken = tmp_path / "broken.toml"
    broken.write_text("side = [\n", encoding="utf-8")
    refuse(["play", "colovini", "--map", str(broken)], "--map", "broken.toml", code=2)
    refuse(["play", "kato", "--seed", "3"], "No such option", "--seed", code=2)
    refuse(["play", "kato", "--map", "sample-50", "--deck", "digital"], "No such option", code=2)
    refuse(["play", "colovini", "--resume", "--seed", "3", "--db", str(tmp_path / "g.db")],
           "--resume", "--seed", code=2)


def test_help_shows_the_colovini_options_with_an_example() -> None:
    result = CliRunner().invoke(main, ["play", "colovini", "--help"], terminal_width=200)
    for option in ("--deck [digital|physical]", "--seed", "--map FILE"):
        assert option in result.output
    assert "play colovini --players Ann,Bob --deck digital --seed 42" in result.output


def test_player_names_are_checked_before_the_board_and_the_map() -> None:
    # Three names on the default board used to report the 50-city board first.
    error = refuse(["play", "colovini", "--players", "A,A,B", "--board", "sim", "--db",
                    ":memory:", "--headless"], "'A' is named twice", "--players", code=1)
    assert "cities" not in error and "map" not in error
    refuse(["play", "colovini", "--players", "Ann,,Bob", "--db", ":memory:"],
           "name 2 is empty", code=1)
    refuse(["play", "kato", "--players", "Ann,Bob,", "--db", ":memory:"], "name 3 is empty",
           code=1)
    refuse(["play", "kato", "--players", "Ann, ann", "--db", ":memory:"], "named twice", code=1)


def test_the_board_side_follows_the_player_count_without_a_profile() -> None:
    three = headless_state("--players", "Ann,Bob,Cid", "--db", ":memory:")
    assert len(three["board"]["sites"]) == 40 and three["options"]["map"] == "sample-40"
    assert three["players"] == ["Ann", "Bob", "Cid"]
    for names in ("Ann,Bob", "Ann,Bob,Cid,Dee"):
        state = headless_state("--players", names, "--db", ":memory:")
        assert len(state["board"]["sites"]) == 50 and state["options"]["map"] == "sample-50"
    by_map = headless_state("--map", "sample-40", "--db", ":memory:")
    assert len(by_map["board"]["sites"]) == 40 and by_map["options"]["players"] == 3


def test_a_resumed_game_keeps_its_own_board(tmp_path: Path) -> None:
    db = str(tmp_path / "g.sqlite3")
    headless_state("--players", "Ann,Bob,Cid", "--db", db)
    resumed = headless_state("--resume", "--db", db)
    assert len(resumed["board"]["sites"]) == 40 and resumed["players"] == ["Ann", "Bob", "Cid"]
