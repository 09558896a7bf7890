"""The Scelrotia: infection mode's automaton, one deterministic turn.

Its turn (docs/games/empire.md, "The Scelrotia"), with every tie broken by a fixed rule,
so that a game is decided by its seed and the players' actions alone:

1. The pieces act in this order: its planets in map order (yellow, white, orange by
   number), then its ships by number, then its moons (which only have a passive) by
   number. A body it takes during the turn joins the end of its queue (planets) or
   the moons, and acts in the same turn: the book's example runs Thrace, Moji, Hadron
   (which infects Slate), Slate (which builds a ship), then the moon Moji infected.
   A ship built or taken this turn does not act.
2. A planet grows (one colony) while below its capacity; when full it infects the
   closest body not its own. A newly infected inner planet instead builds a fighter
   with 2 colonies on the first quadrant of its orbit with room (none if all are full):
   "Build Starship" fires once per infection.
3. A moon only acts through its passive: it infects the lowest-numbered player ship in
   its orbit.
4. A ship grows while below its capacity; when full it moves up to 2 quadrants (capacity
   holds, the centre is never crossed) to the reachable quadrant closest to the nearest
   body or player ship not its own ("the nearest planet/ ship"; a body on a tie), then
   infects the nearest body not its own if it is in that body's orbit.

"Closest" is the fewest quadrant steps between the two bodies' orbits (0 when they
share a quadrant). Ties go, in turn, to an inner planet (the Scelrotia races the
players for them), to a body a player holds (it replaces their colony), then to the
body first in map order; between quadrants, to the first in map order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from meridian_table.games.empire.rules import SHIP_CAPACITY
from meridian_table.games.empire.state import BodyState, Ship

if TYPE_CHECKING:
    from meridian_table.games.empire.base import GameBase as Game

FIGHTER_COLONIES = 2


def _nearest(game: Game, quads: tuple[str, ...]) -> BodyState | None:
    """The body not held by the Scelrotia closest to any of ``quads``."""
    board = game.board
    best: tuple[int, int, int, int] | None = None
    found: BodyState | None = None
    for index, body in enumerate(game.state.bodies.values()):
        if body.owner == game.scelrotia:
            continue
        if game.mode == "two-player" and board.bodies[body.id].is_moon:
            continue
        steps = min(board.distance[q][o] for q in quads for o in board.bodies[body.id].orbit)
        inner = game.read.body_card(body).inner
        key = (steps, 0 if inner else 1, 0 if game.read.is_human(body.owner) else 1, index)
        if best is None or key < best:
            best, found = key, body
    return found


def infect_body(game: Game, body: BodyState) -> bool:
    """One Scelrotia colony onto ``body``: an empty body becomes its own (face up); a
    player's body loses one colony, and becomes the Scelrotia's when that was the last
    (the owner loses the body as the book's "Losing a Planet" says). True when taken."""
    if body.owner is None:
        body.discovered = True
        body.owner = game.scelrotia
        body.colonies = 1
        return True
    body.colonies -= 1
    if body.colonies > 0:
        return False
    game.lose_body(body)
    body.owner = game.scelrotia
    body.colonies = 1
    return True


def infect_ship(game: Game, ship: Ship) -> None:
    """A player ship loses one colony to the Scelrotia, and is its own when that was the
    last (its waypoints leave play)."""
    ship.colonies -= 1
    if ship.colonies == 0:
        ship.owner = game.scelrotia
        ship.colonies = 1
        ship.waypoints.clear()


def _nearest_ship(game: Game, quad: str) -> tuple[int, Ship] | None:
    """The crewed player ship closest to ``quad`` (ties: the lowest number)."""
    distance = game.board.distance
    ships = [s for s in game.state.ships.values() if game.read.is_human(s.owner) and s.colonies]
    if not ships:
        return None
    ship = min(ships, key=lambda s: (distance[quad][s.quadrant], int(s.id[1:])))
    return distance[quad][ship.quadrant], ship


def _ship_turn(game: Game, ship: Ship, steps: list[str]) -> BodyState | None:
    """A full ship "will move closer to the nearest planet/ ship not controlled by the
    Scelrotia then Infect the planet if it is in orbit": it heads for the nearest body or
    player ship (a body on a tie), then infects the nearest body not its own if it is
    in that body's orbit."""
    if ship.colonies < SHIP_CAPACITY[ship.kind]:
        ship.colonies += 1
        steps.append(f"{ship.id} grows")
        return None
    distance = game.board.distance
    body = _nearest(game, (ship.quadrant,))
    prey = _nearest_ship(game, ship.quadrant)
    goal: tuple[str, ...] = ()
    name = ""
    if body is not None:
        goal, name = game.board.bodies[body.id].orbit, body.id
    if prey is not None and (body is None or prey[0] < min(
            distance[ship.quadrant][o] for o in goal)):
        goal, name = (prey[1].quadrant,), prey[1].id
    if not goal:
        return None
    here = min(distance[ship.quadrant][o] for o in goal)
    if here > 0:
        reach = game.read.reachable(ship, 2, game.read.occupancy(), set())
        order = list(game.board.quadrants)
        best = min(reach, key=lambda q: (min(distance[q][o] for o in goal), order.index(q)),
                   default=None)
        if best is not None and min(distance[best][o] for o in goal) < here:
            steps.append(f"{ship.id} moves {ship.quadrant}-{best} towards {name}")
            ship.quadrant = best
    target = _nearest(game, (ship.quadrant,))
    if target is not None and ship.quadrant in game.board.bodies[target.id].orbit:
        taken = infect_body(game, target)
        steps.append(f"{ship.id} infects {target.id}")
        return target if taken else None
    return None


def _body_turn(game: Game, body: BodyState, newly: set[str], steps: list[str]) -> BodyState | None:
    read = game.read
    spec = game.board.bodies[body.id]
    state = game.state
    if spec.is_moon:
        prey = sorted((s for s in state.ships.values()
                       if read.is_human(s.owner) and s.colonies and s.quadrant in spec.orbit),
                      key=lambda s: int(s.id[1:]))
        if prey:
            infect_ship(game, prey[0])
            steps.append(f"{body.id} infects {prey[0].id}")
        return None
    if body.id in newly and read.body_card(body).inner:
        occupancy = read.occupancy()
        for quad in spec.orbit:
            if occupancy[quad] < game.board.quadrants[quad].capacity:
                sid = f"s{state.next_ship}"
                state.next_ship += 1
                state.ships[sid] = Ship(sid, "fighter", quad, game.scelrotia, FIGHTER_COLONIES)
                steps.append(f"{body.id} builds {sid} at {quad}")
                break
        else:
            steps.append(f"{body.id} cannot build: its orbit is full")
        return None
    if body.colonies < read.body_capacity(body):
        body.colonies += 1
        steps.append(f"{body.id} grows")
        return None
    target = _nearest(game, spec.orbit)
    if target is None:
        return None
    steps.append(f"{body.id} infects {target.id}")
    return target if infect_body(game, target) else None


def take_turn(game: Game) -> list[str]:
    """Play the Scelrotia's whole turn; returns what it did, in words."""
    state = game.state
    if state.skip_scelrotia:
        state.skip_scelrotia = False
        return ["the Scelrotia's turn is skipped (a victory token)"]
    me = game.scelrotia
    board = game.board
    queue = [b.id for b in state.bodies.values() if b.owner == me and not board.bodies[b.id].is_moon]
    queue += sorted((s.id for s in state.ships.values() if s.owner == me),
                    key=lambda s: int(s[1:]))
    moons = [b.id for b in state.bodies.values() if b.owner == me and board.bodies[b.id].is_moon]
    done: set[str] = set()
    newly: set[str] = set()
    steps: list[str] = []
    while queue or moons:
        pid = queue.pop(0) if queue else moons.pop(0)
        if pid in done:
            continue
        done.add(pid)
        body = state.bodies.get(pid)
        ship = state.ships.get(pid)
        if body is not None and body.owner == me:
            taken = _body_turn(game, body, newly, steps)
        elif ship is not None and ship.owner == me:
            taken = _ship_turn(game, ship, steps)
        else:
            continue
        if taken is not None and taken.id not in done:
            newly.add(taken.id)
            (moons if board.bodies[taken.id].is_moon else queue).append(taken.id)
    return steps


__all__ = ["infect_body", "infect_ship", "take_turn"]
