"""One test per decision on an ambiguity of the rule book (docs/games/empire.md,
"Decisions"): each test's name says the decision."""

from __future__ import annotations

import pytest
from tests.games.empire.position import board, energy, hold, ship

from meridian_table.games.empire import IllegalActionError, new_game, record, scelrotia

RED, GREEN, BLUE = 0, 1, 2
NEXUS = "planet.white.2"


# --- presence and the end ----------------------------------------------------------------------


def test_presence_counts_frigates_but_not_fighters_or_abandoned_ships() -> None:
    game = board()
    ship(game, "s1", "fighter", "S1Q3", RED, 2)
    ship(game, "s2", "frigate", "S3Q3", RED, 2)
    ship(game, "s3", "frigate", "S5Q3", None, 0)
    assert game.read.presence(RED) == {3}  # the frigate only; fighters and wrecks give none


def test_most_waypoints_wins_not_most_presence() -> None:
    game = board(players=2, round=5)
    hold(game, "planet.yellow.1", RED, 1)
    game.state.bodies["planet.yellow.1"].waypoints.append("Relay")
    for body in ("planet.white.1", "planet.white.2", "planet.white.3", "planet.white.4"):
        hold(game, body, GREEN, 1)  # Green has presence in all eight sectors
    game.state.trigger = "test"
    game.play("end")  # the final round starts
    while not game.is_over:
        game.play("end")
    assert game.outcome() is not None and game.outcome().winners == (RED,)


# --- costs -------------------------------------------------------------------------------------


def test_a_colony_costs_1e_on_a_planet_and_2e_on_a_ship() -> None:
    game = board(round=1)
    hold(game, "planet.yellow.1", RED, 1, card="Ophir")  # (Calder would make ships cheaper)
    ship(game, "s1", "frigate", "S1Q3", RED, 1)
    energy(game, RED, cells=3)
    game.play("colony planet.yellow.1")
    assert game.state.seats[RED].energy == 2
    game.play("colony s1")
    assert game.state.seats[RED].energy == 0


def test_charges_cannot_pay_for_charges() -> None:
    game = board(round=1)
    energy(game, RED, cells=3, charges=5, used=2)
    assert "charge" not in game.legal()
    with pytest.raises(IllegalActionError, match="unused cells"):
        game.play("charge")
    energy(game, RED, cells=3, charges=5, used=1)
    game.play("charge")
    assert (game.state.seats[RED].used, game.state.seats[RED].charges) == (3, 6)


def test_energy_is_spent_cells_first_then_charges() -> None:
    game = board(round=1)
    ship(game, "s1", "frigate", "S1Q3", RED, 1)
    energy(game, RED, cells=3, charges=2, used=2)
    game.play("move s1 S1Q4")  # 2E: the one unused cell, then one charge
    assert (game.state.seats[RED].used, game.state.seats[RED].charges) == (3, 1)


def test_the_attack_line_of_the_costs_table_is_not_a_show_of_force() -> None:
    """Combat follows the combat section: 1E per strike, and nothing is lost but the
    damage the strikes do."""
    game = board(round=3)
    hold(game, NEXUS, GREEN, 2)
    ship(game, "s1", "frigate", "S4Q2", RED, 3)
    energy(game, RED, cells=5)
    game.play(f"attack {NEXUS} s1")
    assert game.state.ships["s1"].colonies == 3 and game.state.seats[RED].energy == 5
    game.play("strike 1")
    assert game.state.seats[RED].energy == 4 and game.state.ships["s1"].colonies == 3


def test_lenders_ships_strike_but_the_attacker_pays() -> None:
    game = board(round=3)
    hold(game, NEXUS, GREEN, 3)
    ship(game, "s1", "fighter", "S4Q2", RED, 1)
    ship(game, "s2", "fighter", "S5Q1", BLUE, 2)
    energy(game, RED, cells=5)
    energy(game, BLUE, cells=5)
    game.play(f"attack {NEXUS} s1,s2")
    assert game.turn().seat == BLUE and game.phase == "lend"  # the lender must agree
    game.play("lend yes")
    game.play("strike 3")
    assert game.state.seats[RED].energy == 2 and game.state.seats[BLUE].energy == 5


