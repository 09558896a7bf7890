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
import math
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import anyio
import psycopg
import uvicorn
from psycopg import sql
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from meridian_table.club import queries
from meridian_table.club.admin import INVITE_DAYS, ClubAdmin, connect, redact, with_login
from meridian_table.club.errors import ClubError
from meridian_table.club.schema import NOTIFY_SECRET, require_current
from meridian_table.games.registry import UnknownGameError
from meridian_table.web.app import LOOPBACK_HOSTS, HostGuard, is_loopback

LOGGER = logging.getLogger(__name__)

QUEUE_SIZE = 1000       # events a spectator may lag behind before it is told to refetch
LISTEN_RETRY_S = 0.3
# The page's own connections: opened at start and kept (min = max), so tables that fill
# the server cannot take them; each is checked before use, and all are renewed as soon
# as the server is back.
PAGE_POOL = 4
e = html.escape


RESYNC = json.dumps({"type": "resync"})


class Spectator:
    """What waits for one spectator's socket: chunks of messages (each chunk is one or
    more JSON objects joined by commas, shared by every spectator), and a wake-up."""

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.waiting = 0            # messages in the chunks
        self.wake = asyncio.Event()
        self.closed = False

    def take(self) -> str | None:
        """Everything waiting as one frame: a JSON object, or a list of them; None when
        nothing waits."""
        chunks, waiting = self.chunks, self.waiting
        if not chunks:
            return None
        self.chunks, self.waiting = [], 0
        if waiting == 1:
            return chunks[0]
        return "[" + ",".join(chunks) + "]"


class Hub:
    """Fans each batch of messages out to every connected spectator. A batch is
    serialised once and shared; each spectator's socket sends whatever waits for it in
    one frame, so a spectator that falls behind costs one send, not one per event."""

    def __init__(self) -> None:
        self.spectators: set[Spectator] = set()
        self.connected = False
        self.listening = False      # the LISTEN connection is up: events reach spectators

    def publish(self, message: str) -> None:
        """One message (a JSON object's text)."""
        self.publish_chunk(message, 1)

    def publish_many(self, messages: list[dict[str, Any]]) -> None:
        """A batch of messages, serialised once for everyone."""
        if messages:
            self.publish_chunk(",".join(json.dumps(m) for m in messages), len(messages))

    def publish_chunk(self, chunk: str, count: int) -> None:
        for spectator in self.spectators:
            if spectator.waiting + count > QUEUE_SIZE:
                # A slow phone: drop its backlog, tell it to refetch.
                spectator.chunks, spectator.waiting = [RESYNC], 1
            else:
                spectator.chunks.append(chunk)
                spectator.waiting += count
            spectator.wake.set()


def event_note(payload: str) -> dict[str, Any] | None:
    """The club trigger's notification as a message for the spectators, or None (logged)
    for anything else: nothing a login sends on the channel can stop the live page."""
    try:
        note = json.loads(payload)
    except ValueError:
        note = None
    if (not isinstance(note, dict) or not isinstance(note.get("table"), str)
            or not all(isinstance(note.get(k), int) and not isinstance(note.get(k), bool)
                       for k in ("game", "seq"))
            or not isinstance(note.get("kind"), str) or not isinstance(note.get("at"), str)):
        LOGGER.warning("club page: skipped a notification that is not the club's own "
                       "(payload %r)", payload[:200])
        return None
    return {"type": "event", "table": note["table"], "game": note["game"],
            "seq": note["seq"], "kind": note["kind"], "at": note["at"]}


