"""The club tried as an attacker would: as a third table, a seated table, the page role and
the admin role, against a real PostgreSQL. Each attack must be refused by PostgreSQL
itself (row-level security, privileges), not by our code."""

from __future__ import annotations

import threading
from typing import Any, cast

import psycopg
import pytest
from psycopg.types.json import Jsonb

from meridian_table.club.remote import RemoteGame, RemoteLink, RemotePlayer, invite
from meridian_table.games.contract import Engine, Turn

from .conftest import Club

Conn = psycopg.Connection[tuple[Any, ...]]
RLS = "row-level security"


def _game(conn: Conn, game_id: int, remote: str | None, players: list[str] | None = None,
          game: str = "kato") -> None:
    conn.execute(
        "INSERT INTO club.games (game_id, game, options, players, versions, started, remote) "
        "VALUES (%s, %s, %s, %s, %s, now(), %s)",
        (game_id, game, Jsonb({}), Jsonb(players or ["Ann", "Bob"]), Jsonb({}), remote))


def _action(conn: Conn, game_id: int, seq: int, notation: str, local_id: int | None = None) -> None:
    conn.execute(
        "INSERT INTO club.events (game_id, seq, local_id, kind, at, payload) "
        "VALUES (%s, %s, %s, 'action', now(), %s)",
        (game_id, seq, local_id or seq, Jsonb({"notation": notation, "player": "x"})))


@pytest.fixture
def duel(club: Club) -> dict[str, str]:
    """north and south seated in remote game duel1; east is a third table of the club."""
    with club.admin() as admin:
        urls = {name: admin.add_table(name) for name in ("north", "south", "east")}
    invite(club.admin_url, "duel1", "kato", {"size": 5}, ["Ann", "Bob"], ["north", "south"])
    for name, moves in (("north", ["A1", "B2"]), ("south", ["C3"])):
        with psycopg.connect(urls[name], autocommit=True) as conn:
            _game(conn, 1, "duel1")
            _game(conn, 2, None)   # a game of its own, not part of the remote game
            for seq, move in enumerate(moves, 1):
                _action(conn, 1, seq, move)
            _action(conn, 2, 1, "E5", 50)
    return urls


def test_a_third_table_cannot_join_a_remote_game(club: Club, duel: dict[str, str]) -> None:
    with psycopg.connect(duel["east"], autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match=RLS):
            _game(conn, 7, "duel1")
        # a made-up id is refused the same way: the error does not tell which ids exist
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match=RLS):
            _game(conn, 8, "no-such-game")
        assert conn.execute("SELECT count(*) FROM club.games").fetchone() == (0,)


def test_a_third_table_reads_nothing_of_the_remote_game(club: Club,
                                                        duel: dict[str, str]) -> None:
    with psycopg.connect(duel["east"], autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM club.events").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM club.games").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM club.remote_games").fetchone() == (0,)
        # nor can it ask who sits where
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT club.sits_at('duel1', 'north')")


def test_a_seated_table_reads_only_its_partners_game_of_the_remote_game(
        club: Club, duel: dict[str, str]) -> None:
    with psycopg.connect(duel["north"], autocommit=True) as conn:
        seen = conn.execute("SELECT table_name, game_id, seq FROM club.events "
                            "ORDER BY 1, 2, 3").fetchall()
    # its own two games, and south's game of duel1 only (not south's game 2)
    assert seen == [("north", 1, 1), ("north", 1, 2), ("north", 2, 1), ("south", 1, 1)]


def test_a_seated_table_cannot_join_with_another_game_or_other_players(
        club: Club, duel: dict[str, str]) -> None:
    with psycopg.connect(duel["north"], autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match=RLS):
            _game(conn, 9, "duel1", ["Eve", "Bob"])   # players the invitation does not name
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match=RLS):
            _game(conn, 10, "duel1", game="toy")


