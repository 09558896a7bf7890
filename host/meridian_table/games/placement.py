"""A ready adapter for games of one piece per site: a move puts one piece on an empty site.

Many games are played so (tic-tac-toe, five in a row, Hex, Gomoku): an action is the
name of the site where the mover puts a piece, pieces never move or leave, and
everything else (a pass) is a button. For them the board half of the contract is always
the same, so an author gives only the sites and the seats::

    class ToyAdapter(PlacementAdapter):
        game = "toy"
        seats_and_colours = (("cross", 0xFF2020), ("nought", 0x20FF20))

        def __init__(self, marks: str = "XO") -> None:
            super().__init__(ToyGame(marks), SITES, {"marks": marks}, labels=tuple(marks))

with ``SITES`` a mapping of each site to its place on the drawing (``{"a": (0, 0), ...}``).

What it does, in the LED language every game shares (:mod:`meridian_table.games.board`):
the legal sites glow dim in the mover's colour; one new piece on a legal site is the
move (read at once when nothing else moves); a piece anywhere else blinks "remove", a
missing one pulses "put back", one at a time; Confirm passes when the engine allows
``pass``; at the end the winner's pieces breathe in the winner's colour. A game whose
pieces can leave the board (captures) overrides :meth:`PlacementAdapter.occupants`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import ClassVar

from meridian_table.games.board import (
    ENDED,
    PASS,
    PLAY,
    Adapter,
    AdapterError,
    Applied,
    Interpretation,
    JsonObject,
    Mistake,
    Motion,
    Observation,
    SiteDrawing,
    View,
    celebrate,
    flash,
    hint,
)
from meridian_table.games.rules import Engine, Options, OptionValue

LOGGER = logging.getLogger(__name__)

#: How soon a single new piece on a legal site is read (nothing else moving).
EARLY_READ_S = 0.03


class PlacementAdapter(Adapter):
    """The board half of a one-piece-per-site game (see the module docstring).

    Subclasses set :attr:`game` and :attr:`seats_and_colours` and pass the engine, the sites and the
    logged options to ``__init__``."""

    #: The seats in turn order with their LED colours (``(("cross", 0xFF2020), ...)``).
    seats_and_colours: ClassVar[tuple[tuple[str, int], ...]] = ()
    controls: ClassVar[tuple[str, ...]] = ("confirm",)
    #: The engine's pass action (Confirm plays it when legal); None: no pass.
    pass_action: ClassVar[str | None] = "pass"
    #: What the pieces are called in the messages ("stone", "mark").
    piece_word: ClassVar[str] = "piece"

    def __init__(self, engine: Engine, sites: Mapping[str, tuple[float, float]],
                 options: Options, *, labels: Sequence[str] | None = None) -> None:
        if not self.seats_and_colours:
            raise TypeError(f"{type(self).__name__} names no seats: set seats_and_colours")
        self.colours = tuple(seat for seat, _ in self.seats_and_colours)
        self._colour = dict(self.seats_and_colours)
        if labels is not None and len(labels) != len(self.colours):
            raise ValueError(f"labels {list(labels)!r}: give one per seat "
                             f"({', '.join(self.colours)})")
        self._labels = tuple(labels) if labels is not None else tuple(
            seat[:1].upper() for seat in self.colours)
        self._engine = engine
        self._drawing = tuple(SiteDrawing(site, float(x), float(y))
                              for site, (x, y) in sites.items())
        self._sites = frozenset(sites)
        self._options = dict(options)
        self._concluded: JsonObject | None = None  # a resignation

    # --- state ------------------------------------------------------------------------

    @property
    def options(self) -> dict[str, OptionValue]:
        return dict(self._options)

    @property
    def engine(self) -> Engine:
        return self._engine

    @property
    def to_move(self) -> str | None:
        seat = self._engine.turn().seat
        return None if seat is None else self.colours[seat]

    def sites(self) -> tuple[SiteDrawing, ...]:
        return self._drawing

    def occupants(self) -> dict[str, int]:
        """Site -> the seat whose piece stands there: every site a standing action put a
        piece on (override when pieces can leave the board)."""
        out: dict[str, int] = {}
        for applied in self.past:
            seat = self.colours.index(applied.player)
            for site in applied.placed:
                out[site] = seat
        return out

    def expected(self) -> frozenset[str]:
        return frozenset(self.occupants())

    def pieces(self) -> dict[str, str]:
        return {site: self._labels[seat] for site, seat in self.occupants().items()}

    def legal_sites(self) -> tuple[str, ...]:
        """The sites where the mover may put a piece now, in the engine's order."""
        return tuple(a for a in self._engine.legal() if a in self._sites)

    # --- what the LEDs and the page show ------------------------------------------------

    def view(self, prior: str | None) -> View:
        outcome = self._engine.outcome()
        if outcome is not None:
            lights = {}
            if len(outcome.winners) == 1:
                colour = self._colour[self.colours[outcome.winners[0]]]
                lights = {site: celebrate(colour) for site, seat in self.occupants().items()
                          if seat == outcome.winners[0]}
            return View(ENDED, outcome.reason or "The game is over", lights)
        mover = self.to_move or self.colours[0]
        legal = self.legal_sites()
        lights = {site: hint(self._colour[mover]) for site in legal}
        occupants = self.occupants()
        if prior is not None and prior in occupants:
            lights[prior] = flash(self._colour[self.colours[occupants[prior]]])
        if legal:
            return View(PLAY, f"{mover.capitalize()}: put a {self.piece_word} on a lit site",
                        lights, legal, None, mover)
        return View(PASS, f"{mover.capitalize()}: no site is free to you; press Confirm to "
                    "pass", lights, (), None, mover)

    # --- what a settled board means --------------------------------------------------

    def interpret(self, observation: Observation) -> Interpretation:
        extra, missing = sorted(observation.extra), sorted(observation.missing)
        legal = self.legal_sites()
        if len(extra) == 1 and not missing and extra[0] in legal:
            return Interpretation(action=extra[0],
                                  message=f"{self.to_move} puts a {self.piece_word} on {extra[0]}")
        def why(site: str) -> str:
            if len(extra) == 1 and not missing:
                return f"this site is not open to {self.to_move} now"
            return f"no {self.piece_word} belongs here"

        mistakes = tuple(Mistake(site, "remove", why(site)) for site in extra) + tuple(
            Mistake(site, "put_back", f"a {self.piece_word} belongs here") for site in missing)
        return Interpretation(mistakes=mistakes,
                              message=f"Put one {self.piece_word} on one lit site")

    def settle_time(self, motion: Motion) -> float | None:
        """One new piece on a legal site with nothing else moving: read it at once."""
        site = motion.single_arrival()
        return EARLY_READ_S if site is not None and site in self.legal_sites() else None

    def button(self, name: str) -> Interpretation:
        if (name == "confirm" and self.pass_action is not None
                and self.pass_action in self._engine.legal()):
            return Interpretation(action=self.pass_action, message=f"{self.to_move} passes")
        raise AdapterError(f"button {name!r} means nothing now in {self.game}")

    def answer(self, field_name: str, value: str) -> Interpretation:
        raise AdapterError(f"{self.game} asks nothing ({field_name}={value!r})")

    # --- changing the game ---------------------------------------------------------------

    def play(self, action: str) -> Applied:
        mover = self.to_move or self.colours[0]
        self._engine.play(action)
        placed = frozenset({action}) if action in self._sites else frozenset()
        return Applied(action, mover, placed)

    def undo(self, applied: Applied) -> None:
        del applied
        self._engine.undo()

    # --- the end --------------------------------------------------------------------------

    def result(self) -> JsonObject | None:
        if self._concluded is not None:
            return self._concluded
        outcome = self._engine.outcome()
        if outcome is None:
            return None
        winner = self.colours[outcome.winners[0]] if len(outcome.winners) == 1 else None
        return {"winner": winner, "reason": outcome.reason, "scores": self.scores()}

    def conclude(self, result: JsonObject) -> None:
        """End the game as the players chose (a resignation)."""
        if self.result() is not None:
            raise AdapterError("the game is already over")
        self._concluded = dict(result)

    def scores(self) -> JsonObject:
        """Per seat: the engine's score when it gives one, else the pieces on the board."""
        outcome = self._engine.outcome()
        given = outcome.scores if outcome is not None else ()
        on_board = list(self.occupants().values())
        out: JsonObject = {}
        for seat, name in enumerate(self.colours):
            score = given[seat] if seat < len(given) and given[seat] is not None \
                else on_board.count(seat)
            out[name] = {"total": score, "breakdown": []}
        return out


__all__ = ["EARLY_READ_S", "PlacementAdapter"]