def test_a_lender_may_refuse() -> None:
    game = board(round=3)
    hold(game, NEXUS, GREEN, 3)
    ship(game, "s1", "fighter", "S4Q2", RED, 1)
    ship(game, "s2", "fighter", "S5Q1", BLUE, 2)
    energy(game, RED, cells=5)
    game.play(f"attack {NEXUS} s1,s2")
    game.play("lend no")
    assert game.state.combat is not None and game.state.combat.attackers == ["s1"]
    assert game.turn().seat == GREEN  # Blue's ship may now be lent to the defender instead
    game.play("defend none")
    assert game.legal() == ("strike 1",)


# --- combat ------------------------------------------------------------------------------------


def test_no_combat_in_the_first_two_rounds() -> None:
    game = board(round=2)
    hold(game, NEXUS, GREEN, 2)
    ship(game, "s1", "frigate", "S4Q2", RED, 3)
    energy(game, RED, cells=5)
    assert not any(a.startswith("attack") for a in game.legal())
    with pytest.raises(IllegalActionError, match="first 2 rounds"):
        game.play(f"attack {NEXUS} s1")


def test_adjacent_includes_the_same_quadrant_and_only_frigates_attack_ships() -> None:
    game = board(round=3)
    ship(game, "s1", "frigate", "S1Q3", RED, 2)
    ship(game, "s2", "fighter", "S1Q3", RED, 2)
    ship(game, "s3", "fighter", "S1Q4", GREEN, 2)
    ship(game, "s4", "fighter", "S3Q3", GREEN, 2)
    energy(game, RED, cells=5)
    legal = game.legal()
    assert "attack s3 s1" in legal  # adjacent quadrant
    assert not any(a.startswith("attack s3") and "s2" in a for a in legal)  # fighters don't
    assert not any(a.startswith("attack s4") for a in legal)  # too far
    game.state.ships["s1"].quadrant = "S1Q4"
    assert "attack s3 s1" in game.legal()  # the same quadrant counts as adjacent


def test_a_targeted_fighter_shields_and_counters() -> None:
    game = board(round=3)
    ship(game, "s1", "frigate", "S1Q3", RED, 3)
    ship(game, "s3", "fighter", "S1Q4", GREEN, 2)
    energy(game, RED, cells=5)
    energy(game, GREEN, cells=5)
    game.play("attack s3 s1")
    assert game.phase == "strike"  # the target defends itself; nothing else is in range
    game.play("strike 2")
    game.play("damage s3:0/2")
    assert game.legal()[-1] == "counter 2"


def test_strikes_on_an_undefended_planet_are_capped_by_the_attacking_colonies() -> None:
    game = board(round=3)
    hold(game, NEXUS, GREEN, 3)
    ship(game, "s1", "fighter", "S4Q2", RED, 1)
    energy(game, RED, cells=9)
    game.play(f"attack {NEXUS} s1")
    assert game.legal() == ("strike 1",)


def test_a_planets_colonies_do_not_counter() -> None:
    game = board(round=3)
    hold(game, NEXUS, GREEN, 3)
    ship(game, "s1", "fighter", "S4Q2", RED, 2)
    energy(game, RED, cells=9)
    game.play(f"attack {NEXUS} s1")
    game.play("strike 1")
    game.play(f"damage {NEXUS}:1")
    assert game.state.combat is None  # no counter step: no defending ship


def test_a_planet_is_lost_when_its_last_colony_boards_a_new_ship() -> None:
    game = board(round=1)
    hold(game, "planet.yellow.1", RED, 1, card="Barlow")
    energy(game, RED, cells=5, charges=0)
    game.play("build fighter planet.yellow.1 S1Q3 1")
    body = game.state.bodies["planet.yellow.1"]
    assert body.owner is None and body.discovered
    assert (game.state.seats[RED].cells, game.state.seats[RED].charges) == (3, 2)


def test_abandoned_ships_count_toward_quadrant_capacity() -> None:
    game = board(round=1)
    ship(game, "s1", "fighter", "S1Q1", None, 0)  # S1Q1 holds 1 ship
    ship(game, "s2", "fighter", "S1Q3", RED, 2)
    energy(game, RED, cells=5)
    assert "move s2 S1Q1" not in game.legal()


def test_an_abandoned_ship_is_claimed_by_a_colony_from_the_same_quadrant() -> None:
    game = board(round=1)
    ship(game, "s1", "frigate", "S1Q3", None, 0)
    ship(game, "s2", "fighter", "S1Q3", RED, 2)
    assert "move s1 S1Q4" not in game.legal()  # nobody controls it
    game.play("transfer s2 s1 1")
    assert game.state.ships["s1"].owner == RED


