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
    """One hint at a time, asked of the game's bot in its own worker process.

    A single thread of its own talks to the worker, one request at a time, so the pipe
    to the worker never holds more than one position and nothing the page sends can
    fill it. :meth:`ask` never waits: a press while a hint for the same position is on
    its way (or already shown) is coalesced into it; a press for a new position replaces
    the one waiting and cancels the one being computed. 10,000 presses cost 10,000 cheap
    calls and at most two searches (tests/hardening/test_defect3_hint_burst.py).
    """

    def __init__(self, spec: GameSpec, on_done: Done) -> None:
        self._spec = spec
        self._on_done = on_done
        self._worker: WorkerPolicy | None = None
        self._cancel: threading.Event | None = None   # the search running now
        self._running: int | None = None              # its ply
        self._wanted: tuple[int, Engine] | None = None  # the next position to hint
        self._wake = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None
        self.asked: int | None = None  # the ply a hint is being computed for
        self.hint: Hint | None = None

    def ask(self, ply: int, engine: Callable[[], Engine]) -> Hint | None:
        """Ask for a hint at the position after ``ply`` moves; ``engine`` makes a copy of
        it (called only when a search is really needed). Returns the hint when it is
        already known for this position (nothing is asked again)."""
        known = self.current(ply)
        if known is not None:
            return known
        with self._wake:
            if self._closed:
                return None
            if self._running == ply or (self._wanted is not None and self._wanted[0] == ply):
                return None  # coalesced: the answer on its way is this position's
            if self._cancel is not None:
                self._cancel.set()  # a search for an older position: no longer wanted
            self._wanted = (ply, engine())
            self.asked = ply
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="hint", daemon=True)
                self._thread.start()
            self._wake.notify()
        return None

    def _loop(self) -> None:
        while True:
            with self._wake:
                while self._wanted is None and not self._closed:
                    self._wake.wait()
                wanted, self._wanted = self._wanted, None
                if self._closed or wanted is None:
                    return
                ply, engine = wanted
                cancel = threading.Event()
                self._cancel, self._running = cancel, ply
                if self._worker is None:
                    self._worker = WorkerPolicy(self._spec.id, bots.description(HINT_LEVEL), 0)
                worker = self._worker
            try:
                self._run(ply, worker, engine, cancel)
            finally:
                with self._wake:
                    self._cancel = self._running = None

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

    @property
    def pending(self) -> bool:
        """True while a hint is being looked for (headless ``wait`` waits for it)."""
        with self._wake:
            return self._running is not None or self._wanted is not None

    def warm(self) -> None:
        """Start the hint's worker now (someone watches the table): the first hint
        answers within its budget instead of waiting for the process to start."""
        with self._wake:
            if self._closed:
                return
            if self._worker is None:
                self._worker = WorkerPolicy(self._spec.id, bots.description(HINT_LEVEL), 0)
            worker = self._worker
        worker.warm()

    def current(self, ply: int) -> Hint | None:
        """The hint for the position after ``ply`` moves, if there is one."""
        hint = self.hint
        return hint if hint is not None and hint.ply == ply else None

    def close(self) -> None:
        """Cancel the search and end the worker process; never waits on the search."""
        with self._wake:
            self._closed = True
            if self._cancel is not None:
                self._cancel.set()
            self._wanted = None
            worker, self._worker = self._worker, None
            self._wake.notify_all()
        if worker is not None:
            worker.close()


def hint_sites(before: frozenset[str], after: frozenset[str]) -> frozenset[str]:
    """What a hint lights: where its move puts a piece, first. The pieces the move then
    takes off are not lit in the hint's colour (lifting one first would be refused as a
    piece still in play): once the piece is down, the table guides them off in the LED
    language's removal colour, as after any move. A move that puts nothing new down (a
    push, a pass) lights what it changes."""
    placed = after - before
    return placed if placed else before ^ after


__all__ = ["HINT", "HINT_LIGHT", "Hint", "Hinter", "available", "hint_sites"]
