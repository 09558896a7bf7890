"""The rules engine of Rowitt's *Meridian: Empire in Space* (docs/games/empire.md).

Pure: a :class:`Game` takes actions in notation (``notation.py``) and changes its state;
it never touches a file, a port or a clock. Every decision on an ambiguity of the rule
book is listed, with the quotes, in docs/games/empire.md, and each has its own test.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from typing import Any

from meridian_table.games.contract import Turn
from meridian_table.games.empire import combat, scelrotia
from meridian_table.games.empire import reach as reaching
from meridian_table.games.empire.base import (
    COLOURS,
    EVENT_RENEW,
    EVENTS_PER_PLAYER,
    SCELROTIA,
    TOKEN_RENEW,
    TOKENS,
    WIN_WAYPOINTS,
    GameBase,
    IllegalActionError,
)
from meridian_table.games.empire.data_files import BoardMap, CardSet
from meridian_table.games.empire.notation import Action, NotationError, parse
from meridian_table.games.empire.rules import MODES, MOVE_RANGE, SHIP_CAPACITY
from meridian_table.games.empire.state import BodyState, Seat, Ship, State

LOGGER = logging.getLogger(__name__)

class Game(GameBase):
    """One game of Empire in Space. Build it with :func:`new_game`: the rules of a turn
    (legal actions, applying them, the end) over :class:`GameBase`'s state and seats."""

    # --- the contract --------------------------------------------------------------------

    # --- the contract --------------------------------------------------------------------

    def turn(self) -> Turn:
        state = self.state
        if state.winners is not None:
            return Turn(None, "ended")
        fight = state.combat
        if fight is not None:
            return Turn(combat.acting_seat(fight), fight.stage)
        if state.active == self.scelrotia:
            return Turn(state.active, "scelrotia")
        return Turn(state.active, "final" if state.final else "play")

    def legal(self) -> tuple[str, ...]:
        state = self.state
        if state.winners is not None:
            return ()
        if state.combat is not None:
            return combat.legal(self)
        if state.active == self.scelrotia:
            return ("scelrotia",)
        return tuple(self._legal_play(state.active))

    legal_actions = legal

    def is_legal(self, action: str) -> bool:
        probe = self.clone()
        try:
            probe.play(action)
        except ValueError:
            return False
        return True

    def play(self, action: str | Action) -> str:
        """Apply ``action``; returns its canonical notation. NotationError for text that
        is no action, IllegalActionError (naming the rule) for a forbidden one."""
        parsed = action if isinstance(action, Action) else parse(action)
        text = parsed.notation()
        if self.state.winners is not None:
            raise IllegalActionError(text, "the game is over", "Winning the Game")
        before = self.state.copy()
        try:
            self._apply(parsed, text)
            self._check_end()
        except Exception:
            self._restore(before)
            raise
        self.history.append((text, before))
        return text

    apply = play

    def undo(self) -> str:
        if not self.history:
            raise IndexError("nothing to undo: no action has been played")
        text, before = self.history.pop()
        self._restore(before)
        return text

    # --- legal actions of a turn ---------------------------------------------------------

    def _legal_play(self, seat: int) -> list[str]:
        read = self.read
        state = self.state
        info = state.seats[seat]
        mods = read.mods(seat)
        energy = info.energy
        out = ["end"]
        if info.cells - info.used >= read.charge_cost(seat, mods):
            out.append("charge")
        ships = [s for s in state.ships.values() if s.owner == seat]
        occupancy = read.occupancy()
        moon_eq = read.moon_equity() == seat
        for body in state.bodies.values():
            spec = self.board.bodies[body.id]
            orbiting = [s for s in ships if s.quadrant in spec.orbit and s.colonies > 0]
            if body.owner is None:
                if orbiting and not body.discovered and not info.discovered:
                    out.append(f"discover {body.id}")
                if orbiting and self._may_settle(body) and energy >= read.settle_cost(seat, body, mods):
                    out.extend(f"settle {body.id} {s.id}" for s in orbiting)
            elif body.owner == seat:
                if body.colonies < read.body_capacity(body) and (not spec.is_moon or moon_eq) \
                        and energy >= read.cost(seat, "colony-planet", mods=mods):
                    out.append(f"colony {body.id}")
                if not spec.is_moon or moon_eq:
                    per_colony = read.cost(seat, "colony-planet", mods=mods)
                    for kind in ("fighter", "frigate"):
                        price = read.cost(seat, kind, mods=mods)
                        if energy < price:
                            continue
                        # Around a moon (Moon Equity) the colonies are created, 1E each.
                        most = (min(SHIP_CAPACITY[kind], (energy - price) // per_colony)
                                if spec.is_moon else min(body.colonies, SHIP_CAPACITY[kind]))
                        for quad in spec.orbit:
                            if occupancy[quad] >= self.board.quadrants[quad].capacity:
                                continue
                            for n in range(1, most + 1):
                                out.append(f"build {kind} {body.id} {quad} {n}")
                out.extend(self._legal_waypoint(seat, body, energy, mods))
        for ship in ships:
            if ship.colonies == 0:
                continue
            if ship.colonies < SHIP_CAPACITY[ship.kind] and \
                    energy >= read.cost(seat, "colony-ship", mods=mods):
                out.append(f"colony {ship.id}")
            out.extend(f"move {ship.id} {quad}"
                       for quad in reaching.move_reach(self, seat, ship, energy, mods, occupancy))
            out.extend(self._legal_waypoint(seat, ship, energy, mods))
        out.extend(self._legal_transfers(seat))
        out.extend(combat.legal_attacks(self, seat, mods))
        for other in range(len(self.players)):
            if other != seat:
                out.extend(f"give {self.seat_token(seat)} {self.seat_token(other)} {n}"
                           for n in range(1, info.charges + 1))
        for card in info.hand:
            out.append(f"event {card}")
            out.append(f"discard {card}")
        if read.infection and state.tokens > 0:
            if not state.skip_scelrotia:
                out.append("token skip")
            out.append("token renew")
        return out

    def settle_body(self, seat: int, body: str, ship: str, text: str) -> None:
        """Settle ``body`` with a colony from ``ship`` at its cost (a stolen waypoint's
        planet taken over, combat.py), by the rules of an ordinary settle."""
        self._settle(seat, Action("settle", (body, ship)), text)

    def _may_settle(self, body: BodyState) -> bool:
        return self.may_settle(body)

    def _legal_waypoint(self, seat: int, holder: Ship | BodyState, energy: int,
                        mods: Any) -> list[str]:
        read = self.read
        if holder.colonies == 0 or len(holder.waypoints) >= read.waypoint_limit(holder):
            return []
        if energy < read.cost(seat, "waypoint", mods=mods):
            return []
        if set(read.sectors(holder)) & read.waypoint_sectors(seat, holder.id):
            return []
        return [f"waypoint {holder.id}"]

    def _legal_transfers(self, seat: int) -> list[str]:
        state = self.state
        read = self.read
        out: list[str] = []
        holders: list[Ship | BodyState] = [*state.bodies.values(), *state.ships.values()]
        own = [h for h in holders if h.owner == seat and h.colonies > 0]
        targets = own + [s for s in state.ships.values() if s.owner is None and not (
            s.waypoints and set(read.sectors(s)) & read.waypoint_sectors(seat, s.id))]
        for src in own:
            for dst in targets:
                if dst is src or not read.together(src, dst):
                    continue
                room = read.capacity(dst) - dst.colonies
                if isinstance(dst, BodyState) and self.board.bodies[dst.id].is_moon and \
                        read.moon_equity() != seat:
                    room = 0
                for n in range(1, min(src.colonies, room) + 1):
                    out.append(f"transfer {src.id} {dst.id} {n}")
        return out

    # --- applying ------------------------------------------------------------------------

    def _apply(self, action: Action, text: str) -> None:
        verb = action.verb
        state = self.state
        if verb == "time":
            self._call_time(text)
            return
        if verb == "give":
            self._give(action, text)
            return
        fight = state.combat
        if fight is not None:
            combat.apply(self, action, text)
            return
        seat = state.active
        if seat == self.scelrotia:
            if verb != "scelrotia":
                raise self.fail(text, "it is the Scelrotia's turn; play 'scelrotia'",
                                "Infection Mode")
            state.scelrotia_did = tuple(scelrotia.take_turn(self))
            self._next_turn()
            return
        if verb == "scelrotia":
            raise self.fail(text, f"it is {self.name(seat)}'s turn, not the Scelrotia's",
                            "Infection Mode")
        handler = _HANDLERS.get(verb)
        if handler is None:
            raise self.fail(text, f"{verb!r} is only played during combat",
                            "Starships - Combat")
        handler(self, seat, action, text)

    def _call_time(self, text: str) -> None:
        state = self.state
        if self.read.infection:
            self._finish((self.scelrotia,) if self.scelrotia is not None else (),
                         "the table called time before the players held the four inner planets")
            return
        if state.final or state.trigger:
            raise self.fail(text, "the final round is already triggered", "Winning the Game")
        state.trigger = "the table called time"

    def _give(self, action: Action, text: str) -> None:
        giver = int(action.args[0][1:]) - 1
        taker = int(action.args[1][1:]) - 1
        count = int(action.args[2])
        for seat in (giver, taker):
            if not self.read.is_human(seat):
                raise self.fail(text, f"P{seat + 1} is not a player's seat",
                                "Energy - Charges")
        if giver == taker:
            raise self.fail(text, "a player cannot give charges to themself", "Energy - Charges")
        info = self.state.seats[giver]
        if info.charges < count:
            raise self.fail(text, f"{self.name(giver)} has {info.charges} charges, not {count}",
                            "Energy - Charges")
        info.charges -= count
        self.state.seats[taker].charges += count

    def _owned_ship(self, seat: int, sid: str, text: str, rule: str) -> Ship:
        ship = self.state.ships.get(sid)
        if ship is None:
            raise self.fail(text, f"there is no ship {sid}", rule)
        if ship.owner != seat:
            owner = "abandoned" if ship.owner is None else f"{self.name(ship.owner)}'s"
            raise self.fail(text, f"{sid} is {owner}, not {self.name(seat)}'s", rule)
        if ship.colonies == 0:
            raise self.fail(text, f"{sid} has no colonies aboard", "Abandoned Ships")
        return ship

    def _body(self, bid: str, text: str, rule: str) -> BodyState:
        body = self.state.bodies.get(bid)
        if body is None:
            raise self.fail(text, f"this map has no body {bid}", rule)
        return body

    def _end(self, seat: int, action: Action, text: str) -> None:
        self._next_turn()

    def _charge(self, seat: int, action: Action, text: str) -> None:
        price = self.read.charge_cost(seat)
        self.pay(seat, price, text, "a charge", "Energy - Charges (made by spending Cells)",
                 cells_only=True)
        self.state.seats[seat].charges += 1

    def _discover(self, seat: int, action: Action, text: str) -> None:
        rule = "Discovering Planets"
        body = self._body(action.args[0], text, rule)
        info = self.state.seats[seat]
        if body.discovered:
            raise self.fail(text, f"{body.id} is already face up ({body.card})", rule)
        if info.discovered:
            raise self.fail(text, f"{self.name(seat)} has already discovered a planet this turn",
                            rule + " (once per turn)")
        if not self._orbiting(seat, body):
            raise self.fail(text, f"{self.name(seat)} has no starship orbiting {body.id}", rule)
        body.discovered = True
        info.discovered = True

    def _orbiting(self, seat: int, body: BodyState) -> list[Ship]:
        orbit = self.board.bodies[body.id].orbit
        return [s for s in self.state.ships.values()
                if s.owner == seat and s.colonies > 0 and s.quadrant in orbit]

    def _settle(self, seat: int, action: Action, text: str) -> None:
        rule = "Planets (settling)"
        body = self._body(action.args[0], text, rule)
        ship = self._owned_ship(seat, action.args[1], text, rule)
        if body.owner is not None:
            raise self.fail(text, f"{body.id} is settled by {self.name(body.owner)}", rule)
        if not self._may_settle(body):
            raise self.fail(text, "moons can't be settled in two-player mode", "2-Player Mode")
        if ship.quadrant not in self.board.bodies[body.id].orbit:
            raise self.fail(text, f"{ship.id} at {ship.quadrant} is not in {body.id}'s orbit",
                            rule)
        self.pay(seat, self.read.settle_cost(seat, body), text, f"settling {body.card}", rule)
        body.discovered = True
        body.owner = seat
        body.colonies = 1
        ship.colonies -= 1
        self._emptied_ship(ship)
        card = self.read.body_card(body)
        info = self.state.seats[seat]
        gained = self.read.production(body)
        info.cells += gained
        info.used += gained  # new cells arrive face down
        info.charges += sum(e.change for e in card.ability if e.kind == "charges")
        if card.inner:
            info.inner_settled = True

    def _emptied_ship(self, ship: Ship) -> None:
        """A ship whose last colony its own player took off is abandoned; its waypoints
        stay with it ("Waypoints on ships move along with the ship"), counted for nobody
        until a colony claims the ship (issue 24)."""
        if ship.colonies == 0:
            ship.owner = None

    def _colony(self, seat: int, action: Action, text: str) -> None:
        rule = "Colonies"
        holder = self.read.holder(action.args[0])
        if holder is None:
            raise self.fail(text, f"there is no body or ship {action.args[0]}", rule)
        if holder.owner != seat:
            raise self.fail(text, f"{holder.id} is not {self.name(seat)}'s: nobody builds on "
                            "another player's body or ship", rule)
        if isinstance(holder, Ship):
            if holder.colonies == 0:
                raise self.fail(text, f"{holder.id} is abandoned", "Abandoned Ships")
            price, what = self.read.cost(seat, "colony-ship"), "a colony on a starship"
        else:
            if self.board.bodies[holder.id].is_moon and self.read.moon_equity() != seat:
                raise self.fail(text, f"{self.name(seat)} does not hold the Moon Equity card",
                                "Moon Equity")
            price, what = self.read.cost(seat, "colony-planet"), "a colony on a planet"
        if holder.colonies >= self.read.capacity(holder):
            raise self.fail(text, f"{holder.id} is full ({holder.colonies} colonies)", rule)
        self.pay(seat, price, text, what, "Energy - Costs")
        holder.colonies += 1

    def _transfer(self, seat: int, action: Action, text: str) -> None:
        rule = "Colonies (transfers in the same quadrant)"
        src = self.read.holder(action.args[0])
        dst = self.read.holder(action.args[1])
        count = int(action.args[2])
        if src is None or dst is None:
            raise self.fail(text, "names a body or ship that does not exist", rule)
        if src is dst:
            raise self.fail(text, "the colonies would stay where they are", rule)
        if src.owner != seat or src.colonies == 0:
            raise self.fail(text, f"{src.id} holds no colonies of {self.name(seat)}", rule)
        if dst.owner not in (seat, None) or (isinstance(dst, BodyState) and dst.owner is None):
            raise self.fail(text, f"{dst.id} is not {self.name(seat)}'s (nor an abandoned ship)",
                            rule)
        if not self.read.together(src, dst):
            raise self.fail(text, f"{src.id} and {dst.id} are not in the same quadrant", rule)
        if count > src.colonies:
            raise self.fail(text, f"{src.id} holds {src.colonies} colonies", rule)
        if isinstance(dst, BodyState) and self.board.bodies[dst.id].is_moon and \
                self.read.moon_equity() != seat:
            raise self.fail(text, "only the Moon Equity holder adds colonies to moons",
                            "Moon Equity")
        if dst.colonies + count > self.read.capacity(dst):
            raise self.fail(text, f"{dst.id} holds at most {self.read.capacity(dst)} colonies",
                            "capacity")
        src.colonies -= count
        if dst.owner is None and dst.waypoints and \
                set(self.read.sectors(dst)) & self.read.waypoint_sectors(seat, dst.id):
            raise self.fail(text, f"{dst.id} carries a waypoint into a sector where "
                            f"{self.name(seat)} already has one", "Waypoints (storing)")
        if dst.owner is None:  # claiming an abandoned ship (and any waypoint aboard)
            dst.owner = seat
        dst.colonies += count
        if isinstance(src, Ship):
            self._emptied_ship(src)
        elif src.colonies == 0:
            self.lose_body(src)

    def _build(self, seat: int, action: Action, text: str) -> None:
        rule = "Starships (building)"
        kind, bid, quad, count = action.args[0], action.args[1], action.args[2], int(action.args[3])
        body = self._body(bid, text, rule)
        if body.owner != seat:
            raise self.fail(text, f"{bid} is not settled by {self.name(seat)}", rule)
        spec = self.board.bodies[bid]
        if spec.is_moon and self.read.moon_equity() != seat:
            raise self.fail(text, "only the Moon Equity holder builds ships around moons",
                            "Moon Equity")
        if quad not in spec.orbit:
            raise self.fail(text, f"{quad} is not in {bid}'s orbit", rule)
        if self.read.ships_at(quad) >= self.board.quadrants[quad].capacity:
            raise self.fail(text, f"{quad} already holds {self.board.quadrants[quad].capacity} "
                            "starships", "quadrant capacity")
        if spec.is_moon:
            # Moon Equity: "build ships around settled moons and create colonies directly
            # onto it for 1E" -- the new ship's colonies are created onto it, 1E each, and
            # the moon keeps its one colony (docs/games/empire.md, "Moon Equity").
            if count > SHIP_CAPACITY[kind]:
                raise self.fail(text, f"a {kind} holds {SHIP_CAPACITY[kind]} colonies, not "
                                f"{count}", rule)
            price = self.read.cost(seat, kind) + count * self.read.cost(seat, "colony-planet")
            self.pay(seat, price, text, f"a {kind} with {count} new colonies", "Moon Equity")
        else:
            if count > body.colonies or count > SHIP_CAPACITY[kind]:
                raise self.fail(text, f"{count} colonies cannot move from {bid} "
                                f"({body.colonies}) onto a {kind} ({SHIP_CAPACITY[kind]})", rule)
            self.pay(seat, self.read.cost(seat, kind), text, f"a {kind}", "Energy - Costs")
        sid = f"s{self.state.next_ship}"
        self.state.next_ship += 1
        self.state.ships[sid] = Ship(sid, kind, quad, seat, count)
        if not spec.is_moon:
            body.colonies -= count
            if body.colonies == 0:
                self.lose_body(body)

    def _move(self, seat: int, action: Action, text: str) -> None:
        rule = "Starships - Movement"
        ship = self._owned_ship(seat, action.args[0], text, rule)
        dest = action.args[1]
        mods = self.read.mods(seat)
        price = self.read.cost(seat, f"move-{ship.kind}", mods=mods)
        info = self.state.seats[seat]
        if info.energy < price:
            raise self.fail(text, f"{ship.kind} move needs {price}E, {self.name(seat)} has "
                            f"{info.energy}E", rule)
        banned = self.read.waypoint_sectors(seat, ship.id) if ship.waypoints else set()
        steps = MOVE_RANGE + mods.move
        reach = self.read.reachable(ship, steps, self.read.occupancy(), banned)
        if dest not in reach:
            why = (f"{dest} cannot be reached from {ship.quadrant} in {steps} quadrants without "
                   "crossing the centre, a full quadrant")
            why += ", or a sector holding another of your waypoints" if banned else ""
            raise self.fail(text, why, rule)
        self.pay(seat, price, text, f"{ship.kind} move", rule)
        ship.quadrant = dest

    def _waypoint(self, seat: int, action: Action, text: str) -> None:
        rule = "Waypoints (building)"
        holder = self.read.holder(action.args[0])
        if holder is None or holder.owner != seat or holder.colonies == 0:
            raise self.fail(text, f"{action.args[0]} is not a ship or body {self.name(seat)} "
                            "controls", rule)
        if len(holder.waypoints) >= self.read.waypoint_limit(holder):
            raise self.fail(text, f"{holder.id} already holds a waypoint", "Waypoints (storing)")
        clash = set(self.read.sectors(holder)) & self.read.waypoint_sectors(seat, holder.id)
        if clash:
            # A card letting one holder hold two waypoints counts that holder's first
            # waypoint out of the one-per-sector rule (else the card could never apply).
            sectors = sorted(clash)
            raise self.fail(text, f"{self.name(seat)} already has a waypoint in sector "
                            f"{', '.join(map(str, sectors))}", rule)
        self.pay(seat, self.read.cost(seat, "waypoint"), text, "a waypoint", "Energy - Costs")
        state = self.state
        card = state.face_up or ""
        holder.waypoints.append(card)
        state.face_up = state.waypoint_deck.pop(0) if state.waypoint_deck else None
        if card:
            state.seats[seat].charges += sum(
                e.change for e in self.cards.card(card).ability if e.kind == "charges")

    def _event(self, seat: int, action: Action, text: str) -> None:
        rule = "2-Player Mode (events)"
        info = self.state.seats[seat]
        card = self._hand_card(info, action.args[0], text, rule)
        info.hand.remove(card)
        if action.verb == "event":
            info.events.append(card)
            info.charges += sum(e.change for e in self.cards.events[card].ability
                                if e.kind == "charges")
        else:
            info.used = max(0, info.used - EVENT_RENEW)

    def _hand_card(self, info: Seat, name: str, text: str, rule: str) -> str:
        for card in info.hand:
            if card.lower() == name.lower():
                return card
        raise self.fail(text, f"the hand holds {', '.join(info.hand) or 'no event cards'}", rule)

    def _token(self, seat: int, action: Action, text: str) -> None:
        rule = "Infection Mode (victory tokens)"
        state = self.state
        if not self.read.infection:
            raise self.fail(text, "victory tokens are only in the infection modes", rule)
        if state.tokens == 0:
            raise self.fail(text, "no victory tokens are left", rule)
        if action.args[0] == "skip":
            if state.skip_scelrotia:
                raise self.fail(text, "the Scelrotia's next turn is already skipped", rule)
            state.skip_scelrotia = True
        else:
            info = state.seats[seat]
            info.used = max(0, info.used - TOKEN_RENEW)
        state.tokens -= 1

    def _attack(self, seat: int, action: Action, text: str) -> None:
        combat.declare(self, seat, action, text)

    # --- turns, rounds and the end -------------------------------------------------------

    def _next_turn(self) -> None:
        state = self.state
        state.position += 1
        if state.position >= len(state.order):
            if state.final:
                self._score_final()
                return
            if state.trigger:
                self._start_final()
                return
            state.round += 1
            state.position = 0
        elif state.trigger and not state.final:
            self._start_final()
            return
        self._start_turn(state.active)

    def _start_turn(self, seat: int) -> None:
        if not self.read.is_human(seat):
            return
        info = self.state.seats[seat]
        if not self.state.final:
            info.used = 0  # renew all cells
        info.discovered = False
        info.events.clear()  # an event ends at the beginning of its player's next turn

    def _start_final(self) -> None:
        """The final round: everyone renews, then turns run from most cells to fewest
        (most charges, then seat order, break ties)."""
        state = self.state
        state.final = True
        for seat in range(len(self.players)):
            state.seats[seat].used = 0
        state.order = sorted(range(len(self.players)),
                             key=lambda s: (-state.seats[s].cells, -state.seats[s].charges, s))
        state.position = 0
        state.round += 1
        self._start_turn(state.active)

    def _score_final(self) -> None:
        state = self.state
        order = state.order
        # Last resort: the seat that played later in the final round.
        best = max(range(len(order)), key=lambda i: (self.standing(order[i]), i))
        seat = order[best]
        self._finish((seat,), f"{self.name(seat)} controls the most waypoints "
                     f"({self.read.waypoints(seat)}) after the final round")

    def _finish(self, winners: tuple[int | None, ...], reason: str) -> None:
        self.state.winners = tuple(w for w in winners if w is not None)
        self.state.reason = reason
        self.state.combat = None

    def _check_end(self) -> None:
        state = self.state
        if state.winners is not None:
            return
        read = self.read
        if read.infection:
            self._check_infection()
            return
        if state.trigger:
            return  # "even if the trigger ... changes in the course of the final round"
        for seat in range(len(self.players)):
            if read.waypoints(seat) >= WIN_WAYPOINTS:
                state.trigger = f"{self.name(seat)} has {WIN_WAYPOINTS} waypoints"
                return
            if read.colonies(seat) == 0:
                state.trigger = f"{self.name(seat)} lost all their colonies"
                return
            if len(read.presence(seat)) == len({q.sector for q in self.board.quadrants.values()}):
                state.trigger = f"{self.name(seat)} has presence in all eight sectors"
                return
        bodies = [b for b in state.bodies.values()
                  if self._may_settle(b)]
        if all(b.owner is not None for b in bodies):
            state.trigger = ("all planets are settled" if self.mode == "two-player"
                             else "all planets and moons are settled")

    def _check_infection(self) -> None:
        state = self.state
        inner = [b for b in state.bodies.values() if self.read.body_card(b).inner]
        humans = range(len(self.players))
        if all(self.read.is_human(b.owner) for b in inner):
            self._finish(tuple(humans), f"the players hold the four inner planets, keeping "
                         f"{state.tokens} victory tokens")
        elif all(b.owner == self.scelrotia for b in inner):
            self._finish((self.scelrotia,), "the Scelrotia holds the four inner planets")
        elif all(self.read.colonies(s) == 0 for s in humans):
            self._finish((self.scelrotia,), "the players have no colonies left")

_HANDLERS = {
    "end": Game._end, "charge": Game._charge, "discover": Game._discover,
    "settle": Game._settle, "colony": Game._colony, "transfer": Game._transfer,
    "build": Game._build, "move": Game._move, "waypoint": Game._waypoint,
    "event": Game._event, "discard": Game._event, "token": Game._token,
    "attack": Game._attack,
}


# --- setup -----------------------------------------------------------------------------------


def _starting_quadrant(board: BoardMap, body: str, occupancy: dict[str, int]) -> str:
    for quad in board.bodies[body].orbit:
        if occupancy[quad] < board.quadrants[quad].capacity:
            return quad
    raise ValueError(f"no room for a starting fighter around {body}: every orbit quadrant is full")


def _across(board: BoardMap, quad: str, occupancy: dict[str, int]) -> str:
    """The quadrant "directly across": same quadrant number, sector + 4; if full, the
    first quadrant of that sector with room."""
    sector = board.quadrants[quad].sector
    number = quad[quad.index("Q") + 1:]
    other = (sector + 3) % 8 + 1
    candidates = [f"S{other}Q{number}"] + [f"S{other}Q{q}" for q in range(1, 5)]
    for cand in candidates:
        if occupancy[cand] < board.quadrants[cand].capacity:
            return cand
    raise ValueError(f"no room for the extra fighter in sector {other}")


def homes(board: BoardMap, players: int, mode: str) -> list[str]:
    """The default starting planet of each seat: seat *i* of *n* at yellow planet
    ``i*4/n + 1``; in two-player mode the first two yellow planets, so that neither
    player's extra fighter "in the sector directly across" starts in the other's home
    orbit (docs/games/empire.md, "Setup")."""
    yellows = [b.id for b in board.bodies.values() if b.ring == "yellow"]
    if mode == "two-player":
        return yellows[:players]
    return [yellows[(seat * len(yellows)) // players] for seat in range(players)]


def home_of(board: BoardMap, quadrant: str) -> str | None:
    """The yellow-ringed planet whose orbit holds ``quadrant`` (None: none does)."""
    return next((b.id for b in board.bodies.values()
                 if b.ring == "yellow" and quadrant in b.orbit), None)


def check_starts(board: BoardMap, starts: Sequence[str], players: int, mode: str) -> None:
    """Chosen starting quadrants: one per player, each "on any of the 4 quadrants around
    one of the yellow-ringed planets", within capacity; in two-player mode the extra
    fighter across may not start in the other player's home orbit. ValueError names the
    quadrant and the fix."""
    if len(starts) != players:
        raise ValueError(f"starts {','.join(starts)!r}: give one starting quadrant per player "
                         f"({players}), in seat order, e.g. S1Q3,S3Q1")
    count: dict[str, int] = {}
    for quad in starts:
        if quad not in board.quadrants or home_of(board, quad) is None:
            raise ValueError(f"start {quad!r} is not one of the quadrants around a "
                             "yellow-ringed planet (rule: Setup 4)")
        count[quad] = count.get(quad, 0) + 1
        if count[quad] > board.quadrants[quad].capacity:
            raise ValueError(f"start {quad!r}: more fighters than the quadrant holds "
                             f"({board.quadrants[quad].capacity}); choose another")
    if mode == "two-player":
        for seat, quad in enumerate(starts):
            other = home_of(board, starts[1 - seat])
            across = _across(board, quad, dict.fromkeys(board.quadrants, 0))
            if other is not None and across in board.bodies[other].orbit:
                raise ValueError(
                    f"start {quad!r}: the extra fighter across ({across}) would start in the "
                    f"other player's home orbit ({other}); choose starts whose sectors across "
                    "are free of the other home, e.g. S1Q3,S3Q1")


def setup(board: BoardMap, cards: CardSet, players: Sequence[str], mode: str, seed: int,
          order: str = "fixed", guilds: bool = False, events: bool = False,
          chosen: Sequence[str] = ()) -> State:
    """The seeded opening position (docs/games/empire.md, "Setup"); ``chosen``: the
    starting quadrant each player chose (default: the first of their home orbit with
    room)."""
    rng = random.Random(seed)
    humans = len(players)
    bodies: dict[str, BodyState] = {}
    for ring in ("yellow", "white", "orange"):
        names = sorted(c.name for c in cards.planets.values() if c.ring == ring)
        rng.shuffle(names)
        areas = [b for b in board.bodies.values() if b.ring == ring]
        for area, name in zip(areas, names, strict=False):
            bodies[area.id] = BodyState(area.id, name, False)
    moon_names = sorted(cards.moons)
    rng.shuffle(moon_names)
    for area, name in zip([b for b in board.bodies.values() if b.is_moon], moon_names,
                          strict=False):
        bodies[area.id] = BodyState(area.id, name, True)
    bodies = {bid: bodies[bid] for bid in board.bodies}
    waypoint_deck = sorted(cards.waypoints)
    rng.shuffle(waypoint_deck)
    face_up = waypoint_deck.pop(0) if waypoint_deck else None
    event_deck = sorted(cards.events)
    rng.shuffle(event_deck)
    seats = [Seat() for _ in range(humans)]
    infection = mode.startswith("infection")
    if infection:
        seats.append(Seat(cells=0, charges=0))
    if guilds:
        for seat in range(humans):
            colour = COLOURS[seat]
            if colour in cards.guilds:
                seats[seat].guild = colour
    if mode == "two-player" or events:
        for seat in range(humans):
            seats[seat].hand = [event_deck.pop(0) for _ in range(EVENTS_PER_PLAYER)
                                if event_deck]
    if chosen:
        check_starts(board, chosen, humans, mode)
    home_planets = ([home_of(board, q) or "" for q in chosen] if chosen
                    else homes(board, humans, mode))
    ships: dict[str, Ship] = {}
    occupancy = dict.fromkeys(board.quadrants, 0)
    next_ship = 1
    for seat in range(humans):
        quad = chosen[seat] if chosen else _starting_quadrant(board, home_planets[seat], occupancy)
        starts = [quad]
        occupancy[quad] += 1
        if mode == "two-player":
            extra = _across(board, quad, occupancy)
            occupancy[extra] += 1
            starts.append(extra)
        for where in starts:
            sid = f"s{next_ship}"
            next_ship += 1
            ships[sid] = Ship(sid, "fighter", where, seat, 2)
    if infection:
        taken = set(home_planets)
        candidates = [b for b in bodies.values() if not b.id.startswith("moon.")
                      and b.id not in taken and not cards.planets[b.card].inner]
        for body in rng.sample(candidates, 2):
            body.discovered = True
            body.owner = humans
            body.colonies = 1
    first = rng.randrange(humans) if order == "seeded" else 0
    turn_order = [(first + k) % humans for k in range(humans)]
    if infection:
        turn_order.append(humans)
    return State(1, turn_order, 0, seats, bodies, ships, next_ship, waypoint_deck, face_up,
                 event_deck, tokens=TOKENS if infection else 0)


def new_game(players: Sequence[str] | int = 3, mode: str = "standard", seed: int | None = None,
             map: str = "sample", cards: str = "sample", order: str = "fixed",
             guilds: bool = False, events: bool = False,
             board: BoardMap | None = None, card_set: CardSet | None = None,
             map_text: str | None = None, cards_text: str | None = None,
             starts: Sequence[str] | str = ()) -> Game:
    """A new game. ``players``: names (or a count); ``mode``: standard, two-player,
    infection-solo or infection-coop; ``seed``: the draws (logged; random when None);
    ``map``/``cards``: shipped names or paths; ``order``: fixed or seeded seat order.

    ``map_text``/``cards_text``: the files' TOML text as a game logs it
    (``Game.options``): when given, the data is read from it, not from ``map``/``cards``,
    so a logged game replays even if the files changed or are gone."""
    from meridian_table.games.empire.data_files import check_pair, parse_cards, parse_map
    from meridian_table.games.empire.files import cards_text as read_cards
    from meridian_table.games.empire.files import map_text as read_map

    names = [f"Player {n + 1}" for n in range(players)] if isinstance(players, int) \
        else [str(p).strip() for p in players]
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {', '.join(MODES)}")
    wanted = {"standard": (2, 3, 4), "two-player": (2,), "infection-solo": (1,),
              "infection-coop": (2, 3, 4)}[mode]
    if len(names) not in wanted:
        raise ValueError(f"{mode} is played by {' or '.join(str(w) for w in wanted)} players, "
                         f"not {len(names)}")
    if any(not n or n == SCELROTIA for n in names) or len(set(names)) != len(names):
        raise ValueError(f"player names {names!r} must be distinct, not empty and not "
                         f"{SCELROTIA!r}")
    if order not in ("fixed", "seeded"):
        raise ValueError(f"order {order!r} is not fixed or seeded")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    texts: dict[str, Any] = {}
    if board is None or card_set is None:
        shown_map = f"the map {map!r} logged with the game"
        shown_cards = f"the cards {cards!r} logged with the game"
        if map_text is None:
            map_text, shown_map = read_map(map)
        if cards_text is None:
            cards_text, shown_cards = read_cards(cards)
        board, card_set = parse_map(map_text, shown_map), parse_cards(cards_text, shown_cards)
        check_pair(board, card_set, shown_map, shown_cards)
        texts = {"map_text": map_text, "cards_text": cards_text}
    chosen = ([q.strip().upper() for q in starts.split(",") if q.strip()]
              if isinstance(starts, str) else [str(q).upper() for q in starts])
    state = setup(board, card_set, names, mode, seed, order, guilds, events, chosen)
    options: dict[str, Any] = {"players": names, "mode": mode, "seed": seed, "map": map,
                               "cards": cards, "order": order, "guilds": guilds,
                               "events": events, **texts}
    if chosen:
        options["starts"] = ",".join(chosen)
    LOGGER.debug("new empire game: %s", options)
    return Game(board, card_set, names, mode, seed, options, state)


def parse_action(text: str) -> Action:
    """The notation of one action (NotationError when it is none)."""
    return parse(text)


__all__ = ["COLOURS", "SCELROTIA", "Game", "IllegalActionError", "NotationError", "new_game",
           "parse_action", "setup"]

