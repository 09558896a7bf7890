"""The page's state: one typed schema (:class:`PageState`) for the real session and for
the web test double (``web/fake.py``), built from the session's facts by :func:`present`.
"""

from __future__ import annotations

from typing import Any, TypedDict


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
    moves: list[dict[str, Any]]
    result: dict[str, Any] | None
    link: LinkPanel
    controls: list[str]
    control_state: dict[str, dict[str, Any]]
    settle_ms: int


__all__ = ["Automaton", "Diff", "LinkPanel", "PageState"]
