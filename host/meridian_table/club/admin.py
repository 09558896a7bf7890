"""Setting up a club: ``club init`` (roles, schema) and adding, revoking, renaming tables.

Passwords are hashed with SCRAM-SHA-256 on this side (libpq's ``PQencryptPasswordConn``)
so the clear text never travels to the server or lands in its logs.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.json import Jsonb

from meridian_table.club.errors import BadTableNameError, ClubError, UnknownTableError
from meridian_table.club.schema import Roles, migrate, require_current, schema_version
from meridian_table.club.tls import fingerprint

LOGGER = logging.getLogger(__name__)

TABLE_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
CONNECT_TIMEOUT_S = 5
# A table on Wi-Fi: give up on a server that does not answer (libpq's own parameters).
NETWORK_OPTIONS: dict[str, Any] = {
    "connect_timeout": 3, "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
    "keepalives_count": 3, "tcp_user_timeout": 10_000,
}

Conn = psycopg.Connection[tuple[object, ...]]

# How many connections one table's role may hold: its replicator, a remote player, a
# `club replicate` beside them, and room for reconnecting. One table cannot take the
# server's slots from the others or from the page.
TABLE_CONNECTIONS = 6
INVITE_PREFIX = "mtclub1."
INVITE_DAYS = 7
PAGE_CONNECTIONS = 24      # a few `club serve` pages, each with its pool and its LISTEN
ADMIN_CONNECTIONS = 8

# The club's role management, and nothing more, as SECURITY DEFINER functions owned by
# the keeper (a role without login, with CREATEROLE): the admin may call them, but it has
# no CREATEROLE of its own (with PostgreSQL 15 that would let it grant itself
# pg_execute_server_program or take over another club's roles). A role is one of this
# club's tables when its name is the club's table role name and it is a member of the
# club's tables group; any other existing role is refused.
KEEPER_FUNCTIONS = (
    """CREATE OR REPLACE FUNCTION club_roles.ours(role text) RETURNS boolean
        LANGUAGE sql STABLE SET search_path = pg_catalog AS $$
        SELECT EXISTS (
            SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
              JOIN pg_roles r ON r.oid = m.member
             WHERE g.rolname = {tables_text} AND r.rolname = role
               AND NOT (r.rolsuper OR r.rolcreaterole OR r.rolcreatedb OR r.rolreplication
                        OR r.rolbypassrls)) $$""",
    """CREATE OR REPLACE FUNCTION club_roles.role_of(name text) RETURNS text
        LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog AS $$
        BEGIN
          IF name IS NULL OR name !~ '^[a-z][a-z0-9_-]{{0,39}}$' THEN
            RAISE EXCEPTION 'table name % is not a table name', quote_literal(name)
              USING ERRCODE = '22023';
          END IF;
          RETURN {prefix_text} || '_t_' || replace(name, '-', '_');
        END $$""",
    """CREATE OR REPLACE FUNCTION club_roles.open_table(name text, verifier text,
                                                       connections integer,
                                                       valid_until timestamptz)
        RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
        DECLARE
          role text := club_roles.role_of(name);
        BEGIN
          IF verifier IS NULL OR verifier !~ '^SCRAM-SHA-256[$]' THEN
            RAISE EXCEPTION 'a table password must come as a SCRAM-SHA-256 verifier'
              USING ERRCODE = '22023';
          END IF;
          IF connections IS NULL OR connections NOT BETWEEN 1 AND 50 THEN
            RAISE EXCEPTION 'connection limit % is not between 1 and 50', connections
              USING ERRCODE = '22023';
          END IF;
          IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role) THEN
            IF NOT club_roles.ours(role) THEN
              RAISE EXCEPTION 'role % exists and is not one of this club''s tables', role
                USING ERRCODE = '42710';
            END IF;
            EXECUTE format('ALTER ROLE %I LOGIN PASSWORD %L CONNECTION LIMIT %s VALID UNTIL %L',
                           role, verifier, connections,
                           COALESCE(valid_until::text, 'infinity'));
          ELSE
            EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L CONNECTION LIMIT %s VALID UNTIL %L',
                           role, verifier, connections,
                           COALESCE(valid_until::text, 'infinity'));
            EXECUTE format('GRANT %I TO %I', {tables_text}, role);
          END IF;
          -- a member of the table's role may end its sessions (see close_table)
          EXECUTE format('GRANT %I TO %I', role, {keeper_text});
          RETURN role;
        END $$""",
    # A table joining with an invitation code: its password (the code's, valid for a few
    # days) becomes its own for good, in the transaction that changes it.
    """CREATE OR REPLACE FUNCTION club_roles.claim() RETURNS text
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
        DECLARE
          role text := session_user;
        BEGIN
          IF NOT club_roles.ours(role) THEN
            RAISE EXCEPTION 'only a table of this club may claim its login'
              USING ERRCODE = '42501';
          END IF;
          EXECUTE format('ALTER ROLE %I VALID UNTIL %L', role, 'infinity');
          RETURN role;
        END $$""",
    """CREATE OR REPLACE FUNCTION club_roles.close_table(name text) RETURNS integer
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
        DECLARE
          role text := club_roles.role_of(name);
          ended integer;
        BEGIN
          IF NOT club_roles.ours(role) THEN
            RETURN 0;
          END IF;
          EXECUTE format('ALTER ROLE %I NOLOGIN', role);
          SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) INTO ended
            FROM pg_stat_activity WHERE usename = role;
          RETURN ended;
        END $$""",
)


def _keeper(conn: Conn, roles: Roles, superuser: bool) -> None:
    """Make (or bring up to date) the keeper, its functions, and the admin's rights:
    the admin keeps the schema and calls the functions, and has no role powers."""
    keeper, admin = sql.Identifier(roles.keeper), sql.Identifier(roles.admin)
    if not _role_exists(conn, roles.keeper):
        conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN CREATEROLE").format(keeper))
    if not superuser:   # a CREATEROLE owner of the database: it must act as the keeper
        conn.execute(sql.SQL("GRANT {} TO CURRENT_USER").format(keeper))
    conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS club_roles AUTHORIZATION {}").format(
        keeper))
    conn.execute("REVOKE ALL ON SCHEMA club_roles FROM PUBLIC")
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA club_roles TO {}").format(admin))
    literals = {"tables_text": sql.Literal(roles.tables),
                "prefix_text": sql.Literal(roles.prefix),
                "keeper_text": sql.Literal(roles.keeper)}
    for statement in KEEPER_FUNCTIONS:
        conn.execute(sql.SQL(statement).format(**literals))
    for signature in ("ours(text)", "role_of(text)", "open_table(text, text, integer, "
                      "timestamptz)", "claim()", "close_table(text)"):
        conn.execute(sql.SQL("ALTER FUNCTION club_roles.{} OWNER TO {}").format(
            sql.SQL(signature), keeper))
        conn.execute(sql.SQL("REVOKE ALL ON FUNCTION club_roles.{} FROM PUBLIC").format(
            sql.SQL(signature)))
    for signature in ("open_table(text, text, integer, timestamptz)", "close_table(text)"):
        conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION club_roles.{} TO {}").format(
            sql.SQL(signature), admin))
    tables = sql.Identifier(roles.tables)
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA club_roles TO {}").format(tables))
    conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION club_roles.claim() TO {}").format(tables))
    # Each role its own share of the server's connections (a table's is set when it is
    # added): the page keeps its pool and its LISTEN, the admin a few at once.
    for role, limit in ((roles.page, PAGE_CONNECTIONS), (roles.admin, ADMIN_CONNECTIONS)):
        conn.execute(sql.SQL("ALTER ROLE {} CONNECTION LIMIT {}").format(
            sql.Identifier(role), sql.Literal(limit)))
    # The admin of an older club had CREATEROLE, pg_signal_backend and the tables group
    # with ADMIN OPTION: taken away.
    conn.execute(sql.SQL("ALTER ROLE {} NOCREATEROLE").format(admin))
    for granted in (roles.tables, "pg_signal_backend"):
        if conn.execute("SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
                        "JOIN pg_roles r ON r.oid = m.member WHERE g.rolname = %s "
                        "AND r.rolname = %s", (granted, roles.admin)).fetchone():
            conn.execute(sql.SQL("REVOKE {} FROM {}").format(sql.Identifier(granted), admin))
    # the keeper ends the sessions of a revoked table as a member of its role
    if conn.execute("SELECT to_regclass('club.tables')").fetchone() != (None,):
        for (table_role,) in conn.execute("SELECT role FROM club.tables").fetchall():
            if _role_exists(conn, str(table_role)):
                conn.execute(sql.SQL("GRANT {} TO {}").format(
                    sql.Identifier(str(table_role)), keeper))


def check_url(url: str, what: str = "the club's connection string") -> dict[str, Any]:
    """The parts of a connection string, or a ClubError saying how to write one."""
    try:
        return conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        raise ClubError(
            f"{what} {redact(url)!r} cannot be read ({redact(str(exc).strip())}); write it as "
            "postgresql://USER:PASSWORD@HOST:PORT/DATABASE, as `club init` and "
            "`club add-table` print it") from None


def connect(url: str, *, autocommit: bool = True) -> Conn:
    """A psycopg connection, or a ClubError that names the server and what to check."""
    check_url(url)
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.OperationalError as exc:
        raise ClubError(
            f"cannot connect to the club database {redact(url)!r}: "
            f"{str(exc).strip().splitlines()[-1]}; check that the server runs, the address, "
            "the user and the password"
        ) from None


def redact(url: str) -> str:
    """The connection string without its password (for messages and logs)."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", re.sub(r"password=\S+", "password=***", url))


