"""The live table page: a Starlette app that serves the page and speaks WebSocket.

The app only knows the ``TableSession`` surface of docs/TABLE.md: ``state()``,
``command(dict)`` and ``subscribe(callback)``. Every browser connection gets the whole
state on connect and again after every change; commands from the page travel over the
same WebSocket (or ``POST /api/command``) to ``session.command()``. docs/WEB.md has the
protocol and the security model.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol
from urllib.parse import urlsplit

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from meridian_table import waiting
from meridian_table.resources import package_path
from meridian_table.textload import json_loads
from meridian_table.web.gamefiles import GameFileError, game_file

LOGGER = logging.getLogger(__name__)
#: Commands that may take long (the review analyses a whole game): a page's socket answers
#: them when they are done, and runs the commands that come after them meanwhile.
SLOW_COMMANDS = frozenset({"review"})

STATIC_DIR = package_path(__package__ or "meridian_table.web", "static")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
# Close codes in the private range (4000-4999) so the page can tell them from network loss.
CLOSE_BAD_TOKEN = 4401
CLOSE_BAD_ORIGIN = 4403
CLOSE_TABLE_FAILED = 1011  # "internal error": the page reconnects with backoff
MAX_MESSAGE_CHARS = 64 * 1024
# Bytes: what the server (uvicorn's ws_max_size) and the command endpoint read at most,
# before they refuse, so a huge message is never held in memory.
MAX_MESSAGE_BYTES = 4 * MAX_MESSAGE_CHARS


class TableSurface(Protocol):
    """What the web layer needs from a table session (docs/TABLE.md)."""

    def state(self) -> Mapping[str, Any]: ...

    def command(self, cmd: dict[str, Any]) -> Mapping[str, Any]: ...

    def subscribe(self, callback: Callable[[Any], None]) -> Callable[[], None]: ...


class TokenRequiredError(ValueError):
    """Serving on a non-loopback address without an access token."""


class BadMessageError(ValueError):
    """A message from the page that is not a well-formed command; ``msg_id`` is its id,
    when it had one."""

    msg_id: object = None


def is_loopback(host: str) -> bool:
    """True when ``host`` (a name or an address) only reaches this machine."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_of(header: str | None) -> str | None:
    """The host name in a ``Host`` header, lower case, IPv6 without its brackets.

    ``"[::1]:8765"`` gives ``"::1"``, ``"LocalHost"`` gives ``"localhost"``. None when
    the header is missing or malformed (an unclosed bracket, a bad port, a bare IPv6
    address without brackets, which RFC 3986 does not allow).
    """
    if not header or any(c.isspace() for c in header) or "/" in header or "@" in header:
        return None
    try:
        parts = urlsplit(f"//{header}")
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return None
    host = parts.hostname
    if not host or (":" in host and not header.startswith("[")):
        return None
    return host


def _host_key(name: str) -> str:
    return name.strip().lower().removeprefix("[").removesuffix("]")


class HostGuard:
    """ASGI middleware: refuse requests whose ``Host`` is not an allowed name (400).

    Starlette's ``TrustedHostMiddleware`` compares ``[::1]`` from a Host header with
    its list as text, so a browser on ``http://[::1]:8765/`` was refused; this guard
    compares host names (IPv6 without brackets) and takes ``*`` for any host.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str]) -> None:
        self.app = app
        self.allowed = {_host_key(h) for h in allowed_hosts}
        self.allow_any = "*" in self.allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.allow_any or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        raw = None
        for key, value in scope.get("headers", ()):
            if key == b"host":
                raw = value.decode("latin-1")
                break
        host = host_of(raw)
        if host is not None and host in self.allowed:
            await self.app(scope, receive, send)
            return
        LOGGER.warning("refused a request for host %r (allowed: %s)", raw, sorted(self.allowed))
        if scope["type"] == "websocket":
            # Before the handshake: close, which the server sends as HTTP 403.
            await send({"type": "websocket.close", "code": 1008, "reason": "invalid host header"})
            return
        response = PlainTextResponse(
            f"Invalid host header {raw!r}: open the table page by the address the table printed",
            status_code=400,
        )
        await response(scope, receive, send)


def new_token() -> str:
    """A fresh access token for the page URL (URL-safe, 128 bits)."""
    return secrets.token_urlsafe(16)


def _jsonable(value: object) -> object:
    """json.dumps fallback: sets and frozensets become sorted lists, others their str."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, tuple):
        return list(value)
    return str(value)


