"""End-of-game scoring: island control, points, totals and the tie-break.

A garrison (a tower, whatever its height) counts 1 in an ordinary city and 2 in a
capital. The strictly largest total on an island takes it, and a tie leaves it
unassigned. An island is worth its value (by default its number of cities). Ties in the
final score go to the player with more pieces left in hand.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from meridian_table.games.colovini.maps import BoardMap
from meridian_table.i18n import Words, say

LOGGER = logging.getLogger(__name__)


class ScoreError(ValueError):
    """Garrisons that do not fit the map or the players."""


@dataclass(frozen=True)
class IslandScore:
    """One island's outcome: each player's strength there, the owner (or None) and points."""

    key: str
    name: str
    cities: tuple[str, ...]
    value: int
    strengths: Mapping[Hashable, int]
    owner: Hashable | None
    points: int

    @property
    def tied(self) -> bool:
        """True when garrisons stand here but no single player is strongest."""
        return self.owner is None and bool(self.strengths)

    @property
    def verdict(self) -> str:
        """A short sentence in the style of the rule book's Fig. D."""
        if not self.strengths:
            return f"{self.name}: no garrison, not assigned"
        parts = ", ".join(f"{p} {s}" for p, s in self.strengths.items())
        if self.owner is None:
            return f"{self.name}: tied ({parts}), not assigned"
        return f"{self.name}: {self.owner} takes it ({parts}) for {self.points}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "island": self.key,
            "name": self.name,
            "cities": list(self.cities),
            "value": self.value,
            "strengths": {str(p): s for p, s in self.strengths.items()},
            "owner": None if self.owner is None else str(self.owner),
            "tied": self.tied,
            "points": self.points,
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class Score:
    """Every island's outcome, the totals, the winners and how the tie-break went."""

    islands: tuple[IslandScore, ...]
    totals: Mapping[Hashable, int]
    winners: tuple[Hashable, ...]
    tie_break: str
    pieces_left: Mapping[Hashable, int] | None = None
    #: The tie-break sentence as a message id and its arguments (``tie_break`` is it in
    #: English), said in a page's language by :meth:`as_dict`.
    tie_break_words: Words | None = None

    def as_dict(self, lang: str = "en") -> dict[str, Any]:
        """The score as the scoring page reads it, its sentence in ``lang``."""
        words = self.tie_break_words
        return {
            "islands": [i.as_dict() for i in self.islands],
            "totals": {str(p): t for p, t in self.totals.items()},
            "winners": [str(w) for w in self.winners],
            "tie_break": words.said(lang) if words is not None else self.tie_break,
            "pieces_left": None if self.pieces_left is None
            else {str(p): n for p, n in self.pieces_left.items()},
        }


def _names(players: Iterable[Hashable]) -> str | Words:
    names = [str(p) for p in players]
    return names[0] if len(names) == 1 else say("{some} and {last}", some=", ".join(names[:-1]),
                                                  last=names[-1])


def score(
    board_map: BoardMap,
    garrisons: Mapping[str, Hashable],
    players: Iterable[Hashable] | None = None,
    pieces_left: Mapping[Any, int] | None = None,
) -> Score:
    """Score a final position. ``garrisons`` maps city id -> player.

    ``players`` (default: everyone holding a garrison, in order of first appearance)
    fixes who appears in the totals. ``pieces_left`` (pieces still in hand) breaks a tie
    in the totals; without it, tied leaders are all returned as winners.
    """
    for city in garrisons:
        if city not in board_map.cities:
            raise ScoreError(
                f"garrison on {city!r}, which is not a city of map {board_map.name!r}; "
                f"cities are named like '3.1' (meridian 1..10, index 1..{board_map.side})"
            )
    seats: list[Hashable] = list(players) if players is not None else []
    if players is None:
        for owner in garrisons.values():
            if owner not in seats:
                seats.append(owner)
    else:
        for city, owner in garrisons.items():
            if owner not in seats:
                raise ScoreError(f"garrison on {city!r} belongs to {owner!r}, not one of {seats!r}")
    totals: dict[Hashable, int] = {p: 0 for p in seats}
    islands: list[IslandScore] = []
    for island in board_map.islands.values():
        strengths: dict[Hashable, int] = {}
        for city in island.cities:
            owner = garrisons.get(city)
            if owner is not None:
                strengths[owner] = strengths.get(owner, 0) + board_map.cities[city].strength
        ordered = {p: strengths[p] for p in seats if p in strengths}
        owner_: Hashable | None = None
        if ordered:
            top = max(ordered.values())
            leaders = [p for p, s in ordered.items() if s == top]
            owner_ = leaders[0] if len(leaders) == 1 else None
        points = island.value if owner_ is not None else 0
        if owner_ is not None:
            totals[owner_] += points
        islands.append(IslandScore(island.key, island.name, island.cities, island.value,
                                   ordered, owner_, points))
    winners, explanation = _winners(totals, pieces_left)
    return Score(tuple(islands), totals, winners, explanation.english(),
                 dict(pieces_left) if pieces_left is not None else None, explanation)


def _winners(
    totals: Mapping[Hashable, int], pieces_left: Mapping[Hashable, int] | None
) -> tuple[tuple[Hashable, ...], Words]:
    if not totals:
        return (), say("no players")
    best = max(totals.values())
    leaders = [p for p, t in totals.items() if t == best]
    if len(leaders) == 1:
        return (leaders[0],), say("{seat} wins with {points} points; no tie-break needed.",
                                  seat=str(leaders[0]), points=best)
    tied = say("{seats} tie on {points} points", seats=_names(leaders), points=best)
    if pieces_left is None:
        return tuple(leaders), say(
            "{tied}; the player with most pieces left in hand wins: give the pieces left to "
            "break the tie.", tied=tied)
    missing = [p for p in leaders if p not in pieces_left]
    if missing:
        raise ScoreError(f"pieces left in hand are missing for {missing!r}; give them for every tied player")
    most = max(pieces_left[p] for p in leaders)
    still = [p for p in leaders if pieces_left[p] == most]
    counts = ", ".join(f"{p} {pieces_left[p]}" for p in leaders)
    if len(still) == 1:
        return (still[0],), say(
            "{tied}; {seat} has the most pieces left in hand ({counts}) and wins.",
            tied=tied, seat=str(still[0]), counts=counts)
    return tuple(still), say(
        "{tied} and {seats} also tie on pieces left in hand ({counts}): they share the win.",
        tied=tied, seats=_names(still), counts=counts)