def test_tables_cannot_make_remote_games(club: Club, duel: dict[str, str]) -> None:
    """Invitations are the admin's: a table cannot seat itself in a game of its making."""
    with psycopg.connect(duel["east"], autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO club.remote_games (id, game, options, players, seats) "
                         "VALUES ('mine', 'kato', '{}', '[\"A\", \"B\"]', "
                         "'{\"1\": \"east\", \"2\": \"north\"}')")


def _player(club: Club, url: str, remote: RemoteGame, table: str) -> RemotePlayer:
    link = RemoteLink(url, remote, table)
    link.bind(lambda: [])
    return RemotePlayer(link)


class _SeatToMove:
    """The one thing the remote player asks of the game: whose seat is to move."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def turn(self) -> Turn:
        return Turn(self.seat)


def test_the_remote_player_reads_only_the_seat_holders_table(club: Club) -> None:
    """Three tables in one remote game: the move of seat 1 is the one its holder logged,
    even when another seated table logged a longer game."""
    with club.admin() as admin:
        urls = {name: admin.add_table(name) for name in ("ann", "bob", "cat")}
    players = ["Ann", "Bob", "Cat"]
    remote = invite(club.admin_url, "trio", "colovini", {}, players, ["ann", "bob", "cat"])
    for name, moves in (("ann", ["a-move"]), ("bob", ["b-move", "b2", "b3"])):
        with psycopg.connect(urls[name], autocommit=True) as conn:
            _game(conn, 1, "trio", players, "colovini")
            for seq, move in enumerate(moves, 1):
                _action(conn, 1, seq, move)
    player = _player(club, urls["cat"], remote, "cat")
    try:
        cancel = threading.Event()
        assert player.choose(cast(Engine, _SeatToMove(0)), cancel=cancel) == "a-move"
        assert player.choose(cast(Engine, _SeatToMove(1)), cancel=cancel) == "b-move"
    finally:
        player.close()


def test_the_remote_player_reads_the_holders_latest_copy(club: Club,
                                                         duel: dict[str, str]) -> None:
    """south played its side again from a new game (a restart): north's remote player
    follows south's latest copy, not both copies run together."""
    with psycopg.connect(duel["south"], autocommit=True) as conn:
        conn.execute("SELECT pg_sleep(0.01)")
        _game(conn, 3, "duel1")
        _action(conn, 3, 1, "D4", 60)
    remote = RemoteGame("duel1", "kato", {}, ("Ann", "Bob"), {"1": "north", "2": "south"})
    player = _player(club, duel["north"], remote, "north")
    try:
        assert player.choose(cast(Engine, _SeatToMove(1))) == "D4"
    finally:
        player.close()


def _next_event(ws: Any, timeout: float = 30) -> dict[str, Any]:
    """The next event message on the club page's WebSocket (resyncs skipped)."""
    import json
    import time

    deadline = time.monotonic() + timeout
    while True:
        message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        for item in message if isinstance(message, list) else [message]:
            if item.get("type") == "event":
                return cast(dict[str, Any], item)


def test_forged_notifications_cannot_stop_the_live_page(club: Club) -> None:
    """A table cannot speak on the page's channel at all, and whatever else arrives on it
    that is not the club trigger's is logged and skipped: the page stays live."""
    from websockets.sync.client import connect as ws_connect

    from meridian_table.club.web import ClubServer

    with club.admin() as admin:
        table = admin.add_table("table7")
    with ClubServer(club.page_url) as server, \
            ws_connect(server.url.replace("http", "ws") + "ws") as ws, \
            psycopg.connect(table, autocommit=True) as conn, \
            psycopg.connect(club.page_url, autocommit=True) as page:
        assert server.wait_live(30)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT value FROM club.secrets")
        channel = page.execute("SELECT value FROM club.secrets").fetchone()
        assert channel is not None and channel[0] != "club_events"
        _game(conn, 1, None)
        _action(conn, 1, 1, "A1")
        assert _next_event(ws)["seq"] == 1
        conn.execute("NOTIFY club_events, 'not json'")   # the channel of schema 1
        for forged in ("not json", '{"table": 5}', "[1]", '{"table": "x", "game": true}'):
            page.execute("SELECT pg_notify(%s, %s)", (channel[0], forged))
        _action(conn, 1, 2, "B2")
        got = _next_event(ws)
        assert (got["table"], got["game"], got["seq"]) == ("table7", 1, 2)