def test_a_ship_emptied_in_combat_is_abandoned_or_self_destructs() -> None:
    for bang, survives in (("", True), ("!", False)):
        game = board(round=3)
        ship(game, "s1", "frigate", "S1Q3", RED, 3)
        ship(game, "s3", "fighter", "S1Q4", GREEN, 1)
        energy(game, RED, cells=5)
        game.play("attack s3 s1")
        game.play("strike 1")
        game.play(f"damage s3:1{bang}")
        assert ("s3" in game.state.ships) is survives


def test_no_building_on_moons_without_moon_equity() -> None:
    game = board(round=1)
    hold(game, "moon.5", RED, 1)
    hold(game, "moon.6", GREEN, 1)  # a tie: nobody holds Moon Equity
    energy(game, RED, cells=9)
    assert game.read.moon_equity() is None
    assert not any(a.startswith("build") and "moon.5" in a for a in game.legal())
    hold(game, "moon.7", RED, 1)
    assert game.read.moon_equity() == RED
    assert "build fighter moon.5 S1Q3 1" in game.legal()


# --- energy equity, lost bodies, discovery ---------------------------------------------------


def test_energy_equity_moves_at_once_and_a_tie_gives_nothing() -> None:
    game = board(round=1)
    assert game.read.energy_equity() is None  # 3, 3, 3
    energy(game, GREEN, cells=2)
    assert game.read.energy_equity() == GREEN
    hold(game, "moon.5", None, 0)
    ship(game, "s1", "fighter", "S1Q3", RED, 2)
    energy(game, RED, cells=1, charges=1)
    assert game.read.energy_equity() == RED and game.read.settle_cost(RED, game.state.bodies["moon.5"]) == 1
    game.play("settle moon.5 s1")  # 2E - 1E
    assert game.read.energy_equity() is None  # Red's 2 cells tie Green's 2: no bonus


def test_a_lost_planet_discards_face_down_cells_first_and_a_lost_moon_gives_one_charge() -> None:
    game = board(round=1)
    hold(game, "moon.5", RED, 1)
    energy(game, RED, cells=4, charges=0, used=1)
    game.lose_body(game.state.bodies["moon.5"])
    info = game.state.seats[RED]
    assert (info.cells, info.used, info.charges) == (3, 0, 1)


def test_discover_once_per_turn_while_orbiting() -> None:
    game = board(round=1)
    ship(game, "s1", "fighter", "S1Q1", RED, 2)  # orbits yellow.1 and white.4
    game.state.bodies["planet.yellow.1"].discovered = False
    game.state.bodies["planet.white.4"].discovered = False
    game.play("discover planet.yellow.1")
    with pytest.raises(IllegalActionError, match="once per turn"):
        game.play("discover planet.white.4")


# --- waypoints ---------------------------------------------------------------------------------


def _steal_setup() -> object:
    game = board(round=3)
    hold(game, NEXUS, GREEN, 1)
    game.state.bodies[NEXUS].waypoints.append("Relay")
    ship(game, "s1", "frigate", "S4Q2", RED, 2)
    energy(game, RED, cells=5)
    game.play(f"attack {NEXUS} s1")
    game.play("strike 1")
    game.play(f"damage {NEXUS}:1")
    return game


def test_a_stolen_waypoint_goes_onto_the_attackers_ship_or_planet() -> None:
    game = _steal_setup()
    assert game.phase == "steal" and game.turn().seat == RED
    assert set(game.legal()) == {"steal none", "steal s1"}  # Nexus costs more than Red has
    game.state.seats[RED].charges += 6
    assert set(game.legal()) == {"steal none", "steal s1", f"steal {NEXUS}"}
    game.play("steal s1")
    assert game.state.ships["s1"].waypoints == ["Relay"] and game.read.waypoints(RED) == 1


