"""tests/table/headless.py drives any game's `play --headless`, with extra options."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.table.headless import Headless


def test_the_helper_starts_the_game_it_is_told_with_the_options_given(tmp_path: Path) -> None:
    h = Headless(tmp_path / "g.sqlite3", "--players", "Ann,Bob,Cid", "--profile", "colovini-40",
                 game="colovini", strict=True)
    try:
        assert h.next(30)["event"] == "ready"
        state = h.state()
        assert state["game"] == "colovini" and state["players"] == ["Ann", "Bob", "Cid"]
        with pytest.raises(AssertionError, match="error"):
            h.ask("button swap")  # strict: a refused command fails the test at once
    finally:
        h.quit()


def test_the_default_game_is_still_kato(tmp_path: Path) -> None:
    h = Headless(tmp_path / "g.sqlite3")
    try:
        assert h.next(30)["event"] == "ready"
        assert h.state()["game"] == "kato"
        assert any(r["event"] == "error" for r in h.ask("button swap"))  # not strict
    finally:
        h.quit()
