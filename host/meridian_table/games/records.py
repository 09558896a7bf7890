"""The plain record format: what a game gets without writing its own.

A record is the game's options as headers and one action a line::

    [Date "2026-11-27"]
    [Players "Ann, Bob"]
    [Option marks "XO"]

    e
    a
    pass

Headers are ``[Key "value"]`` (the store's: Date, Players, Player1.., Outcome, Reason,
Result); each engine option is a header ``[Option NAME "value"]``, typed back through the
game's options schema on reading. A line that is not a header, not blank and not a
``#`` comment is one action in the game's notation. The engine says what to write with
``actions()`` and ``record_options()`` (the contract's :class:`Engine`).

A game with a richer notation (Kato's move numbers, Colovini's cards) brings its own
:class:`~meridian_table.games.contract.RecordFormat` instead.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence

from meridian_table.games.contract import (
    Engine,
    OptionError,
    Options,
    OptionSpec,
    OptionValue,
    RecordFormat,
)

LOGGER = logging.getLogger(__name__)

OPTION = "Option "


class RecordError(ValueError):
    """A record that cannot be read: the message names the line and what is wrong."""


def _header(key: str, value: object) -> str:
    return f"[{key} {json.dumps(str(value), ensure_ascii=False)}]"


def export_plain(engine: Engine, headers: Mapping[str, str]) -> str:
    """``engine``'s game as a plain record with ``headers`` first."""
    lines = [_header(key, value) for key, value in headers.items()]
    lines += [_header(OPTION + name, "" if value is None else value)
              for name, value in engine.record_options().items() if value is not None]
    return "\n".join([*lines, "", *engine.actions()]) + "\n"


def _parse_header(line: str, number: int) -> tuple[str, str]:
    inner = line.strip()[1:-1]
    key, _, quoted = inner.partition(" ")
    if key == OPTION.strip():
        name, _, quoted = quoted.partition(" ")
        key = OPTION + name
    try:
        value = json.loads(quoted)
    except ValueError:
        raise RecordError(f"line {number}: {line.strip()!r} is not a header "
                          '[Key "value"]') from None
    if not key or not isinstance(value, str):
        raise RecordError(f"line {number}: {line.strip()!r} is not a header [Key \"value\"]")
    return key, value


def parse_plain(text: str, schema: Sequence[OptionSpec],
                new_game: Callable[[Options, int | None], Engine],
                game: str = "this game") -> tuple[dict[str, str], Engine]:
    """``(headers, engine)`` from a plain record: the options typed by ``schema``, each
    action played. RecordError names the line of a bad header or an illegal action."""
    headers: dict[str, str] = {}
    options: dict[str, OptionValue] = {}
    by_name = {o.name: o for o in schema}
    actions: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            key, value = _parse_header(stripped, number)
            if key.startswith(OPTION):
                name = key[len(OPTION):]
                spec = by_name.get(name)
                if spec is None:
                    raise RecordError(f"line {number}: {game} has no option {name!r}; its "
                                      f"options are: {', '.join(sorted(by_name)) or 'none'}")
                try:
                    options[name] = spec.parse(value)
                except OptionError as exc:
                    raise RecordError(f"line {number}: {exc}") from None
            else:
                headers[key] = value
            continue
        actions.append((number, stripped))
    engine = new_game(options, None)
    for number, action in actions:
        try:
            engine.play(action)
        except ValueError as exc:
            raise RecordError(f"line {number}: action {action!r} cannot be played: {exc}") \
                from None
    return headers, engine


def plain_records(new_game: Callable[[Options, int | None], Engine],
                  options: Sequence[OptionSpec], suffix: str = ".txt",
                  game: str = "this game") -> RecordFormat:
    """The plain record format for a game: its spec's ``records``."""
    def parse(text: str) -> tuple[dict[str, str], Engine]:
        return parse_plain(text, options, new_game, game)

    return RecordFormat(export_plain, parse, suffix)


__all__ = ["RecordError", "export_plain", "parse_plain", "plain_records"]
