"""Game records: export, parse, round trips and errors with line and column."""

from __future__ import annotations

import random

import pytest

from meridian_table.games import kato
from meridian_table.games.kato import record


def random_game(seed: int, size: int = 6, pie: bool = False, plies: int = 200) -> kato.Game:
    rng = random.Random(seed)
    g = kato.Game(size=size, pie=pie)
    for _ in range(plies):
        if g.winner is not None:
            break
        g.play(rng.choice(sorted(g.legal_moves())))
    return g


@pytest.mark.parametrize(("seed", "size", "pie"), [(1, 6, False), (2, 5, True), (3, 7, True)])
def test_round_trip(seed: int, size: int, pie: bool) -> None:
    g = random_game(seed, size, pie)
    text = record.export(g, {"Player1": "Ada", "Player2": "Brook", "Date": "2025-03-14"})
    headers, back = record.parse(text)
    assert headers["Player1"] == "Ada" and headers["Date"] == "2025-03-14"
    assert headers["Size"] == str(size) and headers["Pie"] == ("yes" if pie else "no")
    assert headers["Result"] == (g.winner or "*")
    assert back.plies == g.plies
    assert back.position() == g.position() and back.winner == g.winner
    assert record.export(back, headers) == text


def test_export_example() -> None:
    g = kato.Game()
    for move in ("G6", "J7", "G8", "G7", "G10"):
        g.play(move)
    text = record.export(g, {"Player1": "Ada", "Player2": "Brook", "Event": "club night"})
    assert text == (
        "Game: Kato's Meridians\n"
        "Size: 6\n"
        "Pie: no\n"
        "Tournament: no\n"
        "Player1: Ada\n"
        "Player2: Brook\n"
        "Date: \n"
        "Result: *\n"
        "Event: club night\n"
        "\n"
        "1. light G6\n"
        "2. dark J7\n"
        "3. light G8\n"
        "4. dark G7\n"
        "5. light G10  # removes G6\n"
    )


def test_overlooked_groups_and_setups_round_trip() -> None:
    g = kato.Game.from_stones(
        light=["G4", "G8"], dark=["I6", "K6"], to_move="dark", tournament=True
    )
    g.play("G6")
    ply = g.play("G2")
    assert ply.removed == {"G8"}
    g.play("I8 overlooked G8")
    text = record.export(g)
    assert "Setup: " in text and "ToMove: dark" in text
    assert "3. dark I8 overlooked G8" in text
    _, back = record.parse(text)
    assert back.plies == g.plies and back.position() == g.position()


def test_export_refuses_conflicting_headers() -> None:
    with pytest.raises(ValueError, match="Size"):
        record.export(kato.Game(), {"Size": "7"})


def error(text: str) -> kato.RecordError:
    with pytest.raises(kato.RecordError) as info:
        record.parse(text)
    return info.value


def test_illegal_move_error_has_line_and_column() -> None:
    e = error("Size: 6\n\n1. light G6\n2. dark  G9\n3. light   G7\n")
    assert (e.line, e.column) == (5, 12)
    assert "adjacent" in str(e) and "line 5, column 12" in str(e)


def test_wrong_colour_and_numbering() -> None:
    e = error("Size: 6\n\n1. dark G6\n")
    assert (e.line, e.column) == (3, 4) and "light" in str(e)
    e = error("1. light G6\n3. dark G9\n")
    assert (e.line, e.column) == (2, 1) and "expected 2" in str(e)
    e = error("1. light G6\nG9\n")
    assert (e.line, e.column) == (2, 1)
    e = error("1. light\n")
    assert e.line == 1


def test_bad_headers() -> None:
    e = error("Size: 9\n\n1. light G6\n")
    assert (e.line, e.column) == (1, 7)
    e = error("Size: 6\nPie: maybe\n")
    assert (e.line, e.column) == (2, 6) and "yes or no" in str(e)
    e = error("Size: 6\nSize: 5\n")
    assert e.line == 2 and "twice" in str(e)
    e = error("Setup: LLD\n")
    assert e.line == 1 and "points" in str(e)


def test_result_must_agree_with_the_moves() -> None:
    g = kato.Game.from_stones(light=["G5", "G7"], dark=["K5", "K7"], to_move="light")
    g.play("G6")
    assert g.winner == "dark"
    text = record.export(g).replace("Result: dark", "Result: light")
    e = error(text)
    assert "contradicts" in str(e) and e.line == 8


def test_comments_and_blank_lines_are_ignored() -> None:
    headers, g = record.parse("# a club game\nSize: 5   # small board\n\n1. light F5  # centre\n\n")
    assert headers["Size"] == "5" and g.plies[0].move == "F5" and g.size == 5


def test_the_documented_example_parses() -> None:
    from pathlib import Path

    doc = (Path(__file__).parents[3] / "docs" / "games" / "kato.md").read_text()
    start = doc.index("```\nGame: Kato's Meridians") + 4
    example = doc[start : doc.index("```", start)]
    headers, g = record.parse(example)
    assert headers["Player1"] == "Ada" and g.swapped and g.seat("light") == 1
    assert g.plies[5].removed == {"G6"}
    assert record.export(g, headers) == example
