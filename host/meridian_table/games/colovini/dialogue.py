"""Colovini's turn dialogue: the questions the board cannot answer by itself.

A reed switch sees that a tower stands, not its colour, height or the card played. The
mover answers with the board's buttons (meridian1..10, plus, minus, confirm, pass) or
the page: which meridian and card, where the new tower stands when the occupancy fits
several cities, which height, whether a lifted own tower is removed or rebuilt. Every
answer is an :class:`Interpretation`: a choice to log, or the action once it is known.

:class:`TurnDialogue` is the input half of ``ColoviniAdapter``; the adapter keeps the
turn's state (``_meridian``, ``_card``, ``_pending``...) and the board-reading half.
"""

from __future__ import annotations

from meridian_table.games import colovini
from meridian_table.games.board import AdapterError, Interpretation, Question
from meridian_table.games.colovini import Action, card_meridians, city_id
from meridian_table.games.colovini.meridian import Column
from meridian_table.i18n import _, seat_word

MERIDIAN_BUTTONS = tuple(f"meridian{m}" for m in range(1, 11))
MERIDIAN = "meridian"
CARD = "card"
CURSOR = "cursor"
HEIGHT = "height"
WHERE = "where"
REMOVE_OWN = "remove"
REBUILD = "rebuild"
KEEP = "keep"
PASSING = "pass"


def pattern(column: Column) -> frozenset[int]:
    """The occupied city indexes (from 1) of a meridian's column."""
    return frozenset(i + 1 for i, t in enumerate(column) if t is not None)


def listed(items: list[str], last_word: str = "or") -> str:
    """``["1", "2", "3"]`` -> "1, 2 or 3" (``last_word`` "and": "1, 2 and 3")."""
    if len(items) <= 1:
        return "".join(items)
    template = _("{some} and {last}") if last_word == "and" else _("{some} or {last}")
    return template.format(some=", ".join(items[:-1]), last=items[-1])


def stepped(prompt: str, now: str) -> str:
    """A question and how the board's buttons answer it: + and − step, Confirm takes."""
    return _("{prompt} On the board: + and − change the answer (now {now}), Confirm "
             "takes it.").format(prompt=prompt, now=now)


def where_words(key: str) -> str:
    """A :func:`where_key` in words: ``-3.1,3.4`` -> "lift your tower from city 1, the
    new tower on city 4"."""
    parts = []
    for item in key.split(","):
        city = item.lstrip("-").partition(".")[2]
        parts.append(_("lift your tower from city {city}").format(city=city)
                     if item.startswith("-") else
                     _("the new tower on city {city}").format(city=city))
    return ", ".join(parts)


def rebuild_words(choice: str) -> str:
    """A rebuild answer in words: ``keep`` or ``10.3=2`` (a 2-high tower on city 3)."""
    if choice == KEEP:
        return _("the same tower back")
    city, _eq, height = choice.partition("=")
    return _("a {height}-high tower on city {city}").format(height=height,
                                                          city=city.partition(".")[2])


def where_key(action: Action) -> str:
    """The physical difference between candidates: ``3.4``, ``-3.1,3.4`` or ``-3.1``."""
    return action.notation().split(":", 1)[1].split("=", 1)[0]


