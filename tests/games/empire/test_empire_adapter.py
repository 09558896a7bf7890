"""The Empire in Space adapter without a board: what a sensed change means, what lights."""

from __future__ import annotations

import random

import pytest

from meridian_table.games.board import REMOVE, AdapterError, Change, Motion, Observation
from meridian_table.games.empire.adapter import DRAG_SETTLE_S, QUICK_SETTLE_S, EmpireAdapter
from meridian_table.games.empire.ledger import costs, default
from meridian_table.games.registry import create_adapter as create
from meridian_table.profiles import load_profile

PROFILE = load_profile("empire-in-space")
SITES = frozenset(PROFILE.sites)


def _adapter(**options: object) -> EmpireAdapter:
    adapter = create("empire", {"players": 3, "seed": 7, **options}, {}, PROFILE.variant)
    assert isinstance(adapter, EmpireAdapter)
    return adapter


def _seen(adapter: EmpireAdapter, sensed: frozenset[str]) -> Observation:
    """The board as sensed, every site empty at the last action seen empty since."""
    expected = adapter.expected()
    return Observation(expected, sensed, None, SITES - expected)


def _ship(adapter: EmpireAdapter, sid: str) -> str:
    return adapter.engine.state.ships[sid].quadrant


def test_a_ship_lifted_and_set_down_on_a_free_quadrant_is_the_move() -> None:
    adapter = _adapter()
    start = _ship(adapter, "s1")
    moves = [a for a in adapter.engine.legal() if a.startswith("move s1 ")]
    goal = moves[0].split()[2]
    interp = adapter.interpret(_seen(adapter, adapter.expected() - {start} | {goal}))
    assert interp.action == f"move s1 {goal}"
    adapter.play(interp.action)
    assert _ship(adapter, "s1") == goal and adapter.engine.state.seats[0].energy == 4


def test_a_ship_in_the_hand_lights_its_reach_never_a_full_quadrant_nor_across_the_centre() -> None:
    adapter = _adapter()
    start = _ship(adapter, "s1")
    interp = adapter.interpret(_seen(adapter, adapter.expected() - {start}))
    assert interp.action is None and not interp.mistakes and interp.view is not None
    lit = {site for site, light in interp.view.lights.items() if site != start}
    board = adapter.engine.board
    one = {a.split()[2] for a in adapter.engine.legal() if a.startswith("move s1 ")}
    assert one < lit  # the two-payment quadrants light too, dimmer
    bright = {s for s in lit if interp.view.lights[s].colour == interp.view.lights[min(one)].colour}
    assert bright == one
    occupancy = adapter.engine.read.occupancy()
    for site in lit:
        assert occupancy[site] < board.quadrants[site].capacity
        # No route crosses the centre: every lit quadrant is at most 4 steps away.
        assert board.distance[start][site] <= 4


def test_a_ship_set_down_where_it_may_not_go_is_guided_back_one_square_at_a_time() -> None:
    adapter = _adapter()
    start = _ship(adapter, "s1")
    far = next(q for q in adapter.engine.board.quadrants
               if adapter.engine.board.distance[start][q] > 4)
    interp = adapter.interpret(_seen(adapter, adapter.expected() - {start} | {far}))
    assert interp.action is None
    assert [(m.site, m.kind) for m in interp.mistakes] == [(far, "remove"), (start, "put_back")]
    assert "cannot go there" in interp.mistakes[0].reason
    assert interp.mistakes[0].light == REMOVE


def test_a_colony_set_on_a_body_settles_once_the_cost_is_confirmed() -> None:
    adapter = _adapter()
    game = adapter.engine
    ship = game.state.ships["s1"]
    body = next(b for b, spec in game.board.bodies.items()
                if ship.quadrant in spec.orbit and game.state.bodies[b].owner is None)
    game.play(f"discover {body}")
    before = game.state.seats[0].energy
    interp = adapter.interpret(_seen(adapter, adapter.expected() | {body}))
    if interp.action is None and interp.view is not None and interp.view.question is None:
        pytest.skip("this seed's first body costs more than the first turn's energy")
    assert interp.action is None and interp.view is not None
    question = interp.view.question
    assert question is not None and question.choices == (f"settle {body} s1",)
    card = game.cards.planets.get(game.state.bodies[body].card) or \
        game.cards.moons[game.state.bodies[body].card]
    assert "Confirm" in question.prompt and f"for {card.cost}E" in question.prompt
    answer = adapter.button("confirm")
    assert answer.action == f"settle {body} s1"
    adapter.play(answer.action)
    assert game.state.bodies[body].owner == 0 and body in adapter.expected()
    assert game.state.seats[0].used == game.state.seats[0].cells  # paid, new cells face down
    assert before > 0


def test_a_lost_colony_blinks_until_it_is_taken_off() -> None:
    adapter = _adapter()
    game = adapter.engine
    body = next(iter(game.state.bodies.values()))
    body.owner, body.colonies = 1, 1
    sensed = adapter.expected()
    body.owner, body.colonies = None, 0  # lost (as combat or an infection would)
    observation = Observation(adapter.expected(), sensed, None, SITES - sensed)
    interp = adapter.interpret(observation)
    assert [(m.site, m.kind) for m in interp.mistakes] == [(body.id, "remove")]
    assert "lost" in interp.mistakes[0].reason and interp.all_at_once


