"""The adapter interface: what a change in occupancy means, and what the LEDs show.

An adapter wraps one game's rules engine for a physical board. The table session
(``meridian_table.table``) is game-agnostic: it settles the sensed board, then asks the
adapter what the difference between the *expected* occupancy (where pieces should
stand) and the *sensed* occupancy means. The adapter answers with an
:class:`Interpretation`: an action to apply, mistakes to guide, or a question to ask.
For a board that matches, :meth:`Adapter.view` says the phase, the message, the legal
sites and the LEDs (as ``site -> Light``; the table maps sites to LED indices through
the board profile).

Sites are the profile's site names (``"G6"``, ``"3.1"``: each game names its own).
Actions are strings in the game's own notation, so the store logs and replays them
through ``engine.play(notation)`` (docs/ARCHITECTURE.md, "Every game package").

The LED language shared by every game lives here too, so that "remove from here" and
"put back here" look the same whatever the game: different colours *and* different
rhythms (fast blink versus pulse), so a colour-blind player can tell them apart.
"""

from __future__ import annotations

import logging
import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dc_field
from typing import TYPE_CHECKING, ClassVar, Literal, overload

from meridian_table.games.rules import Engine, OptionValue
from meridian_table.i18n import WordsError, language
from meridian_table.ledplan import BLINK, FAST_BLINK, FLASH, PULSE, SOLID, Light

LOGGER = logging.getLogger(__name__)

# --- the LED language ----------------------------------------------------------------

REMOVE_COLOUR = 0xFF0000
PUT_BACK_COLOUR = 0xFFFFFF
#: "Remove a piece from here": red, fast blink (4 Hz).
REMOVE = Light(REMOVE_COLOUR, FAST_BLINK)
#: "Put a piece back here": white, slow pulse (2 s breathing).
PUT_BACK = Light(PUT_BACK_COLOUR, PULSE)
#: A piece on an illegal site: the remove light (it must be lifted).
ILLEGAL = REMOVE
#: Waiting for an input that the board cannot sense (a height, a pie choice): amber blink.
ASK = Light(0xFFA000, BLINK)
#: The instant acknowledgement (docs/TABLE.md): a switch just changed and the table has
#: not read the board yet. Steady white: every instruction in white pulses (put back)
#: and every seat colour is a hue, so "seen" is never "legal", "accepted" or "do this".
SEEN_COLOUR = 0xFFFFFF
#: A piece seen arriving: white, steady.
SEEN_ARRIVING = Light(SEEN_COLOUR, SOLID)
#: A piece seen leaving: dim white, steady.
SEEN_LEAVING = Light(0x202020, SOLID)


def dim(colour: int, factor: int = 8) -> int:
    """``colour`` (0xRRGGBB) divided by ``factor`` per channel, never fully dark."""
    if factor < 1:
        raise ValueError(f"dim factor {factor!r} must be at least 1")
    out = 0
    for shift in (16, 8, 0):
        channel = (colour >> shift) & 0xFF
        scaled = channel // factor
        if channel and not scaled:
            scaled = 1
        out |= scaled << shift
    return out


def hint(colour: int) -> Light:
    """A legal site for the mover: dim and steady in the mover's colour."""
    return Light(dim(colour), SOLID)


def flash(colour: int) -> Light:
    """A piece just accepted: one flash in full colour, then off."""
    return Light(colour, FLASH)


def celebrate(colour: int) -> Light:
    """The winner animation: the winner's colour, breathing."""
    return Light(colour, PULSE)


# --- phases ---------------------------------------------------------------------------

PLAY = "play"              # the mover acts on the board
RESYNC = "resync"          # the board differs from the expected position: guide it back
CHOICE = "choice"          # waiting for an input the board cannot sense (see Question)
PASS = "pass"              # the only legal action is to pass: Confirm passes
ENDED = "ended"            # the game is over
PAUSED = "paused"          # the board is disconnected
ADJUDICATE = "adjudicate"  # the players are agreeing on a result by count
EXECUTE = "execute"        # the people carry out an automaton's move on the board
THINKING = "thinking"      # an automaton is choosing its move
PHASES = (PLAY, RESYNC, CHOICE, PASS, ENDED, PAUSED, ADJUDICATE, EXECUTE, THINKING)

