"""Appending, reading, undo handling, results and replay of the game log."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import store_toygame

from meridian_table import __version__
from meridian_table.store import (
    GameFinishedError,
    InvalidEventError,
    ReplayError,
    Store,
    UnknownGameError,
    default_path,
)
from meridian_table.store.replay import replay


def _toy(store: Store, players: tuple[str, ...] = ("Ann", "Bob")) -> int:
    return store.create_game("toy", {"marks": "XO"}, list(players), profile="toy-9",
                             versions={"firmware": "9.9", "protocol": 1})


def test_create_game_logs_a_created_event_with_everything(store: Store) -> None:
    gid = _toy(store)
    (created,) = store.events(gid)
    assert created.seq == 1 and created.kind == "created"
    assert created.payload == {
        "game": "toy",
        "options": {"marks": "XO"},
        "players": ["Ann", "Bob"],
        "profile": "toy-9",
        "versions": {"host": __version__, "firmware": "9.9", "protocol": 1},
    }
    info = store.game(gid)
    assert (info.game, info.players, info.profile, info.status, info.moves) == (
        "toy", ("Ann", "Bob"), "toy-9", "running", 0)


def test_append_returns_committed_events_in_sequence(store: Store, db_path: Path) -> None:
    gid = _toy(store)
    first = store.append(gid, "action", {"notation": "e", "player": "Ann"})
    sense = store.append(gid, "sense", {"pos": 4, "closed": True, "fw_seq": 77})
    assert (first.seq, sense.seq) == (2, 3)
    assert first.id < sense.id
    datetime.fromisoformat(first.at)  # a real ISO timestamp
    # Another connection sees both at once: each append was committed on return.
    with Store.open(db_path, readonly=True) as reader:
        assert [e.kind for e in reader.events(gid)] == ["created", "action", "sense"]
        assert reader.events(gid)[2].payload == {"pos": 4, "closed": True, "fw_seq": 77}


def test_timestamps_come_from_the_injected_clock(db_path: Path) -> None:
    moments = iter(datetime(2030, 1, 1, tzinfo=UTC) + timedelta(seconds=s) for s in range(9))
    with Store.open(db_path, clock=lambda: next(moments)) as store:
        gid = _toy(store)
        event = store.append(gid, "note", {"text": "hi"})
        assert store.game(gid).started == "2030-01-01T00:00:00.000000+00:00"
    assert event.at == "2030-01-01T00:00:01.000000+00:00"


def test_undo_takes_back_the_last_standing_action(store: Store) -> None:
    gid = _toy(store)
    for cell in "abc":
        store.append(gid, "action", {"notation": cell})
    store.append(gid, "undo", {"notation": "c"})
    store.append(gid, "undo")
    store.append(gid, "action", {"notation": "i"})
    assert store.actions(gid) == ["a", "i"]
    assert store.game(gid).moves == 2
    assert [e.kind for e in store.events(gid)].count("undo") == 2


def test_undo_naming_another_move_or_nothing_to_undo_is_refused(store: Store) -> None:
    gid = _toy(store)
    with pytest.raises(InvalidEventError, match="no action left to undo"):
        store.append(gid, "undo")
    store.append(gid, "action", {"notation": "a"})
    with pytest.raises(InvalidEventError, match="'b'.*last standing action is 'a'"):
        store.append(gid, "undo", {"notation": "b"})
    assert store.actions(gid) == ["a"]
    assert len(store.events(gid)) == 2  # nothing written by the refusals


@pytest.mark.parametrize(
    ("kind", "payload", "message"),
    [
        ("Action", {"notation": "a"}, "lower-case word"),
        ("created", {}, "create_game"),
        ("result", {}, "'winners' must be a list"),
        ("action", {}, "non-empty 'notation'"),
        ("action", {"notation": 5}, "non-empty 'notation'"),
        ("sense", {"t": float("nan")}, "not JSON-serialisable"),
        ("sense", {"when": datetime.now()}, "not JSON-serialisable"),
    ],
)
def test_bad_events_are_refused_and_not_written(
    store: Store, kind: str, payload: dict[str, object], message: str
) -> None:
    gid = _toy(store)
    with pytest.raises(InvalidEventError, match=message):
        store.append(gid, kind, payload)
    assert len(store.events(gid)) == 1


def test_unknown_game_is_a_lookup_error_naming_the_id(store: Store) -> None:
    with pytest.raises(UnknownGameError, match="no game with id 42") as info:
        store.append(42, "note", {})
    assert isinstance(info.value, LookupError)
    with pytest.raises(UnknownGameError):
        store.events(42)
    with pytest.raises(UnknownGameError):
        store.game(42)


@pytest.mark.parametrize(
    ("game", "players", "message"),
    [
        ("Kato!", ["A", "B"], "not a game id"),
        ("toy", "AB", "list of non-empty names"),
        ("toy", ["A", ""], "list of non-empty names"),
        ("toy", ["A", "A"], "repeated name"),
    ],
)
def test_bad_games_are_refused(store: Store, game: str, players: object, message: str) -> None:
    with pytest.raises(InvalidEventError, match=message):
        store.create_game(game, {}, players)  # type: ignore[arg-type]
    assert store.games() == []


def test_finish_logs_the_result_and_closes_the_game(store: Store) -> None:
    gid = _toy(store)
    store.append(gid, "action", {"notation": "a"})
    result = {
        "winners": ["Ann"],
        "reason": "three in a row",
        "scores": [
            {"player": "Ann", "seat": "X", "total": 3,
             "breakdown": [{"label": "cells", "value": 3}]},
            {"player": "Bob", "seat": "O", "total": 2, "breakdown": []},
        ],
    }
    event = store.finish(gid, result)
    assert event.kind == "result" and event.payload == result
    info = store.game(gid)
    assert info.status == "finished" and info.result == result
    with pytest.raises(GameFinishedError, match="already has a result"):
        store.append(gid, "action", {"notation": "b"})
    with pytest.raises(GameFinishedError):
        store.finish(gid, result)
    store.append(gid, "note", {"text": "post-game analysis"})  # notes are still welcome


@pytest.mark.parametrize(
    ("result", "message"),
    [
        ({}, "'winners' must be a list"),
        ({"winners": ["Zed"]}, "not players of this game"),
        ({"winners": [], "reason": 3}, "'reason' must be a string"),
        ({"winners": [], "scores": {"Ann": 1}}, "'scores' must be a list"),
        ({"winners": [], "scores": [{"player": "Zed"}]}, "not one of"),
        ({"winners": [], "scores": [{"player": "Ann"}, {"player": "Ann"}]}, "two score entries"),
        ({"winners": [], "scores": [{"player": "Ann", "total": "7"}]}, "finite number"),
        ({"winners": [], "scores": [{"player": "Ann", "breakdown": [{"label": "x"}]}]},
         "breakdown"),
    ],
)
def test_malformed_results_are_refused(store: Store, result: dict[str, object],
                                       message: str) -> None:
    gid = _toy(store)
    with pytest.raises(InvalidEventError, match=message):
        store.finish(gid, result)
    assert store.game(gid).status == "running"


def test_games_and_last_unfinished(store: Store) -> None:
    first = _toy(store)
    second = store.create_game("kato", {"size": 6, "pie": False}, ["Cy", "Di"])
    third = _toy(store)
    store.finish(third, {"winners": []})
    assert [(g.id, g.status) for g in store.games()] == [
        (first, "running"), (second, "running"), (third, "finished")]
    assert [g.id for g in store.games("toy")] == [first, third]
    last = store.last_unfinished()
    assert last is not None and last.id == second
    last_toy = store.last_unfinished("toy")
    assert last_toy is not None and last_toy.id == first
    store.abandon(second, "players left")
    assert store.game(second).status == "abandoned"
    fallback = store.last_unfinished()
    assert fallback is not None and fallback.id == first
    store.abandon(first)
    assert store.last_unfinished() is None


def test_replay_applies_undos_and_stops_at_a_ply(store: Store) -> None:
    gid = _toy(store)
    for step in ["a", "b", "undo", "c", "d", "undo", "undo", "e", "f"]:
        if step == "undo":
            store.append(gid, "undo")
        else:
            store.append(gid, "action", {"notation": step})
    full = replay(store, gid, loader=store_toygame.loader)
    assert full.actions == ("a", "e", "f") and full.total == 3
    assert full.engine.position() == "X...OX..."
    partial = replay(store, gid, ply=1, loader=store_toygame.loader)
    assert partial.actions == ("a",) and partial.engine.position() == "X........"
    with pytest.raises(ReplayError, match="ply 4 is outside game"):
        replay(store, gid, ply=4, loader=store_toygame.loader)


def test_replay_names_the_action_the_rules_reject(store: Store) -> None:
    gid = _toy(store)
    store.append(gid, "action", {"notation": "a"})
    store.append(gid, "action", {"notation": "a"})  # the store logs; the rules judge
    with pytest.raises(ReplayError, match=r"'a' \(move 2, event seq 3\).*taken"):
        replay(store, gid, loader=store_toygame.loader)


def test_replay_of_a_game_without_a_package_says_so(store: Store) -> None:
    gid = store.create_game("nosuchgame", {}, ["A", "B"])
    with pytest.raises(ReplayError, match="no game 'nosuchgame' is installed"):
        replay(store, gid)


def test_replay_with_options_the_engine_refuses(store: Store) -> None:
    gid = store.create_game("toy", {"colour": "red"}, ["A", "B"])
    with pytest.raises(ReplayError, match=r"toy cannot start from its logged options \{'colour': 'red'\}"):
        replay(store, gid, loader=store_toygame.loader)


def test_threads_share_one_store_without_losing_or_repeating(store: Store) -> None:
    games = [_toy(store, (f"A{i}", f"B{i}")) for i in range(4)]
    failures: list[BaseException] = []

    def writer(gid: int, tag: str) -> None:
        try:
            for n in range(50):
                store.append(gid, "sense", {"writer": tag, "n": n})
                store.games()  # readers interleave with writers
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(gid, f"{gid}-{k}"))
               for gid in games for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    for gid in games:
        events = store.events(gid)
        assert [e.seq for e in events] == list(range(1, 102))
        for k in range(2):
            ns = [e.payload["n"] for e in events if e.payload.get("writer") == f"{gid}-{k}"]
            assert ns == list(range(50))


def test_two_stores_on_one_file_interleave(db_path: Path) -> None:
    with Store.open(db_path) as one, Store.open(db_path) as two:
        gid = _toy(one)
        one.append(gid, "action", {"notation": "a"})
        two.append(gid, "action", {"notation": "b"})
        one.append(gid, "undo", {"notation": "b"})
        assert two.actions(gid) == ["a"]
        assert [e.seq for e in two.events(gid)] == [1, 2, 3, 4]


def test_closed_store_refuses_work(db_path: Path) -> None:
    store = Store.open(db_path)
    store.close()
    store.close()
    with pytest.raises(Exception, match="is closed"):
        store.games()


def test_default_path_honours_the_environment(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    monkeypatch.delenv("MERIDIAN_TABLE_DB", raising=False)
    assert default_path().name == "games.sqlite3"
    assert "meridian-table" in str(default_path())
    target = tmp_path / "env" / "log.db"
    monkeypatch.setenv("MERIDIAN_TABLE_DB", str(target))
    assert default_path() == target
    with Store.open() as store:
        assert store.path == target
        _toy(store)
    assert target.exists()
    explicit = tmp_path / "explicit.db"
    with Store.open(explicit) as store:
        assert store.path == explicit
