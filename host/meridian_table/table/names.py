"""Player names given on the page (the new-game form, renaming before the first move)."""

from __future__ import annotations

from collections.abc import Sequence

from meridian_table.i18n import _

#: The longest name the page may give (the store takes any; the page lays out these).
MAX_NAME_CHARS = 40


class PlayerNameError(ValueError):
    """A name the page gave that cannot be used (empty, too long or given twice)."""


def clean_names(names: Sequence[str]) -> tuple[str, ...]:
    """``names`` with runs of spaces made one; refuses an empty, too long or repeated
    name (case and spaces aside), naming it and its number."""
    cleaned = tuple(" ".join(str(name).split()) for name in names)
    seen: dict[str, int] = {}
    for number, name in enumerate(cleaned, start=1):
        if not name:
            raise PlayerNameError(_("name {number} is empty; give each player a name").format(
                number=number))
        if len(name) > MAX_NAME_CHARS:
            raise PlayerNameError(
                _("name {number} ({start}...) is longer than {most} characters; shorten it")
                .format(number=number, start=name[:20], most=MAX_NAME_CHARS))
        key = name.casefold()
        if key in seen:
            raise PlayerNameError(
                _("{name} is named twice (players {first} and {second}); give each player a "
                  "different name").format(name=name, first=seen[key], second=number))
        seen[key] = number
    return cleaned
