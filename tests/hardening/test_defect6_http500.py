"""Defect 6 of issue 27: a body starting with bytes FF FE and integers over 4,300 digits are
refused as "not JSON" (HTTP 400; on the WebSocket an error reply, the socket stays open),
never an HTTP 500; a hand-edited log whose move has no ``notation`` is a named corruption
error in ``replay``, ``export --format record`` and ``review``, never a KeyError."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from meridian_table.cli.main import main
from meridian_table.store import Store, StoreError
from meridian_table.table import TableSession
from meridian_table.table.storejournal import StoreArchive
from meridian_table.web import create_app

BASE = "http://127.0.0.1:8765"
BIG = "1" * 5000


def _quiet(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not bad, [r.getMessage() for r in bad]


@pytest.fixture
def client(logged_session: TableSession) -> TestClient:
    return TestClient(create_app(logged_session), base_url=BASE)


@pytest.mark.parametrize("body", [
    b"\xff\xfe{\x00}\x00", b"\xff\xfe", b"\xfe\xff\x00{", b"\xef\xbb\xbf{}", b"\x80abc",
    ('{"cmd": "replay", "game_id": ' + BIG + "}").encode(),
    ('{"cmd": "state", "x": -' + BIG + "}").encode(),
])
def test_http500_odd_bodies_are_400_not_json(client: TestClient, body: bytes,
                                             caplog: pytest.LogCaptureFixture) -> None:
    response = client.post("/api/command", content=body,
                           headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert "not JSON" in response.json()["error"]
    _quiet(caplog)


def test_http500_a_huge_integer_on_the_websocket_is_an_error_reply(
        client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    with client.websocket_connect("ws://127.0.0.1:8765/ws") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_text('{"type": "command", "id": 3, "cmd": {"cmd": "replay", "game_id": '
                     + BIG + "}}")
        reply = ws.receive_json()
        assert reply["type"] == "error" and "4,300 digits" in reply["error"]
        # The socket is still open and answers the next command.
        ws.send_text(json.dumps({"type": "command", "id": 4, "cmd": {"cmd": "state"}}))
        while (reply := ws.receive_json())["type"] != "result":
            pass
        assert reply["id"] == 4 and reply["result"]["ok"]
    _quiet(caplog)


@pytest.fixture
def edited_log(tmp_path: Path) -> Path:
    db = tmp_path / "games.sqlite3"
    with Store.open(db) as store:
        gid = store.create_game("kato", {}, ["Ann", "Bob"])
        for notation in ("G6", "B2", "D4"):
            store.append(gid, "action", {"notation": notation, "source": "board"})
    conn = sqlite3.connect(db)
    conn.execute("UPDATE events SET payload = json_remove(payload, '$.notation') "
                 "WHERE kind = 'action' AND seq = 3")
    conn.commit()
    conn.close()
    return db


@pytest.mark.parametrize("args", [["replay", "1"], ["export", "--format", "record", "1"],
                                  ["review", "1", "--level", "1"]])
def test_http500_a_log_move_without_notation_is_named_corruption(edited_log: Path,
                                                                 args: list[str]) -> None:
    result = CliRunner().invoke(main, [*args, "--db", str(edited_log)])
    assert result.exit_code != 0
    assert "Traceback" not in result.output and "KeyError" not in result.output
    assert "damaged" in result.output and "'notation'" in result.output, result.output
    assert "event 3" in result.output


def test_http500_the_page_review_of_such_a_log_is_refused_in_words(edited_log: Path) -> None:
    with Store.open(edited_log) as store:
        with pytest.raises(StoreError, match="'notation'"):
            StoreArchive(store).review(1, level=1, budget_s=0.01)
