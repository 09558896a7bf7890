"""The scoring assistant for Colovini's Meridian on a plain printed board (no sensors).

``meridian-table colovini score --map FILE`` serves a small page: the map drawn from
the map file; clicking a city cycles its owner through the players and back to empty;
the island breakdown, the totals and the tie-break update live. Scoring is done here,
by the rules engine's :func:`~meridian_table.games.colovini.score`, never in the page.

This is a separate small Starlette app, independent of the table page.
"""

from __future__ import annotations

import logging
import socket
import sys
import threading
from importlib.resources import files
from types import TracebackType
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from meridian_table.games.colovini import BoardMap, ScoreError, score
from meridian_table.games.colovini.render import island_colours, map_svg

LOGGER = logging.getLogger(__name__)

#: The page's own files, in this package; it wears the table page's design (its app.css
#: and theme.js, served from the web package under static/table/).
STATIC = ("meridian_table.games.colovini", "static/score")
TABLE_STATIC = ("meridian_table.web", "static")
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8766
PLAYER_COLOURS = ("#f77f00", "#111111", "#8d5524", "#9e9e9e", "#2a9d8f", "#6a4c93")
MAX_PLAYERS = len(PLAYER_COLOURS)


class ScorePageError(ValueError):
    """Bad options for the scoring page (players)."""


def check_players(players: list[str]) -> list[str]:
    """Clean player names: 1..6 different, non-empty names."""
    names = [p.strip() for p in players if p.strip()]
    if not 1 <= len(names) <= MAX_PLAYERS or len(set(names)) != len(names):
        raise ScorePageError(
            f"players {players!r}: give 1 to {MAX_PLAYERS} different names, e.g. Ann,Bob,Cid,Dee"
        )
    return names


def _setup(board_map: BoardMap, players: list[str]) -> dict[str, Any]:
    colours = island_colours(board_map)
    return {
        "map": {
            "name": board_map.name,
            "side": board_map.side,
            "capitals": sorted(c.id for c in board_map.cities.values() if c.capital),
            "islands": [
                {"key": i.key, "name": i.name, "cities": list(i.cities), "value": i.value,
                 "colour": colours[i.key]}
                for i in board_map.islands.values()
            ],
        },
        "players": players,
        "colours": dict(zip(players, PLAYER_COLOURS, strict=False)),
    }


def _parse_request(data: Any) -> tuple[dict[str, str], list[str], dict[str, int] | None]:
    if not isinstance(data, dict):
        raise ScorePageError("send a JSON object with 'garrisons', 'players' and 'pieces_left'")
    garrisons = data.get("garrisons", {})
    players = data.get("players", [])
    left = data.get("pieces_left")
    if not isinstance(garrisons, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in garrisons.items()
    ):
        raise ScorePageError(f"garrisons {garrisons!r} must map city ids to player names")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise ScorePageError(f"players {players!r} must be a list of names")
    pieces: dict[str, int] | None = None
    if isinstance(left, dict) and left:
        try:
            pieces = {str(k): int(v) for k, v in left.items() if v not in (None, "")}
        except (TypeError, ValueError):
            raise ScorePageError(f"pieces_left {left!r} must be whole numbers") from None
        if any(n < 0 for n in pieces.values()):
            raise ScorePageError(f"pieces_left {left!r} cannot be negative")
        if set(pieces) != set(players):
            pieces = None  # the tie-break needs every player's count
    return garrisons, check_players(players), pieces


def create_app(board_map: BoardMap, players: list[str]) -> Starlette:
    """The scoring page for ``board_map`` with ``players`` offered as owners."""
    start = check_players(players)
    svg = map_svg(board_map)

    page = files(STATIC[0]).joinpath(STATIC[1], "index.html").read_text(encoding="utf-8")

    async def index(request: Request) -> Response:
        return HTMLResponse(page, headers={"cache-control": "no-store"})

    async def setup(request: Request) -> Response:
        return JSONResponse(_setup(board_map, start))

    async def svg_map(request: Request) -> Response:
        return Response(svg, media_type="image/svg+xml")

    async def do_score(request: Request) -> Response:
        try:
            garrisons, names, pieces = _parse_request(await request.json())
            result = score(board_map, garrisons, names, pieces)
        except (ScorePageError, ScoreError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except ValueError as exc:  # malformed JSON body
            return JSONResponse({"error": f"the request is not JSON: {exc}"}, status_code=400)
        return JSONResponse(result.as_dict())

    return Starlette(
        routes=[
            Route("/", index),
            Route("/api/setup", setup),
            Route("/api/map.svg", svg_map),
            Route("/api/score", do_score, methods=["POST"]),
            Mount("/static/table", StaticFiles(packages=[TABLE_STATIC]), name="table"),
            Mount("/static", StaticFiles(packages=[STATIC]), name="static"),
        ]
    )


def bind(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> socket.socket:
    """A listening socket on ``port``, or on a free port when that one is taken."""
    for candidate in (port, 0):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if sys.platform == "win32":
            # Windows' SO_REUSEADDR would let a second server take this port as well.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
        else:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, candidate))
        except OSError as exc:
            sock.close()
            if candidate == 0:
                raise OSError(f"cannot serve the scoring page on {host}: {exc}") from exc
            LOGGER.info("port %d is busy; taking a free one", port)
            continue
        sock.listen(64)
        return sock
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


class ScoreServer:
    """The scoring page on a background thread (tests, embedding). A context manager."""

    def __init__(self, board_map: BoardMap, players: list[str], host: str = DEFAULT_HOST,
                 port: int = 0) -> None:
        self._sock = bind(host, port)
        self.port = int(self._sock.getsockname()[1])
        self.url = f"http://{host}:{self.port}/"
        config = uvicorn.Config(create_app(board_map, players), log_level="warning",
                                lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True,
            name="colovini-score",
        )
        self._thread.start()
        self._wait_started()

    def _wait_started(self) -> None:
        ready = threading.Event()
        for _ in range(200):
            if self._server.started:
                return
            ready.wait(0.025)  # polling a flag uvicorn sets; no event to wait on
        self.close()
        raise OSError(f"the scoring page did not start on {self.url}")

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._sock.close()

    def __enter__(self) -> ScoreServer:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def serve_forever(board_map: BoardMap, players: list[str], host: str = DEFAULT_HOST,
                  port: int = DEFAULT_PORT, announce: Any = print) -> None:
    """Serve the page in the foreground until Ctrl-C; ``announce(url)`` says where."""
    sock = bind(host, port)
    url = f"http://{host}:{sock.getsockname()[1]}/"
    announce(url)
    server = uvicorn.Server(uvicorn.Config(create_app(board_map, players), log_level="warning",
                                           lifespan="off"))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
