"""Automaton seats: which players are automata, the one thinking now, and the move the
people carry out for it (the execute phase, docs/TABLE.md).

An automaton is a :class:`~meridian_table.games.contract.Policy` from the game's spec
(``random``, ``bot:4``). It chooses on a copy of the engine in a thread of its own, so
the table, the LEDs and the page stay responsive; a newer request (an undo, a new game,
a quit) cancels it. Its choice becomes an :class:`Execution`: the occupancy the board
must reach, which the table guides one square at a time before the move is applied.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from meridian_table import bots
from meridian_table.bots.worker import WorkerPolicy
from meridian_table.games.board import Mistake
from meridian_table.games.contract import (
    Engine,
    GameSpec,
    Policy,
    PolicyCancelled,
    PolicyFactory,
)
from meridian_table.i18n import N_, _

LOGGER = logging.getLogger(__name__)

PERSON = "person"


@dataclass(frozen=True)
class Execution:
    """An automaton's chosen action, waiting for the people to carry it out."""

    action: str
    player: int            # the player's index in the logged players list
    seat: str              # the seat (colour) that plays it
    automaton: str         # the automaton's description ("random", "bot:4")
    before: frozenset[str]  # the occupancy the action starts from
    after: frozenset[str]   # the occupancy once it is carried out
    words: str             # the action in words

    def guidance(self, settled: frozenset[str]) -> tuple[Mistake, ...]:
        """What still differs from ``after``, in order: the pieces the move takes off,
        any piece standing where none belongs (a piece put on the wrong site), then the
        pieces the move puts on."""
        lift_moved = sorted((self.before - self.after) & settled)
        stray = sorted(settled - self.after - set(lift_moved))
        place = sorted(self.after - settled)
        return (
            tuple(Mistake(s, "remove", _("the computer's move takes this piece off"))
                  for s in lift_moved)
            + tuple(Mistake(s, "remove", _("no piece belongs here: lift it")) for s in stray)
            + tuple(Mistake(s, "put_back", _("the computer's move puts a piece here"))
                    for s in place)
        )

    def to_json(self) -> dict[str, object]:
        return {"notation": self.action, "player": self.seat, "automaton": self.automaton,
                "words": self.words, "after": sorted(self.after)}


#: The bot's levels in words, for the catalogue (bots.LEVEL_WORDS names them in English).
_LEVEL_NAMES = {1: N_("beginner"), 2: N_("easy"), 3: N_("medium"), 4: N_("strong"),
                5: N_("strongest")}


#: The games' piece words (their specs' ``page.piece_word``), for the catalogue: the table
#: says "take the stone off G6" in the table's language.
PIECE_WORDS = (N_("stone"), N_("tower"), N_("piece"))


def automaton_words(description: str) -> str:
    """An automaton's description in words for players: ``bot:5`` -> "Computer — level 5
    (strongest)", ``random`` -> "random player"; any other as it is named."""
    name, _sep, rest = description.partition(":")
    if name == bots.BOT:
        level = rest.partition(":")[0]
        number = int(level) if level.isdigit() and int(level) in bots.LEVELS \
            else bots.DEFAULT_LEVEL
        return _("Computer — level {n} ({name})").format(n=number, name=_(_LEVEL_NAMES[number]))
    if name == "random":
        return _("random player")
    return description


def parse_seats(raw: object) -> dict[int, str]:
    """The logged ``seats`` setting (``{"2": "random"}``, player numbers from 1) as
    ``{player index: description}``; anything malformed is ignored with a warning."""
    out: dict[int, str] = {}
    if not isinstance(raw, Mapping):
        return out
    for key, value in raw.items():
        if str(key).isascii() and str(key).isdigit() and isinstance(value, str) and value and value != PERSON:
            out[int(str(key)) - 1] = value
        else:
            LOGGER.warning("ignoring seat setting %r=%r", key, value)
    return out


