"""What every game's record parser allows in its headers, and how a record carries a data
file (a map, a card set) without naming a path.

A record is text someone may hand over: its headers are bounded (count and length), and a
data file is either named by a shipped name (``Map: sample-50``) or carried whole in a
``<Key>-Text:`` header as a JSON string (``Map-Text: "name = \\"Mine\\"\\n..."``). A
header never names a file to read on the machine that reads the record.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

LOGGER = logging.getLogger(__name__)

#: The most headers a record may have (the games write fewer than 15).
MAX_HEADERS = 100
#: The longest header line, in characters: room for a map's text as JSON.
MAX_HEADER_CHARS = 256 * 1024


class HeaderError(ValueError):
    """A header the record may not have; the game's parser adds the line."""


def check_count(count: int) -> None:
    """Refuse the ``count``-th header when there are too many."""
    if count > MAX_HEADERS:
        raise HeaderError(f"more than {MAX_HEADERS} headers; a record has a few headers, a "
                          "blank line, then its moves")


def check_line(line: str) -> None:
    if len(line) > MAX_HEADER_CHARS:
        raise HeaderError(f"a header line of {len(line):,} characters, over the limit of "
                          f"{MAX_HEADER_CHARS:,}")


def text_header(key: str) -> str:
    """The header that carries the text of data file ``key``: ``Map`` -> ``Map-Text``."""
    return f"{key}-Text"


def encode_text(text: str) -> str:
    """A data file's text as a one-line header value."""
    return json.dumps(text, ensure_ascii=True)


def data_from_headers(headers: Mapping[str, str], key: str, shipped: tuple[str, ...],
                      default: str | None) -> tuple[str | None, str | None]:
    """``(name, text)`` of data file ``key`` (``Map``) in a record's headers: a shipped
    name, or the text carried in ``<key>-Text`` (``name`` then only names it). A name
    that is neither is a :class:`HeaderError`: a record never names a file to read."""
    name = headers.get(key, default)
    carried = headers.get(text_header(key))
    if carried is not None:
        try:
            text = json.loads(carried)
        except ValueError:
            text = None
        if not isinstance(text, str):
            raise HeaderError(f"{text_header(key)} is not the text of a file as a JSON string "
                              "(as export writes it)")
        return name, text
    if name is None or name in shipped:
        return name, None
    raise HeaderError(
        f"{key} {name[:80]!r} is not a shipped {key.lower()} ({', '.join(shipped)}); a record "
        f"carries its own {key.lower()} in a {text_header(key)!r} header (export writes it) "
        "and never names a file")


__all__ = ["MAX_HEADERS", "MAX_HEADER_CHARS", "HeaderError", "check_count", "check_line",
           "data_from_headers", "encode_text", "text_header"]