def test_a_stolen_waypoint_may_stay_on_the_planet_taken_over() -> None:
    """"If they are able, they can take it onto their ship, or they can take over the
    planet and keep it there": taking over is a settle at the planet's cost, the colony
    from the attacking ship in its orbit."""
    game = _steal_setup()
    game.state.seats[RED].charges += 6
    energy_before = game.state.seats[RED].energy
    cost = game.read.settle_cost(RED, game.state.bodies[NEXUS])
    game.play(f"steal {NEXUS}")
    nexus = game.state.bodies[NEXUS]
    assert nexus.owner == RED and nexus.colonies == 1 and nexus.waypoints == ["Relay"]
    assert game.state.ships["s1"].colonies == 1
    assert game.state.seats[RED].energy == energy_before - cost
    assert game.state.combat is None and game.read.waypoints(RED) == 1


def test_stealing_obeys_one_waypoint_per_sector() -> None:
    game = board(round=3)
    hold(game, NEXUS, GREEN, 1)
    game.state.bodies[NEXUS].waypoints.append("Relay")
    hold(game, "moon.2", RED, 1)
    game.state.bodies["moon.2"].waypoints.append("Lens")  # Red has a waypoint in sector 4
    ship(game, "s1", "frigate", "S4Q2", RED, 2)
    hold(game, "planet.yellow.1", RED, 1)
    energy(game, RED, cells=5)
    game.play(f"attack {NEXUS} s1")
    game.play("strike 1")
    game.play(f"damage {NEXUS}:1")
    assert set(game.legal()) == {"steal none", "steal planet.yellow.1"}


def test_an_unassignable_waypoint_is_under_no_players_control() -> None:
    game = board(round=3)
    hold(game, NEXUS, GREEN, 1)
    game.state.bodies[NEXUS].waypoints.append("Relay")
    hold(game, "moon.2", RED, 1)
    game.state.bodies["moon.2"].waypoints.append("Lens")
    ship(game, "s1", "frigate", "S4Q2", RED, 2)
    energy(game, RED, cells=5)
    game.play(f"attack {NEXUS} s1")
    game.play("strike 1")
    game.play(f"damage {NEXUS}:1")
    assert game.state.combat is None
    assert game.read.waypoints(GREEN) == 0 and game.read.waypoints(RED) == 1


def test_a_counter_strike_that_empties_the_attackers_holder_lets_the_defender_steal() -> None:
    game = board(round=3)
    hold(game, NEXUS, GREEN, 2)
    ship(game, "s1", "fighter", "S4Q2", RED, 1)
    game.state.ships["s1"].waypoints.append("Relay")
    ship(game, "s2", "frigate", "S5Q1", GREEN, 2)
    energy(game, RED, cells=5)
    game.play(f"attack {NEXUS} s1")
    game.play("defend s2")
    game.play("strike 1")
    game.play(f"damage {NEXUS}:1")
    game.play("counter 1")
    game.play("damage s1:1")
    assert game.phase == "steal" and game.turn().seat == GREEN
    game.play("steal s2")
    assert game.read.waypoints(GREEN) == 1


def test_a_new_waypoint_takes_the_face_up_card_and_the_next_is_turned_up() -> None:
    game = board(round=1)
    hold(game, "planet.yellow.1", RED, 1)
    energy(game, RED, cells=9)
    face_up, following = game.state.face_up, game.state.waypoint_deck[0]
    game.play("waypoint planet.yellow.1")
    assert game.state.bodies["planet.yellow.1"].waypoints == [face_up]
    assert game.state.face_up == following


def test_a_conquered_planet_must_be_settled_at_its_cost() -> None:
    game = _steal_setup()
    game.play("steal none")
    body = game.state.bodies[NEXUS]
    assert body.owner is None
    before = game.state.seats[RED].energy
    game.state.seats[RED].cells += 6
    game.play(f"settle {NEXUS} s1")
    assert game.state.seats[RED].energy == before + 6 - game.read.body_card(body).cost


# --- the final round ---------------------------------------------------------------------------


def test_the_final_round_starts_after_the_triggering_turn_with_one_renew() -> None:
    game = board(round=4, to_act=GREEN)
    energy(game, RED, cells=3, used=3, charges=0)
    energy(game, GREEN, cells=5, used=5, charges=0)
    energy(game, BLUE, cells=5, used=5, charges=1)
    game.play("time")
    assert game.state.trigger and not game.state.final
    game.play("end")  # Green's turn ends: the final round starts at once (Blue does not
    # finish round 4 first)
    state = game.state
    assert state.final and state.order == [BLUE, GREEN, RED]  # most cells, charges break ties
    assert all(state.seats[s].used == 0 for s in (RED, GREEN, BLUE))  # everyone renews
    state.seats[GREEN].used = 2  # Green defends or spends before its turn
    game.play("end")
    assert state.seats[GREEN].used == 2  # no second renew at the start of its final turn


