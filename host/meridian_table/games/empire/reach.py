"""Where a lifted ship can go, worked out on the position as it stands (issue 29).

The table asks on every ship lifted from the board; playing each move to find out (a
copy of the state and an end-of-game check a move) took most of the settle's time. A
move changes only where the ship stands and the energy left (its price is paid), never
the mover's abilities, its waypoints or whose turn it is, so both reaches are read off
the position (the adapter lights a lifted ship's reach from :func:`reach`).
``tests/games/empire/test_empire_reach.py`` checks them against their
play-everything definitions on every position of seeded games.
"""

from __future__ import annotations

from typing import Any

from meridian_table.games.empire.base import GameBase as Game
from meridian_table.games.empire.rules import MOVE_RANGE
from meridian_table.games.empire.state import Ship


def move_reach(game: Game, seat: int, ship: Ship, energy: int, mods: Any,
               occupancy: dict[str, int], start: str | None = None) -> list[str]:
    """The quadrants ``seat``'s ``ship`` (with colonies aboard) may move to for one
    payment with ``energy`` left, from its quadrant or ``start``: ``legal()``'s moves of
    that ship, in its order."""
    read = game.read
    if energy < read.cost(seat, f"move-{ship.kind}", mods=mods):
        return []
    banned = read.waypoint_sectors(seat, ship.id) if ship.waypoints else set()
    return list(read.reachable(ship, MOVE_RANGE + mods.move, occupancy, banned, start))


def mover(game: Game, ship_id: str) -> Ship | None:
    """``ship_id`` when it may move in the turn being played (its owner's ordinary turn,
    colonies aboard), else None."""
    state = game.state
    if state.winners is not None or state.combat is not None or \
            state.active == game.scelrotia:
        return None
    ship = state.ships.get(ship_id)
    if ship is None or ship.owner != state.active or ship.colonies == 0:
        return None
    return ship


def moves_of(game: Game, ship_id: str) -> tuple[str, ...]:
    """The legal moves of ship ``ship_id`` now: exactly the ``move {ship_id} …`` actions
    of ``game.legal()``, in its order, without working out the rest of the turn's
    actions."""
    ship = mover(game, ship_id)
    if ship is None:
        return ()
    seat, read = game.state.active, game.read
    return tuple(f"move {ship_id} {quad}" for quad in move_reach(
        game, seat, ship, game.state.seats[seat].energy, read.mods(seat), read.occupancy()))


def reach(game: Game, ship_id: str) -> dict[str, int]:
    """Quadrants ship ``ship_id`` can reach now: 1 = in one payment (a legal move), 2 =
    only in two (a legal move from a quadrant the first one reaches); its own quadrant
    left out. The same as playing each first move and asking :func:`moves_of`, worked
    out on the position: no state is copied, nothing is played."""
    ship = mover(game, ship_id)
    if ship is None:
        return {}
    state, read = game.state, game.read
    seat = state.active
    mods = read.mods(seat)
    energy = state.seats[seat].energy
    occupancy = read.occupancy()
    one = move_reach(game, seat, ship, energy, mods, occupancy)
    out = dict.fromkeys(one, 1)
    left = energy - read.cost(seat, f"move-{ship.kind}", mods=mods)
    start = ship.quadrant
    occupancy[start] -= 1
    for mid in sorted(one):
        occupancy[mid] += 1
        for quad in move_reach(game, seat, ship, left, mods, occupancy, start=mid):
            out.setdefault(quad, 2)
        occupancy[mid] -= 1
    out.pop(start, None)
    return out


__all__ = ["move_reach", "mover", "moves_of", "reach"]
