"""What the club page reads from PostgreSQL, and the positions it rebuilds from events.

Every function takes an open psycopg async connection from the page's pool (the page
role: read-only) and returns plain dicts and lists, so the HTML and JSON views share them.
A game's position is rebuilt by replaying its standing actions through its rules engine
(from the registry), as the table's own ``replay`` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any

import psycopg

from meridian_table.club.standings import Finished, Standing, rate
from meridian_table.games import registry
from meridian_table.games.contract import Engine
from meridian_table.games.registry import UnknownGameError

LOGGER = logging.getLogger(__name__)

AConn = psycopg.AsyncConnection[tuple[Any, ...]]


def names(value: object) -> list[str]:
    """A JSON list of player names as the page reads it: anything else reads as no names
    (rows written before the club's schema 4 checked their shape)."""
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, str)]


def mapping(value: object) -> dict[str, Any]:
    """A JSON object as the page reads it (anything else reads as empty)."""
    return dict(value) if isinstance(value, dict) else {}


def result_of(payload: object) -> dict[str, Any]:
    """A logged result in the shape the page and the standings read: winners (names),
    scores (objects), reason (text), abandoned (a flag)."""
    given = mapping(payload)
    scores = given.get("scores")
    return {"winners": names(given.get("winners")),
            "scores": [dict(x) for x in scores if isinstance(x, dict)]
            if isinstance(scores, list) else [],
            "reason": given["reason"] if isinstance(given.get("reason"), str) else "",
            "abandoned": given.get("abandoned") is True}


def standing_actions(events: Sequence[tuple[str, object]]) -> list[dict[str, Any]]:
    """The action payloads still standing once undos are applied, in order (an action
    without a notation is skipped: the page cannot show it)."""
    standing: list[dict[str, Any]] = []
    for kind, payload in events:
        if kind == "action":
            if isinstance(payload, dict) and isinstance(payload.get("notation"), str):
                standing.append(payload)
        elif kind == "undo" and standing:
            standing.pop()
    return standing


def position(game: str, options: dict[str, Any], actions: Sequence[str]) -> dict[str, Any]:
    """The board after ``actions``: a text diagram and whose turn, or why there is none."""
    try:
        spec = registry.spec(game)
        engine = spec.new_game(options, None)
        for action in actions:
            engine.play(action)
    except (UnknownGameError, ValueError, KeyError, TypeError, AttributeError,
            IndexError) as exc:
        return {"diagram": "", "to_move": None, "error": f"cannot show this position: {exc}"}
    diagram = spec.text_diagram(engine) if spec.text_diagram is not None else ""
    turn = engine.turn()
    return {"diagram": diagram, "to_move": turn.seat, "error": None}


