"""The fields of a command from the page, checked at the boundary.

A command arrives as any JSON the sender liked. Each field is read here with its type
and bounds, so a wrong one is refused with a message naming the field and what it
must be, and nothing deeper in the table ever sees a float where it wants a game
number, or a list where it wants a name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_TEXT = 200  # characters: longer than any site, button, colour or option name
MAX_ID = (1 << 63) - 1  # SQLite's largest integer key


class CommandFieldError(ValueError):
    """A command field of the wrong type or out of bounds; the message says which."""


def text(cmd: Mapping[str, Any], key: str, default: str = "") -> str:
    """``cmd[key]`` as text (``default`` when absent); a number is taken as its digits."""
    value = cmd.get(key, default)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise CommandFieldError(
            f"the command's {key!r} must be text, not {type(value).__name__} {value!r:.40}"
        )
    if len(value) > MAX_TEXT:
        raise CommandFieldError(
            f"the command's {key!r} is {len(value)} characters long; the limit is {MAX_TEXT}"
        )
    return value


def game_id(cmd: Mapping[str, Any], key: str = "game_id") -> int:
    """``cmd[key]`` as a logged game's number: a whole number 1..2**63-1 (or its digits)."""
    value = cmd.get(key)
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 19:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ID:
        raise CommandFieldError(
            f"the command's {key!r} must be a game number (a whole number from 1 up, as "
            f"`meridian-table games` lists), not {value!r:.40}"
        )
    return value


def whole(cmd: Mapping[str, Any], key: str, low: int, high: int) -> int | None:
    """``cmd[key]`` as a whole number from ``low`` to ``high``; None when absent."""
    value = cmd.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise CommandFieldError(
            f"the command's {key!r} must be a whole number from {low} to {high}, not "
            f"{value!r:.40}"
        )
    return value


def seconds(cmd: Mapping[str, Any], key: str, low: float, high: float) -> float | None:
    """``cmd[key]`` as a number of seconds from ``low`` to ``high``; None when absent."""
    value = cmd.get(key)
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not low <= value <= high):
        raise CommandFieldError(
            f"the command's {key!r} must be a number of seconds from {low:g} to {high:g}, "
            f"not {value!r:.40}"
        )
    return float(value)
