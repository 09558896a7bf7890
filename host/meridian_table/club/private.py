"""``club serve`` without ``--db``: a private PostgreSQL in the user's data folder.

The cluster (``<data dir>/club/pg``) is made once with ``initdb``, started with
``pg_ctl`` on a loopback port, and holds a database ``club`` set up by ``club init``.
Its logins are kept beside it in ``club.json`` (mode 0600).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

import psycopg

from meridian_table.club.admin import init_club
from meridian_table.club.cluster import Cluster
from meridian_table.club.tls import authority
from meridian_table.textload import json_loads


def club_folder() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("meridian-table")) / "club"


def private_club(echo: Callable[[str], None], folder: Path | None = None, *,
                 port: int | None = None) -> tuple[Cluster, str, str | None]:
    """Start (making it first if needed) the private club: (cluster, page URL, admin URL
    when it was just made, else None). ``port``: the server's port (kept from then on)."""
    folder = folder or club_folder()
    datadir = folder / "pg"
    logins = folder / "club.json"
    if not (datadir / "PG_VERSION").exists():
        echo(f"making a private PostgreSQL cluster in {datadir} (once)")
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(0o755)  # the server may run as the postgres user when we are root
        cluster = Cluster.create(datadir, port=port)
        # TLS from the start: the page and the tables connect with sslmode=verify-full
        cluster.enable_tls(authority(folder / "tls", "private club"))
    else:
        cluster = Cluster.load(datadir)
        if port is not None and port != cluster.port:
            cluster.stop()
            cluster.set_port(port)
    if cluster.ca_file is None:
        # made by an older release: TLS from now on, and the saved logins verify it
        echo("turning TLS on for the private club (once)")
        cluster.enable_tls(authority(folder / "tls", "private club"))
        if logins.exists():
            saved = json_loads(logins.read_text())
            _save(logins, {k: _verified(str(v), cluster) for k, v in saved.items()})
    if not cluster.running:
        cluster.start()
    if logins.exists():
        saved = json_loads(logins.read_text())
        init_club(cluster.url("club"))   # migrates a club made by an older release
        return cluster, str(saved["page"]), None
    with psycopg.connect(cluster.url(), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = 'club'").fetchone() is None:
            conn.execute("CREATE DATABASE club")
    result = init_club(cluster.url("club"))
    if result.page_url is None or result.admin_url is None:
        raise RuntimeError("the private club's roles existed without their saved logins")
    _save(logins, {"page": result.page_url, "admin": result.admin_url})
    return cluster, result.page_url, result.admin_url


def _save(logins: Path, urls: dict[str, str]) -> None:
    fd = os.open(logins, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(urls, handle)


def _verified(url: str, cluster: Cluster) -> str:
    """A saved login made to check the private server's certificate."""
    if "sslmode=" in url or cluster.ca_file is None:
        return url
    return url + ("&" if "?" in url else "?") + urlencode(
        {"sslmode": "verify-full", "sslrootcert": str(cluster.ca_file)})


def stop_private_club(folder: Path | None = None) -> bool:
    """Stop the private club's PostgreSQL; False when there is none running."""
    datadir = (folder or club_folder()) / "pg"
    if not (datadir / "PG_VERSION").exists():
        return False
    cluster = Cluster.load(datadir)
    if not cluster.running:
        return False
    cluster.stop()
    return True
