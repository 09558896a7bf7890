"""What the link tells its subscribers: switch events, snapshots, state changes, faults.

All of these are immutable values delivered on the link's reader thread, in the order
the link learned them. A consumer keeps its own picture of the board by applying
``SenseEvent`` changes one by one and replacing that picture on every ``Snapshot``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Literal

from meridian_fw.config import MAX_COLS, MAX_LEDS, MAX_ROWS
from meridian_table.link import fields as grammar

LOGGER = logging.getLogger(__name__)

State = Literal["searching", "connected", "version-mismatch", "closed"]
STATES: tuple[State, ...] = ("searching", "connected", "version-mismatch", "closed")


@dataclass(frozen=True)
class SenseEvent:
    """One debounced switch change: event ``seq``, board time ``t_ms``, matrix ``pos``."""

    seq: int
    t_ms: int
    pos: int
    closed: bool


@dataclass(frozen=True)
class Snapshot:
    """The board's whole occupancy, reflecting every event up to ``last_seq``.

    ``reason`` says why it was delivered: ``"connect"`` (first contact or a board reset),
    ``"reconnect"`` (same boot, after the link came back; every event before it was
    delivered), ``"resync"`` (events were lost, e.g. a ring overflow or a gap: reconcile
    against this) or ``"request"`` (asked for by ``Link.request_snapshot``).
    """

    last_seq: int
    closed: frozenset[int]
    reason: str = "request"


@dataclass(frozen=True)
class LinkState:
    """The link changed state; ``detail`` says why, in words for a person."""

    state: State
    detail: str = ""


@dataclass(frozen=True)
class BoardFault:
    """A FAULT frame from the firmware: ``code`` (CONFIG, GHOST, OVERFLOW, EXC) and detail."""

    code: str
    detail: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hello:
    """The board's HELLO: who it is and what it can do."""

    proto: int
    fw: str
    board: str
    rows: int
    cols: int
    leds: int
    caps: frozenset[str] = field(default_factory=frozenset)
    boot: str = ""

    @classmethod
    def from_fields(cls, fields: list[str]) -> Hello:
        """Parse HELLO's fields; raises ValueError naming the bad field."""
        if len(fields) < 8:
            raise ValueError(f"HELLO needs 8 fields (proto fw board rows cols leds caps boot), got {fields!r}")
        # The bounds are the firmware's own (meridian_fw.config): a board cannot say more.
        proto = grammar.dec(fields[0], "HELLO protocol", 65535)
        rows = grammar.dec(fields[3], "HELLO rows", MAX_ROWS, 1)
        cols = grammar.dec(fields[4], "HELLO cols", MAX_COLS, 1)
        leds = grammar.dec(fields[5], "HELLO leds", MAX_LEDS)
        caps = frozenset(c for c in fields[6].split(",") if c and c != "-")
        return cls(proto, fields[1], fields[2], rows, cols, leds, caps, fields[7])


LinkEvent = SenseEvent | Snapshot | LinkState | BoardFault
