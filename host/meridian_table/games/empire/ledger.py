"""The energy ledger: what every player's phone shows of an Empire in Space game.

Pure data for the page (``board.ledger`` in the page state, drawn by the game's own
``games/empire/static/page.js``): each seat's cells, charges, colonies, waypoints and
cards; the round, the turn and the final round's order; every action the seat to act
may take, grouped as on the costs table, with its cost worked out by the engine itself
(equity, cards and abilities applied); and the round's log in words.
"""

from __future__ import annotations

from typing import Any

from meridian_table.games.empire.engine import Game

#: The groups of the spending list, in the order of the costs table.
GROUPS = (
    ("move", "Move a ship"), ("settle", "Settle"), ("discover", "Discover"),
    ("colony", "New colony"), ("build", "Build a ship"), ("transfer", "Move colonies"),
    ("waypoint", "Waypoint"), ("charge", "Make a charge"), ("attack", "Attack"),
    ("event", "Play an event"), ("discard", "Discard an event (renew 3 cells)"),
    ("token", "Victory token"), ("give", "Give charges"),
    ("lend", "Lend ships"), ("defend", "Defend"), ("strike", "Strike"),
    ("damage", "Take the damage"), ("counter", "Counter-strike"), ("steal", "Stolen waypoint"),
    ("end", "End the turn"),
)
GROUP_TITLES = dict(GROUPS)

STAGES = {
    "lend": "decides whether to lend ships", "defend": "chooses the defending ships",
    "strike": "strikes", "damage": "splits the damage (colonies or shields)",
    "counter": "counter-strikes", "attacker-damage": "splits the counter-strike's damage",
    "steal": "reassigns a stolen waypoint", "scelrotia": "(the Scelrotia) takes its turn",
}


def words(game: Game, action: str, names: tuple[str, ...] = ()) -> str:
    """``action`` in words for a player ("move fighter 3 to sector 2, quadrant 4");
    ``names`` are the seats' names (the engine's own by default)."""
    parts = action.split()
    verb, args = parts[0], parts[1:]
    state = game.state

    def thing(token: str) -> str:
        if token in state.ships:
            ship = state.ships[token]
            return f"{ship.kind} {token[1:]}"
        body = state.bodies.get(token)
        if body is not None:
            kind = "moon" if token.startswith("moon.") else "planet"
            name = body.card if body.discovered else f"the face-down {token.split('.')[1]} planet"
            return f"{kind} {name}" if kind == "moon" else name
        if token.startswith("S") and "Q" in token:
            sector, quadrant = token[1:].split("Q")
            return f"sector {sector}, quadrant {quadrant}"
        if token.startswith("P") and token[1:].isdigit():
            seat = int(token[1:]) - 1
            return names[seat] if seat < len(names) else game.name(seat)
        return token

    if verb == "move":
        return f"move {thing(args[0])} to {thing(args[1])}"
    if verb == "settle":
        return f"settle {thing(args[0])} with a colony from {thing(args[1])}"
    if verb == "discover":
        return f"discover {thing(args[0])}"
    if verb == "colony":
        return f"a new colony on {thing(args[0])}"
    if verb == "build":
        n = int(args[3])
        return (f"build a {args[0]} at {thing(args[2])} from {thing(args[1])}, "
                f"{n} {'colony' if n == 1 else 'colonies'} aboard")
    if verb == "transfer":
        n = int(args[2])
        return f"move {n} {'colony' if n == 1 else 'colonies'} from {thing(args[0])} to {thing(args[1])}"
    if verb == "waypoint":
        return f"build a waypoint on {thing(args[0])}"
    if verb == "charge":
        return "make a charge"
    if verb == "give":
        return f"{thing(args[0])} gives {args[2]} {'charge' if args[2] == '1' else 'charges'} to {thing(args[1])}"
    if verb == "attack":
        ships = ", ".join(thing(s) for s in args[1].split(","))
        return f"attack {thing(args[0])} with {ships}"
    if verb == "defend":
        return "defend with no ship" if args[0] == "none" else \
            "defend with " + ", ".join(thing(s) for s in args[0].split(","))
    if verb in ("strike", "counter"):
        return f"{verb} {args[0]} {'time' if args[0] == '1' else 'times'}"
    if verb == "damage":
        out = []
        for unit in args:
            name, _, rest = unit.partition(":")
            lost, _, shields = rest.rstrip("!").partition("/")
            text = f"{thing(name)} loses {lost}"
            if shields:
                text += f", shields {shields}"
            if unit.endswith("!"):
                text += " and self-destructs"
            out.append(text)
        return "damage: " + "; ".join(out)
    if verb == "lend":
        return "lend the ships" if args[0] == "yes" else "refuse to lend"
    if verb == "steal":
        return "let the waypoint go" if args[0] == "none" else f"take the waypoint onto {thing(args[0])}"
    if verb in ("event", "discard"):
        return f"{'play' if verb == 'event' else 'discard'} the event {' '.join(args)}"
    if verb == "token":
        return "spend a victory token to skip the Scelrotia's turn" if args[0] == "skip" \
            else "spend a victory token to renew 4 cells"
    if verb == "end":
        return "end the turn"
    if verb == "scelrotia":
        return "the Scelrotia's turn"
    return action


