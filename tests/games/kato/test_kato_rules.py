"""Every rules decision in DESIGN.md ("Rules decisions - Kato's Meridians"), each with a
small hand-made position. Positions are drawn in axial coordinates (q, r): the lines
run along (1, 0), (0, 1) and (1, -1), so they are easy to check by hand."""

from __future__ import annotations

import pytest

from meridian_table.games import kato
from meridian_table.games.kato import geometry


def cell(q: int, r: int, size: int = 6) -> str:
    """The cell name at axial (q, r)."""
    for name, qr in geometry.coordinates(size).items():
        if qr == (q, r):
            return name
    raise KeyError((q, r))


def cells(*qrs: tuple[int, int]) -> list[str]:
    return [cell(q, r) for q, r in qrs]


# --- board sizes and names -------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "count", "columns", "rows"),
    [
        (5, 80, [5, 6, 7, 8, 9, 10, 9, 8, 7, 6, 5], [6, 7, 8, 9, 10, 10, 9, 8, 7, 6]),
        (
            6,
            114,
            [6, 7, 8, 9, 10, 11, 12, 11, 10, 9, 8, 7, 6],
            [7, 8, 9, 10, 11, 12, 12, 11, 10, 9, 8, 7],
        ),
        (
            7,
            154,
            [7, 8, 9, 10, 11, 12, 13, 14, 13, 12, 11, 10, 9, 8, 7],
            [8, 9, 10, 11, 12, 13, 14, 14, 13, 12, 11, 10, 9, 8],
        ),
    ],
)
def test_sizes_have_the_right_points_and_line_lengths(
    size: int, count: int, columns: list[int], rows: list[int]
) -> None:
    g = kato.Game(size=size)
    assert len(g.points) == count == len(set(g.points))
    lines = geometry.lines(size)
    n_cols = 2 * size + 1
    assert [len(line) for line in lines[:n_cols]] == columns
    # Rows (1, 0) and diagonals (1, -1) have the same lengths, by symmetry.
    assert sorted(len(line) for line in lines[n_cols : n_cols + 2 * size]) == sorted(rows)
    assert sorted(len(line) for line in lines[n_cols + 2 * size :]) == sorted(rows)
    assert len(lines) == n_cols + 4 * size
    # Every point lies on exactly three lines.
    for p in g.points:
        assert sum(p in line for line in lines) == 3
    # Columns are named A.. and indexed from 1 in order.
    for letter_index, line in enumerate(lines[:n_cols]):
        letter = chr(ord("A") + letter_index)
        assert list(line) == [f"{letter}{k}" for k in range(1, len(line) + 1)]


def test_standard_board_names_follow_the_design_mapping() -> None:
    g = kato.Game()
    assert g.points[:6] == ("A1", "A2", "A3", "A4", "A5", "A6")
    assert g.points[-1] == "M6"
    # q = i - 6, r = k - min(i, 6)
    assert geometry.coordinates(6)["A1"] == (-6, 1)
    assert geometry.coordinates(6)["G1"] == (0, -5)
    assert geometry.coordinates(6)["M1"] == (6, -5)
    assert g.position() == "." * 114


def test_bad_size_is_refused() -> None:
    with pytest.raises(ValueError, match="board size 8"):
        kato.Game(size=8)


# --- the opening ----------------------------------------------------------------------


def test_light_moves_first_on_any_point_then_dark_on_any_point() -> None:
    g = kato.Game()
    assert g.to_move == "light"
    assert g.legal_moves() == set(g.points)
    g.play("G6")
    assert g.to_move == "dark"
    assert g.legal_moves() == set(g.points) - {"G6"}
    g.play("G7")  # Dark's first stone may touch Light's.
    assert g.to_move == "light"


def test_adjacent_second_stone_is_illegal() -> None:
    g = kato.Game()
    g.play(cell(0, 0))
    g.play(cell(5, -5))
    for q, r in ((1, 0), (0, 1), (1, -1), (-1, 0), (0, -1), (-1, 1)):
        assert cell(q, r) not in g.legal_moves()
    with pytest.raises(kato.IllegalMoveError, match="adjacent") as info:
        g.play(cell(1, 0))
    assert repr(cell(1, 0)) in str(info.value)
    g.play(cell(2, 0))  # one empty point between: a path


