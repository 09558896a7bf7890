"""The text notation of Empire in Space actions: parse and format.

One action per line, a verb then its arguments (docs/games/empire.md, "Notation")::

    end                          time                     scelrotia
    charge                       discover planet.white.2  settle planet.white.2 s3
    colony s3                    transfer planet.yellow.1 s3 1
    build frigate planet.yellow.1 S1Q3 1                  move s3 S2Q4
    waypoint planet.yellow.1     give P2 P1 1
    attack planet.white.2 s3,s5  lend yes                 defend s4 | defend none
    strike 3                     damage s4:1/2 planet.white.2:1!   counter 2
    steal s3 | steal none        event Solar Wind         discard Solar Wind
    token skip | token renew

Quadrants are ``S<sector>Q<quadrant>``, bodies are the board profile's sites
(``planet.<ring>.<n>``, ``moon.<n>``), ships ``s<n>``, seats ``P<n>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class NotationError(ValueError):
    """Text that is not an action of the notation; the message names it and the form."""


QUADRANT = re.compile(r"S[1-8]Q[1-4]")
BODY = re.compile(r"(planet\.(yellow|white|orange)|moon)\.\d{1,2}")
SHIP = re.compile(r"s\d{1,4}")
SEAT = re.compile(r"P[1-9]")
UNIT = re.compile(r"(?P<unit>[a-z0-9.]+):(?P<lost>\d{1,2})(/(?P<shields>\d{1,2}))?(?P<bang>!)?")

FORMS = {
    "end": "end",
    "time": "time",
    "scelrotia": "scelrotia",
    "charge": "charge",
    "discover": "discover BODY",
    "settle": "settle BODY SHIP",
    "colony": "colony BODY|SHIP",
    "transfer": "transfer FROM TO COUNT",
    "build": "build fighter|frigate BODY QUADRANT COUNT",
    "move": "move SHIP QUADRANT",
    "waypoint": "waypoint BODY|SHIP",
    "give": "give P<from> P<to> COUNT",
    "attack": "attack BODY|SHIP SHIP[,SHIP...]",
    "lend": "lend yes|no",
    "defend": "defend none | defend SHIP[,SHIP...]",
    "strike": "strike COUNT",
    "damage": "damage UNIT:LOST[/SHIELDS][!] ...",
    "counter": "counter COUNT",
    "steal": "steal BODY|SHIP | steal none",
    "event": "event CARD",
    "discard": "discard CARD",
    "token": "token skip|renew",
}


@dataclass(frozen=True)
class Damage:
    """Damage one unit takes: colonies lost, shields paid, and self-destruct if emptied."""

    unit: str
    lost: int
    shields: int = 0
    destruct: bool = False

    def notation(self) -> str:
        shields = f"/{self.shields}" if self.shields else ""
        return f"{self.unit}:{self.lost}{shields}{'!' if self.destruct else ''}"


@dataclass(frozen=True)
class Action:
    verb: str
    args: tuple[str, ...] = ()
    damage: tuple[Damage, ...] = ()

    def notation(self) -> str:
        if self.verb == "damage":
            return " ".join(["damage", *(d.notation() for d in self.damage)])
        return " ".join((self.verb, *self.args))

    def __str__(self) -> str:
        return self.notation()


def _holder(text: str) -> str:
    low = text.lower()
    if BODY.fullmatch(low) or SHIP.fullmatch(low):
        return low
    raise ValueError(f"{text!r} is not a body (planet.yellow.1, moon.3) or a ship (s4)")


def _quadrant(text: str) -> str:
    up = text.upper()
    if QUADRANT.fullmatch(up):
        return up
    raise ValueError(f"{text!r} is not a quadrant (S1Q1 .. S8Q4)")


def _count(text: str, low: int = 0) -> str:
    if not text.isdigit() or len(text) > 3 or int(text) < low:
        raise ValueError(f"{text!r} is not a count of {low} or more")
    return str(int(text))


def _ship(text: str) -> str:
    low = text.lower()
    if SHIP.fullmatch(low):
        return low
    raise ValueError(f"{text!r} is not a ship (s1, s2, ...)")


def _body(text: str) -> str:
    low = text.lower()
    if BODY.fullmatch(low):
        return low
    raise ValueError(f"{text!r} is not a body (planet.yellow.1, moon.3)")


def _seat(text: str) -> str:
    up = text.upper()
    if SEAT.fullmatch(up):
        return up
    raise ValueError(f"{text!r} is not a seat (P1, P2, ...)")


def _arity(verb: str, args: list[str], n: int) -> None:
    if len(args) != n:
        raise ValueError(f"takes {n} argument{'s' if n != 1 else ''}, got {len(args)}")


def _parse_args(verb: str, args: list[str], rest: str) -> Action:
    if verb in ("end", "time", "scelrotia", "charge"):
        _arity(verb, args, 0)
        return Action(verb)
    if verb == "discover":
        _arity(verb, args, 1)
        return Action(verb, (_body(args[0]),))
    if verb == "settle":
        _arity(verb, args, 2)
        return Action(verb, (_body(args[0]), _ship(args[1])))
    if verb in ("colony", "waypoint"):
        _arity(verb, args, 1)
        return Action(verb, (_holder(args[0]),))
    if verb == "transfer":
        _arity(verb, args, 3)
        return Action(verb, (_holder(args[0]), _holder(args[1]), _count(args[2], 1)))
    if verb == "build":
        _arity(verb, args, 4)
        kind = args[0].lower()
        if kind not in ("fighter", "frigate"):
            raise ValueError(f"{args[0]!r} is not fighter or frigate")
        return Action(verb, (kind, _body(args[1]), _quadrant(args[2]), _count(args[3], 1)))
    if verb == "move":
        _arity(verb, args, 2)
        return Action(verb, (_ship(args[0]), _quadrant(args[1])))
    if verb == "give":
        _arity(verb, args, 3)
        return Action(verb, (_seat(args[0]), _seat(args[1]), _count(args[2], 1)))
    if verb == "attack":
        _arity(verb, args, 2)
        ships = [_ship(s) for s in args[1].split(",")]
        if len(set(ships)) != len(ships):
            raise ValueError(f"names a ship twice in {args[1]!r}")
        return Action(verb, (_holder(args[0]), ",".join(ships)))
    if verb == "lend":
        _arity(verb, args, 1)
        if args[0].lower() not in ("yes", "no"):
            raise ValueError(f"{args[0]!r} is not yes or no")
        return Action(verb, (args[0].lower(),))
    if verb == "defend":
        _arity(verb, args, 1)
        if args[0].lower() == "none":
            return Action(verb, ("none",))
        ships = [_ship(s) for s in args[0].split(",")]
        if len(set(ships)) != len(ships):
            raise ValueError(f"names a ship twice in {args[0]!r}")
        return Action(verb, (",".join(ships),))
    if verb in ("strike", "counter"):
        _arity(verb, args, 1)
        return Action(verb, (_count(args[0], 1 if verb == "strike" else 0),))
    if verb == "damage":
        if not args:
            raise ValueError("names no unit")
        out: list[Damage] = []
        for token in args:
            match = UNIT.fullmatch(token.lower())
            if not match:
                raise ValueError(f"{token!r} is not UNIT:LOST[/SHIELDS][!] like s4:1/2")
            unit = _holder(match["unit"])
            if any(d.unit == unit for d in out):
                raise ValueError(f"names {unit} twice")
            out.append(Damage(unit, int(match["lost"]), int(match["shields"] or 0),
                              bool(match["bang"])))
        return Action(verb, damage=tuple(out))
    if verb == "steal":
        _arity(verb, args, 1)
        return Action(verb, ("none" if args[0].lower() == "none" else _holder(args[0]),))
    if verb in ("event", "discard"):
        if not rest:
            raise ValueError("names no card")
        return Action(verb, (rest,))
    if verb == "token":
        _arity(verb, args, 1)
        if args[0].lower() not in ("skip", "renew"):
            raise ValueError(f"{args[0]!r} is not skip or renew")
        return Action(verb, (args[0].lower(),))
    raise ValueError("is not a verb")  # unreachable: verbs are checked first


def parse(text: str) -> Action:
    """The action written in ``text``; NotationError names it and the expected form."""
    if not isinstance(text, str):
        raise NotationError(f"{text!r} is not an action (a line of text)")
    words = text.split()
    if not words:
        raise NotationError("an empty line is not an action; write e.g. 'end' or 'move s3 S1Q4'")
    verb = words[0].lower()
    if verb not in FORMS:
        raise NotationError(
            f"{text.strip()!r}: {words[0]!r} is not an action; the actions are "
            f"{', '.join(FORMS)}")
    rest = text.strip()[len(words[0]):].strip()
    try:
        return _parse_args(verb, words[1:], rest)
    except ValueError as exc:
        raise NotationError(f"{text.strip()!r}: {verb} {exc}; write {FORMS[verb]!r}") from None


__all__ = ["FORMS", "Action", "Damage", "NotationError", "parse"]