def dumps(message: Mapping[str, Any]) -> str:
    """Serialise one message for the page."""
    return json.dumps(message, default=_jsonable, separators=(",", ":"))


def parse_command(text: str) -> tuple[object, dict[str, Any]]:
    """Read one page message ``{"type": "command", "id": ..., "cmd": {...}}``.

    Returns the message id (echoed in the result) and the command dict. Raises
    ``BadMessageError`` naming what was wrong.
    """
    if len(text) > MAX_MESSAGE_CHARS:
        raise BadMessageError(
            f"message of {len(text)} characters is longer than {MAX_MESSAGE_CHARS}; "
            "send one command per message"
        )
    try:
        message = json_loads(text)
    except json.JSONDecodeError as exc:
        raise BadMessageError(f"message {text[:80]!r} is not JSON ({exc.msg})") from exc
    if not isinstance(message, dict):
        raise BadMessageError(f"message {text[:80]!r} is not a JSON object")
    msg_id = message.get("id")
    if not (msg_id is None or isinstance(msg_id, str | int) and not isinstance(msg_id, bool)
            and len(str(msg_id)) <= 64):
        raise BadMessageError(f"message id {msg_id!r:.80} is not a short string or number")
    kind = message.get("type", "command")
    try:
        if kind != "command":
            raise BadMessageError(
                f"message type {kind!r:.80} is unknown; the page sends only 'command'")
        return msg_id, check_command(message.get("cmd"))
    except BadMessageError as exc:
        exc.msg_id = msg_id  # the page matches the error to the command it sent
        raise


def check_command(cmd: object) -> dict[str, Any]:
    """``cmd`` itself if it is a command object (a dict with a string ``cmd`` field)."""
    if not isinstance(cmd, dict) or not isinstance(cmd.get("cmd"), str):
        raise BadMessageError(
            f"command {cmd!r:.80} must be an object with a string 'cmd' field, "
            'e.g. {"cmd": "button", "name": "undo"}'
        )
    return cmd


def run_command(session: TableSurface, cmd: dict[str, Any]) -> dict[str, Any]:
    """``session.command(cmd)``, with any error turned into ``{"ok": False, ...}``.

    A ValueError is the session refusing bad input: its message goes to the page as is.
    Anything else is a bug in the session: logged with its traceback, and the page is
    told that the command failed rather than left waiting.
    """
    try:
        return dict(session.command(cmd))
    except ValueError as exc:
        return {"ok": False, "error": str(exc)}
    except Exception as exc:
        LOGGER.exception("session.command(%r) failed", cmd)
        return {"ok": False, "error": f"the table failed on {cmd.get('cmd')!r}: {exc!r}"}


class _Access:
    """The access checks shared by HTTP and WebSocket: token and Origin."""

    def __init__(self, token: str | None, allowed_origins: Iterable[str]) -> None:
        self.token = token
        self.allowed_origins = {o.rstrip("/").lower() for o in allowed_origins}

    def token_ok(self, conn: HTTPConnection) -> bool:
        if self.token is None:
            return True
        offered = conn.query_params.get("token")
        if offered is None:
            auth = conn.headers.get("authorization", "")
            if auth.lower().startswith("bearer "):
                offered = auth[7:].strip()
        if offered is None:
            return False
        # compare_digest refuses str with non-ASCII characters (TypeError, so HTTP 500);
        # bytes compare in constant time whatever they hold.
        return secrets.compare_digest(
            offered.encode("utf-8", "surrogatepass"), self.token.encode("utf-8")
        )

    def origin_ok(self, conn: HTTPConnection) -> bool:
        """A browser's Origin must name the host it is talking to (or an allowed one).

        Non-browser clients send no Origin: they cannot be tricked by another web site,
        so they pass here and still need the token where one is set.
        """
        origin = conn.headers.get("origin")
        if origin is None:
            return True
        origin = origin.rstrip("/").lower()
        if origin in self.allowed_origins:
            return True
        parts = urlsplit(origin)
        host = conn.headers.get("host", "").lower()
        return bool(parts.netloc) and parts.netloc == host