def test_a_player_with_no_colonies_still_takes_a_final_turn() -> None:
    game = board(round=4)
    del game.state.ships["s92"]  # Blue has no colonies: the trigger
    game.play("end")
    assert game.state.trigger and not game.state.final
    game.play("end")
    assert game.state.final and BLUE in game.state.order
    turns = []
    while not game.is_over:
        turns.append(game.turn().seat)
        game.play("end")
    assert sorted(turns) == [RED, GREEN, BLUE]


def test_a_trigger_holds_even_if_it_changes_in_the_final_round() -> None:
    game = board(round=4)
    del game.state.ships["s92"]
    game.play("end")
    game.play("end")
    ship(game, "s92", "fighter", "S7Q3", BLUE, 1)  # Blue has colonies again
    game.play("end")
    assert game.state.final and game.state.trigger


def test_tie_breaker_is_an_order_energy_then_cells_then_charges_then_presence() -> None:
    game = board(players=2, round=4)
    energy(game, RED, cells=4, charges=1, used=0)    # energy 5
    energy(game, GREEN, cells=3, charges=2, used=0)  # energy 5, fewer cells
    assert game.standing(RED) > game.standing(GREEN)
    game.state.seats[GREEN].charges = 3              # energy 6
    assert game.standing(GREEN) > game.standing(RED)


def test_a_full_tie_goes_to_the_later_seat_of_the_final_round() -> None:
    game = board(players=2, round=4)
    game.play("time")
    game.play("end")
    order = list(game.state.order)
    while not game.is_over:
        game.play("end")
    assert game.outcome() is not None and game.outcome().winners == (order[-1],)


# --- two players ------------------------------------------------------------------------------


def test_two_players_no_energy_equity_no_moons_and_an_extra_fighter_across() -> None:
    game = new_game(players=["Ann", "Bob"], mode="two-player", seed=3)
    ships = [s for s in game.state.ships.values() if s.owner == 0]
    assert len(ships) == 2
    home, extra = ships
    assert int(extra.quadrant[1]) == (int(home.quadrant[1]) + 3) % 8 + 1
    assert extra.quadrant[2:] == home.quadrant[2:]
    game.state.seats[1].cells = 1
    assert game.read.energy_equity() is None
    assert not any(a.startswith("settle moon") for a in game.legal())
    assert all(len(game.state.seats[s].hand) == 2 for s in (0, 1))


def test_two_players_end_when_all_planets_are_settled() -> None:
    game = board(players=2, mode="two-player", round=3)
    for body in ("planet.yellow.2", "planet.yellow.3", "planet.white.2", "planet.orange.2"):
        hold(game, body, GREEN, 1)  # sectors 3, 4, 5
    for body in ("planet.yellow.4", "planet.white.1", "planet.white.3", "planet.white.4",
                 "planet.orange.1", "planet.orange.3"):
        hold(game, body, RED, 1)  # sectors 1, 2, 3, 6, 7, 8
    hold(game, "planet.yellow.1", None, 0, card="Barlow")
    ship(game, "s1", "fighter", "S1Q3", RED, 2)
    energy(game, RED, cells=9)
    game.play("settle planet.yellow.1 s1")
    assert game.state.trigger == "all planets are settled"


def test_an_event_lasts_until_its_players_next_turn_or_renews_three_cells() -> None:
    game = new_game(players=["Ann", "Bob"], mode="two-player", seed=3)
    first, second = game.state.seats[0].hand
    game.play(f"event {first}")
    assert game.state.seats[0].events == [first]
    game.play("end")
    assert game.state.seats[0].events == [first]  # still in play during Bob's turn
    game.play("end")
    assert game.state.seats[0].events == []  # over at the beginning of Ann's next turn
    game.state.seats[0].used = 3
    game.play(f"discard {second}")
    assert game.state.seats[0].used == 0


# --- the Scelrotia -----------------------------------------------------------------------------


