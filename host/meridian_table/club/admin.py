"""Setting up a club: ``club init`` (roles, schema) and adding, revoking, renaming tables.

Passwords are hashed with SCRAM-SHA-256 on this side (libpq's ``PQencryptPasswordConn``)
so the clear text never travels to the server or lands in its logs.
"""

from __future__ import annotations

import logging
import re
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from meridian_table.club.errors import BadTableNameError, ClubError, UnknownTableError
from meridian_table.club.schema import Roles, migrate, require_current, schema_version

LOGGER = logging.getLogger(__name__)

TABLE_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
CONNECT_TIMEOUT_S = 5
# A table on Wi-Fi: give up on a server that does not answer (libpq's own parameters).
NETWORK_OPTIONS: dict[str, Any] = {
    "connect_timeout": 3, "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
    "keepalives_count": 3, "tcp_user_timeout": 10_000,
}

Conn = psycopg.Connection[tuple[object, ...]]


def connect(url: str, *, autocommit: bool = True) -> Conn:
    """A psycopg connection, or a ClubError that names the server and what to check."""
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
    parts = conninfo_to_dict(url)
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


def _password(conn: Conn, role: str, password: str) -> sql.Composable:
    verifier = conn.pgconn.encrypt_password(password.encode(), role.encode(), b"scram-sha-256")
    return sql.Literal(verifier.decode())


def _role_exists(conn: Conn, role: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is not None


@dataclass(frozen=True)
class InitResult:
    version: int
    admin_url: str | None   # None when the admin role existed (its password is unchanged)
    page_url: str | None


def init_club(url: str, *, admin_password: str | None = None,
              page_password: str | None = None) -> InitResult:
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
        conn.execute(sql.SQL("ALTER ROLE {} CREATEROLE").format(sql.Identifier(roles.admin)))
        conn.execute(sql.SQL("GRANT CREATE, CONNECT ON DATABASE {} TO {}").format(
            sql.Identifier(conn.info.dbname), sql.Identifier(roles.admin)))
        # So that revoking a table can also end its open sessions.
        conn.execute(sql.SQL("GRANT pg_signal_backend TO {}").format(
            sql.Identifier(roles.admin)))
        conn.execute(sql.SQL("GRANT {} TO {} WITH ADMIN OPTION").format(
            sql.Identifier(roles.tables), sql.Identifier(roles.admin)))
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}, {}").format(
            sql.Identifier(conn.info.dbname), sql.Identifier(roles.page),
            sql.Identifier(roles.tables)))
        conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(roles.admin)))
        version = migrate(conn, roles)
        conn.execute("RESET ROLE")
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

    def add_table(self, name: str, password: str | None = None) -> str:
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
            verb = "ALTER" if _role_exists(self.conn, role) else "CREATE"
            self.conn.execute(sql.SQL("{} ROLE {} LOGIN PASSWORD {}").format(
                sql.SQL(verb), sql.Identifier(role), _password(self.conn, role, password)))
            self.conn.execute(sql.SQL("GRANT {} TO {}").format(
                sql.Identifier(self.roles.tables), sql.Identifier(role)))
            self.conn.execute(
                "INSERT INTO club.tables (name, role) VALUES (%s, %s) "
                "ON CONFLICT (name) DO UPDATE SET revoked = NULL, role = EXCLUDED.role",
                (name, role))
        LOGGER.info("added table %s (role %s)", name, role)
        return with_login(self.url, role, password)

    def remove_table(self, name: str) -> None:
        """Revoke table ``name``: it can no longer log in, and its open sessions end.
        Its games stay in the club's history."""
        info = self._find(name)
        with self.conn.transaction():
            self.conn.execute("UPDATE club.tables SET revoked = now() WHERE name = %s", (name,))
            self.conn.execute(sql.SQL("ALTER ROLE {} NOLOGIN").format(sql.Identifier(info.role)))
        try:
            self.conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                (info.role,))
        except psycopg.errors.InsufficientPrivilege:
            # An admin made without pg_signal_backend: the role cannot log in again,
            # and its open sessions end when the table disconnects.
            LOGGER.warning("could not end table %s's open sessions (no pg_signal_backend)",
                           name)
        LOGGER.info("revoked table %s", name)

    def rename_table(self, old: str, new: str) -> None:
        """Rename a table; its games follow (its login role keeps its name)."""
        check_table_name(new)
        self._find(old)
        try:
            self.conn.execute("UPDATE club.tables SET name = %s WHERE name = %s", (new, old))
        except psycopg.errors.UniqueViolation:
            raise ClubError(f"there is already a table named {new!r}; choose another name") \
                from None


def check_table_name(name: str) -> None:
    if not TABLE_NAME.match(name):
        raise BadTableNameError(
            f"table name {name!r}: use 1 to 40 lower-case letters, digits, '-' or '_', "
            "starting with a letter (e.g. table7 or kitchen)")