MistakeKind = Literal["remove", "put_back"]

#: A JSON object for the page and the log (a result, scores, the board's drawing): its
#: values are JSON values, read by the table and the page without knowing the game.
JsonObject = dict[str, object]


class AdapterError(WordsError):
    """An input the adapter cannot use in the current state (a button, a choice). Its
    message is :class:`~meridian_table.i18n.Words` (``say(...)``), or an English text said
    as it is in the catalog."""


@dataclass(frozen=True)
class Observation:
    """What the table knows when it asks the adapter: both occupancies and the prior.

    ``prior`` is the site of the last move the table lit (the newest placement), which
    the adapter may use when it has to infer what the players meant (a lifted last
    stone is probably a takeback). ``seen_empty`` says which sites were empty at some
    settled moment since the last action or undo.
    """

    expected: frozenset[str]
    sensed: frozenset[str]
    prior: str | None = None
    #: Sites seen empty on a settled board since the last action or undo: a piece that
    #: the last action removed and that was lifted since is gone, and a new piece on
    #: that site is a new piece.
    seen_empty: frozenset[str] = frozenset()

    @property
    def extra(self) -> frozenset[str]:
        """Sites with a piece that should be empty."""
        return self.sensed - self.expected

    @property
    def missing(self) -> frozenset[str]:
        """Sites that should hold a piece but are empty."""
        return self.expected - self.sensed

    @property
    def matches(self) -> bool:
        return self.sensed == self.expected


@dataclass(frozen=True)
class Change:
    """One switch change of a site: ``age_s`` seconds ago."""

    site: str
    closed: bool
    age_s: float


#: How long the table waits while the hands are visibly still at work (a slide across
#: neighbouring sites, a lift and re-place, a tower being stacked, a piece in transit):
#: longer than the hesitations of the hand model (50-400 ms, docs/TABLE.md), so a hand
#: resting on a point on its way is not read as the move.
HANDS_AT_WORK_S = 0.6


@dataclass(frozen=True)
class Motion:
    """What the hands did lately, for an adapter to decide how long to wait.

    ``recent`` holds every site change of the last ``window_s`` seconds (the table's
    full settle window), newest last, whether or not a board was settled in between.
    ``neighbours`` says which sites are next to which on the board (from the adapter's
    drawing), so a slide can be told from two unrelated changes.
    """

    expected: frozenset[str]
    sensed: frozenset[str]
    recent: tuple[Change, ...]
    window_s: float
    neighbours: Mapping[str, frozenset[str]] = dc_field(default_factory=dict)

    @property
    def extra(self) -> frozenset[str]:
        return self.sensed - self.expected

    @property
    def missing(self) -> frozenset[str]:
        return self.expected - self.sensed

    def single_arrival(self) -> str | None:
        """The site of one new piece on an empty site with nothing else moving in the
        window (no slide, no lift and re-place, no second piece), else None."""
        if len(self.recent) != 1 or self.missing or len(self.extra) != 1:
            return None
        change = self.recent[0]
        return change.site if change.closed and change.site in self.extra else None

    def replaced(self) -> bool:
        """A site changed more than once in the window: a lift and re-place, a piece
        knocked and settling back, a tower stacked piece by piece."""
        sites = [c.site for c in self.recent]
        return len(set(sites)) < len(sites)

    def slide(self) -> bool:
        """Two changes in the window on neighbouring sites: a piece dragged from one
        point to the next (or pushed along, or knocked onto its neighbour)."""
        sites = {c.site for c in self.recent}
        return any(self.neighbours.get(site, frozenset()) & sites for site in sites)

    def hands_at_work(self) -> bool:
        """The pattern of a hand still busy: a slide or a re-place (wait longer)."""
        return self.replaced() or self.slide()


