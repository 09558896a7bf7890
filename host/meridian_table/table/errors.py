"""The table's refusal: an input the table cannot carry out now, in words."""

from __future__ import annotations


class SessionError(ValueError):
    """A command the session cannot carry out (its message says why and what to do)."""


__all__ = ["SessionError"]
