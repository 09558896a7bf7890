"""The session's log in the SQLite store: every action before it shows, resume, replay."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.table.fakes import FakeBoard, FakeClock

from meridian_table.games.board import History
from meridian_table.games.kato.adapter import KatoAdapter
from meridian_table.profiles import load_profile
from meridian_table.store import Store
from meridian_table.table import TableSession
from meridian_table.table.lobby import LoggedTable
from meridian_table.table.storejournal import (
    ResumeError,
    StoreArchive,
    resume_game,
    start_game,
)


def _table(store: Store, adapter: KatoAdapter, journal: object = None,
           history: History | None = None) -> tuple[TableSession, FakeBoard, FakeClock]:
    profile = load_profile("kato-114")
    board = FakeBoard(profile)
    clock = FakeClock()
    for site in adapter.expected():  # the stones still stand on the board
        board.closed.add(profile.sites[site].pos)
    if journal is None:
        journal = start_game(store, adapter, ["Ann", "Bob"], profile="kato-114",
                             settings=adapter.settings())
    session = TableSession(adapter, profile, board, journal=journal, clock=clock,  # type: ignore[arg-type]
                           players=("Ann", "Bob"), history=history)
    board.session = session
    return session, board, clock


def _place(board: FakeBoard, clock: FakeClock, session: TableSession, site: str) -> None:
    board.set(site, True)
    clock.advance(0.31)
    session.tick()


def test_a_resumed_game_has_the_logged_moves_undos_and_choices(tmp_path: Path) -> None:
    with Store.open(tmp_path / "log.sqlite3") as store:
        session, board, clock = _table(store, KatoAdapter(6, pie=True, assist="captures"))
        for site in ("A1", "M1"):
            _place(board, clock, session, site)
        session.press("confirm")  # keep
        _place(board, clock, session, "A3")
        _place(board, clock, session, "M3")
        board.set("M3", False)
        clock.advance(0.31)
        session.tick()
        session.press("undo")
        moves = [m["notation"] for m in session.state()["moves"]]
        assert moves == ["A1", "M1", "A3"]
        gid = session.state()["game_id"]
        kinds = [e.kind for e in store.events(gid)]
        assert kinds[:2] == ["created", "settings"]
        assert {"action", "choice", "undo", "sense"} <= set(kinds)

    with Store.open(tmp_path / "log.sqlite3") as store:
        resumed = resume_game(store, game="kato")
        assert resumed.info.id == gid
        adapter = resumed.adapter
        assert isinstance(adapter, KatoAdapter) and adapter.assist == "captures"
        assert [a.notation for a in resumed.history] == ["A1", "M1", "A3"]
        session, board, clock = _table(store, adapter, resumed.journal,  # type: ignore[arg-type]
                                       resumed.history)
        assert session.phase == "play" and session.state()["to_move"] == "dark"
        logged = LoggedTable(session, StoreArchive(store))  # the archive is the lobby's
        replay = logged.command({"cmd": "replay", "game_id": gid})
        assert replay["ok"] and len(replay["replay"]["positions"]) == 4
        assert replay["replay"]["positions"][-1] == {"A1": "L", "M1": "D", "A3": "L"}
        games = logged.command({"cmd": "games"})
        assert games["games"][0]["game_id"] == gid


def test_adjudication_ends_the_game_in_the_log(tmp_path: Path) -> None:
    with Store.open(tmp_path / "log.sqlite3") as store:
        session, board, clock = _table(store, KatoAdapter(6))
        for site in ("A1", "M1", "A3", "M3"):
            _place(board, clock, session, site)
        session.press("menu")
        state = session.state()
        assert state["phase"] == "adjudicate" and state["count"]["scores"]["light"]["total"] >= 0
        session.agree("light")
        assert session.phase == "adjudicate"
        session.press("confirm")  # the second seat, from the physical button
        state = session.state()
        assert state["phase"] == "ended" and state["result"]["adjudicated"] is True
        info = store.game(state["game_id"])
        assert info.status == "finished"
        assert info.result is not None and info.result["reason"].startswith("agreed count")
        with pytest.raises(ResumeError):
            resume_game(store, state["game_id"])
        assert session.command({"cmd": "button", "name": "undo"})["ok"] is False


def test_resume_with_nothing_unfinished_says_so(tmp_path: Path) -> None:
    with Store.open(tmp_path / "log.sqlite3") as store:
        with pytest.raises(ResumeError, match="no unfinished"):
            resume_game(store, game="kato")


def test_a_board_fault_is_a_note_in_the_store_and_resume_ignores_it(tmp_path: Path) -> None:
    from meridian_table.link import BoardFault

    with Store.open(tmp_path / "g.sqlite3") as store:
        session, board, clock = _table(store, KatoAdapter(6))
        _place(board, clock, session, "G6")
        session.on_link_event(BoardFault("GHOST", (str(board.profile.sites["A1"].pos),)))
        gid = session.journal.game_id
        assert gid is not None
        notes = [e.payload for e in store.events(gid) if e.kind == "note"]
        assert len(notes) == 1 and notes[0]["fault"] == "GHOST" and "site A1" in notes[0]["text"]
        resumed = resume_game(store, game="kato")
        assert [a.notation for a in resumed.history] == ["G6"]
