"""A PostgreSQL cluster of our own: the server binaries, ``initdb`` and ``pg_ctl``.

``club serve`` without ``--db`` keeps a private cluster in the user's data folder; the
tests and ``bench club`` start a throwaway one on a free loopback port. Either way it
listens on 127.0.0.1 only and every login needs a SCRAM password (``initdb
--auth=scram-sha-256``). PostgreSQL refuses to run as root, so when we are root the
server runs as the ``postgres`` user that Debian's package creates.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

from meridian_table.club.errors import ClusterError, NoServerError
from meridian_table.club.tls import Authority, issue
from meridian_table.textload import json_loads

LOGGER = logging.getLogger(__name__)

SUPERUSER = "meridian"
INSTALL_HINT = (
    "install PostgreSQL's server: `sudo apt install postgresql` (Debian, Ubuntu, Raspberry "
    "Pi OS), `brew install postgresql` (macOS), or give --db postgresql://USER@HOST/DB "
    "for a server you already have"
)
START_TIMEOUT_S = 60
DEBIAN_ROOT = Path("/usr/lib/postgresql")   # Debian's versioned server folders


def find_bindir() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl``: $PATH first, then Debian's
    versioned folders (``/usr/lib/postgresql/<version>/bin``, newest first)."""
    for name in ("pg_ctl",):
        found = shutil.which(name)
        if found and (Path(found).resolve().parent / "initdb").exists():
            return Path(found).resolve().parent
    debian = sorted(DEBIAN_ROOT.glob("*/bin/pg_ctl"),
                    key=lambda p: _version_key(p.parent.parent.name), reverse=True)
    for pg_ctl in debian:
        if (pg_ctl.parent / "initdb").exists():
            return pg_ctl.parent
    raise NoServerError(f"no PostgreSQL server programs (initdb, pg_ctl) found; {INSTALL_HINT}")


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _run_as() -> str | None:
    """The user the server runs as: ``postgres`` when we are root, else ourselves."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None  # not root (or Windows, which has no root and no pwd)
    try:
        import pwd  # POSIX only, and only needed as root
    except ImportError:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise ClusterError(
            "PostgreSQL refuses to run as root and there is no 'postgres' user; install "
            "Debian's postgresql package (it creates the user) or run as another user"
        ) from None
    return "postgres"


@dataclass
class Cluster:
    """One PostgreSQL data folder on a loopback port, reached as ``SUPERUSER``."""

    datadir: Path
    port: int
    password: str
    bindir: Path
    temporary: bool = False     # made by throwaway(): destroy() removes its folder too
    ca_file: Path | None = None  # TLS on: the club CA's certificate (sslmode=verify-full)

    @property
    def settings_file(self) -> Path:
        return self.datadir.parent / "cluster.json"

    @classmethod
    def create(cls, datadir: Path, *, port: int | None = None, fast: bool = False) -> Cluster:
        """``initdb`` a new cluster in ``datadir`` (which must not exist or be empty).

        ``fast`` turns fsync off: for throwaway test clusters only.
        """
        bindir = find_bindir()
        user = _run_as()
        datadir.mkdir(parents=True, exist_ok=True)
        password = secrets.token_urlsafe(18)
        with tempfile.NamedTemporaryFile("w", delete=False, dir=datadir.parent) as pwfile:
            pwfile.write(password + "\n")
        try:
            if user is not None:
                shutil.chown(datadir, user)
                shutil.chown(pwfile.name, user)
            _run([str(bindir / "initdb"), "-D", str(datadir), "-U", SUPERUSER,
                  "--auth=scram-sha-256", f"--pwfile={pwfile.name}", "--encoding=UTF8",
                  "--locale=C.UTF-8", "--no-instructions"], user, "initdb")
        finally:
            os.unlink(pwfile.name)
        cluster = cls(datadir, port or free_port(), password, bindir)
        lines = [
            "listen_addresses = '127.0.0.1'",
            f"port = {cluster.port}",
            f"unix_socket_directories = '{datadir}'",
            "password_encryption = 'scram-sha-256'",
            "max_connections = 200",
        ]
        if fast:
            lines += ["fsync = off", "full_page_writes = off"]
        with (datadir / "postgresql.conf").open("a") as conf:
            conf.write("\n# meridian-table\n" + "\n".join(lines) + "\n")
        cluster.save()
        return cluster

    def set_port(self, port: int) -> None:
        """Listen on ``port`` from the next start on (the server must be stopped)."""
        self.port = port
        with (self.datadir / "postgresql.conf").open("a") as conf:
            conf.write(f"port = {port}\n")
        self.save()

    def save(self) -> None:
        """Remember the port and the superuser's password beside the data folder (0600)."""
        text = json.dumps({"port": self.port, "password": self.password,
                           "datadir": str(self.datadir),
                           "ca_file": str(self.ca_file) if self.ca_file else None})
        fd = os.open(self.settings_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(text)

    @classmethod
    def load(cls, datadir: Path) -> Cluster:
        """A cluster made earlier by :meth:`create`."""
        settings = json_loads((datadir.parent / "cluster.json").read_text())
        ca = settings.get("ca_file")
        return cls(datadir, int(settings["port"]), str(settings["password"]), find_bindir(),
                   ca_file=Path(str(ca)) if ca else None)

    def url(self, dbname: str = "postgres", user: str = SUPERUSER,
            password: str | None = None) -> str:
        """A ``postgresql://`` connection string (the superuser's by default)."""
        secret = self.password if user == SUPERUSER and password is None else password
        auth = quote(user, safe="") + (":" + quote(secret, safe="") if secret else "")
        url = f"postgresql://{auth}@127.0.0.1:{self.port}/{quote(dbname, safe='')}"
        if self.ca_file is not None:
            url += "?" + urlencode({"sslmode": "verify-full", "sslrootcert": str(self.ca_file)})
        return url

    def enable_tls(self, ca: Authority, names: Sequence[str] = (),
                   networks: Sequence[str] = ()) -> None:
        """TLS for every TCP connection: a server certificate signed by ``ca`` for
        ``names`` (loopback and this machine's name always), ``pg_hba.conf`` taking
        only ``hostssl`` logins with SCRAM, from loopback and the ``networks`` given
        (e.g. 192.168.1.0/24; the server then listens on every address)."""
        cert, key = self.datadir / "server.crt", self.datadir / "server.key"
        all_names = list(dict.fromkeys(["127.0.0.1", "localhost", "::1",
                                        socket.gethostname(), *names]))
        issue(ca, all_names, cert, key)
        user = _run_as()
        if user is not None:
            for path in (cert, key):
                shutil.chown(path, user, user)
        lines = ["ssl = on", "ssl_cert_file = 'server.crt'", "ssl_key_file = 'server.key'",
                 "ssl_min_protocol_version = 'TLSv1.2'"]
        if networks:
            lines.append("listen_addresses = '*'")
        with (self.datadir / "postgresql.conf").open("a") as conf:
            conf.write("\n# meridian-table: TLS\n" + "\n".join(lines) + "\n")
        hba = ["# meridian-table: TLS and SCRAM only (club init --tls)",
               "local all all scram-sha-256",
               "hostssl all all 127.0.0.1/32 scram-sha-256",
               "hostssl all all ::1/128 scram-sha-256"]
        hba += [f"hostssl all all {net} scram-sha-256" for net in networks]
        hba_file = self.datadir / "pg_hba.conf"
        hba_file.write_text("\n".join(hba) + "\n")
        if user is not None:
            shutil.chown(hba_file, user, user)
        self.ca_file = ca.cert_file
        self.save()
        if self.running:
            self.restart()

    def _pg_ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return _run([str(self.bindir / "pg_ctl"), "-D", str(self.datadir), *args],
                    _run_as(), "pg_ctl " + args[0], check=check, own_session=True)

    @property
    def running(self) -> bool:
        return self._pg_ctl("status", check=False).returncode == 0

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        log = self.datadir / "server.log"
        # its own session: a Ctrl-C in the terminal stops the program that started the
        # server, not the server the tables replicate to
        self._pg_ctl("start", "-w", "-t", str(START_TIMEOUT_S), "-l", str(log))

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: ``fast`` (roll back open transactions) or ``immediate``
        (like a crash: recovery runs at the next start)."""
        if self.running:
            self._pg_ctl("stop", "-w", "-m", mode)

    def restart(self, mode: str = "fast") -> None:
        self.stop(mode)
        self.start()

    def destroy(self) -> None:
        """Stop the server and delete its data folder and settings."""
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.datadir, ignore_errors=True)
            self.settings_file.unlink(missing_ok=True)
            if self.temporary:
                shutil.rmtree(self.datadir.parent, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.destroy()


def throwaway(fast: bool = True, tls: bool = False) -> Cluster:
    """A started cluster in a fresh temporary folder (tests, benches); ``destroy()`` it.
    ``tls``: its own CA (in the folder's ``tls``) and TLS-only logins."""
    # /tmp itself, not a private pytest folder: the postgres user must reach the data.
    base = Path(tempfile.mkdtemp(prefix="meridian-pg-"))
    base.chmod(0o755)
    cluster = Cluster.create(base / "data", fast=fast)
    cluster.temporary = True
    if tls:
        from meridian_table.club.tls import authority

        cluster.enable_tls(authority(base / "tls", "throwaway"))
    cluster.start()
    return cluster


def _run(cmd: list[str], user: str | None, what: str, check: bool = True,
         own_session: bool = False) -> subprocess.CompletedProcess[str]:
    LOGGER.debug("running %s", " ".join(cmd))
    group: int | None = None
    extra: list[int] | None = None
    if user is not None:   # root running the server as postgres: its own group, not root's
        import pwd

        group, extra = pwd.getpwnam(user).pw_gid, []
    result = subprocess.run(cmd, capture_output=True, text=True, user=user, group=group,
                            extra_groups=extra, cwd="/", stdin=subprocess.DEVNULL,
                            check=False, start_new_session=own_session)
    if check and result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise ClusterError(f"{what} failed (exit {result.returncode}): {' / '.join(detail)}")
    return result
