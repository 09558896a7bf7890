"""`meridian-table review ID`: the moves of a logged game that lost the most, by the bot.

Opens the log read-only, replays the game through its spec and asks the game's bot
about every position (``meridian_table.bots.review``, docs/BOTS.md).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import click
from rich.console import Console

from meridian_table import bots
from meridian_table.bots.review import review
from meridian_table.i18n import _, said, set_language
from meridian_table.store import Store, StoreError
from meridian_table.store.replay import load_game_spec

LOGGER = logging.getLogger(__name__)


def _review(game_id: int, db: Path | None, level: int, budget: float, top: int,
            as_json: bool) -> None:
    set_language(None)  # the environment's language, as `play` without --lang
    try:
        with Store.open(db, readonly=True) as store:
            info = store.game(game_id)
            moves = store.moves(game_id)
            spec = load_game_spec(info.game)
            actions = [e.notation for e in moves]
    except StoreError as exc:
        raise click.ClickException(said(exc)) from exc
    if not bots.has_bot(spec):
        raise click.ClickException(_("{game} has no bot to review game {id} with").format(
            game=_(spec.title), id=game_id))
    sources = [str(e.payload.get("source", "")) for e in moves]
    console = Console(stderr=True)
    with console.status(_("Reviewing game {id}: {n} moves").format(id=game_id,
                                                                    n=len(actions))) as status:
        def progress(done: int, total: int) -> None:
            status.update(_("Reviewing game {id}: move {done} of {total}").format(
                id=game_id, done=done, total=total))

        try:
            marks = review(spec, info.options, actions, info.players, sources, level=level,
                           budget_s=budget, top=top, progress=progress)
        except ValueError as exc:
            raise click.ClickException(_(
                "game {id} cannot be reviewed: {reason}; `meridian-table replay {id}` shows its "
                "moves").format(id=game_id, reason=said(exc))) from exc
    if as_json:
        click.echo(json.dumps({"game": game_id, "level": level, "budget_s": budget,
                               "moves": len(actions),
                               "marks": [m.to_json() for m in marks]}, indent=2))
        return
    if not marks:
        click.echo(_("Game {id}: no move lost much against the level {level} bot.").format(
            id=game_id, level=level))
        return
    click.echo(_("Game {id} ({game}, {n} moves): the moves that lost the most against the "
                 "level {level} bot").format(id=game_id, game=_(spec.title), n=len(actions),
                                             level=level))
    for mark in marks:
        click.echo(f"  {mark.words}")


def register(group: click.Group) -> None:
    """Add `review` to the CLI."""

    @group.command("review")
    @click.argument("game_id", metavar="ID", type=int)
    @click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="The game log (default: $MERIDIAN_TABLE_DB, else the user data "
                  "directory).")
    @click.option("--level", type=click.IntRange(1, 5), default=3, show_default=True,
                  help="The bot level that judges the moves.")
    @click.option("--budget", type=click.FloatRange(0.01, 60), default=0.5,
                  show_default=True, help="Seconds of thought per position.")
    @click.option("--top", type=click.IntRange(1, 50), default=3, show_default=True,
                  help="How many moves to mark.")
    @click.option("--json", "as_json", is_flag=True, help="Print the marks as JSON.")
    def review_command(game_id: int, db: Path | None, level: int, budget: float, top: int,
                       as_json: bool) -> None:
        """Mark the moves of logged game ID that lost the most against the bot, each
        with the move the bot prefers.

        \b
        Example:
          meridian-table review 3 --level 4 --budget 1
        """
        _review(game_id, db, level, budget, top, as_json)
