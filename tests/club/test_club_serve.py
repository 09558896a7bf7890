"""`club serve`: a private PostgreSQL when no --db is given (or the package to install
when there is none), and a club page that survives kill -9."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.club import cluster as cluster_module
from meridian_table.club.cluster import free_port
from meridian_table.club.private import private_club
from meridian_table.club.replicator import Replicator
from meridian_table.club.simtable import SimTable, two_player_game

from .conftest import Club


def test_without_server_programs_serve_names_the_package(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(cluster_module, "DEBIAN_ROOT", tmp_path / "none")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    result = CliRunner().invoke(main, ["club", "serve", "--port", "0"])
    assert result.exit_code == 1
    assert "no PostgreSQL server programs (initdb, pg_ctl)" in result.output
    assert "apt install postgresql" in result.output and "Traceback" not in result.output


def test_a_private_club_is_made_once_then_reused(club: Club) -> None:
    del club  # only needs the server programs (the fixture skips or fails without them)
    folder = Path(tempfile.mkdtemp(prefix="meridian-private-"))
    folder.chmod(0o755)
    said: list[str] = []
    try:
        first, page_url, admin_url = private_club(said.append, folder / "club")
        assert admin_url is not None and "making a private PostgreSQL" in said[0]
        first.stop()
        again, page_again, admin_again = private_club(said.append, folder / "club")
        assert page_again == page_url and admin_again is None and again.running
        again.stop()
        mode = (folder / "club" / "club.json").stat().st_mode & 0o777
        assert mode == 0o600
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _serve(page_url: str, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "meridian_table.cli.main", "club", "serve", "--db", page_url,
         "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _wait_page(url: str, timeout: float = 30) -> httpx.Response:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return httpx.get(url, timeout=2)
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_the_club_page_killed_with_sigkill_comes_back_with_everything(
        club: Club, tmp_path: Path) -> None:
    with club.admin() as admin:
        url = admin.add_table("table7")
    log = tmp_path / "games.sqlite3"
    port = free_port()
    with SimTable(log, two_player_game(), ["Ann", "Bob"], seed=9) as table, \
            Replicator(log, url) as rep:
        for _ in range(5):
            table.step()
        page = _serve(club.page_url, port)
        try:
            assert "4 moves" in re.sub("<[^>]+>", "", _wait_page(f"http://127.0.0.1:{port}/").text)
            os.kill(page.pid, signal.SIGKILL)
            page.wait(10)
            for _ in range(5):            # the tables play on while the page is down
                table.step()
            assert rep.wait_caught_up(20)
        finally:
            if page.poll() is None:
                page.kill()
        again = _serve(club.page_url, port)
        try:
            text = re.sub("<[^>]+>", "", _wait_page(f"http://127.0.0.1:{port}/").text)
            assert re.search(r"9 moves", text), text
            game = httpx.get(f"http://127.0.0.1:{port}/game/table7/1?format=json").json()
            assert game["total"] == 9
        finally:
            again.send_signal(signal.SIGINT)
            again.wait(10)


def test_on_every_network_the_page_answers_only_its_own_names(club: Club) -> None:
    import socket as socket_module

    from starlette.testclient import TestClient

    from meridian_table.club.web import create_club_app

    with TestClient(create_club_app(club.page_url, bind_host="0.0.0.0"),
                    base_url="http://127.0.0.1") as page:
        assert page.get("/", headers={"host": "evil.example"}).status_code == 400
    app = create_club_app(club.page_url, bind_host="0.0.0.0",
                          allowed_hosts=["club.example.org"])
    with TestClient(app, base_url="http://127.0.0.1") as page:
        assert page.get("/", headers={"host": "evil.example"}).status_code == 400
        for name in ("club.example.org", socket_module.gethostname(), "127.0.0.1:8780"):
            assert page.get("/", headers={"host": name}).status_code == 200, name


def test_ctrl_c_on_club_serve_leaves_the_private_postgresql_running(club: Club) -> None:
    """Ctrl-C reaches the terminal's whole foreground group: the page stops, the private
    PostgreSQL (on the port and in the folder asked for) goes on for the tables."""
    from meridian_table.club.cluster import Cluster

    del club  # only needs the server programs
    folder = Path(tempfile.mkdtemp(prefix="meridian-private-"))
    folder.chmod(0o755)
    pg_port, page_port = free_port(), free_port()
    serve = subprocess.Popen(
        [sys.executable, "-m", "meridian_table.cli.main", "club", "serve", "--pg-dir",
         str(folder / "club"), "--pg-port", str(pg_port), "--port", str(page_port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert _wait_page(f"http://127.0.0.1:{page_port}/", timeout=120).status_code == 200
        os.killpg(serve.pid, signal.SIGINT)      # what a terminal's Ctrl-C does
        output = serve.communicate(timeout=30)[0].decode()
        assert serve.returncode == 0, output
        assert f"127.0.0.1:{pg_port}" in output and "club stop" in output
        cluster = Cluster.load(folder / "club" / "pg")
        assert cluster.port == pg_port and cluster.running
        stopped = CliRunner().invoke(main, ["club", "stop", "--pg-dir", str(folder / "club")])
        assert stopped.exit_code == 0 and "stopped" in stopped.output
        assert not cluster.running
    finally:
        if serve.poll() is None:
            serve.kill()
        with contextlib.suppress(Exception):
            Cluster.load(folder / "club" / "pg").stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)


def test_a_private_club_of_an_older_release_gets_tls_and_is_migrated(
        club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    import psycopg

    from meridian_table.club import schema
    from meridian_table.club.admin import init_club
    from meridian_table.club.cluster import Cluster

    del club  # only needs the server programs
    folder = Path(tempfile.mkdtemp(prefix="meridian-private-"))
    folder.chmod(0o755)
    (folder / "club").mkdir()
    (folder / "club").chmod(0o755)
    try:
        old = Cluster.create(folder / "club" / "pg")     # no TLS, as the first release
        old.start()
        with psycopg.connect(old.url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE club")
        with monkeypatch.context() as release_1:
            release_1.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:1])
            release_1.setattr(schema, "SCHEMA_VERSION", 1)
            made = init_club(old.url("club"))
        (folder / "club" / "club.json").write_text(json.dumps(
            {"page": made.page_url, "admin": made.admin_url}))
        said: list[str] = []
        cluster, page_url, _ = private_club(said.append, folder / "club")
        try:
            assert "turning TLS on" in " ".join(said) and "verify-full" in page_url
            with psycopg.connect(page_url) as conn:
                assert conn.pgconn.ssl_in_use
                assert schema.schema_version(conn) == schema.SCHEMA_VERSION
        finally:
            cluster.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
