"""`meridian-table bench web`: a table change to the state arriving at the page's WebSocket.

The real table (``TableSession``: its core and shell) plays the installed game whose
default board has the most sites (a large board: the largest state) over the real link to a protocol-level fake Pico (``link/fake.py`` FakeBoard), and is
served by the real uvicorn server; a WebSocket client stands in for the page. The settle
window is long, so every toggled switch stays a tentative change on the page (nothing is
read as a move and the state grows no history). Each iteration times

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

from meridian_table.games import registry
from meridian_table.link import Link
from meridian_table.link.fake import FakeBoard
from meridian_table.profiles import Profile, load_profile
from meridian_table.table.session import TableSession
from meridian_table.web.server import serve

LOGGER = logging.getLogger(__name__)

NAME = "web"
HELP = "table change -> full state parsed by a WebSocket client, through the real server"
ITERATIONS = 400
QUICK_ITERATIONS = 40
TIMEOUT_S = 5.0
#: Long enough that no toggled switch is read as a move during a run.
SETTLE_S = 3600.0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _await(ws: Any, sensed: set[str], result_id: int | None = None) -> dict[str, Any]:
    """Read until the state showing ``sensed`` as the tentative pieces (and the result
    ``result_id``) arrived."""
    state: dict[str, Any] | None = None
    answered = result_id is None
    while state is None or not answered:
        message = json.loads(ws.recv(timeout=TIMEOUT_S))
        if message["type"] == "state":
            if set(message["state"]["tentative"]["arriving"]) == sensed:
                state = dict(message["state"])
        elif message["type"] == "result" and message["id"] == result_id:
            answered = True
    return state


def _largest() -> tuple[str, Profile]:
    """The installed game (played at a table) whose default board has the most sites."""
    found: list[tuple[int, str, Profile]] = []
    for game, spec in sorted(registry.specs().items()):
        try:
            registry.create_adapter(game)
            profile = load_profile(spec.default_profile(None, {}))
        except (ValueError, LookupError, OSError) as exc:  # not at a table: not measured
            LOGGER.info("bench web leaves out %s: %s", game, exc)
            continue
        found.append((len(profile.sites), game, profile))
    if not found:
        raise RuntimeError("no installed game can be played at a table")
    _sites, game, profile = max(found, key=lambda f: (f[0], f[1]))
    return game, profile


def _table() -> tuple[TableSession, Link, FakeBoard]:
    """The real session on a fake Pico with the profile's matrix, connected."""
    game, profile = _largest()
    board = FakeBoard(rows=profile.rows, cols=profile.cols, leds=profile.leds,
                      board=profile.name)
    link = Link(board.find_port, opener=board.open)

    def toggle(site: str) -> None:
        board.toggle(profile.sites[site].pos)

    session = TableSession(
        registry.create_adapter(game), profile, link, settle_s=SETTLE_S, adaptive=False,
        toggle=toggle, port=board.port,
        virtual=True,
    )
    link.subscribe(session.on_link_event)
    link.start()
    session.start()
    deadline = time.monotonic() + TIMEOUT_S
    while link.state != "connected" or session.phase == "paused":
        if time.monotonic() > deadline:
            session.close()
            link.close()
            raise RuntimeError(f"the fake board did not connect within {TIMEOUT_S} s")
        time.sleep(0.01)
    return session, link, board


def _summary(name: str, values: list[float]) -> dict[str, float]:
    return {
        f"{name}_ms_p50": round(statistics.median(values), 3),
        f"{name}_ms_p99": round(_percentile(values, 0.99), 3),
    }


def run(options: dict[str, Any]) -> dict[str, Any]:
    """Time ``ITERATIONS`` pushes, page commands and pings; return the figures."""
    n = QUICK_ITERATIONS if options.get("quick") else ITERATIONS
    session, link, _board = _table()
    sites = sorted(session.profile.sites)
    push_ms: list[float] = []
    command_ms: list[float] = []
    ping_ms: list[float] = []
    try:
        state_bytes = int(_measure(session, sites, n, push_ms, command_ms, ping_ms)["state_bytes"])
    finally:
        session.close()
        link.close()
    ping_p50 = statistics.median(ping_ms)
    out: dict[str, Any] = {"iterations": n, "state_bytes": state_bytes,
                           "game": session.adapter.game, "profile": session.profile.name}
    out.update(_summary("push", push_ms))
    out.update(_summary("command", command_ms))
    out.update(_summary("ping", ping_ms))
    if ping_p50 > 0:
        out["push_vs_ping_p50"] = round(statistics.median(push_ms) / ping_p50, 2)
        out["command_vs_ping_p50"] = round(statistics.median(command_ms) / ping_p50, 2)
    return out


def _flip(sensed: set[str], site: str) -> None:
    if site in sensed:
        sensed.discard(site)
    else:
        sensed.add(site)


def _measure(session: TableSession, sites: list[str], n: int, push_ms: list[float],
             command_ms: list[float], ping_ms: list[float]) -> dict[str, float]:
    """The timed loop (see the module docstring); returns the largest state's size."""
    state_bytes = 0
    sensed: set[str] = set()
    with serve(session, port=0) as server:
        url = server.url.replace("http://", "ws://", 1).split("?")[0] + "ws"
        with connect(url, max_size=None) as ws:
            json.loads(ws.recv(timeout=TIMEOUT_S))  # the state on connect
            for i in range(n):
                # A change made by the table itself (the link's thread in real life).
                site = sites[i % len(sites)]
                start = time.perf_counter()
                session.toggle(site)  # the switch, through the fake Pico and the link
                _flip(sensed, site)
                state = _await(ws, sensed)
                push_ms.append((time.perf_counter() - start) * 1000)
                state_bytes = max(state_bytes, len(json.dumps(state)))
                # The page's own click: command out, new state and answer back.
                start = time.perf_counter()
                ws.send(json.dumps({"type": "command", "id": i, "cmd": {"cmd": "toggle", "site": site}}))
                _flip(sensed, site)
                _await(ws, sensed, result_id=i)
                command_ms.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                ws.ping().wait(TIMEOUT_S)
                ping_ms.append((time.perf_counter() - start) * 1000)
    return {"state_bytes": state_bytes}