def test_scelrotia_ships_move_two_quadrants_within_capacity_then_infect() -> None:
    game = board(players=1, mode="infection-solo", round=1, to_act=1, reserves=False)
    sc = game.scelrotia
    for body in game.state.bodies:
        hold(game, body, sc, 1)
    hold(game, "planet.yellow.3", 0, 1)  # the only body not its own, 4 steps away
    ship(game, "s1", "fighter", "S3Q3", sc, 2)
    ship(game, "s2", "fighter", "S4Q3", 0, 1)
    ship(game, "s3", "fighter", "S4Q3", 0, 1)  # S4Q3 is full (capacity 2)
    steps: list[str] = []
    scelrotia._ship_turn(game, game.state.ships["s1"], steps)
    # "the nearest planet/ ship not controlled by the Scelrotia": Ann's ships on S4Q3 are
    # nearer than yellow.3; never into the full S4Q3, so beside it.
    assert steps == ["s1 moves S3Q3-S3Q4 towards s2"]


def test_a_scelrotia_ship_heads_for_the_nearest_planet_or_ship() -> None:
    """"If a ship is infecting it will move closer to the nearest planet/ ship not
    controlled by the Scelrotia then Infect the planet if it is in orbit." """
    game = board(players=1, mode="infection-solo", round=1, to_act=1, reserves=False)
    sc = game.scelrotia
    for body in game.state.bodies:
        hold(game, body, sc, 1)
    hold(game, "planet.yellow.3", 0, 1)  # 4 steps away
    ship(game, "s1", "fighter", "S3Q3", sc, 2)
    steps: list[str] = []
    scelrotia._ship_turn(game, game.state.ships["s1"], steps)
    assert steps == ["s1 moves S3Q3-S4Q3 towards planet.yellow.3"]  # no ship: the planet
    ship(game, "s2", "fighter", "S2Q3", 0, 1)  # a player's ship one step away
    game.state.ships["s1"].quadrant = "S3Q3"
    steps = []
    scelrotia._ship_turn(game, game.state.ships["s1"], steps)
    assert steps == ["s1 moves S3Q3-S2Q3 towards s2"]
    assert game.state.ships["s2"].owner == 0  # a ship is chased, only a planet infected


def test_scelrotia_builds_once_per_infection_and_not_when_the_orbit_is_full() -> None:
    game = board(players=1, mode="infection-solo", round=3, to_act=1, reserves=False)
    sc = game.scelrotia
    hold(game, "planet.orange.3", sc, 2, card="Hadron")
    hold(game, "planet.white.3", None, 0, card="Slate")
    hold(game, "planet.white.1", 0, 1)
    ship(game, "s1", "fighter", "S6Q2", 0, 1)
    ship(game, "s2", "fighter", "S7Q1", 0, 1)  # Slate's orbit (S6Q2, S7Q1) is full
    steps = scelrotia.take_turn(game)
    assert "planet.white.3 cannot build: its orbit is full" in steps
    steps = scelrotia.take_turn(game)  # next turn: Slate grows like any planet
    assert "planet.white.3 grows" in steps


def test_scelrotia_takes_a_last_colony_and_the_owner_loses_the_planet() -> None:
    game = board(players=1, mode="infection-solo", round=3, to_act=1, reserves=False)
    sc = game.scelrotia
    hold(game, "planet.orange.3", sc, 2, card="Hadron")
    hold(game, "planet.white.3", 0, 1, card="Slate")
    hold(game, "planet.white.1", 0, 1)
    energy(game, 0, cells=6, charges=0)
    scelrotia.take_turn(game)
    assert game.state.bodies["planet.white.3"].owner == sc
    assert (game.state.seats[0].cells, game.state.seats[0].charges) == (3, 3)


def test_the_scelrotia_infects_from_round_one_and_acts_last_in_the_round() -> None:
    game = new_game(players=["Ann"], mode="infection-solo", seed=5)
    assert game.round == 1 and game.state.order == [0, 1]
    game.play("end")
    assert game.turn().seat == game.scelrotia and game.legal() == ("scelrotia",)
    before = sum(b.colonies for b in game.state.bodies.values() if b.owner == game.scelrotia)
    game.play("scelrotia")
    after = sum(b.colonies for b in game.state.bodies.values() if b.owner == game.scelrotia)
    assert after > before and game.round == 2
    assert game.view()["scelrotia_did"] == list(game.state.scelrotia_did) != []


