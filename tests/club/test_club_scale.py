"""What keeps the club page fast with many spectators and long games, checked by what
the page does (sockets, queries, frames), never by timing it (``bench club`` times it)."""

from __future__ import annotations

import asyncio
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import psycopg
import pytest
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool
from starlette.testclient import TestClient
from websockets.sync.client import connect as ws_connect

from meridian_table.club.queries import Positions
from meridian_table.club.web import ClubServer, create_club_app

from .conftest import Club


def _nodelay(server: ClubServer) -> list[int]:
    """TCP_NODELAY of every connection the page's server holds now."""
    connections: Any = server._server.server_state.connections
    flags = []
    for protocol in list(connections):
        sock = protocol.transport.get_extra_info("socket")
        flags.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
    return flags


def test_the_page_sends_without_waiting_for_the_spectators_acks(club: Club) -> None:
    """Every connection (a page, a WebSocket) has TCP_NODELAY: without it each response's
    body and each pushed frame waited ~40 ms for the reader's delayed ACK."""
    with ClubServer(club.page_url) as server, httpx.Client(base_url=server.url) as web, \
            ws_connect(server.url.replace("http", "ws") + "ws"):
        assert web.get("/").status_code == 200
        flags = _nodelay(server)
        assert len(flags) == 2 and all(flags), flags


def _kato(conn: psycopg.Connection[tuple[Any, ...]], moves: list[str]) -> None:
    conn.execute("INSERT INTO club.games (game_id, game, options, players, versions, "
                 "started) VALUES (1, 'kato', '{}', '[\"Ann\", \"Bob\"]', '{}', now())")
    for seq, notation in enumerate(moves, 1):
        _move(conn, seq, notation)


def _move(conn: psycopg.Connection[tuple[Any, ...]], seq: int, notation: str) -> None:
    conn.execute("INSERT INTO club.events (game_id, seq, local_id, kind, at, payload) "
                 "VALUES (1, %s, %s, 'action', now(), %s)",
                 (seq, seq, Jsonb({"notation": notation, "player": "Ann"})))


def test_two_requests_at_once_advance_a_position_once(club: Club) -> None:
    """The page and the live deltas may ask for the same table's position at the same
    moment; the new move is played on its engine once (twice, it was an illegal move and
    the table showed "cannot show" for good)."""
    with club.admin() as admin:
        url = admin.add_table("table7")
    with psycopg.connect(url, autocommit=True) as conn:
        _kato(conn, ["G6"])

    async def both() -> list[tuple[int | None, str]]:
        positions = Positions()
        async with await psycopg.AsyncConnection.connect(club.page_url) as one, \
                await psycopg.AsyncConnection.connect(club.page_url) as two:
            first = await positions.position(one, "table7", 1, "kato", {}, 1)
            with psycopg.connect(url, autocommit=True) as conn:
                _move(conn, 2, "D4")
            again = await asyncio.gather(
                positions.position(one, "table7", 1, "kato", {}, 2),
                positions.position(two, "table7", 1, "kato", {}))
            return [first, *again, await positions.position(one, "table7", 1, "kato", {})]

    # On a thread of its own: another test's browser may hold this thread's event loop.
    with ThreadPoolExecutor(1) as pool:
        first, left, right, after = pool.submit(asyncio.run, both()).result(60)
    assert first[0] == 1 and first[1]
    assert left == right == after and left[0] == 0, (left, right, after)
    assert left[1] != first[1]


def test_a_page_costs_no_round_trip_to_check_its_connection(
        club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the LISTEN connection holds, the pool's connections are used unchecked (one
    round trip less per request); with the server away, the page still says so (503) and
    comes back by itself."""
    checks: list[object] = []
    real = AsyncConnectionPool.check_connection

    async def counted(conn: Any) -> None:
        checks.append(conn)
        await real(conn)

    monkeypatch.setattr(AsyncConnectionPool, "check_connection", staticmethod(counted))
    with TestClient(create_club_app(club.page_url), base_url="http://127.0.0.1") as page:
        for _ in range(5):
            assert page.get("/").status_code == 200
            assert page.get("/standings").status_code == 200
        assert checks == []
        club.cluster.stop("immediate")
        try:
            assert page.get("/").status_code == 503
        finally:
            club.cluster.start()
        deadline = time.monotonic() + 30
        while page.get("/").status_code != 200:
            assert time.monotonic() < deadline, "the page did not come back"
            time.sleep(0.1)


def test_spectators_frames_are_not_compressed_per_socket(club: Club) -> None:
    """No per-message deflate: each socket would compress every small frame anew (a fifth
    of the page's work with 200 spectators)."""
    with ClubServer(club.page_url) as server, \
            ws_connect(server.url.replace("http", "ws") + "ws") as ws:
        assert ws.response is not None
        assert "permessage-deflate" not in ws.response.headers.get(
            "sec-websocket-extensions", "")


def test_a_batch_of_events_reads_every_tables_position_in_one_query(club: Club) -> None:
    """The live deltas of a batch that touches many tables read the new moves of all of
    them at once, and give the very positions read one by one."""
    urls = {}
    with club.admin() as admin:
        for name in ("t1", "t2", "t3"):
            urls[name] = admin.add_table(name)
    for n, name in enumerate(urls):
        with psycopg.connect(urls[name], autocommit=True) as conn:
            _kato(conn, ["G6", "D4", "E4"][:n + 1])

    async def read() -> tuple[dict[tuple[str, int], tuple[int | None, str]], int,
                              list[tuple[int | None, str]]]:
        async with await psycopg.AsyncConnection.connect(club.page_url) as conn:
            sent: list[object] = []
            execute = conn.execute

            async def counted(*args: Any, **kwargs: Any) -> Any:
                sent.append(args[0])
                return await execute(*args, **kwargs)

            conn.execute = counted   # type: ignore[method-assign]
            many = await Positions().many(
                conn, [(name, 1, "kato", {}, n + 1) for n, name in enumerate(urls)])
            conn.execute = execute   # type: ignore[method-assign]
            alone = [await Positions().position(conn, name, 1, "kato", {}) for name in urls]
            return many, len(sent), alone

    with ThreadPoolExecutor(1) as pool:
        many, queries, alone = pool.submit(asyncio.run, read()).result(60)
    assert queries == 1
    assert [many[(name, 1)] for name in urls] == alone
    assert [seat for seat, _ in alone] == [1, 0, 1] and all(board for _, board in alone)