async def _listen(url: str, hub: Hub,
                  on_connected: Callable[[], Awaitable[None]] | None = None,
                  sink: Callable[[dict[str, Any]], None] | None = None) -> None:
    """LISTEN forever, reconnecting after a server restart (then: resync everyone, and
    ``on_connected`` renews the page's pool at once). It retries every LISTEN_RETRY_S,
    so the page is back within a moment of the server."""
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(
                    url, autocommit=True, connect_timeout=3) as conn:
                row = await (await conn.execute(
                    "SELECT value FROM club.secrets WHERE key = %s", (NOTIFY_SECRET,))
                ).fetchone()
                if row is None:
                    raise psycopg.OperationalError("the club has no notification channel; "
                                                   "run `club init` to migrate it")
                await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(str(row[0]))))
                hub.listening = True
                if not hub.connected and on_connected is not None:
                    await on_connected()    # the pool renewed before the page uses it
                hub.connected = True
                hub.publish(RESYNC)
                async for note in conn.notifies():
                    message = event_note(note.payload)
                    if message is not None and sink is not None:
                        sink(message)     # details added, in order, by the page
                    elif message is not None:
                        hub.publish(json.dumps(message))
        except asyncio.CancelledError:
            raise
        except (psycopg.Error, OSError) as exc:
            if hub.connected:
                LOGGER.warning("club page lost its LISTEN connection (%s); retrying", exc)
            hub.connected = hub.listening = False
        await asyncio.sleep(LISTEN_RETRY_S)


