"""Kato's Meridians on a physical board: one switch and one LED per point.

The engine (``meridian_table.games.kato``) knows the rules; this adapter says what the
settled board means (issue 4, "Physical-board adapter"; docs/TABLE.md):

- the previous move's dead groups (``ply.removed``) stay on the board until lifted;
  they blink "remove" together, and placements are shown only once the board matches;
- one new stone on a legal point is the move; anything else is a mistake to guide;
- a lifted last stone is a takeback in progress (Undo takes it back);
- the pie choice and a forced pass are inputs (buttons or the page), not board changes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar

from meridian_table.games import kato
from meridian_table.games.board import (
    CHOICE,
    ENDED,
    HANDS_AT_WORK_S,
    PASS,
    PLAY,
    REMOVE,
    Adapter,
    AdapterError,
    Applied,
    Caution,
    CountMark,
    Interpretation,
    Mistake,
    Motion,
    Observation,
    Question,
    SiteDrawing,
    View,
    celebrate,
    flash,
    hint,
    record_number,
)
from meridian_table.games.kato import geometry
from meridian_table.i18n import N_, Words, _, said, say, seat_word
from meridian_table.ledplan import BLINK, Light

LOGGER = logging.getLogger(__name__)

LIGHT_COLOUR = 0xFFB000
DARK_COLOUR = 0x0050FF
COLOURS = {"light": LIGHT_COLOUR, "dark": DARK_COLOUR}
#: A point of the offered count that is safe for both players.
BOTH_COLOUR = 0xFFFFFF
#: The seats' words, for the catalog (seat_word translates them).
SEAT_WORDS = (N_("Light"), N_("Dark"))
LABELS = {"light": "L", "dark": "D"}
ASSISTS = ("full", "captures", "tournament")
#: How soon an unambiguous placement is read (docs/TABLE.md, "Adaptive settling"): the
#: firmware's debounce already vouches for the switch; a change within the table's full
#: window after it still takes the move back before it is logged.
QUICK_SETTLE_S = 0.030
PIE = "pie"


class KatoAdapter(Adapter):
    """Kato's Meridians. ``size`` 5, 6 or 7; ``pie``; ``assist`` one of ASSISTS."""

    game: ClassVar[str] = "kato"
    colours: tuple[str, ...] = ("light", "dark")
    controls: ClassVar[tuple[str, ...]] = ("confirm", "pass", "swap")

    def __init__(
        self,
        size: int = 6,
        pie: bool = False,
        tournament: bool | None = None,
        assist: str | None = None,
        *,
        engine: kato.Game | None = None,
    ) -> None:
        """``tournament`` is the engine option (overlooked dead groups live on); the
        ``tournament`` assist level implies it. ``engine``: an engine with the
        ``kato.Game`` API to wrap instead of a new one (a test double, a parsed record)."""
        if assist is None:
            assist = "tournament" if tournament else "full"
        if assist not in ASSISTS:
            raise ValueError(f"assist level {assist!r} is not one of {', '.join(ASSISTS)}")
        if tournament is None:
            tournament = assist == "tournament"
        if bool(tournament) != (assist == "tournament"):
            raise ValueError(
                f"assist level {assist!r} does not fit tournament={tournament!r}: the "
                "'tournament' level is exactly the tournament rule for overlooked groups"
            )
        self._tournament = bool(tournament)
        self._size = size
        self._pie = bool(pie)
        self._assist = assist
        self._engine = (
            engine if engine is not None else kato.new_game(size, self._pie, self._tournament)
        )
        self._points: tuple[str, ...] = tuple(self._engine.points)
        #: The dialogue (see :meth:`dialogue`): the ply at which the opener kept Dark.
        self._kept_at: int | None = None
        self._concluded: dict[str, Any] | None = None
        coords = geometry.coordinates(size)
        self._drawing = tuple(
            SiteDrawing(p, *geometry.layout_xy(*coords[p])) for p in self._points
        )

    def __repr__(self) -> str:
        return f"KatoAdapter(size={self._size!r}, pie={self._pie!r}, assist={self._assist!r})"

    # --- state ----------------------------------------------------------------------

    @property
    def engine(self) -> kato.Game:
        """The rules engine (``meridian_table.games.kato.Game``)."""
        return self._engine

    @property
    def assist(self) -> str:
        return self._assist

    @property
    def options(self) -> dict[str, Any]:
        return {"size": self._size, "pie": self._pie, "tournament": self._tournament}

    def settings(self) -> dict[str, Any]:
        return {"assist": self._assist}

    @property
    def to_move(self) -> str:
        return str(self._engine.to_move)

    def sites(self) -> tuple[SiteDrawing, ...]:
        return self._drawing

    def pieces(self) -> dict[str, str]:
        position = self._engine.position()
        return {p: c for p, c in zip(self._points, position, strict=True) if c != "."}

    def expected(self) -> frozenset[str]:
        return frozenset(self.pieces())

    def seats(self) -> dict[str, int]:
        return {c: self._engine.seat(c) - 1 for c in self.colours}

    def _legal(self) -> set[str]:
        return set(self._engine.legal_moves())

    def _choice_open(self) -> bool:
        if not self._pie or self._kept_at == len(self.past):
            return False
        return self._engine.choice_open

    def _pending_removal(self) -> frozenset[str]:
        """Stones the last move's removal step took off the game (maybe still on the board)."""
        return self.past[-1].removed if self.past else frozenset()

    def _colour_at(self, site: str) -> str | None:
        label = self.pieces().get(site)
        return {"L": "light", "D": "dark"}.get(label or "")

    # --- what the LEDs and the page show ----------------------------------------------

    def view(self, prior: str | None) -> View:
        lights: dict[str, Light] = {}
        mover = self.to_move
        result = self.result()
        if result is not None:
            winner = result.get("winner")
            if isinstance(winner, str):
                lights = {p: celebrate(COLOURS[winner]) for p in self._points}
            return View(ENDED, _result_message(result), lights, (), None, None)
        if prior is not None:
            colour = self._colour_at(prior)
            if colour is not None:
                lights[prior] = flash(COLOURS[colour])
        legal = self._legal()
        if self._choice_open():
            for site, label in self.pieces().items():
                lights[site] = Light(COLOURS["light" if label == "L" else "dark"], BLINK)
            question = Question(
                PIE,
                _("Pie: the second player chooses: Swap colours, or Keep (Confirm) and let "
                  "the opener keep Dark"),
                ("swap", "keep"),
                {"swap": "swap", "confirm": "keep"},
            )
            return View(CHOICE, question.prompt, lights, ("swap",), question, mover)
        if legal == {"pass"}:
            message = _("{seat} has no legal placement: press Confirm to pass").format(
                seat=seat_word(mover))
            return View(PASS, message, lights, ("pass",), None, mover)
        placements = tuple(sorted(legal - {"swap", "pass"}, key=self._points.index))
        if self._assist == "full":
            for site in placements:
                lights.setdefault(site, hint(COLOURS[mover]))
        return View(PLAY, self._play_message(mover), lights, placements, None, mover,
                    self._warnings(mover))

    def about(self) -> dict[str, str]:
        """Each stone: its group and whether the group has a path."""
        out: dict[str, str] = {}
        for colour in ("light", "dark"):
            dead = {frozenset(g) for g in self._engine.dead_groups(colour)}
            for group in self._engine.groups(colour):
                sites = tuple(sorted(group, key=self._points.index))
                if len(sites) == 1:
                    what = _("a lone {seat} stone").format(seat=seat_word(colour))
                else:
                    what = _("a {seat} stone in a group of {count} ({sites})").format(
                        seat=seat_word(colour), count=len(sites), sites=_and(sites))
                path = (_("the group has no path: it is a dead group") if frozenset(group) in dead
                        else _("the group has a path to another {seat} group").format(
                            seat=seat_word(colour)))
                for site in sites:
                    out[site] = f"{site}: {what}; {path}"
        return out

    def _warnings(self, mover: str) -> tuple[Caution, ...]:
        """With full assist: the mover's groups with no path, which the removal step at
        the start of the opponent's turn takes unless this move gives them one."""
        if self._assist != "full":
            return ()
        other = _other(mover)
        # No removal before the opponent's third turn; and a second stone must see the
        # first, so a lone first stone always gets its path.
        if self._engine.turn_number(other) < 3 or self._engine.turn_number(mover) < 3:
            return ()
        found = []
        for group in self._engine.dead_groups(mover):
            sites = tuple(sorted(group, key=self._points.index))
            text = (_("{sites} has no path: it is removed at the start of {seat}'s turn "
                      "unless you give it one") if len(sites) == 1 else
                    _("{sites} have no path: they are removed at the start of {seat}'s "
                      "turn unless you give them one"))
            found.append(Caution(sites, text.format(sites=_and(sites), seat=seat_word(other))))
        return tuple(found)

    def finale(self, observation: Observation) -> View:
        """After the end: stones the game no longer has (the last move's removed group,
        usually) blink "remove" until lifted; then the winner animation."""
        view = self.view(None)
        extra = sorted(observation.sensed - observation.expected, key=self._points.index)
        if not extra:
            return view
        dead = self._pending_removal()
        what = (_("Lift the dead stones that blink red: {sites}") if set(extra) <= dead
                else _("Lift the stones no longer in the game that blink red: {sites}"))
        message = f"{view.message}. {what.format(sites=', '.join(extra))}"
        return View(ENDED, message, {site: REMOVE for site in extra}, (), None, None)

    def _play_message(self, mover: str) -> str:
        plies = 0  # stones placed so far; only the first four matter
        for entry in self.past:
            if entry.placed:
                plies += 1
                if plies == 4:
                    break
        name = seat_word(mover)
        if self._pie and plies == 0:
            return _("Pie: the opener places the Light stone")
        if self._pie and plies == 1:
            return _("Pie: the opener places the Dark stone")
        if plies < 2:
            return _("{seat}: place your first stone anywhere").format(seat=name)
        if plies < 4:
            return _("{seat}: place your second stone with an empty point between it and "
                     "the first").format(seat=name)
        return _("{seat}: place a stone").format(seat=name)

    def control_state(self, view: View | None) -> dict[str, tuple[bool, str]]:
        """Which of Kato's buttons a press would use now, and why not (docs/TABLE.md).

        Read from ``view`` (the one the table shows): the pie question's buttons, and
        ``swap``/``pass`` among its legal actions; Confirm passes on a pass-only turn.
        """
        if self.result() is not None:
            return {name: (False, _("The game is over")) for name in self.controls}
        question = view.question if view is not None else None
        answers = dict(question.buttons) if question is not None else {}
        legal = set(view.legal) if view is not None else set()
        passing = "pass" in legal
        out: dict[str, tuple[bool, str]] = {}
        for name in self.controls:
            if name in answers:
                out[name] = (True, _("Answer: {answer}").format(answer=answers[name]))
            elif name == "swap":
                out[name] = ((True, _("Swap colours (the pie choice)")) if "swap" in legal else
                             (False, _("Only for the pie choice, after the opener's two stones")))
            elif name == "pass":
                out[name] = ((True, _("Pass: no placement is possible")) if passing else
                             (False, _("Passing is allowed only when no placement is legal")))
            elif name == "confirm":
                out[name] = ((True, _("Pass: no placement is possible")) if passing else
                             (False, _("Nothing to confirm: play on the board")))
        return out

    # --- what a settled board means ----------------------------------------------------

    def interpret(self, observation: Observation) -> Interpretation:
        extra, missing = observation.extra, observation.missing
        dead = (self._pending_removal() - observation.seen_empty) & extra
        result = self.result()
        new = extra - dead
        if not missing and len(new) == 1 and result is None and not self._choice_open():
            (site,) = new
            if not dead and site in self._legal():
                return Interpretation(action=site, message=_("{seat} places {site}").format(
                    seat=seat_word(self.to_move), site=site))
            if dead and self._tournament:
                # Tournament: the mover placed without lifting the dead stones, so they
                # were overlooked and live on (the rule text); the engine checks the rest.
                cells = " ".join(sorted(dead, key=self._points.index))
                return Interpretation(
                    action=f"{site} overlooked {cells}",
                    message=_("{seat} places {site}, overlooking {cells}").format(
                        seat=seat_word(self.to_move), site=site, cells=cells),
                )
        if self._tournament and dead and dead == extra and not missing:
            # The mover may lift the dead stones or overlook them: nothing to guide.
            return Interpretation(message=self._play_message(self.to_move))
        mistakes: list[Mistake] = []
        loser = _other(self.to_move)
        for site in sorted(dead, key=self._points.index):
            mistakes.append(Mistake(site, "remove", _("{seat}'s dead group: remove it").format(
                seat=seat_word(loser))))
        others = sorted(extra - dead, key=self._points.index)
        for site in others:
            mistakes.append(Mistake(site, "remove", self._why_not(site, len(others), bool(dead))))
        prior = observation.prior
        for site in sorted(missing, key=self._points.index):
            if site == prior and self.past and site in self.past[-1].placed:
                reason = _("press Undo to take back {site}, or put the stone back").format(
                    site=site)
            else:
                reason = _("this stone is still in play: put it back")
            mistakes.append(Mistake(site, "put_back", reason))
        all_at_once = bool(dead) and len(dead) == len(mistakes) and self._assist != "tournament"
        if all_at_once:
            message = _("{seat}'s turn: remove {loser}'s dead stones ({sites})").format(
                seat=seat_word(self.to_move), loser=seat_word(loser),
                sites=", ".join(m.site for m in mistakes))
        else:
            first = mistakes[0]
            verb = (_("Remove the stone on {site}: {reason}") if first.kind == "remove"
                    else _("Put a stone back on {site}: {reason}"))
            message = verb.format(site=first.site, reason=first.reason)
        return Interpretation(mistakes=tuple(mistakes), all_at_once=all_at_once, message=message)

    def _why_not(self, site: str, count: int, dead_pending: bool) -> str:
        mover = seat_word(self.to_move)
        if self.result() is not None:
            return _("the game is over")
        if count > 1:
            return _("{count} stones were placed at once: lift them and place one").format(
                count=count)
        if dead_pending:
            return _("remove the dead stones first, then place")
        if self._choice_open():
            return _("the pie choice comes first: Swap, or Keep with Confirm")
        legal = self._legal()
        if legal == {"pass"}:
            return _("{seat} has no legal placement: lift it and press Confirm to pass").format(
                seat=mover)
        return self._illegal_reason(site)

    def _illegal_reason(self, site: str) -> str:
        """The engine's own words for why ``site`` is illegal (the state is unchanged:
        an illegal play raises before it changes anything)."""
        try:
            self._engine.play(site)
        except ValueError as exc:
            return said(exc)
        self._engine.undo()  # it was legal after all (the caller's view was stale)
        return _("{site} was not expected here").format(site=site)

    # --- inputs ---------------------------------------------------------------------

    def button(self, name: str) -> Interpretation:
        if self.result() is not None:
            raise AdapterError(say("button {name}: the game is over", name=repr(name)))
        if name == "confirm":
            if self._choice_open():
                return self.answer(PIE, "keep")
            if self._legal() == {"pass"}:
                return Interpretation(action="pass", message=_("{seat} passes").format(
                    seat=seat_word(self.to_move)))
            raise AdapterError(say("Confirm does nothing now: place a stone on a lit point"))
        if name == "pass":
            if "pass" in self._legal():
                return Interpretation(action="pass", message=_("{seat} passes").format(
                    seat=seat_word(self.to_move)))
            raise AdapterError(say(
                "{seat} cannot pass: passing is allowed only when no placement is legal",
                seat=Words(self.to_move.capitalize())))
        if name == "swap":
            if self._choice_open():
                return self.answer(PIE, "swap")
            raise AdapterError(say("Swap is only for the pie choice, after the opener's two "
                                   "stones"))
        raise AdapterError(say(
            "button {name} means nothing in Kato's Meridians; use confirm, pass, swap, undo "
            "or menu", name=repr(name)))

    def settle_time(self, motion: Motion) -> float | None:
        """One new stone on a legal point, nothing else moving in the window: read it
        after QUICK_SETTLE_S. A slide across neighbouring points or a lift and re-place
        (a stone knocked and settling back too) waits HANDS_AT_WORK_S, longer than a
        hand's hesitation on its way. Anything else (two stones at once, dead stones
        still standing, the pie choice) waits the table's full window."""
        if self._choice_open() or self.result() is not None:
            return None
        site = motion.single_arrival()
        if site is not None:
            return QUICK_SETTLE_S if site in self._legal() else None
        return HANDS_AT_WORK_S if motion.hands_at_work() else None

    def person_inputs(self, action: str) -> tuple[tuple[str, str], ...]:
        """A pass or a swap is a button press; a placement asks nothing."""
        return (("button", action),) if action in ("pass", "swap") else ()

    def automaton_inputs(self, action: str) -> tuple[tuple[str, str], ...]:
        """Playing on instead of swapping answers the pie choice with "keep"."""
        if self._choice_open() and action != "swap":
            return ((PIE, "keep"),)
        return ()

    def describe(self, action: str) -> str:
        if action == "swap":
            return _("swap colours (pie rule)")
        if action == "pass":
            return _("pass")
        head = action.split()[0]
        return _("a {seat} stone on {site}").format(
            seat=seat_word(self.to_move or "").lower(), site=head)

    def answer(self, field_name: str, value: str) -> Interpretation:
        if field_name != PIE:
            raise AdapterError(say("Kato asks no {field}; the only question is {pie}",
                                   field=repr(field_name), pie=repr(PIE)))
        if not self._choice_open():
            raise AdapterError(say("there is no pie choice to make now"))
        if value == "swap":
            return Interpretation(action="swap", message=_("the players swap colours"))
        if value == "keep":
            self._kept_at = len(self.past)
            return Interpretation(choice=(PIE, "keep"), message=_("the opener keeps Dark"))
        raise AdapterError(say("pie choice {value} is not 'swap' or 'keep'", value=repr(value)))

    # --- changing the game --------------------------------------------------------------

    def play(self, action: str) -> Applied:
        mover = self.to_move
        ply = self._engine.play(action)
        removed = frozenset(ply.removed)
        head = action.split()[0] if action.strip() else action
        placed = frozenset({head}) if head in self._points else frozenset()
        return Applied(action, mover, placed, removed)

    def undo(self, applied: Applied) -> None:
        del applied
        if self._concluded is not None:
            raise AdapterError(say("the game was ended by agreement; it cannot be undone"))
        self._engine.undo()
        if self._kept_at is not None and self._kept_at > len(self.past):
            self._kept_at = None

    def dialogue(self) -> dict[str, object]:
        """``{"kept_at": ply}`` once the opener kept Dark under the pie rule, else ``{}``."""
        return {} if self._kept_at is None else {"kept_at": self._kept_at}

    def reopen(self, record: Mapping[str, object]) -> None:
        self._kept_at = record_number(record, "kept_at", self.game)

    # --- scores and the end ------------------------------------------------------------

    def scores(self) -> dict[str, Any]:
        pieces = self.pieces()
        out: dict[str, Any] = {}
        for colour in self.colours:
            stones = sum(1 for label in pieces.values() if label == LABELS[colour])
            safe = len(self._engine.safe_points(colour))
            out[colour] = {
                "total": safe,
                "breakdown": [
                    {"label": _("safe points"), "value": safe},
                    {"label": _("stones"), "value": stones},
                ],
            }
        return out

    def result(self) -> dict[str, Any] | None:
        if self._concluded is not None:
            return self._concluded
        winner = self._engine.winner
        if winner is None:
            return None
        loser = _other(str(winner))
        return {
            "winner": str(winner),
            "reason": _("{seat} has no stones at the start of its turn").format(
                seat=seat_word(loser)),
            "scores": self.scores(),
        }

    def adjudicate(self) -> dict[str, Any] | None:
        if self.result() is not None or len(self.past) < 4:
            return None
        scores = self.scores()
        light, dark = scores["light"]["total"], scores["dark"]["total"]
        winner = "light" if light > dark else "dark" if dark > light else None
        return {
            "winner": winner,
            "reason": _("agreed count of safe points: {light_seat} {light}, {dark_seat} "
                        "{dark}").format(light_seat=seat_word("light"), light=light,
                                         dark_seat=seat_word("dark"), dark=dark),
            "scores": scores,
            "adjudicated": True,
        }

    def count_marks(self) -> tuple[CountMark, ...]:
        """The safe points the count credits: Light's alone in amber, Dark's alone in
        blue, and the points safe for both in white (the LEDs' own colours)."""
        light = self._engine.safe_points("light")
        dark = self._engine.safe_points("dark")
        both = light & dark
        order = self._points.index
        marks = []
        # Whole sentences per colour: a colour word alone has a gender in French
        # (Empire's "white" planet is "blanche", this ring is "blanc").
        for seat, sites, colour, sentence in (
                ("light", light - both, LIGHT_COLOUR,
                 _("amber ring: a safe point for {seat} only ({n})")),
                ("dark", dark - both, DARK_COLOUR,
                 _("blue ring: a safe point for {seat} only ({n})"))):
            marks.append(CountMark(
                colour, sentence.format(seat=seat_word(seat), n=len(sites)),
                tuple(sorted(sites, key=order)), seat))
        if both:
            marks.append(CountMark(
                BOTH_COLOUR, _("white ring: a safe point for both ({n}), counted for "
                               "each").format(n=len(both)),
                tuple(sorted(both, key=order)), None))
        return tuple(marks)

    def conclude(self, result: dict[str, Any]) -> None:
        if self.result() is not None:
            raise AdapterError(say("the game is already over"))
        self._concluded = dict(result)


def _and(sites: tuple[str, ...]) -> str:
    """``("G6", "K6", "B2")`` -> ``"G6, K6 and B2"``."""
    return sites[0] if len(sites) == 1 else _("{some} and {last}").format(
        some=", ".join(sites[:-1]), last=sites[-1])


def _other(colour: str) -> str:
    return "dark" if colour == "light" else "light"


def _result_message(result: dict[str, Any]) -> str:
    winner = result.get("winner")
    reason = str(result.get("reason", ""))
    if isinstance(winner, str):
        return _("{seat} wins: {reason}").format(seat=seat_word(winner), reason=reason)
    return _("A draw: {reason}").format(reason=reason)


