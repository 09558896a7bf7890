"""The table page's server: HTTP, WebSocket pushes, commands, token and Origin checks.

Everything runs in-process with Starlette's TestClient against a real table: Kato on
the virtual board (the real firmware behind a pty, the real link), its log in a
temporary file, the real session served through ``TableHost`` as ``play`` serves it.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from tests.web.tables import KATO_LINE, Live, live

from meridian_table.web import (
    TokenRequiredError,
    WebServerError,
    create_app,
    is_loopback,
    new_token,
    page_url,
    serve,
)
from meridian_table.web.app import CLOSE_BAD_TOKEN, host_of, parse_command

BASE = "http://127.0.0.1:8765"
WS = "ws://127.0.0.1:8765/ws"
ORIGIN = {"origin": BASE}


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[Live]:
    """A real Kato table (80 points), game 1 of its log."""
    with live(tmp_path) as table:
        yield table


@pytest.fixture
def client(fake: Live) -> TestClient:
    return TestClient(create_app(fake), base_url=BASE)


def receive_state(ws: Any) -> dict[str, Any]:
    """The next state push, skipping command results."""
    while True:
        msg = ws.receive_json()
        if msg["type"] == "state":
            return dict(msg["state"])


def command(ws: Any, cmd: dict[str, Any], msg_id: int = 1, pushes: list[Any] | None = None) -> dict[str, Any]:
    """Send one command and return its result; state pushes meanwhile go to ``pushes``."""
    ws.send_json({"type": "command", "id": msg_id, "cmd": cmd})
    while True:
        msg = ws.receive_json()
        if msg["type"] == "result":
            assert msg["id"] == msg_id
            return dict(msg["result"])
        if pushes is not None and msg["type"] == "state":
            pushes.append(msg["state"])


# -- HTTP ---------------------------------------------------------------------------


def test_index_serves_the_page_with_its_assets(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert 'id="board"' in page.text
    for asset in ("static/app.js", "static/app.css"):
        assert asset in page.text
        response = client.get("/" + asset)
        assert response.status_code == 200, asset
        assert len(response.content) > 1000
    # No CDN, no external fetches: the table's network may be closed.
    assert "http://" not in page.text.replace("http://www.w3.org", "")
    assert "https://" not in page.text


def test_api_state_is_the_session_state(client: TestClient, fake: Live) -> None:
    fake.play("C3")
    state = client.get("/api/state").json()
    assert state["game"] == "kato"
    assert state["moves"][0]["notation"] == "C3"
    assert len(state["board"]["sites"]) == 80


def test_api_command_round_trip(client: TestClient, fake: Live) -> None:
    response = client.post("/api/command", json={"cmd": "toggle", "site": "C3"}, headers=ORIGIN)
    assert response.json() == {"ok": True}
    fake.wait(lambda s: s["last_move"] == "C3", "C3 played")  # read once it settled
    refused = client.post("/api/command", json={"cmd": "toggle", "site": "Z9"}, headers=ORIGIN)
    assert refused.status_code == 200
    assert refused.json()["ok"] is False
    assert "Z9" in refused.json()["error"]


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b"not json", "not JSON"),
        (b"[1, 2]", "'cmd' field"),
        (b'{"cmd": 5}', "'cmd' field"),
        (b'{"name": "undo"}', "'cmd' field"),
    ],
)
def test_api_command_rejects_malformed_bodies(client: TestClient, body: bytes, needle: str) -> None:
    response = client.post("/api/command", content=body, headers=ORIGIN)
    assert response.status_code == 400
    assert needle in response.json()["error"]


def test_api_command_refuses_cross_origin_posts(client: TestClient, fake: Live) -> None:
    response = client.post(
        "/api/command",
        json={"cmd": "button", "name": "undo"},
        headers={"origin": "http://evil.example"},
    )
    assert response.status_code == 403
    assert fake.commands == []


def test_loopback_bind_refuses_foreign_host_headers(fake: Live) -> None:
    # A DNS-rebinding page reaches 127.0.0.1 with its own name in Host: refused.
    app = create_app(fake)
    assert TestClient(app, base_url="http://evil.example:8765").get("/").status_code == 400
    assert TestClient(app, base_url="http://localhost:8765").get("/").status_code == 200


@pytest.mark.parametrize("base", ["http://[::1]:8765", "http://[::1]", "http://LOCALHOST:8765"])
def test_loopback_names_in_any_spelling_reach_the_page(fake: Live, base: str) -> None:
    # A browser on http://[::1]:8765/ sends "Host: [::1]:8765"; Starlette's
    # TrustedHostMiddleware compared that text with "::1" and answered 400.
    client = TestClient(create_app(fake), base_url=base)
    assert client.get("/").status_code == 200
    assert client.get("/api/state").json()["game"] == "kato"
    origin = {"origin": base.lower()}
    answer = client.post("/api/command", json={"cmd": "state"}, headers=origin)
    assert answer.json()["ok"] is True
    with client.websocket_connect(base.replace("http", "ws", 1) + "/ws", headers=origin) as ws:
        assert receive_state(ws)["game"] == "kato"


@pytest.mark.parametrize(
    "host",
    ["[::2]:8765", "[::1", "::1", "[::1]:port", "evil.example", "127.0.0.1.evil.example", ""],
)
def test_malformed_or_foreign_host_headers_are_refused(fake: Live, host: str) -> None:
    client = TestClient(create_app(fake), base_url=BASE)
    response = client.get("/", headers={"host": host})
    assert response.status_code == 400
    assert "Invalid host header" in response.text
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect("/ws", headers={"host": host}) as ws:
            ws.receive_json()


def test_host_of_parses_names_ports_and_bracketed_ipv6() -> None:
    assert host_of("[::1]:8765") == "::1"
    assert host_of("[::1]") == "::1"
    assert host_of("LocalHost:80") == "localhost"
    assert host_of("127.0.0.1") == "127.0.0.1"
    for bad in (None, "", "::1", "[::1", "[::1]:x", "a b", "u@host", "host/path", "h:99999"):
        assert host_of(bad) is None, bad


def test_served_on_ipv6_loopback_a_browser_style_request_gets_the_page(fake: Live) -> None:
    import socket

    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    try:
        server = serve(fake, host="::1", port=0)
    except Exception as exc:  # IPv6 loopback disabled in this container
        pytest.skip(f"cannot bind [::1]: {exc}")
    with server:
        assert server.url == f"http://[::1]:{server.port}/"
        with urllib.request.urlopen(server.url + "api/state", timeout=5) as response:
            assert response.status == 200 and json.load(response)["game"] == "kato"


def test_session_errors_become_answers_not_crashes(client: TestClient, fake: Live) -> None:
    def broken(cmd: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("adapter exploded")

    fake.command = broken  # type: ignore[method-assign]
    response = client.post("/api/command", json={"cmd": "button", "name": "confirm"}, headers=ORIGIN)
    assert response.json()["ok"] is False
    assert "adapter exploded" in response.json()["error"]


# -- WebSocket ------------------------------------------------------------------------


def test_a_failing_state_is_reported_and_the_socket_closed(client: TestClient, fake: Live) -> None:
    def broken() -> dict[str, Any]:
        raise RuntimeError("adapter exploded")

    fake.state = broken  # type: ignore[method-assign]
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        message = ws.receive_json()
        assert message["type"] == "error" and "adapter exploded" in message["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1011
    assert fake.subscriber_count == 0


def test_websocket_pushes_state_on_connect_and_on_change(client: TestClient, fake: Live) -> None:
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        first = receive_state(ws)
        assert first["moves"] == []
        assert fake.subscriber_count == 1
        # A change made elsewhere (another thread, like the link's) reaches the page.
        worker = threading.Thread(target=fake.play, args=("D4",))
        worker.start()
        worker.join()
        pushed = receive_state(ws)
        while pushed["last_move"] != "D4":  # the sensed switch, then the move read
            pushed = receive_state(ws)
    assert fake.subscriber_count == 0  # unsubscribed on disconnect


def test_websocket_command_round_trip(client: TestClient, fake: Live) -> None:
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        receive_state(ws)
        pushes: list[Any] = []
        assert command(ws, {"cmd": "toggle", "site": "C3"}, 7, pushes) == {"ok": True}
        # The pushes come before and after the answer, until the move is read.
        latest = pushes[-1] if pushes else receive_state(ws)
        while not latest["moves"] or latest["moves"][-1].get("provisional"):
            latest = receive_state(ws)
        assert latest["moves"][-1]["notation"] == "C3"
        refused = command(ws, {"cmd": "button", "name": "launch"}, 8)
        assert refused["ok"] is False and "launch" in refused["error"]
        replay = command(ws, {"cmd": "replay", "game_id": 1}, 9)  # from the log
        assert replay["ok"] and len(replay["replay"]["positions"]) == 2
        assert [m["notation"] for m in replay["replay"]["moves"]] == ["C3"]


def test_a_slow_review_does_not_hold_the_pages_other_commands(
        client: TestClient, fake: Live) -> None:
    # The review analyses a whole game (tens of seconds): the commands sent after it are
    # answered meanwhile, and its own answer comes when it is done.
    release = threading.Event()
    plain = fake.command

    def command_(cmd: dict[str, Any]) -> dict[str, Any]:
        if cmd.get("cmd") == "review":
            assert release.wait(10)
            return {"ok": True, "review": {"marks": []}}
        return dict(plain(cmd))

    fake.command = command_  # type: ignore[method-assign]
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        receive_state(ws)
        ws.send_json({"type": "command", "id": 1, "cmd": {"cmd": "review", "game_id": 1}})
        assert command(ws, {"cmd": "replay", "game_id": 1}, 2)["ok"]
        release.set()
        while True:
            msg = ws.receive_json()
            if msg["type"] == "result":
                break
        assert msg["id"] == 1 and msg["result"]["ok"] is True


def test_websocket_answers_bad_messages_and_stays_open(client: TestClient, fake: Live) -> None:
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        receive_state(ws)
        ws.send_text("{broken")
        error = ws.receive_json()
        assert error["type"] == "error" and "not JSON" in error["error"]
        ws.send_json({"type": "command", "id": 1, "cmd": {"name": "undo"}})
        assert "'cmd' field" in ws.receive_json()["error"]
        assert command(ws, {"cmd": "state"}, 2)["ok"] is True


def test_bursts_of_changes_coalesce_to_the_latest_state(client: TestClient, fake: Live) -> None:
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        receive_state(ws)
        for site in KATO_LINE[:4]:
            fake.play(site)
        seen = receive_state(ws)
        while len(seen["moves"]) < 4 or seen["moves"][-1].get("provisional"):
            seen = receive_state(ws)
        assert [m["notation"] for m in seen["moves"]] == list(KATO_LINE[:4])


def test_websocket_refuses_a_foreign_origin(client: TestClient, fake: Live) -> None:
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(WS, headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()
    assert fake.subscriber_count == 0


def test_extra_allowed_origins_are_accepted(fake: Live) -> None:
    app = create_app(fake, allowed_origins=["http://tablet.local:9000"])
    client = TestClient(app, base_url=BASE)
    with client.websocket_connect(WS, headers={"origin": "http://tablet.local:9000"}) as ws:
        assert receive_state(ws)["game"] == "kato"


# -- token ----------------------------------------------------------------------------


def test_non_loopback_bind_needs_a_token(fake: Live) -> None:
    with pytest.raises(TokenRequiredError, match="0.0.0.0"):
        create_app(fake, bind_host="0.0.0.0")
    with pytest.raises(TokenRequiredError, match="empty"):
        create_app(fake, bind_host="192.168.1.20", token="")


def test_token_guards_page_api_and_websocket(fake: Live) -> None:
    token = new_token()
    app = create_app(fake, token=token, bind_host="0.0.0.0")
    client = TestClient(app, base_url="http://192.168.1.20:8765")
    origin = {"origin": "http://192.168.1.20:8765"}
    denied = client.get("/")
    assert denied.status_code == 401 and "token" in denied.text
    assert client.get("/?token=wrong").status_code == 401
    assert client.get(f"/?token={token}").status_code == 200
    assert client.get("/api/state").status_code == 401
    assert client.get("/api/state", headers={"authorization": f"Bearer {token}"}).status_code == 200
    assert client.post("/api/command", json={"cmd": "button", "name": "undo"}, headers=origin).status_code == 401
    assert fake.commands == []
    with client.websocket_connect("ws://192.168.1.20:8765/ws", headers=origin) as ws:
        assert ws.receive_json() == {"type": "error", "error": "missing or wrong token"}
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == CLOSE_BAD_TOKEN
    with client.websocket_connect(f"ws://192.168.1.20:8765/ws?token={token}", headers=origin) as ws:
        assert receive_state(ws)["game"] == "kato"


def test_static_assets_need_no_token(fake: Live) -> None:
    client = TestClient(create_app(fake, token=new_token(), bind_host="0.0.0.0"), base_url=BASE)
    assert client.get("/static/app.js").status_code == 200


# -- helpers and the real server ------------------------------------------------------


def test_parse_command_names_what_is_wrong() -> None:
    assert parse_command('{"type": "command", "id": 3, "cmd": {"cmd": "state"}}') == (3, {"cmd": "state"})
    with pytest.raises(ValueError, match="type 'hello'"):
        parse_command('{"type": "hello"}')
    with pytest.raises(ValueError, match="longer than"):
        parse_command(" " * 70000)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("localhost", True), ("::1", True), ("[::1]", True),
     ("0.0.0.0", False), ("192.168.1.20", False), ("table.local", False)],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_page_url_carries_the_token() -> None:
    assert page_url("127.0.0.1", 8765, None) == "http://127.0.0.1:8765/"
    assert page_url("10.0.0.5", 80, "a/b") == "http://10.0.0.5:80/?token=a%2Fb"
    assert page_url("::1", 8765, None) == "http://[::1]:8765/"


def test_serve_runs_uvicorn_on_a_thread_and_stops(fake: Live) -> None:
    with serve(fake, port=0) as server:
        assert server.running and server.token is None
        assert server.url == f"http://127.0.0.1:{server.port}/"
        with urllib.request.urlopen(server.url + "api/state", timeout=5) as response:
            assert json.load(response)["game"] == "kato"
        # The port is taken now: a second server says so and what to do.
        with pytest.raises(WebServerError, match="another --port"):
            serve(fake, port=server.port)
    assert not server.running


def test_serve_on_all_interfaces_makes_a_token(fake: Live) -> None:
    with serve(fake, host="0.0.0.0", port=0) as server:
        assert server.token and f"?token={server.token}" in server.url
        base = f"http://127.0.0.1:{server.port}/"
        with pytest.raises(urllib.error.HTTPError) as denied:
            urllib.request.urlopen(base + "api/state", timeout=5)
        assert denied.value.code == 401
        with urllib.request.urlopen(f"{base}api/state?token={server.token}", timeout=5) as ok:
            assert ok.status == 200


def test_served_connections_send_small_messages_at_once(fake: Live) -> None:
    # Without TCP_NODELAY a command's answer after a large state waits for the peer's
    # delayed ACK (40 ms on Linux). Accepted sockets inherit the listening socket's flag.
    import socket

    with serve(fake, port=0) as server:
        flag = server._sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        assert flag != 0


def test_bench_web_reports_its_figures() -> None:
    from meridian_table.bench import web as bench_web

    figures = bench_web.run({"quick": True})
    assert figures["iterations"] == bench_web.QUICK_ITERATIONS
    assert figures["state_bytes"] > 10_000  # the whole 114-point state each time
    for name in ("push", "command", "ping"):
        assert 0 < figures[f"{name}_ms_p50"] <= figures[f"{name}_ms_p99"]


def test_a_games_page_script_is_served_from_its_package(client: TestClient) -> None:
    response = client.get("/games/colovini/static/page.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert "MeridianGames.register" in response.text
    assert client.get("/games/colovini/static/page.css").status_code == 200


def test_a_game_in_its_own_package_serves_its_page_script(client: TestClient) -> None:
    """The toy game (tests/toygame, its own installed package) is found like any other."""
    response = client.get("/games/toy/static/page.js")
    assert response.status_code == 200
    assert 'register("toy"' in response.text


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("/games/nosuch/static/page.js", "no game 'nosuch'"),
        ("/games/colovini/static/nosuch.js", "has no page file"),
        ("/games/colovini/static/%2e%2e/spec.py", "not a plain relative path"),
        ("/games/colovini/static/..%2fspec.py", "not a plain relative path"),
        ("/games/colovini/static/.hidden.js", "not a plain relative path"),
        ("/games/colovini/static/page.py", "only"),
    ],
)
def test_game_files_refuse_unknown_games_and_paths_out(
    client: TestClient, url: str, needle: str
) -> None:
    response = client.get(url)
    assert response.status_code == 404
    assert needle in response.text


def test_the_web_package_names_no_game() -> None:
    """The page, its app and its fake learn every game from its spec (issue #9)."""
    import re
    from importlib.resources import files

    web = files("meridian_table.web")
    named = []
    for entry in [*web.iterdir(), *web.joinpath("static").iterdir()]:
        if entry.name.endswith((".py", ".js", ".html", ".css")) and entry.is_file():
            if re.search(r"kato|colovini", entry.read_text(encoding="utf-8"), re.I):
                named.append(entry.name)
    assert named == []