class Positions:
    """Each table's latest position, kept in the page's process and advanced by the
    moves that arrived since (an undo rebuilds it): the home page never replays a long
    game per request."""

    def __init__(self, limit: int = 512) -> None:
        self.limit = limit
        self._known: dict[tuple[str, int], tuple[Engine | None, int, str | None]] = {}
        self._answers: dict[tuple[str, int], tuple[int, int | None, str]] = {}
        # One reader at a time per game: two requests advancing the same engine at once
        # would both play the new moves on it (the second time as illegal moves).
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}

    async def to_move(self, conn: AConn, table: str, game_id: int, game: str,
                      options: dict[str, Any], last_seq: int | None = None) -> int | None:
        """The seat to move in the table's game now, or None (over, or unreadable).
        ``last_seq`` (the summary's): when nothing came since, no query at all."""
        return (await self.position(conn, table, game_id, game, options, last_seq))[0]

    async def position(self, conn: AConn, table: str, game_id: int, game: str,
                       options: dict[str, Any],
                       last_seq: int | None = None) -> tuple[int | None, str]:
        """The seat to move and the board's text diagram now ((None, "") when the game
        cannot be shown)."""
        key = (table, game_id)
        answer = self._answers.get(key)
        if answer is not None and last_seq is not None and last_seq <= answer[0]:
            return answer[1], answer[2]
        async with self._lock(key):
            answer = self._answers.get(key)   # another request may have just read it
            if answer is not None and last_seq is not None and last_seq <= answer[0]:
                return answer[1], answer[2]
            found = await self._position(conn, table, game_id, game, options)
            if last_seq is not None and (answer is None or last_seq > answer[0]):
                self._answers[key] = (last_seq, *found)
                while len(self._answers) > self.limit:
                    self._answers.pop(next(iter(self._answers)))
        return found

    async def many(self, conn: AConn, wanted: Sequence[tuple[str, int, str, dict[str, Any], int]]
                   ) -> dict[tuple[str, int], tuple[int | None, str]]:
        """The positions of several games (table, game id, game, options, last seq), the
        new moves of all of them read in one query (a batch of live events touches many
        tables: one round trip, not one per table)."""
        out: dict[tuple[str, int], tuple[int | None, str]] = {}
        todo: dict[tuple[str, int], tuple[str, dict[str, Any], int]] = {}
        for table, game_id, game, options, last_seq in wanted:
            key = (table, game_id)
            answer = self._answers.get(key)
            if answer is not None and last_seq <= answer[0]:
                out[key] = (answer[1], answer[2])
            else:
                seq = max(last_seq, todo[key][2]) if key in todo else last_seq
                todo[key] = (game, options, seq)
        if not todo:
            return out
        async with contextlib.AsyncExitStack() as held:
            for key in sorted(todo):   # always in one order: no two batches wait on each other
                await held.enter_async_context(self._lock(key))
            reading = []
            for key in list(todo):
                answer = self._answers.get(key)
                if answer is not None and todo[key][2] <= answer[0]:
                    out[key] = (answer[1], answer[2])
                    del todo[key]
                    continue
                engine, seen, error = self._known.get(key, (None, 0, None))
                reading.append((key, seen))
            rows: dict[tuple[str, int], list[tuple[Any, ...]]] = {key: [] for key, _ in reading}
            if reading:
                for table, game_id, seq, kind, payload in await (await conn.execute(
                        "SELECT e.table_name, e.game_id, e.seq, e.kind, e.payload "
                        "FROM unnest(%s::text[], %s::bigint[], %s::integer[]) AS n(t, g, s) "
                        "JOIN club.events e ON e.table_name = n.t AND e.game_id = n.g "
                        "AND e.seq > n.s WHERE e.kind IN ('action', 'undo') "
                        "ORDER BY e.table_name, e.game_id, e.seq",
                        ([k[0] for k, _ in reading], [k[1] for k, _ in reading],
                         [seen for _, seen in reading]))).fetchall():
                    rows[(str(table), int(game_id))].append((seq, kind, payload))
            for key, (game, options, last_seq) in todo.items():
                found = await self._apply(conn, key, game, options, rows.get(key, []))
                self._answers[key] = (last_seq, *found)
                out[key] = found
            while len(self._answers) > self.limit:
                self._answers.pop(next(iter(self._answers)))
        return out

    def _lock(self, key: tuple[str, int]) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
            while len(self._locks) > self.limit:
                self._locks.pop(next(iter(self._locks)))
        return lock

    async def _position(self, conn: AConn, table: str, game_id: int, game: str,
                        options: dict[str, Any]) -> tuple[int | None, str]:
        engine, seen, error = self._known.get((table, game_id), (None, 0, None))
        rows = await (await conn.execute(
            "SELECT seq, kind, payload FROM club.events WHERE table_name = %s "
            "AND game_id = %s AND seq > %s AND kind IN ('action', 'undo') ORDER BY seq",
            (table, game_id, seen))).fetchall()
        return await self._apply(conn, (table, game_id), game, options, rows)

    async def _apply(self, conn: AConn, key: tuple[str, int], game: str,
                     options: dict[str, Any], rows: list[tuple[Any, ...]]
                     ) -> tuple[int | None, str]:
        """Advance the game's engine by ``rows`` (seq, kind, payload: its action and undo
        events after what it has seen); an undo replays the game from its start. A game
        that cannot be shown stays so until an undo arrives: the move the rules refused
        may be the one taken back (it was sticky for good before)."""
        table, game_id = key
        engine, seen, error = self._known.get(key, (None, 0, None))
        undone = any(k == "undo" for _, k, _ in rows)
        if error is not None and not undone:
            if rows:
                self._remember(key, (None, int(rows[-1][0]), error))
            return None, ""
        try:
            if engine is None or undone:
                if engine is not None or error is not None:   # replay from the start
                    rows = await (await conn.execute(
                        "SELECT seq, kind, payload FROM club.events WHERE table_name = %s "
                        "AND game_id = %s AND kind IN ('action', 'undo') ORDER BY seq",
                        (table, game_id))).fetchall()
                engine = registry.spec(game).new_game(options, None)
                actions = standing_actions([(str(k), p) for _, k, p in rows])
            else:
                actions = standing_actions([(str(k), p) for _, k, p in rows])
            for action in actions:
                engine.play(str(action["notation"]))
            last = int(rows[-1][0]) if rows else seen
            self._remember((table, game_id), (engine, last, None))
            spec = registry.spec(game)
            diagram = spec.text_diagram(engine) if spec.text_diagram is not None else ""
            return engine.turn().seat, diagram
        except (UnknownGameError, ValueError, KeyError, TypeError, AttributeError,
                IndexError) as exc:
            LOGGER.info("club page: %s game %d cannot be shown: %s", table, game_id, exc)
            last = int(rows[-1][0]) if rows else seen
            self._remember((table, game_id), (None, last, str(exc)))
            return None, ""

    def _remember(self, key: tuple[str, int],
                  value: tuple[Engine | None, int, str | None]) -> None:
        self._known.pop(key, None)
        self._known[key] = value
        while len(self._known) > self.limit:   # the oldest first
            self._known.pop(next(iter(self._known)))


