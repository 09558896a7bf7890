"""What must hold in every Empire position, whatever was played: the engine's self-check.

``problems(game)`` names each broken invariant (an empty list when all hold): energy and
charges never negative, used cells within the seat's cells, quadrant and holder
capacities, every colony on a holder with an owner, an owned planet discovered, one
waypoint per sector and player, the colonies counted per seat adding up. The property
tests (``tests/games/empire/test_empire_properties.py``) call it after every action of a
fixed slice of seeded random games; ``meridian-table bench empire`` after every action of
the whole corpus (1,200 games).
"""

from __future__ import annotations

from meridian_table.games.empire.engine import Game
from meridian_table.games.empire.rules import SHIP_CAPACITY
from meridian_table.games.empire.state import BodyState, Ship


def problems(game: Game) -> list[str]:
    """Every invariant ``game``'s position breaks, each in words with what broke it."""
    found: list[str] = []
    state = game.state
    read = game.read
    for seat, info in enumerate(state.seats):
        if not 0 <= info.used <= info.cells:
            found.append(f"seat {seat} uses {info.used} of {info.cells} cells: {info!r}")
        if info.charges < 0 or info.energy < 0:
            found.append(f"seat {seat} has negative energy or charges: {info!r}")
    for quad, count in read.occupancy().items():
        if count > game.board.quadrants[quad].capacity:
            found.append(f"quadrant {quad!r} holds {count}, over its capacity")
    for body in state.bodies.values():
        if not 0 <= body.colonies <= read.body_capacity(body):
            found.append(f"colonies outside the body's capacity: {body!r}")
        if (body.owner is None) != (body.colonies == 0):
            found.append(f"colonies without an owner, or an owner without colonies: {body!r}")
        if body.owner is None and body.waypoints:
            found.append(f"waypoints on a body nobody owns: {body!r}")
        if body.owner is not None and not game.board.bodies[body.id].is_moon \
                and not body.discovered:
            found.append(f"an owned planet not discovered: {body!r}")
    for ship in state.ships.values():
        if not 0 <= ship.colonies <= SHIP_CAPACITY[ship.kind]:
            found.append(f"colonies outside the ship's capacity: {ship!r}")
        if (ship.owner is None) != (ship.colonies == 0):
            found.append(f"colonies without an owner, or an owner without colonies: {ship!r}")
        # An abandoned ship keeps its waypoints (issue 24): they go to whoever claims it.
    holders: list[BodyState | Ship] = [*state.bodies.values(), *state.ships.values()]
    sectors: dict[int, set[int]] = {}
    for holder in holders:
        if len(holder.waypoints) > read.waypoint_limit(holder):
            found.append(f"more waypoints than the holder allows: {holder!r}")
        if holder.waypoints and holder.owner is not None:
            mine = set(read.sectors(holder))
            if mine & sectors.get(holder.owner, set()):
                found.append(f"a second waypoint in a sector of its owner: {holder!r}")
            sectors.setdefault(holder.owner, set()).update(mine)
    counted = sum(read.colonies(s) for s in range(len(game.names)))
    held = sum(h.colonies for h in holders if h.owner is not None)
    if counted != held:
        found.append(f"the seats count {counted} colonies, the holders hold {held}")
    return found


__all__ = ["problems"]
