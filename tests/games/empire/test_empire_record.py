"""The record format (export/parse round-trips) and the notation's errors."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from meridian_table.games.empire import IllegalActionError, NotationError, new_game, record
from meridian_table.games.empire.record import RecordError


def _played(seed: int, actions: int = 150):
    game = new_game(players=["Ann", "Bob", "Cy"], seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        if game.is_over:
            break
        game.play(rng.choice(game.legal()))
    return game


def test_records_round_trip() -> None:
    game = _played(4)
    text = record.export(game, {"Event": "club night"})
    headers, again = record.parse(text)
    assert headers["Event"] == "club night" and headers["Players"] == "Ann, Bob, Cy"
    assert again.state == game.state and record.export(again, {"Event": "club night"}) == text


def test_a_bad_action_names_line_and_column() -> None:
    text = record.export(_played(5, 10))
    lines = text.splitlines()
    lines[-1] = lines[-1].split(". ")[0] + ". fly s1 S1Q1"
    with pytest.raises(RecordError) as err:
        record.parse("\n".join(lines))
    assert err.value.line == len(lines) and "'fly' is not an action" in str(err.value)


def test_an_illegal_action_in_a_record_names_the_rule() -> None:
    text = "Game: empire\nPlayers: Ann, Bob\nSeed: 3\n\n1. charge\n2. charge\n"
    with pytest.raises(RecordError, match="game.empire: line 6, column 4: action 2: .*unused "
                                          "cells"):
        record.parse(text, "game.empire")


def test_bad_headers_are_named() -> None:
    with pytest.raises(RecordError, match="line 2, column 7: Seed: 'x' is not a whole number"):
        record.parse("Game: empire\nSeed: x\nPlayers: A, B\n\n")
    with pytest.raises(RecordError, match="not 'empire'"):
        record.parse("Game: kato\n\n")
    with pytest.raises(RecordError, match="headers do not make a game.*mode"):
        record.parse("Game: empire\nPlayers: A, B\nMode: solo\n\n")


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty line"),
    ("move s1", "move takes 2 arguments"),
    ("move s1 Q9", "not a quadrant"),
    ("damage s1", "not UNIT:LOST"),
    ("attack moon.3 s1,s1", "names a ship twice"),
    ("build cruiser planet.yellow.1 S1Q1 1", "not fighter or frigate"),
])
def test_notation_errors_name_the_action_and_form(text: str, message: str) -> None:
    game = new_game(players=2, seed=1)
    with pytest.raises(NotationError, match=message):
        game.play(text)


def test_an_illegal_action_says_why_with_numbers() -> None:
    game = new_game(players=["Ann", "Bob"], seed=1)
    ship = next(s for s in game.state.ships.values() if s.owner == 0)
    ship.kind = "frigate"
    game.state.seats[0].used, game.state.seats[0].charges = 3, 1
    with pytest.raises(IllegalActionError, match="frigate move needs 2E, Ann has 1E"):
        game.play(f"move {ship.id} S1Q4")
    assert not game.is_legal(f"move {ship.id} S1Q4")


def test_actions_round_trip_through_the_notation() -> None:
    from meridian_table.games.empire.notation import parse

    for text in ("damage s4:1/2 planet.white.2:1!", "attack planet.white.2 s3,s5",
                 "give P2 P1 1", "event Solar Wind", "build frigate planet.yellow.1 S1Q3 1"):
        assert parse(text).notation() == text
    assert parse("MOVE S3 s1q4").notation() == "move s3 S1Q4"


def test_the_log_keeps_the_data_files_text_so_a_game_replays_without_them(tmp_path: Path) -> None:
    """Issue 24: the logged options carry the map's and cards' text (as Colovini's map
    is kept), so a game whose files were edited or deleted still replays."""
    from importlib import resources

    from meridian_table.games.registry import create_adapter
    from meridian_table.games.registry import spec as get_spec

    data = resources.files("meridian_table.games.empire").joinpath("data")
    board_file = tmp_path / "my-board.toml"
    cards_file = tmp_path / "my-cards.toml"
    board_file.write_text(data.joinpath("sample-map.toml").read_text(encoding="utf-8"), "utf-8")
    cards_file.write_text(data.joinpath("sample-cards.toml").read_text(encoding="utf-8"), "utf-8")
    spec = get_spec("empire")
    assert spec.prepare is not None
    options = spec.prepare({"players": 2, "mode": "standard", "seed": 4,
                            "map": str(board_file), "cards": str(cards_file)})
    adapter = create_adapter("empire", options, {}, {})
    logged = adapter.options
    assert logged["map_text"] == board_file.read_text("utf-8")
    assert logged["cards_text"] == cards_file.read_text("utf-8")
    moves = [adapter.engine.legal()[1], "end"]
    for move in moves:
        adapter.play(move)
    board_file.unlink()
    cards_file.write_text("format = 1\nname = 'broken'\n", "utf-8")
    again = create_adapter("empire", logged, {}, {})
    for move in moves:
        again.play(move)
    assert again.engine.state == adapter.engine.state
    assert "map_text" not in again.board_json()
