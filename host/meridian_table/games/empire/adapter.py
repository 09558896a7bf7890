"""Rowitt's *Meridian: Empire in Space* on a sensing board (docs/games/empire.md, "At the table").

The board senses a ship on a quadrant and a colony on a body, never how many nor whose.
The adapter reads a settled change with the turn's context: it finds the legal actions
whose resulting occupancy is the one sensed (``empire_board.explain``). One move of a
ship is taken at once; a settle waits for its cost to be confirmed; when several actions
explain the board (which of two ships left a shared quadrant, which ship was built, where
a body's last colonies went) the page and the buttons ask, offering only those. A ship lifted lights where it may go.
Everything the board cannot sense at all (a colony on a ship, a charge, combat) is
tapped on the page's energy ledger, which sends it as the answer ``action``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from meridian_table.games.board import (
    ENDED,
    PLAY,
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
    celebrate,
    dim,
    flash,
    hint,
    record_number,
    record_question,
    record_text,
    record_texts,
)
from meridian_table.games.empire.drawing import (
    SENSED_VERBS,
    drawing,
    explain,
    occupancy,
    two_payment_route,
)
from meridian_table.games.empire.engine import COLOURS, Game, IllegalActionError
from meridian_table.games.empire.ledger import (
    STAGES,
    ActionsMemo,
    card_word,
    cost,
    damage_words,
    ledger,
    reason_words,
    scelrotia_words,
    scores,
    seat_name,
    thing,
    words,
)
from meridian_table.games.empire.notation import NotationError
from meridian_table.games.empire.reach import reach
from meridian_table.i18n import _
from meridian_table.ledplan import BLINK, SOLID, Light

SCELROTIA_SEAT = "scelrotia"
LED_COLOURS = {"red": 0xFF2020, "blue": 0x2050FF, "green": 0x20D040, "yellow": 0xFFC000,
               SCELROTIA_SEAT: 0xB030D0}
#: A target that may be attacked (the page asked for them): amber, steady.
TARGET = Light(0xFFA000, SOLID)
#: The encounter's target while a combat is decided: amber, blinking.
IN_COMBAT = Light(0xFFA000, BLINK)
#: How long to wait when a ship was seen sliding over quadrants (docs: "Settling").
DRAG_SETTLE_S = 0.9
#: How soon a clean lift-and-set-down of one ship onto a legal quadrant is read.
QUICK_SETTLE_S = 0.08
#: Questions offer at most this many choices (more are tapped on the ledger).
MAX_CHOICES = 16
#: How many of the last moves the ledger's log lists.
LOG_LINES = 30


class EmpireAdapter(Adapter):
    """Empire in Space at the table: sensed moves, asked settles, the ledger's actions."""

    game: ClassVar[str] = "empire"
    controls: ClassVar[tuple[str, ...]] = ("confirm", "pass", "plus", "minus")

    def __init__(self, game: Game, options: dict[str, Any], sensing: str = "on") -> None:
        if sensing not in ("on", "off"):
            raise ValueError(f"sensing {sensing!r}: use on or off")
        self._sensing = sensing
        self._engine = game
        # The map's and cards' text are logged with the options (as Colovini's map is),
        # so the game replays and resumes whatever becomes of the files.
        self._options = dict(options, seed=game.seed, **{
            key: game.options[key] for key in ("map_text", "cards_text") if key in game.options})
        humans = len(game.players)
        self.colours = tuple(COLOURS[:humans]) + ((SCELROTIA_SEAT,) if game.read.infection else ())
        self._focus: str | None = None     # "attack" | "presence" (lit on request)
        self._asked: Question | None = None  # the question the board raised last
        self._pick = 0                        # the choice plus/minus point at
        self._asked_before: Question | None = None
        self._then: str | None = None          # the second payment of a long move
        self._offers: list[str] = []          # "give P1 P2 1" waiting for the taker
        #: An action tapped on the page or a button, and what it still owes the board
        #: (pieces to put on, pieces to take off) before the board is read again.
        self._tapped: str | None = None
        self._drawing: tuple[SiteDrawing, ...] | None = None
        self._near: dict[str, frozenset[str]] | None = None
        self._owed: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        #: The ledger's actions of the last position drawn (the page is drawn on every
        #: switch change; the position changes only when an action is played).
        self._ledger_actions = ActionsMemo()

    # --- the contract's simple parts ------------------------------------------------------

    @property
    def options(self) -> dict[str, Any]:
        return dict(self._options)

    @property
    def engine(self) -> Game:
        return self._engine

    @property
    def to_move(self) -> str | None:
        seat = self._engine.turn().seat
        return None if seat is None else self.colours[seat]

    def automaton_seats(self) -> dict[int, tuple[str, str]]:
        """The Scelrotia's seat is always its automaton (infection modes)."""
        seat = self._engine.scelrotia
        return {} if seat is None else {seat: ("Scelrotia", "scelrotia")}

    def sites(self) -> tuple[SiteDrawing, ...]:
        if self._drawing is None:  # the map never changes during a game
            self._drawing = drawing(self._engine)
        return self._drawing

    def expected(self) -> frozenset[str]:
        return occupancy(self._engine)

    def pieces(self) -> dict[str, str]:
        state = self._engine.state
        out: dict[str, str] = {}
        for ship in state.ships.values():
            here = [s for s in state.ships.values() if s.quadrant == ship.quadrant]
            owners = {s.owner for s in here}
            label = "·" if owners == {None} else "".join(
                sorted({self._letter(o) for o in owners if o is not None}))
            out[ship.quadrant] = label + (str(len(here)) if len(here) > 1 else "")
        for body in state.bodies.values():
            if body.owner is not None and body.colonies:
                out[body.id] = f"{self._letter(body.owner)}{body.colonies}"
        return out

    def _say(self, action: str) -> str:
        return words(self._engine, action, self._labels)

    @property
    def _labels(self) -> tuple[str, ...]:
        return tuple(seat_name(c) for c in self.colours)

    def _letter(self, seat: int) -> str:
        return self.colours[seat][0].upper() if self.colours[seat] != SCELROTIA_SEAT else "S"

    def board_json(self) -> dict[str, Any]:
        out: dict[str, Any] = super().board_json()
        out.pop("map_text", None)  # the log's copies of the data files; not for the page
        out.pop("cards_text", None)
        state = self._engine.state
        for site in out["sites"]:
            sid = site["id"]
            owner = None
            site["name"] = thing(self._engine, sid)  # in words (no free peeks)
            if sid in state.bodies:
                body = state.bodies[sid]
                owner = body.owner
                site["label"] = (f"{body.colonies}" if body.colonies else "")
                site["card"] = card_word(body.card) if body.discovered else None
            else:
                here = [s for s in state.ships.values() if s.quadrant == sid]
                if here:
                    owner = here[0].owner
                    site["label"] = "".join(s.kind[1] for s in here)  # i: fighter, r: frigate
            if owner is not None:
                site["seat"] = self.colours[owner]
        log = ledger_log(self._engine, self.past, self.said_words)
        out["ledger"] = ledger(self._engine, self.colours, log, self._offers,
                               self._ledger_actions)
        return out

    # --- reading the board ----------------------------------------------------------------

    def _person_turn(self) -> int | None:
        """The seat of a person taking an ordinary turn (not combat, not the Scelrotia)."""
        turn = self._engine.turn()
        if turn.seat is None or turn.phase not in ("play", "final"):
            return None
        return turn.seat

    def settings(self) -> dict[str, Any]:
        return {"sensing": self._sensing}

    @classmethod
    def default_profile(cls, players: int | None, options: dict[str, Any]) -> str:
        return "empire-in-space"

    def moved_from(self, action: str) -> tuple[str, ...]:
        """The quadrant (or body) a move or build takes its piece from, when it empties."""
        if action.split()[0] not in SENSED_VERBS:
            return ()
        return tuple(sorted(self.expected() - self._after(action)))

    def person_inputs(self, action: str) -> tuple[tuple[str, str], ...]:
        """What a person does besides moving pieces: an action the switches cannot see
        (or that puts no piece down) is tapped on the ledger; a sensed one answers the
        table's question with it when the board alone cannot tell (a settle's
        confirmation, which ship, which build)."""
        if action.split()[0] not in SENSED_VERBS or not (self._after(action) - self.expected()):
            return (("tap:action", action),)
        return (("action", action),)

    @property
    def reads_board(self) -> bool:
        """``--sensing off`` (a plain printed board): nothing on the board is read."""
        return self._sensing == "on"

    def interpret(self, observation: Observation) -> Interpretation:
        self._asked = None
        if self._sensing == "off":
            return Interpretation()  # the scoring assistant: the board only shows
        seat = self._person_turn()
        stale = self._stale(observation)
        put_on, take_off = self._owed
        if (put_on - observation.sensed) or (take_off & observation.sensed):
            # A tapped action's pieces come first: the board catches up with the page.
            return self._guide(observation, stale | (take_off & observation.sensed))
        self._owed = (frozenset(), frozenset())
        if seat is None or stale:
            return self._guide(observation, stale)
        if self._then is not None:
            follow, self._then = self._then, None
            if follow in self._engine.legal() and self._after(follow) == observation.sensed:
                return Interpretation(action=follow, message=self.describe(follow))
        changed = observation.extra | observation.missing
        found = explain(self._engine, observation.sensed, changed).actions
        # A move onto a quadrant that already held a ship changes no switch there: the
        # same board is a ship still in the hand. Such moves are asked, never taken.
        sure = tuple(a for a in found if not a.startswith("move ") or a.split()[2] in changed)
        if len(sure) == 1 and sure[0].startswith("move "):
            return Interpretation(action=sure[0], message=self.describe(sure[0]))
        if sure:
            return self._ask(sure, observation)
        lifted = self._lifted(observation, seat)
        if lifted is not None:
            return lifted
        long_move = self._long_move(observation, seat)
        if long_move is not None:
            return long_move
        return self._guide(observation, frozenset(), seat)

    def _stale(self, observation: Observation) -> frozenset[str]:
        """Pieces still standing where the last action took them off (a colony lost in
        combat, a ship destroyed): they are taken away before anything is read."""
        return observation.extra - observation.seen_empty

    def _after(self, action: str) -> frozenset[str]:
        self._engine.play(action)
        try:
            return self.expected()
        finally:
            self._engine.undo()

    def _ask(self, actions: tuple[str, ...], observation: Observation) -> Interpretation:
        choices = actions[:MAX_CHOICES]
        verbs = {a.split()[0] for a in choices}
        if verbs == {"settle"}:
            # Named as the table may name it: a face-down planet stays unnamed until the
            # settle turns it face up (no free peeks).
            body = thing(self._engine, choices[0].split()[1])
            cost = self._cost(choices[0])
            prompt = (_("Settle {body} for {cost}E? Confirm, or choose the ship the colony "
                        "came from") if len(choices) > 1 else
                      _("Settle {body} for {cost}E? Press Confirm (or take the colony off)")
                      ).format(body=body, cost=cost)
        else:
            prompt = _("What happened on the board? Choose one (Plus/Minus, then Confirm)")
        question = self._remember(Question("action", prompt, choices, {"confirm": choices[0]}))
        lights = {site: Light(0xFFA000, BLINK) for site in observation.extra | observation.missing}
        view = View(PLAY, prompt, lights, (), question, self.to_move)
        return Interpretation(view=view, message=prompt)

    def _remember(self, question: Question) -> Question:
        """The question Confirm, Plus and Minus act on; the pick survives a re-read of
        the same question."""
        previous = self._asked_before
        if previous is None or previous.choices != question.choices:
            self._pick = 0
        self._asked = self._asked_before = question
        return question

    def _cost(self, action: str) -> int:
        seat = self._engine.turn().seat
        return 0 if seat is None else cost(self._engine, seat, action)

    def _lifted(self, observation: Observation, seat: int) -> Interpretation | None:
        """One quadrant emptied and nothing new: a ship in the hand. Its reachable
        quadrants light, brighter for one payment, and the moves onto quadrants that
        already hold a ship (no switch can tell them) are offered on the page."""
        if observation.extra or len(observation.missing) != 1:
            return None
        (quad,) = observation.missing
        state = self._engine.state
        ships = [s for s in state.ships.values() if s.quadrant == quad]
        if len(ships) != 1 or ships[0].owner != seat or ships[0].colonies == 0:
            return None
        ship = ships[0]
        colour = LED_COLOURS[self.colours[seat]]
        places = reach(self._engine, ship.id)
        lights: dict[str, Light] = {
            q: Light(dim(colour, 3 if steps == 1 else 12), SOLID) for q, steps in places.items()}
        lights[quad] = Light(0xFFFFFF, BLINK)
        onto = tuple(f"move {ship.id} {q}" for q, steps in sorted(places.items())
                     if steps == 1 and q in observation.sensed)
        prompt = _("{ship} is lifted: set it down on a lit quadrant (bright: one payment, "
                   "dim: two)").format(ship=thing(self._engine, ship.id).capitalize())
        question = None
        if onto:
            question = self._remember(Question(
                "action", _("Set down beside another ship? Choose where"), onto[:MAX_CHOICES]))
        view = View(PLAY, prompt, lights, tuple(sorted(places)), question, self.to_move)
        return Interpretation(view=view, message=prompt)

    def _long_move(self, observation: Observation, seat: int) -> Interpretation | None:
        """A ship taken 3 or 4 quadrants in one go: two payments, logged as two moves."""
        if len(observation.extra) != 1 or len(observation.missing) != 1:
            return None
        (goal,), (start,) = observation.extra, observation.missing
        ships = [s for s in self._engine.state.ships.values() if s.quadrant == start]
        if len(ships) != 1 or ships[0].owner != seat:
            return None
        route = two_payment_route(self._engine, ships[0].id, goal)
        if route is None:
            return None
        self._then = route[1]
        return Interpretation(action=route[0], message=self.describe(route[0]))

    def _guide(self, observation: Observation, stale: frozenset[str],
               seat: int | None = None) -> Interpretation:
        """Back to the expected position, one square at a time: what must go first."""
        state = self._engine.state
        why: dict[str, str] = {}
        extra, missing = sorted(observation.extra), sorted(observation.missing)
        if seat is not None and len(extra) == 1 and len(missing) == 1:
            ships = [s for s in state.ships.values() if s.quadrant == missing[0]]
            if len(ships) == 1 and extra[0] in self._engine.board.quadrants:
                why[extra[0]] = self._refusal(f"move {ships[0].id} {extra[0]}")
        mistakes = []
        put_on, take_off = self._owed
        for site in extra:
            said = self._say(self.past[-1].notation) if self.past else ""
            if site in take_off and site in state.bodies:
                reason = _("the colony here was lost ({said}): take it off the board").format(
                    said=said)
            elif site in take_off:
                reason = _("{said}: take the ship off here").format(said=said.capitalize())
            elif site in stale and site in state.bodies:
                reason = _("the colony here was lost: take it off the board")
            elif site in stale:
                reason = _("this ship is gone: take it off the board")
            else:
                reason = why.get(site, _("no piece belongs here now: lift it"))
            mistakes.append(Mistake(site, "remove", reason))
        for site in missing:
            what = _("{what} belongs here: put it on").format(what=self._what(site))
            if site in put_on:
                what = f"{self._say(self.past[-1].notation).capitalize()}: {what}"
            mistakes.append(Mistake(site, "put_back", what))
        first = mistakes[0] if mistakes else None
        message = first.reason if first is not None else ""
        return Interpretation(mistakes=tuple(mistakes), all_at_once=bool(stale) and
                              set(extra) <= stale, message=message)

    def _what(self, site: str) -> str:
        """What stands on ``site`` in words ("Red's fighter", "Blue's colony")."""
        state = self._engine.state
        if site in state.bodies:
            owner = state.bodies[site].owner
            return self._owned(owner, _("colony"))
        kinds = [self._owned(s.owner, _(s.kind)) for s in state.ships.values()
                 if s.quadrant == site]
        return _(" and ").join(kinds) or _("a piece")

    def _owned(self, seat: int | None, piece: str) -> str:
        if seat is None:
            return _("an abandoned {piece}").format(piece=piece)
        return _("{seat}'s {piece}").format(seat=self._labels[seat], piece=piece)

    def _refusal(self, action: str) -> str:
        try:
            self._engine.play(action)
        except (IllegalActionError, NotationError) as exc:
            return _("the ship cannot go there: {why}").format(why=exc)
        self._engine.undo()
        return _("the ship cannot go there now")

    def neighbours(self) -> Mapping[str, frozenset[str]]:
        """The map's own adjacency: quadrants one step apart, a body and its orbit."""
        if self._near is None:  # asked on every switch change; the map never changes
            self._near = map_adjacency(self._engine)
        return self._near

    def settle_time(self, motion: Motion) -> float | None:
        """Long for a ship dragged over quadrants (a switch that closed and opened again
        within the window, or any hand still at work); short for one ship lifted and set
        down on a quadrant it may reach."""
        quadrants = self._engine.board.quadrants
        recent = [c for c in motion.recent if c.site in quadrants]
        passed_over = {c.site for c in recent if c.closed} & {
            c.site for c in recent if not c.closed and c.site not in motion.expected}
        if passed_over or motion.replaced():
            return max(DRAG_SETTLE_S, motion.window_s)
        if (len(motion.recent) == 2 and not motion.recent[0].closed and motion.recent[1].closed
                and len(motion.extra) == 1 and len(motion.missing) == 1):
            (goal,), (start,) = motion.extra, motion.missing
            ships = [s for s in self._engine.state.ships.values() if s.quadrant == start]
            if len(ships) == 1 and f"move {ships[0].id} {goal}" in self._engine.legal():
                return QUICK_SETTLE_S
        if motion.hands_at_work():
            return max(DRAG_SETTLE_S, motion.window_s)
        return None

    # --- what the board and the page show ---------------------------------------------------

    def view(self, prior: str | None) -> View:
        self._asked = None
        self._owed = (frozenset(), frozenset())  # the board matches: nothing owed
        result = self.result()
        if result is not None:
            winner = result.get("winner")
            lights: dict[str, Light] = {}
            if isinstance(winner, str):
                seat = self.colours.index(winner)
                lights = {site: celebrate(LED_COLOURS[winner]) for site in self._sites_of(seat)}
            return View(ENDED, reason_words(self._engine, str(result["reason"]), self._labels),
                        lights)
        turn = self._engine.turn()
        seat = turn.seat if turn.seat is not None else self._engine.state.active
        colour = self.colours[seat]
        name = self._labels[seat]
        lights = {}
        state = self._engine.state
        legal_sites: tuple[str, ...] = ()
        question = None
        if turn.phase in ("play", "final"):
            own = sorted({s.quadrant for s in state.ships.values()
                          if s.owner == seat and s.colonies})
            lights.update({q: hint(LED_COLOURS[colour]) for q in own})
            legal_sites = tuple(own)
            message = (_("{name}: move a ship, set a colony, or tap the ledger; Pass ends the "
                         "turn") if self._sensing == "on" else
                       _("{name}: tap what you do on the ledger, then move it on the board")
                       ).format(name=name)
            if state.final:
                order = ", ".join(self._labels[o] for o in state.order)
                message = _("Final round ({trigger}; order {order}): ").format(
                    trigger=reason_words(self._engine, state.trigger, self._labels),
                    order=order) + message
                lights.update(still_to_play(self._engine, self.colours))
            if self._focus == "attack":
                for target in sorted(self._targets()):
                    lights[target] = TARGET
            elif self._focus == "presence" or (self.past and
                                               self.past[-1].notation == "end"):
                lights.update(presence_lights(self._engine, self.colours))
        elif turn.phase == "scelrotia":
            message = _("The Scelrotia's turn")
        else:
            fight = state.combat
            stage = STAGES.get(turn.phase)
            message = f"{name} {_(stage) if stage else turn.phase}"
            if fight is not None and turn.phase in ("damage", "attacker-damage"):
                message += ": " + damage_words(self._engine, self._labels)
            if fight is not None:
                where = self._site_of(fight.target)
                if where is not None:
                    lights[where] = IN_COMBAT
                for sid in fight.attackers:
                    ship = state.ships.get(sid)
                    if ship is not None:
                        lights.setdefault(ship.quadrant, hint(LED_COLOURS[self.colours[fight.attacker]]))
            legal = self._engine.legal()
            if 0 < len(legal) <= MAX_CHOICES:
                question = self._remember(Question("action", message, legal))
        if prior is not None and prior in self.expected() and prior not in lights:
            lights[prior] = flash(LED_COLOURS[colour])
        return View(PLAY, message, lights, legal_sites, question, colour)

    def _sites_of(self, seat: int) -> set[str]:
        state = self._engine.state
        return ({s.quadrant for s in state.ships.values() if s.owner == seat}
                | {b.id for b in state.bodies.values() if b.owner == seat and b.colonies})

    def _site_of(self, holder: str) -> str | None:
        state = self._engine.state
        if holder in state.ships:
            return state.ships[holder].quadrant
        return holder if holder in state.bodies else None

    def _targets(self) -> set[str]:
        out = set()
        for action in self._engine.legal():
            if action.startswith("attack "):
                where = self._site_of(action.split()[1])
                if where is not None:
                    out.add(where)
        return out

    def describe(self, action: str) -> str:
        if action == "scelrotia":
            self._engine.play(action)
            try:
                did = self._engine.state.scelrotia_did
            finally:
                self._engine.undo()
            said = scelrotia_words(self._engine, did)
            return _("its turn: {steps}").format(steps="; ".join(said) if said else
                                                 _("nothing to do"))
        return self._say(action)

    # --- inputs ----------------------------------------------------------------------------

    def button(self, name: str) -> Interpretation:
        asked = self._asked
        if name in ("plus", "minus") and asked is not None:
            self._pick = (self._pick + (1 if name == "plus" else -1)) % len(asked.choices)
            return Interpretation(message=_("Confirm: {action}").format(
                action=self.describe(asked.choices[self._pick])))
        if name == "confirm" and asked is not None:
            return self.answer(asked.field, asked.choices[self._pick])
        if name == "pass" and "end" in self._engine.legal():
            return Interpretation(action="end", message=_("the turn ends"))
        raise AdapterError(_("button {name} means nothing now; {hint}").format(
            name=repr(name), hint=self._hint()))

    def _hint(self) -> str:
        turn = self._engine.turn()
        if turn.phase in ("play", "final"):
            return _("move a ship on the board, tap an action on the page, or press Pass to "
                     "end the turn")
        return _("choose on the page")

    def answer(self, field_name: str, value: str) -> Interpretation:
        value = " ".join(value.split())
        if field_name == "action":
            return self._action(value)
        if field_name == "focus":
            if value not in ("attack", "presence", "none"):
                raise AdapterError(f"focus {value!r}: choose attack, presence or none")
            self._focus = None if value == "none" else value
            return Interpretation(message=_("showing {what}").format(what=value))
        if field_name == "offer":
            action = f"give {value}"
            self._check(action)
            if action not in self._offers:
                self._offers.append(action)
            return Interpretation(message=_("offered: {offer}; the other player confirms on "
                                            "their page").format(offer=self._say(action)))
        if field_name in ("accept", "decline"):
            action = f"give {value}"
            if action not in self._offers:
                raise AdapterError(f"no offer {value!r} is waiting; offers: "
                                   f"{', '.join(o[5:] for o in self._offers) or 'none'}")
            self._offers.remove(action)
            if field_name == "decline":
                return Interpretation(message=_("the offer is declined"))
            return Interpretation(action=action, message=self._say(action))
        raise AdapterError(f"Empire in Space asks no {field_name!r}; answer action, focus, "
                           "offer, accept or decline")

    def _check(self, action: str) -> str:
        probe = self._engine.clone()
        try:
            return probe.play(action)
        except (IllegalActionError, NotationError) as exc:
            raise AdapterError(str(exc)) from None

    def _action(self, value: str) -> Interpretation:
        canonical = self._check(value)
        verb = canonical.split()[0]
        if verb not in ("give", "time") and canonical not in self._engine.legal():
            raise AdapterError(f"{canonical!r} is not one of the actions open now")
        self._tapped = canonical
        return Interpretation(action=canonical, message=self.describe(canonical))

    # --- changing the game -----------------------------------------------------------------

    def play(self, action: str) -> Applied:
        turn = self._engine.turn()
        mover = self.colours[turn.seat] if turn.seat is not None else self.colours[0]
        if action.startswith("give "):
            mover = self.colours[int(action.split()[1][1:]) - 1]
        text = self._say(action) if action != "scelrotia" else ""
        before = self.expected()
        notation = self._engine.play(action)
        if action == "scelrotia":
            text = self.describe_done()
        elif notation.startswith(("discover ", "settle ")):
            # What was found, said once it is face up.
            body = self._engine.state.bodies.get(notation.split()[1])
            if body is not None and body.discovered and not body.id.startswith("moon."):
                text += ": " + _("it is {card}").format(card=card_word(body.card))
        after = self.expected()
        applied = Applied(notation, mover, after - before, before - after, text)
        if self._tapped == notation:
            self._owed = (applied.placed, applied.removed)
        self._tapped = None
        self._focus = None
        self._asked = None
        return applied

    def move_words(self, notation: str) -> str | None:
        """The move list in words ("settle Barlow with a colony from fighter 1")."""
        try:
            return self._say(notation)
        except (KeyError, IndexError, ValueError):
            return None

    def describe_done(self) -> str:
        said = scelrotia_words(self._engine, self._engine.state.scelrotia_did)
        return _("the Scelrotia's turn: {steps}").format(
            steps="; ".join(said) if said else _("nothing"))

    def undo(self, applied: Applied) -> None:
        del applied
        self._engine.undo()
        self._focus = None
        self._then = None
        self._owed = (frozenset(), frozenset())

    def dialogue(self) -> dict[str, object]:
        """The focus, the questions asked, the choice pointed at, a long move's second
        payment, gifts waiting, an action tapped and what it owes the board."""
        asked, before = (None if q is None else q.to_json() for q in (self._asked,
                                                                        self._asked_before))
        return {"focus": self._focus, "asked": asked, "pick": self._pick,
                "asked_before": before, "then": self._then, "offers": list(self._offers),
                "tapped": self._tapped, "put_on": sorted(self._owed[0]),
                "take_off": sorted(self._owed[1])}

    def reopen(self, record: Mapping[str, object]) -> None:
        g = self.game
        self._focus, self._then = record_text(record, "focus", g), record_text(record, "then", g)
        self._asked = record_question(record, "asked", g)
        self._asked_before = record_question(record, "asked_before", g)
        self._pick = record_number(record, "pick", g) or 0
        self._offers, self._tapped = record_texts(record, "offers", g), record_text(
            record, "tapped", g)
        self._owed = (frozenset(record_texts(record, "put_on", g)),
                      frozenset(record_texts(record, "take_off", g)))

    def result(self) -> dict[str, Any] | None:
        outcome = self._engine.outcome()
        if outcome is None:
            return None
        winners = [self.colours[w] for w in outcome.winners]
        winner = winners[0] if len(winners) == 1 else None
        return {"winner": winner, "winners": winners, "reason": outcome.reason,
                # The reason as the page says it (the engine's is English, for the log).
                "reason_words": reason_words(self._engine, outcome.reason, self._labels),
                "scores": self.scores()}

    def scores(self) -> dict[str, Any]:
        return scores(self._engine, self.colours)

    def seats(self) -> dict[str, int]:
        return {colour: index for index, colour in enumerate(self.colours)}


