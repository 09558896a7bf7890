"""What keeps the club page fast with many spectators and long games, checked by what
the page does (sockets, queries, frames), never by timing it (``bench club`` times it)."""

from __future__ import annotations

import socket
from typing import Any

import httpx
from websockets.sync.client import connect as ws_connect

from meridian_table.club.web import ClubServer

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