class TurnDialogue:
    """The buttons and answers of a Colovini turn (mixed into ``ColoviniAdapter``)."""

    # The turn's state, owned by the adapter (reset after every action and undo).
    _engine: colovini.Game
    _meridian: int | None
    _card: str | None
    _passing: bool
    _cursor: int
    _where: str | None
    _pending: list[str]
    _lifted: int | None
    _tidy: bool

    # What the dialogue needs from the board-reading half.
    @property
    def to_move(self) -> str:
        raise NotImplementedError

    def _actions(self) -> list[Action]:
        raise NotImplementedError

    def _outcome(self, action: Action) -> Column:
        raise NotImplementedError

    def _cards_for(self, meridian: int) -> list[str]:
        raise NotImplementedError

    def _allowed_meridians(self) -> list[int]:
        raise NotImplementedError

    def _rebuilds_unseen(self) -> dict[str, Action]:
        """The rebuilds the switches cannot see, by their answer (``10.3=2``).

        After the mover's own tower was lifted, the board may match the start again:
        the same tower put back, or a rebuild that leaves the same cities occupied (in
        place at another height, or a shorter tower that pushes the next one into the
        lifted tower's city). Only the players can say which.
        """
        m = self._meridian
        if self._lifted is None or self._pending or m is None:
            return {}
        now = pattern(self._engine.state.columns[m - 1])
        return {
            f"{city_id(m, a.city)}={a.height}": a for a in self._actions()
            if a.kind == "rebuild" and a.remove == self._lifted
            and pattern(self._outcome(a)) == now
        }

    def _rebuild_choices(self) -> list[str]:
        """``keep``, then the unseen rebuilds' answers (empty when there are none)."""
        unseen = list(self._rebuilds_unseen())
        return [KEEP, *unseen] if unseen else []

    def _rebuild_question(self) -> Question | None:
        choices = self._rebuild_choices()
        if not choices or self._meridian is None or self._lifted is None:
            return None
        site = city_id(self._meridian, self._lifted)
        now = choices[self._cursor % len(choices)]
        labels = {choice: rebuild_words(choice) for choice in choices}
        prompt = _("{seat}: the towers stand as before on meridian {meridian}. The same "
                   "tower back on city {city}, or which new tower did you build?").format(
            seat=seat_word(self.to_move), meridian=self._meridian, city=site.partition(".")[2])
        return Question(REBUILD, stepped(prompt, labels[now]), tuple(choices),
                        {"confirm": now}, labels)

    def _card_question(self, prompt: str, cards: list[str]) -> Question:
        cursor = self._cursor % len(cards)
        buttons = {"confirm": cards[cursor]}
        if len(cards) == 2:
            buttons.update({"minus": cards[0], "plus": cards[1]})
        labels = {card: _("card {card}").format(card=card) for card in cards}
        return Question(CARD, stepped(prompt, labels[cards[cursor]]), tuple(cards), buttons,
                        labels)

    def button(self, name: str) -> Interpretation:
        if self._engine.is_over:
            if name == "confirm":
                self._tidy = not self._tidy
                return Interpretation(message="tidy-up guide " + ("on" if self._tidy else "off"))
            raise AdapterError(f"button {name!r}: the game is over")
        if name in MERIDIAN_BUTTONS:
            return self.answer(MERIDIAN, name[len("meridian"):])
        if name in ("plus", "minus"):
            choices = self._choices()
            if self._card_question_open() and len(choices) == 2:
                # a card question between two cards: minus is the first, plus the second
                return self.answer(CARD, choices[1 if name == "plus" else 0])
            return self._move_cursor(1 if name == "plus" else -1)
        if name == "confirm":
            return self._confirm()
        if name == "pass":
            return self._pass()
        raise AdapterError(
            f"button {name!r} means nothing in Colovini's Meridian; use meridian1..meridian10, "
            "plus, minus, confirm, pass, undo or menu"
        )

    def _card_question_open(self) -> bool:
        return not self._pending and (
            self._passing or (self._meridian is not None and self._card is None)
        )

    def _choices(self) -> list[str]:
        if self._pending:
            groups = list(dict.fromkeys(where_key(Action.parse(n)) for n in self._pending))
            return groups if len(groups) > 1 else self._pending
        if self._passing:
            return list(self._engine.playable_cards())
        if self._meridian is not None and self._card is None:
            return self._cards_for(self._meridian)
        return self._rebuild_choices()

    def _move_cursor(self, step: int) -> Interpretation:
        choices = self._choices()
        if len(choices) < 2:
            raise AdapterError("plus/minus choose between answers, and there is nothing to choose now")
        cursor = (self._cursor + step) % len(choices)
        return self.answer(CURSOR, str(cursor))

    def _confirm(self) -> Interpretation:
        if self._pending:
            groups = list(dict.fromkeys(where_key(Action.parse(n)) for n in self._pending))
            if len(groups) > 1:
                return self.answer(WHERE, groups[self._cursor % len(groups)])
            return Interpretation(action=self._pending[self._cursor % len(self._pending)],
                                  message=f"{self.to_move} confirms")
        choices = self._choices()
        if choices:
            field_name = CARD if self._card_question_open() else REBUILD
            return self.answer(field_name, choices[self._cursor % len(choices)])
        raise AdapterError(
            "Confirm does nothing now: choose a meridian, build on it, or press Pass"
        )

    def _pass(self) -> Interpretation:
        if self._passing:
            # A second press did nothing the mover could see (issue 26): say what is asked.
            cards = list(self._engine.playable_cards())
            raise AdapterError(_("Pass is already pressed: now choose the card to discard, "
                                 "{cards} (Confirm discards card {card})").format(
                cards=listed(cards), card=cards[self._cursor % len(cards)]))
        card = self._card
        if card is None:
            playable = self._engine.playable_cards()
            if len(playable) == 1:
                card = playable[0]
        if card is not None:
            return Interpretation(action=f"{card}:pass", message=f"{self.to_move} passes ({card})")
        return self.answer(PASSING, "card")

    def answer(self, field_name: str, value: str) -> Interpretation:
        if self._engine.is_over:
            raise AdapterError("the game is over: there is nothing to answer")
        if field_name == MERIDIAN:
            return self._choose_meridian(value)
        if field_name == CARD:
            return self._choose_card(value)
        if field_name == CURSOR:
            if not value.isdigit():
                raise AdapterError(f"cursor {value!r} is not a number")
            self._cursor = int(value)
            return Interpretation(choice=(CURSOR, value), message=f"choice {value}")
        if field_name == PASSING:
            self._passing = True
            self._meridian = self._card = None
            self._cursor = 0
            return Interpretation(choice=(PASSING, value), message="which card do you discard?")
        if field_name == WHERE:
            return self._answer_where(value)
        if field_name in (HEIGHT, REMOVE_OWN):
            return self._answer_pending(field_name, value)
        if field_name == REBUILD:
            return self._answer_rebuild(value)
        raise AdapterError(
            f"Colovini asks no {field_name!r}; the questions are meridian, card, where, height, "
            "remove, rebuild"
        )

    def _answer_rebuild(self, value: str) -> Interpretation:
        """``keep`` (the same tower stands again) or the height of the tower rebuilt in place."""
        if value == KEEP:
            # Logged, and replayed on resume (where nothing was lifted yet: a no-op).
            self._lifted = None
            self._cursor = 0
            return Interpretation(choice=(REBUILD, KEEP), message="the same tower stands again")
        unseen = self._rebuilds_unseen()
        if value not in unseen:
            choices = self._rebuild_choices()
            raise AdapterError(
                f"rebuild {value!r} is not open now: "
                + (f"answer one of {', '.join(choices)}" if choices else
                   "lift your own tower on the chosen meridian first")
            )
        notation = unseen[value].notation()
        return Interpretation(action=notation, message=f"{self.to_move} rebuilds: {notation}")

    def _choose_meridian(self, value: str) -> Interpretation:
        if not value.isdigit() or int(value) not in self._allowed_meridians():
            raise AdapterError(
                f"meridian {value!r} is not allowed by {self.to_move}'s cards; choose one of "
                f"{', '.join(map(str, self._allowed_meridians()))}"
            )
        meridian = int(value)
        cards = self._cards_for(meridian)
        self._meridian = meridian
        self._card = cards[0] if len(cards) == 1 else None
        self._passing = False
        self._cursor = 0
        self._pending = []
        self._lifted = None
        return Interpretation(choice=(MERIDIAN, value), message=f"{self.to_move} chooses meridian {value}")

    def _choose_card(self, value: str) -> Interpretation:
        if value not in self._engine.playable_cards():
            raise AdapterError(
                f"card {value!r} cannot be played now; playable: "
                f"{', '.join(self._engine.playable_cards())}"
            )
        if self._passing:
            return Interpretation(action=f"{value}:pass", message=f"{self.to_move} passes ({value})")
        if self._meridian is None or self._meridian not in card_meridians(value):
            raise AdapterError(f"card {value!r} does not allow meridian {self._meridian}")
        self._card = value
        self._cursor = 0
        self._lifted = None
        return Interpretation(choice=(CARD, value), message=f"{self.to_move} plays card {value}")

    def _answer_where(self, value: str) -> Interpretation:
        """Which city the new tower stands on, when the occupancy fits several.

        Logged as a choice (and replayed, when nothing is pending yet); when one height
        is left it is the action itself.
        """
        chosen = [n for n in self._pending if where_key(Action.parse(n)) == value]
        if self._pending and not chosen:
            raise AdapterError(f"where {value!r} is not one of the open answers: "
                               f"{', '.join(self._choices())}")
        if len(chosen) == 1:
            return Interpretation(action=chosen[0], message=f"{self.to_move} plays {chosen[0]}")
        self._where = value
        self._cursor = 0
        return Interpretation(choice=(WHERE, value), message=f"the new tower stands on {value}")

    def _answer_pending(self, field_name: str, value: str) -> Interpretation:
        for notation in self._pending:
            action = Action.parse(notation)
            if (field_name == HEIGHT and str(action.height) == value) or (
                field_name == REMOVE_OWN and action.kind == "remove"
            ):
                return Interpretation(action=notation, message=f"{self.to_move} plays {notation}")
        raise AdapterError(
            f"{field_name} {value!r} is not one of the open answers: {', '.join(self._pending) or 'none'}"
        )
