"""Colovini commands: ``meridian-table colovini map check FILE``, ``colovini map show FILE`` and ``colovini score``.

FILE is a map file of your own (see docs/games/colovini.md) or the name of a map shipped
in this package (``sample-50``, ``sample-40``).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import click

from meridian_table.games.params import PagePort

if TYPE_CHECKING:
    from meridian_table.games.colovini import BoardMap

LOGGER = logging.getLogger(__name__)


def _load(file: str) -> BoardMap:
    from meridian_table.games.colovini import MapError, load_map

    try:
        return load_map(file)
    except MapError as exc:
        raise click.ClickException(str(exc)) from exc


@click.group("colovini")
def group() -> None:
    """Colovini's Meridian: check and draw island maps, score a plain printed board.

    \b
    Example:
      meridian-table colovini map check my-board.toml
    """


def _register(group: click.Group) -> None:
    @group.group("map")
    def map_group() -> None:
        """Colovini island maps: check and draw them."""

    @map_group.command("check")
    @click.argument("file")
    def check(file: str) -> None:
        """Validate map FILE; print what is wrong with file, line and fix.

        FILE is a .toml map or a shipped map name (sample-50, sample-40).

        \b
        Example:
          meridian-table colovini map check my-board.toml
        """
        from rich.console import Console
        from rich.table import Table

        board = _load(file)
        table = Table(title=f"{file}: valid, {len(board.cities)} cities on the "
                      f"{board.side}-city side, {len(board.islands)} islands")
        for column in ("island", "name", "cities", "capital", "value"):
            table.add_column(column)
        for island in board.islands.values():
            capitals = [c for c in island.cities if board.cities[c].capital]
            table.add_row(island.key, island.name, " ".join(island.cities),
                          " ".join(capitals) or "-", str(island.value))
        Console().print(table)

    @map_group.command("show")
    @click.argument("file")
    @click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                  help="Write the SVG here instead of standard output.")
    @click.option("--toml", "as_toml", is_flag=True,
                  help="Write the map's own TOML text instead: a shipped map to edit as yours.")
    def show(file: str, output: Path | None, as_toml: bool) -> None:
        """Render map FILE as SVG (islands coloured, capitals starred, north at the top).

        \b
        Examples:
          meridian-table colovini map show my-board.toml -o my-board.svg
          meridian-table colovini map show sample-50 --toml -o my-board.toml
        """
        from meridian_table.games.colovini.render import map_svg

        board = _load(file)
        text = board.text if as_toml else map_svg(board)
        if output is None:
            click.echo(text, nl=False)
            return
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise click.ClickException(
                f"cannot write {output}: {exc.strerror}; give -o a file in a folder that "
                "exists and that you can write, or leave -o out to print to standard output"
            ) from exc
        click.echo(f"wrote {output}")

    @group.command("score")
    @click.option("--map", "map_file", default="sample-50", show_default=True,
                  help="Map file (or shipped map name) of the board on the table.")
    @click.option("--players", default="Orange,Black,Brown,Grey", show_default=True,
                  help="Comma-separated player names, in the order a click cycles them.")
    @click.option("--host", default="127.0.0.1", show_default=True,
                  help="Address to serve on (0.0.0.0: other devices on the network too).")
    @click.option("--port", default=8766, show_default=True, type=PagePort(),
                  help="Port to serve on; a free one is taken if it is busy.")
    def score_colovini(map_file: str, players: str, host: str, port: int) -> None:
        """Serve the island-scoring page: click cities, read the breakdown and totals.

        \b
        Example:
          meridian-table colovini score --map my-board.toml --players Ann,Bob,Cid
        """
        from meridian_table.games.colovini.score_page import (
            ScorePageError,
            check_players,
            serve_forever,
        )

        board = _load(map_file)
        try:
            names = check_players(players.split(","))
        except ScorePageError as exc:
            raise click.BadParameter(str(exc), param_hint="--players") from exc
        try:
            serve_forever(board, names, host, port,
                          announce=lambda url: click.echo(f"Scoring page for {board.name}: {url}"))
        except KeyboardInterrupt:
            # Ctrl-C is how this page is meant to stop (as `play` stops): no "Aborted!".
            pass
        # Ctrl-C either interrupts the start-up or lets the server shut down and return:
        # both end here, with the same word.
        click.echo("stopped")


_register(group)
