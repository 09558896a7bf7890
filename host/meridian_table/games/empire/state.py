"""The mutable position of an Empire in Space game, with exact copies for undo.

Plain slotted dataclasses: equality compares every field, so ``undo`` restoring the
state exactly is a plain ``==`` in the tests. ``copy()`` is written out by hand (it is
called once per action, and ``copy.deepcopy`` is ten times slower).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Ship:
    """A starship: ``owner`` None means abandoned (no colonies aboard)."""

    id: str
    kind: str  # fighter or frigate
    quadrant: str
    owner: int | None
    colonies: int
    waypoints: list[str] = field(default_factory=list)

    def copy(self) -> Ship:
        return Ship(self.id, self.kind, self.quadrant, self.owner, self.colonies,
                    list(self.waypoints))


@dataclass(slots=True)
class BodyState:
    """A planet area or moon: its card, face up or down, owner and colonies."""

    id: str
    card: str
    discovered: bool
    owner: int | None = None
    colonies: int = 0
    waypoints: list[str] = field(default_factory=list)

    def copy(self) -> BodyState:
        return BodyState(self.id, self.card, self.discovered, self.owner, self.colonies,
                         list(self.waypoints))


@dataclass(slots=True)
class Seat:
    """One seat's supplies: cells owned and face down (used), charges, event cards."""

    cells: int = 3
    used: int = 0
    charges: int = 2
    hand: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)  # events in play until its next turn
    guild: str | None = None
    discovered: bool = False  # discovered a planet this turn
    inner_settled: bool = False  # has ever settled an inner planet (infection modes)

    @property
    def energy(self) -> int:
        return self.cells - self.used + self.charges

    def copy(self) -> Seat:
        return Seat(self.cells, self.used, self.charges, list(self.hand), list(self.events),
                    self.guild, self.discovered, self.inner_settled)


@dataclass(slots=True)
class Combat:
    """One encounter in progress (docs/games/empire.md, "Combat")."""

    attacker: int
    defender: int
    target: str
    attackers: list[str]
    defenders: list[str] = field(default_factory=list)
    #: lend, defend, strike, damage, counter, attacker-damage, steal
    stage: str = "defend"
    #: lenders still to answer: (seat, "attack" or "defend")
    asking: list[tuple[int, str]] = field(default_factory=list)
    strikes: int = 0
    counters: int = 0
    #: waypoints whose holder was emptied: (card, stealer, holder id, encounter ships)
    steals: list[tuple[str, int, str]] = field(default_factory=list)
    #: The damage chosen so far at a damage step, one unit at a time (the running total):
    #: (unit, colonies lost, shields paid, self-destructs). Applied once complete.
    split: list[tuple[str, int, int, bool]] = field(default_factory=list)

    def copy(self) -> Combat:
        return Combat(self.attacker, self.defender, self.target, list(self.attackers),
                      list(self.defenders), self.stage, list(self.asking), self.strikes,
                      self.counters, list(self.steals), list(self.split))


@dataclass(slots=True)
class State:
    round: int
    order: list[int]           # this round's turn order (seats)
    position: int              # index in ``order`` of the seat whose turn it is
    seats: list[Seat]
    bodies: dict[str, BodyState]
    ships: dict[str, Ship]
    next_ship: int
    waypoint_deck: list[str]
    face_up: str | None        # the waypoint card in the middle
    event_deck: list[str]
    trigger: str = ""          # why the final round was triggered ("" while not)
    final: bool = False        # the final round is being played
    combat: Combat | None = None
    tokens: int = 0            # infection mode: victory tokens kept (shared)
    skip_scelrotia: bool = False
    winners: tuple[int, ...] | None = None  # set when the game is over
    reason: str = ""
    #: What the Scelrotia did in its last turn, in words (for the page and the table).
    scelrotia_did: tuple[str, ...] = ()

    @property
    def active(self) -> int:
        return self.order[self.position]

    def copy(self) -> State:
        return State(
            self.round, list(self.order), self.position, [s.copy() for s in self.seats],
            {k: b.copy() for k, b in self.bodies.items()},
            {k: s.copy() for k, s in self.ships.items()},
            self.next_ship, list(self.waypoint_deck), self.face_up, list(self.event_deck),
            self.trigger, self.final, None if self.combat is None else self.combat.copy(),
            self.tokens, self.skip_scelrotia, self.winners, self.reason, self.scelrotia_did,
        )


__all__ = ["BodyState", "Combat", "Seat", "Ship", "State"]
