"""Issue 26 item 1: an engine's reason is a message id plus arguments, said in the
table's language when shown. Kato's every rule error, the adapter's refusals and the
board-fix reasons built from them are French on a French table (and stay English in
logs, records and ``str()``); the page's error for a refused tap is French too."""

from __future__ import annotations

import pickle
from collections.abc import Iterator

import pytest
from tests.french import english_words
from tests.table.test_core import Bench

from meridian_table import i18n
from meridian_table.games import kato
from meridian_table.games.board import AdapterError
from meridian_table.games.kato.adapter import KatoAdapter
from meridian_table.table import commands
from meridian_table.table.steps import Sensed, Tick


@pytest.fixture
def french() -> Iterator[None]:
    i18n.set_language("fr")
    yield
    i18n.set_language("en")  # the language is the process's: leave it as found


def _refusals() -> list[i18n.WordsError]:
    """One of each kind of refusal the engine and the adapter give."""
    out: list[i18n.WordsError] = []

    def refused(game: kato.Game, move: str) -> None:
        with pytest.raises(i18n.WordsError) as caught:
            game.play(move)
        out.append(caught.value)

    game = kato.Game(5)
    refused(game, "")
    refused(game, "Z99")
    refused(game, "G6 maybe")
    refused(game, "pass")
    refused(game, "swap")
    refused(game, "G6 overlooked C3")
    game.play("G6")
    game.play("C3")
    refused(game, "G6")                   # occupied
    refused(game, "G7")                   # the second stone beside the first
    empty = [p for p in game.points if p not in game.stones("light") | game.stones("dark")]
    refused(game, next(p for p in empty if not game.is_legal(p) and p != "G7"))
    game.play(sorted(game.legal_moves())[0])
    game.play(sorted(game.legal_moves())[0])
    refused(game, next(p for p in empty if not game.is_legal(p)
                       and p not in game.stones("light") | game.stones("dark")))
    adapter = KatoAdapter(5, False, assist="full")
    for press in (lambda: adapter.button("confirm"), lambda: adapter.button("pass"),
                  lambda: adapter.button("swap"), lambda: adapter.button("jump"),
                  lambda: adapter.answer("colour", "red"), lambda: adapter.answer("pie", "x")):
        with pytest.raises(AdapterError) as caught:
            press()
        out.append(caught.value)
    return out


def test_every_refusal_is_english_in_str_and_french_when_said(french: None) -> None:
    refusals = _refusals()
    assert len(refusals) >= 12
    for exc in refusals:
        english, french_text = str(exc), i18n.said(exc)
        assert english != french_text, english
        assert english_words(english), english       # the log's words stay English
        assert english_words(french_text) == [], (english, french_text)
        back = pickle.loads(pickle.dumps(exc))        # through a bot worker's pipe
        assert isinstance(back, type(exc)) and i18n.said(back) == french_text


def test_the_second_stones_rule_is_said_in_french(french: None) -> None:
    game = kato.Game(5)
    game.play("G6")
    game.play("C3")
    with pytest.raises(kato.IllegalMoveError) as caught:
        game.play("G7")
    assert str(caught.value).startswith("illegal move 'G7': the second stone must have a path")
    assert i18n.said(caught.value).startswith(
        "coup interdit 'G7' : la deuxième pierre doit avoir un chemin vers la première (G6)")


def test_a_board_fix_reason_and_a_refused_tap_are_french(french: None) -> None:
    bench = Bench()
    bench.place("G6")
    bench.place("C3")
    bench.place("G7")  # Light's second stone beside its first: the board must be fixed
    assert bench.core.phase == "resync"
    message = bench.core.message
    assert "G7" in message and english_words(message) == [], message
    assert "deuxième pierre" in message
    # A press while the board waits to be fixed: refused, in French.
    bench.step(commands.Button("swap"))
    assert bench.core.error and english_words(bench.core.error) == [], bench.core.error
    bench.step(Sensed(bench.pos("G7"), False))
    bench.step(Tick(), 1.0)
    assert bench.core.phase == "play"
    bench.step(commands.Button("swap"))  # no pie choice in this game: the adapter refuses
    assert "échange" in bench.core.error and english_words(bench.core.error) == [], (
        bench.core.error)
    bench.step(commands.Button("undo"))
    bench.step(commands.Button("undo"))
    bench.step(commands.Button("undo"))  # nothing left to undo
    assert english_words(bench.core.error) == [], bench.core.error
