"""Reading Empire in Space map and card files: the shipped ones (package data, through
importlib.resources) or the user's own (a path). All the checking is in ``data_files``."""

from __future__ import annotations

import logging
from importlib import resources

from meridian_table import datafile
from meridian_table.games.empire.data_files import (
    BoardMap,
    CardSet,
    DataError,
    check_pair,
    parse_cards,
    parse_map,
)

LOGGER = logging.getLogger(__name__)

SHIPPED_MAPS = ("sample",)
SHIPPED_CARDS = ("sample",)
WHAT = {"map": "map", "cards": "card set"}


def _read(ref: str, kind: str, shipped: tuple[str, ...]) -> tuple[str, str]:
    """``(text, source name)`` of a shipped file (by name) or a path."""
    if ref in shipped:
        name = f"{ref}-{kind}.toml"
        text = resources.files("meridian_table.games.empire").joinpath("data", name).read_text(
            encoding="utf-8")
        return text, name
    try:
        return datafile.read_text(ref, what=WHAT[kind]), ref
    except datafile.DataFileError as exc:
        raise DataError(ref, None, "(file)", exc.problem,
                        f"{exc.fix}, or name a shipped {WHAT[kind]} ({', '.join(shipped)})"
                        ) from None


def map_text(ref: str) -> tuple[str, str]:
    return _read(ref, "map", SHIPPED_MAPS)


def cards_text(ref: str) -> tuple[str, str]:
    return _read(ref, "cards", SHIPPED_CARDS)


def load_map(ref: str = "sample") -> BoardMap:
    text, source = map_text(ref)
    return parse_map(text, source)


def load_cards(ref: str = "sample") -> CardSet:
    text, source = cards_text(ref)
    return parse_cards(text, source)


def load_pair(map_ref: str = "sample", cards_ref: str = "sample") -> tuple[BoardMap, CardSet]:
    """Both files, checked together; nothing is returned unless both are whole."""
    board = load_map(map_ref)
    cards = load_cards(cards_ref)
    check_pair(board, cards, map_ref, cards_ref)
    return board, cards


__all__ = ["SHIPPED_CARDS", "SHIPPED_MAPS", "cards_text", "load_cards", "load_map", "load_pair",
           "map_text"]
