"""The page's state: one typed schema (:class:`PageState`), built from the table's facts
by :func:`present`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from meridian_table.games.board import ADJUDICATE, Adapter, Applied, Mistake, View
from meridian_table.i18n import language
from meridian_table.ledplan import Light
from meridian_table.table.controls import TableFacts, control_state


class Diff(TypedDict):
    """What differs between the board and the game: sites to lift and to fill."""

    remove: list[str]
    put_back: list[str]
    next: str | None
    reasons: dict[str, str]


class Automaton(TypedDict):
    """An automaton at work: thinking about its move, or waiting for it to be carried out."""

    seat: str
    player: str
    automaton: str
    status: str                 # "thinking" | "executing"
    elapsed_s: float | None
    #: The time it may think (the table's ``think_s``): the page shows progress against it.
    budget_s: NotRequired[float]
    action: str | None
    words: str | None


class LinkPanel(TypedDict):
    state: str
    detail: str
    ever_connected: bool
    port: str | None
    virtual: bool
    stats: dict[str, Any]
    firmware: dict[str, Any] | None
    faults: list[dict[str, Any]]


class Tentative(TypedDict):
    """Switches changed since the board was last read (the instant acknowledgement)."""

    arriving: list[str]
    leaving: list[str]


class ClockPanel(TypedDict):
    """The players' clocks (table/clocks.py): the rule, whose runs and each seat's time."""

    rule: dict[str, Any]
    words: str
    low_s: float
    running: str | None
    seats: dict[str, dict[str, Any]]


class PageState(TypedDict):
    """``TableSession.state()``: everything the page draws (docs/TABLE.md)."""

    game: str
    spec: dict[str, object] | None
    game_id: int | None
    options: dict[str, Any]
    players: list[str]
    seats: dict[str, str]
    seats_kind: dict[str, str]
    automaton: Automaton | None
    phase: str
    to_move: str | None
    message: str
    error: str
    board: dict[str, Any]
    legal: list[str]
    last_move: str | None
    diff: Diff
    question: dict[str, Any] | None
    leds: dict[str, dict[str, str]]
    scores: dict[str, Any]
    count: dict[str, Any] | None
    agreed: list[str]
    #: The seats that may resign now (people's seats while the game runs; table/ending.py).
    resign: list[str]
    moves: list[dict[str, Any]]
    result: dict[str, Any] | None
    link: LinkPanel
    controls: list[str]
    control_state: dict[str, dict[str, Any]]
    settle_ms: int
    tentative: Tentative
    clocks: ClockPanel | None
    warnings: list[dict[str, object]]
    lang: str


@dataclass(frozen=True)
class TableView:
    """What the session knows beyond the adapter, as :func:`present` needs it."""

    spec: dict[str, object] | None
    game_id: int | None
    players: tuple[str, ...]
    names: dict[str, str]
    seats_kind: dict[str, str]
    automaton: Automaton | None
    phase: str
    message: str
    error: str
    settled: frozenset[str]
    view: View | None
    mistakes: tuple[Mistake, ...]
    lights: Mapping[str, Light]
    agreed: frozenset[str]
    moves: list[dict[str, Any]]
    link: LinkPanel
    controls: tuple[str, ...]
    connected: bool
    adjudicating: bool
    settle_ms: int
    arriving: frozenset[str]
    leaving: frozenset[str]
    #: Why Undo waits now ("" when it may act): a piece no move put there stands on the board.
    undo_waits: str = ""
    clocks: ClockPanel | None = None
    #: The table's history of the game (the last move, whether Undo has anything).
    history: Sequence[Applied] = ()


def present(adapter: Adapter, table: TableView) -> PageState:
    """The page's state for ``adapter``'s game at ``table``."""
    board: dict[str, Any] = adapter.board_json()  # JSON: the sites are a list of objects
    about = adapter.about()
    for site in board["sites"]:
        site["sensed"] = site["id"] in table.settled
        if site["id"] in about:
            site["about"] = about[site["id"]]
    view = table.view
    result = adapter.result()
    history = table.history
    count = adapter.adjudicate() if result is None else None
    if count is not None and table.adjudicating:
        # What the board lights for the offered count, with the legend's words.
        count = {**count, "marks": [mark.to_json() for mark in adapter.count_marks()]}
    facts = TableFacts(
        phase=table.phase,
        connected=table.connected,
        adjudicating=table.adjudicating,
        game_over=result is not None,
        undoable=bool(history),
        count_offered=count is not None,
        undo_waits=table.undo_waits,
        reads_board=adapter.reads_board,
    )
    mistakes = table.mistakes
    return {
        "game": adapter.game,
        "spec": table.spec,
        "game_id": table.game_id,
        "options": dict(adapter.options),
        "players": list(table.players),
        "seats": table.names,
        "seats_kind": table.seats_kind,
        "automaton": table.automaton,
        "phase": table.phase,
        "to_move": view.to_move if view is not None else adapter.to_move,
        "message": table.message,
        "error": table.error,
        "board": board,
        "legal": list(view.legal) if view is not None and table.phase != ADJUDICATE else [],
        "last_move": history[-1].notation if history else None,
        "diff": {
            "remove": [m.site for m in mistakes if m.kind == "remove"],
            "put_back": [m.site for m in mistakes if m.kind == "put_back"],
            "next": mistakes[0].site if mistakes else None,
            "reasons": {m.site: m.reason for m in mistakes},
        },
        "question": view.question.to_json() if view is not None and view.question else None,
        "leds": {
            site: {"colour": f"#{light.colour:06x}", "effect": light.effect}
            for site, light in sorted(table.lights.items())
            if not light.is_off
        },
        "scores": adapter.scores(),
        "count": count,
        "agreed": sorted(table.agreed),
        "resign": [colour for colour in adapter.seats()
                   if table.seats_kind.get(colour, "person") == "person"]
        if result is None and adapter.concedes() else [],
        "moves": table.moves,
        "result": result,
        "link": table.link,
        "controls": list(table.controls),
        "control_state": control_state(adapter, view, facts, table.controls),
        "settle_ms": table.settle_ms,
        "tentative": {"arriving": sorted(table.arriving), "leaving": sorted(table.leaving)},
        "clocks": table.clocks,
        "warnings": [w.to_json() for w in view.warnings]
        if view is not None and table.phase != ADJUDICATE else [],
        "lang": language(),
    }


__all__ = ["Automaton", "ClockPanel", "Diff", "LinkPanel", "PageState", "TableView", "Tentative", "present"]
