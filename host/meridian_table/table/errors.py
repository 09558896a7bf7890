"""The table's refusal: an input the table cannot carry out now, in words."""

from __future__ import annotations

from meridian_table.i18n import WordsError


class SessionError(WordsError):
    """A command the session cannot carry out (its message says why and what to do): an
    English text the catalog says in the table's language, or :class:`Words`."""


__all__ = ["SessionError"]
