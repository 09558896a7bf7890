"""`meridian-table club ...`: set up a club in PostgreSQL, add tables, replicate, serve.

docs/CLUB.md walks through a club night.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from meridian_table.club.errors import ClubError
from meridian_table.games.params import PagePort
from meridian_table.textload import json_loads

if TYPE_CHECKING:
    from meridian_table.club.remote import RemoteLink
    from meridian_table.club.replicator import Replicator
    from meridian_table.table.runner import RunningTable, TableSetup

LOGGER = logging.getLogger(__name__)

ENV_CLUB = "MERIDIAN_TABLE_CLUB"


def settings_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("meridian-table")) / "club.json"


def saved_club() -> str | None:
    """The club a table joined with ``club join`` ($MERIDIAN_TABLE_CLUB wins)."""
    if os.environ.get(ENV_CLUB):
        return os.environ[ENV_CLUB]
    path = settings_file()
    try:
        return str(json_loads(path.read_text())["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remote_side(setup: TableSetup, url: str | None,
                remote: str | None) -> tuple[TableSetup, RemoteLink | None]:
    """``play GAME --remote ID``: this table's side of the club's remote game ID."""
    if remote is None:
        return setup, None
    url = url or saved_club()
    if not url:
        raise click.UsageError("--remote needs the club: give --club URL or run "
                               "`club join URL` first")
    from meridian_table.club.remote import remote_setup

    try:
        return remote_setup(url, remote, setup)
    except ClubError as exc:
        raise _fail(exc) from None


@contextlib.contextmanager
def club_replication(table: RunningTable, url: str | None, quiet: bool,
                     link: RemoteLink | None = None) -> Iterator[None]:
    """``play --club URL`` (or the saved club): replicate the table's log while it plays;
    in a remote game, also let the remote player read this table's moves."""
    url = url or saved_club()
    if not url or table.store is None:
        yield
        return
    from meridian_table.club.remote import attach
    from meridian_table.club.replicator import Replicator

    try:
        if link is not None:
            started = attach(table, link)
        else:
            started = Replicator(table.store.path, url)
            started.on_change = table.session.add_stats(started.link_figures)
            started.start()
    except ClubError as exc:
        raise _fail(exc) from None
    with started as replicator:
        click.echo(f"replicating to the club {replicator.status().club}", err=quiet)
        yield
        status = replicator.status()
        if status.backlog:
            click.echo(f"{status.backlog} events not yet in the club ({status.state}); "
                       "they go at the next `play` or `club replicate`", err=True)


def _fail(exc: Exception) -> click.ClickException:
    return click.ClickException(str(exc))


