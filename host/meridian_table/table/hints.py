"""Hints: the bot's suggested move for the person to move, lit on the board.

The ``hint`` control (a page button, or a board button of that name) asks the game's
bot (``bot:3`` in a worker process of its own, a second at most) for the move it would
play. The answer is kept for the position it was asked in, by the number of moves
played: any move or undo makes it stale, and a stale hint is never shown. Games
without a bot, and the ``tournament`` assist level, have no hint.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from meridian_table import bots
from meridian_table.bots.worker import WorkerPolicy
from meridian_table.games.contract import Engine, GameSpec, PolicyCancelled
from meridian_table.ledplan import PULSE, Light
from meridian_table.table.controls import HINT

LOGGER = logging.getLogger(__name__)

HINT_LEVEL = 3
HINT_BUDGET_S = 1.0
#: A slow cyan pulse: neither a piece to put on (white) nor one to lift (red).
HINT_LIGHT = Light(0x00B4C8, PULSE)


@dataclass(frozen=True)
class Hint:
    """The bot's suggestion at the position after ``ply`` moves."""

    ply: int
    action: str
    words: str
    sites: frozenset[str]


def available(spec: GameSpec | None, settings: Mapping[str, object]) -> bool:
    """True when the game has a bot and the assist level allows hints."""
    return spec is not None and bots.has_bot(spec) and settings.get("assist") != \
        "tournament"


Done = Callable[[int, str | None, str | None], None]


class Hinter:
    """One hint at a time, asked of the game's bot in its own worker process."""

    def __init__(self, spec: GameSpec, on_done: Done) -> None:
        self._spec = spec
        self._on_done = on_done
        self._worker: WorkerPolicy | None = None
        self._cancel: threading.Event | None = None
        self._lock = threading.Lock()
        self.asked: int | None = None  # the ply a hint is being computed for
        self.hint: Hint | None = None

    def ask(self, ply: int, engine: Engine) -> None:
        """Start the bot on ``engine`` (a copy of the position after ``ply`` moves)."""
        with self._lock:
            if self._cancel is not None:
                self._cancel.set()
            cancel = threading.Event()
            self._cancel = cancel
            if self._worker is None:
                self._worker = WorkerPolicy(self._spec.id, bots.description(HINT_LEVEL), 0)
            worker = self._worker
            self.asked = ply
        threading.Thread(target=self._run, args=(ply, worker, engine, cancel),
                         name="hint", daemon=True).start()

    def _run(self, ply: int, worker: WorkerPolicy, engine: Engine,
             cancel: threading.Event) -> None:
        try:
            action = worker.choose(engine, HINT_BUDGET_S, cancel)
        except PolicyCancelled:
            return
        except Exception as exc:  # shown to the player, never raised
            LOGGER.exception("the hint failed")
            self._on_done(ply, None, f"no hint: {exc}")
            return
        self._on_done(ply, action, None)

    def current(self, ply: int) -> Hint | None:
        """The hint for the position after ``ply`` moves, if there is one."""
        hint = self.hint
        return hint if hint is not None and hint.ply == ply else None

    def close(self) -> None:
        with self._lock:
            if self._cancel is not None:
                self._cancel.set()
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.close()


__all__ = ["HINT", "HINT_LIGHT", "Hint", "Hinter", "available"]