@dataclass(frozen=True)
class Mistake:
    """One site that differs from the expected position, with why and what to do."""

    site: str
    kind: MistakeKind
    reason: str

    @property
    def light(self) -> Light:
        return REMOVE if self.kind == "remove" else PUT_BACK


@dataclass(frozen=True)
class Question:
    """An input the board cannot sense. ``choices`` are the accepted values as strings;
    ``buttons`` maps a physical button name to the value it answers."""

    field: str
    prompt: str
    choices: tuple[str, ...]
    buttons: Mapping[str, str] = dc_field(default_factory=dict)
    #: A choice's words for the page's button, by value (a value without one shows as
    #: it is): Colovini's "3.4" is "the new tower on meridian 3, city 4".
    labels: Mapping[str, str] = dc_field(default_factory=dict)

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "field": self.field,
            "prompt": self.prompt,
            "choices": list(self.choices),
            "buttons": dict(self.buttons),
        }
        if self.labels:
            out["labels"] = dict(self.labels)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Question:
        """The question :meth:`to_json` wrote (a dialogue record read back)."""
        def texts(value: object) -> tuple[str, ...]:
            return tuple(str(v) for v in value) if isinstance(value, list) else ()

        def pairs(value: object) -> dict[str, str]:
            return ({str(k): str(v) for k, v in value.items()} if isinstance(value, dict)
                    else {})

        return cls(str(data.get("field", "")), str(data.get("prompt", "")),
                   texts(data.get("choices")), pairs(data.get("buttons")),
                   pairs(data.get("labels")))


@dataclass(frozen=True)
class Interpretation:
    """What a settled board (or a button, or an answer) means.

    Exactly one of these is the case:

    - ``action`` is set: apply this action (game notation) through :meth:`Adapter.play`;
    - ``mistakes`` is non-empty: guide the board back, in this order (the first one is
      the "next" square; with ``all_at_once`` every mistake is lit together, e.g. the
      dead groups to remove at the start of a turn);
    - ``choice`` is set: the adapter recorded an answer that is not an engine action
      (e.g. "keep" in the pie rule); the table logs it with the adapter's
      :meth:`Adapter.dialogue` record after it, which a resumed game reopens;
    - none of them: nothing to guide. From :meth:`Adapter.interpret` this means the
      differing board is acceptable as it stands (e.g. a tournament level that lets
      the mover lift or overlook pieces the rules remove); from a button, nothing happened.
      ``view`` then says what the table shows for that board instead of
      :meth:`Adapter.view` (a piece in the hand: where it may go, and a question).

    ``message`` is the sentence the page shows (and the CLI prints).
    """

    action: str | None = None
    mistakes: tuple[Mistake, ...] = ()
    all_at_once: bool = False
    choice: tuple[str, str] | None = None
    message: str = ""
    view: View | None = None

    @property
    def kind(self) -> str:
        if self.action is not None:
            return "action"
        if self.mistakes:
            return "mistakes"
        if self.choice is not None:
            return "choice"
        return "none"


@dataclass(frozen=True)
class Applied:
    """One action applied to the engine: who did it, the sites it filled and emptied.

    :meth:`Adapter.play` returns it; the table keeps it in its :class:`History` and logs
    it (``placed``, ``removed`` and ``words`` ride in the ``action`` event, so a resumed
    game gets the same entries back without playing them through an adapter)."""

    notation: str
    player: str
    placed: frozenset[str] = frozenset()
    removed: frozenset[str] = frozenset()
    #: The move in words as it was played, when the notation alone cannot say it all
    #: (Colovini: the towers a push moved); "" : :meth:`Adapter.move_words` says it.
    words: str = ""
    #: The table's language when ``words`` were said ("": not known, an older log). A
    #: page in another language says the move from its notation instead
    #: (:meth:`Adapter.said_words`).
    words_lang: str = ""

    def to_json(self, n: int) -> JsonObject:
        return {
            "n": n,
            "player": self.player,
            "notation": self.notation,
            "removed": sorted(self.removed),
        }


if TYPE_CHECKING:  # slice is generic to the type checker only
    #: A slice of entries (``history[-30:]``).
    _Slice = slice[int | None, int | None, int | None]


