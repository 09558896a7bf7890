"""Colovini's Meridian on a physical board: one switch and one LED per city, plus buttons.

The questions the table asks of the players (which meridian, which card, where, which
height, a rebuild) are the turn dialogue, in ``colovini_dialogue.py``; this module reads
the board and says what the LEDs show.

A reed switch sees that a tower stands on a city, not its colour or height. The table
knows colour from whose turn it is and asks for what it cannot sense (issue 6,
"Physical-board adapter"; docs/games/colovini.md):

1. **Choose the meridian** with the buttons ``meridian1`` ... ``meridian10`` (or the page).
   When two playable cards allow it (``3`` and ``1-2-3``), the player says which card
   (``minus``/``plus`` then ``confirm``, or the page).
2. **Options:** the meridian's LEDs show where a new tower can stand (mover's colour,
   dim) and which towers some option would push (cyan blink); the message lists every
   option with its heights.
3. **Build and match:** the settled occupancy of that meridian is compared with every
   legal outcome. One outcome: played. Several (the heights of a band, or two cities
   with the same occupancy): a question, ``plus``/``minus`` then ``confirm`` or the page.
   No outcome: the nearest one is guided (a pushed tower left in the wrong place).
4. **Own tower and pass:** lifting your own tower on the chosen meridian asks for
   ``confirm`` (remove it, keep the pieces) so that a rebuild can be built in steps;
   when the towers then stand as before, the table asks ``rebuild`` (``keep``, or a
   rebuild the switches cannot see); ``pass`` passes (asking which card when open).
5. **End:** each island lights in its owner's colour, tied islands blink amber;
   ``confirm`` then toggles the tidy-up guide (towers to take off blink red).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar

from meridian_table.games import colovini
from meridian_table.games.board import (
    ASK,
    CHOICE,
    ENDED,
    HANDS_AT_WORK_S,
    PASS,
    PLAY,
    REMOVE,
    Adapter,
    AdapterError,
    Applied,
    Interpretation,
    Mistake,
    Motion,
    Observation,
    Question,
    SiteDrawing,
    View,
    flash,
    hint,
    record_number,
    record_text,
    record_texts,
)
from meridian_table.games.colovini import Action, card_meridians, city_id
from meridian_table.games.colovini.dialogue import (
    HEIGHT,
    MERIDIAN,
    MERIDIAN_BUTTONS,
    REMOVE_OWN,
    WHERE,
    TurnDialogue,
    pattern,
    stepped,
    where_key,
    where_words,
)
from meridian_table.games.colovini.meridian import Column, apply_placement, placement_cities
from meridian_table.games.colovini.words import TowerWords, city_words, summarise
from meridian_table.i18n import N_, _, say, seat_word
from meridian_table.ledplan import BLINK, SOLID, Light

LOGGER = logging.getLogger(__name__)

SEATS = ("orange", "black", "brown", "grey")
#: LEDs cannot show black, brown or grey pieces: each seat has a distinct LED colour.
LED_COLOURS = {"orange": 0xFF5000, "black": 0x2040FF, "brown": 0x00C040, "grey": 0xC000C0}
#: The towers' real colours, for the page (black and brown share an initial, so the
#: page cannot colour a tower from its label alone).
PIECE_COLOURS = {"orange": "#f07800", "black": "#202020", "brown": "#7a4a1e", "grey": "#8c8c8c"}
#: A tower that some option on the chosen meridian would push.
PUSHED = Light(0x00C8FF, BLINK)
#: An island left unassigned by a tie, at the end.
TIED = Light(0xFFA000, BLINK)


class BoardMismatchError(ValueError):
    """The game's map does not fit the board profile (40 cities versus 50)."""


class PlayerCountError(ValueError):
    """A player count Colovini's Meridian is not played with."""


def _player_count(players: int | None, side: int | None) -> int:
    """The player count, defaulting by the board's side: 3 on 40 cities, else 4."""
    if players is not None:
        if players not in (2, 3, 4):
            raise PlayerCountError(
                f"players: {players} named, but Colovini's Meridian is for 2, 3 or 4; "
                "name 2 to 4 different players, e.g. --players Ann,Bob,Cid,Dee "
                "(3 players use the 40-city board: --profile colovini-40)"
            )
        return int(players)
    return 3 if side == 40 else 4