def test_second_stone_needs_an_unbroken_line_to_the_first() -> None:
    g = kato.Game()
    g.play(cell(0, 0))
    g.play(cell(0, 2))  # Dark blocks the column above Light's stone
    legal = g.legal_moves()
    assert cell(0, 3) not in legal  # beyond Dark's stone: no path
    assert cell(1, 1) not in legal  # not on a line with the first stone
    assert cell(0, -2) in legal and cell(3, 0) in legal and cell(3, -3) in legal
    with pytest.raises(kato.IllegalMoveError, match="path to the first"):
        g.play(cell(0, 3))
    with pytest.raises(kato.IllegalMoveError, match="occupied"):
        g.play(cell(0, 2))


def test_placement_from_turn_three_needs_a_friendly_stone_first_on_a_line() -> None:
    g = kato.Game.from_stones(
        light=cells((0, 0)), dark=cells((2, 0), (0, 2), (-2, 2)), to_move="light"
    )
    legal = g.legal_moves()
    assert cell(1, 0) in legal  # sees (0,0) next to it
    assert cell(0, 1) in legal
    assert cell(3, 0) not in legal  # first stone towards Light is Dark's (2,0)
    assert cell(0, 3) not in legal
    assert cell(0, -4) in legal  # a long empty line
    assert cell(1, 1) not in legal  # on no line with (0,0)
    with pytest.raises(kato.IllegalMoveError, match="friendly stone"):
        g.play(cell(3, 0))


# --- removal and life -------------------------------------------------------------------

# Light: two stones on column q=0 that see each other. Dark: a live pair on row r=0.
CUT_LIGHT = ((0, -2), (0, 2))
CUT_DARK = ((2, 0), (4, 0))


def test_a_cut_group_survives_one_turn_and_is_then_removed() -> None:
    g = kato.Game.from_stones(light=cells(*CUT_LIGHT), dark=cells(*CUT_DARK), to_move="dark")
    assert g.dead_groups("light") == []
    ply = g.play(cell(0, 0))  # Dark cuts the column
    assert ply.removed == frozenset()  # Dark's own groups all live
    assert sorted(map(sorted, g.dead_groups("light"))) == [[cell(0, -2)], [cell(0, 2)]]
    # Light's turn: the cut stones are still on the board and still give sight.
    assert g.position().count("L") == 2
    assert cell(0, 4) in g.legal_moves()
    ply = g.play(cell(0, -4))  # links (0,-4) with (0,-2); (0,2) stays cut
    assert ply.removed == {cell(0, 2)}
    assert set(g.stones("light")) == {cell(0, -2), cell(0, -4)}
    assert g.winner is None


def test_a_cut_group_can_be_saved_on_its_own_turn() -> None:
    g = kato.Game.from_stones(light=cells(*CUT_LIGHT), dark=cells(*CUT_DARK), to_move="dark")
    g.play(cell(0, 0))
    ply = g.play(cell(-2, 2))  # on row r=2: links with (0,2) across (-1,2)
    assert cell(0, 2) not in ply.removed
    assert ply.removed == {cell(0, -2)}


def test_a_group_never_keeps_itself_alive() -> None:
    # A bent Light group whose two ends see each other across an empty point, and
    # no other Light group: it is one group, so it is dead.
    bent = cells((0, 0), (1, 0), (2, -1), (2, -2), (1, -2), (0, -1))[:5]
    g = kato.Game.from_stones(light=bent, dark=cells(*CUT_DARK), to_move="dark")
    assert [sorted(x) for x in g.groups("light")] == [sorted(bent)]
    assert [sorted(x) for x in g.dead_groups("light")] == [sorted(bent)]