class History(Sequence[Applied]):
    """The actions applied in one game, oldest first: the table owns it.

    The adapter's :meth:`Adapter.play` returns an :class:`Applied` and records nothing;
    whoever plays the game (the table, a simulation, a test) plays through a history,
    which pushes the entry, and undoes through it, which pops the entry and hands it to
    :meth:`Adapter.undo`. The adapter reads the past through :attr:`Adapter.past`, this
    history seen read-only (a ``Sequence``): it never keeps a second stack. A resumed
    game's history is built from the log's ``action`` events (``History(adapter,
    entries)``) around an engine the store's replay played (docs/STORE.md).
    """

    __slots__ = ("_entries", "adapter")

    def __init__(self, adapter: Adapter, entries: Iterable[Applied] = ()) -> None:
        self.adapter = adapter
        self._entries: list[Applied] = list(entries)
        adapter.past = self

    @overload
    def __getitem__(self, index: int) -> Applied: ...

    @overload
    def __getitem__(self, index: _Slice) -> Sequence[Applied]: ...

    def __getitem__(self, index: int | _Slice) -> Applied | Sequence[Applied]:
        if isinstance(index, slice):
            return tuple(self._entries[index])
        return self._entries[index]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Applied]:
        return iter(self._entries)

    def __bool__(self) -> bool:
        return bool(self._entries)

    def __repr__(self) -> str:
        return f"History({self.adapter!r}, {len(self._entries)} actions)"

    @property
    def last(self) -> Applied | None:
        """The newest entry, or None at the start."""
        return self._entries[-1] if self._entries else None

    def entries(self) -> tuple[Applied, ...]:
        """Every entry, oldest first (a copy)."""
        return tuple(self._entries)

    def play(self, action: str) -> Applied:
        """Apply ``action`` through the adapter and record it (ValueError: illegal)."""
        applied = self.adapter.play(action)
        if applied.words and not applied.words_lang:
            applied = replace(applied, words_lang=language())
        self._entries.append(applied)
        return applied

    def record(self, applied: Applied) -> None:
        """Record an action the engine already played (the store's replay of a log
        played it; ``applied`` is the entry the log kept)."""
        self._entries.append(applied)

    def undo(self) -> Applied | None:
        """Take back the newest action (the adapter's :meth:`Adapter.undo` with its
        entry); None at the start. When the adapter refuses (AdapterError: a game ended
        by agreement), the entry stays."""
        if not self._entries:
            return None
        applied = self._entries.pop()
        try:
            self.adapter.undo(applied)
        except Exception:
            self._entries.append(applied)
            raise
        return applied


@dataclass(frozen=True)
class CountMark:
    """Sites an offered count credits, lit in one colour while the count is offered
    (Kato: each player's safe points), with the legend's words for that colour."""

    colour: int
    #: The legend's words, colour included: "amber ring: a safe point for Light only (12)".
    label: str
    sites: tuple[str, ...]
    #: The seat the sites count for; None for sites that count for more than one.
    seat: str | None = None

    def light(self) -> Light:
        """Dim and steady, like a legal point: a count is a calm picture."""
        return hint(self.colour)

    def to_json(self) -> dict[str, object]:
        return {"seat": self.seat, "colour": f"#{self.colour:06x}", "label": self.label,
                "sites": list(self.sites)}


@dataclass(frozen=True)
class Caution:
    """Something the mover may still prevent, said on the page (Kato's stones with no
    path, which the removal step will take unless the mover gives them one)."""

    sites: tuple[str, ...]
    text: str

    def to_json(self) -> dict[str, object]:
        return {"sites": list(self.sites), "text": self.text}


@dataclass(frozen=True)
class View:
    """What the adapter shows for a board that matches the expected position."""

    phase: str
    message: str
    lights: Mapping[str, Light]
    legal: tuple[str, ...] = ()
    question: Question | None = None
    to_move: str | None = None
    warnings: tuple[Caution, ...] = ()


