"""Defect 2 of issue 27: one review at a time per table (the same one asked again joins
it, another is refused with the reason), cancelled when nobody waits for it (its page
closed), at the bot worker's low priority, bounded in level and time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from starlette.testclient import TestClient

from meridian_table import bots, waiting
from meridian_table.bots.arena import play
from meridian_table.bots.worker import NICE
from meridian_table.games import registry
from meridian_table.games.contract import RandomPolicy
from meridian_table.store import Store
from meridian_table.table.lobby import LoggedTable
from meridian_table.table.reviews import (
    REVIEW_MAX_S,
    ReviewCancelled,
    ReviewGate,
    bounded_budget,
)
from meridian_table.table.session import TableSession
from meridian_table.table.storejournal import StoreArchive
from meridian_table.web import create_app

# Slow enough that a review is still running while the test looks at it, on any machine:
# level 5 thinks for its whole budget (0.5 s a position, some 40 s for the game), where
# levels 1-3 stop after a fixed number of iterations, which a quiet machine finished
# before the test had looked (a CI flake).
SLOW = {"level": 5, "budget_s": 0.5}


def _reviews(table: LoggedTable | None = None) -> list[psutil.Process]:
    """The review processes: spawned children, less the hint's worker that a watched
    table starts at once (issue 26)."""
    session = None if table is None else table.session
    hinter = session._hinter if isinstance(session, TableSession) else None  # noqa: SLF001
    worker = None if hinter is None else hinter._worker  # noqa: SLF001
    process = None if worker is None else worker._process  # noqa: SLF001
    skip = None if process is None else process.pid
    out = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.pid == skip:
                continue
            if child.is_running() and child.status() != psutil.STATUS_ZOMBIE and any(
                    "spawn_main" in part for part in child.cmdline()):
                out.append(child)
        except psutil.Error:
            continue
    return out


def _started_from_now(table: LoggedTable | None = None) -> Callable[[], list[psutil.Process]]:
    """The review processes started from now on: children of earlier tests in this
    xdist worker (a cancelled review or a hint worker still ending, at low priority, on
    a busy machine) are not the calling test's."""
    before = {child.pid for child in _reviews(table)}
    return lambda: [child for child in _reviews(table) if child.pid not in before]


def _wait_for(check: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"never: {check}")


@pytest.fixture
def archive(tmp_path: Path) -> Iterator[StoreArchive]:
    spec = registry.spec("kato")
    actions = play(spec, [bots.create("kato", 1, 1, 30), RandomPolicy(2)], 7, 1.0).actions
    with Store.open(tmp_path / "games.sqlite3") as store:
        for _ in range(2):
            gid = store.create_game("kato", {}, ["Ann", "Bob"])
            for action in actions:
                store.append(gid, "action", {"notation": action, "source": "board"})
        yield StoreArchive(store, ReviewGate())


def test_review_bounds_one_at_a_time_per_table(archive: StoreArchive) -> None:
    reviews = _started_from_now()

    gone = threading.Event()
    errors: list[BaseException] = []
    results: list[dict[str, Any]] = []

    def review(game_id: int) -> None:
        with waiting.waiting(gone):
            try:
                results.append(archive.review(game_id, **SLOW))
            except ValueError as exc:
                errors.append(exc)

    first = threading.Thread(target=review, args=(1,))
    first.start()
    _wait_for(lambda: archive.review_progress(1) is not None)
    # Another game: refused at once, with the reason and how far the running one is.
    with pytest.raises(ValueError, match=r"reviewing game 1 \(\d+ of \d+ moves\).*one review"):
        archive.review(2, **SLOW)
    # The same review again: it joins the running one (one process for both).
    second = threading.Thread(target=review, args=(1,))
    second.start()
    # A busy machine may take a while to spawn the review's process: wait for it, then
    # give a second one every chance to appear before counting.
    _wait_for(lambda: len(reviews()) >= 1, 60)
    time.sleep(0.5)
    assert len(reviews()) == 1, reviews()
    # Both leave: nobody waits, so the review is cancelled and its process ends.
    gone.set()
    first.join(30)
    second.join(30)
    assert not first.is_alive() and not second.is_alive()
    assert len(errors) == 2 and all(isinstance(e, ReviewCancelled) for e in errors), errors
    _wait_for(lambda: not reviews(), 180)  # a low-priority process ends late when busy
    _wait_for(lambda: archive.review_progress(1) is None, 180)


def test_review_bounds_runs_at_the_workers_low_priority(archive: StoreArchive) -> None:
    reviews = _started_from_now()

    gone = threading.Event()
    worker = threading.Thread(target=lambda: _left(archive, gone), daemon=True)
    worker.start()
    try:
        _wait_for(lambda: archive.review_progress(1) is not None and archive.review_progress(
            1) != {"done": 0, "total": archive.review_progress(1)["total"]})  # type: ignore[index]
        found = reviews()
        assert len(found) == 1, found
        assert found[0].nice() >= NICE
    finally:
        gone.set()
        worker.join(30)
    _wait_for(lambda: not reviews(), 180)  # a low-priority process ends late when busy


def _left(archive: StoreArchive, gone: threading.Event) -> None:
    with waiting.waiting(gone):
        try:
            archive.review(1, **SLOW)
        except ReviewCancelled:
            pass


def test_review_bounds_the_whole_review_is_bounded_in_time() -> None:
    assert bounded_budget(10.0, 40) * 2 * 41 <= REVIEW_MAX_S
    assert bounded_budget(0.2, 40) == 0.2
    assert bounded_budget(10.0, 100_000) == 0.01


def test_review_bounds_a_closed_page_cancels_its_review(
        archive: StoreArchive, logged_session: LoggedTable) -> None:
    logged_session.archive = archive  # the table's archive of two games (the lobby's)
    mine = _started_from_now(logged_session)

    client = TestClient(create_app(logged_session), base_url="http://127.0.0.1:8765")
    with client.websocket_connect("ws://127.0.0.1:8765/ws") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "command", "id": 7,
                      "cmd": {"cmd": "review", "game_id": 1, **SLOW}})
        _wait_for(lambda: archive.review_progress(1) is not None)
        _wait_for(lambda: len(mine()) == 1)
    # The page closed: nobody waits, so the review stops and its process ends.
    # The review runs at the bot worker's low priority: on a busy machine it may take a
    # while to be scheduled and end, which is the point of its priority.
    _wait_for(lambda: not mine(), 180)
    _wait_for(lambda: archive.review_progress(1) is None, 180)


@pytest.mark.parametrize("field", [{"level": 9}, {"level": 0}, {"budget_s": 60},
                                   {"level": "١"}])
def test_review_bounds_the_page_level_and_budget_are_bounded(
        logged_session: LoggedTable, field: dict[str, Any]) -> None:
    answer = logged_session.command({"cmd": "review", "game_id": 1, **field})
    assert not answer["ok"] and next(iter(field)) in answer["error"], answer
