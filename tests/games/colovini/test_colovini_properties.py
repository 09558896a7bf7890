"""Property tests over random legal games on both sample maps and all player counts."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meridian_table.games import colovini
from meridian_table.games.colovini.meridian import is_ordered


def _check_position(game: colovini.Game) -> None:
    state = game.state
    for column in state.columns:
        assert is_ordered(column), column  # rules 2 and 3 after every action
        owners = Counter(t[0] for t in column if t is not None)
        assert all(n <= game.towers_per_meridian for n in owners.values())  # rule 4
    for seat in range(game.players):
        on_board = sum(t[1] for c in state.columns for t in c if t is not None and t[0] == seat)
        assert on_board + state.hands[seat] == game.pieces  # pieces are conserved


def _towers(column: colovini.Column) -> Counter[object]:
    return Counter(t for t in column if t is not None)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.sampled_from([2, 3, 4]), deck=st.sampled_from(["digital", "physical"]),
       seed=st.integers(0, 2**31 - 1), data=st.data())
def test_random_legal_games_keep_every_invariant(
    players: int, deck: str, seed: int, data: st.DataObject
) -> None:
    game = colovini.new_game(players=players, deck=deck, seed=seed)
    assert game.board_map.name == ("sample-40" if players == 3 else "sample-50")
    history = [game.state]
    while not game.is_over:
        actions = game.legal_actions()
        assert actions and all(a.card in game.playable_cards() for a in actions)
        action = actions[data.draw(st.integers(0, len(actions) - 1))]
        before = game.state
        step = game.play(action)
        # undo inverts, then replay
        game.undo()
        assert game.state == before
        game.play(action)
        _check_position(game)
        # no tower lost or duplicated: only the removed and the new tower differ
        if action.meridian:
            old = _towers(before.columns[action.meridian - 1])
            new = _towers(game.state.columns[action.meridian - 1])
            if action.remove:
                removed = before.columns[action.meridian - 1][action.remove - 1]
                old[removed] -= 1
            if action.city:
                old[(step.player, action.height)] += 1
            assert +old == new
        assert all(b == a for i, (b, a) in enumerate(zip(before.columns, game.state.columns, strict=True))
                   if i != action.meridian - 1)
        history.append(game.state)
    assert game.state.turn == players * 13 * (2 if players == 2 else 1)
    while len(history) > 1:
        history.pop()
        game.undo()
        assert game.state == history[-1]
