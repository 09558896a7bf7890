"""Build Empire in Space positions by hand, for the rule book's worked examples.

The book's pictures are missing, so each test rebuilds its position from the text on the
shipped sample map: :func:`board` starts a game with no ships, :func:`ship`, :func:`hold`
and :func:`energy` put pieces and supplies where the example says.
"""

from __future__ import annotations

from meridian_table.games.empire import Game, new_game
from meridian_table.games.empire.state import Ship

RESERVES = ("S2Q4", "S2Q4", "S7Q3", "S7Q3")


def board(players: int = 3, mode: str = "standard", seed: int = 1, round: int = 3,
          to_act: int = 0, reserves: bool = True) -> Game:
    """A game at ``round`` with ``to_act`` to play, every body empty and no ships but, with
    ``reserves``, a fighter with 1 colony per player out of the way (s90, s91, ...), so
    that no player "loses all of their colonies" and triggers the final round."""
    game = new_game(players=players, mode=mode, seed=seed)
    state = game.state
    state.ships.clear()
    for body in state.bodies.values():
        body.owner = None
        body.colonies = 0
    state.round = round
    state.position = state.order.index(to_act)
    if reserves:
        for seat in range(len(game.players)):
            ship(game, f"s{90 + seat}", "fighter", RESERVES[seat], seat, 1)
        state.next_ship = 1
    return game


def ship(game: Game, sid: str, kind: str, quadrant: str, owner: int | None,
         colonies: int) -> Ship:
    made = Ship(sid, kind, quadrant, owner, colonies)
    game.state.ships[sid] = made
    if int(sid[1:]) < 90:
        game.state.next_ship = max(game.state.next_ship, int(sid[1:]) + 1)
    return made


def hold(game: Game, body: str, owner: int | None, colonies: int, card: str | None = None) -> None:
    """``owner`` holds ``body`` with ``colonies``; ``card`` (swapped with the body that
    had it, so the deal stays a permutation) names the planet or moon there."""
    state = game.state
    target = state.bodies[body]
    if card is not None and target.card != card:
        other = next(b for b in state.bodies.values() if b.card == card)
        other.card, target.card = target.card, card
    target.owner = owner
    target.colonies = colonies
    target.discovered = True


def energy(game: Game, seat: int, cells: int, charges: int = 0, used: int = 0) -> None:
    info = game.state.seats[seat]
    info.cells, info.charges, info.used = cells, charges, used