def with_login(url: str, user: str, password: str) -> str:
    """``url`` (a URL or key=value conninfo) with another user and password, as a URL."""
    parts = check_url(url)
    host = str(parts.pop("host", "127.0.0.1"))
    port = parts.pop("port", None)
    dbname = str(parts.pop("dbname", "postgres"))
    for key in ("user", "password"):
        parts.pop(key, None)
    where = f"[{host}]" if ":" in host else host
    if port:
        where += f":{port}"
    query = ("?" + urlencode({k: str(v) for k, v in parts.items()})) if parts else ""
    return (f"postgresql://{quote(user, safe='')}:{quote(password, safe='')}@{where}/"
            f"{quote(dbname, safe='')}{query}")


def _verifier(conn: Conn, role: str, password: str) -> str:
    """The SCRAM-SHA-256 verifier of ``password``: made here, so the clear text never
    reaches the server."""
    made = conn.pgconn.encrypt_password(password.encode(), role.encode(), b"scram-sha-256")
    return made.decode()


def _password(conn: Conn, role: str, password: str) -> sql.Composable:
    return sql.Literal(_verifier(conn, role, password))


def _role_exists(conn: Conn, role: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is not None


@dataclass(frozen=True)
class InitResult:
    version: int
    admin_url: str | None   # None when the admin role existed (its password is unchanged)
    page_url: str | None


def init_club(url: str, *, admin_password: str | None = None,
              page_password: str | None = None, ca_file: Path | None = None) -> InitResult:
    """Create (or migrate) the club in the database ``url`` names.

    ``url`` logs in as a superuser, or a role with CREATEROLE that owns the database.
    Roles that already exist keep their passwords unless new ones are given.
    """
    with connect(url) as conn:
        schema_version(conn)  # refuses a foreign or newer schema before touching anything
        roles = Roles.for_database(conn.info.dbname)
        urls: dict[str, str | None] = {}
        for role, given, login in ((roles.admin, admin_password, True),
                                   (roles.page, page_password, True),
                                   (roles.tables, None, False)):
            urls[role] = None
            if _role_exists(conn, role) and given is None:
                continue
            password = given or secrets.token_urlsafe(18)
            verb = "ALTER" if _role_exists(conn, role) else "CREATE"
            options: sql.Composable
            if login:
                options = sql.SQL("LOGIN PASSWORD {}").format(_password(conn, role, password))
                urls[role] = with_login(url, role, password)
            else:
                options = sql.SQL("NOLOGIN")
            conn.execute(sql.SQL("{} ROLE {} {}").format(
                sql.SQL(verb), sql.Identifier(role), options))
        conn.execute(sql.SQL("GRANT CREATE, CONNECT ON DATABASE {} TO {}").format(
            sql.Identifier(conn.info.dbname), sql.Identifier(roles.admin)))
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}, {}").format(
            sql.Identifier(conn.info.dbname), sql.Identifier(roles.page),
            sql.Identifier(roles.tables)))
        superuser = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
                                 ).fetchone() == (True,)
        if not superuser:  # to act as the admin below, a CREATEROLE owner must be one
            conn.execute(sql.SQL("GRANT {} TO CURRENT_USER").format(
                sql.Identifier(roles.admin)))
        conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(roles.admin)))
        version = migrate(conn, roles)
        conn.execute("RESET ROLE")
        _keeper(conn, roles, superuser)
        ca = ca_file or check_url(url).get("sslrootcert")
        if ca and Path(str(ca)).is_file():
            # public: a table joining with a code checks it against the code's fingerprint
            conn.execute("INSERT INTO club.meta VALUES ('ca_certificate', %s) "
                         "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                         (Path(str(ca)).read_text(),))
    return InitResult(version, urls[roles.admin], urls[roles.page])


@dataclass(frozen=True)
class TableInfo:
    name: str
    role: str
    added: str
    revoked: str | None


class ClubAdmin:
    """The admin role's actions on a club: ``ClubAdmin(admin_url)`` (a context manager)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.conn = connect(url)
        require_current(self.conn)
        self.roles = Roles.for_database(self.conn.info.dbname)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> ClubAdmin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def tables(self) -> list[TableInfo]:
        rows = self.conn.execute(
            "SELECT name, role, added::text, revoked::text FROM club.tables ORDER BY name"
        ).fetchall()
        return [TableInfo(str(r[0]), str(r[1]), str(r[2]), None if r[3] is None else str(r[3]))
                for r in rows]

    def _find(self, name: str) -> TableInfo:
        for info in self.tables():
            if info.name == name:
                return info
        names = ", ".join(t.name for t in self.tables()) or "none yet"
        raise UnknownTableError(
            f"no table {name!r} in this club (tables: {names}); `meridian-table club "
            "tables` lists them")

    def add_table(self, name: str, password: str | None = None,
                  valid_days: int | None = None) -> str:
        """Create table ``name`` with its own login role; return its connection string.

        A revoked table added again gets its role back with a new password.
        """
        check_table_name(name)
        role = self.roles.table(name)
        password = password or secrets.token_urlsafe(18)
        with self.conn.transaction():
            existing = self.conn.execute(
                "SELECT revoked FROM club.tables WHERE name = %s", (name,)).fetchone()
            if existing is not None and existing[0] is None:
                raise ClubError(
                    f"table {name!r} is already in the club; `club remove-table {name}` "
                    "revokes it, or choose another name")
            try:
                self.conn.execute(
                    "SELECT club_roles.open_table(%s, %s, %s, now() + %s * interval '1 day')",
                    (name, _verifier(self.conn, role, password), TABLE_CONNECTIONS,
                     valid_days))
            except psycopg.errors.DuplicateObject:
                raise ClubError(
                    f"the role {role!r} that table {name!r} would log in as already exists "
                    "on this server and is not one of this club's tables; choose another "
                    "name") from None
            self.conn.execute(
                "INSERT INTO club.tables (name, role) VALUES (%s, %s) "
                "ON CONFLICT (name) DO UPDATE SET revoked = NULL, role = EXCLUDED.role",
                (name, role))
            self.log("add-table", table=name, role=role, invitation=valid_days is not None)
        LOGGER.info("added table %s (role %s)", name, role)
        return with_login(self.url, role, password)

    def invite_table(self, name: str, address: str | None = None) -> str:
        """Add table ``name`` and return its one-time invitation code (valid for
        INVITE_DAYS): ``club join CODE`` at the table turns it into the table's own
        login. ``address`` (HOST or HOST:PORT) is where the tables reach the server,
        when not the admin's own address."""
        password = secrets.token_urlsafe(18)
        self.add_table(name, password, valid_days=INVITE_DAYS)
        parts = check_url(self.url)
        host, port = str(parts.get("host") or "127.0.0.1"), str(parts.get("port") or 5432)
        if address:
            host, _, given = address.rpartition(":") if address.count(":") == 1 else (
                address, "", "")
            port = given or port
        row = self.conn.execute(
            "SELECT value FROM club.meta WHERE key = 'ca_certificate'").fetchone()
        code = {"h": host, "p": int(port), "d": self.conn.info.dbname,
                "u": self.roles.table(name), "w": password,
                "f": fingerprint(str(row[0])) if row else None}
        text = base64.urlsafe_b64encode(json.dumps(code, separators=(",", ":")).encode())
        LOGGER.info("invitation code made for table %s", name)
        return INVITE_PREFIX + text.decode().rstrip("=")

    def remove_table(self, name: str) -> None:
        """Revoke table ``name``: it can no longer log in, and its open sessions end.
        Its games stay in the club's history."""
        self._find(name)
        with self.conn.transaction():
            self.conn.execute("UPDATE club.tables SET revoked = now() WHERE name = %s", (name,))
            self.conn.execute("SELECT club_roles.close_table(%s)", (name,))
            self.log("remove-table", table=name)
        LOGGER.info("revoked table %s", name)

    def log(self, action: str, **detail: object) -> None:
        """Note an admin action in ``club.admin_log`` (who, when, what)."""
        if self.conn.execute("SELECT to_regclass('club.admin_log')").fetchone() == (None,):
            return   # a club older than schema 6 (only while it is being migrated)
        self.conn.execute("INSERT INTO club.admin_log (action, detail) VALUES (%s, %s)",
                          (action, Jsonb(detail)))

    def withdraw_game(self, table: str, game_id: int, reason: str = "") -> int:
        """Take a game out of the finished games and the standings (they are recomputed
        without it); a remote game goes with every table's copy. Its events stay.
        Returns how many copies were withdrawn."""
        with self.conn.transaction():
            row = self.conn.execute(
                "SELECT remote FROM club.games WHERE table_name = %s AND game_id = %s",
                (table, game_id)).fetchone()
            if row is None:
                raise ClubError(f"no game {game_id} of table {table!r} in the club; the "
                                "club page's address of a game is /game/TABLE/NUMBER")
            copies = self.conn.execute(
                "INSERT INTO club.withdrawn (table_name, game_id, reason) "
                "SELECT table_name, game_id, %s FROM club.games "
                "WHERE (table_name = %s AND game_id = %s) OR (remote IS NOT NULL AND "
                "remote = %s) ON CONFLICT DO NOTHING", (reason, table, game_id, row[0]))
            self.log("withdraw", table=table, game=game_id, remote=row[0], reason=reason,
                     copies=copies.rowcount)
        LOGGER.info("withdrew game %d of table %s (%s)", game_id, table, reason)
        return copies.rowcount

    def reset_table(self, name: str, reason: str = "") -> int:
        """Withdraw every game table ``name`` has shipped so far (a table that shipped
        test games, say): the standings start again without them. Returns how many."""
        self._find(name)
        with self.conn.transaction():
            done = self.conn.execute(
                "INSERT INTO club.withdrawn (table_name, game_id, reason) "
                "SELECT table_name, game_id, %s FROM club.games WHERE table_name = %s "
                "ON CONFLICT DO NOTHING", (reason or "table reset", name))
            self.log("reset", table=name, reason=reason, games=done.rowcount)
        return done.rowcount

    def rename_table(self, old: str, new: str) -> None:
        """Rename a table; its games follow (its login role keeps its name)."""
        check_table_name(new)
        self._find(old)
        try:
            with self.conn.transaction():
                self.conn.execute("UPDATE club.tables SET name = %s WHERE name = %s",
                                  (new, old))
                self.log("rename-table", table=old, new=new)
        except psycopg.errors.UniqueViolation:
            raise ClubError(f"there is already a table named {new!r}; choose another name") \
                from None


def check_table_name(name: str) -> None:
    if not TABLE_NAME.match(name):
        raise BadTableNameError(
            f"table name {name!r}: use 1 to 40 lower-case letters, digits, '-' or '_', "
            "starting with a letter (e.g. table7 or kitchen)")


def join_with_code(code: str, folder: Path) -> str:
    """Redeem an invitation code: check the club's CA against the code's fingerprint
    (saved in ``folder``), log in once with the code's password over verified TLS, and
    make a new password this table alone knows. Returns the table's connection string."""
    try:
        body = code.strip()[len(INVITE_PREFIX):]
        given = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        host, port, db = str(given["h"]), int(given["p"]), str(given["d"])
        user, password, wanted = str(given["u"]), str(given["w"]), given.get("f")
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise ClubError(f"{code[:20]!r}... is not an invitation code (they start with "
                        f"{INVITE_PREFIX!r}); copy it whole from the organiser") from None
    where = f"[{host}]" if ":" in host else host
    base = f"postgresql://{quote(user, safe='')}:{quote(password, safe='')}@{where}:{port}/" \
           f"{quote(db, safe='')}"
    used = ("the invitation code was used already or has expired, or the club cannot be "
            "reached; ask the organiser for a new code (`club invite-table NAME`)")
    if wanted is None:
        login = base   # a club without TLS (a home network): said at join
    else:
        first = base + "?" + urlencode({"sslmode": "require", "channel_binding": "require"})
        try:
            with psycopg.connect(first, connect_timeout=CONNECT_TIMEOUT_S) as conn:
                row = conn.execute(
                    "SELECT value FROM club.meta WHERE key = 'ca_certificate'").fetchone()
        except psycopg.OperationalError as exc:
            raise ClubError(f"{used} ({str(exc).strip().splitlines()[-1]})") from None
        if row is None or fingerprint(str(row[0])) != wanted:
            raise ClubError(f"the server at {host}:{port} is not the club the code names "
                            "(another certificate authority); nothing was changed — check "
                            "the address with the organiser")
        folder.mkdir(parents=True, exist_ok=True)
        ca_file = folder / f"club-ca-{re.sub(r'[^A-Za-z0-9.-]', '_', host)}-{port}.crt"
        ca_file.write_text(str(row[0]))
        login = base + "?" + urlencode({"sslmode": "verify-full", "sslrootcert": str(ca_file)})
    mine = secrets.token_urlsafe(18)
    try:
        with psycopg.connect(login, connect_timeout=CONNECT_TIMEOUT_S) as conn:
            conn.execute("SELECT club_roles.claim()")
            conn.execute(sql.SQL("ALTER ROLE CURRENT_USER PASSWORD {}").format(
                _password(conn, user, mine)))
    except psycopg.OperationalError as exc:
        raise ClubError(f"{used} ({str(exc).strip().splitlines()[-1]})") from None
    return with_login(login, user, mine)