def test_self_merge_with_no_path_removes_the_group_and_loses() -> None:
    g = kato.Game.from_stones(
        light=cells((0, -1), (0, 1)), dark=cells((4, 0), (4, 2)), to_move="light"
    )
    assert g.dead_groups("light") == []
    ply = g.play(cell(0, 0))  # self-capture is legal
    assert ply.removed == {cell(0, -1), cell(0, 0), cell(0, 1)}
    assert g.stones("light") == frozenset()
    assert g.winner == "dark"
    assert g.legal_moves() == set()
    with pytest.raises(kato.IllegalMoveError, match="game is over"):
        g.play(cell(4, -2))


def test_self_capture_in_tournament_games_loses_at_the_start_of_the_next_turn() -> None:
    g = kato.Game.from_stones(
        light=cells((0, -1), (0, 1)),
        dark=cells((4, 0), (4, 2)),
        to_move="light",
        tournament=True,
    )
    g.play(cell(0, 0))
    assert g.winner is None  # Dark might still overlook the group
    g.play(cell(4, -2))
    assert g.winner == "dark"


def test_all_dead_groups_of_the_mover_are_removed_together_and_only_the_movers() -> None:
    # Light has two separate dead stones; Dark has a dead stone too.
    g = kato.Game.from_stones(
        light=cells((-4, 0), (-4, 2), (3, 3)),
        dark=cells((-4, 1), (2, -2), (5, -5), (0, 5)),
        to_move="light",
    )
    dead_dark = {s for grp in g.dead_groups("dark") for s in grp}
    ply = g.play(cell(3, 1))  # links with (3,3) across (3,2)
    assert ply.removed == {cell(-4, 0), cell(-4, 2)}
    assert dead_dark <= g.stones("dark")  # Dark's dead stones wait for Dark's move


def test_removal_reopens_paths() -> None:
    # Dark's (0,0) sits between two Light stones and is dead; when Light's move
    # triggers nothing, Dark's own move removes it and Light's pair links again.
    g = kato.Game.from_stones(
        light=cells((0, -2), (0, 2), (-4, 3), (-4, 5)),
        dark=cells((0, 0), (5, -4), (5, -2)),
        to_move="dark",
    )
    assert sorted(map(sorted, g.dead_groups("light"))) == [[cell(0, -2)], [cell(0, 2)]]
    assert g.dead_groups("dark") == [frozenset({cell(0, 0)})]
    ply = g.play(cell(6, -3))  # joins the live pair; does not see (0,0)
    assert ply.removed == {cell(0, 0)}
    assert g.dead_groups("light") == []


def test_the_first_removal_is_at_the_start_of_the_third_turn() -> None:
    g = kato.Game()
    assert g.play("G6").removed == frozenset()  # (0, 0)
    assert g.play("J7").removed == frozenset()  # (3, 1)
    assert g.play("G8").removed == frozenset()  # (0, 2): a path to G6 through G7
    # Dark's second stone G7 has a path to J7 and cuts Light's two stones apart.
    assert g.play("G7").removed == frozenset()
    assert sorted(map(sorted, g.dead_groups("light"))) == [["G6"], ["G8"]]
    # Light's third turn: its own dead stones stay during its turn ...
    assert g.turn_number() == 3 and g.stones("light") == {"G6", "G8"}
    ply = g.play("G10")  # links with G8 across G9
    # ... and go at the start of Dark's third turn.
    assert ply.removed == {"G6"}
    assert g.stones("light") == {"G8", "G10"}


# --- passing ------------------------------------------------------------------------------

# Light's only stone is in the A1 corner, boxed in by a live Dark group.
BOXED_LIGHT = ((-6, 1),)
BOXED_DARK = ((-5, 1), (-6, 2), (-5, 0), (-6, 4))


def test_pass_only_when_nothing_is_legal_and_removal_still_applies() -> None:
    g = kato.Game.from_stones(light=cells(*BOXED_LIGHT), dark=cells(*BOXED_DARK), to_move="light")
    assert g.dead_groups("dark") == []
    assert g.legal_moves() == {"pass"}
    ply = g.play("pass")
    assert ply.move == "pass"
    assert ply.removed == {"A1"}  # Light's dead stone goes at the start of Dark's turn
    assert g.winner == "dark"


