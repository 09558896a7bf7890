"""Records: export, parse back, and errors with line and column."""

from __future__ import annotations

import random

import pytest

from meridian_table.games import colovini
from meridian_table.games.colovini import RecordError


def _played(players: int, seed: int) -> colovini.Game:
    game = colovini.new_game(players=players, seed=seed, names=[f"P{i}" for i in range(players)])
    rng = random.Random(seed)
    while not game.is_over:
        game.play(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_full_game_round_trips(players: int) -> None:
    game = _played(players, seed=players * 11)
    text = colovini.record.export(game, {"Event": "club night"})
    headers, again = colovini.record.parse(text)
    assert headers["Event"] == "club night" and headers["Seed"] == str(players * 11)
    assert again.state == game.state and again.steps == game.steps
    assert headers["Result"] == ", ".join(f"{p} {t}" for p, t in game.result().totals.items())


def test_physical_deck_records_need_no_seed() -> None:
    game = colovini.new_game(players=4, deck="physical", names=["A", "B", "C", "D"])
    game.play("9:9.2=3")
    text = colovini.record.export(game)
    assert "Seed" not in text
    assert colovini.record.parse(text)[1].state == game.state


def test_an_illegal_action_is_reported_with_line_and_column() -> None:
    game = colovini.new_game(players=4, deck="physical")
    game.play("9:9.2=3")
    text = colovini.record.export(game) + "2.  9:9.3=3  # a second 3 on meridian 9\n"
    with pytest.raises(RecordError, match="rule 2") as info:
        colovini.record.parse(text)
    assert (info.value.line, info.value.column) == (len(text.splitlines()), 5)


def test_bad_numbering_and_bad_headers() -> None:
    text = "Game: colovini\nPlayers: 4\nDeck: physical\n\n1. 3:pass\n3. 4:pass\n"
    with pytest.raises(RecordError, match="expected 2") as info:
        colovini.record.parse(text)
    assert info.value.line == 6
    with pytest.raises(RecordError, match="line 2, column 1: the headers do not make a game"):
        colovini.record.parse("Game: colovini\nPlayers: 7\n\n")
    with pytest.raises(RecordError, match="not 'colovini'"):
        colovini.record.parse("Game: kato\n\n")
    with pytest.raises(RecordError, match="line 1, column 1"):
        colovini.record.parse("no colon here\n")
