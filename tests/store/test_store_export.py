"""Exports: the record format, JSON Lines, the CSV score sheet and BG Stats JSON."""

from __future__ import annotations

import csv
import io
import json
import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import store_toygame

from meridian_table.store import ExportError, Store
from meridian_table.store.errors import ReplayError
from meridian_table.store.export import bgstats_play, export, ranks
from meridian_table.store.replay import replay


def _clock() -> object:
    start = datetime(2031, 5, 4, 18, 0, tzinfo=UTC)
    ticks = iter(range(10_000))
    return lambda: start + timedelta(minutes=next(ticks))


RESULT = {
    "winners": ["Ann"],
    "reason": "three in a row",
    "scores": [
        {"player": "Ann", "seat": "X", "total": 5,
         "breakdown": [{"label": "cells", "value": 3}, {"label": "bonus", "value": 2}]},
        {"player": "Bob", "seat": "O", "total": 2,
         "breakdown": [{"label": "cells", "value": 2}, {"label": "penalty", "value": -1}]},
        {"player": "Cy", "seat": "Z", "total": 2, "breakdown": []},
    ],
}


@pytest.fixture
def finished(db_path: Path) -> tuple[Store, int]:
    store = Store.open(db_path, clock=_clock())  # type: ignore[arg-type]
    gid = store.create_game("toy", {"marks": "XO"}, ["Ann", "Bob", "Cy"], profile="toy-9")
    for cell in "aeb":
        store.append(gid, "action", {"notation": cell, "player": "Ann"})
    store.append(gid, "undo", {"notation": "b"})
    store.append(gid, "sense", {"pos": 1, "closed": True})
    store.append(gid, "action", {"notation": "i"})
    store.append(gid, "result", RESULT)  # the same as finish()
    yield store, gid
    store.close()


def test_jsonl_has_every_event_in_order(finished: tuple[Store, int]) -> None:
    store, gid = finished
    lines = export(store, gid, "jsonl").splitlines()
    rows = [json.loads(line) for line in lines]
    assert [r["seq"] for r in rows] == list(range(1, 9))
    assert [r["kind"] for r in rows] == [
        "created", "action", "action", "action", "undo", "sense", "action", "result"]
    for row in rows:
        assert set(row) == {"game_id", "seq", "kind", "at", "payload"}
        assert row["game_id"] == gid
        datetime.fromisoformat(row["at"])
    assert rows[0]["payload"]["players"] == ["Ann", "Bob", "Cy"]
    assert rows[-1]["payload"] == RESULT


