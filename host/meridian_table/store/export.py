"""Exports of a logged game: its own record format, JSON Lines, a CSV score sheet, BG Stats.

Every exporter takes a `Store` and a game id and returns text; nothing here writes files.
"""

from __future__ import annotations

import csv
import io
import json
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from meridian_table.games import registry
from meridian_table.store.errors import ExportError
from meridian_table.store.replay import GameLoader, replay
from meridian_table.store.store import GameInfo, Store

LOGGER = logging.getLogger(__name__)

FORMATS = ("record", "jsonl", "csv", "bgstats")

def _scores(info: GameInfo) -> dict[str, dict[str, Any]]:
    result = info.result or {}
    return {str(s["player"]): s for s in result.get("scores", [])}


def ranks(info: GameInfo) -> dict[str, int | None]:
    """Each player's rank: as logged, else winners 1 and the rest by total, ties shared."""
    if info.result is None or info.result.get("abandoned"):
        return dict.fromkeys(info.players)
    winners = set(info.result.get("winners", []))
    scores = _scores(info)
    out: dict[str, int | None] = {}
    for player in info.players:
        logged = scores.get(player, {}).get("rank")
        if isinstance(logged, int) and not isinstance(logged, bool):
            out[player] = logged
            continue
        if player in winners:
            out[player] = 1
            continue
        mine = scores.get(player, {}).get("total")
        better = len(winners)
        for other in info.players:
            if other in winners or other == player:
                continue
            theirs = scores.get(other, {}).get("total")
            if mine is not None and theirs is not None and theirs > mine:
                better += 1
            elif mine is None and theirs is not None:
                better += 1
        out[player] = better + 1
    return out


def result_text(info: GameInfo) -> str:
    """A short human result: "Ann wins", "Ann wins (Bob resigned)", "draw", "abandoned"
    or "running"."""
    if info.result is None:
        return "running"
    if info.result.get("abandoned"):
        return "abandoned"
    winners = info.result.get("winners", [])
    resigned = info.result.get("resigned_by")
    by = f" ({resigned} resigned)" if isinstance(resigned, str) and resigned else ""
    if not winners:
        return f"draw{by}" if not by else f"no winner{by}"
    return f"{' and '.join(winners)} {'wins' if len(winners) == 1 else 'win'}{by}"


def export_jsonl(store: Store, game_id: int) -> str:
    """Every event of the game, one JSON object per line, in log order."""
    lines = [
        json.dumps(e.to_dict(), ensure_ascii=False, sort_keys=True) for e in store.events(game_id)
    ]
    return "\n".join(lines) + "\n"


def export_csv(store: Store, game_id: int) -> str:
    """A score sheet: one row per player, then one column per score-breakdown label."""
    info = store.game(game_id)
    scores = _scores(info)
    labels: list[str] = []
    for player in info.players:
        for item in scores.get(player, {}).get("breakdown", []):
            if item["label"] not in labels:
                labels.append(item["label"])
    winners = set((info.result or {}).get("winners", []))
    reason = (info.result or {}).get("reason", "")
    rank_of = ranks(info)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    fixed = ["game_id", "game", "date", "status", "player", "seat", "winner", "rank", "total"]
    writer.writerow([*fixed, "reason", *(safe_cell(label) for label in labels)])
    for player in info.players:
        entry = scores.get(player, {})
        values = {item["label"]: item["value"] for item in entry.get("breakdown", [])}
        total = entry.get("total")
        rank = rank_of[player]
        writer.writerow(
            [
                info.id,
                info.game,
                info.started,
                info.status,
                safe_cell(player),
                safe_cell(entry.get("seat", "")),
                "yes" if player in winners else ("no" if info.result else ""),
                "" if rank is None else rank,
                "" if total is None else total,
                safe_cell(reason),
                *(safe_cell(values.get(label, "")) for label in labels),
            ]
        )
    return buffer.getvalue()