def test_pass_is_refused_while_a_placement_exists() -> None:
    g = kato.Game.from_stones(light=cells((0, 0)), dark=cells(*CUT_DARK), to_move="light")
    assert "pass" not in g.legal_moves()
    with pytest.raises(kato.IllegalMoveError, match="passing is not allowed"):
        g.play("pass")


def test_a_live_group_always_has_a_placement() -> None:
    # The empty points of a path are placements, so a player with a live group never
    # passes: here the boxed corner stone is not alone.
    g = kato.Game.from_stones(
        light=cells(*BOXED_LIGHT, (4, -4), (4, -2)),
        dark=cells(*BOXED_DARK),
        to_move="light",
    )
    assert cell(4, -3) in g.legal_moves() and "pass" not in g.legal_moves()


# --- the pie rule ---------------------------------------------------------------------


def test_pie_swap_exchanges_seats_only() -> None:
    g = kato.Game(pie=True)
    assert g.seat_to_move == 1 and "swap" not in g.legal_moves()
    g.play("G6")  # the opener's Light stone
    assert g.seat_to_move == 1 and g.to_move == "dark"
    assert "swap" not in g.legal_moves()
    g.play("G7")  # the opener's Dark stone (may touch)
    assert g.to_move == "light"
    assert g.seat_to_move == 2  # the other player decides
    assert "swap" in g.legal_moves()
    assert g.seat("dark") == 1 and g.seat("light") == 2
    position = g.position()
    ply = g.play("swap")
    assert ply.move == "swap" and ply.removed == frozenset()
    assert g.position() == position and g.to_move == "light"
    assert g.seat("light") == 1 and g.seat("dark") == 2 and g.seat_to_move == 1
    assert "swap" not in g.legal_moves()
    with pytest.raises(kato.IllegalMoveError, match="swap"):
        g.play("swap")
    with pytest.raises(kato.IllegalMoveError, match="adjacent"):
        g.play("G5")
    g.play("G4")  # Light's second stone, by the opener
    assert g.seat_to_move == 2 and g.to_move == "dark"


def test_pie_keep_lets_light_place_its_second_stone() -> None:
    g = kato.Game(pie=True)
    g.play("G6")
    g.play("C3")
    g.play("G4")  # not swapping: the other player keeps Light and plays on
    assert not g.swapped and g.seat("light") == 2
    assert "swap" not in g.legal_moves()
    assert g.seat_to_move == 1 and g.to_move == "dark"


def test_pie_undo_reopens_the_choice() -> None:
    g = kato.Game(pie=True)
    g.play("G6")
    g.play("C3")
    g.play("swap")
    g.undo()
    assert not g.swapped and "swap" in g.legal_moves()
    g.play("G4")
    g.undo()
    assert "swap" in g.legal_moves()
    g.undo()
    assert "swap" not in g.legal_moves()


def test_swap_is_refused_without_pie() -> None:
    g = kato.Game()
    g.play("G6")
    g.play("C3")
    assert "swap" not in g.legal_moves()
    with pytest.raises(kato.IllegalMoveError, match="pie"):
        g.play("swap")


# --- undo ---------------------------------------------------------------------------------


def test_undo_restores_removals() -> None:
    g = kato.Game.from_stones(light=cells(*CUT_LIGHT), dark=cells(*CUT_DARK), to_move="dark")
    g.play(cell(0, 0))
    before = (g.position(), g.to_move, g.legal_moves(), g.dead_groups("light"))
    ply = g.play(cell(0, -4))
    assert ply.removed
    undone = g.undo()
    assert undone == ply
    assert (g.position(), g.to_move, g.legal_moves(), g.dead_groups("light")) == before
    g.check_consistency()
    g.undo()
    assert (
        g.position()
        == kato.Game.from_stones(light=cells(*CUT_LIGHT), dark=cells(*CUT_DARK)).position()
    )
    with pytest.raises(IndexError):
        g.undo()


