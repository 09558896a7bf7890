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
    click.echo(f"replicating to the club {started.status().club}", err=quiet)
    try:
        yield
    finally:
        # The last moves (often with the result) were logged a moment ago: ship them
        # before exiting, waiting a few seconds at most, and say what did not make it.
        state = started.status()
        left = started.finish()
        if left:
            click.echo(f"{left} events of this table's log are not in the club yet (the club "
                       f"was {state.state}{': ' + state.detail if state.detail else ''}); "
                       "they go at the next `play` or `club replicate`", err=True)
        else:
            click.echo("every event of this table's log is in the club", err=quiet)


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
    @click.option("--tls", "tls_dir", type=click.Path(file_okay=False, path_type=Path),
                  default=None, help="Make the club's CA and the server's certificate in "
                  "this folder (once; kept after) and say how to turn TLS on.")
    @click.option("--tls-name", "tls_names", multiple=True, metavar="NAME",
                  help="A name or address the tables use to reach the server (repeat).")
    @click.option("--network", "networks", multiple=True, metavar="CIDR",
                  help="A network whose tables may log in, e.g. 192.168.1.0/24 (repeat).")
    def init(db: str, admin_password: str | None, page_password: str | None,
             tls_dir: Path | None, tls_names: tuple[str, ...],
             networks: tuple[str, ...]) -> None:
        """Create or migrate the club: schema, admin and page roles, row-level security.

        \b
        Example:
          meridian-table club init --db postgresql://postgres@localhost/club
          meridian-table club init --db postgresql://postgres@localhost/club \\
              --tls /etc/meridian-club --tls-name club.example.org --network 0.0.0.0/0
        """
        import socket

        from meridian_table.club.admin import init_club
        from meridian_table.club.tls import authority, issue

        ca_file = None
        try:
            if tls_dir is not None:
                ca = authority(tls_dir, "club")
                names = list(dict.fromkeys([*tls_names, socket.gethostname(), "localhost",
                                            "127.0.0.1"]))
                issue(ca, names, tls_dir / "server.crt", tls_dir / "server.key")
                ca_file = ca.cert_file
            result = init_club(db, admin_password=admin_password, page_password=page_password,
                               ca_file=ca_file)
        except ClubError as exc:
            raise _fail(exc) from None
        if tls_dir is not None:
            click.echo(f"the club's CA and the server's certificate are in {tls_dir} (for "
                       f"{', '.join(names)}). Turn TLS on in the server:\n"
                       f"  postgresql.conf: ssl = on\n"
                       f"                   ssl_cert_file = '{tls_dir / 'server.crt'}'\n"
                       f"                   ssl_key_file = '{tls_dir / 'server.key'}'\n"
                       f"                   listen_addresses = '*'\n"
                       "  (the key must belong to the server's user: sudo chown postgres "
                       f"{tls_dir / 'server.key'})")
            for net in networks or ("192.168.1.0/24",):
                click.echo(f"  pg_hba.conf:     hostssl all all {net} scram-sha-256")
            click.echo("  then restart the server; invitation codes (club invite-table) carry "
                       "the CA's fingerprint, and tables connect with sslmode=verify-full")
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

    @club.command("withdraw")
    @click.argument("table")
    @click.argument("game", type=int)
    @admin_db
    @click.option("--reason", default="", help="Why (shown on the game's page, logged).")
    def withdraw(table: str, game: int, db: str, reason: str) -> None:
        """Withdraw game GAME of TABLE from the finished games and the standings.

        A remote game goes with every table's copy; its moves stay viewable.

        \b
        Example:
          meridian-table club withdraw table7 12 --reason "played with a wrong rule" --db ADMIN_URL
        """
        from meridian_table.club.admin import ClubAdmin

        try:
            with ClubAdmin(db) as admin:
                copies = admin.withdraw_game(table, game, reason)
        except ClubError as exc:
            raise _fail(exc) from None
        click.echo(f"game {game} of {table} withdrawn ({copies} copies); the standings are "
                   "recomputed without it")

    @club.command("reset-table")
    @click.argument("name")
    @admin_db
    @click.option("--reason", default="", help="Why (logged).")
    def reset_table(name: str, db: str, reason: str) -> None:
        """Withdraw every game table NAME has shipped so far (test games, say).

        \b
        Example:
          meridian-table club reset-table table7 --db ADMIN_URL
        """
        from meridian_table.club.admin import ClubAdmin

        try:
            with ClubAdmin(db) as admin:
                count = admin.reset_table(name, reason)
        except ClubError as exc:
            raise _fail(exc) from None
        click.echo(f"{count} games of {name} withdrawn; its next games count again")

    @club.command("backup")
    @click.option("--db", required=True, metavar="URL",
                  help="The club database as a superuser (the login club init used).")
    @click.option("-o", "--out", required=True,
                  type=click.Path(dir_okay=False, path_type=Path),
                  help="The backup file to write (it holds password verifiers: 0600).")
    def backup_command(db: str, out: Path) -> None:
        """Back up the whole club (games, events, tables, roles) into one file.

        \b
        Example:
          meridian-table club backup --db postgresql://postgres@localhost/club -o club.backup
        """
        from meridian_table.club.backup import backup

        try:
            made = backup(db, out)
        except ClubError as exc:
            raise _fail(exc) from None
        click.echo(f"club {made.dbname} (schema {made.version}, {made.roles} roles) backed "
                   f"up to {out} ({made.bytes} bytes)")

    @club.command("restore")
    @click.argument("backup_file", type=click.Path(dir_okay=False, exists=True,
                                                   path_type=Path))
    @click.option("--db", required=True, metavar="URL",
                  help="The new server as a superuser: postgresql://postgres@HOST/postgres.")
    def restore_command(backup_file: Path, db: str) -> None:
        """Restore a club backup into a server (its roles, then its database).

        \b
        Example:
          meridian-table club restore club.backup --db postgresql://postgres@newhost/postgres
        """
        from meridian_table.club.backup import restore

        try:
            made = restore(backup_file, db)
        except ClubError as exc:
            raise _fail(exc) from None
        click.echo(f"club {made.dbname} (schema {made.version}) restored; its tables log in "
                   "with the passwords they had")

    @club.command("invite-table")
    @click.argument("name")
    @admin_db
    @click.option("--address", default=None, metavar="HOST[:PORT]",
                  help="Where the tables reach the club's PostgreSQL, when not the address "
                  "in --db (e.g. club.example.org:5432).")
    def invite_table(name: str, db: str, address: str | None) -> None:
        """Add table NAME and print its one-time invitation code (valid 7 days).

        At the table, `club join CODE` turns the code into the table's own login:
        nobody copies a password.

        \b
        Example:
          meridian-table club invite-table table7 --db postgresql://club_admin:PASSWORD@localhost/club --address club.example.org
        """
        from meridian_table.club.admin import ClubAdmin

        try:
            with ClubAdmin(db) as admin:
                code = admin.invite_table(name, address)
        except ClubError as exc:
            raise _fail(exc) from None
        click.echo(code)
        click.echo(f"at table {name}: meridian-table club join {code[:16]}... (the whole "
                   "code; it works once, within 7 days)", err=True)

    @club.command("join")
    @click.argument("url")
    def join(url: str) -> None:
        """Join the club with an invitation code (or the URL add-table printed), saved so
        that every `play` replicates to the club.

        \b
        Example:
          meridian-table club join mtclub1.eyJoIjoi...
          meridian-table club join postgresql://club_t_table7:PASSWORD@clubhost/club
        """
        from meridian_table.club.admin import INVITE_PREFIX, connect, join_with_code, redact

        try:
            if url.strip().startswith(INVITE_PREFIX):
                url = join_with_code(url, settings_file().parent)
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
            try:
                started = Replicator(path, url, batch=batch)
            except ClubError as exc:
                raise _fail(exc) from None
            _replicate_until(stop, started, once)
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
    @click.option("--host", default="127.0.0.1", show_default=True,
                  help="Page address (0.0.0.0: every network of this machine).")
    @click.option("--port", default=8780, show_default=True, type=PagePort(),
                  help="Page port (0: any free one).")
    @click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
                  help="Another name the page is reached by (a DNS name such as "
                  "club.example.org); this machine's own names and addresses always are.")
    @click.option("--pg-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                  help="Without --db: the private club's folder (default: your data folder).")
    @click.option("--pg-port", type=click.IntRange(1024, 65535), default=None,
                  help="Without --db: the private PostgreSQL's port (kept from then on).")
    @click.option("--tls-cert", type=click.Path(dir_okay=False, exists=True, path_type=Path),
                  default=None, help="Serve the page over HTTPS with this certificate "
                  "(PEM; `club init --tls` makes one) ...")
    @click.option("--tls-key", type=click.Path(dir_okay=False, exists=True, path_type=Path),
                  default=None, help="... and its private key (PEM).")
    def serve(db: str | None, host: str, port: int, allowed_hosts: tuple[str, ...],
              pg_dir: Path | None, pg_port: int | None, tls_cert: Path | None,
              tls_key: Path | None) -> None:
        """Serve the live club page: tables, spectating, finished games, standings.

        \b
        Example:
          meridian-table club serve --db postgresql://club_page:PASSWORD@localhost/club
        """
        from meridian_table.club.web import serve_club

        if (tls_cert is None) != (tls_key is None):
            raise click.UsageError("give both --tls-cert and --tls-key, or neither")
        tls = (tls_cert, tls_key) if tls_cert is not None and tls_key is not None else None
        try:
            serve_club(db, host, port, echo=click.echo, allowed_hosts=allowed_hosts,
                       pg_dir=pg_dir, pg_port=pg_port, tls=tls)
        except ClubError as exc:
            raise _fail(exc) from None

    @club.command("stop")
    @click.option("--pg-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                  help="The private club's folder (default: your data folder).")
    def stop(pg_dir: Path | None) -> None:
        """Stop the private club's PostgreSQL (started by `club serve` without --db).

        \b
        Example:
          meridian-table club stop
        """
        from meridian_table.club.private import stop_private_club

        try:
            stopped = stop_private_club(pg_dir)
        except ClubError as exc:
            raise _fail(exc) from None
        click.echo("the private club's PostgreSQL stopped" if stopped else
                   "the private club's PostgreSQL is not running")
