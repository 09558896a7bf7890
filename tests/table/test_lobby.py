"""New games, rematches and names from the page: the TableHost on the real table (virtual
board, link, session, SQLite log), through the commands the page sends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.table.hosts import place, wait

from meridian_table.store import Store
from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import RunningTable, TableSetup, open_table


@pytest.fixture
def host(tmp_path: Path) -> Iterator[TableHost]:
    setup = TableSetup(game="kato", board="sim", profile="kato-80", players=("Ann", "Bob"),
                       settings={"seats": {"2": "random"}, "automaton_seed": 3},
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.03)
    table: RunningTable = open_table(setup)
    with TableHost(table) as lobby:
        wait(lobby, lambda s: s["phase"] == "play")
        yield lobby


def test_names_change_before_the_first_move_and_are_logged(host: TableHost) -> None:
    seen: list[Any] = []
    host.subscribe(seen.append)
    answer = host.command({"cmd": "rename", "players": ["Ann  Lee", "Bob"]})
    assert answer == {"ok": True}
    state = host.state()
    assert state["players"] == ["Ann Lee", "Bob"] and state["seats"]["light"] == "Ann Lee"
    assert seen and seen[-1]["players"] == ["Ann Lee", "Bob"]
    refused = host.command({"cmd": "rename", "players": ["Bob", "bob"]})
    assert not refused["ok"] and "named twice" in refused["error"]
    store = host.table.store
    assert store is not None
    gid = state["game_id"]
    assert store.game(gid).players == ("Ann Lee", "Bob")
    assert [e.payload["players"] for e in store.events(gid, ["players"])] == [["Ann Lee", "Bob"]]


def test_names_are_kept_once_a_move_is_played(host: TableHost) -> None:
    legal = host.state()["legal"]
    place(host, legal[0])
    refused = host.command({"cmd": "rename", "players": ["Cy", "Di"]})
    assert not refused["ok"] and "first move" in refused["error"]
    assert host.state()["players"] == ["Ann", "Bob"]


def test_a_rematch_swaps_the_seats_and_their_automata(host: TableHost) -> None:
    first = host.state()
    old_id = first["game_id"]
    place(host, first["legal"][0])
    answer = host.command({"cmd": "rematch"})
    assert answer["ok"], answer
    state = wait(host, lambda s: s["game_id"] != old_id and s["phase"] == "execute")
    assert state["players"] == ["Bob", "Ann"]
    assert state["seats"] == {"light": "Bob", "dark": "Ann"}
    # Bob's automaton went with him to the first seat; Ann, a person, now plays second.
    assert state["seats_kind"]["light"] == "random" and state["seats_kind"]["dark"] == "person"
    assert state["options"]["size"] == 5 and state["moves"] == []
    assert state["automaton"] is not None and state["automaton"]["player"] == "Bob"
    store = host.table.store
    assert store is not None
    assert store.game(old_id).players == ("Ann", "Bob")
    assert store.game(state["game_id"]).players == ("Bob", "Ann")


def test_a_new_game_from_the_form_and_a_refusal_that_keeps_the_game(host: TableHost) -> None:
    old_id = host.state()["game_id"]
    refused = host.command({"cmd": "new_game", "game": "kato", "players": ["Ann", "Bob"],
                            "options": {"size": "9"}})
    assert not refused["ok"] and "size" in refused["error"]
    refused = host.command({"cmd": "new_game", "game": "kato", "players": ["Ann", "Bob"],
                            "profile": "colovini-50"})
    assert not refused["ok"] and "colovini" in refused["error"]
    refused = host.command({"cmd": "new_game", "game": "chess"})
    assert not refused["ok"] and "kato" in refused["error"]
    refused = host.command({"cmd": "new_game", "game": "empire", "players": ["A", "B"],
                            "options": {"mode": "conquest"}})
    assert not refused["ok"] and "mode" in refused["error"]
    assert host.state()["game_id"] == old_id
    answer = host.command({"cmd": "new_game", "game": "kato", "players": ["Cy", "Di"],
                           "options": {"pie": True, "assist": "captures"},
                           "seats": {"1": "person", "2": "person"}, "profile": "kato-80"})
    assert answer["ok"], answer
    state = wait(host, lambda s: s["game_id"] != old_id)
    assert state["players"] == ["Cy", "Di"] and state["options"]["pie"] is True
    assert set(state["seats_kind"].values()) == {"person"}
    assert host.table.session.adapter.settings().get("assist") == "captures"


def test_the_catalog_describes_every_game_for_the_form(host: TableHost) -> None:
    answer = host.command({"cmd": "catalog"})
    assert answer["ok"]
    games = {g["id"]: g for g in answer["catalog"]["games"]}
    assert {"kato", "colovini", "toy"} <= set(games)
    kato = games["kato"]
    assert [o["name"] for o in kato["options"]] == ["size", "pie", "assist"]
    assert "kato-80" in kato["profiles"] and "random" in kato["automata"]
    assert all(o["name"] != "players" for o in games["colovini"]["options"])
    assert games["kato"]["at_table"] and games["empire"]["at_table"]  # #17: Empire is played on its board
    current = answer["catalog"]["current"]
    assert current["game"] == "kato" and current["players"] == ["Ann", "Bob"]
    assert current["seats"] == {"2": "random"} and current["profile"] == "kato-80"


def test_a_new_game_of_another_game(tmp_path: Path, host: TableHost) -> None:
    answer = host.command({"cmd": "new_game", "game": "toy", "players": ["Xena", "Otto"]})
    assert answer["ok"], answer
    state = wait(host, lambda s: s["game"] == "toy")
    assert state["players"] == ["Xena", "Otto"]
    store = Store.open(tmp_path / "games.sqlite3", readonly=True)
    try:
        assert [g.game for g in store.games()] == ["kato", "toy"]
    finally:
        store.close()


def test_a_rematch_on_a_board_whose_profile_is_gone_plays_on_the_same_board(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game resumed from the profile its log kept (its file was renamed, its package
    moved) can be played again: the rematch opens the board the last game was on."""
    import json

    from meridian_table.profiles import load_profile

    boards = tmp_path / "boards"
    boards.mkdir()
    mine = boards / "my-kato.json"
    mine.write_text(json.dumps({**load_profile("kato-80").to_dict(), "name": "my-kato"}))
    monkeypatch.setenv("MERIDIAN_TABLE_BOARDS", str(boards))
    setup = TableSetup(game="kato", board="sim", profile="my-kato", players=("Ann", "Bob"),
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.03)
    with TableHost(open_table(setup)) as lobby:
        first = wait(lobby, lambda s: s["phase"] == "play")
        mine.unlink()  # the profile is gone while the game is played
        answer = lobby.command({"cmd": "rematch"})
        assert answer["ok"], answer
        state = wait(lobby, lambda s: s["game_id"] != first["game_id"])
        assert state["players"] == ["Bob", "Ann"]
        assert lobby.table.profile.name == "my-kato"
        store = lobby.table.store
        assert store is not None and store.game(state["game_id"]).profile == "my-kato"
