"""The engine: supplies, decks, actions, pass, undo and notation."""

from __future__ import annotations

import pytest

from meridian_table.games import colovini
from meridian_table.games.colovini import Action, IllegalActionError, NotationError


def test_supplies_per_player_count() -> None:
    two = colovini.new_game(players=2, seed=1)
    assert (two.pieces, two.towers_per_meridian, len(two.state.unplayed[0])) == (40, 2, 26)
    three = colovini.new_game(players=3, seed=1)
    assert three.board_map.side == 4 and three.pieces == 20 and len(three.state.unplayed[2]) == 13
    four = colovini.new_game(players=4, seed=1)
    assert four.state.hands == (20, 20, 20, 20) and four.towers_per_meridian == 1


def test_wrong_side_for_the_player_count_is_refused() -> None:
    with pytest.raises(ValueError, match="4-city side"):
        colovini.new_game(players=3, map="sample-50")
    with pytest.raises(ValueError, match="2, 3 or 4"):
        colovini.new_game(players=5)


def test_digital_deck_is_seeded_and_only_face_up_cards_play() -> None:
    a = colovini.new_game(players=4, seed=42)
    b = colovini.new_game(players=4, seed=42)
    assert a.state.unplayed == b.state.unplayed
    assert a.options["seed"] == 42
    face_up = a.face_up(0)
    assert len(face_up) == 2
    hidden = next(c for c in colovini.CARD_NAMES if c not in face_up)
    with pytest.raises(IllegalActionError, match="not face up"):
        a.play(f"{hidden}:pass")
    a.play(f"{face_up[1]}:pass")
    # the next card of the deck is turned up; the other face-up card stays
    assert a.face_up(0) == (face_up[0], b.state.unplayed[0][2])


def test_unseeded_digital_game_logs_a_seed() -> None:
    game = colovini.new_game(players=4)
    assert isinstance(game.options["seed"], int)
    again = colovini.new_game(**game.options)
    assert again.state == game.state


def test_physical_deck_tracks_what_is_left_and_refuses_used_cards() -> None:
    game = colovini.new_game(players=2, deck="physical", names=["Ann", "Bob"])
    assert game.face_up(0) == ()
    game.play("7:7.3=5")
    game.play("7:7.3=6")
    game.play("7:pass")  # Ann holds two colours: a second 7
    game.play("8:pass")
    with pytest.raises(IllegalActionError, match="already been played"):
        game.play("7:pass")
    assert "7" not in game.cards_left(0) and len(game.cards_left(0)) == 24


def test_card_must_name_the_meridian() -> None:
    game = colovini.new_game(players=4, deck="physical")
    with pytest.raises(IllegalActionError, match="allows meridians"):
        game.play("4-5-6-7:8.1=3")
    game.play("4-5-6-7:6.1=3")
    assert game.tower_at("6.1") == (0, 3)


def test_two_player_game_allows_two_towers_per_meridian_not_three() -> None:
    game = colovini.new_game(players=2, deck="physical", names=["Ann", "Bob"])
    for action in ("5:5.1=9", "1:pass", "5:5.2=8", "2:pass"):
        game.play(action)
    with pytest.raises(IllegalActionError, match="two towers"):
        game.play("4-5-6-7:5.3=7")
    game.play("4-5-6-7:-5.2,5.3=7")
    assert [game.tower_at(f"5.{i}") for i in (1, 2, 3)] == [(0, 9), None, (0, 7)]


def test_not_enough_pieces_leaves_only_pass_unless_a_tower_can_be_lifted() -> None:
    game = colovini.new_game(players=4, deck="physical")
    game.play("1:1.1=20")
    for seat in (1, 2, 3):
        game.play(f"{seat + 1}:pass")
    assert game.hand(0) == 0
    actions = game.legal_actions()
    assert {a.kind for a in actions} == {"pass", "remove", "rebuild"}
    assert all(a.meridian == 1 for a in actions if a.kind != "pass")
    assert not game.must_pass()
    with pytest.raises(IllegalActionError, match="0 pieces"):
        game.play("2:2.1=2")


def test_illegal_placements_say_which_rule() -> None:
    game = colovini.new_game(players=4, deck="physical")
    with pytest.raises(IllegalActionError, match="rule 1"):
        game.play("3:3.1=1")
    game.play("3:3.1=4")
    with pytest.raises(IllegalActionError, match="rule 2"):
        game.play("3:3.2=4")
    with pytest.raises(IllegalActionError, match="rule 3"):
        game.play("3:3.3=6")
    game.play("3:3.5=1")
    with pytest.raises(IllegalActionError, match="off the board"):
        game.play("3:3.5=2")  # (Black) 2 on the 1 pushes it south, off the board


def test_legal_actions_all_play_and_cover_all_heights() -> None:
    game = colovini.new_game(players=4, seed=3)
    actions = game.legal_actions()
    card = game.face_up(0)[0]
    meridian = colovini.card_meridians(card)[0]
    builds = {(a.city, a.height) for a in actions if a.card == card and a.meridian == meridian}
    assert builds == {(c, h) for c in range(1, 6) for h in range(2, 21)}
    for action in actions:
        game.play(action)
        game.undo()


def test_undo_restores_the_position_and_refuses_at_the_start() -> None:
    game = colovini.new_game(players=3, seed=9)
    start = game.state
    first = game.legal_actions()[0]
    game.play(first)
    assert game.undo() == first
    assert game.state == start
    with pytest.raises(IndexError, match="nothing to undo"):
        game.undo()


@pytest.mark.parametrize("text", ["3:3.2=4", "3:-3.1", "3:-3.1,3.4=2", "8-9-10:pass", "1-2-3:2.5=13"])
def test_notation_round_trips(text: str) -> None:
    action = Action.parse(text)
    assert action.notation() == text
    assert eval(repr(action)) == action  # noqa: S307 - repr is meant to be pasted back


@pytest.mark.parametrize("text", ["", "3", "3:", "11:pass", "3:3.2", "3:-3.1,4.2=2", "x:3.1=2"])
def test_bad_notation_names_the_text(text: str) -> None:
    with pytest.raises(NotationError, match=repr(text)):
        Action.parse(text)


def test_game_ends_when_every_card_is_played() -> None:
    game = colovini.new_game(players=4, seed=5)
    while not game.is_over:
        game.play(f"{game.face_up(game.to_move)[0]}:pass")
    assert game.state.turn == 52 and game.legal_actions() == []
    with pytest.raises(IllegalActionError, match="game is over"):
        game.play("1:pass")
    result = game.result()
    assert result.totals == {f"Player {i}": 0 for i in range(1, 5)}
    assert "share the win" in result.tie_break
