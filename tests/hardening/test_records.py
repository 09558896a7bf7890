"""Records keep what the table knew: the result of a game ended by agreement, and the
stones each move removed (issue 10, item 15)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.table.fakes import FakeBoard, FakeClock
from tests.table.test_session import capture_line

from meridian_table.cli.main import main
from meridian_table.games import kato
from meridian_table.games.kato.adapter import KatoAdapter
from meridian_table.profiles import load_profile
from meridian_table.store import Store
from meridian_table.table import TableSession
from meridian_table.table.storejournal import start_game


class Logged:
    def __init__(self, store: Store) -> None:
        self.store = store
        adapter = KatoAdapter(6, pie=False, assist="full")
        profile = load_profile("kato-114")
        self.board = FakeBoard(profile)
        self.clock = FakeClock()
        journal = start_game(store, adapter, ["Ann", "Bob"], profile="kato-114",
                             settings=adapter.settings())
        self.session = TableSession(adapter, profile, self.board, journal=journal,
                                    clock=self.clock, players=("Ann", "Bob"))
        self.board.session = self.session
        self.game_id = int(self.session.state()["game_id"])

    def set(self, site: str, closed: bool) -> None:
        self.board.set(site, closed)
        self.clock.advance(0.31)
        self.session.tick()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "log.sqlite3"


@pytest.fixture
def table(db: Path) -> Iterator[Logged]:
    with Store.open(db) as store:
        yield Logged(store)


def cli(*args: str) -> str:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_game_ended_by_agreement_has_its_result_in_the_record(
    table: Logged, db: Path
) -> None:
    for site in ("A1", "M1", "A3", "M3", "A5"):
        table.set(site, True)
    table.session.press("menu")
    table.session.agree("light")
    table.session.press("confirm")
    result = table.session.state()["result"]
    assert result["adjudicated"] is True
    text = cli("export", str(table.game_id), "--format", "record", "--db", str(db))
    headers, parsed = kato.record.parse(text)
    expected = result["winner"] or "draw"
    assert headers["Result"].split()[0] == expected, text
    assert "Result: *" not in text
    assert [p.notation for p in parsed.plies] == ["A1", "M1", "A3", "M3", "A5"]


def test_records_and_replay_name_the_stones_each_move_removed(
    table: Logged, db: Path
) -> None:
    moves, count = capture_line()
    for move in moves:
        if move == "pass":
            table.session.press("confirm")
        else:
            table.set(move, True)
    removed = table.session.state()["moves"][-1]["removed"]
    assert len(removed) == count
    for site in removed:
        table.set(site, False)
    n = len(moves)
    stones = " ".join(removed)
    # The log carries it, the record says it, and replay shows it.
    event = table.store.moves(table.game_id)[-1]
    assert event.payload["removed"] == removed
    record = cli("export", str(table.game_id), "--format", "record", "--db", str(db))
    line = next(r for r in record.splitlines() if r.startswith(f"{n}. "))
    assert line.endswith(f"# removes {stones}"), line
    headers, parsed = kato.record.parse(record)
    assert len(parsed.plies) == n
    replay = cli("replay", str(table.game_id), "--db", str(db))
    row = next(r for r in replay.splitlines() if f" {moves[-1]} " in r and r.split()[1] == str(n))
    assert stones in row, replay
