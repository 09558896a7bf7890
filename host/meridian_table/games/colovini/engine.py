"""The game of Colovini's Meridian: state, legal actions, apply, undo and the result.

Pure rules, no I/O. A game is a sequence of immutable :class:`State` values; playing an
action pushes a new state and undo pops it, so nothing is ever lost or recomputed.
Players are seats 0..n-1; towers on the board are ``(seat, height)``.
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

from meridian_table.games.colovini.cards import (
    CARD_NAMES,
    DECK_KINDS,
    CardError,
    card_meridians,
    full_deck,
)
from meridian_table.games.colovini.maps import (
    MERIDIANS,
    BoardMap,
    city_id,
    load_map,
    parse_map,
    split_city,
)
from meridian_table.games.colovini.meridian import (
    Column,
    apply_placement,
    placement_cities,
)
from meridian_table.games.colovini.scoring import Score, score
from meridian_table.games.contract import Engine, Outcome, Turn

LOGGER = logging.getLogger(__name__)

PLAYER_COUNTS = (2, 3, 4)
FACE_UP = 2
DEFAULT_MAPS = {2: "sample-50", 3: "sample-40", 4: "sample-50"}


class IllegalActionError(ValueError):
    """An action that breaks the rules in this position (the message says which)."""


class NotationError(ValueError):
    """Text that is not an action in the record notation."""


_NOTATION = re.compile(
    r"\s*(?P<card>[0-9-]+)\s*:\s*(?:(?P<pass>pass)"
    r"|(?:-(?P<rm>\d{1,2})\.(?P<rmi>\d))?\s*,?\s*"
    r"(?:(?P<m>\d{1,2})\.(?P<i>\d)\s*=\s*(?P<h>\d{1,2}))?)\s*",
    re.IGNORECASE,
)


class Action(NamedTuple):
    """One turn: the card played and what was built or removed on its meridian.

    ``meridian`` is 0 for a pass. ``remove`` is the 1-based city index of the player's
    own tower taken off (0 for none); ``city`` and ``height`` describe the new tower
    (0 for none). Pushes are not stored: they follow from the rules.
    """

    card: str
    meridian: int = 0
    remove: int = 0
    city: int = 0
    height: int = 0

    @property
    def kind(self) -> str:
        """``"pass"``, ``"place"``, ``"remove"`` or ``"rebuild"``."""
        if self.meridian == 0:
            return "pass"
        if self.remove and self.city:
            return "rebuild"
        return "remove" if self.remove else "place"

    def notation(self) -> str:
        """``3:3.2=4`` (place), ``3:-3.1`` (remove), ``3:-3.1,3.4=2`` (rebuild), ``3:pass``."""
        if self.meridian == 0:
            return f"{self.card}:pass"
        parts = []
        if self.remove:
            parts.append(f"-{city_id(self.meridian, self.remove)}")
        if self.city:
            parts.append(f"{city_id(self.meridian, self.city)}={self.height}")
        return f"{self.card}:{','.join(parts)}"

    @classmethod
    def parse(cls, text: str) -> Action:
        """The inverse of :meth:`notation`. Raises NotationError naming the text."""
        match = _NOTATION.fullmatch(text)
        if not match or not (match["pass"] or match["rm"] or match["m"]):
            raise NotationError(
                f"action {text!r} is not like '3:3.2=4', '3:-3.1', '3:-3.1,3.4=2' or '3:pass'"
            )
        card = match["card"]
        try:
            card_meridians(card)
        except CardError as exc:
            raise NotationError(f"action {text!r}: {exc}") from None
        if match["pass"]:
            return cls(card)
        if match["rm"] and match["m"] and match["rm"] != match["m"]:
            raise NotationError(
                f"action {text!r} removes on meridian {match['rm']} but builds on "
                f"{match['m']}; a rebuild stays on one meridian"
            )
        meridian = int(match["rm"] or match["m"])
        return cls(
            card,
            meridian,
            int(match["rmi"]) if match["rm"] else 0,
            int(match["i"]) if match["m"] else 0,
            int(match["h"]) if match["m"] else 0,
        )

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Action.parse({self.notation()!r})"


class State(NamedTuple):
    """An immutable position: columns, pieces in hand, unplayed cards, turn count.

    ``unplayed[p]`` keeps a digital deck's order, so its first two cards are face up;
    with physical decks any unplayed card may be named.
    """

    columns: tuple[Column, ...]
    hands: tuple[int, ...]
    unplayed: tuple[tuple[str, ...], ...]
    turn: int


@dataclass(frozen=True)
class Step:
    """One applied action, with who played it and the towers its pushes moved."""

    action: Action
    player: int
    pushed: tuple[tuple[str, str], ...]  # (from city, to city)


class Game(Engine):
    """A game of Colovini's Meridian for 2, 3 or 4 players on a given map."""

    def __init__(
        self,
        board_map: BoardMap,
        players: int = 4,
        deck: str = "digital",
        seed: int | None = None,
        names: Sequence[str] | None = None,
        map_ref: str | None = None,
    ) -> None:
        if players not in PLAYER_COUNTS:
            raise ValueError(f"players={players!r}: Colovini's Meridian is for 2, 3 or 4 players")
        wanted_side = 4 if players == 3 else 5
        if board_map.side != wanted_side:
            raise ValueError(
                f"map {board_map.name!r} is the {board_map.side}-city side, but {players} "
                f"players use the {wanted_side}-city side: choose a map with side = {wanted_side}"
            )
        if deck not in DECK_KINDS:
            raise ValueError(f"deck={deck!r}: choose 'digital' (shuffled here) or 'physical'")
        if names is None:
            names = [f"Player {i + 1}" for i in range(players)]
        names = [str(n).strip() for n in names]
        if len(names) != players or len(set(names)) != players or not all(names):
            raise ValueError(f"names={names!r}: give {players} different, non-empty names")
        if deck == "digital" and seed is None:
            seed = random.SystemRandom().randrange(1 << 31)
        self.board_map = board_map
        self.players = players
        self.deck = deck
        self.seed = seed
        self.names = tuple(names)
        self.map_ref = map_ref or board_map.name
        self.colours = 2 if players == 2 else 1
        self.towers_per_meridian = self.colours
        self.pieces = 20 * self.colours
        unplayed: list[tuple[str, ...]] = []
        rng = random.Random(seed)
        for _ in range(players):
            cards = list(full_deck(self.colours))
            if deck == "digital":
                rng.shuffle(cards)
            unplayed.append(tuple(cards))
        empty: Column = (None,) * board_map.side
        self._states: list[State] = [
            State((empty,) * MERIDIANS, (self.pieces,) * players, tuple(unplayed), 0)
        ]
        self._steps: list[Step] = []
        LOGGER.info("new colovini game: %s", self.options)

    # -- what a store needs to recreate the game -------------------------------------
    @property
    def options(self) -> dict[str, Any]:
        """The options of :func:`new_game` that recreate this game exactly: the seed, and
        the map's own text beside its name, so a replay never needs the map file."""
        options: dict[str, Any] = {
            "players": self.players,
            "map": self.map_ref,
            "deck": self.deck,
            "seed": self.seed,
            "names": list(self.names),
        }
        if self.board_map.text:
            options["map_text"] = self.board_map.text
        return options

    # -- position --------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self._states[-1]

    @property
    def steps(self) -> tuple[Step, ...]:
        """Every action played so far, in order."""
        return tuple(self._steps)

    @property
    def to_move(self) -> int:
        return self.state.turn % self.players

    @property
    def is_over(self) -> bool:
        """The game ends when every card has been played."""
        return not any(self.state.unplayed)

    def hand(self, player: int) -> int:
        """Pieces ``player`` still has in hand."""
        return self.state.hands[player]

    def playable_cards(self, player: int | None = None) -> tuple[str, ...]:
        """Cards ``player`` may play: the two face up (digital) or any unplayed (physical)."""
        p = self.to_move if player is None else player
        cards = self.state.unplayed[p]
        if self.deck == "digital":
            return cards[:FACE_UP]
        return tuple(dict.fromkeys(cards))

    def face_up(self, player: int) -> tuple[str, ...]:
        """Digital decks: the player's face-up cards. Physical: () (they are not known)."""
        return self.state.unplayed[player][:FACE_UP] if self.deck == "digital" else ()

    def cards_left(self, player: int) -> tuple[str, ...]:
        """The player's unplayed cards, in the card set's printed order."""
        left = self.state.unplayed[player]
        return tuple(sorted(left, key=CARD_NAMES.index))

    def tower_at(self, city: str) -> tuple[int, int] | None:
        """``(seat, height)`` of the tower on ``city`` (e.g. ``"3.1"``), or None."""
        meridian, index = split_city(city)
        if not (1 <= meridian <= MERIDIANS and 1 <= index <= self.board_map.side):
            raise ValueError(f"city {city!r} is not on this board (1.1 to 10.{self.board_map.side})")
        tower = self.state.columns[meridian - 1][index - 1]
        return None if tower is None else (cast(int, tower[0]), tower[1])

    def garrisons(self) -> dict[str, int]:
        """City id -> seat, for every tower on the board."""
        out: dict[str, int] = {}
        for m, column in enumerate(self.state.columns, start=1):
            for i, tower in enumerate(column, start=1):
                if tower is not None:
                    out[city_id(m, i)] = cast(int, tower[0])
        return out

    def result(self) -> Score:
        """The score of the current position (final once :attr:`is_over`)."""
        named = {city: self.names[p] for city, p in self.garrisons().items()}
        left: dict[Hashable, int] = {self.names[p]: self.state.hands[p] for p in range(self.players)}
        return score(self.board_map, named, self.names, left)

    # -- legal actions ---------------------------------------------------------------
    def _meridian_options(self, player: int, meridian: int) -> list[tuple[int, int, int, int]]:
        """``(meridian, remove, city, height)`` for every non-pass action on one meridian."""
        state = self.state
        column = state.columns[meridian - 1]
        hand = state.hands[player]
        own = [i for i, t in enumerate(column) if t is not None and t[0] == player]
        out: list[tuple[int, int, int, int]] = []
        if len(own) < self.towers_per_meridian:
            out.extend(_placements_by_height(column, hand, meridian, 0))
        for i in own:
            tower = column[i]
            if tower is None:  # own[] holds occupied cities only; this keeps mypy informed
                continue
            out.append((meridian, i + 1, 0, 0))
            rest = column[:i] + (None,) + column[i + 1 :]
            same = (meridian, i + 1, i + 1, tower[1])  # the tower as it stood: not a rebuild
            out.extend(o for o in _placements_by_height(rest, hand + tower[1], meridian, i + 1)
                       if o != same)
        return out

    def legal_actions(self) -> list[Action]:
        """Every legal action of the player to move (empty once the game is over)."""
        if self.is_over:
            return []
        player = self.to_move
        cache: dict[int, list[tuple[int, int, int, int]]] = {}
        actions: list[Action] = []
        make = tuple.__new__  # builds the NamedTuple in C: this loop makes thousands
        for card in self.playable_cards(player):
            for meridian in card_meridians(card):
                options = cache.get(meridian)
                if options is None:
                    options = cache[meridian] = self._meridian_options(player, meridian)
                head = (card,)
                actions.extend([make(Action, head + o) for o in options])
            actions.append(Action(card))
        return actions

    # -- the game contract (meridian_table.games.contract.Engine) --------------------
    def turn(self) -> Turn:
        """The seat to act; ``pass`` when it can only pass (play a card to no meridian)."""
        if self.is_over:
            return Turn(None, "ended")
        return Turn(self.to_move, "pass" if self.must_pass() else "play")

    def legal(self) -> tuple[str, ...]:
        """Every legal action in notation, in the engine's order."""
        return tuple(a.notation() for a in self.legal_actions())

    def outcome(self) -> Outcome | None:
        """The final score once every card is played."""
        if not self.is_over:
            return None
        final = self.result()
        winners = tuple(self.names.index(str(w)) for w in final.winners)
        totals = tuple(final.totals.get(name, 0) for name in self.names)
        return Outcome(winners, totals, final.tie_break)

    def hidden_from(self, seat: int, rng: random.Random) -> Game:
        """A copy fit for ``seat`` to search on: only the current position (no history
        to undo into), with every card ``seat`` cannot see re-dealt at random.

        With a digital deck a player sees its own two face-up cards and every card
        played; the order of its own remaining cards and everything the others hold
        are re-dealt from the cards each still has. The re-deal starts from the cards in
        printed order, so the copy depends only on what ``seat`` sees and on ``rng``.
        With physical decks every unplayed card may be named by anyone: nothing is hidden.
        """
        state = self.state
        copy_ = Game.__new__(Game)
        copy_.__dict__.update(self.__dict__)
        copy_.seed = None
        copy_._steps = []
        unplayed = state.unplayed
        if self.deck == "digital":
            dealt: list[tuple[str, ...]] = []
            for p, cards in enumerate(unplayed):
                keep = cards[:FACE_UP] if p == seat else ()
                rest = sorted(cards[len(keep):], key=CARD_NAMES.index)
                rng.shuffle(rest)
                dealt.append(keep + tuple(rest))
            unplayed = tuple(dealt)
        copy_._states = [State(state.columns, state.hands, unplayed, state.turn)]
        return copy_

    def must_pass(self) -> bool:
        """True when the player to move can only pass (no build and no own tower to lift)."""
        return all(a.meridian == 0 for a in self.legal_actions())

    # -- play and undo ---------------------------------------------------------------
    def parse_action(self, text: str) -> Action:
        return Action.parse(text)

    def play(self, action: Action | str) -> Step:
        """Apply one action (an Action or its notation). Raises IllegalActionError."""
        if isinstance(action, str):
            action = Action.parse(action)
        state, step = self._apply(action)
        self._states.append(state)
        self._steps.append(step)
        LOGGER.debug("turn %d: %s plays %s", state.turn, self.names[step.player], action)
        return step

    def undo(self) -> Action:
        """Take back the last action and return it. Raises IndexError at the start."""
        if not self._steps:
            raise IndexError("nothing to undo: no action has been played yet")
        self._states.pop()
        return self._steps.pop().action

    def _illegal(self, action: Action, why: str) -> IllegalActionError:
        who = self.names[self.to_move]
        return IllegalActionError(f"{who} cannot play {action.notation()!r}: {why}")

    def _apply(self, action: Action) -> tuple[State, Step]:
        if self.is_over:
            raise self._illegal(action, "the game is over (every card has been played)")
        state = self.state
        player = self.to_move
        unplayed = self._play_card(action, player)
        columns = state.columns
        hands = state.hands
        pushed: tuple[tuple[str, str], ...] = ()
        if action.meridian:
            column, hand, pushed = self._build(action, player, columns[action.meridian - 1])
            columns = columns[: action.meridian - 1] + (column,) + columns[action.meridian :]
            hands = hands[:player] + (hand,) + hands[player + 1 :]
        unplayed_all = state.unplayed[:player] + (unplayed,) + state.unplayed[player + 1 :]
        return State(columns, hands, unplayed_all, state.turn + 1), Step(action, player, pushed)

    def _play_card(self, action: Action, player: int) -> tuple[str, ...]:
        cards = self.state.unplayed[player]
        playable = self.playable_cards(player)
        if action.card not in playable:
            if self.deck == "digital":
                raise self._illegal(
                    action, f"card {action.card!r} is not face up (face up: {', '.join(playable)})"
                )
            raise self._illegal(
                action, f"card {action.card!r} has already been played (left: "
                f"{', '.join(self.cards_left(player))})"
            )
        if action.meridian and action.meridian not in card_meridians(action.card):
            raise self._illegal(
                action, f"card {action.card!r} allows meridians {card_meridians(action.card)}, "
                f"not {action.meridian}"
            )
        i = cards.index(action.card)
        return cards[:i] + cards[i + 1 :]

    def _build(
        self, action: Action, player: int, column: Column
    ) -> tuple[Column, int, tuple[tuple[str, str], ...]]:
        side = len(column)
        hand = self.state.hands[player]
        m = action.meridian
        for index in (action.remove, action.city):
            if not 0 <= index <= side:
                raise self._illegal(action, f"meridian {m} has cities {m}.1 to {m}.{side}")
        original = column
        if action.remove:
            tower = column[action.remove - 1]
            if tower is None or tower[0] != player:
                raise self._illegal(action, f"there is no tower of yours on {m}.{action.remove}")
            column = column[: action.remove - 1] + (None,) + column[action.remove :]
            hand += tower[1]
        if not action.city:
            return column, hand, ()
        own = sum(1 for t in column if t is not None and t[0] == player)
        if own >= self.towers_per_meridian:
            limit = "one tower" if self.towers_per_meridian == 1 else "two towers"
            raise self._illegal(
                action, f"you may have only {limit} on a meridian (rule 4); remove or rebuild instead"
            )
        if not 1 <= action.height <= hand:
            raise self._illegal(action, f"you have {hand} pieces to build with")
        options = dict(placement_cities(column, action.height))
        push = options.get(action.city - 1)
        if push is None:
            raise self._illegal(action, _why_not(column, action.city - 1, action.height))
        new_column = apply_placement(column, action.city - 1, push, (player, action.height))
        if new_column == original:
            raise self._illegal(
                action, "that rebuilds the same tower in the same city; "
                "choose another height or city, or pass"
            )
        moved = _moves(column, new_column, action.city - 1, push, m)
        return new_column, hand - action.height, moved


