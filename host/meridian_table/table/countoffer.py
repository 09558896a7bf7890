"""An automaton seat answers an offer to end the game by the count, by itself.

When the players offer the count (Menu), every automaton seat answers on its own: a bot
(``bot:N``) analyses the position at its own level, in a thread, and agrees when the
count gives it at least what it expects from playing on (:func:`.ending.agrees`); a
``random`` seat has no opinion and agrees; any other automaton (a remote player) is
left to the person behind it. The answer comes back through ``on_answer(token, seat,
agrees, expected)`` (``random`` agrees at once); a newer offer (or a withdrawn one) makes an older answer stale, and
the caller drops it by its token.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from meridian_table import bots
from meridian_table.games.contract import Engine
from meridian_table.table.ending import agrees

LOGGER = logging.getLogger(__name__)

#: Seconds a bot thinks about an offered count.
ANSWER_BUDGET_S = 0.5

Answer = Callable[[int, str, bool, float | None], None]


def bot_level(description: str) -> tuple[int, int | None] | None:
    """The level and fixed search of a bot seat (``bot`` -> the default level,
    ``bot:4`` -> (4, None), ``bot:4:400`` -> (4, 400)); None for an automaton that is
    not a bot."""
    name, _, rest = description.partition(":")
    if name != bots.BOT:
        return None
    level, _, iterations = rest.partition(":")
    chosen = int(level) if level.isdigit() and int(level) in bots.LEVELS else bots.DEFAULT_LEVEL
    return chosen, int(iterations) if iterations.isdigit() else None


def expectation(game: str, engine: Engine, player: int, level: int, iterations: int | None,
                budget_s: float, cancel: threading.Event | None = None) -> float:
    """What ``game``'s bot at ``level`` expects for ``player`` (0 to 1) from playing on
    from ``engine`` (searched as is: pass a copy)."""
    verdict = bots.analyst(game, level, seed=0, iterations=iterations).analyse(
        engine, budget_s, cancel)
    values = verdict.seat_values
    return values[player] if 0 <= player < len(values) else 0.5


class CountAnswers:
    """The automata's answers to one offered count at a time."""

    def __init__(self, game: str, on_answer: Answer, budget_s: float = ANSWER_BUDGET_S) -> None:
        self._game = game
        self._on_answer = on_answer
        self._budget_s = budget_s
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self._token = 0
        self._threads: list[threading.Thread] = []

    @property
    def token(self) -> int:
        return self._token

    def offer(self, count: Mapping[str, Any], automata: Mapping[str, tuple[int, str]],
              engine: Engine) -> list[str]:
        """Ask every automaton in ``automata`` (seat -> (player index, description))
        about ``count`` in the position ``engine`` (a copy). Returns the seats that agree
        at once (they need no thought: ``random``); the bots answer later, through
        ``on_answer``, with this offer's :attr:`token`."""
        with self._lock:
            self._cancel.set()
            self._cancel = cancel = threading.Event()
            self._token += 1
            token = self._token
        at_once: list[str] = []
        for seat, (player, description) in automata.items():
            bot = bot_level(description)
            if bot is None:
                if description.partition(":")[0] == "random":
                    at_once.append(seat)
                continue
            thread = threading.Thread(
                target=self._think, args=(token, seat, player, bot, count, engine.clone(),
                                          cancel),
                name=f"count-{seat}", daemon=True)
            self._threads.append(thread)
            thread.start()
        return at_once

    def _think(self, token: int, seat: str, player: int, bot: tuple[int, int | None],
               count: Mapping[str, Any], engine: Engine, cancel: threading.Event) -> None:
        level, iterations = bot
        try:
            expected = expectation(self._game, engine, player, level, iterations,
                                   self._budget_s, cancel)
        except Exception:  # a failed analysis declines nothing: the people decide
            LOGGER.exception("the %s bot could not weigh the count", self._game)
            return
        if cancel.is_set():
            return
        LOGGER.info("%s (bot level %d) expects %.2f from playing on; count %r",
                    seat, level, expected, count.get("winner"))
        self._on_answer(token, seat, agrees(count, seat, expected), expected)

    def withdraw(self) -> None:
        """The offer is gone: answers still coming are dropped."""
        with self._lock:
            self._cancel.set()
            self._token += 1

    def close(self, timeout: float = 2.0) -> None:
        self.withdraw()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout)
        self._threads.clear()


__all__ = ["ANSWER_BUDGET_S", "CountAnswers", "bot_level", "expectation"]
