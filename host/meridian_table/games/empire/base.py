"""Empire in Space's game state and seats: what the rules of a turn (``engine.py``), a
combat (``combat.py``) and the Scelrotia (``scelrotia.py``) share.

:class:`GameBase` holds the state, the seats' names, paying, losing a body, the outcome,
copies and what a seat may know, and the page's view; :class:`engine.Game` adds the
turn's rules. Its own module so that ``combat`` and ``scelrotia`` need not import the
engine that imports them.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from typing import Any, Self

from meridian_table.games.contract import Engine, Outcome
from meridian_table.games.empire.data_files import BoardMap, CardSet
from meridian_table.games.empire.rules import Reader
from meridian_table.games.empire.state import BodyState, State

LOGGER = logging.getLogger(__name__)

SCELROTIA = "Scelrotia"
COLOURS = ("red", "blue", "green", "yellow")
#: Infection mode: victory tokens at the start (shared by the players).
TOKENS = 4
WIN_WAYPOINTS = 4
EVENTS_PER_PLAYER = 2
EVENT_RENEW = 3
TOKEN_RENEW = 4


class IllegalActionError(ValueError):
    """An action the rules forbid now; the message names the action, why, and the rule."""

    def __init__(self, action: str, why: str, rule: str) -> None:
        super().__init__(f"{action!r}: {why} (rule: {rule})")
        self.action = action
        self.why = why
        self.rule = rule


class GameBase(Engine):
    """One game's state and seats (abstract: :class:`engine.Game` plays it)."""

    def __init__(self, board: BoardMap, cards: CardSet, players: Sequence[str], mode: str,
                 seed: int, options: dict[str, Any], state: State) -> None:
        self.board = board
        self.cards = cards
        self.players = tuple(players)  # the people; in infection modes the Scelrotia follows
        self.mode = mode
        self.seed = seed
        self.options = options
        self.state = state
        self.history: list[tuple[str, State]] = []
        self.read = Reader(board, cards, mode, len(self.players), state)

    # --- seats -------------------------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        """Every seat's name, the Scelrotia last in the infection modes."""
        return self.players + ((SCELROTIA,) if self.read.infection else ())

    @property
    def scelrotia(self) -> int | None:
        return self.read.scelrotia

    def seat_token(self, seat: int) -> str:
        return f"P{seat + 1}"

    @property
    def to_move(self) -> int | None:
        return self.turn().seat

    @property
    def phase(self) -> str:
        return self.turn().phase

    @property
    def round(self) -> int:
        return self.state.round

    @property
    def is_over(self) -> bool:
        return self.state.winners is not None

    @property
    def winner(self) -> int | None:
        winners = self.state.winners
        return winners[0] if winners and len(winners) == 1 else None

    def outcome(self) -> Outcome | None:
        state = self.state
        if state.winners is None:
            return None
        if self.read.infection:
            scores: tuple[int | float | None, ...] = tuple(
                [state.tokens] * len(self.players) + [None])
        else:
            scores = tuple(self.read.waypoints(s) for s in range(len(self.players)))
        return Outcome(state.winners, scores, state.reason)

    def clone(self) -> Self:
        twin = type(self)(self.board, self.cards, self.players, self.mode, self.seed,
                          dict(self.options), self.state.copy())
        twin.history = list(self.history)
        return twin

    def hidden_from(self, seat: int, rng: random.Random) -> Self:
        """A copy for ``seat`` to search on: face-down planets re-dealt among their
        ring's face-down areas, the decks and the other players' event hands
        reshuffled. The copy cannot undo past this point."""
        twin = self.clone()
        twin.history = []
        state = twin.state
        for ring in ("yellow", "white", "orange"):
            hidden = [b for b in state.bodies.values()
                      if not b.discovered and self.board.bodies[b.id].ring == ring]
            names = [b.card for b in hidden]
            rng.shuffle(names)
            for body, name in zip(hidden, names, strict=True):
                body.card = name
        rng.shuffle(state.waypoint_deck)
        pool = list(state.event_deck)
        sizes = []
        for other, info in enumerate(state.seats):
            if other != seat:
                pool.extend(info.hand)
                sizes.append((other, len(info.hand)))
        rng.shuffle(pool)
        for other, size in sizes:
            state.seats[other].hand = [pool.pop() for _ in range(size)]
        state.event_deck = pool
        return twin

    def _restore(self, state: State) -> None:
        self.state = state
        self.read.state = state

    # --- errors --------------------------------------------------------------------------

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        return self.names[seat]

    def fail(self, text: str, why: str, rule: str) -> IllegalActionError:
        return IllegalActionError(text, why, rule)

    # --- paying --------------------------------------------------------------------------

    def pay(self, seat: int, amount: int, text: str, what: str, rule: str,
            cells_only: bool = False) -> None:
        """Spend ``amount`` energy: unused cells first, then charges (docs: "Paying")."""
        info = self.state.seats[seat]
        fresh = info.cells - info.used
        have = fresh if cells_only else fresh + info.charges
        if amount > have:
            kind = "unused cells" if cells_only else "E"
            raise self.fail(text, f"{what} needs {amount}E, {self.name(seat)} has {have}"
                            f"{'' if kind == 'E' else ' '}{kind}", rule)
        from_cells = min(fresh, amount)
        info.used += from_cells
        info.charges -= amount - from_cells

    def may_settle(self, body: BodyState) -> bool:
        """``body`` may be settled in this mode (moons are not, in two-player mode)."""
        return not (self.mode == "two-player" and self.board.bodies[body.id].is_moon)

    def settle_body(self, seat: int, body: str, ship: str, text: str) -> None:
        """Settle ``body`` with a colony from ``ship`` at its cost (the engine's rules)."""
        raise NotImplementedError

    def lose_body(self, body: BodyState) -> None:
        """Losing a Planet: the owner discards the body's cells (face-down ones first)
        and gains as many charges; the body stays face up; its waypoints leave play."""
        owner = body.owner
        if owner is not None and self.read.is_human(owner):
            info = self.state.seats[owner]
            lost = min(info.cells, self.read.production(body))
            info.cells -= lost
            info.used -= min(info.used, lost)  # face-down cells go first
            info.charges += lost
        body.owner = None
        body.colonies = 0
        body.waypoints.clear()

    def standing(self, seat: int) -> tuple[int, ...]:
        """The final ranking key: waypoints, then remaining energy, then cells, then
        charges, then sectors of presence (docs: "Tie breaker")."""
        info = self.state.seats[seat]
        return (self.read.waypoints(seat), info.energy, info.cells, info.charges,
                len(self.read.presence(seat)))

    # --- what the page shows -------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """Everything the page shows, as JSON-ready data (face-down planets hidden)."""
        state = self.state
        read = self.read
        turn = self.turn()
        seats = []
        for seat, name in enumerate(self.names):
            if not read.is_human(seat):
                seats.append({"name": name, "colonies": read.colonies(seat)})
                continue
            info = state.seats[seat]
            seats.append({
                "name": name, "colour": COLOURS[seat], "cells": info.cells,
                "unused": info.cells - info.used, "charges": info.charges,
                "energy": info.energy, "colonies": read.colonies(seat),
                "waypoints": read.waypoints(seat), "presence": sorted(read.presence(seat)),
                "events": list(info.events), "hand": len(info.hand), "guild": info.guild,
            })
        bodies = {
            b.id: {"card": b.card if b.discovered else None, "discovered": b.discovered,
                   "owner": b.owner, "colonies": b.colonies, "waypoints": list(b.waypoints)}
            for b in state.bodies.values()
        }
        ships = {s.id: {"kind": s.kind, "quadrant": s.quadrant, "owner": s.owner,
                        "colonies": s.colonies, "waypoints": list(s.waypoints)}
                 for s in state.ships.values()}
        fight = state.combat
        return {
            "mode": self.mode, "round": state.round, "to_move": turn.seat, "phase": turn.phase,
            "final": state.final, "trigger": state.trigger, "seats": seats, "bodies": bodies,
            "ships": ships, "face_up_waypoint": state.face_up,
            "energy_equity": read.energy_equity(), "moon_equity": read.moon_equity(),
            "tokens": state.tokens if read.infection else None,
            "scelrotia_did": list(state.scelrotia_did) if read.infection else None,
            "combat": None if fight is None else {
                "attacker": fight.attacker, "defender": fight.defender, "target": fight.target,
                "attackers": list(fight.attackers), "defenders": list(fight.defenders),
                "stage": fight.stage, "strikes": fight.strikes, "counters": fight.counters},
            "outcome": None if state.winners is None else {
                "winners": list(state.winners), "reason": state.reason},
        }

    def __repr__(self) -> str:
        return (f"empire.new_game(players={list(self.players)!r}, mode={self.mode!r}, "
                f"seed={self.seed!r})")




__all__ = ["COLOURS", "SCELROTIA", "GameBase", "IllegalActionError"]
