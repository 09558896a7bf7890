"""The record format of Colovini's Meridian: headers, a blank line, one action per line.

```
Game: colovini
Players: 4
Map: sample-50
Deck: digital
Seed: 1234
Names: Ann, Bob, Cid, Dee

1. 3:3.2=4
2. 1-2-3:1.1=2
3. 7:pass
```

Lines starting with ``#`` are comments. The option headers (Players, Map, Deck, Seed,
Names) recreate the game; any other header is kept as it is. Actions use the notation of
:class:`~meridian_table.games.colovini.engine.Action`. Errors name line and column.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

from meridian_table.games import record_headers
from meridian_table.games.colovini.engine import Game, IllegalActionError, NotationError, new_game
from meridian_table.games.colovini.maps import MapError, shipped_maps

LOGGER = logging.getLogger(__name__)

GAME = "colovini"
OPTION_HEADERS = {"Players": "players", "Map": "map", "Deck": "deck", "Seed": "seed", "Names": "names"}
MAP_TEXT = record_headers.text_header("Map")


class RecordError(ValueError):
    """A record that cannot be read; ``line`` and ``column`` are 1-based."""

    def __init__(self, line: int, column: int, problem: str) -> None:
        super().__init__(f"line {line}, column {column}: {problem}")
        self.line = line
        self.column = column


def export(engine: Game, headers: Mapping[str, str] | None = None) -> str:
    """The record of ``engine``: the game's options, ``headers`` and every action."""
    out = [f"Game: {GAME}"]
    options = engine.options
    for header, key in OPTION_HEADERS.items():
        value = options[key]
        if value is None:
            continue
        out.append(f"{header}: {', '.join(value) if key == 'names' else value}")
    if options.get("map_text") and options["map"] not in shipped_maps():
        # The map travels with the record: a record never names a file (SECURITY.md).
        out.append(f"{MAP_TEXT}: {record_headers.encode_text(options['map_text'])}")
    for key, value in (headers or {}).items():
        if key in OPTION_HEADERS or key in ("Game", MAP_TEXT):
            continue
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", key) or "\n" in str(value):
            raise ValueError(f"header {key!r}: {value!r} must be a word and a one-line value")
        out.append(f"{key}: {value}")
    if engine.is_over:
        final = engine.result()
        out.append("Result: " + ", ".join(f"{p} {t}" for p, t in final.totals.items()))
    out.append("")
    out.extend(f"{n}. {step.action.notation()}" for n, step in enumerate(engine.steps, start=1))
    return "\n".join(out) + "\n"


def parse(text: str) -> tuple[dict[str, str], Game]:
    """Read a record: ``(headers, engine)`` with every action replayed and checked."""
    headers: dict[str, str] = {}
    lines = text.splitlines()
    n = 0
    header_line: dict[str, int] = {}
    while n < len(lines) and lines[n].strip():
        line = lines[n]
        n += 1
        if line.lstrip().startswith("#"):
            continue
        try:
            record_headers.check_line(line)
            record_headers.check_count(len(headers) + 1)
        except record_headers.HeaderError as exc:
            raise RecordError(n, 1, str(exc)) from None
        key, sep, value = line.partition(":")
        if not sep or not key.strip():
            raise RecordError(n, 1, f"header {line[:80]!r} is not 'Key: value'")
        headers[key.strip()] = value.strip()
        header_line[key.strip()] = n
    if headers.get("Game", GAME).lower() != GAME:
        raise RecordError(header_line["Game"], 7, f"this is a {headers['Game']!r} record, not {GAME!r}")
    options: dict[str, object] = {}
    for header, key in OPTION_HEADERS.items():
        if header in headers:
            raw = headers[header]
            options[key] = [s.strip() for s in raw.split(",")] if key == "names" else raw
    try:
        name, carried = record_headers.data_from_headers(headers, "Map", shipped_maps(), None)
    except record_headers.HeaderError as exc:
        raise RecordError(header_line.get("Map", header_line.get(MAP_TEXT, 1)), 1,
                          str(exc)) from None
    if carried is not None:
        options["map_text"] = carried
        options["map"] = name or "map"
    try:
        if "players" in options:
            options["players"] = int(str(options["players"]))
        if "seed" in options:
            options["seed"] = int(str(options["seed"]))
        engine = new_game(**options)
    except (ValueError, MapError) as exc:
        where = min((header_line[h] for h in OPTION_HEADERS if h in header_line), default=1)
        raise RecordError(where, 1, f"the headers do not make a game: {exc}") from exc
    expected = 1
    for k in range(n, len(lines)):
        line = lines[k]
        body = line.split("#", 1)[0]
        if not body.strip():
            continue
        match = re.match(r"\s*(\d+)\s*\.\s*", body)
        if not match:
            raise RecordError(k + 1, 1, f"{line.strip()!r} is not '<number>. <action>'")
        if int(match.group(1)) != expected:
            raise RecordError(k + 1, match.start(1) + 1,
                              f"action number {match.group(1)}, expected {expected}")
        column = match.end() + 1
        try:
            engine.play(body[match.end():].strip())
        except (NotationError, IllegalActionError) as exc:
            raise RecordError(k + 1, column, str(exc)) from exc
        expected += 1
    LOGGER.debug("parsed a colovini record with %d actions", expected - 1)
    return headers, engine