def _why_not(column: Column, index0: int, height: int) -> str:
    """Which rule forbids a tower of ``height`` on ``index0`` (for the error message)."""
    towers = [t for t in column if t is not None]
    if not towers:
        return "the first tower on an empty meridian must be at least 2 high (rule 1)"
    if any(t[1] == height for t in towers):
        return f"there is already a tower of height {height} on this meridian (rule 2)"
    occupant = column[index0]
    if occupant is not None:
        direction = "north" if height < occupant[1] else "south"
        gap = range(index0) if direction == "north" else range(index0 + 1, len(column))
        if not any(column[j] is None for j in gap):
            return f"the push {direction} would drive the last tower off the board"
    return "going north, heights must strictly increase (rule 3)"


def _moves(
    before: Column, after: Column, index0: int, push: int, meridian: int
) -> tuple[tuple[str, str], ...]:
    if not push:
        return ()
    moved = []
    j = index0
    while before[j] is not None:
        moved.append((city_id(meridian, j + 1), city_id(meridian, j + 1 + push)))
        j += push
    return tuple(moved)


def _placements_by_height(
    column: Column, hand: int, meridian: int, remove: int
) -> list[tuple[int, int, int, int]]:
    """``(meridian, remove, city, height)`` for every legal height 1..hand.

    Legality depends only on where a height falls among the heights already standing,
    so one rules check per band between standing heights decides for the whole band.
    """
    out: list[tuple[int, int, int, int]] = []
    if hand < 1:
        return out
    standing = sorted({t[1] for t in column if t is not None})
    bounds = [0, *standing, hand + 1]
    for low, high in zip(bounds, bounds[1:], strict=False):
        first, last = low + 1, min(high - 1, hand)
        if not standing:
            first = max(first, 2)  # rule 1 bites only the lowest band of an empty meridian
        if first > last:
            continue
        cities = [i + 1 for i, _ in placement_cities(column, first)]
        out.extend([(meridian, remove, c, h) for h in range(first, last + 1) for c in cities])
    return out


