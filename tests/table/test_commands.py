"""The page's commands, parsed once into typed records (table/commands.py), and the
archive's commands answered by the lobby (table/lobby.py archive_command)."""

from __future__ import annotations

from typing import Any

import pytest

from meridian_table.table import commands
from meridian_table.table.commands import CommandError, CommandFieldError
from meridian_table.table.lobby import archive_command


def test_each_command_becomes_its_record() -> None:
    assert commands.parse({"cmd": "button", "name": "undo"}) == commands.Button("undo", "web")
    assert commands.parse({"cmd": "button", "name": "pass", "source": "board"}) == \
        commands.Button("pass", "board")
    assert commands.parse({"cmd": "toggle", "site": "A1"}) == commands.Toggle("A1")
    assert commands.parse({"cmd": "choose", "field": "pie", "value": "swap"}) == \
        commands.Choose("pie", "swap")
    assert commands.parse({"cmd": "agree", "player": "light"}) == commands.Agree("light")
    assert commands.parse({"cmd": "seat", "seat": 2, "automaton": "random"}) == \
        commands.Seat("2", "random")
    assert commands.parse({"cmd": "seat", "seat": "1"}) == commands.Seat("1", None)
    assert commands.parse({"cmd": "rename", "players": ["Ann", "Bob"]}) == \
        commands.Rename(("Ann", "Bob"))
    assert commands.parse({"cmd": "state"}) == commands.State()
    assert commands.parse({"cmd": "games"}) == commands.Games()
    assert commands.parse({"cmd": "replay", "game_id": "7"}) == commands.Replay(7)
    assert commands.parse({"cmd": "review", "game_id": 3, "level": 2, "top": 5}) == \
        commands.Review(3, level=2, budget_s=None, top=5)
    assert commands.parse({"cmd": "review_progress", "game_id": 3}) == \
        commands.ReviewProgress(3)


def test_every_table_and_archive_command_has_a_reader() -> None:
    assert set(commands.PARSERS) == set(commands.TABLE_COMMANDS) | set(
        commands.ARCHIVE_COMMANDS)
    assert not set(commands.PARSERS) & set(commands.HOST_COMMANDS)


@pytest.mark.parametrize(("cmd", "words"), [
    ({"cmd": "button", "name": ["undo"]}, "'name' must be text"),
    ({"cmd": "toggle"}, None),
    ({"cmd": "choose", "field": "pie", "value": 1.5}, "'value' must be text"),
    ({"cmd": "agree", "player": "x" * 500}, "'player' is 500 characters long"),
    ({"cmd": "seat", "seat": [1]}, "'seat' must be text"),
    ({"cmd": "rename", "players": "Ann,Bob"}, "rename needs 'players', a list of names"),
    ({"cmd": "replay", "game_id": 0}, "'game_id' must be a game number"),
    ({"cmd": "review", "game_id": 1, "level": 9}, "'level' must be a whole number from 1 to 5"),
    ({"cmd": "review", "game_id": 1, "budget_s": 0}, "'budget_s' must be a number of seconds"),
])
def test_a_bad_field_is_named(cmd: dict[str, Any], words: str | None) -> None:
    if words is None:  # a missing text field is empty text: the handler says what it needs
        commands.parse(cmd)
        return
    with pytest.raises(CommandFieldError if "rename" not in words else CommandError) as info:
        commands.parse(cmd)
    assert words in str(info.value)


@pytest.mark.parametrize("cmd", [{"cmd": "dance"}, {"cmd": 3}, {}, ["state"], None])
def test_an_unknown_command_lists_the_known_ones(cmd: object) -> None:
    with pytest.raises(CommandError) as info:
        commands.parse(cmd)
    assert "'cmd'" in str(info.value) or "use button" in str(info.value)
    assert "button" in str(info.value)


class _Archive:
    def __init__(self) -> None:
        self.asked: list[tuple[str, object]] = []

    def games(self) -> list[dict[str, Any]]:
        self.asked.append(("games", None))
        return [{"game_id": 1}]

    def replay(self, game_id: int) -> dict[str, Any]:
        self.asked.append(("replay", game_id))
        return {"game_id": game_id}

    def review(self, game_id: int, level: int | None = None, budget_s: float | None = None,
               top: int | None = None) -> dict[str, Any]:
        self.asked.append(("review", (game_id, level, budget_s, top)))
        return {"marks": []}

    def review_progress(self, game_id: int) -> dict[str, int] | None:
        self.asked.append(("progress", game_id))
        return None


def test_the_lobby_answers_the_archive_commands() -> None:
    archive = _Archive()
    assert archive_command(archive, {"cmd": "games"}) == {"ok": True, "games": [{"game_id": 1}]}
    assert archive_command(archive, {"cmd": "replay", "game_id": 4})["replay"] == {"game_id": 4}
    assert archive_command(archive, {"cmd": "review", "game_id": 4, "top": 3})["ok"]
    assert archive_command(archive, {"cmd": "review_progress", "game_id": 4}) == \
        {"ok": True, "progress": None}
    assert archive.asked == [("games", None), ("replay", 4), ("review", (4, None, None, 3)),
                             ("progress", 4)]
    bad = archive_command(archive, {"cmd": "replay", "game_id": 2.5})
    assert bad["ok"] is False and "'game_id'" in bad["error"]
    assert len(archive.asked) == 4  # a bad field never reaches the log


def test_without_a_log_the_archive_says_what_it_needs() -> None:
    answer = archive_command(None, {"cmd": "games"})
    assert answer == {"ok": False,
                      "error": "the list of games needs the game log (a database)"}
    assert "start the table with a database" in archive_command(
        None, {"cmd": "replay", "game_id": 1})["error"]
