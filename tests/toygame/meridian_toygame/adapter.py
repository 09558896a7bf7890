"""The toy on a physical board: one switch and one LED per cell, and the two table buttons.

One new piece on a free cell is the move; anything else is guided back, one cell at a
time, in the LED language every game shares (meridian_table.games.board).
"""

from __future__ import annotations

from typing import Any, ClassVar

from meridian_table.games.board import (
    ENDED,
    PASS,
    PLAY,
    Adapter,
    AdapterError,
    Applied,
    Interpretation,
    Mistake,
    Motion,
    Observation,
    SiteDrawing,
    View,
    celebrate,
    flash,
    hint,
)
from meridian_toygame.engine import CELLS, ToyGame

SEATS = ("cross", "nought")
COLOURS = {"cross": 0xFF2020, "nought": 0x20FF20}


class ToyAdapter(Adapter):
    """The toy at the table."""

    game: ClassVar[str] = "toy"
    colours: tuple[str, ...] = SEATS
    controls: ClassVar[tuple[str, ...]] = ("confirm",)

    def __init__(self, marks: str = "XO") -> None:
        self._engine = ToyGame(marks)
        self._history: list[Applied] = []
        self._concluded: dict[str, Any] | None = None  # a resignation

    @property
    def options(self) -> dict[str, Any]:
        return {"marks": self._engine.marks}

    @property
    def engine(self) -> ToyGame:
        return self._engine

    @property
    def to_move(self) -> str | None:
        turn = self._engine.turn()
        return None if turn.seat is None else SEATS[turn.seat]

    def sites(self) -> tuple[SiteDrawing, ...]:
        return tuple(SiteDrawing(c, float(i % 3), float(i // 3)) for i, c in enumerate(CELLS))

    def expected(self) -> frozenset[str]:
        return frozenset(c for c in CELLS if self._engine.board[c] != ".")

    def pieces(self) -> dict[str, str]:
        return {c: m for c, m in self._engine.board.items() if m != "."}

    def view(self, prior: str | None) -> View:
        result = self.result()
        if result is not None:
            winner = result.get("winner")
            lights = {c: celebrate(COLOURS[winner]) for c in self.expected()} if winner else {}
            return View(ENDED, str(result["reason"]), lights)
        mover = SEATS[len(self._engine.history) % 2]
        lights = {c: hint(COLOURS[mover]) for c in self._engine.legal() if c != "pass"}
        if prior is not None and prior in self.expected():
            lights[prior] = flash(COLOURS[SEATS[1 - len(self._engine.history) % 2]])
        legal = tuple(c for c in self._engine.legal() if c != "pass")
        phase = PLAY if legal else PASS
        return View(phase, f"{mover.capitalize()}: put a piece on a free cell", lights, legal,
                    None, mover)

    def interpret(self, observation: Observation) -> Interpretation:
        extra, missing = sorted(observation.extra), sorted(observation.missing)
        if len(extra) == 1 and not missing:
            return Interpretation(action=extra[0], message=f"{self.to_move} takes {extra[0]}")
        return Interpretation(
            mistakes=tuple(Mistake(c, "remove", "no piece belongs here") for c in extra)
            + tuple(Mistake(c, "put_back", "a piece belongs here") for c in missing),
            message="Put one piece on one free cell",
        )

    def settle_time(self, motion: Motion) -> float | None:
        """One new piece on a free cell with nothing else moving: read it at once."""
        site = motion.single_arrival()
        return 0.03 if site is not None and site in self._engine.legal() else None

    def button(self, name: str) -> Interpretation:
        if name == "confirm" and self.result() is None:
            return Interpretation(action="pass", message=f"{self.to_move} passes")
        raise AdapterError(f"button {name!r} means nothing in the toy game now")

    def answer(self, field_name: str, value: str) -> Interpretation:
        raise AdapterError(f"the toy game asks nothing ({field_name}={value})")

    def play(self, action: str) -> Applied:
        mover = self.to_move or SEATS[0]
        self._engine.play(action)
        placed = frozenset({action}) if action in CELLS else frozenset()
        applied = Applied(action, mover, placed)
        self._history.append(applied)
        return applied

    def undo(self) -> Applied | None:
        if not self._history:
            return None
        self._engine.undo()
        return self._history.pop()

    def history(self) -> tuple[Applied, ...]:
        return tuple(self._history)

    def result(self) -> dict[str, Any] | None:
        if self._concluded is not None:
            return self._concluded
        outcome = self._engine.outcome()
        if outcome is None:
            return None
        winner = SEATS[outcome.winners[0]] if outcome.winners else None
        return {"winner": winner, "reason": outcome.reason, "scores": self.scores()}

    def conclude(self, result: dict[str, Any]) -> None:
        """End the game as the players chose (a resignation)."""
        if self.result() is not None:
            raise AdapterError("the game is already over")
        self._concluded = dict(result)

    def scores(self) -> dict[str, Any]:
        return {seat: {"total": sum(1 for m in self._engine.board.values()
                                    if m == self._engine.marks[i]), "breakdown": []}
                for i, seat in enumerate(SEATS)}
