"""What the club page reads from PostgreSQL, and the positions it rebuilds from events.

Every function takes an open psycopg async connection from the page's pool (the page
role: read-only) and returns plain dicts and lists, so the HTML and JSON views share them.
A game's position is rebuilt by replaying its standing actions through its rules engine
(from the registry), as the table's own ``replay`` does.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import psycopg

from meridian_table.club.standings import Finished, Standing, rate
from meridian_table.games import registry
from meridian_table.games.registry import UnknownGameError

LOGGER = logging.getLogger(__name__)

AConn = psycopg.AsyncConnection[tuple[Any, ...]]


def standing_actions(events: Sequence[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The action payloads still standing once undos are applied, in order."""
    standing: list[dict[str, Any]] = []
    for kind, payload in events:
        if kind == "action":
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
    except (UnknownGameError, ValueError, KeyError) as exc:
        return {"diagram": "", "to_move": None, "error": f"cannot show this position: {exc}"}
    diagram = spec.text_diagram(engine) if spec.text_diagram is not None else ""
    turn = engine.turn()
    return {"diagram": diagram, "to_move": turn.seat, "error": None}


async def tables(conn: AConn) -> list[dict[str, Any]]:
    """Every table with its latest game and how far it is."""
    rows = await (await conn.execute(
        """SELECT t.name, t.revoked IS NOT NULL, g.game_id, g.game, g.players, g.started,
                  (SELECT max(e.at) FROM club.events e
                    WHERE e.table_name = g.table_name AND e.game_id = g.game_id),
                  EXISTS (SELECT 1 FROM club.events e WHERE e.table_name = g.table_name
                          AND e.game_id = g.game_id AND e.kind = 'result')
             FROM club.tables t
             LEFT JOIN LATERAL (SELECT * FROM club.games g WHERE g.table_name = t.name
                                ORDER BY g.game_id DESC LIMIT 1) g ON true
            ORDER BY t.name""")).fetchall()
    out = []
    for name, revoked, game_id, game, players, started, last, finished in rows:
        entry: dict[str, Any] = {"name": name, "revoked": revoked, "game": None}
        if game_id is not None:
            detail = await game_detail(conn, name, int(game_id))
            entry["game"] = {"id": game_id, "game": game, "players": players,
                             "started": started.isoformat() if started else None,
                             "last": last.isoformat() if last else None, "finished": finished,
                             "moves": detail["total"] if detail else 0,
                             "to_move": detail["to_move"] if detail else None}
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
    events = await (await conn.execute(
        "SELECT seq, kind, at, payload FROM club.events WHERE table_name = %s AND game_id = %s "
        "ORDER BY seq", (table, game_id))).fetchall()
    moves = standing_actions([(str(k), dict(p)) for _, k, _, p in events])
    result = next((dict(p) for _, k, _, p in events if k == "result"), None)
    total = len(moves)
    at = total if ply is None else max(0, min(ply, total))
    shown = position(str(game), dict(options), [str(m.get("notation")) for m in moves[:at]])
    to_move = shown["to_move"]
    return {
        "table": table, "id": game_id, "game": game, "options": options, "players": players,
        "started": started.isoformat(), "remote": remote, "result": result,
        "moves": [{"n": i + 1, "notation": m.get("notation"), "player": m.get("player")}
                  for i, m in enumerate(moves)],
        "total": total, "ply": at, "diagram": shown["diagram"], "error": shown["error"],
        "to_move": (players[to_move] if isinstance(to_move, int) and to_move < len(players)
                    and result is None else None),
        "events": [{"seq": s, "kind": k, "at": a.isoformat(), "payload": p}
                   for s, k, a, p in events],
    }


async def finished_games(conn: AConn, player: str | None = None,
                         limit: int = 100) -> list[dict[str, Any]]:
    """Finished games, newest first (only ``player``'s when given)."""
    rows = await (await conn.execute(
        """SELECT g.table_name, g.game_id, g.game, g.players, e.at, e.payload
             FROM club.events e JOIN club.games g USING (table_name, game_id)
            WHERE e.kind = 'result' AND (%(p)s::text IS NULL OR g.players ? %(p)s::text)
            ORDER BY e.at DESC LIMIT %(n)s""", {"p": player, "n": limit})).fetchall()
    return [{"table": t, "id": g, "game": game, "players": players, "at": at.isoformat(),
             "winners": result.get("winners", []), "reason": result.get("reason", ""),
             "abandoned": bool(result.get("abandoned")),
             "resigned": result.get("resigned_by")}
            for t, g, game, players, at, result in rows]


async def standings(conn: AConn) -> dict[str, list[Standing]]:
    """OpenSkill standings per game, from every finished game in the order they ended."""
    rows = await (await conn.execute(
        """SELECT g.game, g.players, e.payload
             FROM club.events e JOIN club.games g USING (table_name, game_id)
            WHERE e.kind = 'result' ORDER BY e.at, e.table_name, e.game_id""")).fetchall()
    return rate(Finished(str(game), tuple(players), dict(result)) for game, players, result in rows)