async def _body_at_most(request: Request, limit: int) -> bytes | None:
    """The request body, or None as soon as it passes ``limit`` bytes (the rest unread)."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def _denied_page(reason: str) -> HTMLResponse:
    body = (
        "<!doctype html><meta charset='utf-8'><title>Meridian Table: access denied</title>"
        "<body style='font-family:sans-serif;max-width:36em;margin:3em auto'>"
        f"<h1>Access denied</h1><p>{reason}</p></body>"
    )
    return HTMLResponse(body, status_code=401)


TOKEN_HELP = (
    "This table page needs the access token. Open the exact URL that "
    "<code>meridian-table play</code> printed (it ends in <code>?token=...</code>)."
)


def create_app(
    session: TableSurface,
    *,
    token: str | None = None,
    bind_host: str = "127.0.0.1",
    allowed_hosts: Iterable[str] | None = None,
    allowed_origins: Iterable[str] = (),
) -> Starlette:
    """The table page for ``session``.

    ``bind_host`` is the address the server listens on: anything but loopback needs a
    ``token`` (else ``TokenRequiredError``), which then guards the page, the API and the
    WebSocket. ``allowed_hosts`` are the Host header values accepted (default: the
    loopback names when bound to loopback, so a DNS-rebinding page cannot reach the
    table; any host otherwise, since the token guards it). ``allowed_origins`` are
    extra browser origins accepted besides the served host itself.
    """
    if token is None and not is_loopback(bind_host):
        raise TokenRequiredError(
            f"serving the table page on {bind_host!r} (not loopback) needs an access token; "
            "pass token=meridian_table.web.new_token() and give players the URL with ?token=..."
        )
    if token is not None and not token:
        raise TokenRequiredError("the access token is empty; use meridian_table.web.new_token()")
    access = _Access(token, allowed_origins)
    if allowed_hosts is None:
        allowed_hosts = list(LOOPBACK_HOSTS) if is_loopback(bind_host) else ["*"]
    hosts = list(allowed_hosts)

    async def index(request: Request) -> Response:
        if not access.token_ok(request):
            return _denied_page(TOKEN_HELP)
        return FileResponse(
            STATIC_DIR / "index.html",
            headers={"cache-control": "no-store", "x-content-type-options": "nosniff"},
        )

    async def game_static(request: Request) -> Response:
        # A game's own page files (its page.js), found through its spec's package.
        game = str(request.path_params["game"])
        path = str(request.path_params["path"])
        try:
            body, media_type = await anyio.to_thread.run_sync(game_file, game, path)
        except GameFileError as exc:
            return PlainTextResponse(str(exc), status_code=404)
        return Response(
            body, media_type=media_type,
            headers={"cache-control": "no-cache", "x-content-type-options": "nosniff"},
        )

    async def api_state(request: Request) -> Response:
        if not access.token_ok(request):
            return JSONResponse({"ok": False, "error": "missing or wrong token"}, 401)
        state = await anyio.to_thread.run_sync(session.state)
        return Response(dumps(state), media_type="application/json")

    async def api_command(request: Request) -> Response:
        if not access.origin_ok(request):
            return JSONResponse({"ok": False, "error": "cross-origin request refused"}, 403)
        if not access.token_ok(request):
            return JSONResponse({"ok": False, "error": "missing or wrong token"}, 401)
        body = await _body_at_most(request, MAX_MESSAGE_BYTES)
        if body is None:
            return JSONResponse(
                {"ok": False, "error": f"command is too long (the limit is {MAX_MESSAGE_BYTES} "
                 "bytes); send one command per request"}, 413)
        try:
            if len(body) > MAX_MESSAGE_CHARS:
                raise BadMessageError(f"command of {len(body)} bytes is too long")
            cmd = check_command(json_loads(body))
        except json.JSONDecodeError as exc:
            return JSONResponse({"ok": False, "error": f"command is not JSON ({exc.msg})"}, 400)
        except BadMessageError as exc:
            return JSONResponse({"ok": False, "error": str(exc)}, 400)
        result = await _run(session, cmd, request.is_disconnected)
        if result is None:
            return Response(status_code=499)  # nobody is there to read it
        return Response(dumps(result), media_type="application/json")

    async def ws_endpoint(websocket: WebSocket) -> None:
        if not access.origin_ok(websocket):
            LOGGER.warning(
                "refused a WebSocket from origin %r (host %r)",
                websocket.headers.get("origin"),
                websocket.headers.get("host"),
            )
            await websocket.close(code=CLOSE_BAD_ORIGIN)
            return
        await websocket.accept()
        if not access.token_ok(websocket):
            await websocket.send_text(dumps({"type": "error", "error": "missing or wrong token"}))
            await websocket.close(code=CLOSE_BAD_TOKEN, reason="missing or wrong token")
            return
        await _serve_socket(session, websocket)

    routes = [
        Route("/", index),
        Route("/api/state", api_state),
        Route("/api/command", api_command, methods=["POST"]),
        WebSocketRoute("/ws", ws_endpoint),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        Route("/games/{game}/static/{path:path}", game_static),
    ]
    middleware = [Middleware(HostGuard, allowed_hosts=hosts)]
    return Starlette(routes=routes, middleware=middleware)


async def _run(session: TableSurface, cmd: dict[str, Any],
               disconnected: Callable[[], Awaitable[bool]] | None = None
               ) -> dict[str, Any] | None:
    """``run_command`` in a thread. A slow command (a review) learns when nobody waits
    for it any more (:mod:`meridian_table.waiting`): its socket's task is cancelled, or
    ``disconnected()`` says its HTTP client left; None then."""
    if cmd.get("cmd") not in SLOW_COMMANDS:
        return await anyio.to_thread.run_sync(run_command, session, cmd)
    gone = threading.Event()

    def slow() -> dict[str, Any]:
        with waiting.waiting(gone):
            return run_command(session, cmd)

    try:
        if disconnected is None:
            return await anyio.to_thread.run_sync(slow, abandon_on_cancel=True)
        out: list[dict[str, Any]] = []
        async with anyio.create_task_group() as tasks:

            async def work() -> None:
                out.append(await anyio.to_thread.run_sync(slow, abandon_on_cancel=True))
                tasks.cancel_scope.cancel()

            async def watch() -> None:
                while not await disconnected():
                    await anyio.sleep(0.25)
                tasks.cancel_scope.cancel()

            tasks.start_soon(work)
            tasks.start_soon(watch)
        return out[0] if out else None
    finally:
        gone.set()  # a thread still working stops; one that is done does not care


async def _serve_socket(session: TableSurface, websocket: WebSocket) -> None:
    """Push states and run commands on one accepted WebSocket until it closes."""
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()
    latest: list[Any] = [None]

    def on_change(state: Any) -> None:
        # Called on the session's thread: keep only the newest state and wake the pusher.
        # Bursts of changes coalesce into one send of the latest state.
        latest[0] = state
        try:
            loop.call_soon_threadsafe(changed.set)
        except RuntimeError:
            pass  # the loop closed while the session was still notifying

    unsubscribe = session.subscribe(on_change)
    try:
        try:
            first = await anyio.to_thread.run_sync(session.state)
        except Exception as exc:
            # The table cannot describe itself: say so and hang up; the page retries later.
            LOGGER.exception("session.state() failed for a new page")
            await websocket.send_text(dumps({"type": "error", "error": f"the table failed: {exc!r}"}))
            await websocket.close(code=CLOSE_TABLE_FAILED)
            return
        await websocket.send_text(dumps({"type": "state", "state": first}))
        async with anyio.create_task_group() as tasks:

            async def pusher() -> None:
                try:
                    while True:
                        await changed.wait()
                        changed.clear()
                        state = latest[0]
                        if state is None:
                            state = await anyio.to_thread.run_sync(session.state)
                        await websocket.send_text(dumps({"type": "state", "state": state}))
                except (WebSocketDisconnect, RuntimeError, OSError):
                    pass  # the page went away mid-send; the reader ends the connection
                tasks.cancel_scope.cancel()

            async def answer(msg_id: object, cmd: dict[str, Any]) -> None:
                result = await _run(session, cmd)
                try:
                    await websocket.send_text(
                        dumps({"type": "result", "id": msg_id, "result": result}))
                except (WebSocketDisconnect, RuntimeError, OSError):
                    tasks.cancel_scope.cancel()  # the page went away while it waited

            async def reader() -> None:
                try:
                    while True:
                        text = await websocket.receive_text()
                        try:
                            msg_id, cmd = parse_command(text)
                        except BadMessageError as exc:
                            await websocket.send_text(dumps(
                                {"type": "error", "id": exc.msg_id, "error": str(exc)}))
                            continue
                        if cmd["cmd"] in SLOW_COMMANDS:
                            # Answered when it is done; the commands after it go on.
                            tasks.start_soon(answer, msg_id, cmd)
                        else:
                            await answer(msg_id, cmd)
                except (WebSocketDisconnect, KeyError, RuntimeError, OSError):
                    pass  # KeyError: a binary frame has no "text"; treat it as hanging up
                tasks.cancel_scope.cancel()

            tasks.start_soon(pusher)
            tasks.start_soon(reader)
    except WebSocketDisconnect:
        pass
    finally:
        unsubscribe()
