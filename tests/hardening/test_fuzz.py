"""Fixed slices of the fuzzers (`meridian-table bench fuzz` runs the long ones).

- the link's parser through a real pty: 0 exceptions, 0 hangs, 0 impossible events;
- the web commands, fed random JSON: 0 answers with status 500, 0 tracebacks logged.
"""

from __future__ import annotations

import json
import logging
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from meridian_table.bench.fuzz import fuzz_link
from meridian_table.table import TableSession
from meridian_table.web import create_app

EXAMPLES = int(os.environ.get("MERIDIAN_FUZZ_EXAMPLES", "150"))


def test_the_link_parser_through_a_pty_survives_a_fixed_slice() -> None:
    figures = fuzz_link(2_000, seed=10)
    assert figures["link_exceptions"] == 0
    assert figures["link_hangs"] == 0
    assert figures["link_impossible_events"] == 0
    # The slice did exercise what it is about.
    assert figures["link_bad_frames"] > 100 and figures["link_events_delivered"] > 500


SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
           | st.text(max_size=30))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
NAMES = st.sampled_from(["button", "toggle", "choose", "agree", "seat", "rename", "replay", "review", "games",
                         "state", "nope", ""])
FIELDS = st.sampled_from(["name", "source", "site", "field", "value", "player", "players", "seat",
                          "automaton", "game_id", "cmd"])
COMMANDS = st.builds(lambda kind, extra: {"cmd": kind, **extra}, NAMES,
                     st.dictionaries(FIELDS, JSON, max_size=4)) | JSON


class _Tracebacks(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info is not None or record.levelno >= logging.ERROR:
            self.records.append(record)


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cmd=COMMANDS, over=st.sampled_from(["http", "ws"]))
def test_random_json_commands_never_give_500_or_a_traceback(
    logged_session: TableSession, cmd: object, over: str
) -> None:
    watch = _Tracebacks()
    root = logging.getLogger()
    root.addHandler(watch)
    try:
        client = TestClient(create_app(logged_session), base_url="http://127.0.0.1",
                            raise_server_exceptions=True)
        body = json.dumps(cmd)
        if over == "http":
            response = client.post("/api/command", content=body)
            assert response.status_code in (200, 400), response.text
            assert isinstance(response.json(), dict)
        else:
            with client.websocket_connect("ws://127.0.0.1/ws") as ws:
                assert ws.receive_json()["type"] == "state"
                ws.send_text(json.dumps({"type": "command", "id": 1, "cmd": cmd}))
                while (answer := ws.receive_json())["type"] == "state":
                    pass
                assert answer["type"] in ("result", "error")
    finally:
        root.removeHandler(watch)
    assert not watch.records, [r.getMessage() for r in watch.records]


@pytest.mark.parametrize("text", ["[" * 60_000, '{"cmd":' * 9_000, '{"cmd": "state", "x": '
                                  + "[" * 5_000 + "]" * 5_000 + "}"])
def test_deeply_nested_json_is_a_bad_message_not_a_crash(
    logged_session: TableSession, text: str
) -> None:
    client = TestClient(create_app(logged_session), base_url="http://127.0.0.1")
    response = client.post("/api/command", content=text)
    assert response.status_code == 400 and "nested" in response.json()["error"]
    with client.websocket_connect("ws://127.0.0.1/ws") as ws:
        ws.receive_json()
        ws.send_text(text)
        answer = ws.receive_json()
        assert answer["type"] == "error" and "nested" in answer["error"]
