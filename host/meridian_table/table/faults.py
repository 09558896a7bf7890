"""Board faults (the firmware's FAULT lines) in words for the maker or the players."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from meridian_table.link import fields as grammar


def fault_text(
    code: str, detail: tuple[str, ...], where: Callable[[int], str], profile: str
) -> str:
    """The fault: what it means and what to do. ``where(pos)`` names a matrix position."""
    args = " ".join(detail)
    if code == "GHOST":
        try:
            # The same strict grammar as every number from the board (no "-1", "+5", "1_0").
            # A position off this board is still named (``where`` says "no site").
            pos = grammar.dec(detail[0], "GHOST position", 65535)
        except (IndexError, ValueError):
            return f"Ghost switch reported ({args or 'no position'}): a diode is missing"
        place = where(pos)
        return (
            f"Ghost switch at matrix position {pos} ({place}): it looks closed only "
            "because three other switches of a rectangle through it are closed. A diode "
            f"is missing or reversed in that rectangle: check the diodes of {place}'s "
            "row and column. The board holds the ghost back, so no move is read from it."
        )
    if code == "CONFIG":
        what = f"{detail[0]!r} is {' '.join(detail[1:]) or 'bad'}" if detail else "it is bad"
        return (
            f"The board's configuration is wrong: {what}. It keeps scanning but shows "
            f"the fault pattern; write the profile's config to it again "
            f"(meridian-table flash --profile {profile})."
        )
    if code == "OVERFLOW":
        return (
            f"The board's event buffer overflowed ({args or 'some'} changes not queued); "
            "it sent its whole occupancy instead, so nothing is lost."
        )
    if code == "EXC":
        return (
            f"The board's firmware caught an error ({args or 'unknown'}) and carried on. "
            "If it repeats, run `meridian-table monitor` and report what it shows."
        )
    return f"The board reported fault {code} {args}".rstrip() + "."




#: The distinct board faults kept for the page (the oldest is dropped first).
MAX_FAULTS = 20


class Faults:
    """The board's distinct faults for the page, each with its sentence and a count
    (the firmware repeats a config fault every second: a repeat only counts)."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}

    def add(self, code: str, detail: tuple[str, ...], where: Callable[[int], str],
            profile: str) -> str | None:
        """Count the fault; returns its sentence when it is new (to log), else None."""
        key = (code, detail)
        known = self._seen.get(key)
        if known is not None:
            known["count"] += 1
            return None
        text = fault_text(code, detail, where, profile)
        if len(self._seen) >= MAX_FAULTS:
            self._seen.pop(next(iter(self._seen)))  # the oldest makes room
        self._seen[key] = {"code": code, "detail": list(detail), "text": text, "count": 1}
        return text

    def to_json(self) -> list[dict[str, Any]]:
        return [dict(f, detail=list(f["detail"])) for f in self._seen.values()]


__all__ = ["MAX_FAULTS", "Faults", "fault_text"]
