"""Hostile input at the web boundary is refused with a clear answer, never a 500 or a
traceback (issue 10, items 4, 5 and 6)."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
import websockets
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from meridian_table.table.lobby import LoggedTable
from meridian_table.web import create_app
from meridian_table.web.server import serve

TOKEN = "s3cret-token"


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not bad, [r.getMessage() for r in bad]


@pytest.fixture
def remote(logged_session: LoggedTable) -> TestClient:
    """The app as served off localhost, where the token guards everything."""
    app = create_app(logged_session, token=TOKEN, bind_host="0.0.0.0")
    return TestClient(app, base_url="http://192.0.2.7:8765")


@pytest.mark.parametrize("query", ["?token=%C3%A9", "?token=%FF", "?token=%00", "?token="])
def test_a_non_ascii_or_odd_token_is_refused_with_401(
    remote: TestClient, query: str, caplog: pytest.LogCaptureFixture
) -> None:
    assert remote.get("/" + query).status_code == 401
    assert remote.get("/api/state" + query).status_code == 401
    assert remote.post("/api/command" + query, json={"cmd": "state"}).status_code == 401
    no_tracebacks(caplog)


def test_a_bearer_header_with_a_non_ascii_byte_is_refused_with_401(
    remote: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    for raw in (b"Bearer \xe9", b"Bearer s3cret-token\xff", b"Bearer \xc3\xa9"):
        response = remote.get("/api/state", headers=[(b"authorization", raw)])
        assert response.status_code == 401
    assert remote.get("/api/state", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200
    no_tracebacks(caplog)


def test_a_non_ascii_token_on_the_websocket_closes_with_4401(
    remote: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with remote.websocket_connect("/ws?token=%C3%A9") as ws:
        assert ws.receive_json()["type"] == "error"
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
    assert info.value.code == 4401
    no_tracebacks(caplog)


@pytest.mark.parametrize(
    "game_id",
    [99999999999999999999999, 1e308, "1e999", float("inf"), -1, 0, True, 2.5, "abc", None,
     [1], {"id": 1}, "９"],
)
def test_replay_with_a_game_id_that_is_not_a_game_number_is_a_clear_error(
    logged_session: LoggedTable, game_id: object, caplog: pytest.LogCaptureFixture
) -> None:
    client = TestClient(create_app(logged_session), base_url="http://127.0.0.1")
    body = json.dumps({"cmd": "replay", "game_id": game_id}).replace("Infinity", "1e999")
    response = client.post("/api/command", content=body)
    assert response.status_code == 200
    reply = response.json()
    assert reply["ok"] is False and "game_id" in reply["error"] and "game number" in reply["error"]
    no_tracebacks(caplog)


def test_replay_of_a_logged_game_by_number_still_works(logged_session: LoggedTable) -> None:
    client = TestClient(create_app(logged_session), base_url="http://127.0.0.1")
    gid = logged_session.state()["game_id"]
    for value in (gid, str(gid)):
        reply = client.post("/api/command", json={"cmd": "replay", "game_id": value}).json()
        assert reply["ok"] is True, reply


@pytest.mark.parametrize(
    "cmd",
    [{"cmd": "button", "name": ["undo"]}, {"cmd": "toggle", "site": {"x": 1}},
     {"cmd": "choose", "field": None, "value": 1.5}, {"cmd": "agree", "player": "x" * 5000},
     {"cmd": "seat", "seat": [1], "automaton": 7.0}],
)
def test_every_command_field_is_checked_at_the_boundary(
    logged_session: LoggedTable, cmd: dict[str, object], caplog: pytest.LogCaptureFixture
) -> None:
    client = TestClient(create_app(logged_session), base_url="http://127.0.0.1")
    reply = client.post("/api/command", json=cmd).json()
    assert reply["ok"] is False and "the command's" in reply["error"]
    assert len(reply["error"]) < 300
    no_tracebacks(caplog)


def test_an_oversized_websocket_message_is_refused_by_the_server(
    logged_session: LoggedTable,
) -> None:
    """The server closes with 1009 (message too big) instead of buffering it for the app."""

    async def send_big(url: str) -> int | None:
        async with websockets.connect(url, max_size=None) as ws:
            await ws.recv()  # the first state
            await ws.send("x" * (1024 * 1024))
            try:
                while True:
                    await asyncio.wait_for(ws.recv(), 10)
            except websockets.ConnectionClosed as exc:
                return exc.rcvd.code if exc.rcvd is not None else None

    with serve(logged_session, port=0) as server:
        code = asyncio.run(send_big(f"ws://127.0.0.1:{server.port}/ws"))
    assert code == 1009


def test_an_oversized_command_body_is_refused_without_reading_it_all(
    logged_session: LoggedTable,
) -> None:
    client = TestClient(create_app(logged_session), base_url="http://127.0.0.1")
    response = client.post("/api/command", content=b"{" + b" " * (2 * 1024 * 1024) + b"}")
    assert response.status_code == 413
    assert "too long" in response.json()["error"]
