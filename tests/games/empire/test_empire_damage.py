"""Damage is chosen one unit at a time with a running total (issue 24, defect 4).

Two frigates striking 6 times at a planet with 2 colonies defended by 3 frigates once
listed every split of the 6 (840 legal actions; the board's buttons could not reach
them). Now each step is one colony lost or one shield on one ship, the chosen damage so
far is kept in the combat (``Combat.split``) and taken once it adds up. The flat split
of older logs (``damage s4:1/2 planet.white.2:1``) is still accepted, so they replay.
"""

from __future__ import annotations

import random

from tests.games.empire import script
from tests.games.empire.position import board, energy, hold, ship

from meridian_table.games.board import Observation
from meridian_table.games.empire import Game, record
from meridian_table.games.empire.adapter import EmpireAdapter
from meridian_table.games.empire.engine import new_game
from meridian_table.games.empire.ledger import ledger
from meridian_table.games.empire.notation import Damage, parse

RED, GREEN = 0, 1
PLANET = "planet.yellow.2"  # orbit S3Q1..S3Q4


def big_fight() -> Game:
    game = board(round=3)
    hold(game, PLANET, GREEN, 2)
    ship(game, "s1", "frigate", "S3Q1", RED, 3)
    ship(game, "s2", "frigate", "S3Q2", RED, 3)
    ship(game, "s3", "frigate", "S3Q3", GREEN, 3)
    ship(game, "s4", "frigate", "S3Q4", GREEN, 3)
    ship(game, "s5", "frigate", "S3Q4", GREEN, 3)
    energy(game, RED, cells=9)
    energy(game, GREEN, cells=9, charges=9)
    game.play(f"attack {PLANET} s1,s2")
    game.play("defend s3,s4,s5")
    game.play("strike 6")
    assert game.phase == "damage"
    return game


def test_a_big_damage_is_a_few_choices_not_every_split() -> None:
    game = big_fight()
    legal = game.legal()
    assert len(legal) <= 16, legal
    assert set(legal) == {
        f"damage {PLANET}:1", "damage s3:1", "damage s4:1", "damage s5:1",
        "damage s3:0/1", "damage s4:0/1", "damage s5:0/1"}


def test_one_unit_at_a_time_with_a_running_total_and_exact_undo() -> None:
    game = big_fight()
    steps = ["damage s3:0/1", "damage s3:0/1", f"damage {PLANET}:1", f"damage {PLANET}:1",
             "damage s4:1", "damage s4:1"]
    for n, step in enumerate(steps[:-1], start=1):
        before = game.state.copy()
        game.play(step)
        assert game.phase == "damage"
        assert sum(lost + shields for _, lost, shields, _ in game.state.combat.split) == n
        game.undo()
        assert game.state == before  # undo is exact, one step at a time
        game.play(step)
    assert game.state.seats[GREEN].energy == 18 - 2  # shields are paid as they are chosen
    assert game.state.bodies[PLANET].colonies == 2  # colonies go when the damage is taken
    game.play(steps[-1])
    assert game.phase == "counter"
    assert game.state.bodies[PLANET].owner is None
    assert game.state.ships["s4"].colonies == 1 and game.state.ships["s3"].colonies == 3


def test_the_flat_split_of_an_older_log_still_replays_to_the_same_position() -> None:
    steps = ["damage s3:0/1", "damage s3:0/1", f"damage {PLANET}:1",
                                f"damage {PLANET}:1", "damage s4:1", "damage s4:1"]
    stepwise = big_fight()
    for step in steps:
        stepwise.play(step)
    flat = big_fight()
    flat.play(f"damage s3:0/2 {PLANET}:2 s4:2")
    assert flat.state == stepwise.state


def test_an_emptied_ship_self_destructs_only_when_its_last_colony_is_chosen_so() -> None:
    game = big_fight()
    game.play("damage s5:1")
    game.play("damage s5:1")
    assert "damage s5:1!" in game.legal() and "damage s4:1!" not in game.legal()
    game.play("damage s5:1!")
    assert game.state.combat.split == [("s5", 3, 0, True)]
    for step in ("damage s4:1", "damage s4:1", "damage s4:1"):
        game.play(step)  # 6 of 6: taken; s5 self-destructs, s4 is abandoned
    assert "s5" not in game.state.ships and game.state.ships["s4"].owner is None


def test_an_old_record_with_flat_splits_replays() -> None:
    """A real game (the table tests' scripted player) whose damage steps are written as
    older logs wrote them, one flat split each: its record replays to the same state."""
    game = new_game(players=3, seed=script.SEED)
    rng = random.Random(script.SEED)
    flat_splits = 0
    while not game.is_over and flat_splits < 3 and len(game.history) < 400:
        if game.phase in ("damage", "attacker-damage"):
            probe, phase = game.clone(), game.phase
            units: dict[str, list[int]] = {}
            while probe.phase == phase:
                step = script.choose(probe, rng)
                probe.play(step)
                for d in parse(step).damage:
                    total = units.setdefault(d.unit, [0, 0, 0])
                    total[0] += d.lost
                    total[1] += d.shields
                    total[2] |= d.destruct
            flat = "damage " + " ".join(Damage(u, *t[:2], bool(t[2])).notation()
                                        for u, t in units.items())
            game.play(flat)
            assert game.state == probe.state, (flat, probe.history[-3:])
            flat_splits += 1
            continue
        game.play(script.choose(game, rng))
    assert flat_splits == 3
    text = record.export(game)
    _, again = record.parse(text)
    assert again.state == game.state


def test_the_board_buttons_choose_the_damage_and_the_page_shows_the_running_total() -> None:
    game = big_fight()
    adapter = EmpireAdapter(game, dict(game.options))
    view = adapter.view(None)
    assert view.question is not None and len(view.question.choices) == 7
    assert "0 of 6" in view.message, view.message
    adapter.button("plus")
    answer = adapter.button("confirm")
    assert answer.action == view.question.choices[1]
    adapter.play(answer.action)
    assert "1 of 6" in adapter.view(None).message
    shown = ledger(game, adapter.colours, [], [])["combat"]
    assert shown["due"] == 6 and shown["chosen"] == 1 and len(shown["split"]) == 1
    assert adapter.interpret(Observation(adapter.expected(), adapter.expected(), None,
                                         frozenset())).action is None
