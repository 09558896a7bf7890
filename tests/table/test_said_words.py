"""A move's words follow the page's language: words said in English at the table are
said again from the notation on a French page (a CI run showed "card" and "and" on a
French page replaying a Colovini game played while the table spoke English)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from meridian_table import i18n
from meridian_table.games.board import History
from meridian_table.games.registry import create_adapter
from meridian_table.store import events as ev
from meridian_table.table.logged import entry_of
from meridian_table.table.state import action_event


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    i18n.set_language("en")
    yield
    i18n.set_language("en")  # the language is the process's: leave it as found


def test_words_played_in_english_are_said_in_french_on_a_french_table() -> None:
    adapter = create_adapter("colovini", {"players": 2})
    history = History(adapter)
    action = next(iter(adapter.engine.legal()))
    applied = history.play(action)
    assert applied.words.startswith("card ") and applied.words_lang == "en"
    assert adapter.said_words(applied) == applied.words  # the same language: as played
    i18n.set_language("fr")
    french = adapter.said_words(applied)
    assert french == adapter.move_words(action) and french is not None
    assert french.startswith("carte ") and "card" not in french


def test_the_language_of_the_words_rides_in_the_logged_action() -> None:
    adapter = create_adapter("colovini", {"players": 2})
    applied = History(adapter).play(next(iter(adapter.engine.legal())))
    event = action_event(applied, "board")
    back = ev.Action.from_json(event.to_json())
    assert back.words_lang == "en"
    assert entry_of(back) == applied
    # An older log has no language for its words: the page says the move from its
    # notation in its own language.
    older = entry_of(ev.Action.from_json({k: v for k, v in event.to_json().items()
                                          if k != "words_lang"}))
    assert older.words_lang == ""
    i18n.set_language("fr")
    assert adapter.said_words(older) == adapter.move_words(applied.notation)
