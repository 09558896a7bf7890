"""Game records of Kato's Meridians: a plain-text format with headers and one ply a line.

```
Game: Kato's Meridians
Size: 6
Pie: no
Tournament: no
Player1: Ada
Player2: Brook
Date: 2025-03-14
Result: light

1. light G6
2. dark C4
3. light G2
4. dark C7
5. light pass
6. dark E5 overlooked F3
7. light D4  # removes E5
```

Headers are ``Key: value`` lines up to the first blank line; keys are case-insensitive
and unknown keys are kept. ``Player1`` moves first (Light, or the opener under pie).
Each move line is ``<number>. <colour> <move>``; the move is what ``Game.play`` takes.
``#`` starts a comment. A set-up game adds ``Setup: <position>`` and ``ToMove: <colour>``.
Every import error is a RecordError carrying ``line`` and ``column`` (1-based).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from meridian_table.games import record_headers
from meridian_table.games.kato.game import COLOURS, Game, IllegalMoveError

LOGGER = logging.getLogger(__name__)

TITLE = "Kato's Meridians"
_CANONICAL = ("Game", "Size", "Pie", "Tournament", "Player1", "Player2", "Date", "Result")
_TRUE = {"yes", "true", "1", "on"}
_FALSE = {"no", "false", "0", "off"}


class RecordError(ValueError):
    """A record that cannot be read. ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column


def _yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def result_of(game: Game) -> str:
    """``light``, ``dark`` or ``*`` (unfinished)."""
    return game.winner or "*"


def export(engine: Game, headers: Mapping[str, str] | None = None) -> str:
    """The record of ``engine``'s game. ``headers`` adds players, date, event, ...

    Size, Pie and Tournament always come from the engine (a conflicting value in
    ``headers`` raises ValueError). Result defaults to the engine's result.
    """
    given = {str(k).strip(): str(v).strip() for k, v in (headers or {}).items()}
    lower = {k.lower(): k for k in given}
    own = {
        "Game": TITLE,
        "Size": str(engine.size),
        "Pie": _yes_no(engine.pie),
        "Tournament": _yes_no(engine.tournament),
    }
    for key, value in own.items():
        theirs = lower.get(key.lower())
        if theirs is None or key == "Game":
            continue
        if given[theirs].lower() != value and not (
            key != "Size" and _flag_or_none(given[theirs]) == (value == "yes")
        ):
            raise ValueError(
                f"header {theirs}: {given[theirs]!r} conflicts with the game ({value!r}); "
                "drop it, the record takes it from the engine"
            )
    out = dict(own)
    for key in _CANONICAL[4:]:
        theirs = lower.get(key.lower())
        out[key] = given[theirs] if theirs is not None else ""
    if not out["Result"]:
        out["Result"] = result_of(engine)
    base_position = engine.setup_position()
    if base_position is not None:
        out["Setup"] = base_position
        out["ToMove"] = engine.setup_to_move()
    for key, value in given.items():
        if key.lower() not in {k.lower() for k in out}:
            if "\n" in value or ":" in key or not key:
                raise ValueError(f"header {key!r}: keys need no ':' and values one line")
            out[key] = value
    lines = [f"{key}: {value}" for key, value in out.items()]
    lines.append("")
    for n, ply in enumerate(engine.plies, start=1):
        # The stones a move took off, as a comment: readers (this one too) skip it.
        removed = f"  # removes {' '.join(sorted(ply.removed))}" if ply.removed else ""
        lines.append(f"{n}. {ply.colour} {ply.notation}{removed}")
    return "\n".join(lines) + "\n"


def _flag_or_none(text: str) -> bool | None:
    low = text.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    return None


