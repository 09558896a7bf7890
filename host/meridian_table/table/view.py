"""The table's facts in the page's words: names by seat, the moves, the automaton at
work, the controls, the result as the store keeps it, the board's HELLO."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from meridian_table.games.board import Adapter, Applied
from meridian_table.store import events as ev
from meridian_table.table.automata import Execution, Seats
from meridian_table.table.presenter import Automaton

#: Buttons every table has, beside the game's own controls.
TABLE_BUTTONS = ("undo", "menu")


class Buttons(Protocol):
    @property
    def buttons(self) -> Mapping[str, int]: ...


class AtWork(Protocol):
    """What :func:`automaton_json` reads of the table (``state.Table``)."""

    adapter: Adapter
    players: tuple[str, ...]
    seats: Seats
    execution: Execution | None
    think_s: float

    @property
    def thinking_player(self) -> int | None: ...

    def thinking_since(self) -> float | None: ...


def names_of(adapter: Adapter, players: tuple[str, ...]) -> dict[str, str]:
    """Each seat's player name (the seat's colour when it has no player)."""
    return {
        colour: players[index] if index < len(players) else colour
        for colour, index in adapter.seats().items()
    }


def moves_json(adapter: Adapter, history: Sequence[Applied], names: Mapping[str, str],
               provisional: bool) -> list[dict[str, Any]]:
    """The moves of the table's ``history`` in words; one read early and not logged yet
    is marked ``provisional``."""
    moves = [a.to_json(i + 1) for i, a in enumerate(history)]
    for move, applied in zip(moves, history, strict=True):
        words = adapter.said_words(applied)
        if words:
            move["words"] = f"{names.get(str(move.get('player')), move.get('player'))}: {words}"
    if provisional and moves:
        moves[-1]["provisional"] = True
    return moves


def automaton_json(table: AtWork, now: float) -> Automaton | None:
    """The automaton at work, for the page: thinking, or waiting for its move."""
    execution = table.execution
    if execution is not None:
        return {"seat": execution.seat, "player": table.players[execution.player],
                "automaton": execution.automaton, "status": "executing",
                "elapsed_s": None, "action": execution.action, "words": execution.words}
    player = table.thinking_player
    since = table.thinking_since()
    if player is None or since is None:
        return None
    colour = next((c for c, i in table.adapter.seats().items() if i == player), "")
    return {"seat": colour, "player": table.players[player],
            "automaton": table.seats.kind(player), "status": "thinking",
            "elapsed_s": round(now - since, 2), "budget_s": table.think_s,
            "action": None, "words": None}


def controls(adapter: Adapter, profile: Buttons) -> tuple[str, ...]:
    names = [*adapter.controls, *TABLE_BUTTONS]
    names += [b for b in profile.buttons if b not in names]
    return tuple(dict.fromkeys(names))


def result_payload(result: Mapping[str, Any], adapter: Adapter,
                   players: tuple[str, ...]) -> dict[str, Any]:
    """The adapter's result in the store's shape (docs/STORE.md): names, seats."""
    names = names_of(adapter, players)
    winner = result.get("winner")
    scores = result.get("scores") or {}
    return {
        **result,
        "winners": [names[winner]] if isinstance(winner, str) and winner in names else [],
        "scores": [
            {
                "player": names.get(colour, colour),
                "seat": colour,
                "total": score.get("total"),
                "breakdown": list(score.get("breakdown", [])),
            }
            for colour, score in scores.items()
        ],
        "by_seat": scores,
    }


def result_event(result: Mapping[str, Any], adapter: Adapter,
                 players: tuple[str, ...]) -> ev.Result:
    """The logged ``result`` event: winners and scores by name and seat; the game's
    own keys (its ``winner`` seat, a ``reason`` of its own shape) kept beside them."""
    payload = result_payload(result, adapter, players)
    reason = payload.pop("reason", None)
    winners = tuple(payload.pop("winners"))
    scores = tuple(payload.pop("scores"))
    if reason is not None and not isinstance(reason, str):
        payload["reason"], reason = reason, None
    return ev.Result(winners, reason, scores, extra=payload)


def hello_json(hello: object) -> dict[str, Any] | None:
    """The board's HELLO as the page shows it: firmware version, board id, protocol."""
    if hello is None:
        return None
    return {
        "version": str(getattr(hello, "fw", "")),
        "board": str(getattr(hello, "board", "")),
        "proto": getattr(hello, "proto", None),
    }


__all__ = ["TABLE_BUTTONS", "automaton_json", "controls", "hello_json", "moves_json",
           "names_of", "result_event", "result_payload"]
