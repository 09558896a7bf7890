"""The club page: a Starlette app reading PostgreSQL as the page role, live by LISTEN/NOTIFY.

Pages are rendered on the server (every name escaped) and work without scripts; a small
script keeps them live: it listens on ``/ws`` (one message per new event, forwarded
from PostgreSQL's ``NOTIFY``) and refetches the part of the page that changed. The
admin view asks for the admin role's own PostgreSQL login (HTTP Basic) and acts with
it, so PostgreSQL itself checks the password. Host and Origin are checked as on the
table page (docs/WEB.md).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import html
import json
import logging
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import anyio
import psycopg
import uvicorn
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from meridian_table.club import queries
from meridian_table.club.admin import ClubAdmin, connect, redact, with_login
from meridian_table.club.errors import ClubError
from meridian_table.club.schema import NOTIFY_CHANNEL, require_current
from meridian_table.web.app import LOOPBACK_HOSTS, HostGuard, is_loopback

LOGGER = logging.getLogger(__name__)

QUEUE_SIZE = 1000
e = html.escape


class Hub:
    """Fans each notification out to every connected spectator (bounded queues)."""

    def __init__(self) -> None:
        self.queues: set[asyncio.Queue[str]] = set()
        self.connected = False

    def publish(self, message: str) -> None:
        for queue in list(self.queues):
            if queue.full():  # a slow phone: drop its backlog, tell it to refetch
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(json.dumps({"type": "resync"}))
            queue.put_nowait(message)


async def _listen(url: str, hub: Hub) -> None:
    """LISTEN forever, reconnecting after a server restart (then: resync everyone)."""
    delay = 0.2
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                hub.connected = True
                delay = 0.2
                hub.publish(json.dumps({"type": "resync"}))
                async for note in conn.notifies():
                    hub.publish(json.dumps({"type": "event", **json.loads(note.payload)}))
        except asyncio.CancelledError:
            raise
        except (psycopg.Error, OSError) as exc:
            hub.connected = False
            LOGGER.warning("club page lost its LISTEN connection (%s); retrying", exc)
        await asyncio.sleep(delay)
        delay = min(delay * 2, 3.0)


async def _until_closed(websocket: WebSocket) -> None:
    """Return when the spectator closes the socket (anything it sends is ignored)."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return


def _origin_ok(conn: HTTPConnection) -> bool:
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    parts = urlsplit(origin.rstrip("/").lower())
    return bool(parts.netloc) and parts.netloc == conn.headers.get("host", "").lower()


STYLE = """
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:60em;padding:.5em 1em;
 line-height:1.4;color:#1b1b1b;background:#fafaf7}
nav a{margin-right:1em}table{border-collapse:collapse;width:100%;margin:.5em 0}
td,th{border-bottom:1px solid #ccc;padding:.3em .4em;text-align:left;vertical-align:top}
pre{background:#fff;border:1px solid #ccc;padding:.5em;overflow-x:auto;font-size:.85em}
.card{background:#fff;border:1px solid #ccc;border-radius:6px;padding:.6em;margin:.5em 0}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(16em,1fr));gap:.5em}
.muted{color:#555}button,input{font-size:1em;padding:.3em .6em;min-height:2.2em}
a{color:#0b4f9c}
"""

LIVE = """
<script>
(function(){
  var part = document.getElementById('live'); if(!part) return;
  var want = part.dataset.game || ''; var timer = null; var delay = 500;
  function refresh(){ timer = null;
    fetch(location.pathname + location.search + (location.search ? '&' : '?') + 'part=1')
      .then(function(r){ return r.text(); })
      .then(function(t){ part.innerHTML = t; document.body.dataset.updated = Date.now(); });
  }
  function open(){
    var ws = new WebSocket((location.protocol == 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
    ws.onopen = function(){ delay = 500; document.body.dataset.live = 'yes'; };
    ws.onmessage = function(m){ var d = JSON.parse(m.data);
      if (d.type == 'event' && want && want != d.table + '/' + d.game) return;
      if (!timer) timer = setTimeout(refresh, 50); };
    ws.onclose = function(){ document.body.dataset.live = 'no';
      setTimeout(open, delay); delay = Math.min(delay * 2, 5000); };
  }
  open();
})();
</script>"""