def test_undo_after_a_win_reopens_the_game() -> None:
    g = kato.Game.from_stones(
        light=cells((0, -1), (0, 1)), dark=cells((4, 0), (4, 2)), to_move="light"
    )
    g.play(cell(0, 0))
    assert g.winner == "dark"
    g.undo()
    assert g.winner is None and g.to_move == "light"
    assert g.stones("light") == {cell(0, -1), cell(0, 1)}


# --- overlooked dead groups (tournament) ---------------------------------------------------


def test_overlooked_group_lives_until_the_next_opponent_turn() -> None:
    g = kato.Game.from_stones(
        light=cells(*CUT_LIGHT), dark=cells(*CUT_DARK), to_move="dark", tournament=True
    )
    g.play(cell(0, 0))
    ply = g.play(cell(0, -4))
    assert ply.removed == {cell(0, 2)}
    # Dark overlooks the dead stone: it stays on the board during Dark's move.
    ply = g.play(f"{cell(2, 2)} overlooked {cell(0, 2)}")
    assert ply.overlooked == {cell(0, 2)}
    assert ply.notation == f"{cell(2, 2)} overlooked {cell(0, 2)}"
    assert cell(0, 2) in g.stones("light")
    # Light moves; at the start of Dark's next turn the still-dead stone goes.
    ply = g.play(cell(0, -5))
    assert cell(0, 2) in ply.removed
    g.undo()
    g.undo()
    assert cell(0, 2) not in g.stones("light")
    g.check_consistency()


def test_overlooking_is_refused_in_casual_games_and_for_live_stones() -> None:
    g = kato.Game.from_stones(light=cells(*CUT_LIGHT), dark=cells(*CUT_DARK), to_move="dark")
    g.play(cell(0, 0))
    g.play(cell(0, -4))
    with pytest.raises(kato.IllegalMoveError, match="tournament"):
        g.play(cell(2, 2), overlooked=[cell(0, 2)])
    t = kato.Game.from_stones(
        light=cells(*CUT_LIGHT), dark=cells(*CUT_DARK), to_move="dark", tournament=True
    )
    t.play(cell(0, 0))
    t.play(cell(0, -4))
    with pytest.raises(kato.IllegalMoveError, match="cannot be overlooked"):
        t.play(cell(2, 2), overlooked=[cell(0, -2)])
    assert t.to_move == "dark" and cell(0, 2) not in t.stones("light")


def test_an_overlooked_stone_blocks_the_line() -> None:
    g = kato.Game.from_stones(
        light=cells(*CUT_LIGHT), dark=cells(*CUT_DARK), to_move="dark", tournament=True
    )
    g.play(cell(0, 0))
    g.play(cell(0, -4))
    # With (0,2) gone Dark sees (0,3) from (0,0); with it overlooked, Dark does not.
    assert cell(0, 3) in g.legal_moves()
    with pytest.raises(kato.IllegalMoveError, match="friendly stone"):
        g.play(cell(0, 3), overlooked=[cell(0, 2)])
    assert cell(0, 2) not in g.stones("light")
    g.check_consistency()


# --- analysis ---------------------------------------------------------------------------


def test_safe_points_exclude_placements_whose_group_dies() -> None:
    g = kato.Game.from_stones(
        light=cells((0, -1), (0, 1)), dark=cells((4, 0), (4, 2)), to_move="light"
    )
    safe = g.safe_points("light")
    assert cell(0, 0) in g.legal_moves()
    assert cell(0, 0) not in safe  # merging both stones kills the group
    assert cell(0, -3) in safe  # links back to (0,-1) across (0,-2)
    assert cell(0, -2) in safe  # joins (0,-1), which still sees (0,1) across (0,0)
    assert safe <= g.legal_moves()
    assert g.estimate() == {"light": len(safe), "dark": len(g.safe_points("dark"))}


def test_illegal_move_messages_name_the_move() -> None:
    g = kato.Game()
    with pytest.raises(kato.IllegalMoveError, match="'Z9'"):
        g.play("Z9")
    with pytest.raises(kato.IllegalMoveError, match="empty move"):
        g.play("  ")
    assert issubclass(kato.IllegalMoveError, ValueError)
    assert g.is_legal("g6") and not g.is_legal("Z9")