def register(group: click.Group) -> None:
    @group.group(help="The club: many tables in one PostgreSQL database, a live club page "
                 "and standings (docs/CLUB.md).\n\n\b\nExample:\n"
                 "  meridian-table club init --db postgresql://postgres@localhost/club\n"
                 "  meridian-table club add-table table7 --db postgresql://club_admin@…/club")
    def club() -> None:
        pass

    @club.command("init")
    @click.option("--db", required=True, metavar="URL",
                  help="The club database, reached as a superuser (or a role with CREATEROLE "
                  "that owns it): postgresql://postgres@localhost/club")
    @click.option("--admin-password", default=None, help="Set the admin role's password "
                  "(default: a new random one when the role is created).")
    @click.option("--page-password", default=None, help="Set the page role's password.")
    def init(db: str, admin_password: str | None, page_password: str | None) -> None:
        """Create or migrate the club: schema, admin and page roles, row-level security.

        \b
        Example:
          meridian-table club init --db postgresql://postgres@localhost/club
        """
        from meridian_table.club.admin import init_club

        try:
            result = init_club(db, admin_password=admin_password, page_password=page_password)
        except ClubError as exc:
            raise _fail(exc) from None
        click.echo(f"club schema version {result.version} ready")
        if result.admin_url:
            click.echo(f"admin (add tables, the page's admin view): {result.admin_url}")
        if result.page_url:
            click.echo(f"club page (read-only, for `club serve --db`): {result.page_url}")
        if not (result.admin_url or result.page_url):
            click.echo("roles already existed; their passwords are unchanged")

    admin_db = click.option("--db", required=True, metavar="ADMIN_URL",
                            help="The club database as its admin role (printed by club init).")

    @club.command("add-table")
    @click.argument("name")
    @admin_db
    def add_table(name: str, db: str) -> None:
        """Add table NAME with its own login role and print its connection string.

        \b
        Example:
          meridian-table club add-table table7 --db postgresql://club_admin:PASSWORD@localhost/club
        """
        from meridian_table.club.admin import ClubAdmin

        try:
            with ClubAdmin(db) as admin:
                url = admin.add_table(name)
        except ClubError as exc:
            raise _fail(exc) from None
        click.echo(url)
        click.echo(f"on table {name}'s host: meridian-table club join '{url}'", err=True)

    @club.command("remove-table")
    @click.argument("name")
    @admin_db
    def remove_table(name: str, db: str) -> None:
        """Revoke table NAME: its role can no longer log in; its games stay.

        \b
        Example:
          meridian-table club remove-table table7 --db postgresql://club_admin:PASSWORD@localhost/club
        """
        from meridian_table.club.admin import ClubAdmin

        try:
            with ClubAdmin(db) as admin:
                admin.remove_table(name)
        except ClubError as exc:
            raise _fail(exc) from None
        click.echo(f"table {name} revoked")

    @club.command("rename-table")
    @click.argument("old")
    @click.argument("new")
    @admin_db
    def rename_table(old: str, new: str, db: str) -> None:
        """Rename table OLD to NEW (its games follow).

        \b
        Example:
          meridian-table club rename-table table7 kitchen --db postgresql://club_admin:PASSWORD@localhost/club
        """
        from meridian_table.club.admin import ClubAdmin

        try:
            with ClubAdmin(db) as admin:
                admin.rename_table(old, new)
        except ClubError as exc:
            raise _fail(exc) from None
        click.echo(f"table {old} is now {new}")

    @club.command("tables")
    @admin_db
    def tables(db: str) -> None:
        """List the club's tables.

        \b
        Example:
          meridian-table club tables --db postgresql://club_admin:PASSWORD@localhost/club
        """
        from meridian_table.club.admin import ClubAdmin

        try:
            with ClubAdmin(db) as admin:
                for info in admin.tables():
                    state = f"revoked {info.revoked}" if info.revoked else "active"
                    click.echo(f"{info.name}\t{info.role}\t{state}")
        except ClubError as exc:
            raise _fail(exc) from None

    @club.command("invite")
    @click.argument("game")
    @click.argument("game_id", metavar="GAME-ID")
    @click.option("--tables", required=True, help="The table of each seat, in seat order: "
                  "north,south.")
    @click.option("--players", required=True, help="The players' names in seat order: Ann,Bob.")
    @click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
                  help="A game option (e.g. size=5); repeatable.")
    @admin_db
    def invite(game: str, game_id: str, tables: str, players: str,
               options: tuple[str, ...], db: str) -> None:
        """Make remote game GAME-ID of GAME, played by several tables through the club.

        \b
        Example:
          meridian-table club invite kato duel1 --tables north,south --players Ann,Bob --db ADMIN_URL
        """
        from meridian_table.club.remote import invite as make
        from meridian_table.games import registry
        from meridian_table.games.contract import OptionError, parse_options

        try:
            spec = registry.spec(game)
            given: dict[str, object] = {}
            for item in options:
                name, sep, value = item.partition("=")
                if not sep:
                    raise click.BadParameter(f"{item!r} is not NAME=VALUE", param_hint="--option")
                given[name.strip()] = value.strip()
            names = [p.strip() for p in players.split(",")]
            if any(o.name == "players" and o.kind == "engine" for o in spec.options):
                given.setdefault("players", len(names))
            parsed, _ = parse_options(spec.options, given, spec.id)
            engine_options = {o.name for o in spec.options if o.kind == "engine"}
            chosen = {k: v for k, v in parsed.items() if k in engine_options}
            made = make(db, game_id, spec.id, dict(chosen), names,
                        [t.strip() for t in tables.split(",")])
        except (ClubError, OptionError, ValueError) as exc:
            raise _fail(exc) from None
        for seat, table in made.seats.items():
            click.echo(f"seat {seat} ({made.players[int(seat) - 1]}) at {table}: "
                       f"meridian-table play {made.game} --remote {made.id}")

    @club.command("join")
    @click.argument("url")
    def join(url: str) -> None:
        """Save URL (printed by add-table) so that every `play` replicates to the club.

        \b
        Example:
          meridian-table club join postgresql://club_t_table7:PASSWORD@clubhost/club
        """
        from meridian_table.club.admin import connect, redact

        try:
            connect(url).close()
        except ClubError as exc:
            raise _fail(exc) from None
        path = settings_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump({"url": url}, handle)
        click.echo(f"this table now replicates to {redact(url)} (saved in {path})")

    @club.command("leave")
    def leave() -> None:
        """Forget the saved club: `play` stops replicating.

        \b
        Example:
          meridian-table club leave
        """
        settings_file().unlink(missing_ok=True)
        click.echo("no club saved")

    @club.command("replicate")
    @click.option("--club", "url", default=None, metavar="URL",
                  help="The table's club connection string (default: the saved one).")
    @click.option("--log", "log", default=None, type=click.Path(dir_okay=False),
                  help="The table's game log (default: $MERIDIAN_TABLE_DB, else the "
                  "user data dir's).")
    @click.option("--once", is_flag=True, help="Stop once the club holds the whole log.")
    @click.option("--batch", default=500, show_default=True, type=click.IntRange(1, 10_000),
                  help="Events per transaction (smaller on a slow link).")
    def replicate(url: str | None, log: str | None, once: bool, batch: int) -> None:
        """Copy a table's log into the club, and keep copying until stopped.

        \b
        Example:
          meridian-table club replicate --once --log games.sqlite3
        """
        from meridian_table.club.replicator import Replicator
        from meridian_table.store.paths import default_path

        url = url or saved_club()
        if not url:
            raise click.UsageError("no club: give --club URL or run `club join URL` first")
        path = Path(log) if log else default_path()
        if not path.exists():
            raise click.BadParameter(f"{str(path)!r} does not exist; play a game first or "
                                     "give --log PATH", param_hint="--log")
        stop = threading.Event()
        previous = None
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            _replicate_until(stop, Replicator(path, url, batch=batch), once)
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)

    def _replicate_until(stop: threading.Event, started: Replicator, once: bool) -> None:
        with started as replicator:
            try:
                while not stop.is_set():
                    status = replicator.status()
                    if status.state == "refused":
                        raise click.ClickException(status.detail)
                    if once and replicator.wait_caught_up(0.5):
                        break
                    stop.wait(0.5)
            except KeyboardInterrupt:
                pass
            status = replicator.status()
        click.echo(json.dumps(status.to_json()))

    @club.command("serve")
    @click.option("--db", default=None, metavar="PAGE_URL",
                  help="The club database as its page role (printed by club init). Without "
                  "it, a private PostgreSQL in your data folder is started (and set up).")
    @click.option("--host", default="127.0.0.1", show_default=True, help="Page address.")
    @click.option("--port", default=8780, show_default=True, type=PagePort(),
                  help="Page port (0: any free one).")
    def serve(db: str | None, host: str, port: int) -> None:
        """Serve the live club page: tables, spectating, finished games, standings.

        \b
        Example:
          meridian-table club serve --db postgresql://club_page:PASSWORD@localhost/club
        """
        from meridian_table.club.web import serve_club

        try:
            serve_club(db, host, port, echo=click.echo)
        except ClubError as exc:
            raise _fail(exc) from None