async def tables(conn: AConn, positions: Positions | None = None) -> list[dict[str, Any]]:
    """Every table with its latest game and how far it is (from ``club.summary``)."""
    positions = positions or Positions()
    rows = await (await conn.execute(
        """SELECT t.name, t.revoked IS NOT NULL, s.game_id, g.game, g.players, g.options,
                  g.started, s.last_at, s.finished, s.moves, s.last_seq
             FROM club.tables t
             LEFT JOIN club.summary s ON s.table_name = t.name
             LEFT JOIN club.games g ON g.table_name = s.table_name AND g.game_id = s.game_id
            ORDER BY t.name""")).fetchall()
    out = []
    for (name, revoked, game_id, game, players, options, started, last, finished, moves,
         last_seq) in rows:
        entry: dict[str, Any] = {"name": name, "revoked": revoked, "game": None}
        if game_id is not None and game is not None:
            seats = names(players)
            seat = None if finished else await positions.to_move(
                conn, str(name), int(game_id), str(game), mapping(options), int(last_seq))
            entry["game"] = {"id": game_id, "game": game, "players": seats,
                             "started": started.isoformat() if started else None,
                             "last": last.isoformat() if last else None, "finished": finished,
                             "moves": moves,
                             "to_move": seats[seat] if seat is not None
                             and 0 <= seat < len(seats) else None}
        out.append(entry)
    return out