@dataclass(frozen=True)
class SiteDrawing:
    """Where a site sits on the page's drawing (unit spacing, x right, y down)."""

    site: str
    x: float
    y: float


def _neighbours(sites: tuple[SiteDrawing, ...]) -> dict[str, frozenset[str]]:
    spacing = min((math.dist((a.x, a.y), (b.x, b.y))
                   for i, a in enumerate(sites) for b in sites[i + 1:]), default=0.0)
    if spacing <= 0:
        return {s.site: frozenset() for s in sites}
    reach = 1.25 * spacing
    return {a.site: frozenset(b.site for b in sites
                              if b is not a and math.dist((a.x, a.y), (b.x, b.y)) <= reach)
            for a in sites}


# --- reading a dialogue record back (Adapter.reopen) ---------------------------------------


def _bad_record(game: str, name: str, value: object, what: str) -> AdapterError:
    return AdapterError(f"{game}'s dialogue record: {name!r} is {value!r}, not {what}; the "
                        "log was edited: export it (meridian-table export) and start a new game")


def record_text(record: Mapping[str, object], name: str, game: str) -> str | None:
    """``record[name]`` as text or None (AdapterError names the game, field and value)."""
    value = record.get(name)
    if value is None or isinstance(value, str):
        return value
    raise _bad_record(game, name, value, "text")


def record_number(record: Mapping[str, object], name: str, game: str) -> int | None:
    """``record[name]`` as a whole number or None."""
    value = record.get(name)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise _bad_record(game, name, value, "a whole number")


def record_texts(record: Mapping[str, object], name: str, game: str) -> list[str]:
    """``record[name]`` as a list of text ([] when left out)."""
    value = record.get(name, [])
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [str(v) for v in value]
    raise _bad_record(game, name, value, "a list of text")


def record_question(record: Mapping[str, object], name: str, game: str) -> Question | None:
    """``record[name]`` as a :class:`Question` (its ``to_json`` form) or None."""
    value = record.get(name)
    if value is None:
        return None
    if isinstance(value, dict):
        return Question.from_json(value)
    raise _bad_record(game, name, value, "a question")


