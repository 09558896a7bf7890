"""What a new player reads (issue 24): rules and glossary in English and French, words
instead of notation, no free peeks, calling time, warnings, the infection end, French."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib import resources

import pytest
from tests.games.empire.position import board, energy, hold, ship

from meridian_table import i18n
from meridian_table.games.board import History
from meridian_table.games.empire.adapter import EmpireAdapter
from meridian_table.games.empire.engine import Game, new_game
from meridian_table.games.empire.files import load_cards
from meridian_table.games.empire.ledger import ledger, words

STATIC = resources.files("meridian_table.games.empire").joinpath("static")
RED = 0


@pytest.fixture
def french() -> Iterator[None]:
    i18n.set_language("fr")
    yield
    i18n.set_language("en")


def adapter_for(game: Game) -> EmpireAdapter:
    return EmpireAdapter(game, dict(game.options))


def test_rules_and_glossary_in_english_and_french() -> None:
    """Served from games/empire/static/ (no 404): the page's Rules button opens them."""
    terms = {"en": ("Cell", "Charge", "Quadrant", "Sector", "Orbit", "Waypoint", "Presence",
                    "Infection", "Victory token", "Scelrotia"),
             "fr": ("Cellule", "Charge", "Quadrant", "Secteur", "Orbite", "Point de passage",
                    "Présence", "Infection", "Jeton de victoire", "Scelrotia")}
    shapes = []
    for lang, wanted in terms.items():
        rules = json.loads(STATIC.joinpath(f"rules.{lang}.json").read_text(encoding="utf-8"))
        glossary = dict(rules["glossary"])
        assert set(wanted) <= set(glossary), lang
        assert rules["title"] and rules["summary"] and rules["score"]
        shapes.append((len(rules["summary"]), len(rules["glossary"])))
    assert shapes[0] == shapes[1]  # the French says all the English does


def test_the_move_list_and_prompts_are_words_not_notation() -> None:
    game = new_game(players=["Ann", "Bob", "Cy"], seed=3)
    adapter = adapter_for(game)
    for action in game.legal():
        said = adapter.move_words(action) or ""
        assert not re.search(r"\b(planet|moon)\.\w+|\bS\dQ\d\b|\bs\d+\b", said), (action, said)
    build = "build frigate planet.white.4 S8Q2 1"
    game.state.bodies["planet.white.4"].discovered = True
    card = game.state.bodies["planet.white.4"].card
    assert words(game, build, ("Red", "Blue", "Green")) == (
        f"build a frigate at sector 8, quadrant 2 from {card}, 1 colony aboard")


def test_no_free_peeks_a_face_down_planet_is_never_named() -> None:
    game = board(round=1)
    body = game.state.bodies["planet.yellow.1"]
    body.discovered = False
    ship(game, "s1", "fighter", "S1Q3", RED, 2)
    energy(game, RED, cells=9)
    adapter = adapter_for(game)
    out = json.dumps(ledger(game, adapter.colours, [], []), ensure_ascii=False)
    assert body.card not in out
    assert "the face-down yellow planet in sector 1" in out
    site = next(s for s in adapter.board_json()["sites"] if s["id"] == body.id)
    assert site["card"] is None
    game.play("discover planet.yellow.1")
    assert body.card in json.dumps(ledger(game, adapter.colours, [], []))


def test_calling_time_from_the_page_says_what_it_means() -> None:
    solo = new_game(players=1, mode="infection-solo", seed=4)
    adapter = adapter_for(solo)
    time = adapter.board_json()["ledger"]["time"]
    assert time["action"] == "time" and "the Scelrotia wins" in time["confirm"]
    interp = adapter.answer("action", "time")
    adapter.play(interp.action or "")
    assert adapter.result() is not None and adapter.result()["winner"] == "scelrotia"
    three = adapter_for(new_game(players=3, seed=4))
    assert "final round" in three.board_json()["ledger"]["time"]["confirm"]


def test_a_warning_before_giving_up_a_planet_or_a_waypoint() -> None:
    game = board(round=1)
    hold(game, "planet.yellow.1", RED, 1, card="Barlow")
    game.state.bodies["planet.yellow.1"].waypoints.append("Relay")
    ship(game, "s1", "fighter", "S1Q3", RED, 1)
    energy(game, RED, cells=9)
    adapter = adapter_for(game)
    actions = {a["notation"]: a for a in adapter.board_json()["ledger"]["actions"]}
    warned = actions["transfer planet.yellow.1 s1 1"]["warning"]
    assert "you give up Barlow" in warned and "1 waypoint" in warned
    assert actions["end"]["warning"] == "" and actions["charge"]["warning"] == ""


def test_the_infection_end_shows_the_victory_tokens_not_the_tie_breakers() -> None:
    game = new_game(players=1, mode="infection-solo", seed=4)
    game.play("token renew")
    game.play("time")
    adapter = adapter_for(game)
    outcome = adapter.board_json()["ledger"]["outcome"]
    assert outcome["infection"] and outcome["tokens"] == 3 and outcome["standing"] == {}
    labels = [b["label"] for b in adapter.scores()["red"]["breakdown"]]
    assert labels == ["victory tokens kept", "colonies"]


ENGLISH = re.compile(r"\b(the|and|with|move|ship|fighter|frigate|settle|build|colony|"
                     r"sector|turn|round|grows|infects|strike|waypoint|face-down)\b")


def test_the_ledger_speaks_french(french: None) -> None:
    """Every text of the ledger and the table's message in French for a French table
    (card names are the cards' own); the game runs a few rounds with the Scelrotia."""
    game = new_game(players=1, mode="infection-solo", seed=4)
    adapter = adapter_for(game)
    cards = load_cards("sample")
    names = sorted([*cards.planets, *cards.moons, *cards.waypoints, *cards.events], key=len,
                   reverse=True)
    for _ in range(12):
        legal = game.legal()
        action = next((a for a in legal if a.split()[0] in ("settle", "discover", "move")),
                      legal[0] if legal == ("scelrotia",) else "end")
        adapter.play(action)
        page = adapter.board_json()["ledger"]
        texts = [page["stage_words"], page["trigger"], *page["scelrotia_did"], *page["log"],
                 *(a["words"] for a in page["actions"]), *(g["title"] for g in page["groups"]),
                 adapter.view(None).message]
        for seat in page["seats"]:
            texts += [seat["name"], *(b["words"] for b in seat["bodies"]),
                      *(s["words"] for s in seat["ships"])]
        for text in texts:
            for name in names:
                text = text.replace(name, " ")
            assert not ENGLISH.search(text), text
        if game.is_over:
            break


def test_after_a_discovery_the_log_says_what_was_found() -> None:
    game = board(round=1)
    game.state.bodies["planet.yellow.1"].discovered = False
    ship(game, "s1", "fighter", "S1Q3", RED, 2)
    adapter = adapter_for(game)
    History(adapter).play("discover planet.yellow.1")
    card = game.state.bodies["planet.yellow.1"].card
    assert adapter.board_json()["ledger"]["log"][-1].endswith(
        f"discover the face-down yellow planet in sector 1: it is {card}")
