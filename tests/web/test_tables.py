"""The page tests' helpers keep their promises (tests/web/tables.py)."""

from __future__ import annotations

from tests.web.tables import KATO_LINE

from meridian_table.games import kato


def test_the_kato_line_is_six_legal_moves_removing_nothing() -> None:
    game = kato.new_game(5)
    for move in KATO_LINE:
        assert move in game.legal_moves(), move
        assert not game.play(move).removed, move
    assert len(KATO_LINE) == 6