#: What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def safe_cell(value: object) -> object:
    """A text cell a spreadsheet shows as text: one that starts like a formula
    (``=HYPERLINK(...)``, ``+``, ``-``, ``@``, a tab or a line break) gets a leading
    ``'``, as OWASP advises (the writer quotes a cell with a comma or a quote). Numbers stay
    numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _local(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp).astimezone()


def bgstats_play(store: Store, game_id: int) -> dict[str, Any]:
    """The play as the dict BG Stats accepts from other apps ("push plays", docs/STORE.md)."""
    info = store.game(game_id)
    if info.result is None or info.result.get("abandoned"):
        raise ExportError(
            f"game {game_id} is {info.status}; BG Stats takes finished plays only. Export "
            "--format jsonl or csv instead, or finish the game first"
        )
    result = info.result
    scores = _scores(info)
    has_points = any(scores.get(p, {}).get("total") is not None for p in info.players)
    winners = set(result.get("winners", []))
    rank_of = ranks(info)
    started = _local(info.started)
    ended = _local(info.updated)
    players: list[dict[str, Any]] = []
    for seat_order, player in enumerate(info.players):
        entry = scores.get(player, {})
        row: dict[str, Any] = {
            "name": player,
            "sourcePlayerId": player,
            "winner": player in winners,
            "rank": rank_of[player] or 0,
            "startPlayer": seat_order == 0,
            "role": str(entry.get("seat", "")),
        }
        if entry.get("total") is not None:
            row["score"] = entry["total"]
        players.append(row)
    moves = info.moves
    comments = f"{result_text(info)}"
    if result.get("reason"):
        comments += f": {result['reason']}"
    comments += f". {moves} moves, logged by Meridian Table (game {info.id})."
    return {
        "sourceName": "Meridian Table",
        "sourcePlayId": f"{info.started}#{info.id}",
        "playDate": started.strftime("%Y-%m-%d %H:%M:%S"),
        "durationMin": max(0, round((ended - started).total_seconds() / 60)),
        "location": "Meridian Table",
        "board": info.profile or "",
        "comments": comments,
        "game": {
            "name": _published(info.game),
            "sourceGameId": info.game,
            "highestWins": True,
            "noPoints": not has_points,
        },
        "players": players,
    }


def _published(game: str) -> str:
    """The game's published name (from its spec), or its id when it is not installed."""
    spec = registry.specs().get(game)
    return spec.published if spec is not None else game


def export_bgstats(store: Store, game_id: int) -> str:
    """The BG Stats push-plays JSON of a finished game, pretty-printed."""
    return json.dumps(bgstats_play(store, game_id), ensure_ascii=False, indent=2) + "\n"


def record_headers(info: GameInfo) -> dict[str, str]:
    """The headers handed to the game's record exporter.

    "Result" is left to the engine (each record format has its own notation for it),
    except for a game the players ended (by agreement) that the engine sees as running:
    ``export_record`` then gives the winning seats (or ``draw``). The log's outcome goes
    in "Outcome", and "Player1".."PlayerN" name the seats in order.
    """
    headers = {
        "Date": _local(info.started).strftime("%Y-%m-%d"),
        "Players": ", ".join(info.players),
    }
    for seat, player in enumerate(info.players, start=1):
        headers[f"Player{seat}"] = player
    result = info.result or {}
    if info.result is not None:
        headers["Outcome"] = result_text(info)
    if result.get("reason"):
        headers["Reason"] = str(result["reason"])
    return headers


def logged_result(info: GameInfo) -> str | None:
    """The log's result in seat words (``light``, ``red and blue``, ``draw``), for a game
    the rules did not end themselves (ended by agreement); None while it runs or when it
    was abandoned."""
    result = info.result
    if result is None or result.get("abandoned"):
        return None
    winners = set(result.get("winners", []))
    seats = [str(s.get("seat") or s.get("player")) for s in result.get("scores", [])
             if isinstance(s, dict) and s.get("player") in winners]
    return " and ".join(seats or sorted(winners)) or "draw"


def export_record(store: Store, game_id: int, loader: GameLoader | None = None) -> str:
    """The game in its own record format (the spec's ``records.export``)."""
    rebuilt = replay(store, game_id, loader=loader)
    headers = record_headers(rebuilt.info)
    ended = logged_result(rebuilt.info)
    if ended is not None and rebuilt.engine.outcome() is None:
        # The players ended it (by the count): the engine's own Result would say "*".
        headers["Result"] = ended
    text = rebuilt.spec.records.export(rebuilt.engine, headers)
    return text if text.endswith("\n") else text + "\n"


def export(store: Store, game_id: int, fmt: str, loader: GameLoader | None = None) -> str:
    """Export game `game_id` in format `fmt` (one of FORMATS)."""
    exporters: dict[str, Callable[[], str]] = {
        "record": lambda: export_record(store, game_id, loader),
        "jsonl": lambda: export_jsonl(store, game_id),
        "csv": lambda: export_csv(store, game_id),
        "bgstats": lambda: export_bgstats(store, game_id),
    }
    if fmt not in exporters:
        raise ExportError(f"export format {fmt!r} is unknown; choose one of {', '.join(FORMATS)}")
    return exporters[fmt]()
