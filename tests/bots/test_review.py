"""The post-game review of a logged game: `meridian-table review ID`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from meridian_table import bots
from meridian_table.bots.arena import play
from meridian_table.bots.review import THRESHOLD, review
from meridian_table.cli.main import main
from meridian_table.games import registry
from meridian_table.games.contract import RandomPolicy
from meridian_table.store import Store


def _logged(tmp_path: Path) -> tuple[Path, tuple[str, ...]]:
    spec = registry.spec("kato")
    played = play(spec, [bots.create("kato", 1, 1, 30), RandomPolicy(2)], 7, 1.0)
    db = tmp_path / "games.sqlite3"
    with Store.open(db) as store:
        gid = store.create_game("kato", {}, ["Ann", "Bob"])
        for action in played.actions:
            store.append(gid, "action", {"notation": action, "source": "board"})
    return db, played.actions


def test_the_review_marks_the_moves_that_lost_the_most(tmp_path: Path) -> None:
    db, _ = _logged(tmp_path)
    with Store.open(db, readonly=True) as store:
        info = store.game(1)
        actions = store.actions(1)
    spec = registry.spec("kato")
    marks = review(spec, info.options, actions, info.players, level=2, iterations=60, top=4)
    again = review(spec, info.options, actions, info.players, level=2, iterations=60, top=4)
    assert marks == again and marks  # deterministic, and a random player blunders
    losses = [m.loss for m in marks]
    assert losses == sorted(losses, reverse=True) and min(losses) >= THRESHOLD
    for mark in marks:
        # The better move was legal where the marked move was played.
        engine = spec.new_game(info.options, None)
        for action in actions[: mark.number - 1]:
            engine.play(action)
        assert mark.best in engine.legal() and mark.best != mark.played
        assert mark.played == actions[mark.number - 1]
        assert mark.player == info.players[mark.seat]
        assert mark.words.startswith(f"Move {mark.number}: {mark.player} played {mark.played}")


def test_review_from_the_command_line(tmp_path: Path) -> None:
    db, actions = _logged(tmp_path)
    runner = CliRunner()
    result = runner.invoke(main, ["review", "1", "--db", str(db), "--level", "1",
                                  "--budget", "0.02", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["moves"] == len(actions) and data["game"] == 1
    for mark in data["marks"]:
        assert {"number", "played", "best", "loss", "words"} <= set(mark)
    text = runner.invoke(main, ["review", "1", "--db", str(db), "--level", "1",
                                "--budget", "0.02"])
    assert text.exit_code == 0 and "Game 1" in text.output
    missing = runner.invoke(main, ["review", "9", "--db", str(db)])
    assert missing.exit_code != 0 and "Traceback" not in missing.output
    assert "9" in missing.output


@pytest.mark.slow
def test_the_pages_review_command_gives_the_better_moves_sites(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from meridian_table.table import storejournal
    from meridian_table.table.storejournal import StoreArchive

    monkeypatch.setattr(storejournal, "REVIEW_BUDGET_S", 0.01)  # the logic, not the strength

    db, actions = _logged(tmp_path)
    with Store.open(db) as store:
        data = StoreArchive(store).review(1)
    assert data["game"] == "kato" and data["moves"] == len(actions)
    for mark in data["marks"]:
        # Kato's move is one stone (and the dead stones its removal step takes off).
        assert mark["best"] in mark["best_sites"] or mark["best"] in ("pass", "swap")