def cost(game: Game, seat: int, action: str) -> int:
    """Energy ``action`` costs ``seat``: the unused cells and charges it spends (a
    settle's price from the engine itself, since its card may give charges back)."""
    verb = action.split()[0]
    if verb in ("give", "end"):
        return 0
    if verb == "settle":
        return game.read.settle_cost(seat, game.state.bodies[action.split()[1]])
    info = game.state.seats[seat]
    unused, charges = info.cells - info.used, info.charges
    game.play(action)
    try:
        after = game.state.seats[seat]
        spent = (unused - (after.cells - after.used)) + max(0, charges - after.charges)
    finally:
        game.undo()
    return max(0, spent)


def costs(game: Game) -> dict[str, int]:
    """Energy each legal action costs the seat that acts (equity, cards and abilities
    applied): played on the engine and taken back."""
    seat = game.turn().seat
    if seat is None or not game.read.is_human(seat):
        return {}
    return {action: cost(game, seat, action) for action in game.legal()}


#: Seconds a defender or a lender has to decide before the default is taken.
DECIDE_S = 20


def default(game: Game) -> str | None:
    """What a seat deciding during another player's turn does if it lets the countdown
    run out: no lending, no extra defending ships, every counter-strike it may make (they
    are free), a stolen waypoint let go. Strikes and damage are never defaulted."""
    legal = game.legal()
    stage = game.turn().phase
    if stage == "lend" and "lend no" in legal:
        return "lend no"
    if stage == "defend" and "defend none" in legal:
        return "defend none"
    if stage == "counter":
        counters = [a for a in legal if a.startswith("counter ")]
        return max(counters, key=lambda a: int(a.split()[1])) if counters else None
    if stage == "steal" and "steal none" in legal:
        return "steal none"
    return None


def ledger(game: Game, colours: tuple[str, ...], history: list[str],
           offers: list[str]) -> dict[str, Any]:
    """Everything the energy ledger shows (module docstring)."""
    state = game.state
    read = game.read
    turn = game.turn()
    seats = []
    labels = tuple(c.capitalize() for c in colours)
    for seat, name in enumerate(labels):
        bodies = [{"id": b.id, "card": b.card, "colonies": b.colonies,
                   "waypoints": list(b.waypoints)}
                  for b in state.bodies.values() if b.owner == seat]
        ships = [{"id": s.id, "kind": s.kind, "quadrant": s.quadrant, "colonies": s.colonies,
                  "waypoints": list(s.waypoints)}
                 for s in state.ships.values() if s.owner == seat]
        entry: dict[str, Any] = {"seat": colours[seat], "name": name, "bodies": bodies,
                                 "ships": ships, "colonies": read.colonies(seat)}
        if read.is_human(seat):
            info = state.seats[seat]
            equity = []
            if read.energy_equity() == seat:
                equity.append("Energy Equity: settle and make charges for 1E less")
            if read.moon_equity() == seat:
                equity.append("Moon Equity: build ships around moons, colonies on moons")
            entry.update({
                "cells": info.cells, "unused": info.cells - info.used, "used": info.used,
                "charges": info.charges, "energy": info.energy,
                "waypoints": read.waypoints(seat), "presence": sorted(read.presence(seat)),
                "hand": list(info.hand), "events": list(info.events), "guild": info.guild,
                "equity": equity,
            })
        seats.append(entry)
    price = costs(game)
    actions = []
    for action, cost in price.items():
        verb = action.split()[0]
        actions.append({"notation": action, "group": verb,
                        "words": words(game, action, labels),
                        "cost": cost})
    actor = turn.seat
    fight = state.combat
    return {
        "round": state.round,
        "final": state.final,
        "trigger": state.trigger,
        "order": [colours[s] for s in state.order],
        "turn": None if actor is None else colours[actor],
        "active": colours[state.active] if state.winners is None else None,
        "stage": turn.phase,
        "stage_words": STAGES.get(turn.phase, ""),
        "seats": seats,
        "tokens": state.tokens if read.infection else None,
        "face_up_waypoint": state.face_up,
        "groups": [{"id": g, "title": t} for g, t in GROUPS],
        "actions": actions,
        "offers": list(offers),
        "combat": None if fight is None else {
            "attacker": colours[fight.attacker], "defender": colours[fight.defender],
            "target": fight.target, "attackers": list(fight.attackers),
            "defenders": list(fight.defenders), "stage": fight.stage,
            "strikes": fight.strikes, "counters": fight.counters},
        "default": None if (fallback := default(game)) is None else {
            "action": fallback, "words": words(game, fallback, labels), "seconds": DECIDE_S,
            "key": f"{len(game.history)}:{turn.phase}"},
        "scelrotia_did": list(state.scelrotia_did) if read.infection else [],
        "log": history[-30:],
        "outcome": None if state.winners is None else {
            "winners": [colours[w] for w in state.winners], "reason": state.reason,
            "standing": {colours[s]: list(game.standing(s)) for s in range(len(game.players))}},
    }


__all__ = ["DECIDE_S", "GROUPS", "cost", "costs", "default", "ledger", "words"]
