"""`meridian-table games`, `replay ID` and `export ID`: the game log from the command line.

All three open the log read-only: looking never changes the file. They speak the
environment's language (``LANG=fr_FR.UTF-8``: French), as ``play`` does without --lang.
"""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from meridian_table.i18n import _, said, seat_word, set_language
from meridian_table.store import Store, StoreError
from meridian_table.store.diagram import text_diagram
from meridian_table.store.export import FORMATS, export, result_text
from meridian_table.store.replay import replay

LOGGER = logging.getLogger(__name__)

_DB_HELP = "The game log (default: $MERIDIAN_TABLE_DB, else the user data directory)."


def _open(db: Path | None, upgrade: bool = False) -> Store:
    try:
        if upgrade:
            # A writable open migrates an older file (after a backup copy) and closes.
            Store.open(db).close()
        return Store.open(db, readonly=True)
    except StoreError as exc:
        raise click.ClickException(said(exc)) from exc


def _when(stamp: str) -> str:
    return datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M")


def _games(db: Path | None, game: str | None, upgrade: bool) -> None:
    set_language(None)
    console = Console()
    with _open(db, upgrade) as store:
        try:
            found = store.games(game)
        except StoreError as exc:
            raise click.ClickException(said(exc)) from exc
        if not found:
            console.print(_("No games logged in {path} yet.").format(path=store.path))
            return
        table = Table(title=_("Games in {path}").format(path=store.path))
        table.add_column(_("id"), justify="right")
        table.add_column(_("game"))
        table.add_column(_("players"))
        table.add_column(_("started"))
        table.add_column(_("moves"), justify="right")
        table.add_column(_("status / result"))
        for info in found:
            status = result_text(info)
            reason = (info.result or {}).get("reason")
            if reason and info.status == "finished":
                status += f" ({reason})"
            table.add_row(
                str(info.id),
                info.game,
                ", ".join(info.players),
                _when(info.started),
                str(info.moves),
                status,
            )
        console.print(table)


def _option_text(name: str, value: object) -> str:
    """One logged option for people: a data file the game logged (a map's text) is
    summarised, not printed."""
    if isinstance(value, str) and "\n" in value:
        return f"{name}=<{len(value.splitlines())} lines>"
    return f"{name}={value}"


def _replay(game_id: int, db: Path | None, ply: int | None) -> None:
    set_language(None)
    console = Console()
    with _open(db) as store:
        try:
            rebuilt = replay(store, game_id, ply=ply)
        except StoreError as exc:
            raise click.ClickException(said(exc)) from exc
        info = rebuilt.info
        options = (", ".join(_option_text(k, v) for k, v in info.options.items())
                   or _("defaults"))
        console.print(_("[bold]Game {id}[/bold]: {game} ({options}), {players}; started "
                        "{started}; {result}").format(
            id=info.id, game=info.game, options=options, players=", ".join(info.players),
            started=_when(info.started), result=result_text(info)))
        table = Table(title=_("Moves (showing {ply} of {total})").format(ply=rebuilt.ply,
                                                                         total=rebuilt.total))
        table.add_column("#", justify="right")
        table.add_column(_("player"))
        table.add_column(_("move"))
        table.add_column(_("removes"))
        table.add_column(_("at"))
        for number, event in enumerate(rebuilt.moves[: rebuilt.ply], start=1):
            removed = event.payload.get("removed")
            table.add_row(
                str(number),
                seat_word(str(event.payload.get("player", ""))),
                event.notation,
                " ".join(map(str, removed)) if isinstance(removed, list) else "",
                _when(event.at),
            )
        console.print(table)
        drawing = text_diagram(rebuilt.spec, rebuilt.engine)
        if drawing is None:
            console.print(_("(no text diagram for {game}; the moves above are the record)")
                          .format(game=info.game))
        else:
            console.print(_("Position after move {ply}:").format(ply=rebuilt.ply))
            # Printed raw: a diagram is not rich markup.
            click.echo(drawing)


def _export(game_id: int, fmt: str, output: Path | None, db: Path | None) -> None:
    set_language(None)
    with _open(db) as store:
        try:
            text = export(store, game_id, fmt)
        except StoreError as exc:
            raise click.ClickException(said(exc)) from exc
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise click.ClickException(_(
            "cannot write {path}: {reason}; give -o a file in a folder that exists and that "
            "you can write, or leave -o out to print to standard output").format(
                path=output, reason=exc.strerror)) from exc
    click.echo(_("wrote game {id} as {format} to {path}").format(id=game_id, format=fmt,
                                                                path=output), err=True)


def register(group: click.Group) -> None:
    """Add `games`, `replay` and `export` to the CLI."""

    db_option = click.option(
        "--db", type=click.Path(dir_okay=False, path_type=Path), default=None, help=_DB_HELP
    )

    @group.command("games")
    @db_option
    @click.option("--game", default=None, help="Only games of this game (its id, as `meridian-table play --help` lists).")
    @click.option(
        "--upgrade", is_flag=True, help="Migrate an older log to this version first (backup made)."
    )
    def games_command(db: Path | None, game: str | None, upgrade: bool) -> None:
        """List the logged games: id, game, players, start, moves and result.

        \b
        Example:
          meridian-table games --game GAME
        """
        _games(db, game, upgrade)

    @group.command("replay")
    @click.argument("game_id", metavar="ID", type=int)
    @db_option
    @click.option("--ply", type=click.IntRange(min=0), default=None,
                  help="Stop after this many moves (default: all).")
    def replay_command(game_id: int, db: Path | None, ply: int | None) -> None:
        """Replay logged game ID: its moves and the position reached.

        ID is a number from `meridian-table games`.

        \b
        Example:
          meridian-table replay 3 --ply 10      # the position after move 10
        """
        _replay(game_id, db, ply)

    @group.command("export")
    @click.argument("game_id", metavar="ID", type=int)
    @click.option("--format", "fmt", type=click.Choice(FORMATS), required=True,
                  help="record: the game's own format; jsonl: every event; csv: score "
                  "sheet; bgstats: BG Stats push-plays JSON.")
    @click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                  default=None, help="Write to this file instead of standard output.")
    @db_option
    def export_command(game_id: int, fmt: str, output: Path | None, db: Path | None) -> None:
        """Export logged game ID (a number from `meridian-table games`).

        \b
        Examples:
          meridian-table export 3 --format record -o game3.txt
          meridian-table export 3 --format csv > scores.csv
        """
        _export(game_id, fmt, output, db)
