"""Every worked example of the rule book (v4.0), rebuilt on the sample map.

The book's pictures are not in the text, so each position is rebuilt from the words;
the rebuild is described in each test's docstring.
"""

from __future__ import annotations

import pytest
from tests.games.empire.position import board, energy, hold, ship

from meridian_table.games.empire import IllegalActionError

RED, GREEN, BLUE = 0, 1, 2
NEXUS = "planet.white.2"  # orbit S4Q2 and S5Q1 (one ship each)


def test_settling_and_losing_barlow() -> None:
    """"Barlow requires 4E to settle (Cost) and gains the player 2 Cells (Production). It
    may hold up to 3 colonies (Capacity)." and "Barlow produces 2 Cells. When lost, the
    previous owner discards 2 Cells and gains 2 Charges."

    Rebuild: Red's fighter orbits Barlow on planet.yellow.1; every player has 3 cells (a
    tie, so nobody holds Energy Equity). Green's frigate then empties Barlow in round 3."""
    game = board(round=3)
    hold(game, "planet.yellow.1", None, 0, card="Barlow")
    game.state.bodies["planet.yellow.1"].discovered = False
    ship(game, "s1", "fighter", "S1Q3", RED, 2)
    ship(game, "s2", "frigate", "S1Q4", GREEN, 3)
    energy(game, RED, cells=3, charges=2)
    game.play("settle planet.yellow.1 s1")
    red = game.state.seats[RED]
    barlow = game.state.bodies["planet.yellow.1"]
    assert barlow.discovered and barlow.owner == RED and barlow.colonies == 1
    assert (red.cells, red.used, red.charges) == (5, 3 + 2, 1)  # paid 3 cells + 1 charge
    assert game.read.capacity(barlow) == 3
    game.play("colony planet.yellow.1")  # 1E on a planet (the charge left)
    assert red.energy == 0
    game.play("end")
    # Green's turn: strike Barlow twice; undefended, each strike removes a colony.
    energy(game, GREEN, cells=3, charges=0)
    colonies = barlow.colonies
    game.play("attack planet.yellow.1 s2")
    assert game.phase == "defend" and game.turn().seat == RED  # Red's fighter could defend
    game.play("defend none")
    game.play(f"strike {colonies}")
    game.play(f"damage planet.yellow.1:{colonies}")
    barlow = game.state.bodies["planet.yellow.1"]
    red = game.state.seats[RED]
    assert barlow.owner is None and barlow.discovered  # "do not go back to being Undiscovered"
    assert red.cells == 3 and red.charges == 2  # discards 2 cells, gains 2 charges


def _nexus_fight(defender_kind: str, defender_colonies: int, green_energy: int):
    """Red declares an attack on Nexus with its frigate (3 colonies); Green defends with
    its ship. Rebuild: Nexus (planet.white.2) holds 2 Green colonies, the least that lets
    both of the book's outcomes of scenario A happen (ship lost, or planet lost and one
    counter-strike)."""
    game = board(round=3)
    hold(game, NEXUS, GREEN, 2, card="Nexus")
    ship(game, "s1", "frigate", "S4Q2", RED, 3)
    ship(game, "s2", defender_kind, "S5Q1", GREEN, defender_colonies)
    energy(game, RED, cells=6, charges=0)
    energy(game, GREEN, cells=green_energy, charges=0)
    game.play(f"attack {NEXUS} s1")
    assert game.turn().seat == GREEN and game.phase == "defend"  # Green decides now
    game.play("defend s2")
    assert game.turn().seat == RED and game.phase == "strike"
    assert "strike 4" not in game.legal()  # one strike per colony on the attacking frigate
    game.play("strike 3")  # "Red will spend 3 Energy to Strike 3 times"
    assert game.state.seats[RED].energy == 3
    assert game.turn().seat == GREEN and game.phase == "damage"
    return game


@pytest.mark.parametrize("kind", ["fighter", "frigate"])
def test_combat_scenario_a_ship_lost_no_counter(kind: str) -> None:
    """Scenario A, Green has no energy: "Green takes 3 strike damage losing 3 colonies ...
    Green loses their ship and cannot strike back." The frigate example reads the same,
    so its frigate is rebuilt with 2 colonies aboard."""
    game = _nexus_fight(kind, 2, 0)
    assert not any("/" in a for a in game.legal())  # no energy, no shields
    game.play("damage s2:2 planet.white.2:1")
    assert game.state.combat is None  # no counter-strike: the encounter is over
    assert game.state.ships["s2"].owner is None  # abandoned
    assert game.state.bodies[NEXUS].colonies == 1