def test_a_remote_game_is_rated_and_listed_once(club: Club, duel: dict[str, str]) -> None:
    """Both seated tables ship their copy of duel1 with its result: one game in the
    finished games, one rating update in the standings."""
    from starlette.testclient import TestClient

    from meridian_table.club.web import create_club_app

    for name in ("north", "south"):
        with psycopg.connect(duel[name], autocommit=True) as conn:
            conn.execute("INSERT INTO club.events (game_id, seq, local_id, kind, at, payload) "
                         "VALUES (1, 10, 90, 'result', now(), %s)",
                         (Jsonb({"winners": ["Ann"], "reason": "no moves", "scores": []}),))
    with TestClient(create_club_app(club.page_url), base_url="http://127.0.0.1") as page:
        standings = page.get("/standings?format=json").json()
        assert {s["player"]: s["games"] for s in standings["kato"]} == {"Ann": 1, "Bob": 1}
        listed = page.get("/games")
        assert listed.status_code == 200 and listed.text.count(">replay<") == 1
        assert page.get("/player/Ann").text.count(">replay<") == 1


def test_the_admin_has_no_role_powers_beyond_its_clubs_tables(club: Club) -> None:
    """With PostgreSQL 15's CREATEROLE the admin could grant itself
    pg_execute_server_program (shell commands as the server's user), take over another
    club's roles, and end anyone's sessions. Now it manages its tables, and only them."""
    from meridian_table.club.admin import ClubAdmin, init_club
    from meridian_table.club.errors import ClubError

    from .conftest import new_database

    # a second club on the same server whose admin role is named like a table of ours
    other_db = new_database(club.cluster)
    with psycopg.connect(club.cluster.url(), autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{other_db}" RENAME TO "{club.dbname}_t_boss"')
    other = init_club(club.cluster.url(f"{club.dbname}_t_boss"))
    assert other.admin_url is not None
    with club.admin() as admin:
        table = admin.add_table("table7")
        with pytest.raises(ClubError, match="not one of this club's tables"):
            admin.add_table("boss_admin")     # would be the role club_t_boss_admin
        conn = admin.conn
        for attack in ("GRANT pg_execute_server_program TO CURRENT_USER",
                       "GRANT pg_signal_backend TO CURRENT_USER",
                       "CREATE ROLE intruder LOGIN SUPERUSER",
                       "CREATE ROLE intruder LOGIN",
                       f'ALTER ROLE "{club.dbname}_t_boss_admin" PASSWORD \'taken\'',
                       f'ALTER ROLE "{club.dbname}_page" PASSWORD \'taken\'',
                       f'GRANT "{club.dbname}_t_table7" TO CURRENT_USER',
                       f'SET ROLE "{club.dbname}_keeper"',
                       "COPY (SELECT 1) TO PROGRAM 'true'"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(attack)
        page = psycopg.connect(club.page_url, autocommit=True)
        try:
            pid = page.info.backend_pid
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
            assert page.execute("SELECT 1").fetchone() == (1,)
        finally:
            page.close()
        # the keeper's functions take only this club's table names
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            conn.execute("SELECT club_roles.close_table('x; DROP ROLE y')")
    assert ClubAdmin(other.admin_url).tables() == []   # the other club's admin still logs in
    with psycopg.connect(table, autocommit=True) as conn:   # nor may a table call them
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT club_roles.close_table('table7')")


def test_a_table_role_has_a_connection_limit(club: Club) -> None:
    with club.admin() as admin:
        admin.add_table("table7")
    with psycopg.connect(club.superuser_url) as conn:
        limit = conn.execute("SELECT rolconnlimit FROM pg_roles WHERE rolname = %s",
                             (f"{club.dbname}_t_table7",)).fetchone()
    assert limit is not None and 0 < int(limit[0]) <= 10


def test_the_server_runs_in_the_postgres_users_own_group(club: Club) -> None:
    import os
    import pwd

    if os.geteuid() != 0:
        pytest.skip("only as root does the server run as another user")
    pid = int((club.cluster.datadir / "postmaster.pid").read_text().split()[0])
    status = open(f"/proc/{pid}/status").read()
    gid_line = next(line for line in status.splitlines() if line.startswith("Gid:"))
    groups_line = next(line for line in status.splitlines() if line.startswith("Groups:"))
    own = pwd.getpwnam("postgres").pw_gid
    assert set(gid_line.split()[1:]) == {str(own)}
    assert "0" not in groups_line.split()[1:]


def _raw_post(port: int, auth: str, headers: str, body: bytes = b"") -> str:
    """Send a POST to /admin by hand (headers, then ``body`` and no more) and return the
    status line: the server must answer without waiting for the rest of the body."""
    import base64
    import socket

    token = base64.b64encode(auth.encode()).decode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall((f"POST /admin HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                      f"Authorization: Basic {token}\r\n"
                      "Content-Type: application/x-www-form-urlencoded\r\n"
                      f"{headers}\r\n").encode() + body)
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n", 1)[0].decode()


def test_admin_bodies_are_limited_and_not_read_without_the_login(club: Club) -> None:
    """A POST is answered before its body is read: a made-up login gets its 401 without
    the server waiting for the body, and 300 MB is refused (413) from its length alone."""
    import httpx

    from meridian_table.club.web import ClubServer

    user = f"{club.dbname}_admin"
    password = httpx.URL(club.admin_url).password
    huge = "Content-Length: 300000000\r\n"
    with ClubServer(club.page_url) as server:
        small = "Content-Length: 10000\r\n"      # within the limit, and never sent
        assert "401" in _raw_post(server.port, "someone:guess", small, b"action=add&name=")
        assert "413" in _raw_post(server.port, "someone:guess", huge, b"action=")
        assert "413" in _raw_post(server.port, f"{user}:{password}", huge, b"action=")
        # no length said: read up to the limit, and not a byte more
        chunked = "Transfer-Encoding: chunked\r\n"
        chunk = b"a" * 60_000
        body = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        assert "413" in _raw_post(server.port, f"{user}:{password}", chunked, body)


def test_admin_logins_are_limited_and_its_pages_never_cached_or_framed(club: Club) -> None:
    import httpx
    from starlette.testclient import TestClient

    from meridian_table.club.web import create_club_app

    user = f"{club.dbname}_admin"
    password = httpx.URL(club.admin_url).password
    with TestClient(create_club_app(club.page_url), base_url="http://127.0.0.1") as page:
        ok = page.get("/admin", auth=(user, password))
        assert ok.status_code == 200
        assert ok.headers["cache-control"] == "no-store"
        assert ok.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in ok.headers["content-security-policy"]
        codes = [page.get("/admin", auth=(user, f"guess{n}")).status_code for n in range(8)]
        assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}
        # while the address waits, even the right password is not tried
        assert page.get("/admin", auth=(user, password)).status_code == 429


def test_one_table_cannot_take_every_connection(club: Club) -> None:
    """A table opening connections in a loop is stopped by its role's limit, long before
    the server's slots run out, and the page goes on answering."""
    from starlette.testclient import TestClient

    from meridian_table.club.web import create_club_app

    with club.admin() as admin:
        table = admin.add_table("table7")
    opened: list[Conn] = []
    with TestClient(create_club_app(club.page_url), base_url="http://127.0.0.1") as page:
        try:
            with pytest.raises(psycopg.OperationalError, match="too many connections"):
                for _ in range(60):
                    opened.append(psycopg.connect(table, connect_timeout=5))
            assert len(opened) <= 10
            assert page.get("/").status_code == 200
            assert page.get("/standings").status_code == 200
        finally:
            for conn in opened:
                conn.close()
