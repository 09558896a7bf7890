"""The real TableSession behind the web app: state, commands and the WebSocket push."""

from __future__ import annotations

from starlette.testclient import TestClient
from tests.table.test_session import make

from meridian_table.web import create_app


def test_the_page_api_serves_the_session_and_runs_its_commands() -> None:
    t = make()
    client = TestClient(create_app(t.session), base_url="http://127.0.0.1")
    state = client.get("/api/state").json()
    assert state["game"] == "kato" and len(state["board"]["sites"]) == 114
    assert state["phase"] == "play" and state["legal"]
    t.place("A1")
    reply = client.post("/api/command", json={"cmd": "button", "name": "undo"}).json()
    assert reply == {"ok": True}
    assert t.session.state()["moves"] == []
    reply = client.post("/api/command", json={"cmd": "button", "name": "undo"}).json()
    assert reply["ok"] is False and "nothing to undo" in reply["error"]


def test_the_websocket_pushes_each_change() -> None:
    t = make()
    client = TestClient(create_app(t.session), base_url="http://127.0.0.1")
    with client.websocket_connect("ws://127.0.0.1/ws") as ws:
        first = ws.receive_json()
        assert first["type"] == "state" and first["state"]["moves"] == []
        t.place("A1")
        pushed = ws.receive_json()
        while pushed["type"] != "state" or not pushed["state"]["moves"]:
            pushed = ws.receive_json()
        assert pushed["state"]["moves"][0]["notation"] == "A1"