@pytest.mark.parametrize("kind", ["fighter", "frigate"])
def test_combat_scenario_a_planet_lost_one_counter(kind: str) -> None:
    """"OR Green loses their planet and can strike back once.\""""
    game = _nexus_fight(kind, 2, 0)
    game.play("damage planet.white.2:2 s2:1")
    assert game.state.bodies[NEXUS].owner is None
    assert game.phase == "counter" and game.turn().seat == GREEN
    assert game.legal() == ("counter 0", "counter 1")  # free; once per remaining colony
    game.play("counter 1")
    assert game.state.seats[GREEN].energy == 0  # counter-strikes are free (0E)
    assert game.turn().seat == RED and game.phase == "attacker-damage"
    game.play("damage s1:1")
    assert game.state.ships["s1"].colonies == 2 and game.state.combat is None


@pytest.mark.parametrize("kind", ["fighter", "frigate"])
def test_combat_scenario_b_two_shields_then_two_counters(kind: str) -> None:
    """Scenario B, Green has max energy: "Green can only spend up to 2 Energy for 2 Shields
    ... Green's ship can take 2 Shield damage (losing 2E) and 1 strike damage (losing 1
    colony) ... Green may strike back twice, dealing 2 damage to Red." The colony lost is
    Nexus's (the ship keeps its 2, so it counters twice)."""
    game = _nexus_fight(kind, 2, 9)
    with pytest.raises(IllegalActionError, match="one per colony aboard"):
        game.play("damage s2:0/3")  # the shield cap, whatever energy remains
    game.play("damage s2:0/2 planet.white.2:1")
    assert game.state.seats[GREEN].energy == 7
    assert game.legal()[-1] == "counter 2"
    game.play("counter 2")
    assert game.phase == "attacker-damage"  # "Attacker takes damage following the same rules"
    game.play("damage s1:0/2")  # Red shields both with its remaining 3E
    assert game.state.seats[RED].energy == 1 and game.state.ships["s1"].colonies == 3


def test_a_full_frigate_defends_with_three() -> None:
    """The same fight with Green's frigate full (3 colonies): three shields fit the cap,
    and it keeps 3 colonies to counter three times."""
    game = _nexus_fight("frigate", 3, 9)
    game.play("damage s2:0/3")
    assert game.legal()[-1] == "counter 3"


def test_shield_and_strike_cap() -> None:
    """"A ship with 2 colonies may only [strike] up to two times per encounter and Shield
    two damage while being attacked. Regardless of the player's remaining Energy.\""""
    game = board(round=3)
    hold(game, NEXUS, GREEN, 3, card="Nexus")
    ship(game, "s1", "fighter", "S4Q2", RED, 2)
    ship(game, "s2", "fighter", "S5Q1", GREEN, 2)
    energy(game, RED, cells=9, charges=9)
    energy(game, GREEN, cells=9, charges=9)
    game.play(f"attack {NEXUS} s1")
    game.play("defend s2")
    assert game.legal() == ("strike 1", "strike 2")
    with pytest.raises(IllegalActionError, match="at most 2 times"):
        game.play("strike 3")
    game.play("strike 2")
    assert "damage s2:0/1" in game.legal() and not game.is_legal("damage s2:0/3")
    game.play("damage s2:0/1")  # one shield at a time, with a running total
    assert game.phase == "damage" and game.state.combat.split == [("s2", 0, 1, False)]
    game.play("damage s2:0/1")  # the second shield: 2 of 2, the damage is taken
    assert game.phase == "counter" and game.state.ships["s2"].colonies == 2


def test_move_attack_move_costs() -> None:
    """"if a player wished to move a frigate 1 quadrant, attack, and then move once more:
    they would pay 2E for the first movement, pay the cost for the attack, and then pay an
    additional 2E for the second movement." Rebuild: Red's frigate at S4Q4 moves to S4Q2
    (Nexus's orbit), strikes once at Green's undefended Nexus, then moves on."""
    game = board(round=3)
    hold(game, NEXUS, GREEN, 2, card="Nexus")
    ship(game, "s1", "frigate", "S4Q4", RED, 3)
    energy(game, RED, cells=10)
    game.play("move s1 S4Q2")
    assert game.state.seats[RED].energy == 8
    game.play(f"attack {NEXUS} s1")
    game.play("strike 1")  # Green has no ship in range: no defence step
    game.play(f"damage {NEXUS}:1")
    assert game.state.seats[RED].energy == 7
    game.play("move s1 S4Q4")
    assert game.state.seats[RED].energy == 5


