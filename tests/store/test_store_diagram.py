"""Text diagrams for `meridian-table replay`."""

from __future__ import annotations

import types

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


class KatoLike:
    points = POINTS
    size = 1

    def position(self) -> str:
        return "LLLLLLL"


def test_kato_like_engines_are_drawn_with_the_package_geometry() -> None:
    geometry = types.SimpleNamespace(coordinates=lambda size: COORDS)
    package = types.SimpleNamespace(geometry=geometry)
    assert text_diagram(package, KatoLike(), "kato") == " L L\nL L L\n L L"


def test_a_package_diagram_wins_then_str_then_nothing() -> None:
    custom = types.SimpleNamespace(text_diagram=lambda engine: "custom!")
    assert text_diagram(custom, KatoLike(), "x") == "custom!"

    class Printable:
        def __str__(self) -> str:
            return "a printable position"

    bare = types.SimpleNamespace()
    assert text_diagram(bare, Printable(), "x") == "a printable position"
    assert text_diagram(bare, object(), "x") is None
