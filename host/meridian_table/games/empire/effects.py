"""The effect vocabulary of Empire in Space abilities (planets, moons, waypoints, events,
guilds), as the card set writes them: a list of inline tables.

=============  =====================  ==========================================================
effect         fields                 meaning (for the card's controller, while it is in play)
=============  =====================  ==========================================================
cost           action, change         the cost of ``action`` changes by ``change`` (never
                                      below 1E: the book's free actions stay free, paid ones
                                      stay paid)
move           change                 quadrants per movement payment (the book's 2, plus this)
strikes        change                 strikes per encounter when attacking, beyond one per colony
shields        change                 shields per encounter, beyond one per colony aboard
counters       change                 counter-strikes per encounter, beyond one per colony
production     change                 planet and moon cards only: this body's cells
capacity       change                 planet and moon cards only: this body's colony capacity
waypoints      count                  waypoint cards only: its holder may hold ``count``
charges        change                 ``change`` charges once, when the card takes effect
=============  =====================  ==========================================================

``action`` is one of :data:`ACTIONS`. Anything else is an :class:`EffectError` that the
card loader turns into an error naming the file, the card and the field.
"""

from __future__ import annotations

from dataclasses import dataclass

ACTIONS = ("move-fighter", "move-frigate", "settle", "colony-planet", "colony-ship", "charge",
           "fighter", "frigate", "waypoint", "strike")
KINDS = ("cost", "move", "strikes", "shields", "counters", "production", "capacity",
         "waypoints", "charges")
#: Which card kinds may carry an effect (others: every kind).
ONLY_ON = {"production": ("planet", "moon"), "capacity": ("planet", "moon"),
           "waypoints": ("waypoint",)}


class EffectError(ValueError):
    """An ability the vocabulary cannot express. ``where`` is the field (``[0].action``)."""

    def __init__(self, where: str, problem: str, fix: str) -> None:
        super().__init__(f"ability{where}: {problem}; {fix}")
        self.where = where
        self.problem = problem
        self.fix = fix


@dataclass(frozen=True)
class Effect:
    """One effect: ``kind`` with its ``change`` (or ``count``) and, for cost, ``action``."""

    kind: str
    change: int = 0
    action: str = ""

    def describe(self) -> str:
        sign = f"{self.change:+d}"
        if self.kind == "cost":
            return f"{self.action} costs {sign}E"
        if self.kind == "waypoints":
            return f"holds {self.change} waypoints"
        return f"{self.kind} {sign}"


def _number(entry: dict[str, object], field: str, where: str, low: int, high: int) -> int:
    value = entry.get(field)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EffectError(f"{where}.{field}", f"is {value!r}",
                          f"write {field} = a whole number from {low} to {high}")
    return value


def parse_effect(entry: object, index: int, card_kind: str) -> Effect:
    where = f"[{index}]"
    if not isinstance(entry, dict):
        raise EffectError(where, f"is {entry!r}, not a table",
                          'write { effect = "move", change = 1 }')
    kind = entry.get("effect")
    if kind not in KINDS:
        raise EffectError(f"{where}.effect", f"{kind!r} is not in the effect vocabulary",
                          f"use one of {', '.join(KINDS)} (docs/games/empire.md), or leave the "
                          "ability out and apply it by hand")
    allowed = {"effect", "action", "change"} if kind == "cost" else (
        {"effect", "count"} if kind == "waypoints" else {"effect", "change"})
    extra = sorted(set(entry) - allowed)
    if extra:
        raise EffectError(f"{where}.{extra[0]}", f"is not a field of effect {kind!r}",
                          f"use only {', '.join(sorted(allowed))}")
    places = ONLY_ON.get(str(kind))
    if places is not None and card_kind not in places:
        raise EffectError(f"{where}.effect", f"{kind!r} cannot be on a {card_kind} card",
                          f"put it on a {' or '.join(places)} card")
    if kind == "waypoints":
        return Effect("waypoints", _number(entry, "count", where, 1, 4))
    change = _number(entry, "change", where, -3, 3)
    if change == 0:
        raise EffectError(f"{where}.change", "is 0", "write a change other than 0, or drop the effect")
    if kind == "cost":
        action = entry.get("action")
        if action not in ACTIONS:
            raise EffectError(f"{where}.action", f"{action!r} is not an action with a cost",
                              f"use one of {', '.join(ACTIONS)}")
        return Effect("cost", change, str(action))
    return Effect(str(kind), change)


def parse_ability(value: object, card_kind: str) -> tuple[Effect, ...]:
    if not isinstance(value, list):
        raise EffectError("", f"is {value!r}, not a list",
                          'write ability = [{ effect = "move", change = 1 }]')
    return tuple(parse_effect(entry, n, card_kind) for n, entry in enumerate(value))


__all__ = ["ACTIONS", "KINDS", "Effect", "EffectError", "parse_ability", "parse_effect"]