def map_adjacency(game: Game) -> dict[str, frozenset[str]]:
    """The map's sites and their neighbours: quadrants one step apart, a body and its
    orbit."""
    board = game.board
    out: dict[str, set[str]] = {q: set(spec.adjacent) for q, spec in board.quadrants.items()}
    for body, spec in board.bodies.items():
        out[body] = set(spec.orbit)
        for quad in spec.orbit:
            out[quad].add(body)
    return {site: frozenset(near) for site, near in out.items()}


def still_to_play(game: Game, colours: tuple[str, ...]) -> dict[str, Light]:
    """The final round's order on the board: the ships of the players still to play
    after the mover glow faintly in their colours."""
    state = game.state
    lights: dict[str, Light] = {}
    for seat in state.order[state.position + 1:]:
        colour = LED_COLOURS[colours[seat]]
        for ship in state.ships.values():
            if ship.owner == seat and ship.colonies:
                lights.setdefault(ship.quadrant, Light(dim(colour, 16), SOLID))
    return lights


def presence_lights(game: Game, colours: tuple[str, ...]) -> dict[str, Light]:
    """Each sector's quadrants in the colour of the players present there (the first
    of them when several are)."""
    lights: dict[str, Light] = {}
    for seat in range(len(game.players)):
        colour = LED_COLOURS[colours[seat]]
        for sector in game.read.presence(seat):
            for q in range(1, 5):
                lights.setdefault(f"S{sector}Q{q}", Light(dim(colour, 4), SOLID))
    return lights



def ledger_log(game: Game, past: Sequence[Applied],
               said: Callable[[Applied], str | None]) -> list[str]:
    """The ledger's log: the table's last moves in words (``said``: in the table's
    language now, :meth:`Adapter.said_words`), each with the round it was played in (the
    engine's history keeps the state before each action) and its seat."""
    past = past[-LOG_LINES:]
    played = game.history[len(game.history) - len(past):]
    if len(played) != len(past):  # an engine set up with moves of its own
        return [_("{seat}: {text}").format(seat=seat_name(a.player), text=said(a) or a.notation)
                for a in past]
    return [_("Round {round}: {seat}: {text}").format(
                round=before.round, seat=seat_name(a.player), text=said(a) or a.notation)
            for a, (_text, before) in zip(past, played, strict=True)]


__all__ = ["LED_COLOURS", "EmpireAdapter", "presence_lights", "still_to_play"]
