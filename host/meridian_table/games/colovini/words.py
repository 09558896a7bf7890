"""Colovini's actions and towers in words: what the page says about a move, a logged
move, a tower, and what a person answers to make a move (the hand model).

:class:`TowerWords` is a mixin of :class:`meridian_table.games.colovini.adapter.ColoviniAdapter`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, cast

from meridian_table.games import colovini
from meridian_table.games.colovini import Action, city_id
from meridian_table.games.colovini.dialogue import CARD, HEIGHT, MERIDIAN, REMOVE_OWN, WHERE, listed
from meridian_table.games.colovini.meridian import Column
from meridian_table.i18n import _, seat_word

LOGGER = logging.getLogger(__name__)


def tall(heights: list[int]) -> str:
    """``[2, 3, 4]`` -> "2 to 4 high"; ``[5]`` -> "5 high"."""
    low, high = min(heights), max(heights)
    if low == high:
        return _("{height} high").format(height=low)
    return _("{low} to {high} high").format(low=low, high=high)


def city_words(city: str) -> str:
    """``"3.2"`` -> "meridian 3, city 2" (the board's own names for a city)."""
    meridian, _dot, index = city.partition(".")
    return _("meridian {meridian}, city {city}").format(meridian=meridian, city=index)


def summarise(actions: list[Action], column: Column, meridian: int,
              colours: tuple[str, ...]) -> str:
    """What the mover may build on ``meridian``, in words: "a new tower on city 2, 3 or 4
    (2 to 20 high); on city 1 (3 to 18 high), pushing Black's tower south; or lift your
    tower from city 2 to take it off"."""
    del meridian  # the message names it
    groups: dict[tuple[str, int | None], dict[int, list[int]]] = {}
    removals: list[str] = []
    for action in actions:
        if action.kind == "remove":
            removals.append(str(action.remove))
        elif action.kind == "place":
            occupant = column[action.city - 1]
            push = None
            seat: int | None = None
            if occupant is not None:
                push = "north" if action.height < occupant[1] else "south"
                seat = cast(int, occupant[0])
            key = (push or "", seat)
            groups.setdefault(key, {}).setdefault(action.city, []).append(action.height)
    parts: list[str] = []
    for (push, seat), cities in groups.items():
        by_span: dict[str, list[str]] = {}
        for city, heights in sorted(cities.items()):
            by_span.setdefault(tall(heights), []).append(str(city))
        for span, where in by_span.items():
            if not push or seat is None:
                parts.append(_("a new tower on city {cities} ({span})").format(
                    cities=listed(where), span=span))
                continue
            what = (_("pushing {seat}'s tower north") if push == "north"
                    else _("pushing {seat}'s tower south")).format(seat=seat_word(colours[seat]))
            parts.append(_("on city {cities} ({span}), {push}").format(
                cities=listed(where), span=span, push=what))
    if removals:
        parts.append(_("lift your tower from city {cities} to take it off").format(
            cities=listed(removals)))
    rebuilds = sum(1 for a in actions if a.kind == "rebuild")
    if rebuilds:
        parts.append(_("lift your tower and build it again ({n} ways)").format(n=rebuilds))
    return "; ".join(parts)


class TowerWords:
    """Moves and towers in words (a mixin of the Colovini adapter)."""

    # The adapter's state it reads.
    _engine: colovini.Game
    colours: tuple[str, ...]

    def describe(self, action: str) -> str:
        """``3:3.2=4`` -> "card 3: a 4-high tower on meridian 3, city 3.2, pushing ..."."""
        try:
            parsed = Action.parse(action)
        except ValueError:
            return action
        if parsed.meridian == 0:
            return f"play card {parsed.card} and pass"
        parts = []
        if parsed.remove:
            parts.append(f"lift the tower on {city_id(parsed.meridian, parsed.remove)}")
        if parsed.city:
            parts.append(f"build a {parsed.height}-high tower on "
                         f"{city_id(parsed.meridian, parsed.city)}")
        column = self._engine.state.columns[parsed.meridian - 1]
        if parsed.city and column[parsed.city - 1] is not None and parsed.city != parsed.remove:
            parts.append("pushing the tower standing there along the meridian")
        return f"card {parsed.card}: " + ", then ".join(parts)

    def about(self) -> dict[str, str]:
        """Each tower: its height and owner, its island and the garrisons there."""
        board_map = self._engine.board_map
        garrisons = self._engine.garrisons()
        out: dict[str, str] = {}
        for city, seat in garrisons.items():
            tower = self._engine.tower_at(city)
            height = tower[1] if tower else 0
            island = board_map.island_of(city)
            strength: dict[str, int] = {}
            for other in island.cities:
                holder = garrisons.get(other)
                if holder is not None:
                    name = self.colours[holder].capitalize()
                    strength[name] = strength.get(name, 0) + board_map.cities[other].strength
            held = ", ".join(f"{name} {n}" for name, n in sorted(strength.items(),
                                                                   key=lambda kv: -kv[1]))
            capital = " (a capital: its garrison counts 2)" if board_map.cities[city].capital else ""
            out[city] = (f"{city}: a {height}-high {self.colours[seat].capitalize()} tower"
                         f"{capital}; island {island.key}{f' {island.name}' if island.name else ''}, "
                         f"{island.value} points: garrisons {held}")
        return out

    def move_words(self, notation: str) -> str | None:
        """``4-5-6-7:4.1=3`` -> "card 4-5-6-7: a 3-high tower on meridian 4, city 1"."""
        try:
            parsed = Action.parse(notation)
        except ValueError:
            return None
        if parsed.meridian == 0:
            return _("discards card {card} and passes").format(card=parsed.card)
        parts = []
        if parsed.remove:
            parts.append(_("takes the tower off meridian {meridian}, city {city}").format(
                meridian=parsed.meridian, city=parsed.remove))
        if parsed.city:
            parts.append(_("a {height}-high tower on meridian {meridian}, city {city}").format(
                height=parsed.height, meridian=parsed.meridian, city=parsed.city))
        return _("card {card}: {what}").format(card=parsed.card, what=_(", then ").join(parts))

    def played_words(self, action: str, pushed: tuple[tuple[str, str], ...],
                     owners: Mapping[str, int]) -> str:
        """The move in words as it was played: :meth:`move_words` and the towers its push
        moved (``pushed``: from city, to city; ``owners``: city -> seat before the move),
        which the notation alone does not say."""
        words = self.move_words(action) or action
        moves = [_("{seat}'s tower from city {start} to city {end}").format(
                     seat=seat_word(self.colours[owners[start]]),
                     start=start.partition(".")[2], end=end.partition(".")[2])
                 for start, end in pushed if start in owners]
        if not moves:
            return words
        return _("{move}, pushing {towers}").format(move=words, towers=listed(moves, "and"))

    def person_inputs(self, action: str) -> tuple[tuple[str, str], ...]:
        """A person's answers for ``action``: the pass button and the card for a pass;
        else the meridian, the card, where and the height (a removal answers yes)."""
        parsed = Action.parse(action)
        if parsed.meridian == 0:
            return (("button", "pass"), (CARD, parsed.card))
        inputs = [(MERIDIAN, str(parsed.meridian)), (CARD, parsed.card)]
        if parsed.remove:
            inputs.append((REMOVE_OWN, "yes"))
        if parsed.city:
            inputs += [(WHERE, city_id(parsed.meridian, parsed.city)),
                       (HEIGHT, str(parsed.height))]
        return tuple(inputs)

    def scores(self) -> dict[str, Any]:
        result = self._engine.result()
        out: dict[str, Any] = {}
        for seat, colour in enumerate(self.colours):
            name = self._engine.names[seat]
            breakdown: list[dict[str, Any]] = []
            for island in result.islands:
                strength = island.strengths.get(name)
                if strength is None:
                    continue
                owner = (seat_word(self.colours[self._engine.names.index(str(island.owner))])
                         if island.owner is not None else "")
                verdict = _("takes it") if island.owner == name else (
                    _("tied") if island.owner is None
                    else _("{seat} takes it").format(seat=owner))
                breakdown.append({
                    "label": _("island {key} {name}: strength {strength}, {verdict}").format(
                        key=island.key, name=island.name, strength=strength, verdict=verdict),
                    "value": island.points if island.owner == name else 0,
                })
            breakdown.append({"label": _("pieces in hand"), "value": self._engine.hand(seat)})
            out[colour] = {"total": result.totals[name], "breakdown": breakdown}
        return out

    def _reason(self, totals: Mapping[Any, int]) -> str:
        """The result sentence in the table's language (the engine's ``tie_break`` says
        the same in English): the winner's points, or the tie and how it was broken."""
        def seat(player: object) -> str:
            return seat_word(self.colours[self._engine.names.index(str(player))])

        def listed(players: list[Any]) -> str:
            words = [seat(p) for p in players]
            return words[0] if len(words) == 1 else _("{some} and {last}").format(
                some=", ".join(words[:-1]), last=words[-1])

        if not totals:
            return ""
        best = max(totals.values())
        leaders = [p for p, t in totals.items() if t == best]
        if len(leaders) == 1:
            return _("{seat} wins with {points} points; no tie-break needed.").format(
                seat=seat(leaders[0]), points=best)
        tied = _("{seats} tie on {points} points").format(seats=listed(leaders), points=best)
        hands = {p: self._engine.hand(self._engine.names.index(str(p))) for p in leaders}
        most = max(hands.values())
        still = [p for p in leaders if hands[p] == most]
        counts = ", ".join(f"{seat(p)} {hands[p]}" for p in leaders)
        if len(still) == 1:
            return _("{tied}; {seat} has the most pieces left in hand ({counts}) and "
                     "wins.").format(tied=tied, seat=seat(still[0]), counts=counts)
        return _("{tied} and {seats} also tie on pieces left in hand ({counts}): they share "
                 "the win.").format(tied=tied, seats=listed(still), counts=counts)


__all__ = ["TowerWords"]
