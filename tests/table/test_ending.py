"""Ends the players choose (table/ending.py, table/countoffer.py): a seat resigns, and an
automaton seat answers an offer to count by itself.

A resignation is logged as the game's result with who resigned; the exports and the
club's results say so; it cannot be undone. A bot seat weighs the count with its own
analysis and agrees only when the count gives it what it expects from playing on.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.games.colovini.test_colovini_adapter import make as make_colovini
from tests.table.test_session import make

from meridian_table.club.web import render_finished
from meridian_table.games.board import AdapterError
from meridian_table.store import Store
from meridian_table.store.export import export, result_text
from meridian_table.table.countoffer import bot_level, expectation
from meridian_table.table.ending import agrees, best_of, count_share, resignation
from meridian_table.table.session import SessionError
from meridian_table.table.storejournal import StoreJournal


def _wait(predicate: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while time.monotonic() < deadline:
        if predicate():
            return
        pause.wait(0.02)
    raise AssertionError("the condition never held")


def test_resigning_ends_the_game_for_the_other_side_and_cannot_be_undone() -> None:
    t = make()
    t.place("A1")
    t.place("M1")
    assert t.session.state()["resign"] == ["light", "dark"]
    assert t.session.command({"cmd": "resign", "player": "dark"}) == {"ok": True}
    state = t.session.state()
    assert state["result"] is not None
    assert state["result"]["winner"] == "light"
    assert state["result"]["reason"] == "Dark resigned"
    assert state["resign"] == []
    logged = t.journal.of_kind("result")[-1][1]
    assert logged["winners"] == ["Ann"]
    assert logged["resigned"] == "dark" and logged["resigned_by"] == "Bob"
    reply = t.session.command({"cmd": "button", "name": "undo"})
    assert reply["ok"] is False and "game is over" in reply["error"]
    reply = t.session.command({"cmd": "resign", "player": "light"})
    assert reply["ok"] is False and "nothing to resign" in reply["error"]


def test_resign_names_a_seat_and_refuses_anything_else() -> None:
    t = make()
    reply = t.session.command({"cmd": "resign", "player": "blue"})
    assert reply["ok"] is False
    assert "'blue'" in reply["error"] and "light, dark" in reply["error"]
    reply = t.session.command({"cmd": "resign"})
    assert reply["ok"] is False and "name the seat" in reply["error"]
    assert t.session.state()["result"] is None


def test_an_automaton_seat_does_not_resign_and_is_not_offered() -> None:
    t = make()
    t.place("A1")
    t.session.set_seat(2, "random")
    assert t.session.state()["resign"] == ["light"]
    with pytest.raises(SessionError, match="computer"):
        t.session.resign("dark")


def test_three_players_the_best_of_the_others_wins_and_a_tie_leaves_none() -> None:
    scores = {"red": {"total": 7}, "blue": {"total": 9}, "green": {"total": 4}}
    names = {"red": "Ann", "blue": "Bob", "green": "Cid"}
    result = resignation(("red", "blue", "green"), "green", scores, names)
    assert result["winner"] == "blue" and result["resigned_by"] == "Cid"
    tied = {"red": {"total": 9}, "blue": {"total": 9}, "green": {"total": 4}}
    assert resignation(("red", "blue", "green"), "green", tied, names)["winner"] is None
    assert best_of(["red"], {}) == "red"
    with pytest.raises(ValueError, match="'white'"):
        resignation(("red", "blue"), "white", scores, names)


def test_colovini_three_players_resign_and_undo_is_refused() -> None:
    t = make_colovini(players=3)
    assert t.adapter.concedes()
    assert t.session.state()["resign"] == list(t.adapter.colours)
    first = t.adapter.colours[0]
    t.session.resign(first)
    result = t.session.state()["result"]
    assert result is not None and result["resigned"] == first
    assert result["winner"] in (None, *t.adapter.colours[1:])
    assert t.journal.of_kind("result")[-1][1]["resigned_by"] == "Ann"
    with pytest.raises(AdapterError):
        t.adapter.conclude(result)
    reply = t.session.command({"cmd": "button", "name": "undo"})
    assert reply["ok"] is False and "game is over" in reply["error"]


def test_a_resignation_is_in_the_exports_and_the_clubs_results(tmp_path: Path) -> None:
    with Store.open(tmp_path / "log.sqlite") as store:
        gid = store.create_game("kato", {"size": 6, "pie": False}, ("Ann", "Bob"),
                                profile="kato-114")
        t = make()
        t.session.journal = StoreJournal(store, gid)
        t.place("A1")
        t.place("M1")
        t.session.resign("light")
        info = store.game(gid)
        assert info.status == "finished"
        assert result_text(info) == "Bob wins (Ann resigned)"
        assert "Light resigned" in export(store, gid, "csv")
        assert "Light resigned" in export(store, gid, "record")
        assert "Ann resigned" in export(store, gid, "bgstats")
    row = {"at": "2026-11-27T08:00", "game": "kato", "table": "t1", "players": ["Ann", "Bob"],
           "winners": ["Bob"], "abandoned": False, "resigned": "Ann", "id": 1}
    assert "Bob" in render_finished([row]) and "(Ann resigned)" in render_finished([row])


def test_the_count_answer_follows_the_bots_expectation() -> None:
    assert count_share({"winner": "light"}, "light") == 1.0
    assert count_share({"winner": None}, "dark") == 0.5
    assert agrees({"winner": "light"}, "dark", expected=0.1)      # lost anyway: agrees
    assert not agrees({"winner": "light"}, "dark", expected=0.9)  # it expects to win
    assert agrees({"winner": "dark"}, "dark", expected=0.99)      # a win is never refused
    assert bot_level("bot:4") == (4, None) and bot_level("bot:2:300") == (2, 300)
    assert bot_level("random") is None


def test_a_bot_seat_answers_the_offered_count_by_itself() -> None:
    t = make()
    rng = random.Random(5)
    while len(t.moves()) < 6:
        t.place(rng.choice(t.session.state()["legal"]))
        for site in t.session.state()["diff"]["remove"]:
            t.lift(site)
    t.session.set_seat(2, "bot:1:30")  # Light (a person) is to move: the bot waits
    count = t.adapter.adjudicate()
    assert count is not None
    expected = expectation("kato", t.adapter.engine.clone(), 1, 1, 30, 0.5)
    t.session.press("menu")
    assert t.session.state()["phase"] == "adjudicate"
    if agrees(count, "dark", expected):
        _wait(lambda: "dark" in t.session.state()["agreed"])
        t.session.press("confirm")  # the person's Confirm agrees for the person's seat
        assert t.session.state()["result"] is not None
        assert t.session.state()["result"]["winner"] == count["winner"]
    else:
        _wait(lambda: "declines" in t.session.state()["error"])
        assert t.session.state()["phase"] != "adjudicate"
    t.session.close()


def test_the_archives_replay_carries_the_games_own_spec_players_and_words(
        tmp_path: Path) -> None:
    """Issue 26 item 4: the page replays a game with the spec, players and move words of
    that game, whatever game is live."""
    from meridian_table.table.storejournal import StoreArchive

    t = make_colovini(players=3)
    with Store.open(tmp_path / "log.sqlite") as store:
        gid = store.create_game("colovini", dict(t.adapter.options), ("Ann", "Bob", "Cid"),
                                profile="colovini-40")
        t.session.journal = StoreJournal(store, gid)
        t.session.press("pass")
        if not t.session.state()["moves"]:
            t.session.press("confirm")  # the card that goes with the pass
        assert len(t.session.state()["moves"]) == 1
        answer = StoreArchive(store).replay(gid)
    assert answer["spec"]["id"] == "colovini"
    assert sorted(answer["seats"].values()) == ["Ann", "Bob", "Cid"]
    assert set(answer["scores"]) == set(t.adapter.colours)
    assert len(answer["board"]["sites"]) == len(t.session.state()["board"]["sites"])
    assert answer["moves"][0]["words"].startswith("Ann: ")


def test_a_hint_lights_its_placement_not_the_stones_its_move_takes_off() -> None:
    """Issue 26 item 10: the hint lit the stones its move removes in the same cyan as the
    placement, and lifting one first was refused."""
    from meridian_table.table.hints import hint_sites

    before = frozenset({"A1", "B2", "C3"})
    assert hint_sites(before, frozenset({"A1", "D4"})) == {"D4"}  # B2, C3 come off after
    assert hint_sites(before, before) == frozenset()              # a pass lights nothing
    assert hint_sites(before, frozenset({"A1", "B2"})) == {"C3"}  # a move that only lifts
