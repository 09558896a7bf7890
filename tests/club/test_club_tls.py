"""A club over TLS (the club's own CA, sslmode=verify-full, TLS-only pg_hba) with tables
that join by invitation code: a remote game between two virtual boards, rated once."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from meridian_table.cli.main import main
from meridian_table.club.admin import INVITE_PREFIX, ClubAdmin, init_club, join_with_code
from meridian_table.club.cluster import Cluster, find_bindir, throwaway
from meridian_table.club.errors import ClubError, NoServerError
from meridian_table.club.remote import invite
from meridian_table.club.web import create_club_app

from .conftest import Club, new_database
from .test_club_remote import play_remote


@pytest.fixture(scope="module")
def tls_cluster() -> Iterator[Cluster]:
    try:
        find_bindir()
    except NoServerError as exc:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(str(exc))
    started = throwaway(tls=True)
    try:
        yield started
    finally:
        started.destroy()


@pytest.fixture
def tls_club(tls_cluster: Cluster) -> Club:
    dbname = new_database(tls_cluster)
    url = tls_cluster.url(dbname)
    made = init_club(url)
    assert made.admin_url is not None and made.page_url is not None
    return Club(tls_cluster, dbname, url, made.admin_url, made.page_url)


def test_logins_without_tls_are_refused(tls_club: Club) -> None:
    assert "sslmode=verify-full" in tls_club.admin_url
    plain = tls_club.page_url.replace("sslmode=verify-full", "sslmode=disable")
    with pytest.raises(psycopg.OperationalError, match="pg_hba.conf"):
        psycopg.connect(plain, connect_timeout=5).close()
    with psycopg.connect(tls_club.page_url) as conn:
        assert conn.pgconn.ssl_in_use


def test_an_invitation_code_works_once(tls_club: Club, tmp_path: Path) -> None:
    with ClubAdmin(tls_club.admin_url) as admin:
        code = admin.invite_table("table7")
    assert code.startswith(INVITE_PREFIX) and "sslrootcert" not in code
    url = join_with_code(code, tmp_path / "config")
    assert "sslmode=verify-full" in url
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT club.my_table()").fetchone() == ("table7",)
        assert conn.pgconn.ssl_in_use
        # the code's password was the table's for a few days; its own is for good
        until = conn.execute("SELECT rolvaliduntil = 'infinity' FROM pg_roles "
                             "WHERE rolname = current_user").fetchone()
        assert until == (True,)
    with pytest.raises(ClubError, match="used already or has expired"):
        join_with_code(code, tmp_path / "again")
    with pytest.raises(ClubError, match="is not an invitation code"):
        join_with_code(INVITE_PREFIX + "garbage!", tmp_path / "again")


def test_a_code_for_another_server_is_refused(tls_club: Club, tmp_path: Path) -> None:
    """The CA a server hands out must be the one the code names (the fingerprint)."""
    import base64

    with ClubAdmin(tls_club.admin_url) as admin:
        code = admin.invite_table("table8")
    body = code[len(INVITE_PREFIX):]
    fields = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    fields["f"] = "A" * 43
    forged = INVITE_PREFIX + base64.urlsafe_b64encode(json.dumps(fields).encode()).decode()
    with pytest.raises(ClubError, match="not the club the code names"):
        join_with_code(forged, tmp_path)
    assert join_with_code(code, tmp_path)   # nothing was changed: the real code still works


@pytest.mark.slow
def test_a_remote_game_over_tls_with_invitation_codes_is_rated_once(
        tls_club: Club, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    urls = {}
    for name in ("north", "south"):
        made = CliRunner().invoke(main, ["club", "invite-table", name, "--db",
                                         tls_club.admin_url])
        assert made.exit_code == 0, made.output
        code = made.stdout.strip().splitlines()[0]
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / name / "config"))
        monkeypatch.delenv("MERIDIAN_TABLE_CLUB", raising=False)
        joined = CliRunner().invoke(main, ["club", "join", code])
        assert joined.exit_code == 0, joined.output
        saved = (tmp_path / name / "config" / "meridian-table" / "club.json").read_text()
        urls[name] = json.loads(saved)["url"]
        assert "verify-full" in urls[name]
    invite(tls_club.admin_url, "duel-tls", "kato", {"size": 5, "pie": False},
           ["Ann", "Bob"], ["north", "south"])
    play_remote(urls, "duel-tls", tmp_path)
    with TestClient(create_club_app(tls_club.page_url), base_url="http://127.0.0.1") as page:
        standings = page.get("/standings?format=json").json()
        assert {s["player"]: s["games"] for s in standings["kato"]} == {"Ann": 1, "Bob": 1}
        assert page.get("/games").text.count(">replay<") == 1



def test_init_with_tls_makes_the_ca_and_says_how_to_turn_tls_on(
        cluster: Cluster, tmp_path: Path) -> None:
    from meridian_table.club.tls import fingerprint

    dbname = new_database(cluster)
    folder = tmp_path / "tls"
    made = CliRunner().invoke(main, ["club", "init", "--db", cluster.url(dbname), "--tls",
                                     str(folder), "--tls-name", "club.example.org",
                                     "--network", "10.9.0.0/16"])
    assert made.exit_code == 0, made.output
    for name in ("ca.crt", "ca.key", "server.crt", "server.key"):
        assert (folder / name).exists(), name
    assert (folder / "ca.key").stat().st_mode & 0o777 == 0o600
    assert "ssl = on" in made.output and "hostssl all all 10.9.0.0/16 scram-sha-256" in (
        made.output)
    with psycopg.connect(cluster.url(dbname)) as conn:
        row = conn.execute("SELECT value FROM club.meta WHERE key = 'ca_certificate'"
                           ).fetchone()
    assert row is not None and fingerprint(str(row[0])) == fingerprint(
        (folder / "ca.crt").read_text())