#: The seats' words, for the catalog (seat_word translates them).
SEAT_WORDS = (N_("Orange"), N_("Black"), N_("Brown"), N_("Grey"))


class ColoviniAdapter(TurnDialogue, TowerWords, Adapter):
    """Colovini's Meridian for 2, 3 or 4 players; options as in ``colovini.new_game``."""

    game: ClassVar[str] = "colovini"
    stacked: ClassVar[bool] = True
    colours: tuple[str, ...] = SEATS  # the seats in play: set per game in __init__
    controls: ClassVar[tuple[str, ...]] = ("confirm", "pass", "plus", "minus", *MERIDIAN_BUTTONS)

    def __init__(
        self,
        players: int | None = None,
        map: str | None = None,  # noqa: A002 - the logged option's name
        deck: str = "digital",
        seed: int | None = None,
        names: list[str] | None = None,
        map_text: str | None = None,
        *,
        side: int | None = None,
        engine: colovini.Game | None = None,
    ) -> None:
        """``side`` is the board's number of cities (its profile's variant: 50 or 40).

        It is not a game option (the map says it): it picks the player count when none is
        given (3 on the 40-city side, else 4) and refuses a map that does not fit the board.
        """
        if engine is None:
            count = _player_count(players, side)
            engine = colovini.new_game(
                players=count, map=map, deck=deck, seed=seed,
                names=names or [s.capitalize() for s in SEATS[:count]],
                **({} if map_text is None else {"map_text": map_text}),
            )
        self.colours = SEATS[: engine.players]
        cities = len(engine.board_map.cities)
        if side is not None and cities != side:
            if _player_count(None, side) == engine.players or (side == 50 and engine.players == 2):
                fix = f"choose a map for this board (side = {side // 10} in the map file)"
            else:
                fix = (f"use the colovini-{cities} board profile (--profile colovini-{cities}), "
                       f"or play with {'3' if side == 40 else '2 or 4'} players on this board")
            raise BoardMismatchError(
                f"map {engine.board_map.name!r} has {cities} cities but this board has {side}; "
                f"{engine.players} players play on the {cities}-city side: {fix}"
            )
        self._engine = engine
        self._concluded: dict[str, Any] | None = None  # a resignation
        self._drawing = tuple(
            SiteDrawing(c.id, float(c.meridian - 1), float(c.index - 1))
            for c in engine.board_map.cities.values()
        )
        self._tidy = False
        self._reset()

    def _reset(self) -> None:
        """Forget the turn's inputs (after an action or an undo)."""
        self._meridian: int | None = None
        self._card: str | None = None
        self._passing = False
        self._cursor = 0
        self._candidates: list[str] = []  # every outcome the settled board fits
        self._where: str | None = None  # the player's answer to "which city?"
        self._pending: list[str] = []  # the candidates left after that answer
        self._lifted: int | None = None  # the mover's own tower seen lifted (city index)
        self._fresh = False

    def __repr__(self) -> str:
        return f"ColoviniAdapter(**{self.options!r})"

    # --- state ------------------------------------------------------------------------

    @property
    def engine(self) -> colovini.Game:
        return self._engine

    @property
    def options(self) -> dict[str, Any]:
        return self._engine.options

    @property
    def to_move(self) -> str:
        return self.colours[self._engine.to_move]

    @property
    def meridian(self) -> int | None:
        """The meridian chosen for this turn, if any."""
        return self._meridian

    @property
    def card(self) -> str | None:
        """The card chosen (or implied) for this turn, if any."""
        return self._card

    def sites(self) -> tuple[SiteDrawing, ...]:
        return self._drawing

    def expected(self) -> frozenset[str]:
        return frozenset(self._engine.garrisons())

    def pieces(self) -> dict[str, str]:
        out = {}
        for city, seat in self._engine.garrisons().items():
            tower = self._engine.tower_at(city)
            height = tower[1] if tower else 0
            out[city] = f"{self.colours[seat][0].upper()}{height}"
        return out

    def board_json(self) -> dict[str, Any]:
        """The page's board, each tower with its ``seat``, ``height``, ``colour`` and
        ``label`` (the height) besides the base's ``piece`` (``O3``).

        The map rides along in the optional board fields of docs/TABLE.md: each city's
        ``group`` (its island key) and ``major`` (a capital); ``groups`` (the islands,
        with ``owner``/``colour``/``tied`` once the game is over, as the end LEDs show);
        ``axis_labels`` (the meridian numbers under the board) and ``north_label``.
        """
        board: dict[str, Any] = super().board_json()
        board.pop("map_text", None)  # the log's copy of the map; the page draws the cities
        board_map = self._engine.board_map
        garrisons = self._engine.garrisons()
        for site in board["sites"]:
            city = board_map.cities.get(site["id"])
            if city is not None:
                site.update(group=city.island, major=city.capital)
        board["groups"] = self._groups_json()
        south = max((d.y for d in self._drawing), default=0.0) + 1.0
        board["axis_labels"] = [
            {"text": str(m), "x": float(m - 1), "y": south} for m in range(1, 11)
        ]
        board["north_label"] = _("N (taller towers)")
        if not self._engine.is_over:
            # The mover's hand, as BoardGameArena shows it: the cards face up (a physical
            # deck's are not known: only how many are left).
            player = self._engine.to_move
            board["hand"] = {"seat": self.to_move,
                             "cards": list(self._engine.face_up(player)),
                             "left": len(self._engine.cards_left(player)),
                             "chosen": self._card}
        for site in board["sites"]:
            seat = garrisons.get(site["id"])
            if seat is None:
                continue
            tower = self._engine.tower_at(site["id"])
            height = tower[1] if tower else 0
            name = self.colours[seat]
            site.update(seat=name, height=height, colour=PIECE_COLOURS[name], label=str(height))
        return board

    def _groups_json(self) -> list[dict[str, Any]]:
        """The islands for the page; the owner (a seat), its colour and ``tied`` only
        once the game is over, so that the bands light up as the end LEDs do."""
        over = self._engine.is_over
        out: list[dict[str, Any]] = []
        for island in self._engine.result().islands:
            owner = None
            if over and island.owner is not None:
                owner = self.colours[self._engine.names.index(str(island.owner))]
            out.append({
                "id": island.key, "name": island.name, "value": island.value,
                "owner": owner, "colour": PIECE_COLOURS[owner] if owner else None,
                "tied": over and island.tied,
            })
        return out

    def _colour(self, seat: int | str) -> int:
        name = self.colours[seat] if isinstance(seat, int) else seat
        return LED_COLOURS[name]

    def _cards_for(self, meridian: int) -> list[str]:
        return [c for c in self._engine.playable_cards() if meridian in card_meridians(c)]

    def _allowed_meridians(self) -> list[int]:
        found = {m for c in self._engine.playable_cards() for m in card_meridians(c)}
        return sorted(found)

    def _actions(self) -> list[Action]:
        """The mover's legal non-pass actions with the chosen card on the chosen meridian."""
        if self._meridian is None or self._card is None:
            return []
        return [
            a for a in self._engine.legal_actions()
            if a.card == self._card and a.meridian == self._meridian
        ]

    def _outcome(self, action: Action) -> Column:
        column = self._engine.state.columns[action.meridian - 1]
        if action.remove:
            column = column[: action.remove - 1] + (None,) + column[action.remove :]
        if not action.city:
            return column
        push = dict(placement_cities(column, action.height))[action.city - 1]
        return apply_placement(column, action.city - 1, push, (self._engine.to_move, action.height))

    def _outcomes(self) -> dict[frozenset[int], list[Action]]:
        out: dict[frozenset[int], list[Action]] = {}
        for action in self._actions():
            out.setdefault(pattern(self._outcome(action)), []).append(action)
        return out

    # --- what the LEDs and the page show ----------------------------------------------

    def view(self, prior: str | None) -> View:
        if not self._fresh:
            self._pending = []  # the board matches again: nothing sensed is pending
            self._candidates = []
        self._fresh = False
        mover = self.to_move
        if self._engine.is_over:
            return self._end_view()
        lights: dict[str, Light] = {}
        if prior is not None and prior in self.expected():
            seat = self._engine.garrisons()[prior]
            lights[prior] = flash(self._colour(seat))
        name = seat_word(mover)
        if self._pending:
            return self._pending_view(lights)
        if self._passing:
            question = self._card_question(_("Which card do you discard to pass?"),
                                           list(self._engine.playable_cards()))
            return View(CHOICE, question.prompt, lights, (), question, mover)
        if self._meridian is None:
            allowed = self._allowed_meridians()
            cards = ", ".join(self._engine.face_up(self._engine.to_move)) or _("any card left")
            phase = PASS if self._engine.must_pass() else PLAY
            prompt = (_("{seat}: choose a meridian (cards: {cards}). No tower can be built: "
                        "press Pass.") if phase == PASS else
                      _("{seat}: choose a meridian (cards: {cards}). Or press Pass."))
            question = Question(
                MERIDIAN, prompt.format(seat=name, cards=cards),
                tuple(str(m) for m in allowed),
                {f"meridian{m}": str(m) for m in allowed},
                {str(m): _("Meridian {n}").format(n=m) for m in allowed},
            )
            return View(phase, question.prompt, lights, (), question, mover)
        if self._card is None:
            question = self._card_question(
                _("{seat}: which card do you play on meridian {meridian}?").format(
                    seat=name, meridian=self._meridian),
                self._cards_for(self._meridian),
            )
            return View(CHOICE, question.prompt, lights, (), question, mover)
        rebuild = self._rebuild_question()
        if rebuild is not None and self._meridian is not None and self._lifted is not None:
            lights[city_id(self._meridian, self._lifted)] = ASK
            return View(CHOICE, rebuild.prompt, lights, (), rebuild, mover)
        return self._options_view(lights)

    def control_state(self, view: View | None) -> dict[str, tuple[bool, str]]:
        """Which of Colovini's buttons a press would use now, and why not (docs/TABLE.md).

        Pass is always open (a card is discarded instead of building); plus/minus step
        through a question with two or more answers, but not the meridian question (the
        meridian buttons answer it); a meridian button is open when the mover's cards
        allow that meridian. After the end, Confirm toggles the tidy-up guide.
        """
        if self._engine.is_over:
            out = {name: (False, _("The game is over")) for name in self.controls}
            out["confirm"] = (True, _("Hide the tidy-up guide") if self._tidy else
                              _("Show the tidy-up guide: the towers to take off blink red"))
            return out
        question = view.question if view is not None else None
        answers = dict(question.buttons) if question is not None else {}
        allowed = set(self._allowed_meridians())
        out = {}
        for name in self.controls:
            if name in answers:
                out[name] = (True, _("Answer: {answer}").format(answer=answers[name]))
            elif name == "pass":
                must = view is not None and view.phase == PASS
                out[name] = (True, _("Pass: no tower can be built") if must else
                             _("Pass: discard a card instead of building"))
            elif name == "confirm":
                out[name] = (False, _("Nothing to confirm: play on the board"))
            elif name in ("plus", "minus"):
                steps = (question is not None and question.field != MERIDIAN
                         and len(question.choices) >= 2)
                out[name] = ((True, _("Step through the answers")) if steps else
                             (False, _("Nothing to choose between now")))
            elif name in MERIDIAN_BUTTONS:
                m = int(name[len("meridian"):])
                if m not in allowed:
                    out[name] = (False, _("Meridian {m} is not open to you now").format(m=m))
                else:
                    out[name] = (True, (_("Choose meridian {m}") if self._meridian is None
                                        else _("Choose meridian {m} instead")).format(m=m))
        return out

    def _options_view(self, lights: dict[str, Light]) -> View:
        m = self._meridian
        if m is None or self._card is None:
            raise AdapterError(say("no meridian and card chosen yet"))
        mover = self.to_move
        colour = self._colour(mover)
        actions = self._actions()
        column = self._engine.state.columns[m - 1]
        legal: list[str] = []
        for action in actions:
            if action.city and not action.remove:
                site = city_id(m, action.city)
                if site not in legal:
                    legal.append(site)
                lights.setdefault(site, hint(colour))
                if column[action.city - 1] is not None:
                    lights[site] = PUSHED
        summary = summarise(actions, column, m, self.colours)
        name = seat_word(mover)
        if not actions:
            message = _("{seat}: nothing can be built on meridian {meridian} with card {card}: "
                        "press Pass").format(seat=name, meridian=m, card=self._card)
            return View(PASS, message, lights, (), None, mover)
        message = _("{seat}, meridian {meridian} (card {card}): {summary}. Or press Pass.").format(
            seat=name, meridian=m, card=self._card, summary=summary)
        return View(PLAY, message, lights, tuple(legal), None, mover)

    def _pending_view(self, lights: dict[str, Light]) -> View:
        mover = self.to_move
        choices = self._pending
        cursor = self._cursor % len(choices)
        actions = [Action.parse(n) for n in choices]
        for action in actions:
            for site in _placed_sites(self._engine.state.columns[action.meridian - 1],
                                      self._outcome(action), action.meridian):
                lights[site] = ASK
        if len(actions) == 1 and actions[0].kind == "remove":
            site = city_id(actions[0].meridian, actions[0].remove)
            lights[site] = ASK
            question = Question(
                REMOVE_OWN,
                _("{seat}: you lifted your tower from {site}. Confirm to remove it and keep its "
                  "pieces, or build the new tower (on this city too, at another height)").format(
                    seat=seat_word(mover), site=city_words(site)),
                ("yes",), {"confirm": "yes"}, {"yes": _("take it off")},
            )
            return View(CHOICE, question.prompt, lights, (), question, mover)
        groups = list(dict.fromkeys(where_key(a) for a in actions))
        if len(groups) == 1:
            values = tuple(str(a.height) for a in actions)
            where = city_id(actions[0].meridian, actions[0].city)
            prompt = _("{seat}: how high is the new tower on {site}?").format(
                seat=seat_word(mover), site=city_words(where))
            field_name = HEIGHT
            labels = {v: _("{height} high").format(height=v) for v in values}
        else:
            values = tuple(groups)
            cursor %= len(values)
            prompt = _("{seat}: where did you stand the new tower? (the occupancy fits several "
                       "cities)").format(seat=seat_word(mover))
            field_name = WHERE
            labels = {v: where_words(v) for v in values}
        buttons = {"confirm": values[cursor]}
        question = Question(field_name, stepped(prompt, labels[values[cursor]]),
                            values, buttons, labels)
        return View(CHOICE, question.prompt, lights, (), question, mover)

    def finale(self, observation: Observation) -> View:
        """After the end: the islands, and with the tidy-up guide on, the towers to take
        off blink red until they are lifted (then their cities go dark)."""
        return self._end_view(observation.sensed)

    def _end_view(self, sensed: frozenset[str] | None = None) -> View:
        """The islands in their owners' colours; ``sensed``: the settled board, so that a
        tower the tidy-up guide asked for goes dark once lifted (None: all still stand)."""
        result = self._engine.result()
        lights: dict[str, Light] = {}
        for island in result.islands:
            for city in island.cities:
                if island.owner is not None:
                    seat = self._engine.names.index(str(island.owner))
                    lights[city] = Light(self._colour(seat), SOLID)
                elif island.tied:
                    lights[city] = TIED
        if self._tidy:
            left = []
            for city in self._tidy_sites():
                if sensed is None or city in sensed:
                    lights[city] = REMOVE
                    left.append(city)
                else:
                    lights.pop(city, None)  # lifted: that city goes dark
            if left:
                message = _("Tidy-up: take off the towers that blink red ({left} left), then "
                            "count. {tie_break}").format(left=len(left),
                                                        tie_break=self._reason(result.totals))
            else:
                message = _("Tidy-up done: count the islands. {tie_break}").format(
                    tie_break=self._reason(result.totals))
        else:
            message = _("{tie_break} Press Confirm for the tidy-up guide.").format(
                tie_break=self._reason(result.totals))
        return View(ENDED, message, lights, (), None, None)

    def _tidy_sites(self) -> list[str]:
        """The rule book's tidy-up: clear tied islands, keep one owner tower per island."""
        result = self._engine.result()
        garrisons = self._engine.garrisons()
        names = self._engine.names
        out: list[str] = []
        for island in result.islands:
            towers = [c for c in island.cities if c in garrisons]
            if island.owner is None:
                out.extend(towers)
                continue
            owner = names.index(str(island.owner))
            keep = next(c for c in towers if garrisons[c] == owner)
            out.extend(c for c in towers if c != keep)
        return out

    # --- what a settled board means --------------------------------------------------

    def interpret(self, observation: Observation) -> Interpretation:
        self._fresh = True
        changed = observation.extra | observation.missing
        meridians = {int(site.split(".")[0]) for site in changed}
        if self._meridian is None or self._card is None or meridians != {self._meridian}:
            self._pending = []
            return self._off_meridian(observation)
        m = self._meridian
        sensed = frozenset(
            int(s.split(".")[1]) for s in observation.sensed if s.startswith(f"{m}.")
        )
        outcomes = self._outcomes()
        found = outcomes.get(sensed)
        if found:
            notations = [a.notation() for a in found]
            if notations != self._candidates:
                self._candidates = notations
                self._cursor = 0
            pending = [a for a in found if self._where in (None, where_key(a))] or found
            self._pending = [a.notation() for a in pending]
            if len(pending) == 1 and pending[0].kind == "remove":
                self._lifted = pending[0].remove  # a rebuild in place may follow
            if len(pending) == 1 and pending[0].kind != "remove":
                return Interpretation(action=self._pending[0],
                                      message=f"{self.to_move} builds {self._pending[0]}")
            return Interpretation(message="the board leaves it open: answer the question")
        self._pending = []
        self._candidates = []
        return self._guide(observation, sensed, outcomes)

    def _off_meridian(self, observation: Observation) -> Interpretation:
        m = self._meridian
        mistakes: list[Mistake] = []
        for site in sorted(observation.extra):
            if m is None:
                why = "choose a meridian first (the buttons under the numbers), then build"
            elif self._card is None:
                why = f"say which card you play on meridian {m} first"
            elif not site.startswith(f"{m}."):
                why = f"you build on meridian {m} this turn, not here: lift it"
            else:
                why = "no tower belongs here: lift it"
            mistakes.append(Mistake(site, "remove", why))
        for site in sorted(observation.missing):
            mistakes.append(Mistake(site, "put_back", "this tower stays: put it back"))
        first = mistakes[0]
        verb = "Lift the tower on" if first.kind == "remove" else "Put the tower back on"
        return Interpretation(mistakes=tuple(mistakes), message=f"{verb} {first.site}: {first.reason}")

    def _guide(
        self, observation: Observation, sensed: frozenset[int],
        outcomes: dict[frozenset[int], list[Action]],
    ) -> Interpretation:
        m = self._meridian
        if m is None:
            raise AdapterError(say("no meridian chosen yet"))
        column = self._engine.state.columns[m - 1]
        current = pattern(column)
        # the nearest legal outcome (the starting position counts: maybe nothing was meant)
        targets = [(len(p ^ sensed), len(p - sensed), n, p) for n, p in enumerate(outcomes)]
        targets.append((len(current ^ sensed), len(current - sensed), -1, current))
        target = min(targets)[3]
        moves: dict[int, int] = {}
        new_city = 0
        if target in outcomes:
            action = outcomes[target][0]
            new_city = action.city
            before = column
            if action.remove:
                before = column[: action.remove - 1] + (None,) + column[action.remove :]
            push = dict(placement_cities(before, action.height)).get(action.city - 1, 0)
            j = action.city - 1
            while push and before[j] is not None:
                moves[j + 1 + push] = j + 1
                j += push
        mistakes: list[Mistake] = []
        for index in sorted(sensed - target):
            mistakes.append(Mistake(city_id(m, index), "remove",
                                    "no tower stands here after any option: lift it"))
        for index in sorted(target - sensed):
            if index == new_city:
                why = "the new tower goes here"
            elif index in moves:
                why = f"the pushed tower from {city_id(m, moves[index])} goes here"
            elif index in current:
                why = "this tower stays (or is pushed along): put it back"
            else:
                why = "the new tower goes here"
            mistakes.append(Mistake(city_id(m, index), "put_back", why))
        for site in sorted(observation.extra | observation.missing):
            if not site.startswith(f"{m}."):
                if site in observation.extra:
                    mistakes.append(Mistake(site, "remove", f"only meridian {m} changes this turn"))
                else:
                    mistakes.append(Mistake(site, "put_back", f"only meridian {m} changes this turn"))
        first = mistakes[0]
        verb = "Lift the tower on" if first.kind == "remove" else "Put a tower on"
        return Interpretation(mistakes=tuple(mistakes), message=f"{verb} {first.site}: {first.reason}")

    # --- inputs -------------------------------------------------------------------------

    def settle_time(self, motion: Motion) -> float | None:
        """While a meridian is chosen, a tower being stacked (its city's switch opening
        and closing again) or towers pushed along the meridian (changes on neighbouring
        cities) wait HANDS_AT_WORK_S; anything else the table's full window. No early
        read: the board read asks the height anyway, and a tower is often still being
        stacked when its first piece lands."""
        if self._meridian is not None and motion.hands_at_work():
            return HANDS_AT_WORK_S
        return None

    # --- changing the game -------------------------------------------------------------

    def play(self, action: str) -> Applied:
        mover = self.to_move
        before = self.expected()
        owners = self._engine.garrisons()
        step = self._engine.play(action)  # IllegalActionError (a ValueError) leaves all unchanged
        after = self.expected()
        # `placed` is the new tower's city, the one that flashes in the mover's colour.
        # The occupancy difference would name the end of a push chain instead (a pushed
        # tower, someone else's colour), or nothing when the chain ends in a new city.
        done = step.action
        placed = frozenset({city_id(done.meridian, done.city)}) if done.city else frozenset()
        applied = Applied(action, mover, placed, frozenset(before - after),
                          self.played_words(action, step.pushed, owners))
        self._reset()
        return applied

    def undo(self, applied: Applied) -> None:
        del applied
        if self._concluded is not None:
            raise AdapterError(say("the game was ended by a resignation; it cannot be undone"))
        self._engine.undo()
        self._tidy = False
        self._reset()

    def dialogue(self) -> dict[str, object]:
        """The turn being built (meridian, card, pass, the choice pointed at, the sensed
        outcomes, the city answered, a lifted tower) and the tidy-up guide's state."""
        return {"meridian": self._meridian, "card": self._card, "passing": self._passing,
                "cursor": self._cursor, "candidates": list(self._candidates),
                "where": self._where, "pending": list(self._pending),
                "lifted": self._lifted, "fresh": self._fresh, "tidy": self._tidy}

    def reopen(self, record: Mapping[str, object]) -> None:
        g = self.game
        self._meridian, self._card = record_number(record, "meridian", g), record_text(
            record, "card", g)
        self._passing, self._cursor = bool(record.get("passing")), record_number(
            record, "cursor", g) or 0
        self._candidates, self._where = record_texts(record, "candidates", g), record_text(
            record, "where", g)
        self._pending, self._lifted = record_texts(record, "pending", g), record_number(
            record, "lifted", g)
        self._fresh, self._tidy = bool(record.get("fresh")), bool(record.get("tidy"))

    # --- scores and the end ------------------------------------------------------------

    def result(self) -> dict[str, Any] | None:
        if self._concluded is not None:
            return self._concluded
        if not self._engine.is_over:
            return None
        final = self._engine.result()
        winners = [self.colours[self._engine.names.index(str(w))] for w in final.winners]
        return {
            "winner": winners[0] if len(winners) == 1 else None,
            "winners": winners,
            "reason": self._reason(final.totals),
            "scores": self.scores(),
            "islands": [i.as_dict() for i in final.islands],
        }

    def conclude(self, result: dict[str, Any]) -> None:
        """End the game as the players chose (a resignation): no count is offered."""
        if self.result() is not None:
            raise AdapterError(say("the game is already over"))
        self._concluded = dict(result)


def _placed_sites(before: Column, after: Column, meridian: int) -> list[str]:
    return [city_id(meridian, i + 1) for i, (a, b) in enumerate(zip(before, after, strict=True))
            if a != b and b is not None]