async def _until_closed(websocket: WebSocket, spectator: Spectator) -> None:
    """Mark the spectator closed (and wake its sender) when it closes the socket
    (anything it sends is ignored)."""
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
    finally:
        spectator.closed = True
        spectator.wake.set()


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
  // Deltas: each event comes with what changed (moves, whose turn, the board); the page
  // applies it. Only what a delta cannot carry (a result, a new game, a resync after a
  // lost connection) refetches this page's part, once.
  var part = document.getElementById('live'); if(!part) return;
  var want = part.dataset.game || ''; var timer = null; var delay = 500;
  function refresh(){ timer = null;
    fetch(location.pathname + location.search + (location.search ? '&' : '?') + 'part=1')
      .then(function(r){ return r.text(); })
      .then(function(t){ part.innerHTML = t; document.body.dataset.updated = Date.now(); });
  }
  function later(){ if (!timer) timer = setTimeout(refresh, 50); }
  function text(el, value){ if (el && value !== undefined && value !== null) el.textContent = value; }
  function home(d){
    var card = part.querySelector('[data-table="' + CSS.escape(d.table) + '"]');
    if (!card || card.dataset.game != String(d.game) || d.kind == 'result') { later(); return; }
    text(card.querySelector('.moves'), d.moves);
    text(card.querySelector('.turn'), d.to_move ? d.to_move + ' to play' : 'in play');
    document.body.dataset.updated = Date.now();
  }
  function game(d){
    var ply = document.getElementById('ply'), total = document.getElementById('total');
    var atLatest = ply && total && ply.textContent == total.textContent && !/[?&]ply=/.test(location.search);
    if (!atLatest || (d.kind != 'action' && d.kind != 'undo')) { if (d.kind == 'result' || d.kind == 'action' || d.kind == 'undo') later(); return; }
    var list = document.getElementById('moves');
    if (d.kind == 'action') { var li = document.createElement('li');
      li.textContent = (d.player || '') + ': ' + d.notation; list.appendChild(li); }
    else if (list.lastElementChild) list.removeChild(list.lastElementChild);
    text(ply, d.moves); text(total, d.moves);
    text(document.getElementById('state'), d.to_move ? d.to_move + ' to play' : 'In play');
    text(document.getElementById('board'), d.diagram);
    document.body.dataset.updated = Date.now();
  }
  function open(){
    var ws = new WebSocket((location.protocol == 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
    ws.onopen = function(){ delay = 500; document.body.dataset.live = 'yes'; };
    function handle(d){
      if (d.type != 'event') { later(); return; }
      if (want) { if (want == d.table + '/' + d.game) game(d); return; }
      if (part.querySelector('.grid') || part.querySelector('[data-table]')) { home(d); return; }
      if (d.kind == 'result') later(); }
    ws.onmessage = function(m){ var d = JSON.parse(m.data);
      (Array.isArray(d) ? d : [d]).forEach(handle); };
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
                      f"<p><span class='moves'>{game['moves']}</span> moves · "
                      f"<span class='turn'>{turn}</span></p>"
                      f"<p>{_game_link(row['name'], game['id'], 'Watch this game')}</p>")
        number = game["id"] if game is not None else ""
        cards.append(f"<section class='card' aria-label='table {e(row['name'])}' "
                     f"data-table='{e(row['name'])}' data-game='{number}'>"
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
    if detail.get("withdrawn"):
        error += ("<p role='note'>Withdrawn by the organiser (not in the standings): "
                  f"{e(detail['withdrawn'])}</p>")
    return (f"<p>{e(str(detail['game']))} at table {e(table)}: {_players(detail['players'])}</p>"
            f"<p id='state'>{state}</p><p>Move <span id='ply'>{ply}</span> of "
            f"<span id='total'>{total}</span> · {steps}</p>{error}"
            f"<pre id='board' aria-label='the board'>{e(detail['diagram'])}</pre>"
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
        self.logins = LoginGuard()
        self.positions = queries.Positions()
        self.pool = AsyncConnectionPool(url, min_size=PAGE_POOL, max_size=PAGE_POOL,
                                        open=False, timeout=5, check=self._check,
                                        kwargs={"autocommit": True, "connect_timeout": 3})

    async def _check(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Check a connection before it is used only while the server is in doubt: while
        the LISTEN connection holds, a server that went away would have broken it (and
        the whole pool is renewed before the page uses it again), so a request costs no
        extra round trip."""
        if not self.hub.connected:
            await AsyncConnectionPool.check_connection(conn)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        await self.pool.open()
        self.hub.connected = True   # the pool just opened: nothing to renew at first
        incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        tasks = [asyncio.create_task(_listen(self.url, self.hub, self.pool.check,
                                             incoming.put_nowait)),
                 asyncio.create_task(self._details(incoming))]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await self.pool.close()

    async def _details(self, incoming: asyncio.Queue[dict[str, Any]]) -> None:
        """Give each event its details and fan it out, in order: whatever arrived
        meanwhile is read in one query, so a busy club costs a query per batch."""
        while True:
            batch = [await incoming.get()]
            while not incoming.empty() and len(batch) < 500:
                batch.append(incoming.get_nowait())
            try:
                messages = await self.deltas(batch)
            except Exception:   # never let one odd batch end the live page
                LOGGER.exception("club page: could not detail %d events; sent as they came",
                                 len(batch))
                messages = batch
            self.hub.publish_many(messages)

    async def deltas(self, notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The events as the spectators get them: what changed (the move, the count,
        whose turn, the board), read once for all of them. A note that names no event
        the club holds is dropped."""
        try:
            async with self.pool.connection() as conn:
                rows = await (await conn.execute(
                    "SELECT e.table_name, e.game_id, e.seq, e.payload, g.game, g.players, "
                    "g.options, s.game_id, s.moves, s.finished "
                    "FROM unnest(%s::text[], %s::bigint[], %s::integer[]) AS n(t, g, q) "
                    "JOIN club.events e ON e.table_name = n.t AND e.game_id = n.g "
                    "AND e.seq = n.q JOIN club.games g ON g.table_name = e.table_name "
                    "AND g.game_id = e.game_id "
                    "LEFT JOIN club.summary s ON s.table_name = e.table_name",
                    ([n["table"] for n in notes], [n["game"] for n in notes],
                     [n["seq"] for n in notes]))).fetchall()
                found = {(str(r[0]), int(r[1]), int(r[2])): r for r in rows}
                # Every game's position read at once (the new moves of all of them in one
                # query); each covers at least its last event here, so the home page then
                # asks nothing of the database for it until another comes.
                wanted: dict[tuple[str, int], tuple[str, int, str, dict[str, Any], int]] = {}
                for note in notes:
                    row = found.get((note["table"], note["game"], note["seq"]))
                    if row is None or row[7] != note["game"] or row[9]:
                        continue      # not the table's latest game, or finished
                    key = (note["table"], note["game"])
                    seq = max(note["seq"], wanted[key][4]) if key in wanted else note["seq"]
                    wanted[key] = (key[0], key[1], str(row[4]), queries.mapping(row[6]), seq)
                shown = await self.positions.many(conn, list(wanted.values()))
                out = []
                for note in notes:
                    row = found.get((note["table"], note["game"], note["seq"]))
                    if row is None:
                        LOGGER.warning("club page: a notification names no event of the "
                                       "club (%r); skipped", note)
                        continue
                    _, _, _, payload, game, players, options, latest, moves, finished = row
                    if note["kind"] == "action" and isinstance(payload, dict):
                        note["notation"] = str(payload.get("notation", ""))
                        note["player"] = payload.get("player") if isinstance(
                            payload.get("player"), str) else None
                    if latest == note["game"]:
                        note["moves"], note["finished"] = moves, finished
                        key = (note["table"], note["game"])
                        if key in shown:
                            seat, diagram = shown[key]
                            seats = queries.names(players)
                            note["to_move"] = (seats[seat] if seat is not None
                                               and 0 <= seat < len(seats) else None)
                            note["diagram"] = diagram
                    out.append(note)
                return out
        except (psycopg.Error, PoolTimeout) as exc:
            LOGGER.info("club page: sent events without their details (%s)", exc)
            return notes

    async def _read(self, fn: Callable[..., Any], *args: Any) -> Any:
        if not self.hub.connected:
            # The server is away (the LISTEN connection says so): answer 503 at once
            # rather than wear out the pool's connections against it.
            raise psycopg.OperationalError("the club's database is not reachable")
        async with self.pool.connection() as conn:
            return await fn(conn, *args)

    async def home(self, request: Request) -> Response:
        rows = await self._read(queries.tables, self.positions)
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
            try:
                record = _record(detail)
            except (UnknownGameError, ValueError, KeyError, TypeError, AttributeError) as exc:
                return PlainTextResponse(
                    f"game {args[1]} of table {args[0]!r} cannot be written as a game record "
                    f"({exc}); its events (format=jsonl) hold everything the club has",
                    status_code=422)
            return PlainTextResponse(record, headers={
                "content-disposition": f"attachment; filename={name}.txt"})
        return PlainTextResponse(f"unknown format {fmt!r}; use jsonl or record", status_code=400)

    async def ws(self, websocket: WebSocket) -> None:
        if not _origin_ok(websocket):
            await websocket.close(code=4403)
            return
        spectator = Spectator()
        self.hub.spectators.add(spectator)   # before the handshake ends: no event falls between
        try:
            await websocket.accept()
        except BaseException:
            self.hub.spectators.discard(spectator)
            raise
        # Listen for the client too: a spectator who left must free its task at once
        # (a server shutting down waits for every connection's task).
        closed = asyncio.create_task(_until_closed(websocket, spectator))
        try:
            while True:
                await spectator.wake.wait()
                spectator.wake.clear()
                if spectator.closed:
                    break
                frame = spectator.take()
                if frame is not None:
                    await websocket.send_text(frame)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            closed.cancel()
            self.hub.spectators.discard(spectator)

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
        """The admin view; whatever it answers is never cached nor framed (it may show a
        new table's password)."""
        response = await self._admin(request)
        response.headers.update(ADMIN_HEADERS)
        return response

    async def _admin(self, request: Request) -> Response:
        if request.method == "POST" and not _origin_ok(request):
            return PlainTextResponse("refused: this form must be sent from the club page "
                                     "itself (Origin mismatch)", status_code=403)
        client = request.client.host if request.client else ""
        wait = self.logins.wait_s(client)
        if wait:
            return PlainTextResponse(
                f"too many wrong admin logins from this address; try again in {wait} s",
                status_code=429, headers={"retry-after": str(wait)})
        url = self._admin_login(request)
        challenge = {"www-authenticate": 'Basic realm="Meridian club admin", charset="UTF-8"'}
        if url is None:
            return PlainTextResponse("the admin view needs the club's admin login (the "
                                     "user and password `club init` printed)",
                                     status_code=401, headers=challenge)
        if request.method == "POST":
            declared = request.headers.get("content-length")
            if declared is not None and (not declared.isdigit() or int(declared) > MAX_FORM):
                return _too_large()
        # The login is checked by PostgreSQL before a byte of the form is read.
        try:
            admin = await anyio.to_thread.run_sync(_open_admin, url)
        except PermissionError as exc:
            self.logins.failed(client)
            return PlainTextResponse(str(exc), status_code=403)
        except ClubError as exc:
            if "cannot connect" in str(exc):
                self.logins.failed(client)
                return PlainTextResponse("wrong admin login", status_code=401, headers=challenge)
            return PlainTextResponse(str(exc), status_code=503)
        self.logins.succeeded(client)
        try:
            form = None
            if request.method == "POST":
                sent = await _read_capped(request, MAX_FORM)
                if sent is None:
                    return _too_large()
                # A plain urlencoded form: parsed here, no multipart library needed.
                form = {k: v[0] for k, v in parse_qs(sent.decode("utf-8", "replace")).items()}

            def act() -> tuple[list[Any], str]:
                said = ""
                if form is not None:
                    action, name = str(form.get("action", "")), str(form.get("name", ""))
                    if action == "add":
                        said = _added(admin, name, str(form.get("address", "")).strip())
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
            except ClubError as exc:
                rows, message = await anyio.to_thread.run_sync(admin.tables), str(exc)
        finally:
            await anyio.to_thread.run_sync(admin.close)
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
            "</label> <label>The club's address for the tables (optional) <input "
            "name='address' placeholder='club.example.org'></label> "
            "<button>Add table</button></form>"
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


MAX_FORM = 16_384       # the admin's forms are a few hundred bytes
ADMIN_HEADERS = {"cache-control": "no-store", "x-frame-options": "DENY",
                 "content-security-policy": "frame-ancestors 'none'",
                 "referrer-policy": "no-referrer"}


def _too_large() -> Response:
    return PlainTextResponse(f"refused: the admin's forms are at most {MAX_FORM} bytes",
                             status_code=413, headers={"connection": "close"})


async def _read_capped(request: Request, limit: int) -> bytes | None:
    """The request's body, or None as soon as it passes ``limit`` bytes (the rest is
    never read)."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def _open_admin(url: str) -> ClubAdmin:
    """The admin's own connection, refused (PermissionError) for another login."""
    admin = ClubAdmin(url)
    if admin.conn.execute("SELECT pg_has_role(current_user, %s, 'USAGE')",
                          (admin.roles.admin,)).fetchone() != (True,):
        admin.close()
        raise PermissionError("this login is not the club's admin")
    return admin


class LoginGuard:
    """Wrong admin logins per client address: after ``limit`` within ``window_s``, that
    address waits out the window (PostgreSQL checks each password; this stops guessing)."""

    def __init__(self, limit: int = 5, window_s: float = 60.0) -> None:
        self.limit = limit
        self.window_s = window_s
        self._failures: dict[str, list[float]] = {}

    def _recent(self, client: str) -> list[float]:
        now = time.monotonic()
        kept = [t for t in self._failures.get(client, []) if now - t < self.window_s]
        if kept:
            self._failures[client] = kept
        else:
            self._failures.pop(client, None)
        return kept

    def wait_s(self, client: str) -> int:
        recent = self._recent(client)
        if len(recent) < self.limit:
            return 0
        return max(1, math.ceil(self.window_s - (time.monotonic() - recent[-self.limit])))

    def failed(self, client: str) -> None:
        self._recent(client)
        self._failures.setdefault(client, []).append(time.monotonic())
        if len(self._failures) > 10_000:   # a flood of addresses: forget the oldest
            self._failures.pop(next(iter(self._failures)))

    def succeeded(self, client: str) -> None:
        self._failures.pop(client, None)


def _added(admin: ClubAdmin, name: str, address: str) -> str:
    """Add table ``name`` from the admin view. The view shows no password: the table's
    login with its password masked, and a one-time invitation code (valid for a few
    days, worthless once used) that ``club join`` turns into a password only the table
    knows."""
    code = admin.invite_table(name, address or None)
    login = redact(with_login(admin.url, admin.roles.table(name), "hidden"))
    return (f"Table {name} added; its login is {login} (its password is never shown "
            f"here). At the table, run: meridian-table club join {code} (this code works "
            f"once, within {INVITE_DAYS} days; the table then makes a password only it "
            "knows).")


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


async def _unreadable_address(request: Request, exc: Exception) -> Response:
    """An address PostgreSQL cannot look up (a NUL byte in a name, say): a 404 that says
    so, never a 500."""
    LOGGER.info("club page: %r cannot be looked up (%s)", request.url.path, exc)
    return PlainTextResponse("No such page in the club: this address holds characters no "
                             "table, game or player name has. The tables page links to "
                             "every game.", status_code=404)


async def _database_down(request: Request, exc: Exception) -> Response:
    """The club's server restarting or out of reach: a clear 503, never a 500."""
    LOGGER.warning("club page: the database is not reachable (%s)", exc)
    return PlainTextResponse("The club's database is not reachable right now (restarting, or "
                             "the network is down). The tables keep playing and nothing is "
                             "lost; reload this page in a moment.", status_code=503,
                             headers={"retry-after": "5"})


def machine_hosts(bind_host: str) -> list[str]:
    """The names a spectator may reach this page by: loopback always; when it listens
    beyond loopback, this machine's names and addresses too (and the bound address).
    Any other Host header is refused (another name: ``club serve --allowed-host``)."""
    hosts = list(LOOPBACK_HOSTS)
    if is_loopback(bind_host):
        return hosts
    import psutil

    name = socket.gethostname()
    hosts += [name, f"{name}.local", socket.getfqdn()]
    if bind_host not in ("0.0.0.0", "::", ""):
        hosts.append(bind_host)
    for addresses in psutil.net_if_addrs().values():
        for address in addresses:
            if address.family in (socket.AF_INET, socket.AF_INET6):
                hosts.append(address.address.split("%")[0])
    return hosts


def create_club_app(url: str, *, bind_host: str = "127.0.0.1",
                    allowed_hosts: Iterable[str] | None = None) -> Starlette:
    """The club page for the page role's connection string ``url``."""
    page = ClubPage(url)
    hosts = [*machine_hosts(bind_host), *(allowed_hosts or ())]
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
                            psycopg.DataError: _unreadable_address,
                            PoolTimeout: _database_down},
        lifespan=page.lifespan,
    )
    app.state.page = page
    return app


class ClubServer:
    """The club page on a background uvicorn thread (``url``; ``close()``)."""

    def __init__(self, db: str, host: str = "127.0.0.1", port: int = 0, *,
                 allowed_hosts: Iterable[str] = (),
                 tls: tuple[Path, Path] | None = None) -> None:
        with connect(db) as conn:
            require_current(conn)
        # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY only on sockets whose proto
        # says TCP, and without it every response's body and every pushed frame waits
        # for the spectator's delayed ACK (40 ms on Linux) behind the frame before it.
        self._sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET,
                                   socket.SOCK_STREAM, socket.IPPROTO_TCP)
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
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://{shown}:{self.port}/"
        app = create_club_app(db, bind_host=host, allowed_hosts=allowed_hosts)
        self._app = app
        certs: dict[str, Any] = {}
        if tls is not None:   # the page, the admin's password and the spectators over TLS
            certs = {"ssl_certfile": str(tls[0]), "ssl_keyfile": str(tls[1])}
        # No per-message compression: each socket would compress every frame anew (the
        # frames are small JSON), and that was a fifth of the page's work with 200 spectators.
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                                     lifespan="on", timeout_graceful_shutdown=2,
                                                     ws_per_message_deflate=False, **certs))
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

    def wait_live(self, timeout: float) -> bool:
        """Wait until the page listens to the club (events reach the spectators)."""
        page: ClubPage = self._app.state.page
        deadline = time.monotonic() + timeout
        while not page.hub.listening:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def close(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(5)
        self._sock.close()

    def __enter__(self) -> ClubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve_club(db: str | None, host: str, port: int, echo: Callable[[str], None], *,
               allowed_hosts: Iterable[str] = (), pg_dir: Path | None = None,
               pg_port: int | None = None, tls: tuple[Path, Path] | None = None) -> None:
    """``club serve``: the page until Ctrl-C (a private cluster when ``db`` is None, in
    ``pg_dir`` on ``pg_port`` when given). The private PostgreSQL keeps running when the
    page stops: the tables go on replicating to it (``club stop`` stops it)."""
    if db is None:
        from meridian_table.club.private import private_club

        cluster, db, admin = private_club(echo, pg_dir, port=pg_port)
        if admin:
            echo(f"admin login (add tables here or on the page's Admin view): {admin}")
        echo(f"the club's PostgreSQL listens on 127.0.0.1:{cluster.port} (data in "
             f"{cluster.datadir}); it keeps running after the page stops: `meridian-table "
             "club stop` stops it")
    with ClubServer(db, host, port, allowed_hosts=allowed_hosts, tls=tls) as server:
        echo(f"club database: {redact(db)}")
        echo(f"Club page: {server.url}")
        echo("Press Ctrl-C to stop.")
        try:
            while not server.wait(0.5):
                pass
        except KeyboardInterrupt:
            echo("stopping the page")