def parse(text: str) -> tuple[dict[str, str], Game]:
    """Read a record: its headers (as written) and the game replayed move by move."""
    lines = text.splitlines()
    headers: dict[str, str] = {}
    where: dict[str, tuple[int, int]] = {}
    row = 0
    while row < len(lines):
        raw = lines[row]
        row += 1
        stripped = raw.split("#", 1)[0].strip()
        if not stripped:
            if headers:
                break
            continue
        if ":" not in stripped or _looks_like_move(stripped):
            row -= 1
            break
        try:
            record_headers.check_line(raw)
            record_headers.check_count(len(headers) + 1)
        except record_headers.HeaderError as exc:
            raise RecordError(str(exc), row, 1) from None
        key, _, value = stripped.partition(":")
        key = key.strip()
        if not key or " " in key:
            raise RecordError(
                f"header key {key[:80]!r} is not a single word; write 'Key: value'", row, 1
            )
        if key.lower() in where:
            raise RecordError(f"header {key!r} is given twice", row, 1)
        headers[key] = value.strip()
        after = raw.index(":") + 1
        where[key.lower()] = (row, after + len(raw[after:]) - len(raw[after:].lstrip()) + 1)
    lower = {k.lower(): v for k, v in headers.items()}

    def flag(key: str) -> bool:
        value = lower.get(key.lower(), "no")
        parsed = _flag_or_none(value)
        if parsed is None:
            line, col = where[key.lower()]
            raise RecordError(f"{key} {value!r} is not yes or no", line, col)
        return parsed

    size_text = lower.get("size", "6")
    if size_text not in ("5", "6", "7"):
        line, col = where.get("size", (1, 1))
        raise RecordError(f"Size {size_text!r} is not 5, 6 or 7", line, col)
    pie = flag("Pie")
    tournament = flag("Tournament")
    if "setup" in lower:
        to_move = lower.get("tomove", "light").lower()
        line, col = where["setup"]
        try:
            game = Game.from_position(lower["setup"], to_move, pie=pie, tournament=tournament)
        except ValueError as exc:
            raise RecordError(f"Setup: {exc}", line, col) from None
        if game.size != int(size_text):
            raise RecordError(
                f"Setup has {len(game.points)} points but Size is {size_text}", line, col
            )
    else:
        game = Game(size=int(size_text), pie=pie, tournament=tournament)
    expected = 1
    for index in range(row, len(lines)):
        raw = lines[index]
        number = index + 1
        body = raw.split("#", 1)[0]
        if not body.strip():
            continue
        _play_line(game, body, number, expected)
        expected += 1
    result = lower.get("result", "")
    if result and game.winner is not None and result.split()[0].lower() in (*COLOURS, "*"):
        if result.split()[0].lower() != game.winner:
            line, col = where["result"]
            raise RecordError(
                f"Result {result!r} contradicts the moves: {game.winner} wins", line, col
            )
    return headers, game


def _looks_like_move(text: str) -> bool:
    head = text.split(None, 1)[0]
    return head.rstrip(".").isdigit()


def _play_line(game: Game, body: str, line: int, expected: int) -> None:
    words: list[tuple[int, str]] = []
    col = 0
    for word in body.split():
        col = body.index(word, col)
        words.append((col + 1, word))
        col += len(word)
    first_col, first = words[0]
    if not first.endswith(".") or not first[:-1].isdigit():
        raise RecordError(
            f"{first!r} is not a move number; move lines read '<n>. <colour> <move>'",
            line,
            first_col,
        )
    if int(first[:-1]) != expected:
        raise RecordError(
            f"move number {first[:-1]} is out of order; expected {expected}", line, first_col
        )
    if len(words) < 3:
        raise RecordError(
            "a move line needs a colour and a move, e.g. '7. light G6'",
            line,
            words[-1][0] + len(words[-1][1]),
        )
    colour_col, colour = words[1]
    if colour.lower() != game.to_move:
        raise RecordError(
            f"colour {colour!r} is not the player to move ({game.to_move})", line, colour_col
        )
    move_col = words[2][0]
    notation = " ".join(w for _, w in words[2:])
    try:
        game.play(notation)
    except IllegalMoveError as exc:
        raise RecordError(str(exc), line, move_col) from None
