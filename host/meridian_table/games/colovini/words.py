"""Colovini's actions and towers in words: what the page says about a move, a logged
move, a tower, and what a person answers to make a move (the hand model).

:class:`TowerWords` is a mixin of :class:`meridian_table.games.colovini.adapter.ColoviniAdapter`.
"""

from __future__ import annotations

import logging

from meridian_table.games import colovini
from meridian_table.games.colovini import Action, city_id
from meridian_table.games.colovini.dialogue import CARD, HEIGHT, MERIDIAN, REMOVE_OWN, WHERE
from meridian_table.i18n import _

LOGGER = logging.getLogger(__name__)


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


__all__ = ["TowerWords"]
