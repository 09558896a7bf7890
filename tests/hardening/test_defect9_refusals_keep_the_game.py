"""Defect 9 of issue 27: a refused new game or rematch never closes the running game. Every
refusal path is checked before the running table is touched (``runner.check_setup``): the
same table object stays, with its session, its link and its game id."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from meridian_table.games.colovini.maps import maps_dir
from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import RunningTable, TableSetup, open_table


def _host(setup: TableSetup) -> TableHost:
    lobby = TableHost(open_table(setup))
    assert lobby.table.wait_ready(30)
    return lobby


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableHost]:
    db = tmp_path_factory.mktemp("refusals") / "games.sqlite3"
    with _host(TableSetup(game="kato", board="sim", profile="kato-80",
                          players=("Ann", "Bob"), db=str(db), settle_s=0.03)) as lobby:
        yield lobby


def _refused_in_place(host: TableHost, cmd: dict[str, Any], words: str) -> None:
    table: RunningTable = host.table
    session, link, gid = table.session, table.link, host.state()["game_id"]
    closed: list[bool] = []
    original = table.close
    table.close = lambda: closed.append(True) or original()  # type: ignore[method-assign]
    try:
        answer = host.command(cmd)
    finally:
        table.close = original  # type: ignore[method-assign]
    assert not answer["ok"], answer
    assert words in answer["error"], answer["error"]
    assert not closed, f"{cmd} closed the running game before refusing it"
    assert host.table is table and table.session is session and table.link is link
    assert host.state()["game_id"] == gid and table.link.state == "connected"


REFUSALS = [
    # the board profile cannot play these options
    ({"cmd": "new_game", "game": "kato", "options": {"size": 7}, "profile": "kato-80"}, "size"),
    # three Colovini players need the 40-city side, not this profile
    ({"cmd": "new_game", "game": "colovini", "players": ["A", "B", "C"],
      "profile": "colovini-50"}, "40-city side"),
    ({"cmd": "new_game", "game": "chess"}, "chess"),
    ({"cmd": "new_game", "game": "kato", "players": ["Ann", "ann"]}, "twice"),
    ({"cmd": "new_game", "game": "kato", "players": ["A", "B", "C"]}, "players"),
    ({"cmd": "new_game", "game": "kato", "options": {"pie": "maybe"}}, "pie"),
    ({"cmd": "new_game", "game": "kato", "options": {"colour": "red"}}, "colour"),
    ({"cmd": "new_game", "game": "kato", "seats": {"3": "random"}}, "seat"),
    ({"cmd": "new_game", "game": "kato", "seats": {"2": "oracle"}}, "oracle"),
    ({"cmd": "new_game", "game": "kato", "seats": {"2": "bot:9"}}, "bot:9"),
    ({"cmd": "new_game", "game": "kato", "clock": "hourglass"}, "hourglass"),
    ({"cmd": "new_game", "game": "kato", "profile": "colovini-50"}, "colovini-50"),
    ({"cmd": "new_game", "game": "kato", "profile": "no-such-board"}, "no-such-board"),
    ({"cmd": "new_game", "game": "colovini", "options": {"map": "/etc/hostname"}}, "shipped"),
    ({"cmd": "new_game", "game": "colovini", "options": {"deck": "physical", "seed": 3}},
     "seed"),
    ({"cmd": "new_game", "game": "empire", "players": ["A", "B"],
      "options": {"mode": "infection-solo"}}, "infection-solo"),
]


@pytest.mark.parametrize(("cmd", "words"), REFUSALS,
                         ids=[f"refusal{n}" for n in range(len(REFUSALS))])
def test_refusals_keep_the_game_new_game(host: TableHost, cmd: dict[str, Any],
                                         words: str) -> None:
    _refused_in_place(host, cmd, words)


def test_refusals_keep_the_game_rematch_after_its_map_went_away(tmp_path: Path) -> None:
    own = tmp_path / "our-board.toml"
    own.write_text((maps_dir() / "sample-50.toml").read_text(encoding="utf-8"),
                   encoding="utf-8")
    setup = TableSetup(game="colovini", board="sim", players=("Ann", "Bob"),
                       options={"map": str(own)}, db=str(tmp_path / "games.sqlite3"),
                       settle_s=0.03)
    with _host(setup) as lobby:
        own.unlink()  # the map file the game was started with is gone
        _refused_in_place(lobby, {"cmd": "rematch"}, str(own))