def test_settle_time_waits_longer_for_a_dragged_ship_and_less_for_a_clean_move() -> None:
    adapter = _adapter()
    start = _ship(adapter, "s1")
    path = [a.split()[2] for a in adapter.engine.legal() if a.startswith("move s1 ")]
    over, goal = path[0], path[1]
    expected = adapter.expected()
    dragged = Motion(expected, expected - {start} | {goal},
                     (Change(start, False, 0.5), Change(over, True, 0.4),
                      Change(over, False, 0.3), Change(goal, True, 0.1)), 0.3)
    assert adapter.settle_time(dragged) == DRAG_SETTLE_S
    clean = Motion(expected, expected - {start} | {goal},
                   (Change(start, False, 0.2), Change(goal, True, 0.1)), 0.3)
    assert adapter.settle_time(clean) == QUICK_SETTLE_S


def test_the_ledger_prices_every_action_as_the_engine_charges_it() -> None:
    adapter = _adapter()
    game = adapter.engine
    price = costs(game)
    assert price["charge"] == 2 and price["end"] == 0
    move = next(a for a in price if a.startswith("move s1 "))
    assert price[move] == 1  # a fighter's move: 1E a payment
    ledger = adapter.board_json()["ledger"]
    red = ledger["seats"][0]
    assert (red["cells"], red["unused"], red["charges"]) == (3, 3, 2)
    assert ledger["turn"] == "red" and ledger["round"] == 1
    assert {a["notation"] for a in ledger["actions"]} == set(game.legal())


def test_the_page_taps_an_action_and_a_trade_waits_for_the_other_player() -> None:
    adapter = _adapter()
    assert adapter.answer("action", "charge").action == "charge"
    with pytest.raises(AdapterError, match="charge"):
        adapter.answer("action", "charge please")
    adapter.answer("offer", "P1 P2 1")
    assert adapter.board_json()["ledger"]["offers"] == ["give P1 P2 1"]
    assert adapter.answer("accept", "P1 P2 1").action == "give P1 P2 1"
    with pytest.raises(AdapterError, match="no offer"):
        adapter.answer("accept", "P1 P2 1")


def test_a_long_move_is_paid_twice() -> None:
    adapter = _adapter()
    start = _ship(adapter, "s1")
    one = {a.split()[2] for a in adapter.engine.legal() if a.startswith("move s1 ")}
    interp = adapter.interpret(_seen(adapter, adapter.expected() - {start}))
    assert interp.view is not None
    two = sorted(set(interp.view.legal) - one)
    goal = two[0]
    first = adapter.interpret(_seen(adapter, adapter.expected() - {start} | {goal}))
    assert first.action is not None and first.action.startswith("move s1 ")
    adapter.play(first.action)
    second = adapter.interpret(Observation(adapter.expected(), adapter.expected() -
                                           {_ship(adapter, "s1")} | {goal}, None,
                                           SITES - adapter.expected()))
    assert second.action == f"move s1 {goal}"
    adapter.play(second.action)
    assert adapter.engine.state.seats[0].energy == 3  # two payments of 1E


def test_the_scelrotia_is_seated_by_the_game_and_its_turn_said_in_words() -> None:
    adapter = _adapter(players=1, mode="infection-solo")
    assert adapter.colours == ("red", "scelrotia")
    assert adapter.automaton_seats() == {1: ("Scelrotia", "scelrotia")}
    adapter.play("end")
    words = adapter.describe("scelrotia")
    assert words.startswith("its turn: ") and len(words) > 12


def test_decisions_in_another_players_turn_have_a_clear_default() -> None:
    from tests.games.empire import script as empire_script

    adapter = _adapter(seed=empire_script.SEED)
    game = adapter.engine
    rng = random.Random(empire_script.SEED)
    seen: dict[str, str | None] = {}
    while not game.is_over and len(game.history) < 400:
        stage = game.turn().phase
        fallback = default(game)
        seen.setdefault(stage, fallback)
        if fallback is not None:
            assert fallback in game.legal()
        game.play(empire_script.choose(game, rng))
    assert seen["defend"] == "defend none" and seen["counter"] is not None
    assert seen["strike"] is None and seen["play"] is None
    assert seen.get("damage") is None


def test_the_final_round_is_announced_with_its_order_and_lit_on_the_board() -> None:
    adapter = _adapter()
    game = adapter.engine
    game.play("time")
    game.play("end")  # the trigger's turn ends: the final round starts
    assert game.state.final
    view = adapter.view(None)
    order = [adapter.colours[s].capitalize() for s in game.state.order]
    assert "Final round (the table called time; order " + ", ".join(order) in view.message
    later = game.state.order[1:]
    for seat in later:
        ship = next(s for s in game.state.ships.values() if s.owner == seat)
        assert ship.quadrant in view.lights
