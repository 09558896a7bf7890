"""What the position says, read-only: geometry, energy, costs, equities, presence.

The :class:`Reader` wraps a board, a card set and a :class:`State`; the engine, the combat
steps and the Scelrotia all ask it. Nothing here changes the state.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from meridian_table.games.empire.data_files import BoardMap, Card, CardSet
from meridian_table.games.empire.state import BodyState, Ship, State

#: The book's costs table (ENERGY - COSTS).
COSTS = {"move-fighter": 1, "move-frigate": 2, "colony-planet": 1, "colony-ship": 2,
         "charge": 2, "fighter": 4, "frigate": 6, "waypoint": 4, "strike": 1}
SHIP_CAPACITY = {"fighter": 2, "frigate": 3}
MOVE_RANGE = 2
MODES = ("standard", "two-player", "infection-solo", "infection-coop")


@dataclass
class Mods:
    """The sum of a seat's abilities in play (planets, waypoints, guild, events)."""

    cost: dict[str, int] = field(default_factory=dict)
    move: int = 0
    strikes: int = 0
    shields: int = 0
    counters: int = 0


class Reader:
    def __init__(self, board: BoardMap, cards: CardSet, mode: str, humans: int,
                 state: State) -> None:
        self.board = board
        self.cards = cards
        self.mode = mode
        self.humans = humans  # seats 0..humans-1 are people; the Scelrotia is seat ``humans``
        self.state = state

    # --- seats -------------------------------------------------------------------------

    @property
    def scelrotia(self) -> int | None:
        return self.humans if self.mode.startswith("infection") else None

    @property
    def infection(self) -> bool:
        return self.mode.startswith("infection")

    def is_human(self, seat: int | None) -> bool:
        return seat is not None and 0 <= seat < self.humans

    # --- holders -----------------------------------------------------------------------

    def holder(self, hid: str) -> Ship | BodyState | None:
        return self.state.ships.get(hid) or self.state.bodies.get(hid)

    def body_card(self, body: BodyState) -> Card:
        return self.cards.card(body.card)

    def production(self, body: BodyState) -> int:
        card = self.body_card(body)
        return max(0, card.production + sum(e.change for e in card.ability
                                             if e.kind == "production"))

    def body_capacity(self, body: BodyState) -> int:
        card = self.body_card(body)
        return max(1, card.capacity + sum(e.change for e in card.ability if e.kind == "capacity"))

    def capacity(self, holder: Ship | BodyState) -> int:
        if isinstance(holder, Ship):
            return SHIP_CAPACITY[holder.kind]
        return self.body_capacity(holder)

    def sectors(self, holder: Ship | BodyState) -> tuple[int, ...]:
        if isinstance(holder, Ship):
            return (self.board.quadrants[holder.quadrant].sector,)
        return self.board.bodies[holder.id].borders

    def together(self, a: Ship | BodyState, b: Ship | BodyState) -> bool:
        """In the same quadrant: two ships there, or a ship in a body's orbit."""
        if isinstance(a, Ship) and isinstance(b, Ship):
            return a.quadrant == b.quadrant
        if isinstance(a, Ship) and isinstance(b, BodyState):
            return a.quadrant in self.board.bodies[b.id].orbit
        if isinstance(a, BodyState) and isinstance(b, Ship):
            return b.quadrant in self.board.bodies[a.id].orbit
        return False

    def waypoint_limit(self, holder: Ship | BodyState) -> int:
        limit = 1
        for card in filter(None, holder.waypoints):
            for effect in self.cards.card(card).ability:
                if effect.kind == "waypoints":
                    limit = max(limit, effect.change)
        return limit

    # --- the board ---------------------------------------------------------------------

    def ships_at(self, quadrant: str) -> int:
        return sum(1 for s in self.state.ships.values() if s.quadrant == quadrant)

    def occupancy(self) -> dict[str, int]:
        count: dict[str, int] = dict.fromkeys(self.board.quadrants, 0)
        for ship in self.state.ships.values():
            count[ship.quadrant] += 1
        return count

    def reachable(self, ship: Ship, steps: int, occupancy: dict[str, int],
                  banned: set[int], start: str | None = None) -> dict[str, int]:
        """Quadrants ``ship`` can reach in 1..``steps`` steps, each quadrant on the way
        having room for it (the book: "even just passing through"), never entering a
        sector in ``banned``; value: steps taken. ``start``: from there rather than from
        the ship's quadrant (the second payment of ``reach.reach``)."""
        quads = self.board.quadrants
        origin = ship.quadrant if start is None else start
        seen = {origin: 0}
        queue = deque([origin])
        while queue:
            here = queue.popleft()
            if seen[here] == steps:
                continue
            for nxt in quads[here].adjacent:
                if nxt in seen or occupancy[nxt] >= quads[nxt].capacity:
                    continue
                if quads[nxt].sector in banned:
                    continue
                seen[nxt] = seen[here] + 1
                queue.append(nxt)
        del seen[origin]
        return seen

    # --- supplies and abilities --------------------------------------------------------

    def mods(self, seat: int) -> Mods:
        mods = Mods()
        cards: list[Card] = []
        for body in self.state.bodies.values():
            if body.owner == seat:
                cards.append(self.body_card(body))
                cards.extend(self.cards.card(w) for w in body.waypoints if w)
        for ship in self.state.ships.values():
            if ship.owner == seat:
                cards.extend(self.cards.card(w) for w in ship.waypoints if w)
        if seat < len(self.state.seats):
            info = self.state.seats[seat]
            if info.guild:
                cards.append(self.cards.guilds[info.guild])
            cards.extend(self.cards.events[e] for e in info.events)
        for card in cards:
            for effect in card.ability:
                if effect.kind == "cost":
                    mods.cost[effect.action] = mods.cost.get(effect.action, 0) + effect.change
                elif effect.kind == "move":
                    mods.move += effect.change
                elif effect.kind == "strikes":
                    mods.strikes += effect.change
                elif effect.kind == "shields":
                    mods.shields += effect.change
                elif effect.kind == "counters":
                    mods.counters += effect.change
        return mods

    def cost(self, seat: int, action: str, base: int | None = None, mods: Mods | None = None) -> int:
        """The price of ``action`` for ``seat``: the table's, changed by abilities, never
        below 1E (docs: "Effect vocabulary")."""
        price = COSTS[action] if base is None else base
        mods = self.mods(seat) if mods is None else mods
        return max(1, price + mods.cost.get(action, 0)) if price > 0 else 0

    def settle_cost(self, seat: int, body: BodyState, mods: Mods | None = None) -> int:
        price = self.body_card(body).cost
        if self.energy_equity() == seat:
            price -= 1
        return self.cost(seat, "settle", max(0, price), mods) if price > 0 else 0

    def charge_cost(self, seat: int, mods: Mods | None = None) -> int:
        price = COSTS["charge"] - (1 if self.energy_equity() == seat else 0)
        return self.cost(seat, "charge", price, mods)

    def energy_equity(self) -> int | None:
        """The seat with strictly the fewest cells (none in two-player, solo, or a tie)."""
        if self.mode == "two-player" or self.humans < 2:
            return None
        cells = [self.state.seats[s].cells for s in range(self.humans)]
        low = min(cells)
        return cells.index(low) if cells.count(low) == 1 else None

    def moon_equity(self) -> int | None:
        """The seat with strictly the most moons (at least one)."""
        counts = [0] * (self.humans + 1)
        for body in self.state.bodies.values():
            if body.owner is not None and self.is_human(body.owner) and \
                    self.board.bodies[body.id].is_moon:
                counts[body.owner] += 1
        high = max(counts)
        return counts.index(high) if high > 0 and counts.count(high) == 1 else None

    # --- standings ---------------------------------------------------------------------

    def colonies(self, seat: int) -> int:
        return (sum(b.colonies for b in self.state.bodies.values() if b.owner == seat)
                + sum(s.colonies for s in self.state.ships.values() if s.owner == seat))

    def waypoints(self, seat: int) -> int:
        return (sum(len(b.waypoints) for b in self.state.bodies.values() if b.owner == seat)
                + sum(len(s.waypoints) for s in self.state.ships.values() if s.owner == seat))

    def waypoint_sectors(self, seat: int, skip: str | None = None) -> set[int]:
        """Sectors holding a waypoint of ``seat`` (on holders other than ``skip``)."""
        out: set[int] = set()
        holders: list[Ship | BodyState] = [*self.state.bodies.values(), *self.state.ships.values()]
        for holder in holders:
            if holder.owner == seat and holder.waypoints and holder.id != skip:
                out.update(self.sectors(holder))
        return out

    def presence(self, seat: int) -> set[int]:
        """Sectors where ``seat`` has presence: each sector a settled planet or moon
        borders, and the sector of each frigate (docs: "Presence")."""
        out: set[int] = set()
        for body in self.state.bodies.values():
            if body.owner == seat:
                out.update(self.board.bodies[body.id].borders)
        for ship in self.state.ships.values():
            if ship.owner == seat and ship.kind == "frigate":
                out.add(self.board.quadrants[ship.quadrant].sector)
        return out


__all__ = ["COSTS", "MODES", "MOVE_RANGE", "SHIP_CAPACITY", "Mods", "Reader"]