def test_waypoint_building_across_sectors_4_and_5() -> None:
    """"if the player controls a Waypoint on a planet occupying both sectors 4 and 5, they
    may not build any more Waypoints in either of those sectors." Rebuild: Red holds
    planet.white.2 (borders 4 and 5) with a waypoint, a planet in sector 5, and ships in
    sectors 4 and 6."""
    game = board(round=1)
    hold(game, NEXUS, RED, 1, card="Slate")
    game.state.bodies[NEXUS].waypoints.append("Relay")
    hold(game, "planet.yellow.3", RED, 1, card="Barlow")  # sector 5
    ship(game, "s1", "fighter", "S4Q4", RED, 1)
    ship(game, "s2", "fighter", "S6Q4", RED, 1)
    energy(game, RED, cells=20)
    legal = game.legal()
    assert "waypoint planet.yellow.3" not in legal and "waypoint s1" not in legal
    assert "waypoint s2" in legal
    with pytest.raises(IllegalActionError, match="already has a waypoint in sector 5"):
        game.play("waypoint planet.yellow.3")
    game.play("waypoint s2")
    # "they may not be moved into the same sector as more of that player's waypoints"
    assert not any(a.startswith("move s2 S5") for a in game.legal())
    with pytest.raises(IllegalActionError, match="another of your waypoints"):
        game.play("move s2 S5Q4")


def test_red_presence_in_six_sectors_then_the_end() -> None:
    """"Red shows presence in 6 of the 8 sectors: having settled two planets, one moon,
    and one frigate" and "Once Red gets presence in Sector 1 and 5 as well they will be in
    a position to trigger the end of the game." Rebuild: planets on 2|3 and 6|7, a moon in
    sector 4, a frigate in sector 8 (and a fighter in sector 1, which gives no presence)."""
    game = board(round=4)
    hold(game, "planet.white.1", RED, 1)    # sectors 2 and 3
    hold(game, "planet.orange.3", RED, 1)   # sectors 6 and 7
    hold(game, "moon.2", RED, 1)            # sector 4
    ship(game, "s1", "frigate", "S8Q4", RED, 2)
    ship(game, "s2", "fighter", "S1Q4", RED, 2)
    ship(game, "s3", "fighter", "S3Q4", GREEN, 2)
    ship(game, "s4", "fighter", "S3Q3", BLUE, 2)
    energy(game, RED, cells=20)
    assert game.read.presence(RED) == {2, 3, 4, 6, 7, 8}
    assert not game.state.trigger
    game.play("settle moon.5 s2")            # a moon in sector 1
    assert game.read.presence(RED) == {1, 2, 3, 4, 6, 7, 8} and not game.state.trigger
    ship(game, "s5", "frigate", "S4Q4", RED, 1)
    game.play("move s5 S5Q3")                # a frigate in sector 5
    assert game.read.presence(RED) == set(range(1, 9))
    assert game.state.trigger == "Player 1 has presence in all eight sectors"


def test_scelrotia_example_turn() -> None:
    """"1. Thrace: Scelrotia grows, adding one colony. 2. Moji: Can't grow due to full
    capacity. Instead, Moji infects the nearby moon, replacing the blue colony. 3. Hadron:
    Can't grow due to full capacity. Instead, Hadron infects Slate. 4. Slate: After
    colonizing an inner planet creates a new Scelrotia ship. 5. Moon: The moon infects the
    nearby Blue ship, replacing one of its colonies."

    Rebuild: Thrace (planet.orange.2) holds 1 of 2; Moji (planet.orange.1, sectors 1|2)
    and Hadron (planet.orange.3, sharing a quadrant with Slate on planet.white.3) are full;
    Blue holds moon.13 (next to Moji) and a fighter with 2 colonies in its orbit."""
    game = board(players=1, mode="infection-solo", round=5, to_act=1, reserves=False)
    sc = game.scelrotia
    hold(game, "planet.orange.2", sc, 1, card="Thrace")
    hold(game, "planet.orange.1", sc, 2, card="Moji")
    hold(game, "planet.orange.3", sc, 2, card="Hadron")
    hold(game, "planet.white.3", None, 0, card="Slate")
    game.state.bodies["planet.white.3"].discovered = False
    hold(game, "moon.13", 0, 1)
    hold(game, "planet.white.1", 0, 1)  # Blue keeps a colony elsewhere
    ship(game, "s1", "fighter", "S1Q4", 0, 2)
    game.state.seats[0].inner_settled = True
    assert game.turn().seat == sc and game.legal() == ("scelrotia",)
    from meridian_table.games.empire import scelrotia

    steps = scelrotia.take_turn(game)
    assert steps == [
        "planet.orange.1 infects moon.13",
        "planet.orange.2 grows",
        "planet.orange.3 infects planet.white.3",
        "planet.white.3 builds s2 at S6Q2",
        "moon.13 infects s1",
    ]
    bodies = game.state.bodies
    assert bodies["planet.orange.2"].colonies == 2
    assert bodies["moon.13"].owner == sc and bodies["planet.white.3"].owner == sc
    assert bodies["planet.white.3"].discovered  # an undiscovered target flips
    assert game.state.ships["s2"].owner == sc and game.state.ships["s2"].colonies == 2
    assert game.state.ships["s1"].owner == 0 and game.state.ships["s1"].colonies == 1