def _page(title: str, body: str, part: bool, game: str = "") -> Response:
    if part:
        return HTMLResponse(body)
    return HTMLResponse(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{e(title)} · Meridian club</title><style>{STYLE}</style></head><body>"
        "<header><nav aria-label='club'><a href='/'>Tables</a><a href='/games'>Finished games</a>"
        "<a href='/standings'>Standings</a><a href='/admin'>Admin</a></nav></header>"
        f"<main><h1>{e(title)}</h1><div id='live' data-game='{e(game)}'>{body}</div></main>"
        f"{LIVE}</body></html>")


def _game_link(table: str, game_id: int, text: str) -> str:
    return f"<a href='/game/{quote(table)}/{game_id}'>{e(text)}</a>"


def _player_link(name: str) -> str:
    return f"<a href='/player/{quote(name, safe='')}'>{e(name)}</a>"


def _players(names: Iterable[str]) -> str:
    return ", ".join(_player_link(str(n)) for n in names)


def render_tables(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "<p>No tables yet: the admin adds them (<code>club add-table NAME</code>).</p>"
    cards = []
    for row in rows:
        game = row["game"]
        if row["revoked"]:
            status = "<p class='muted'>revoked</p>"
        elif game is None:
            status = "<p class='muted'>no game yet</p>"
        else:
            turn = ("finished" if game["finished"] else
                    f"{e(str(game['to_move']))} to play" if game["to_move"] else "in play")
            status = (f"<p>{e(game['game'])}: {_players(game['players'])}</p>"
                      f"<p>{game['moves']} moves · {turn}</p>"
                      f"<p>{_game_link(row['name'], game['id'], 'Watch this game')}</p>")
        cards.append(f"<section class='card' aria-label='table {e(row['name'])}'>"
                     f"<h2>{e(row['name'])}</h2>{status}</section>")
    return "<div class='grid'>" + "".join(cards) + "</div>"


def render_game(detail: dict[str, Any]) -> str:
    table, gid, ply, total = detail["table"], detail["id"], detail["ply"], detail["total"]
    result = detail["result"]
    if result is not None:
        winners = result.get("winners") or []
        state = ("Abandoned" if result.get("abandoned") else
                 f"Won by {_players(winners)}" if winners else "A draw")
        state += f" — {e(str(result.get('reason', '')))}"
    elif detail["to_move"]:
        state = f"{e(str(detail['to_move']))} to play"
    else:
        state = "In play"
    base = f"/game/{quote(table)}/{gid}"
    steps = " ".join(
        f"<a href='{base}?ply={n}'>{label}</a>" for n, label in
        ((0, "start"), (max(0, ply - 1), "back"), (min(total, ply + 1), "forward"),
         (total, "latest")))
    moves = "".join(f"<li>{e(str(m['player'] or ''))}: {e(str(m['notation']))}</li>"
                    for m in detail["moves"])
    error = f"<p role='alert'>{e(detail['error'])}</p>" if detail["error"] else ""
    return (f"<p>{e(str(detail['game']))} at table {e(table)}: {_players(detail['players'])}</p>"
            f"<p id='state'>{state}</p><p>Move {ply} of {total} · {steps}</p>{error}"
            f"<pre aria-label='the board'>{e(detail['diagram'])}</pre>"
            f"<h2>Moves</h2><ol id='moves'>{moves}</ol>"
            f"<p>Export: <a href='{base}/export?format=jsonl'>events (JSON lines)</a> · "
            f"<a href='{base}/export?format=record'>game record</a></p>")


def _resigned(name: object) -> str:
    """" (Bob resigned)" for a game a player resigned, else nothing."""
    return f" ({e(name)} resigned)" if isinstance(name, str) and name else ""


def render_finished(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "<p>No finished games yet.</p>"
    body = "".join(
        f"<tr><td>{e(r['at'][:16].replace('T', ' '))}</td><td>{e(r['game'])}</td>"
        f"<td>{e(r['table'])}</td><td>{_players(r['players'])}</td>"
        f"<td>{'abandoned' if r['abandoned'] else _players(r['winners']) or 'draw'}"
        f"{_resigned(r.get('resigned'))}</td>"
        f"<td>{_game_link(r['table'], r['id'], 'replay')}</td></tr>" for r in rows)
    return ("<table><thead><tr><th>ended</th><th>game</th><th>table</th><th>players</th>"
            f"<th>won</th><th></th></tr></thead><tbody>{body}</tbody></table>")


def render_standings(boards: dict[str, list[Any]]) -> str:
    if not boards:
        return "<p>No rated games yet: standings appear when games finish.</p>"
    out = ["<p class='muted'>OpenSkill (Plackett-Luce) ratings: mu minus three sigma.</p>"]
    for game, rows in boards.items():
        body = "".join(
            f"<tr><td>{i}</td><td>{_player_link(s.player)}</td><td>{s.ordinal:.2f}</td>"
            f"<td>{s.games}</td><td>{s.wins}</td></tr>" for i, s in enumerate(rows, 1))
        out.append(f"<h2>{e(game)}</h2><table aria-label='standings {e(game)}'><thead><tr>"
                   "<th>#</th><th>player</th><th>rating</th><th>games</th><th>wins</th>"
                   f"</tr></thead><tbody>{body}</tbody></table>")
    return "".join(out)


class ClubPage:
    """The app's state: the page role's pool, the notification hub, the admin's address."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.hub = Hub()
        self.pool = AsyncConnectionPool(url, min_size=1, max_size=8, open=False, timeout=5,
                                        kwargs={"autocommit": True})

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        await self.pool.open()
        task = asyncio.create_task(_listen(self.url, self.hub))
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await self.pool.close()

    async def _read(self, fn: Callable[..., Any], *args: Any) -> Any:
        async with self.pool.connection() as conn:
            return await fn(conn, *args)

    async def home(self, request: Request) -> Response:
        rows = await self._read(queries.tables)
        return _page("The club's tables", render_tables(rows), "part" in request.query_params)

    async def games(self, request: Request) -> Response:
        rows = await self._read(queries.finished_games)
        return _page("Finished games", render_finished(rows), "part" in request.query_params)

    async def standings(self, request: Request) -> Response:
        boards = await self._read(queries.standings)
        if request.query_params.get("format") == "json":
            return JSONResponse({g: [s.to_json() for s in rows] for g, rows in boards.items()})
        return _page("Standings", render_standings(boards), "part" in request.query_params)

    async def player(self, request: Request) -> Response:
        name = request.path_params["name"]
        rows = await self._read(queries.finished_games, name)
        boards = await self._read(queries.standings)
        ratings = [f"<li>{e(g)}: {s.ordinal:.2f} after {s.games} games ({s.wins} won)</li>"
                   for g, rows_ in boards.items() for s in rows_ if s.player == name]
        body = (f"<ul>{''.join(ratings) or '<li>no rated games yet</li>'}</ul>"
                f"<h2>History</h2>{render_finished(rows)}")
        return _page(f"Player {name}", body, "part" in request.query_params)

    def _game_args(self, request: Request) -> tuple[str, int, int | None] | Response:
        try:
            gid = int(request.path_params["game"])
            ply = request.query_params.get("ply")
            return request.path_params["table"], gid, int(ply) if ply is not None else None
        except ValueError:
            return PlainTextResponse("a game number and ?ply=N are whole numbers, e.g. "
                                     "/game/table7/3?ply=10", status_code=400)

    async def game(self, request: Request) -> Response:
        args = self._game_args(request)
        if isinstance(args, Response):
            return args
        detail = await self._read(queries.game_detail, *args)
        if detail is None:
            return PlainTextResponse(f"no game {args[1]} of table {args[0]!r} in the club; "
                                     "the tables page links to every game", status_code=404)
        if request.query_params.get("format") == "json":
            return JSONResponse(detail)
        title = f"Game {args[1]} at {args[0]}"
        return _page(title, render_game(detail), "part" in request.query_params,
                     f"{args[0]}/{args[1]}")

    async def export(self, request: Request) -> Response:
        args = self._game_args(request)
        if isinstance(args, Response):
            return args
        detail = await self._read(queries.game_detail, args[0], args[1], None)
        if detail is None:
            return PlainTextResponse("no such game in the club", status_code=404)
        fmt = request.query_params.get("format", "jsonl")
        name = f"{args[0]}-{args[1]}"
        if fmt == "jsonl":
            text = "".join(json.dumps({"table": args[0], "game_id": args[1], **ev}) + "\n"
                           for ev in detail["events"])
            return PlainTextResponse(text, headers={
                "content-disposition": f"attachment; filename={name}.jsonl"})
        if fmt == "record":
            return PlainTextResponse(_record(detail), headers={
                "content-disposition": f"attachment; filename={name}.txt"})
        return PlainTextResponse(f"unknown format {fmt!r}; use jsonl or record", status_code=400)

    async def ws(self, websocket: WebSocket) -> None:
        if not _origin_ok(websocket):
            await websocket.close(code=4403)
            return
        await websocket.accept()
        queue: asyncio.Queue[str] = asyncio.Queue(QUEUE_SIZE)
        self.hub.queues.add(queue)
        # Listen for the client too: a spectator who left must free its task at once
        # (a server shutting down waits for every connection's task).
        closed = asyncio.create_task(_until_closed(websocket))
        try:
            while not closed.done():
                getter = asyncio.create_task(queue.get())
                await asyncio.wait({getter, closed}, return_when=asyncio.FIRST_COMPLETED)
                if not getter.done():
                    getter.cancel()
                    break
                await websocket.send_text(getter.result())
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            closed.cancel()
            self.hub.queues.discard(queue)

    def _admin_login(self, request: Request) -> str | None:
        """The admin's connection string from HTTP Basic credentials (checked later by
        PostgreSQL itself), or None when none were sent."""
        auth = request.headers.get("authorization", "")
        if not auth.lower().startswith("basic "):
            return None
        try:
            user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return None
        return with_login(self.url, user, password) if user and password else None

    async def admin(self, request: Request) -> Response:
        if request.method == "POST" and not _origin_ok(request):
            return PlainTextResponse("refused: this form must be sent from the club page "
                                     "itself (Origin mismatch)", status_code=403)
        url = self._admin_login(request)
        challenge = {"www-authenticate": 'Basic realm="Meridian club admin", charset="UTF-8"'}
        if url is None:
            return PlainTextResponse("the admin view needs the club's admin login (the "
                                     "user and password `club init` printed)",
                                     status_code=401, headers=challenge)
        message = ""
        form = None
        if request.method == "POST":
            # A plain urlencoded form: parsed here, no multipart library needed.
            body = (await request.body())[:10_000].decode("utf-8", "replace")
            form = {k: v[0] for k, v in parse_qs(body).items()}

        def act() -> tuple[list[Any], str]:
            with ClubAdmin(url) as admin:
                if not admin.conn.execute("SELECT pg_has_role(current_user, %s, 'USAGE')",
                                          (admin.roles.admin,)).fetchone() == (True,):
                    raise PermissionError("this login is not the club's admin")
                said = ""
                if form is not None:
                    action, name = str(form.get("action", "")), str(form.get("name", ""))
                    if action == "add":
                        said = f"Table {name} added. Its connection string: {admin.add_table(name)}"
                    elif action == "remove":
                        admin.remove_table(name)
                        said = f"Table {name} revoked."
                    elif action == "invite":
                        said = _invite(url, form)
                    elif action == "rename":
                        new = str(form.get("new", ""))
                        admin.rename_table(name, new)
                        said = f"Table {name} is now {new}."
                return admin.tables(), said

        try:
            rows, message = await anyio.to_thread.run_sync(act)
        except PermissionError as exc:
            return PlainTextResponse(str(exc), status_code=403)
        except ClubError as exc:
            if "cannot connect" in str(exc):
                return PlainTextResponse("wrong admin login", status_code=401, headers=challenge)
            rows, message = [], str(exc)
        listing = "".join(
            f"<tr><td>{e(t.name)}</td><td>{e(t.role)}</td>"
            f"<td>{'revoked' if t.revoked else 'active'}</td><td>"
            + ("" if t.revoked else
               "<form method='post'><input type='hidden' name='action' value='remove'>"
               f"<input type='hidden' name='name' value='{e(t.name)}'>"
               f"<button>Revoke {e(t.name)}</button></form>"
               "<form method='post'><input type='hidden' name='action' value='rename'>"
               f"<input type='hidden' name='name' value='{e(t.name)}'>"
               f"<label>New name <input name='new' required></label>"
               "<button>Rename</button></form>")
            + "</td></tr>" for t in rows)
        body = (f"<p role='status'>{e(message)}</p>" if message else "") + (
            "<form method='post'><input type='hidden' name='action' value='add'>"
            "<label>New table <input name='name' required pattern='[a-z][a-z0-9_\\-]{0,39}'>"
            "</label> <button>Add table</button></form>"
            "<table><thead><tr><th>table</th><th>role</th><th>state</th><th></th></tr></thead>"
            f"<tbody>{listing}</tbody></table>"
            "<h2>Invite tables to a remote game</h2>"
            "<form method='post'><input type='hidden' name='action' value='invite'>"
            "<p><label>Game id <input name='id' required placeholder='duel1'></label></p>"
            f"<p><label>Game <select name='game'>{_game_options()}</select></label></p>"
            "<p><label>Players, in seat order <input name='players' required "
            "placeholder='Ann,Bob'></label></p>"
            "<p><label>Their tables, in seat order <input name='tables' required "
            "placeholder='north,south'></label></p>"
            "<p><label>Options <input name='options' placeholder='size=5'></label></p>"
            "<button>Invite</button></form>")
        return _page("Admin", body, False)


def _game_options() -> str:
    from meridian_table.games import registry

    return "".join(f"<option value='{e(g)}'>{e(spec.title)}</option>"
                   for g, spec in registry.specs().items())


def _invite(url: str, form: dict[str, str]) -> str:
    """The admin form's invitation: a remote game, and what each table runs."""
    from meridian_table.club.remote import invite
    from meridian_table.games import registry
    from meridian_table.games.contract import OptionError, parse_options

    try:
        spec = registry.spec(form.get("game", ""))
        given: dict[str, object] = {}
        for item in form.get("options", "").replace(",", " ").split():
            name, _, value = item.partition("=")
            given[name] = value
        players = [p.strip() for p in form.get("players", "").split(",") if p.strip()]
        if any(o.name == "players" and o.kind == "engine" for o in spec.options):
            given.setdefault("players", len(players))
        parsed, _ = parse_options(spec.options, given, spec.id)
        engine = {o.name for o in spec.options if o.kind == "engine"}
        made = invite(url, form.get("id", ""), spec.id,
                      {k: v for k, v in parsed.items() if k in engine}, players,
                      [t.strip() for t in form.get("tables", "").split(",") if t.strip()])
    except (OptionError, ValueError) as exc:
        raise ClubError(str(exc)) from None
    seats = "; ".join(f"{made.players[int(n) - 1]} at {t}" for n, t in made.seats.items())
    return (f"Remote game {made.id} made ({seats}). At each table: meridian-table play "
            f"{made.game} --remote {made.id}")


def _record(detail: dict[str, Any]) -> str:
    from meridian_table.games import registry

    spec = registry.spec(str(detail["game"]))
    engine = spec.new_game(dict(detail["options"]), None)
    for move in detail["moves"]:
        engine.play(str(move["notation"]))
    headers = {"Date": str(detail["started"])[:10], "Players": ", ".join(detail["players"])}
    headers.update({f"Player{i}": str(p) for i, p in enumerate(detail["players"], 1)})
    return spec.records.export(engine, headers)


async def _database_down(request: Request, exc: Exception) -> Response:
    """The club's server restarting or out of reach: a clear 503, never a 500."""
    LOGGER.warning("club page: the database is not reachable (%s)", exc)
    return PlainTextResponse("The club's database is not reachable right now (restarting, or "
                             "the network is down). The tables keep playing and nothing is "
                             "lost; reload this page in a moment.", status_code=503,
                             headers={"retry-after": "5"})


def create_club_app(url: str, *, bind_host: str = "127.0.0.1",
                    allowed_hosts: Iterable[str] | None = None) -> Starlette:
    """The club page for the page role's connection string ``url``."""
    page = ClubPage(url)
    hosts = list(allowed_hosts) if allowed_hosts is not None else (
        list(LOOPBACK_HOSTS) if is_loopback(bind_host) else ["*"])
    app = Starlette(
        routes=[
            Route("/", page.home), Route("/games", page.games),
            Route("/standings", page.standings), Route("/player/{name:path}", page.player),
            Route("/game/{table}/{game}", page.game),
            Route("/game/{table}/{game}/export", page.export),
            Route("/admin", page.admin, methods=["GET", "POST"]),
            WebSocketRoute("/ws", page.ws),
        ],
        middleware=[Middleware(HostGuard, allowed_hosts=hosts)],
        exception_handlers={psycopg.OperationalError: _database_down,
                            PoolTimeout: _database_down},
        lifespan=page.lifespan,
    )
    app.state.page = page
    return app


class ClubServer:
    """The club page on a background uvicorn thread (``url``; ``close()``)."""

    def __init__(self, db: str, host: str = "127.0.0.1", port: int = 0) -> None:
        with connect(db) as conn:
            require_current(conn)
        self._sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        if sys.platform == "win32":
            # Windows' SO_REUSEADDR would let a second server take this port as well.
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
        else:
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._sock.bind((host, port))
        except OSError as exc:
            self._sock.close()
            raise ClubError(f"cannot serve the club page on {host}:{port} ({exc.strerror}); "
                            "choose another --port, or 0 for any free one") from None
        self.port: int = self._sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.port}/"
        app = create_club_app(db, bind_host=host)
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                                     lifespan="on", timeout_graceful_shutdown=2))
        self._thread = threading.Thread(target=self._server.run,
                                        kwargs={"sockets": [self._sock]}, daemon=True)

    def start(self) -> ClubServer:
        self._thread.start()
        pause = threading.Event()
        for _ in range(1000):
            if self._server.started or not self._thread.is_alive():
                break
            pause.wait(0.01)
        if not self._server.started:
            self.close()
            raise ClubError("the club page did not start; see the log above")
        return self

    def wait(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def close(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(5)
        self._sock.close()

    def __enter__(self) -> ClubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve_club(db: str | None, host: str, port: int, echo: Callable[[str], None]) -> None:
    """``club serve``: the page until Ctrl-C (a private cluster when ``db`` is None)."""
    cluster = None
    if db is None:
        from meridian_table.club.private import private_club

        cluster, db, admin = private_club(echo)
        if admin:
            echo(f"admin login (add tables here or on the page's Admin view): {admin}")
    try:
        with ClubServer(db, host, port) as server:
            echo(f"club database: {redact(db)}")
            echo(f"Club page: {server.url}")
            echo("Press Ctrl-C to stop.")
            try:
                while not server.wait(0.5):
                    pass
            except KeyboardInterrupt:
                echo("stopping")
    finally:
        if cluster is not None:
            cluster.stop()
