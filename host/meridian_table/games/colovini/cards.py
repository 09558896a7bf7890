"""The cards of Colovini's Meridian and the two kinds of deck.

Each colour has 13 cards: 1 to 10, plus 1-2-3, 4-5-6-7 and 8-9-10. A card names the
meridians a player may build on this turn. In the 2-player game each player holds the
cards of two colours (26 cards, each name twice).
"""

from __future__ import annotations

import logging

LOGGER = logging.getLogger(__name__)

CARDS: dict[str, tuple[int, ...]] = {
    **{str(n): (n,) for n in range(1, 11)},
    "1-2-3": (1, 2, 3),
    "4-5-6-7": (4, 5, 6, 7),
    "8-9-10": (8, 9, 10),
}
CARD_NAMES: tuple[str, ...] = tuple(CARDS)
DECK_KINDS = ("digital", "physical")


class CardError(ValueError):
    """A card name that does not exist, or a card that is not available to play."""


def card_meridians(card: str) -> tuple[int, ...]:
    """The meridians a card allows, e.g. ``"4-5-6-7"`` -> ``(4, 5, 6, 7)``."""
    try:
        return CARDS[card]
    except KeyError:
        raise CardError(
            f"card {card!r} does not exist; the cards are {', '.join(CARD_NAMES)}"
        ) from None


def full_deck(colours: int) -> tuple[str, ...]:
    """Every card of ``colours`` sets, in printed order."""
    return CARD_NAMES * colours