class Adapter(ABC):
    """One game on a physical board. Subclasses wrap a rules engine.

    The table calls, in this order of life: ``expected()`` / ``view()`` to show the
    state; ``interpret()`` when the settled board differs from ``expected()``;
    ``button()`` / ``answer()`` for inputs; ``play()`` / ``undo()`` (through its
    :class:`History`) to change the game; ``result()`` once ``view().phase`` is ENDED.

    What an adapter keeps is its engine and its dialogue (:meth:`dialogue`: the pie
    kept, a half-built turn, a focus): the applied actions are the table's
    (:attr:`past`). A resumed game is the engine replayed from the log, the adapter
    opened around it, its history read from the log and :meth:`reopen` given the last
    logged dialogue record.
    """

    #: The table's history of this game, read-only (its :class:`History` sets it);
    #: empty until a history is bound.
    past: Sequence[Applied] = ()

    #: The game's id, as its spec registers it.
    game: ClassVar[str]
    #: The seats/colours in turn order (``("light", "dark")``). A class
    #: default, or set per game in ``__init__`` when the player count varies.
    colours: tuple[str, ...]
    #: The game buttons the adapter understands besides the table's ``undo``/``menu``.
    controls: ClassVar[tuple[str, ...]] = ("confirm",)
    #: Pieces stack on a site (towers): a hand builds them piece by piece,
    #: and the site's switch may open and close again as each piece goes on.
    stacked: ClassVar[bool] = False

    @property
    @abstractmethod
    def options(self) -> dict[str, OptionValue]:
        """The game options exactly as logged at creation (replayable with ``new_game``)."""

    @abstractmethod
    def sites(self) -> tuple[SiteDrawing, ...]:
        """Every site of the board with its place on the drawing."""

    def neighbours(self) -> Mapping[str, frozenset[str]]:
        """Which sites are next to which: the nearest ones on the drawing (within 1.25
        times the smallest spacing of any two sites). Computed once per adapter."""
        cached: Mapping[str, frozenset[str]] | None = getattr(self, "_neighbours", None)
        if cached is None:
            cached = _neighbours(self.sites())
            self._neighbours = cached
        return cached

    def person_inputs(self, action: str) -> tuple[tuple[str, str], ...]:
        """What a person answers besides moving pieces to make ``action``: the table's
        questions as ``(field, value)`` in the order they come (a meridian, a card,
        where, a height), ``("button", name)`` for a press. Used by the hand model that
        replays realistic hands (``meridian_table.sim.hands``)."""
        del action
        return ()

    def moved_from(self, action: str) -> tuple[str, ...]:
        """Sites a hand lifts its piece from as part of ``action`` before putting it down
        (a ship moved: where it stood), unlike pieces the board's guidance takes off
        afterwards (captures). Used by the hand model (``meridian_table.sim.hands``)."""
        del action
        return ()

    @abstractmethod
    def expected(self) -> frozenset[str]:
        """The sites that should hold a piece now."""

    @abstractmethod
    def pieces(self) -> dict[str, str]:
        """Site -> piece label for the page (``"L"``/``"D"``)."""

    @abstractmethod
    def view(self, prior: str | None) -> View:
        """Phase, message, legal sites and LEDs for a board that matches ``expected()``.

        ``prior`` is the last move the table lit; the adapter may flash it.
        """

    @abstractmethod
    def interpret(self, observation: Observation) -> Interpretation:
        """What a settled board that differs from ``expected()`` means."""

    @abstractmethod
    def button(self, name: str) -> Interpretation:
        """A game button (``confirm``, ``pass``, ``swap``, ...); ``undo`` and ``menu``
        belong to the table. Raises :class:`AdapterError` when it means nothing now."""

    @abstractmethod
    def answer(self, field_name: str, value: str) -> Interpretation:
        """An answer to the current :class:`Question` (from a button or the page)."""

    @abstractmethod
    def play(self, action: str) -> Applied:
        """Apply one action in the game's notation and say what it did (the history that
        called it records the entry). Raises ``ValueError`` (the engine's illegal-move
        error) when the rules forbid it, leaving everything unchanged."""

    @abstractmethod
    def undo(self, applied: Applied) -> None:
        """Take back ``applied``, the last action (and any choice made after it): the
        history has already taken it off :attr:`past`. Raises :class:`AdapterError` when
        the game cannot be taken back (it was ended by agreement)."""

    def dialogue(self) -> JsonObject:
        """The adapter's dialogue state as one JSON record (the answers given this turn,
        a pie kept): everything besides the engine and :attr:`past` that a resumed game
        needs. The table logs it with each action, undo and choice; :meth:`reopen`
        takes it back. ``{}``: no dialogue (the default)."""
        return {}

    def reopen(self, record: Mapping[str, object]) -> None:
        """Take back a :meth:`dialogue` record, after the engine was replayed and the
        history rebuilt from the log. The default (no dialogue) accepts only ``{}``."""
        if record:
            raise AdapterError(f"{self.game} keeps no dialogue; the log's record "
                               f"{dict(record)!r} is not one of this game's")

    @abstractmethod
    def result(self) -> JsonObject | None:
        """``{"winner": colour | None, "reason": str, "scores": ...}`` once the game
        is over, else None."""

    @abstractmethod
    def scores(self) -> JsonObject:
        """Per colour: ``{"total": n, "breakdown": [{"label": ..., "value": ...}]}``."""

    @property
    @abstractmethod
    def engine(self) -> Engine:
        """The rules engine this adapter wraps (an automaton searches on a copy of it)."""

    def automaton_inputs(self, action: str) -> tuple[tuple[str, str], ...]:
        """The answers (``(field, value)``) the table gives for an automaton before it
        carries out ``action``: e.g. a pie "keep" when it plays on instead of swapping.
        Each is given through :meth:`answer` and logged as a choice."""
        del action
        return ()

    def automaton_seats(self) -> dict[int, tuple[str, str]]:
        """Seats the game itself always gives to one of its automata: player index ->
        ``(name, automaton)`` (a game's own opponent). The table names them and
        seats the automaton; ``--players`` names only the others."""
        return {}

    def describe(self, action: str) -> str:
        """``action`` in words for the page ("a 4-high tower on meridian 3, city 2")."""
        return action

    def about(self) -> dict[str, str]:
        """What a tap on a site explains, by site: a stone's group and its paths, a
        tower's island and its garrisons. Sites left out explain nothing."""
        return {}

    def move_words(self, notation: str) -> str | None:
        """A logged move in words for the page's move list ("card 4-5-6-7: a 3-high tower
        on meridian 4, city 1"), when the notation is not words already; None: the
        notation is shown."""
        del notation
        return None


    def said_words(self, applied: Applied) -> str | None:
        """``applied`` in words in the table's language now: as it was played when it
        was said in this language; else from its notation (:meth:`move_words`: a page
        in French never shows a move said in English, though it may say less, such as
        the towers a push moved); else as played."""
        if applied.words and applied.words_lang == language():
            return applied.words
        return self.move_words(applied.notation) or applied.words or None
    def settle_time(self, motion: Motion) -> float | None:
        """How long the table waits before reading the board after ``motion``, when
        this game can tell sooner than the table's window (docs/TABLE.md, adaptive
        settling); None keeps the table's window. Whatever it answers, a change that
        contradicts a move read early takes the move back before it is logged."""
        del motion
        return None

    @property
    def to_move(self) -> str | None:
        """The seat (colour) to act, or None when nobody is to act (the game is over)."""
        return None

    @property
    def reads_board(self) -> bool:
        """False when the board's switches are not read at all (a plain printed board,
        a scoring assistant): an automaton's move is then shown and the people press
        Confirm once they have carried it out, never a switch."""
        return True

    def control_state(self, view: View | None) -> Mapping[str, tuple[bool, str]]:
        """The game's own word on its buttons: ``{name: (enabled, why)}`` for the ones it
        decides (the table's rules decide the rest). ``view`` is None during a resync."""
        del view
        return {}

    def finale(self, observation: Observation) -> View:
        """What the table shows once the game is over, for the settled board.

        The table keeps reading the board after the end, but nothing on it is an action
        any more (nothing is interpreted or logged): the adapter only says what the LEDs
        show, e.g. pieces still to take off blinking "remove" until they are lifted.
        The default is :meth:`view` (the winner animation), whatever the board holds.
        """
        return self.view(None)

    def adjudicate(self) -> JsonObject | None:
        """A result the players may agree on instead of playing on (None: not offered)."""
        return None

    def count_marks(self) -> tuple[CountMark, ...]:
        """While a count (:meth:`adjudicate`) is offered: the sites it credits, each set
        in its colour with the legend's words; () leaves the game's own lights."""
        return ()

    def conclude(self, result: JsonObject) -> None:
        """End the game with a ``result`` the players chose: an agreed count (from
        :meth:`adjudicate`) or a resignation; afterwards :meth:`result` returns it and
        :meth:`undo` refuses. Adapters that let players end a game override this."""
        raise AdapterError(f"{self.game} cannot be ended by agreement or resignation")

    def concedes(self) -> bool:
        """True when the players may end this game themselves (:meth:`conclude`): the
        page then offers Resign."""
        return type(self).conclude is not Adapter.conclude

    def settings(self) -> JsonObject:
        """Table-level options that are not engine options (logged apart, passed back to
        the constructor on resume), e.g. an assist level."""
        return {}

    def seats(self) -> dict[str, int]:
        """Colour -> index of the player (in the logged players list) who holds it now.

        The identity unless the game lets players exchange seats (a pie swap)."""
        return {colour: index for index, colour in enumerate(self.colours)}

    def board_json(self) -> JsonObject:
        """The ``board`` part of the page state, less ``sensed`` (added by the table)."""
        pieces = self.pieces()
        return {
            "kind": self.game,
            **self.options,
            "sites": [
                {"id": s.site, "x": s.x, "y": s.y, "piece": pieces.get(s.site)}
                for s in self.sites()
            ],
        }
