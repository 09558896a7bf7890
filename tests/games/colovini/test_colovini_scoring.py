"""Scoring details: the tie-break, island values, bad garrisons."""

from __future__ import annotations

import pytest

from meridian_table.games import colovini
from meridian_table.games.colovini import ScoreError

BOARD = colovini.load_map("sample-50")


def test_a_tie_in_totals_goes_to_more_pieces_left_in_hand() -> None:
    garrisons = {"2.3": "Ann", "8.1": "Bob"}  # B (3 cities) and E (3 cities)
    tied = colovini.score(BOARD, garrisons)
    assert tied.winners == ("Ann", "Bob")
    assert "give the pieces left" in tied.tie_break
    result = colovini.score(BOARD, garrisons, pieces_left={"Ann": 4, "Bob": 7})
    assert result.winners == ("Bob",)
    assert "Bob has the most pieces left in hand (Ann 4, Bob 7) and wins" in result.tie_break
    shared = colovini.score(BOARD, garrisons, pieces_left={"Ann": 5, "Bob": 5})
    assert shared.winners == ("Ann", "Bob")
    assert "share the win" in shared.tie_break


def test_island_value_from_the_map_overrides_the_city_count() -> None:
    text = colovini.load_map("sample-50")
    source = text.text  # the map's own TOML, as a game logs it
    source = source.replace('name = "Albarra"', 'name = "Albarra"\nvalue = 7')
    board = colovini.parse_map(source, "valued.toml")
    assert board.islands["A"].value == 7 and text.islands["A"].value == 3
    assert colovini.score(board, {"1.1": "Ann"}).totals == {"Ann": 7}


def test_garrison_on_an_unknown_city_is_refused_by_name() -> None:
    with pytest.raises(ScoreError, match="'11.1'"):
        colovini.score(BOARD, {"11.1": "Ann"})
    with pytest.raises(ScoreError, match="'Zed'"):
        colovini.score(BOARD, {"1.1": "Zed"}, players=["Ann", "Bob"])


def test_as_dict_is_json_ready() -> None:
    import json

    result = colovini.score(BOARD, {"2.2": "Ann", "1.2": "Bob"}, pieces_left={"Ann": 1, "Bob": 2})
    data = json.loads(json.dumps(result.as_dict()))
    island_d = next(i for i in data["islands"] if i["island"] == "D")
    assert island_d["owner"] == "Ann" and island_d["strengths"] == {"Ann": 2, "Bob": 1}
    assert data["totals"] == {"Ann": 5, "Bob": 0}
