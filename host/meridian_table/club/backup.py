"""``club backup`` and ``club restore``: the whole club in one file, around PostgreSQL's
own ``pg_dump`` and ``pg_restore``.

A backup is a tar file holding ``club.dump`` (``pg_dump --format=custom`` of the schemas
``club`` and ``club_roles``), ``roles.json`` (the club's roles with their SCRAM verifiers,
limits and memberships: PostgreSQL keeps roles outside any database, so a dump alone
would restore a club nobody can log in to) and ``about.json``. Both ends need a
superuser login (reading and writing role verifiers needs one). The backup file holds
password verifiers: it is written 0600; keep it as you would keep the admin's password.
"""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from meridian_table.club.admin import connect, redact
from meridian_table.club.cluster import find_bindir
from meridian_table.club.errors import ClubError
from meridian_table.club.schema import Roles, schema_version
from meridian_table.textload import json_loads

LOGGER = logging.getLogger(__name__)

FORMAT = "meridian-table club backup 1"


@dataclass(frozen=True)
class BackupInfo:
    dbname: str
    version: int
    roles: int
    bytes: int


def _require_superuser(conn: psycopg.Connection[tuple[object, ...]], what: str) -> None:
    row = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
    if row != (True,):
        raise ClubError(f"{what} needs a superuser login (the one `club init` used, e.g. "
                        "postgresql://postgres@HOST/club): the club's roles and their "
                        "password verifiers are kept outside the database")


def _run(cmd: list[str], what: str) -> None:
    result = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                            check=False)
    if result.returncode != 0:
        detail = " / ".join((result.stderr or result.stdout).strip().splitlines()[-3:])
        raise ClubError(f"{what} failed (exit {result.returncode}): {redact(detail)}")


def backup(url: str, out: Path) -> BackupInfo:
    """Write the club in the database ``url`` (a superuser's login) to ``out``."""
    with connect(url) as conn:
        _require_superuser(conn, "club backup")
        version = schema_version(conn)
        if version == 0:
            raise ClubError(f"database {conn.info.dbname!r} has no club to back up")
        dbname = conn.info.dbname
        roles = Roles.for_database(dbname)
        like = roles.prefix.replace("_", r"\_") + r"\_%"
        rows = conn.execute(
            "SELECT rolname, rolcanlogin, rolcreaterole, rolconnlimit, rolpassword, "
            "rolvaliduntil::text FROM pg_authid WHERE rolname LIKE %s ORDER BY rolname",
            (like,)).fetchall()
        names = {str(r[0]) for r in rows}
        members = conn.execute(
            "SELECT g.rolname, m.rolname FROM pg_auth_members a "
            "JOIN pg_roles g ON g.oid = a.roleid JOIN pg_roles m ON m.oid = a.member "
            "WHERE g.rolname = ANY(%s) AND m.rolname = ANY(%s) ORDER BY 1, 2",
            (sorted(names), sorted(names))).fetchall()
    role_list = [{"name": r[0], "login": r[1], "createrole": r[2], "connlimit": r[3],
                  "verifier": r[4], "valid_until": r[5]} for r in rows]
    with tempfile.TemporaryDirectory(prefix="meridian-backup-") as work:
        dump = Path(work) / "club.dump"
        _run([str(find_bindir() / "pg_dump"), "--format=custom", "--schema=club",
              "--schema=club_roles", f"--file={dump}", f"--dbname={url}"], "pg_dump")
        about = {"format": FORMAT, "dbname": dbname, "prefix": roles.prefix,
                 "version": version, "taken": datetime.now(UTC).isoformat()}
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle, tarfile.open(fileobj=handle, mode="w") as tar:
            for name, data in (("about.json", json.dumps(about).encode()),
                               ("roles.json", json.dumps(
                                   {"roles": role_list, "members": members}).encode())):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            tar.add(dump, arcname="club.dump")
    LOGGER.info("backed up the club %s (schema %d) to %s", dbname, version, out)
    return BackupInfo(dbname, version, len(role_list), out.stat().st_size)


def _member(tar: tarfile.TarFile, name: str, source: Path) -> bytes:
    try:
        handle = tar.extractfile(name)
    except KeyError:
        handle = None
    if handle is None:
        raise ClubError(f"{source} is not a club backup (no {name}); `club backup` makes one")
    return handle.read()


def restore(source: Path, url: str) -> BackupInfo:
    """Restore the backup ``source`` into the server ``url`` names (a superuser's login):
    its roles (with their passwords) where missing, then the club into an empty database
    of the backup's name, made when missing."""
    try:
        with tarfile.open(source) as tar:
            about: dict[str, Any] = json_loads(_member(tar, "about.json", source))
            saved: dict[str, Any] = json_loads(_member(tar, "roles.json", source))
            dump = _member(tar, "club.dump", source)
    except (OSError, tarfile.TarError, ValueError) as exc:
        raise ClubError(f"cannot read the backup {str(source)!r} ({exc}); give a file "
                        "`club backup` wrote") from None
    if about.get("format") != FORMAT:
        raise ClubError(f"{source} is not a club backup this program reads "
                        f"(format {about.get('format')!r})")
    dbname = str(about["dbname"])
    parts = conninfo_to_dict(url)
    with connect(make_conninfo(url, dbname="postgres")) as conn:
        _require_superuser(conn, "club restore")
        for role in saved["roles"]:
            ident = sql.Identifier(str(role["name"]))
            verb = "ALTER" if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s",
                                           (role["name"],)).fetchone() else "CREATE"
            options = [sql.SQL("LOGIN" if role["login"] else "NOLOGIN"),
                       sql.SQL("CREATEROLE" if role["createrole"] else "NOCREATEROLE"),
                       sql.SQL("CONNECTION LIMIT {}").format(sql.Literal(role["connlimit"]))]
            if role["verifier"]:
                options.append(sql.SQL("PASSWORD {}").format(sql.Literal(role["verifier"])))
            if role["valid_until"]:
                options.append(sql.SQL("VALID UNTIL {}").format(
                    sql.Literal(role["valid_until"])))
            conn.execute(sql.SQL("{} ROLE {} {}").format(sql.SQL(verb), ident,
                                                         sql.SQL(" ").join(options)))
        for group, member in saved["members"]:
            conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(str(group)),
                                                         sql.Identifier(str(member))))
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                        (dbname,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
    target = make_conninfo(url, dbname=dbname)
    with connect(target) as conn:
        if schema_version(conn) != 0:
            raise ClubError(f"database {dbname!r} at {parts.get('host', 'the server')} "
                            "already holds a club; restore into a new server or drop it "
                            "first (nothing was changed)")
        roles = Roles.for_database(dbname)
        conn.execute(sql.SQL("GRANT CREATE, CONNECT ON DATABASE {} TO {}").format(
            sql.Identifier(dbname), sql.Identifier(roles.admin)))
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}, {}").format(
            sql.Identifier(dbname), sql.Identifier(roles.page), sql.Identifier(roles.tables)))
    with tempfile.TemporaryDirectory(prefix="meridian-restore-") as work:
        dump_file = Path(work) / "club.dump"
        dump_file.write_bytes(dump)
        _run([str(find_bindir() / "pg_restore"), "--exit-on-error", "--single-transaction",
              f"--dbname={target}", str(dump_file)], "pg_restore")
    LOGGER.info("restored the club %s (schema %s) from %s", dbname, about["version"], source)
    return BackupInfo(dbname, int(about["version"]), len(saved["roles"]), len(dump))
