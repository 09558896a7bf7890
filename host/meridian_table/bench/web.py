"""`meridian-table bench web`: a table change to the state arriving at the page's WebSocket.

A FakeSession with its own 127-point hexagon (size 6, a large game board) is served by the
real uvicorn server; a WebSocket client stands in for the page. Each iteration times

- ``push``: the table changes (a switch toggled on the calling thread, as the link's
  thread does) until the new state has arrived and been parsed by the client: the hop
  onto the event loop, the JSON encoding, the send and the decoding;
- ``command``: the page's click, a toggle command sent over the WebSocket, until both
  the new state and the command's answer have arrived (what "feedback within a blink"
  means for the page);
- ``ping``: the reference, a WebSocket ping/pong on the same connection, the transport's
  own round trip measured in the same run.
"""

from __future__ import annotations

import json
import logging
import statistics
import time
from typing import Any

from websockets.sync.client import connect

from meridian_table.web.fake import FakeSession
from meridian_table.web.server import serve

LOGGER = logging.getLogger(__name__)

NAME = "web"
HELP = "table change -> full state parsed by a WebSocket client, through the real server"
ITERATIONS = 400
QUICK_ITERATIONS = 40
TIMEOUT_S = 5.0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _await(ws: Any, frames_in: int, result_id: int | None = None) -> dict[str, Any]:
    """Read until the state with ``frames_in`` (and the result ``result_id``) arrived."""
    state: dict[str, Any] | None = None
    answered = result_id is None
    while state is None or not answered:
        message = json.loads(ws.recv(timeout=TIMEOUT_S))
        if message["type"] == "state":
            if message["state"]["link"]["stats"]["frames_in"] == frames_in:
                state = dict(message["state"])
        elif message["type"] == "result" and message["id"] == result_id:
            answered = True
    return state


def _summary(name: str, values: list[float]) -> dict[str, float]:
    return {
        f"{name}_ms_p50": round(statistics.median(values), 3),
        f"{name}_ms_p99": round(_percentile(values, 0.99), 3),
    }


def run(options: dict[str, Any]) -> dict[str, Any]:
    """Time ``ITERATIONS`` pushes, page commands and pings; return the figures."""
    n = QUICK_ITERATIONS if options.get("quick") else ITERATIONS
    fake = FakeSession(size=6)
    sites = [s["id"] for s in fake.state()["board"]["sites"]]
    push_ms: list[float] = []
    command_ms: list[float] = []
    ping_ms: list[float] = []
    state_bytes = 0
    frames_in = 0
    with serve(fake, port=0) as server:
        url = server.url.replace("http://", "ws://", 1).split("?")[0] + "ws"
        with connect(url, max_size=None) as ws:
            json.loads(ws.recv(timeout=TIMEOUT_S))  # the state on connect
            for i in range(n):
                # A change made by the table itself (the link's thread in real life).
                site = sites[i % len(sites)]
                start = time.perf_counter()
                fake.command({"cmd": "toggle", "site": site})
                frames_in += 1
                state = _await(ws, frames_in)
                push_ms.append((time.perf_counter() - start) * 1000)
                state_bytes = max(state_bytes, len(json.dumps(state)))
                # The page's own click: command out, new state and answer back.
                start = time.perf_counter()
                ws.send(json.dumps({"type": "command", "id": i, "cmd": {"cmd": "toggle", "site": site}}))
                frames_in += 1
                _await(ws, frames_in, result_id=i)
                command_ms.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                ws.ping().wait(TIMEOUT_S)
                ping_ms.append((time.perf_counter() - start) * 1000)
    ping_p50 = statistics.median(ping_ms)
    figures: dict[str, Any] = {"iterations": n, "state_bytes": state_bytes}
    figures.update(_summary("push", push_ms))
    figures.update(_summary("command", command_ms))
    figures.update(_summary("ping", ping_ms))
    if ping_p50 > 0:
        figures["push_vs_ping_p50"] = round(statistics.median(push_ms) / ping_p50, 2)
        figures["command_vs_ping_p50"] = round(statistics.median(command_ms) / ping_p50, 2)
    return figures