def test_csv_score_sheet(finished: tuple[Store, int]) -> None:
    store, gid = finished
    text = export(store, gid, "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    header = next(csv.reader(io.StringIO(text)))
    assert header == ["game_id", "game", "date", "status", "player", "seat", "winner", "rank",
                      "total", "reason", "cells", "bonus", "penalty"]
    by_player = {r["player"]: r for r in rows}
    assert list(by_player) == ["Ann", "Bob", "Cy"]
    assert by_player["Ann"] == {
        "game_id": str(gid), "game": "toy", "date": "2031-05-04T18:00:00.000000+00:00",
        "status": "finished", "player": "Ann", "seat": "X", "winner": "yes", "rank": "1",
        "total": "5", "reason": "three in a row", "cells": "3", "bonus": "2", "penalty": ""}
    assert (by_player["Bob"]["winner"], by_player["Bob"]["rank"]) == ("no", "2")
    assert by_player["Bob"]["penalty"] == "-1"
    assert by_player["Cy"]["rank"] == "2"  # tied with Bob


def test_csv_of_a_running_game_has_players_but_no_results(store: Store) -> None:
    gid = store.create_game("toy", {}, ["Ann", "Bob"])
    rows = list(csv.DictReader(io.StringIO(export(store, gid, "csv"))))
    assert [(r["player"], r["status"], r["winner"], r["rank"], r["total"]) for r in rows] == [
        ("Ann", "running", "", "", ""), ("Bob", "running", "", "", "")]


def test_bgstats_push_play(finished: tuple[Store, int]) -> None:
    store, gid = finished
    play = json.loads(export(store, gid, "bgstats"))
    assert play == bgstats_play(store, gid)
    assert set(play) == {"sourceName", "sourcePlayId", "playDate", "durationMin", "location",
                         "board", "comments", "game", "players"}
    assert play["sourceName"] == "Meridian Table"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"])
    assert play["durationMin"] == 7  # one clock minute per logged event
    assert play["board"] == "toy-9"
    assert play["game"] == {"name": "Toy", "sourceGameId": "toy", "highestWins": True,
                            "noPoints": False}
    assert [(p["name"], p["winner"], p["rank"], p["score"], p["startPlayer"], p["role"])
            for p in play["players"]] == [
        ("Ann", True, 1, 5, True, "X"), ("Bob", False, 2, 2, False, "O"),
        ("Cy", False, 2, 2, False, "Z")]
    assert "three in a row" in play["comments"] and "3 moves" in play["comments"]


def test_bgstats_without_points_and_refused_when_unfinished(store: Store) -> None:
    gid = store.create_game("kato", {"size": 6}, ["Ann", "Bob"])
    with pytest.raises(ExportError, match=f"game {gid} is running; BG Stats takes finished"):
        export(store, gid, "bgstats")
    store.finish(gid, {"winners": ["Bob"], "scores": []})
    play = bgstats_play(store, gid)
    assert play["game"]["name"] == "Meridians" and play["game"]["noPoints"] is True
    assert [("score" in p, p["winner"], p["rank"]) for p in play["players"]] == [
        (False, False, 2), (False, True, 1)]
    other = store.create_game("kato", {"size": 6}, ["Ann", "Bob"])
    store.abandon(other)
    with pytest.raises(ExportError, match="is abandoned"):
        export(store, other, "bgstats")


def test_ranks_honour_logged_ranks_and_draws(store: Store) -> None:
    gid = store.create_game("toy", {}, ["A", "B", "C"])
    store.finish(gid, {"winners": [], "scores": [{"player": "A", "total": 1, "rank": 3},
                                                  {"player": "B", "total": 4},
                                                  {"player": "C", "total": None}]})
    assert ranks(store.game(gid)) == {"A": 3, "B": 1, "C": 3}


def test_record_export_uses_the_game_package(finished: tuple[Store, int]) -> None:
    store, gid = finished
    text = export(store, gid, "record", loader=store_toygame.loader)
    assert '[Players "Ann, Bob, Cy"]' in text
    assert '[Outcome "Ann wins"]' in text and '[Reason "three in a row"]' in text
    assert '[Player1 "Ann"]' in text and '[Player3 "Cy"]' in text
    assert '[Date "2031-05-0' in text
    # The toy engine does not see the win the log holds: the log's result is the record's.
    assert '[Result "X"]' in text
    assert text.rstrip().endswith("a\ne\ni")  # the plain record: one action a line


def test_unknown_format(finished: tuple[Store, int]) -> None:
    store, gid = finished
    with pytest.raises(ExportError, match="'pgn' is unknown; choose one of record, jsonl"):
        export(store, gid, "pgn")


def test_record_of_a_game_that_is_not_installed_says_so(store: Store) -> None:
    gid = store.create_game("nosuchgame", {}, ["A", "B"])
    with pytest.raises(ReplayError, match="no game 'nosuchgame' is installed.*--format jsonl"):
        export(store, gid, "record")


def test_colovini_round_trip_through_the_log(store: Store) -> None:
    """A real game package: log a random game with undos, replay it, export its record."""
    from meridian_table.games import colovini

    options = {"players": 3, "seed": 11}
    gid = store.create_game("colovini", options, ["Ann", "Bob", "Cy"])
    live = colovini.new_game(**options)
    rng = random.Random(3)
    for turn in range(40):
        if live.is_over:
            break
        if turn % 9 == 8 and live.steps:
            taken = live.undo()
            store.append(gid, "undo", {"notation": taken.notation()})
            continue
        action = rng.choice(live.legal_actions())
        live.play(action)
        store.append(gid, "action", {"notation": action.notation()})
    rebuilt = replay(store, gid)
    assert rebuilt.total == len(live.steps) > 10
    assert colovini.record.export(rebuilt.engine) == colovini.record.export(live)
    text = export(store, gid, "record")
    headers, parsed = colovini.record.parse(text)
    assert headers["Players"] == "3" and headers["Player2"] == "Bob"
    assert colovini.record.export(parsed) == colovini.record.export(live)
