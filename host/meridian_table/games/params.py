"""Command-line option types that the platform's commands and a game's own commands share.

It sits with the games (the bottom layer) so a game's commands use it without importing
the CLI; it registers nothing."""

from __future__ import annotations

import logging
from typing import Any

import click

LOGGER = logging.getLogger(__name__)


class PagePort(click.IntRange):
    """A TCP port for a served page (0..65535; 0 picks a free one).

    A serial device given here (``--port /dev/ttyUSB9``) is the likeliest mix-up, so the
    error says where a serial port goes (``board_option``, e.g. ``--board``)."""

    name = "page port"

    def __init__(self, board_option: str | None = None) -> None:
        super().__init__(0, 65535)
        self.board_option = board_option

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        if isinstance(value, str) and not value.strip().isdigit():
            hint = ""
            if self.board_option is not None and ("/" in value or value.upper().startswith("COM")):
                hint = f"; for the board's serial port use {self.board_option} {value}"
            self.fail(f"{value!r} is not a port number: --port is the TCP port (0..65535, 0 "
                      f"picks a free one) the page is served on{hint}", param, ctx)
        number = int(value)
        if not 0 <= number <= 65535:
            self.fail(f"{number} is outside 0..65535: --port is the TCP port the page is "
                      "served on (0 picks a free one)", param, ctx)
        return number


__all__ = ["PagePort"]