def test_players_attack_the_scelrotia_only_after_one_of_them_settles_an_inner_planet() -> None:
    game = board(players=2, mode="infection-coop", round=3, reserves=False)
    sc = game.scelrotia
    hold(game, "planet.orange.2", sc, 2)
    hold(game, "planet.white.1", 0, 1)
    ship(game, "s1", "frigate", "S4Q4", 0, 3)
    ship(game, "s2", "fighter", "S8Q4", 1, 1)
    energy(game, 0, cells=9)
    assert not any(a.startswith("attack") for a in game.legal())
    with pytest.raises(IllegalActionError, match="before one of them settles an inner"):
        game.play("attack planet.orange.2 s1")
    game.state.seats[1].inner_settled = True  # the other player did
    game.play("attack planet.orange.2 s1")
    game.play("strike 1")  # the Scelrotia defends and counters by itself
    assert game.turn().seat == 0 and game.phase == "attacker-damage"
    assert game.state.combat is not None and game.state.combat.counters == 1


def test_victory_tokens_are_shared_and_skip_or_renew() -> None:
    game = new_game(players=["Ann", "Bob"], mode="infection-coop", seed=5)
    assert game.state.tokens == 4
    game.play("token skip")
    game.play("end")
    game.state.seats[1].used = 3
    game.play("token renew")
    assert game.state.tokens == 2 and game.state.seats[1].used == 0
    game.play("end")
    colonies = [b.colonies for b in game.state.bodies.values()]
    game.play("scelrotia")  # skipped
    assert [b.colonies for b in game.state.bodies.values()] == colonies


def test_the_players_win_holding_the_four_inner_planets_scoring_the_tokens() -> None:
    game = board(players=2, mode="infection-coop", round=3)
    for n, body in enumerate(("planet.white.1", "planet.white.2", "planet.white.3")):
        hold(game, body, n % 2, 1)
    hold(game, "planet.white.4", None, 0)
    ship(game, "s1", "fighter", "S1Q1", RED, 2)
    energy(game, RED, cells=9)
    game.state.tokens = 3
    game.play("settle planet.white.4 s1")
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (0, 1) and outcome.scores[:2] == (3, 3)


def test_calling_time_in_infection_mode_is_a_loss() -> None:
    game = new_game(players=["Ann"], mode="infection-solo", seed=5)
    game.play("time")
    outcome = game.outcome()
    assert outcome is not None and outcome.winners == (game.scelrotia,)


# --- setup -------------------------------------------------------------------------------------


def test_setup_reads_the_misprint_as_4_yellow_4_white_3_orange_and_deals_by_seed() -> None:
    game = new_game(players=3, seed=11)
    rings = [game.board.bodies[b].ring for b in game.state.bodies if b.startswith("planet.")]
    assert (rings.count("yellow"), rings.count("white"), rings.count("orange")) == (4, 4, 3)
    for body in game.state.bodies.values():
        card = game.read.body_card(body)
        assert card.ring == game.board.bodies[body.id].ring or body.id.startswith("moon.")
        assert body.discovered == body.id.startswith("moon.")  # planets lie face down
    again = new_game(players=3, seed=11)
    assert again.state == game.state
    assert new_game(players=3, seed=12).state != game.state
    assert game.state.face_up is not None
    assert all((s.cells, s.charges) == (3, 2) for s in game.state.seats)
    assert all(s.kind == "fighter" and s.colonies == 2 for s in game.state.ships.values())


def test_seeded_seat_order_is_drawn_and_logged() -> None:
    orders = {tuple(new_game(players=4, seed=s, order="seeded").state.order) for s in range(20)}
    assert len(orders) > 1
    assert new_game(players=4, seed=3).state.order == [0, 1, 2, 3]


def test_moon_equity_builds_a_ship_around_a_moon_with_new_colonies_at_1e_each() -> None:
    """"This player may build ships around settled moons and create colonies directly
    onto it for 1E": the ship's colonies are created onto it, 1E each; the moon keeps its
    one colony (once, building from the moon lost the moon, so the card did nothing)."""
    game = board(round=1)
    hold(game, "moon.5", RED, 1)
    hold(game, "moon.7", RED, 1)
    energy(game, RED, cells=8)
    assert game.read.moon_equity() == RED
    legal = game.legal()  # a frigate with 3 new colonies would need 6E + 3E
    assert "build fighter moon.5 S1Q3 2" in legal and "build frigate moon.5 S1Q3 3" not in legal
    game.play("build fighter moon.5 S1Q3 2")  # 4E + 2 x 1E
    assert game.state.seats[RED].energy == 8 - 6
    assert game.state.bodies["moon.5"].owner == RED and game.state.bodies["moon.5"].colonies == 1
    built = game.state.ships[f"s{game.state.next_ship - 1}"]
    assert (built.kind, built.quadrant, built.owner, built.colonies) == ("fighter", "S1Q3", RED, 2)
    game.undo()
    assert game.state.bodies["moon.5"].colonies == 1


