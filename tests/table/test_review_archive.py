"""The table's side of the page's review (StoreArchive): the review runs in a process of
its own, says how far it is while it runs, and comes back with words for the page: the
moves in words, the mover's colour and the sites of both moves."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from meridian_table import bots
from meridian_table.bots.arena import play
from meridian_table.games import registry
from meridian_table.games.contract import RandomPolicy
from meridian_table.store import Store
from meridian_table.table.storejournal import StoreArchive


def _logged(db: Path, actions: tuple[str, ...] | None = None) -> tuple[str, ...]:
    if actions is None:
        spec = registry.spec("kato")
        actions = play(spec, [bots.create("kato", 1, 1, 30), RandomPolicy(2)], 7, 1.0).actions
    with Store.open(db) as store:
        gid = store.create_game("kato", {}, ["Ann", "Bob"])
        for action in actions:
            store.append(gid, "action", {"notation": action, "source": "board"})
    return actions


def test_the_review_says_how_far_it_is_and_what_each_mark_is(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    actions = _logged(db)
    seen: list[dict[str, int]] = []
    result: dict[str, Any] = {}
    with Store.open(db) as store:
        archive = StoreArchive(store)
        assert archive.review_progress(1) is None
        worker = threading.Thread(
            target=lambda: result.update(archive.review(1, level=1, budget_s=0.05, top=20)))
        worker.start()
        while worker.is_alive():
            now = archive.review_progress(1)
            if now is not None and (not seen or now != seen[-1]):
                seen.append(now)
            time.sleep(0.005)
        worker.join()
        assert archive.review_progress(1) is None  # over: nothing runs
        games = archive.games()
    assert games[0]["reviewable"] is True
    assert seen and seen[0] == {"done": 0, "total": len(actions)}
    assert [p["done"] for p in seen] == sorted(p["done"] for p in seen)
    assert len(seen) > 2  # it moved on while it ran
    assert result["level"] == 1 and result["budget_s"] == 0.05
    assert result["strength"] == "Computer — level 1 (beginner), 0.05 s a position"
    assert result["moves"] == len(actions) and result["marks"]
    for mark in result["marks"]:
        n = mark["number"]
        assert mark["colour"] == ("light" if n % 2 else "dark") or mark["played"] == "swap"
        assert mark["played_words"] == mark["played"]  # Kato's moves are their notation
        assert mark["best_words"] == mark["best"]
        if mark["played"] not in ("pass", "swap"):
            assert mark["played"] in mark["played_sites"]
        if mark["best"] not in ("pass", "swap"):
            assert mark["best"] in mark["best_sites"]


def test_a_review_that_fails_in_its_process_says_why(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    _logged(db, ("E3", "E3"))  # the same point twice: the log cannot be replayed
    with Store.open(db) as store, pytest.raises(ValueError, match="E3"):
        StoreArchive(store).review(1, level=1, budget_s=0.02)


def test_the_pages_review_is_at_least_as_strong_as_its_hint() -> None:
    """Issue 26: the review (level 2, 0.2 s a position) marked the hint's move (level 3,
    1 s) as the worst of the game; the review is never weaker, and says its strength."""
    from meridian_table.table.hints import HINT_BUDGET_S, HINT_LEVEL
    from meridian_table.table.storejournal import REVIEW_BUDGET_S, REVIEW_LEVEL

    assert REVIEW_LEVEL >= HINT_LEVEL and REVIEW_BUDGET_S >= HINT_BUDGET_S


def test_the_games_list_says_when_a_finished_game_ended(tmp_path: Path) -> None:
    """Issue 26: the end screen's game time counted on after the end (from when the page
    saw it); the games list gives the logged end, which the page uses."""
    from meridian_table.table.storejournal import StoreArchive

    with Store.open(tmp_path / "log.sqlite") as store:
        gid = store.create_game("kato", {"size": 6, "pie": False}, ["Ann", "Bob"])
        store.append(gid, "action", {"notation": "G6", "player": "light", "source": "board"})
        ended = store.finish(gid, {"winners": ["Ann"], "reason": "test", "scores": []})
        row = StoreArchive(store).games()[0]
    assert row["status"] == "finished" and row["updated"] == ended.at
