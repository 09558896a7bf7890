"""The rule book's own examples: Figs. A and B (placements), C (rebuild), D (scoring)."""

from __future__ import annotations

import pytest

from meridian_table.games import colovini
from meridian_table.games.colovini import IllegalActionError

# Figs. A/B, reconstructed from the text: black 4 at the north edge (a push north would
# drive it off the board), brown 3, an empty city, grey 1, an empty city at the south.
FIG_AB = (("black", 4), ("brown", 3), None, ("grey", 1), None)


def test_fig_a_two_high_tower_has_exactly_moves_1_and_2() -> None:
    placements = colovini.meridian_placements(FIG_AB, 2)
    assert placements == [
        # move 1: the vacant city between brown 3 and grey 1
        (3, (("black", 4), ("brown", 3), ("new", 2), ("grey", 1), None)),
        # move 2: on grey's city, pushing grey 1 south
        (4, (("black", 4), ("brown", 3), None, ("new", 2), ("grey", 1))),
    ]
    cities = [city for city, _ in placements]
    assert 2 not in cities  # move 3: pushing brown north would push black off the board
    assert 5 not in cities  # move 4: a taller tower may never stand below a shorter one


def test_fig_b_five_or_more_only_by_pushing_black_south() -> None:
    for height in (5, 6, 11, 20):
        assert colovini.meridian_placements(FIG_AB, height) == [
            (1, (("new", height), ("black", 4), ("brown", 3), ("grey", 1), None))
        ]


def test_fig_a_heights_already_standing_are_refused() -> None:
    for height in (1, 3, 4):
        assert colovini.meridian_placements(FIG_AB, height) == []


def test_first_tower_on_an_empty_meridian_is_at_least_two_high() -> None:
    empty = (None,) * 5
    assert colovini.meridian_placements(empty, 1) == []
    assert [c for c, _ in colovini.meridian_placements(empty, 2)] == [1, 2, 3, 4, 5]


def test_a_chain_push_moves_every_tower_one_city() -> None:
    column = (None, ("a", 9), ("b", 7), ("c", 5), None)
    # a 6 on c's city pushes c south into the gap
    assert (4, (None, ("a", 9), ("b", 7), ("new", 6), ("c", 5))) in colovini.meridian_placements(
        column, 6
    )
    # a 4 on... nothing: it is shorter than c, so it goes south of c into 5 or pushes north
    pushes = dict(colovini.meridian_placements(column, 8))
    # 8 on b's city: taller than b, so b and c move south together
    assert pushes[3] == (None, ("a", 9), ("new", 8), ("b", 7), ("c", 5))
    # 8 on a's city: shorter than a, so a moves north into the empty first city
    assert pushes[2] == (("a", 9), ("new", 8), ("b", 7), ("c", 5), None)


def test_an_unordered_column_is_refused_with_its_value() -> None:
    with pytest.raises(ValueError, match="not ordered"):
        colovini.meridian_placements((("a", 1), ("b", 3), None), 2)


def _fig_c_game() -> colovini.Game:
    game = colovini.new_game(
        players=4, deck="physical", names=["Orange", "Black", "Brown", "Grey"]
    )
    for action in ("3:3.1=4", "1:pass", "3:3.2=3", "3:3.4=1"):
        game.play(action)
    return game


def test_fig_c_rebuilding_your_own_tower_returns_the_recovered_pieces() -> None:
    game = _fig_c_game()
    assert game.hand(0) == 16
    step = game.play("1-2-3:-3.1,3.4=2")
    assert step.action.kind == "rebuild"
    assert step.pushed == (("3.4", "3.5"),)  # grey 1 is pushed one city south
    assert game.state.columns[2] == (None, (2, 3), None, (0, 2), (3, 1))
    assert game.hand(0) == 18  # the 2 recovered pieces are put aside for later


def test_fig_c_removing_keeps_all_pieces_and_identical_rebuild_is_refused() -> None:
    game = _fig_c_game()
    with pytest.raises(IllegalActionError, match="same tower"):
        game.play("1-2-3:-3.1,3.1=4")
    game.play("1-2-3:-3.1")
    assert game.hand(0) == 20
    assert game.state.columns[2] == (None, (2, 3), None, (3, 1), None)


def test_fig_c_without_removing_a_second_tower_breaks_rule_4() -> None:
    game = _fig_c_game()
    with pytest.raises(IllegalActionError, match="rule 4"):
        game.play("1-2-3:3.3=2")


def test_fig_d_islands_score_exactly_as_the_rule_book_says() -> None:
    board = colovini.load_map("sample-50")
    assert [len(board.islands[k].cities) for k in "ABCD"] == [3, 3, 4, 5]
    garrisons = {
        "1.1": "Black", "3.1": "Grey",            # A: 1 each -> tie
        "2.3": "Brown",                           # B: Brown alone
        "4.3": "Orange", "6.3": "Orange", "5.3": "Black",  # C: 2 vs capital 2 -> tie
        "2.2": "Grey", "1.2": "Grey", "3.2": "Black", "4.1": "Black",  # D: 3 vs 2
    }
    players = ["Orange", "Black", "Brown", "Grey"]
    result = colovini.score(board, garrisons, players)
    islands = {i.key: i for i in result.islands}
    a, b, c, d = (islands[k] for k in "ABCD")
    assert (a.owner, a.points, dict(a.strengths), a.tied) == (None, 0, {"Black": 1, "Grey": 1}, True)
    assert (b.owner, b.points, dict(b.strengths)) == ("Brown", 3, {"Brown": 1})
    assert (c.owner, c.points, dict(c.strengths)) == (None, 0, {"Orange": 2, "Black": 2})
    assert (d.owner, d.points, dict(d.strengths)) == ("Grey", 5, {"Black": 2, "Grey": 3})
    assert dict(result.totals) == {"Orange": 0, "Black": 0, "Brown": 3, "Grey": 5}
    assert result.winners == ("Grey",)
    assert "Grey wins with 5 points" in result.tie_break
    assert all(i.owner is None and not i.strengths for k, i in islands.items() if k not in "ABCD")