class Seats:
    """Which players are automata, with their policies (built from the game's spec)."""

    def __init__(self, spec: GameSpec | None, described: Mapping[int, str], seed: int | None,
                 platform: Mapping[str, PolicyFactory] | None = None) -> None:
        self._spec = spec
        self._seed = seed
        # Automata the platform brings for any game (the club's "remote" player).
        self._platform = dict(platform or {})
        self._described: dict[int, str] = {}
        self._policies: dict[int, Policy] = {}
        for player, description in described.items():
            self.set(player, description)

    def set(self, player: int, description: str | None) -> None:
        """Give ``player`` to an automaton (``description``), or back to a person (None).
        A bot (``bot:N``) thinks in a worker process; the one it replaces is closed."""
        if description is None or description == PERSON:
            self._described.pop(player, None)
            _close(self._policies.pop(player, None))
            return
        seed = None if self._seed is None else self._seed + player
        name, _, argument = description.partition(":")
        if name in self._platform:
            policy = self._platform[name](seed, argument or None)
        elif self._spec is None:
            raise ValueError("this game has no automata")
        else:
            policy = self._spec.policy(description, seed)  # refuses a bad description now
            if name == bots.BOT:
                worker = WorkerPolicy(self._spec.id, description, seed)
                worker.warm()  # its first move must not wait for the process to start
                policy = worker
        _close(self._policies.pop(player, None))
        self._policies[player] = policy
        self._described[player] = description

    def close(self) -> None:
        """Close every automaton's resources (a bot's worker process)."""
        for policy in self._policies.values():
            _close(policy)

    def policy(self, player: int | None) -> Policy | None:
        return None if player is None else self._policies.get(player)

    def kind(self, player: int) -> str:
        """``person`` or the automaton's description."""
        return self._described.get(player, PERSON)

    def described(self) -> dict[int, str]:
        return dict(self._described)

    def to_setting(self) -> dict[str, str]:
        """The ``seats`` setting as logged: player numbers from 1."""
        return {str(p + 1): d for p, d in sorted(self._described.items())}

    def __bool__(self) -> bool:
        return bool(self._described)


@runtime_checkable
class Closeable(Protocol):
    """A policy holding resources (a worker process)."""

    def close(self) -> None: ...


def _close(policy: Policy | None) -> None:
    if isinstance(policy, Closeable):
        policy.close()


Done = Callable[[int, str | None, str | None], None]


class Thinker:
    """One automaton thinking at a time, in a thread of its own.

    ``on_done(token, action, error)`` is called from that thread with the request's
    token; a cancelled request reports nothing. The caller compares the token with its
    own to drop an answer that came too late.
    """

    def __init__(self, on_done: Done, clock: Callable[[], float] = time.monotonic) -> None:
        self._on_done = on_done
        self._clock = clock
        self._lock = threading.Lock()
        self._cancel: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self._token = 0
        self._started: float | None = None
        self.player: int | None = None

    def think(self, player: int, policy: Policy, engine: Engine, budget_s: float) -> int:
        """Start ``policy`` on ``engine`` (a copy) for ``player``; returns the token."""
        with self._lock:
            self._cancel_locked()
            self._token += 1
            token = self._token
            cancel = threading.Event()
            self._cancel = cancel
            self._started = self._clock()
            self.player = player
            thread = threading.Thread(target=self._run, args=(token, policy, engine, budget_s,
                                                              cancel),
                                      name=f"automaton-{policy.name}", daemon=True)
            self._thread = thread
        thread.start()
        return token

    def _run(self, token: int, policy: Policy, engine: Engine, budget_s: float,
             cancel: threading.Event) -> None:
        try:
            action = policy.choose(engine, budget_s, cancel)
        except PolicyCancelled:
            return
        except Exception as exc:  # an automaton's failure is shown, never raised
            LOGGER.exception("automaton %s failed", policy.name)
            if not cancel.is_set():
                self._finish(token)
                self._on_done(token, None, f"the {policy.name} player failed: {exc}")
            return
        if cancel.is_set():
            return
        self._finish(token)
        self._on_done(token, action, None)

    def _finish(self, token: int) -> None:
        with self._lock:
            if token == self._token:
                self._started = None
                self.player = None
                self._cancel = None

    @property
    def token(self) -> int:
        return self._token

    @property
    def thinking(self) -> bool:
        return self._started is not None

    def elapsed(self) -> float | None:
        """Seconds since the current request started, None when nobody thinks."""
        started = self._started
        return None if started is None else self._clock() - started

    def cancel(self) -> None:
        """Cancel the current request (its answer, if it still comes, is dropped)."""
        with self._lock:
            self._cancel_locked()

    def _cancel_locked(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
        self._cancel = None
        self._started = None
        self.player = None
        self._token += 1

    def close(self, timeout: float = 2.0) -> None:
        self.cancel()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)


__all__ = ["PERSON", "Execution", "Seats", "Thinker", "automaton_words", "parse_seats"]
