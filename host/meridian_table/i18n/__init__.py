"""The table's words in English or French: gettext catalogs read with Babel.

``_("Light: place a stone")`` returns the message in the table's language. The French
catalog is ``locale/fr/LC_MESSAGES/meridian_table.po`` in this package, read with
Babel and compiled in memory on first use (no build step; the wheel carries the .po).
English is the source language, so it needs no catalog. The language is the table's
(``play --lang``, else the first page's browser, else the environment's ``LANG``): one
table, one language, since everyone at it reads the same board and hears the same words.

A message said later (an engine's reason for refusing a move, carried in its exception)
is a :class:`Words`: a message id (the English, with ``{placeholders}``) and its arguments,
made with ``say("the point {site} is occupied", site="G7")``. ``str()`` of it is the
English (logs, records, tests); :meth:`Words.said` is the table's language at the time it
is shown. A :class:`WordsError` carries one, and :func:`said` says any exception.

``tests/test_i18n.py`` fails when a message marked with ``_()``, ``N_()`` or ``say()`` has
no French entry.
"""

from __future__ import annotations

import gettext
import io
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeAlias

from meridian_table.resources import package_path

LOGGER = logging.getLogger(__name__)

DOMAIN = "meridian_table"
LANGUAGES = ("en", "fr")
NAMES = {"en": "English", "fr": "Français"}

_lock = threading.Lock()
_current = "en"


class LanguageError(ValueError):
    """A language the table does not speak."""


def catalog_path(lang: str) -> str:
    """Where the ``lang`` catalog (.po) lives in the package."""
    return str(package_path(__package__ or "meridian_table.i18n", "locale")
               / lang / "LC_MESSAGES" / f"{DOMAIN}.po")


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of ``lang`` (English: the messages as written)."""
    if lang == "en":
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo  # Babel only where French is spoken
    from babel.messages.pofile import read_po

    with open(catalog_path(lang), "rb") as handle:
        catalog = read_po(handle, locale=lang, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def choose(lang: str | None) -> str:
    """``lang`` checked (``fr``, ``fr-CA``, ``fr_FR.UTF-8``), or the environment's for
    None or ``auto``; anything not French is English only when it is not named."""
    if lang is None or lang == "auto":
        env = os.environ.get("LC_ALL") or os.environ.get("LC_MESSAGES") or os.environ.get("LANG") or ""
        return "fr" if env.lower().startswith("fr") else "en"
    short = lang.strip().replace("_", "-").split("-")[0].split(".")[0].lower()
    if short not in LANGUAGES:
        raise LanguageError(
            f"language {lang!r} is not one the table speaks; use one of {', '.join(LANGUAGES)}"
        )
    return short


def set_language(lang: str | None) -> str:
    """Make ``lang`` the table's language; returns it (see :func:`choose`)."""
    global _current
    chosen = choose(lang)
    translations(chosen)  # a broken catalog fails here, not in the middle of a game
    with _lock:
        _current = chosen
    LOGGER.info("table language: %s", chosen)
    return chosen


def language() -> str:
    """The table's language now."""
    return _current


def _(message: str) -> str:
    """``message`` in the table's language."""
    return translations(_current).gettext(message)


def N_(message: str) -> str:
    """Marks ``message`` for the catalog where it is translated later (a seat's word)."""
    return message


def seat_word(colour: str) -> str:
    """A seat's colour as a word in the table's language ("light" -> "Light" / "Clair")."""
    return _(colour.capitalize())


Arg: TypeAlias = "str | int | float | Words"


@dataclass(frozen=True)
class Words:
    """A message said later: its id (the English, with ``{placeholders}``) and its
    arguments, which may be Words themselves (a reason inside a sentence)."""

    id: str
    args: tuple[tuple[str, Arg], ...] = ()

    def _filled(self, template: str, parts: Mapping[str, Any]) -> str:
        try:
            return template.format(**parts)
        except (KeyError, IndexError, ValueError):  # a broken translation: say the English
            LOGGER.warning("message %r does not take the arguments %r", template, list(parts))
            return self.id.format(**parts)

    def english(self) -> str:
        """The message in English (the source language)."""
        return self._filled(self.id, {k: v.english() if isinstance(v, Words) else v
                                      for k, v in self.args})

    def said(self, lang: str | None = None) -> str:
        """The message in ``lang`` (a page's own language), by default the table's now."""
        template = translations(lang or _current).gettext(self.id)
        return self._filled(template, {k: v.said(lang) if isinstance(v, Words) else v
                                       for k, v in self.args})

    def __str__(self) -> str:
        return self.english()


def say(message: str, **args: Arg) -> Words:
    """``message`` (marked for the catalog) with ``args``, to be said when shown."""
    return Words(message, tuple(args.items()))


class WordsError(ValueError):
    """A refusal whose message is :class:`Words`: ``str()`` is the English, :func:`said`
    the table's language."""

    def __init__(self, words: Words | str) -> None:
        self.words = words if isinstance(words, Words) else Words(words)
        super().__init__(self.words.english())

    def __reduce__(self) -> tuple[Any, ...]:  # through a process pool: keep the Words
        return (type(self), (self.words,))


def said(exc: BaseException) -> str:
    """What ``exc`` says, in the table's language when it carries :class:`Words`."""
    if isinstance(exc, WordsError):
        return exc.words.said()
    return str(exc)


__all__ = ["LANGUAGES", "NAMES", "LanguageError", "N_", "Words", "WordsError", "_", "choose",
           "language", "said", "say", "seat_word", "set_language", "translations"]
