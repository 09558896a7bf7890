"""What an author does not write (docs/ADDING_A_GAME.md): the ready one-piece-per-site
adapter, the plain record format and the generic search bot, proved on the toy game
(which brings none of them itself) at the real table, in the log and in the review."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Self

import pytest
from tests.games.driver import BoardDriver

from meridian_table import bots
from meridian_table.bots.review import review
from meridian_table.games import registry
from meridian_table.games.contract import Engine, Outcome, PolicyCancelled, Turn
from meridian_table.games.records import RecordError
from meridian_table.games.search import SEARCH_BOT, SearchBot
from meridian_table.store import Store
from meridian_table.table.runner import TableSetup, open_table
from meridian_table.table.storejournal import StoreArchive


def _wait(predicate: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return
        pause.wait(0.01)
    raise AssertionError("the condition never held")


def _toy(moves: str = "") -> Engine:
    engine = registry.spec("toy").new_game({}, None)
    for move in moves:
        engine.play(move)
    return engine


# --- the generic search bot ---------------------------------------------------------------


def test_the_toy_declares_no_bot_and_gets_the_generic_one() -> None:
    spec = registry.spec("toy")
    assert spec.bot is SEARCH_BOT
    assert "bot" in spec.automata() and spec.to_json()["levels"]
    assert isinstance(spec.policy("bot:2"), SearchBot)


@pytest.mark.parametrize("moves, best", [
    ("adbe", "c"),  # X has a and b: c completes the top row
    ("abde", "g"),  # X has a and d: g completes the left column
])
def test_the_search_bot_takes_a_win_in_one(moves: str, best: str) -> None:
    engine = _toy(moves)
    verdict = bots.create("toy", 1, seed=1, iterations=1).analyse(engine, 5.0)
    assert verdict.best == best and verdict.values == {best: 1.0}


def test_the_search_bot_blocks_a_loss_in_one_and_searches_the_rest() -> None:
    engine = _toy("aeb")  # X has a and b; O to move must take c
    verdict = bots.create("toy", 3, seed=2, iterations=300).analyse(engine, 5.0)
    assert verdict.best == "c" and verdict.iterations == 300
    # Every other action lets X win at once: worth nothing, and not searched.
    assert {a for a, v in verdict.values.items() if v == 0.0} == set(engine.legal()) - {"c"}


class Nim(Engine):
    """Take 1 or 2 from a pile in turn; who takes the last wins. A pile of 3n loses."""

    def __init__(self, pile: int) -> None:
        self.pile = pile
        self.taken: list[int] = []

    def turn(self) -> Turn:
        return Turn(None, "ended") if self.outcome() else Turn(len(self.taken) % 2)

    def legal(self) -> tuple[str, ...]:
        return tuple(str(n) for n in (1, 2) if n <= self.pile) if self.pile else ()

    def play(self, action: str) -> str:
        self.pile -= int(action)
        self.taken.append(int(action))
        return action

    def undo(self) -> str:
        last = self.taken.pop()
        self.pile += last
        return str(last)

    def outcome(self) -> Outcome | None:
        if self.pile:
            return None
        return Outcome(((len(self.taken) - 1) % 2,), (), "took the last")


def test_the_search_itself_finds_the_winning_line() -> None:
    """No win or loss in one from a pile of 7: only search sees that taking 1 (leaving
    6, a multiple of 3) wins and taking 2 loses."""
    verdict = SearchBot(3, seed=4, iterations=800).analyse(Nim(7), 5.0)
    assert verdict.best == "1" and verdict.iterations == 800
    assert verdict.values["1"] > verdict.values["2"]
    assert len(verdict.seat_values) == 2


def test_a_fixed_search_is_the_same_for_the_same_seed() -> None:
    engine = _toy("e")
    first = bots.create("toy", 4, seed=9, iterations=150).analyse(engine.clone(), 5.0)
    again = bots.create("toy", 4, seed=9, iterations=150).analyse(engine.clone(), 5.0)
    assert first.best == again.best and first.values == again.values


def test_a_cancelled_search_says_so() -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(PolicyCancelled):
        bots.create("toy", 5, seed=1).analyse(_toy(), 5.0, cancel)


class Hidden(Engine):
    """Two seats each hold a secret card 0..2 and guess the other's in turn (one guess
    each); a right guess wins. Only ``hidden_from`` may show a seat its own card."""

    def __init__(self, cards: tuple[int, int] = (0, 1)) -> None:
        self.cards = cards
        self.guesses: list[int] = []
        self.redealt_for: list[int] = []

    def turn(self) -> Turn:
        return Turn(None, "ended") if self.outcome() else Turn(len(self.guesses) % 2)

    def legal(self) -> tuple[str, ...]:
        return () if self.outcome() else ("0", "1", "2")

    def play(self, action: str) -> str:
        self.guesses.append(int(action))
        return action

    def undo(self) -> str:
        return str(self.guesses.pop())

    def outcome(self) -> Outcome | None:
        for seat, guess in enumerate(self.guesses):
            if guess == self.cards[1 - seat]:
                return Outcome((seat,), (), "a right guess")
        return Outcome((), (), "nobody guessed") if len(self.guesses) >= 2 else None

    def clone(self) -> Self:
        twin = type(self)(self.cards)
        twin.guesses = list(self.guesses)
        twin.redealt_for = self.redealt_for  # shared: the test reads the calls
        return twin

    def hidden_from(self, seat: int, rng: random.Random) -> Self:
        self.redealt_for.append(seat)
        mine = self.cards[seat]
        twin = self.clone()
        other = rng.choice([c for c in (0, 1, 2)])  # what seat cannot know: re-dealt
        twin.cards = (mine, other) if seat == 0 else (other, mine)
        return twin


def test_the_search_bot_searches_only_what_its_seat_may_know() -> None:
    """Every iteration is a fresh determinisation for the seat to move, so the hidden
    card is not found by search: each guess is worth about the same."""
    engine = Hidden(cards=(0, 2))
    verdict = SearchBot(5, seed=3, iterations=600).analyse(engine, 5.0)
    assert engine.redealt_for == [0] * 600  # no win-or-block shortcut on a re-deal
    assert max(verdict.values.values()) - min(verdict.values.values()) < 0.2
    # Seeing through the engine (no re-deal) would find the card for sure.
    assert verdict.values.get("2", 0.0) < 0.9


# --- hints and review for a game with no bot of its own --------------------------------


def test_a_hint_at_the_table_for_the_toy(tmp_path: Path) -> None:
    setup = TableSetup(game="toy", board="sim", players=("Ann", "Bob"),
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.04)
    with open_table(setup) as running:
        assert running.wait_ready(30), "the virtual board did not connect"
        d = BoardDriver(running)
        for site in "ad":  # X a, O d
            d.set(site, True)
        _wait(lambda: [m["notation"] for m in d.state()["moves"]] == ["a", "d"])
        d.set("b", True)  # X threatens c
        _wait(lambda: len(d.state()["moves"]) == 3)
        state = d.state()
        assert "hint" in state["controls"] and state["control_state"]["hint"]["enabled"]
        d.session.press("hint")
        _wait(lambda: d.state()["message"].startswith("Hint: "), timeout=60)
        assert "c" in d.state()["message"]  # O must block the row a b c


def test_the_review_of_a_toy_game_marks_the_move_that_lost(tmp_path: Path) -> None:
    # O's "d" lets X win at once with "c"; O had to block with "c" itself.
    actions = ("a", "e", "b", "d", "c")
    marks = review(registry.spec("toy"), {}, actions, ("Ann", "Bob"), level=3, seed=1,
                   iterations=300, top=3)
    assert marks and marks[0].number == 4 and marks[0].best == "c"
    db = tmp_path / "games.sqlite3"
    with Store.open(db) as store:
        gid = store.create_game("toy", {}, ["Ann", "Bob"])
        for action in actions:
            store.append(gid, "action", {"notation": action, "source": "board"})
        archive = StoreArchive(store)
        assert archive.games()[0]["reviewable"] is True
        result = archive.review(gid, level=3, budget_s=5.0, top=3)
    assert result["moves"] == len(actions) and result["marks"]


# --- the plain record format --------------------------------------------------------------


def test_the_plain_record_round_trips() -> None:
    spec = registry.spec("toy")
    engine = spec.new_game({"marks": "OX"}, None)
    for move in ("e", "a", "pass", "i"):
        engine.play(move)
    text = spec.records.export(engine, {"Players": "Ann, Bob"})
    assert text == '[Players "Ann, Bob"]\n[Option marks "OX"]\n\ne\na\npass\ni\n'
    headers, again = spec.records.parse(text)
    assert headers == {"Players": "Ann, Bob"}
    assert again.actions() == ("e", "a", "pass", "i") and again.record_options() == {"marks": "OX"}


@pytest.mark.parametrize("text, words", [
    ('[Option colour "red"]\na\n', "line 1: the toy game has no option 'colour'"),
    ('[Players Ann]\n', "line 1: '[Players Ann]' is not a header"),
    ('\n# a comment\na\na\n', "line 4: action 'a' cannot be played: 'a' is taken"),
])
def test_a_bad_record_names_its_line(text: str, words: str) -> None:
    with pytest.raises(RecordError) as info:
        registry.spec("toy").records.parse(text)
    assert words in str(info.value)
