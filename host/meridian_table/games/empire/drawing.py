"""Empire in Space on a sensing board: what the switches say, and what they cannot.

A switch under each quadrant closes while at least one starship stands there; a switch
under each planet and moon closes while at least one colony stands on it. Two ships in
a quadrant read as one; a body's switch says nothing of how many colonies, or whose.
This module holds the pure helpers the adapter (``games/empire/adapter.py``) builds on: the
occupancy a position should show, the drawing of the board, and which legal actions
explain a sensed change (docs/games/empire.md, "At the table").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from meridian_table.games.board import SiteDrawing
from meridian_table.games.empire.engine import Game
from meridian_table.games.empire.state import State

#: Verbs whose action can change what the switches sense.
SENSED_VERBS = ("move", "settle", "build", "transfer")


def occupancy(game: Game) -> frozenset[str]:
    """The sites that should read closed: every quadrant holding a ship (abandoned ones
    too), every body holding a colony (the Scelrotia's too)."""
    return occupancy_of(game.state)


def occupancy_of(state: State) -> frozenset[str]:
    quadrants = {ship.quadrant for ship in state.ships.values()}
    bodies = {b.id for b in state.bodies.values() if b.owner is not None and b.colonies > 0}
    return frozenset(quadrants | bodies)


def drawing(game: Game) -> tuple[SiteDrawing, ...]:
    """The board as the page draws it: 8 sectors around the centre (sector 1 at the top,
    clockwise), quadrants 1..4 inside each sector from the centre outwards, every body
    beside its orbit (:func:`beside`)."""
    board = game.board
    places: dict[str, tuple[float, float]] = {}
    for quad in board.quadrants.values():
        number = int(quad.id[quad.id.index("Q") + 1:])
        radius = 2.1 if number in (1, 2) else 3.5
        spread = -0.2 if number in (1, 3) else 0.2
        angle = (quad.sector - 1) * math.pi / 4 + spread
        places[quad.id] = (radius * math.sin(angle), -radius * math.cos(angle))
    taken: list[tuple[float, float]] = list(places.values())
    out = [SiteDrawing(site, round(x, 3), round(y, 3)) for site, (x, y) in places.items()]
    # Bodies with the widest orbits first: their middle is clear of every quadrant, and
    # the two-quadrant ones then find room beside theirs.
    spots: dict[str, tuple[float, float]] = {}
    for body in sorted(board.bodies.values(), key=lambda b: -len(b.orbit)):
        orbit = [places[q] for q in body.orbit if q in places]
        spots[body.id] = beside(orbit, taken)
        taken.append(spots[body.id])
    out.extend(SiteDrawing(b, round(x, 3), round(y, 3)) for b, (x, y) in spots.items())
    order = list(places) + list(board.bodies)
    return tuple(sorted(out, key=lambda s: order.index(s.site)))


#: The least distance a body keeps from every other site on the drawing.
CLEARANCE = 0.7


def beside(orbit: list[tuple[float, float]],
           taken: list[tuple[float, float]]) -> tuple[float, float]:
    """Where a body is drawn: at the middle of its orbit quadrants when that spot is
    free, else the nearest spot to that middle (in steps of 0.1, every 15 degrees) that
    keeps ``CLEARANCE`` from every site drawn so far; ties go to the spot nearest the
    farthest orbit quadrant, so a body never drifts away from its orbit (the inner
    planets between two centre quadrants are drawn inward of them, issue 24)."""
    cx = sum(p[0] for p in orbit) / len(orbit)
    cy = sum(p[1] for p in orbit) / len(orbit)

    def clear(x: float, y: float) -> float:
        return min((math.hypot(x - a, y - b) for a, b in taken), default=math.inf)

    def reach(x: float, y: float) -> float:
        return max(math.hypot(x - a, y - b) for a, b in orbit)

    best: tuple[float, float] | None = None
    for step in range(0, 16):
        r = step * 0.1
        spots = [(cx, cy)] if step == 0 else [
            (cx + r * math.cos(k * math.pi / 12), cy + r * math.sin(k * math.pi / 12))
            for k in range(24)]
        fits = [p for p in spots if clear(*p) >= CLEARANCE]
        if fits:
            best = min(fits, key=lambda p: (reach(*p), p))
            break
    if best is None:  # nowhere clear near the orbit: the roomiest spot beside it
        spots = [(cx + 0.1 * s * math.cos(k * math.pi / 12), cy + 0.1 * s * math.sin(k * math.pi / 12))
                 for s in range(0, 10) for k in range(24)]
        best = max(spots, key=lambda p: (clear(*p), -reach(*p)))
    return best


@dataclass(frozen=True)
class Explanation:
    """The legal actions that bring the expected occupancy to the sensed one."""

    actions: tuple[str, ...]

    @property
    def verbs(self) -> set[str]:
        return {a.split()[0] for a in self.actions}


def explain(game: Game, sensed: frozenset[str], changed: frozenset[str]) -> Explanation:
    """Every legal action of the seat to act whose resulting occupancy is ``sensed``.

    Only actions that touch a ``changed`` site (or a ship standing on one) are tried,
    and of those only the ones whose piece put down (:func:`put_down`) stands on a site
    sensed: each is played and taken back on the engine itself, which copies its state
    once per action (docs/games/empire.md, "Benchmark"). A ship lifted rules out every
    move of it at once: none of them is played."""
    state = game.state
    ships_on = {sid for sid, ship in state.ships.items() if ship.quadrant in changed}
    found: list[str] = []
    for action in game.legal():
        words = action.split()
        if words[0] not in SENSED_VERBS:
            continue
        if not (set(words[1:]) & (changed | ships_on)):
            continue
        site = put_down(words)
        if site is not None and site not in sensed:
            continue  # that site would read closed after the action: it cannot explain
        game.play(action)
        try:
            if occupancy(game) == sensed:
                found.append(action)
        finally:
            game.undo()
    return Explanation(tuple(found))


def put_down(words: list[str]) -> str | None:
    """The site a legal sensed action surely leaves occupied, or None: a move's
    destination (the ship stands there), a build's quadrant (the new ship), a settled
    body (its first colony). A transfer may empty as well as fill: None."""
    verb = words[0]
    if verb == "move" and len(words) == 3:
        return words[2]
    if verb == "build" and len(words) == 5:
        return words[3]
    if verb == "settle" and len(words) == 3:
        return words[1]
    return None


def two_payment_route(game: Game, ship: str, goal: str) -> tuple[str, str] | None:
    """Two legal moves that take ``ship`` to ``goal`` (a move of 3 or 4 quadrants, paid
    twice), or None. The stop on the way is the first in the engine's order."""
    for first in game.legal():
        if not first.startswith(f"move {ship} "):
            continue
        game.play(first)
        try:
            second = f"move {ship} {goal}"
            if second in game.legal():
                return first, second
        finally:
            game.undo()
    return None


__all__ = ["SENSED_VERBS", "Explanation", "drawing", "explain", "occupancy", "occupancy_of",
           "put_down", "two_payment_route"]