def test_only_frigates_defend_a_ship() -> None:
    """"To attack a starship directly, you must have frigate(s) in adjacent quadrants.
    Only frigates may engage in direct starship combat": a fighter beside the target
    does not defend it; a frigate in range does."""
    game = board(round=3)
    ship(game, "s1", "frigate", "S1Q3", RED, 3)
    ship(game, "s3", "fighter", "S1Q4", GREEN, 2)
    ship(game, "s4", "fighter", "S1Q4", GREEN, 2)
    energy(game, RED, cells=5)
    game.play("attack s3 s1")
    assert game.phase == "strike"  # s4, a fighter, may not defend
    game.undo()
    game.state.ships["s4"].kind = "frigate"
    game.play("attack s3 s1")
    assert game.phase == "defend" and "defend s4" in game.legal()


def test_a_waypoint_stays_with_a_ship_its_own_player_empties() -> None:
    """"Waypoints on ships move along with the ship": a ship emptied by its own player
    (its colonies moved off) is abandoned with its waypoint, which counts for whoever
    claims the ship."""
    game = board(round=1)
    hold(game, "planet.yellow.1", RED, 1)
    ship(game, "s1", "fighter", "S1Q3", RED, 1)
    game.state.ships["s1"].waypoints.append("Relay")
    game.state.bodies["planet.yellow.1"].colonies = 1
    assert game.read.waypoints(RED) == 1
    game.play("transfer s1 planet.yellow.1 1")
    abandoned = game.state.ships["s1"]
    assert abandoned.owner is None and abandoned.waypoints == ["Relay"]
    assert game.read.waypoints(RED) == 0
    game.play("transfer planet.yellow.1 s1 1")  # claimed back
    assert game.read.waypoints(RED) == 1


def test_two_players_never_start_in_the_other_players_home_orbit() -> None:
    """"Each player starts with an additional fighter containing two colonies in the sector
    directly across from their starting quadrant": with the homes on two neighbouring
    yellow planets, neither extra fighter lands in the other's home orbit, so nobody may
    settle the opponent's home planet in round 1."""
    game = new_game(players=["Ann", "Bob"], mode="two-player", seed=3)
    homes = {}
    for seat in (0, 1):
        first = min((s for s in game.state.ships.values() if s.owner == seat),
                    key=lambda s: int(s.id[1:]))
        homes[seat] = next(b for b in game.board.bodies.values()
                           if b.ring == "yellow" and first.quadrant in b.orbit)
    for seat in (0, 1):
        other = homes[1 - seat]
        assert not any(s.quadrant in other.orbit for s in game.state.ships.values()
                       if s.owner == seat), (seat, other.id)
    assert not any(a.startswith(f"settle {homes[1].id}") for a in game.legal())


def test_starting_places_are_a_choice() -> None:
    """"Each player places one fighter holding two of their colony pieces on any of the 4
    quadrants, or individual spaces, around one of the yellow-ringed planets": the
    ``starts`` option (logged, and a record header)."""
    game = new_game(players=["Ann", "Bob", "Cy"], seed=3, starts="S1Q4,S1Q3,S5Q2")
    assert [s.quadrant for s in game.state.ships.values()] == ["S1Q4", "S1Q3", "S5Q2"]
    assert game.options["starts"] == "S1Q4,S1Q3,S5Q2"
    _, again = record.parse(record.export(game))
    assert again.state == game.state
    with pytest.raises(ValueError, match="around a yellow-ringed planet"):
        new_game(players=["Ann", "Bob", "Cy"], seed=3, starts="S1Q4,S2Q3,S5Q2")
    with pytest.raises(ValueError, match="one starting quadrant per player"):
        new_game(players=["Ann", "Bob", "Cy"], seed=3, starts="S1Q4")
    with pytest.raises(ValueError, match="other player's home orbit"):
        new_game(players=["Ann", "Bob"], mode="two-player", seed=3, starts="S1Q3,S5Q1")
