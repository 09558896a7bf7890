"""Player names given on the page (the new-game form, renaming before the first move)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from meridian_table.i18n import _

#: The longest name the page may give (the store takes any; the page lays out these).
MAX_NAME_CHARS = 40


class PlayerNameError(ValueError):
    """A name the page gave that cannot be used (empty, too long or given twice)."""


#: Characters a name may not hold: they reorder or hide the text around them (bidi
#: controls such as U+202E RIGHT-TO-LEFT OVERRIDE) or are not text at all.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                  "\u2066\u2067\u2068\u2069")


def _bad_character(name: str) -> str | None:
    for char in name:
        if char in _BIDI or unicodedata.category(char) in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp"):
            return f"U+{ord(char):04X}"
    return None


def clean_names(names: Sequence[object]) -> tuple[str, ...]:
    """``names`` with runs of spaces made one; refuses a name that is not text, holds a
    control or text-direction character, is empty, too long or repeated (case and spaces
    aside), naming it and its number."""
    for number, name in enumerate(names, start=1):
        if not isinstance(name, str):
            raise PlayerNameError(
                _("name {number} ({value}) is not text; give each player a name in words")
                .format(number=number, value=str(name)[:20]))
        bad = _bad_character(name)
        if bad is not None:
            raise PlayerNameError(
                _("name {number} holds the character {code}, which is not shown as text "
                  "(a control or text-direction mark); type the name again").format(
                    number=number, code=bad))
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