def new_game(**options: Any) -> Game:
    """A new game from logged options: players, map (name or path), map_text, deck, seed,
    names.

    ``map_text`` is the map's TOML text, as a game logs it: when given, the map is read
    from it and ``map`` only names it, so a logged game replays after its map file has
    changed or gone. Games logged before the text was (no ``map_text``) read ``map``.
    """
    known = {"players", "map", "map_text", "deck", "seed", "names"}
    unknown = set(options) - known
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)}; the options are {sorted(known)}")
    players = int(options.get("players", 4))
    map_ref = str(options.get("map") or DEFAULT_MAPS.get(players, "sample-50"))
    map_text = options.get("map_text")
    if map_text is not None and not isinstance(map_text, str):
        raise ValueError(f"map_text={map_text!r} is not the text of a map")
    board_map = (
        load_map(map_ref) if map_text is None
        else parse_map(map_text, source=f"the map {map_ref!r} logged with the game",
                       name=_map_name(map_ref))
    )
    seed = options.get("seed")
    return Game(
        board_map,
        players=players,
        deck=str(options.get("deck", "digital")),
        seed=None if seed is None else int(seed),
        names=options.get("names"),
        map_ref=map_ref,
    )


def _map_name(map_ref: str) -> str:
    """A map's name from how it was given: ``sample-50`` or ``/home/ann/my-board.toml``."""
    name = map_ref.replace("\\", "/").rsplit("/", 1)[-1]
    return name[: -len(".toml")] if name.endswith(".toml") else name
