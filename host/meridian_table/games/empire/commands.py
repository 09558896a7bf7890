"""Empire in Space commands: ``empire check`` (the map and card files) and ``empire play``
(the rules engine in text, for play on a printed board without sensors)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

if TYPE_CHECKING:
    from meridian_table.games.empire.engine import Game

LOGGER = logging.getLogger(__name__)


def _check_one(kind: str, ref: str) -> tuple[str | None, str]:
    """``(error or None, summary)`` for one file: it loads whole, or not at all."""
    from meridian_table.games.empire.data_files import DataError
    from meridian_table.games.empire.files import load_cards, load_map

    try:
        if kind == "map":
            board = load_map(ref)
            moons = sum(1 for b in board.bodies.values() if b.is_moon)
            return None, (f"{ref}: valid map {board.name!r}, {len(board.quadrants)} quadrants, "
                          f"{len(board.bodies) - moons} planet areas, {moons} moons")
        cards = load_cards(ref)
        return None, (f"{ref}: valid card set {cards.name!r}, {len(cards.planets)} planets, "
                      f"{len(cards.moons)} moons, {len(cards.waypoints)} waypoints, "
                      f"{len(cards.events)} events, {len(cards.guilds)} guilds")
    except DataError as exc:
        return str(exc), ""


def _play_loop(game: Game, stream: TextIO, record: Path | None) -> None:
    from meridian_table.games.empire import record as records
    from meridian_table.games.empire.render import text_diagram

    click.echo(text_diagram(game))
    try:
        _read_actions(game, stream)
    except KeyboardInterrupt:
        # Ctrl-C stops the game cleanly: the record below keeps what was played.
        click.echo("stopped")
    if record is not None:
        try:
            record.write_text(records.export(game), encoding="utf-8")
        except OSError as exc:
            raise click.ClickException(f"cannot write {record}: {exc.strerror}; give --record "
                                       "a file in a folder you can write") from exc
        click.echo(f"wrote {record}")


def _read_actions(game: Game, stream: TextIO) -> None:
    from meridian_table.games.empire.engine import IllegalActionError
    from meridian_table.games.empire.notation import NotationError
    from meridian_table.games.empire.render import text_diagram

    for raw in stream:
        line = raw.strip()
        if not line:
            continue
        if line == "?":
            click.echo(" | ".join(game.legal()[:200]))
            continue
        if line == "undo":
            try:
                click.echo(f"undone: {game.undo()}")
            except IndexError as exc:
                click.echo(str(exc), err=True)
            continue
        try:
            game.play(line)
        except (NotationError, IllegalActionError) as exc:
            click.echo(f"not played: {exc}", err=True)
            continue
        click.echo(text_diagram(game))
        if game.is_over:
            break


@click.group("empire")
def group() -> None:
    """Meridian: Empire in Space: check map and card files, play with the engine.

    \b
    Example:
      meridian-table empire check --map my-board.toml --cards my-cards.toml
    """


def _register(empire_group: click.Group) -> None:

    @empire_group.command("check")
    @click.option("--map", "map_ref", default="sample", show_default=True, metavar="FILE",
                  help="The board map (.toml) or a shipped map name.")
    @click.option("--cards", "cards_ref", default="sample", show_default=True, metavar="FILE",
                  help="The card set (.toml) or a shipped card set name.")
    def check(map_ref: str, cards_ref: str) -> None:
        """Validate a board map and a card set; each error names the file, the line, the
        key and a fix.

        \b
        Example:
          meridian-table empire check --map my-board.toml --cards my-cards.toml
        """
        from meridian_table.games.empire.data_files import DataError
        from meridian_table.games.empire.files import load_pair

        errors = []
        for kind, ref in (("map", map_ref), ("cards", cards_ref)):
            error, summary = _check_one(kind, ref)
            if error is None:
                click.echo(summary)
            else:
                errors.append(error)
        if not errors:
            try:
                load_pair(map_ref, cards_ref)
            except DataError as exc:
                errors.append(str(exc))
        if errors:
            raise click.ClickException("\n".join(errors))

    @empire_group.command("play")
    @click.option("--players", default="Red,Blue,Green", show_default=True,
                  help="Comma-separated player names, in seat order.")
    @click.option("--mode", default="standard", show_default=True,
                  type=click.Choice(["standard", "two-player", "infection-solo",
                                     "infection-coop"]),
                  help="Which game: standard, two-player, or against the Scelrotia.")
    @click.option("--seed", type=int, default=None, help="Seed of the draws (logged).")
    @click.option("--map", "map_ref", default="sample", show_default=True, metavar="FILE",
                  help="The board map (.toml) or a shipped map name.")
    @click.option("--cards", "cards_ref", default="sample", show_default=True, metavar="FILE",
                  help="The card set (.toml) or a shipped card set name.")
    @click.option("--record", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="Write the game's record here at the end.")
    def play(players: str, mode: str, seed: int | None, map_ref: str, cards_ref: str,
             record: Path | None) -> None:
        """Play on a printed board with the engine keeping score: type one action a line
        (`?` lists the legal ones, `undo` takes one back).

        \b
        Example:
          echo end | meridian-table empire play --players Ann,Bob --seed 7
        """
        from meridian_table.games.empire.data_files import DataError
        from meridian_table.games.empire.engine import new_game

        try:
            game = new_game(players=[p.strip() for p in players.split(",")], mode=mode,
                            seed=seed, map=map_ref, cards=cards_ref)
        except DataError as exc:
            raise click.ClickException(str(exc)) from exc
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--players/--mode") from exc
        _play_loop(game, sys.stdin, record)


_register(group)
