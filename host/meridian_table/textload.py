"""JSON and TOML readers that turn any input into data or their normal decode error.

``json.loads`` and ``tomllib.loads`` raise ``RecursionError`` (not their decode error)
on input nested a few thousand levels deep, and data nested nearly that deep makes
every later ``repr`` or walk over it fail the same way. Every file and message the
host reads goes through here: input nested deeper than ``MAX_DEPTH`` is refused with
``json.JSONDecodeError`` or ``tomllib.TOMLDecodeError``, which each caller already
turns into its "not valid JSON/TOML" message naming the file.
"""

from __future__ import annotations

import json
import sys
import tomllib
from typing import Any

MAX_DEPTH = 64  # levels of lists and tables; a Meridian file needs fewer than ten

_TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep (a Meridian file needs far fewer)"


def _depth_ok(data: object) -> bool:
    """True when no list or dict in ``data`` lies deeper than MAX_DEPTH (iterative)."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > MAX_DEPTH:
            return False
        stack.extend((child, depth + 1) for child in children)
    return True


def _deep_at(text: str) -> int:
    """Where the nesting first passes MAX_DEPTH (an offset), skipping quoted strings;
    0 when the scan finds no such place (the depth came from somewhere subtler)."""
    depth = 0
    quote = ""
    escaped = False
    for at, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return at
        elif char in "]}":
            depth -= 1
    return 0


def json_loads(text: str | bytes) -> Any:
    """``json.loads(text)``; too deep a nesting, bytes that are not UTF-8 (``FF FE``: JSON
    is UTF-8, never guessed) and a number past Python's 4,300-digit limit raise
    ``json.JSONDecodeError``."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise json.JSONDecodeError(f"not UTF-8 text (byte {exc.start} is "
                                       f"0x{text[exc.start]:02X})", "", 0) from None
    try:
        data = json.loads(text)
        deep = not _depth_ok(data)
    except RecursionError:
        deep = True
    except json.JSONDecodeError:
        raise
    except ValueError:  # int(): "Exceeds the limit (4300 digits) for integer string ..."
        raise json.JSONDecodeError(
            f"a number has more than {sys.get_int_max_str_digits():,} digits", text, 0
        ) from None
    if deep:
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError(_TOO_DEEP, doc, _deep_at(doc))
    return data


def toml_loads(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``; too deep a nesting raises ``tomllib.TOMLDecodeError``."""
    try:
        data = tomllib.loads(text)
        deep = not _depth_ok(data)
    except RecursionError:
        deep = True
    if deep:
        line = text.count("\n", 0, _deep_at(text)) + 1
        raise tomllib.TOMLDecodeError(f"{_TOO_DEEP} (at line {line})")
    return data
