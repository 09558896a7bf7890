"""Text diagrams for `meridian-table replay`."""

from __future__ import annotations

import pytest

from meridian_table.store.diagram import hex_diagram, text_diagram

# A hexagon of radius 1 in axial coordinates, named in column order like Kato's cells.
COORDS = {"A1": (-1, 0), "A2": (-1, 1), "B1": (0, -1), "B2": (0, 0), "B3": (0, 1),
          "C1": (1, -1), "C2": (1, 0)}
POINTS = tuple(COORDS)


def test_hex_diagram_draws_rows_by_r() -> None:
    assert hex_diagram(POINTS, "L.D..L.", COORDS) == " D L\nL . .\n . ."


def test_hex_diagram_needs_one_char_per_point() -> None:
    with pytest.raises(ValueError, match="6 characters for 7 points"):
        hex_diagram(POINTS, "......", COORDS)


def test_a_game_draws_its_position_through_its_spec() -> None:
    from meridian_table.games import registry

    spec = registry.spec("kato")
    game = spec.new_game({"size": 5}, None)
    game.play("A1")
    drawing = text_diagram(spec, game)
    assert drawing is not None and drawing.count("L") == 1 and drawing.count(".") == 79


def test_a_game_without_a_diagram_draws_nothing() -> None:
    from meridian_table.games import registry

    spec = registry.spec("colovini")
    assert spec.text_diagram is None
    assert text_diagram(spec, spec.new_game({"players": 2}, 1)) is None