async def game_detail(conn: AConn, table: str, game_id: int,
                      ply: int | None = None) -> dict[str, Any] | None:
    """One game: its players, moves, result, and the position at ``ply`` (default: now)."""
    row = await (await conn.execute(
        "SELECT game, options, players, started, remote FROM club.games "
        "WHERE table_name = %s AND game_id = %s", (table, game_id))).fetchone()
    if row is None:
        return None
    game, options, players, started, remote = row
    players = names(players)
    options = mapping(options)
    events = await (await conn.execute(
        "SELECT seq, kind, at, payload FROM club.events WHERE table_name = %s AND game_id = %s "
        "ORDER BY seq", (table, game_id))).fetchall()
    moves = standing_actions([(str(k), p) for _, k, _, p in events])
    result = next((result_of(p) for _, k, _, p in events if k == "result"), None)
    withdrawn = await (await conn.execute(
        "SELECT reason FROM club.withdrawn WHERE table_name = %s AND game_id = %s",
        (table, game_id))).fetchone()
    total = len(moves)
    at = total if ply is None else max(0, min(ply, total))
    shown = position(str(game), options, [str(m.get("notation")) for m in moves[:at]])
    to_move = shown["to_move"]
    return {
        "table": table, "id": game_id, "game": game, "options": options, "players": players,
        "started": started.isoformat(), "remote": remote, "result": result,
        "withdrawn": None if withdrawn is None else (str(withdrawn[0]) or "withdrawn"),
        "moves": [{"n": i + 1, "notation": m.get("notation"),
                   "player": m.get("player") if isinstance(m.get("player"), str) else None}
                  for i, m in enumerate(moves)],
        "total": total, "ply": at, "diagram": shown["diagram"], "error": shown["error"],
        "to_move": (players[to_move] if isinstance(to_move, int) and to_move < len(players)
                    and result is None else None),
        "events": [{"seq": s, "kind": k, "at": a.isoformat(), "payload": p}
                   for s, k, a, p in events],
    }


# The finished games, one line per game: each seated table ships its own copy of a
# remote game, so those copies are one game. Of the copies, the first finished one that
# was not abandoned stands (a side that restarted may have abandoned an earlier copy).
FINISHED = """
    SELECT * FROM (
      SELECT DISTINCT ON (COALESCE('remote:' || g.remote, g.table_name || '/' || g.game_id))
             g.table_name, g.game_id, g.game, g.players, e.at, e.payload
        FROM club.events e JOIN club.games g USING (table_name, game_id)
       WHERE e.kind = 'result'
         AND NOT EXISTS (SELECT 1 FROM club.withdrawn w
                          WHERE w.table_name = g.table_name AND w.game_id = g.game_id)
       ORDER BY COALESCE('remote:' || g.remote, g.table_name || '/' || g.game_id),
                (e.payload -> 'abandoned') = 'true'::jsonb, e.at, e.table_name
    ) AS one_copy"""


async def finished_games(conn: AConn, player: str | None = None,
                         limit: int = 100) -> list[dict[str, Any]]:
    """Finished games, newest first (only ``player``'s when given); a remote game once."""
    rows = await (await conn.execute(
        FINISHED + """ WHERE (%(p)s::text IS NULL OR jsonb_typeof(players) = 'array'
                                AND players ? %(p)s::text)
            ORDER BY at DESC LIMIT %(n)s""", {"p": player, "n": limit})).fetchall()
    out = []
    for t, g, game, players, at, payload in rows:
        result = result_of(payload)
        out.append({"table": t, "id": g, "game": game, "players": names(players),
                    "at": at.isoformat(), "winners": result["winners"],
                    "reason": result["reason"], "abandoned": result["abandoned"],
                    "resigned": payload.get("resigned_by") if isinstance(payload, dict)
                    else None})
    return out


async def standings(conn: AConn) -> dict[str, list[Standing]]:
    """OpenSkill standings per game, from every finished game (a remote game once) in the
    order they ended."""
    rows = await (await conn.execute(
        FINISHED + " ORDER BY at, table_name, game_id")).fetchall()
    return rate(Finished(str(game), tuple(names(players)), result_of(result))
                for _, _, game, players, _, result in rows)
