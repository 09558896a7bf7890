"""A scripted Empire in Space player for the table tests: deterministic, and keen on
everything the acceptance asks to see (combat with shields and a counter-strike, a lost
planet, an abandoned ship claimed, a waypoint stolen). With game seed 61 and three
players, one game shows all of them and ends by itself in 152 actions."""

from __future__ import annotations

import random

from meridian_table.games.empire.engine import Game
from meridian_table.games.empire.state import State

SEED = 61
PREFERRED = ("steal", "attack", "lend", "waypoint", "settle", "discover", "build", "colony",
             "transfer", "move", "charge")


def choose(game: Game, rng: random.Random) -> str:
    """The next action of whoever acts in ``game``."""
    legal = game.legal()
    verbs: dict[str, list[str]] = {}
    for action in legal:
        verbs.setdefault(action.split()[0], []).append(action)
    if "damage" in verbs:
        shielded = [a for a in verbs["damage"] if "/" in a and "/0" not in a]
        return rng.choice(shielded or verbs["damage"])
    for verb in ("strike", "counter"):
        if verb in verbs:
            return max(verbs[verb], key=lambda a: int(a.split()[1]))
    for verb, refuse in (("defend", "defend none"), ("steal", "steal none")):
        if verb in verbs:
            keen = [a for a in verbs[verb] if a != refuse]
            return rng.choice(keen or verbs[verb])
    if "lend" in verbs:
        return "lend yes"
    claims = [a for a in verbs.get("transfer", [])
              if (ship := game.state.ships.get(a.split()[2])) is not None and ship.owner is None]
    if claims:
        return claims[0]
    for verb in PREFERRED:
        if verb in verbs and rng.random() < 0.6:
            return rng.choice(verbs[verb])
    return "end" if "end" in verbs else rng.choice(legal)


def features(before: State, game: Game, action: str) -> set[str]:
    """What ``action`` (just played on ``game``, from ``before``) shows of the acceptance."""
    verb, *args = action.split()
    out = set()
    if verb == "damage" and any("/" in u and not u.split("/")[1].startswith("0") for u in args):
        out.add("shields")
    if verb == "counter" and int(args[0]) > 0:
        out.add("counter")
    if verb == "steal" and args[0] != "none":
        out.add("stolen")
    if verb == "transfer" and (ship := before.ships.get(args[1])) is not None \
            and ship.owner is None:
        out.add("claimed")
    if verb == "damage" and any(b.owner is not None and game.state.bodies[b.id].owner is None
                                for b in before.bodies.values()):
        out.add("lost planet")
    return out
