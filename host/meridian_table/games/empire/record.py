"""The record format of Empire in Space: headers, a blank line, one action per line.

```
Game: empire
Players: Ann, Bob, Cy
Mode: standard
Seed: 7
Map: sample
Cards: sample
Order: fixed

1. move s1 S1Q4
2. end
```

Lines starting with ``#`` are comments. Option headers (Players, Mode, Seed, Map, Cards,
Order, Guilds, Events) recreate the game; any other header is kept as it is. Errors name
the line, the column and what was wrong.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

from meridian_table.games import record_headers
from meridian_table.games.empire.data_files import DataError
from meridian_table.games.empire.engine import Game, IllegalActionError, new_game
from meridian_table.games.empire.files import SHIPPED_CARDS, SHIPPED_MAPS
from meridian_table.games.empire.notation import NotationError

LOGGER = logging.getLogger(__name__)

GAME = "empire"
HEADERS = ("Players", "Mode", "Seed", "Map", "Cards", "Order", "Guilds", "Events", "Starts",
           "Map-Text", "Cards-Text")
#: The data files a record carries: header, shipped names, the text's option.
DATA = (("Map", SHIPPED_MAPS, "map_text"), ("Cards", SHIPPED_CARDS, "cards_text"))


class RecordError(ValueError):
    """A record that cannot be read; ``line`` and ``column`` are 1-based, ``key`` names the
    header or the action number, ``source`` the file when known."""

    def __init__(self, line: int, column: int, problem: str, key: str = "",
                 source: str = "") -> None:
        where = f"{source}: " if source else ""
        what = f"{key}: " if key else ""
        super().__init__(f"{where}line {line}, column {column}: {what}{problem}")
        self.line = line
        self.column = column
        self.key = key
        self.source = source


def export(game: Game, headers: Mapping[str, str] | None = None) -> str:
    """The record of ``game``: its options, ``headers`` and every action played."""
    options = game.options
    out = [f"Game: {GAME}", f"Players: {', '.join(game.players)}", f"Mode: {game.mode}",
           f"Seed: {game.seed}", f"Map: {options['map']}", f"Cards: {options['cards']}",
           f"Order: {options['order']}"]
    if options.get("guilds"):
        out.append("Guilds: yes")
    if options.get("events"):
        out.append("Events: yes")
    if options.get("starts"):
        out.append(f"Starts: {options['starts']}")
    for key, shipped, text_key in DATA:
        # A file of one's own travels with the record: a record never names a file.
        if options.get(text_key) and options[key.lower()] not in shipped:
            out.append(f"{record_headers.text_header(key)}: "
                       f"{record_headers.encode_text(options[text_key])}")
    for key, value in (headers or {}).items():
        if key in HEADERS or key in ("Game", "Result"):
            continue
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", key) or "\n" in str(value):
            raise ValueError(f"header {key!r}: {value!r} must be a word and a one-line value")
        out.append(f"{key}: {value}")
    outcome = game.outcome()
    if outcome is not None:
        out.append("Result: " + (", ".join(game.name(w) for w in outcome.winners) or "none")
                   + f" ({outcome.reason})")
    out.append("")
    out.extend(f"{n}. {text}" for n, (text, _) in enumerate(game.history, start=1))
    return "\n".join(out) + "\n"


def _flag(value: str, line: int, key: str, source: str) -> bool:
    low = value.strip().lower()
    if low in ("yes", "true", "1"):
        return True
    if low in ("no", "false", "0"):
        return False
    raise RecordError(line, 1, f"{value!r} is not yes or no", key, source)


def parse(text: str, source: str = "") -> tuple[dict[str, str], Game]:
    """Read a record: ``(headers, game)`` with every action replayed and checked.
    ``source`` (a file name) is named in errors."""
    headers: dict[str, str] = {}
    where: dict[str, int] = {}
    lines = text.splitlines()
    n = 0
    while n < len(lines) and lines[n].strip():
        line = lines[n]
        n += 1
        if line.lstrip().startswith("#"):
            continue
        try:
            record_headers.check_line(line)
            record_headers.check_count(len(headers) + 1)
        except record_headers.HeaderError as exc:
            raise RecordError(n, 1, str(exc), "header", source) from None
        key, sep, value = line.partition(":")
        if not sep or not key.strip():
            raise RecordError(n, 1, f"header {line[:80]!r} is not 'Key: value'", "header",
                              source)
        headers[key.strip()] = value.strip()
        where[key.strip()] = n
    if headers.get("Game", GAME).lower() != GAME:
        raise RecordError(where["Game"], 7, f"this is a {headers['Game']!r} record, not {GAME!r}",
                          "Game", source)
    if "Players" not in headers:
        raise RecordError(1, 1, "the record has no 'Players:' header; add one, e.g. "
                          "'Players: Ann, Bob'", "Players", source)
    try:
        seed = int(headers["Seed"]) if "Seed" in headers else None
    except ValueError:
        raise RecordError(where["Seed"], 7, f"{headers['Seed']!r} is not a whole number",
                          "Seed", source) from None
    data: dict[str, tuple[str, str | None]] = {}
    for key, shipped, _text_key in DATA:
        try:
            name, carried = record_headers.data_from_headers(headers, key, shipped, "sample")
        except record_headers.HeaderError as exc:
            raise RecordError(where.get(key, 1), 1, str(exc), key, source) from None
        data[key] = (name or "sample", carried)
    try:
        game = new_game(
            players=[p.strip() for p in headers["Players"].split(",")],
            mode=headers.get("Mode", "standard"), seed=seed, map=data["Map"][0],
            cards=data["Cards"][0], order=headers.get("Order", "fixed"),
            map_text=data["Map"][1], cards_text=data["Cards"][1],
            guilds=_flag(headers["Guilds"], where["Guilds"], "Guilds", source)
            if "Guilds" in headers else False,
            events=_flag(headers["Events"], where["Events"], "Events", source)
            if "Events" in headers else False,
            starts=headers.get("Starts", ""),
        )
    except (ValueError, DataError) as exc:
        if isinstance(exc, RecordError):
            raise
        first = min(((where[h], h) for h in HEADERS if h in where), default=(1, "header"))
        raise RecordError(first[0], 1, f"the headers do not make a game: {exc}", first[1],
                          source) from None
    expected = 1
    for k in range(n, len(lines)):
        body = lines[k].split("#", 1)[0]
        if not body.strip():
            continue
        match = re.match(r"\s*(\d+)\s*\.\s*", body)
        if not match:
            raise RecordError(k + 1, 1, f"{lines[k].strip()!r} is not '<number>. <action>'",
                              f"action {expected}", source)
        if int(match.group(1)) != expected:
            raise RecordError(k + 1, match.start(1) + 1,
                              f"action number {match.group(1)}, expected {expected}",
                              f"action {expected}", source)
        try:
            game.play(body[match.end():].strip())
        except (NotationError, IllegalActionError) as exc:
            raise RecordError(k + 1, match.end() + 1, str(exc), f"action {expected}",
                              source) from None
        expected += 1
    LOGGER.debug("parsed an empire record with %d actions", expected - 1)
    return headers, game


__all__ = ["RecordError", "export", "parse"]
