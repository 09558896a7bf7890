"""The energy ledger is a pure function of the game (issue 24, defect 2).

It once kept ``state = game.state`` and then priced each legal action by playing it and
taking it back; undo puts a *copy* back, so the kept object was one probed action ahead:
"1 strikes" before anyone struck, no combat panel while the defender split the damage, a
false end trigger. Each test reads the ledger at such a moment and compares it with the
game as it stands.
"""

from __future__ import annotations

import random
from typing import Any

from tests.games.empire.position import board, energy, hold, ship

from meridian_table.games.empire import Game, new_game
from meridian_table.games.empire.ledger import ActionsMemo, action_entries, ledger
from meridian_table.i18n import language, set_language

RED, GREEN, BLUE = 0, 1, 2
NEXUS = "planet.white.2"
COLOURS = ("red", "blue", "green")


def read(game: Game) -> dict[str, Any]:
    state, history = game.state, list(game.history)
    out = ledger(game, COLOURS, [], [])
    assert game.state is state and game.history == history, "the ledger changed the game"
    return out


def fight() -> Game:
    game = board(round=3)
    hold(game, NEXUS, GREEN, 2, card="Nexus")
    ship(game, "s1", "frigate", "S4Q2", RED, 3)
    ship(game, "s2", "fighter", "S5Q1", GREEN, 2)
    energy(game, RED, cells=6)
    energy(game, GREEN, cells=9)
    game.play(f"attack {NEXUS} s1")
    game.play("defend s2")
    return game


def test_before_anyone_strikes_the_combat_shows_no_strikes() -> None:
    game = fight()
    assert game.phase == "strike"
    out = read(game)
    assert out["combat"] is not None and out["combat"]["stage"] == "strike"
    assert out["combat"]["strikes"] == 0 and out["combat"]["counters"] == 0
    assert out["stage"] == "strike"
    assert out["seats"][RED]["energy"] == 6  # nothing spent yet


def test_while_the_defender_takes_the_damage_the_combat_panel_stays() -> None:
    game = fight()
    game.play("strike 3")
    assert game.phase == "damage"
    out = read(game)
    assert out["combat"] is not None and out["combat"]["strikes"] == 3
    assert out["combat"]["stage"] == "damage"
    assert out["seats"][GREEN]["energy"] == 9
    assert out["seats"][GREEN]["colonies"] == 2 + 2 + 1  # Nexus, the fighter, the reserve


def test_an_action_that_would_trigger_the_end_shows_no_trigger_before_it_is_played() -> None:
    game = board(round=3)
    for body in game.state.bodies.values():  # every body settled but one
        body.owner, body.colonies, body.discovered = BLUE, 1, True
    last = game.state.bodies["planet.yellow.1"]
    last.owner, last.colonies = None, 0
    ship(game, "s1", "fighter", "S1Q3", RED, 2)
    energy(game, RED, cells=9)
    assert any(a.startswith("settle planet.yellow.1") for a in game.legal())
    out = read(game)
    assert out["trigger"] == "" and not out["final"]
    game.play("settle planet.yellow.1 s1")
    assert game.state.trigger == "Player 3 has presence in all eight sectors"
    assert read(game)["trigger"] == "Green has presence in all eight sectors"  # in words


def test_in_the_final_round_the_order_and_trigger_are_the_games() -> None:
    game = board(round=3)
    game.state.trigger = "the table called time"
    game.play("end")  # a trigger set: the final round starts with the next turn
    assert game.state.final
    out = read(game)
    assert out["final"] and out["trigger"] == "the table called time"
    assert out["order"] == [COLOURS[s] for s in game.state.order]
    assert out["turn"] == COLOURS[game.state.order[0]]
    ids = [a["notation"] for a in out["actions"]]
    assert ids == list(game.legal())


def test_the_actions_kept_for_a_position_are_the_ones_worked_out_afresh() -> None:
    """The page is drawn on every switch change and keeps the ledger's actions of the
    position (issue 29): they are the fresh ones whatever changed in between (an action
    played or taken back, the energy set by hand, another language)."""
    labels = ("Red", "Blue", "Green")
    memo = ActionsMemo()
    game = new_game(players=3, seed=29)
    rng = random.Random(29)

    def same() -> None:
        actor = game.turn().seat
        kept = memo.actions(game, labels, actor)
        assert kept == action_entries(game, labels, actor)
        if kept:
            kept[0]["cost"] = -1  # the caller's to change: the kept ones stay right
        assert memo.actions(game, labels, actor) == action_entries(game, labels, actor)

    for _ in range(120):
        same()
        game.play(rng.choice(game.legal()))
    game.undo()
    same()
    energy(game, game.turn().seat or 0, cells=9)  # a position set by hand
    same()
    before = language()
    try:
        set_language("fr")
        same()
    finally:
        set_language(before)
    same()
