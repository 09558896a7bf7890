"""The rules of Kato's Meridians as a mutable game with undo.

The state is two bitboards (Light's and Dark's stones, bit ``i`` = ``points[i]``).
Everything else is derived and kept up to date incrementally, so that a move costs
work in proportion to what it changes, never a rescan of the board:

- groups: a group id per stone and a mask per group. Groups only ever grow (by a
  placement that touches them) or vanish whole (removal), so merging is all it takes.
- links: for each group, the friendly groups it sees and through how many stone
  pairs (``links[g][h]``). A group lives exactly when its link table is not empty,
  and the groups whose table is empty are kept in a set per colour (``dead``), so
  the removal step never looks at the live groups.
- sight: ``W[3*c + f]`` is the mask of empty points that see a stone of colour ``c``
  along their line of family ``f`` (directions ``f`` and ``f + 3``), in either
  direction. The legal placements of ``c`` are the union of its three masks. Bits at
  occupied points may be stale; readers mask them out.

Each placement or removed stone updates these along its three lines only. ``undo``
restores the bitboards from the history and rebuilds the derived state from them.
See docs/games/kato.md for the rules as implemented and the removal timing.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Iterable
from typing import Final, NamedTuple

from meridian_table.games.contract import Engine, Outcome, Turn
from meridian_table.games.kato.analysis import COLOURS as COLOURS
from meridian_table.games.kato.analysis import DARK as DARK
from meridian_table.games.kato.analysis import LIGHT as LIGHT
from meridian_table.games.kato.analysis import Analysis
from meridian_table.games.kato.analysis import colour_index as colour_index
from meridian_table.games.kato.sight import put, take
from meridian_table.games.kato.tables import Tables, bits, tables
from meridian_table.i18n import Words, WordsError, say

LOGGER = logging.getLogger(__name__)

PASS = -1
SWAP = -2
PASS_MOVE = "pass"
SWAP_MOVE = "swap"
OVERLOOKED = "overlooked"

_EMPTY: frozenset[str] = frozenset()


class IllegalMoveError(WordsError):
    """A move that the rules do not allow here. The message names the move and the rule;
    it is :class:`Words` (a message id and its arguments), said in the table's language."""


def _seat(colour: str) -> Words:
    """A colour as the seat's word ("light" -> "Light", said "Clair" in French)."""
    return Words(colour.capitalize())


class Ply(NamedTuple):
    """One applied move.

    ``removed`` holds the stones taken off by the removal step that this move triggers:
    the mover's dead groups, removed at the start of the opponent's next turn (which
    begins as soon as ``play`` returns). ``overlooked`` holds the opponent's stones that
    the mover overlooked at the start of this turn (tournament games only); they were
    put back before the placement.
    """

    move: str
    colour: str
    removed: frozenset[str] = _EMPTY
    overlooked: frozenset[str] = _EMPTY

    @property
    def notation(self) -> str:
        """The move as ``play`` and the records take it, e.g. ``"G6 overlooked C3"``."""
        if not self.overlooked:
            return self.move
        return f"{self.move} {OVERLOOKED} {' '.join(sorted(self.overlooked, key=_cell_key))}"


def _cell_key(name: str) -> tuple[str, int]:
    return (name[0], int(name[1:]) if name[1:].isdigit() else 0)




# The state that undo restores: (light, dark, to_move, turns of light, turns of dark,
# swapped, choice open, winner). Plain tuples: one is made per ply, so they must be cheap.
_Snapshot = tuple[int, int, int, int, int, bool, bool, int]
# A history entry: (move code, mover, removed mask, overlooked mask, snapshot before).
_Entry = tuple[int, int, int, int, _Snapshot]
_CODE: Final = 0
_MOVER: Final = 1
_REMOVED: Final = 2
_OVERLOOKED: Final = 3
_BEFORE: Final = 4


class Game(Analysis, Engine):
    """A game of Kato's Meridians.

    ``size`` is 5, 6 (the standard 114-point board) or 7. ``pie`` enables the pie rule.
    ``tournament`` applies the rule for overlooked dead groups: a move may name the
    opponent's dead groups that the mover overlooked (``play(move, overlooked=...)``);
    they stay on the board and live until the start of their owner's opponent's next turn.
    """

    def __init__(self, size: int = 6, pie: bool = False, tournament: bool = False) -> None:
        if size not in (5, 6, 7):
            raise ValueError(f"board size {size!r} is not 5, 6 or 7 (80, 114 or 154 points)")
        self._t: Tables = tables(size)
        self.size = size
        self.pie = bool(pie)
        self.tournament = bool(tournament)
        self._stones = [0, 0]
        self._to_move = LIGHT
        self._turns = [0, 0]
        self._swapped = False
        self._choice_open = False
        self._winner = -1
        self._history: list[_Entry] = []
        self._base = self._snapshot()
        self._set_up = False
        self._rebuild()

    # --- construction helpers ---------------------------------------------------------

    @classmethod
    def from_position(
        cls,
        position: str,
        to_move: str = "light",
        *,
        pie: bool = False,
        tournament: bool = False,
    ) -> Game:
        """A game set up at the start of ``to_move``'s turn, after its removal step.

        ``position`` has one character per point in ``points`` order (``.``, ``L`` or
        ``D``; whitespace is ignored, so a diagram can be laid out by column). Its
        length picks the board size (80, 114 or 154). Both players are taken to be past
        their second turn: the placement rule, the removal step and the end rule all
        apply. Dead groups of the player not to move stay until that player's next
        move triggers their removal. ``undo`` cannot go back past the set-up position.
        """
        text = "".join(position.split())
        sizes = {len(tables(s).names): s for s in (5, 6, 7)}
        if len(text) not in sizes:
            raise ValueError(
                f"position has {len(text)} points; a board has 80, 114 or 154 "
                "(one '.', 'L' or 'D' per point in column order)"
            )
        game = cls(size=sizes[len(text)], pie=pie, tournament=tournament)
        light = dark = 0
        for i, ch in enumerate(text):
            if ch == "L":
                light |= 1 << i
            elif ch == "D":
                dark |= 1 << i
            elif ch != ".":
                raise ValueError(
                    f"position character {ch!r} at {game._t.names[i]} is not '.', 'L' or 'D'"
                )
        game._stones = [light, dark]
        game._to_move = colour_index(to_move)
        game._turns = [2, 2]
        if game._to_move == DARK:
            game._turns[LIGHT] = 3
        if not game._stones[game._to_move]:
            game._winner = 1 - game._to_move
        game._base = game._snapshot()
        game._set_up = True
        game._rebuild()
        return game

    @classmethod
    def from_stones(
        cls,
        light: Iterable[str] = (),
        dark: Iterable[str] = (),
        to_move: str = "light",
        *,
        size: int = 6,
        pie: bool = False,
        tournament: bool = False,
    ) -> Game:
        """Like ``from_position``, from lists of cell names."""
        t = tables(size) if size in (5, 6, 7) else None
        if t is None:
            raise ValueError(f"board size {size!r} is not 5, 6 or 7 (80, 114 or 154 points)")
        chars = ["."] * t.n
        for label, cells in (("L", light), ("D", dark)):
            for name in cells:
                i = t.index.get(name.strip().upper(), -1)
                if i < 0:
                    raise ValueError(f"{name!r} is not a point of the size-{size} board")
                if chars[i] != ".":
                    raise ValueError(f"{name!r} is given twice")
                chars[i] = label
        return cls.from_position("".join(chars), to_move, pie=pie, tournament=tournament)

    # --- reading the state --------------------------------------------------------------

    @property
    def points(self) -> tuple[str, ...]:
        """Every cell name in column order: A1..A6, B1..B7, ..., M1..M6 (size 6)."""
        return self._t.names

    @property
    def to_move(self) -> str:
        """``"light"`` or ``"dark"``: the colour whose turn it is."""
        return COLOURS[self._to_move]

    @property
    def winner(self) -> str | None:
        """``"light"``, ``"dark"`` or None while the game goes on."""
        return COLOURS[self._winner] if self._winner >= 0 else None

    @property
    def is_over(self) -> bool:
        return self._winner >= 0

    @property
    def swapped(self) -> bool:
        """True when the pie choice was ``swap``."""
        return self._swapped

    @property
    def choice_open(self) -> bool:
        """True while ``swap`` is legal (pie games, after the opener's two stones)."""
        return self._choice_open

    def seat(self, colour: str) -> int:
        """The seat (1 or 2) holding ``colour``. Seat 1 moves first (the opener under pie).

        Under pie the opener (seat 1) holds Dark unless the other player swaps.
        """
        c = colour_index(colour)
        if not self.pie:
            return 1 + c
        holds_dark = 1 if not self._swapped else 2
        return holds_dark if c == DARK else 3 - holds_dark

    @property
    def seat_to_move(self) -> int:
        """The seat that acts now: under pie the opener places both first stones."""
        if self.pie and self._turns[DARK] == 0:
            return 1
        return self.seat(self.to_move)

    @property
    def plies(self) -> tuple[Ply, ...]:
        """Every move played since the start (or since the set-up position)."""
        names = self._t.names
        out: list[Ply] = []
        for e in self._history:
            out.append(self._ply(e, names))
        return tuple(out)

    def _ply(self, e: _Entry, names: tuple[str, ...]) -> Ply:
        return Ply(
            _move_name(e[_CODE], names),
            COLOURS[e[_MOVER]],
            frozenset(names[i] for i in bits(e[_REMOVED])) if e[_REMOVED] else _EMPTY,
            frozenset(names[i] for i in bits(e[_OVERLOOKED])) if e[_OVERLOOKED] else _EMPTY,
        )

    def setup_position(self) -> str | None:
        """The set-up position this game started from (``from_position``), or None."""
        if not self._set_up:
            return None
        b = self._base
        return "".join(
            "L" if b[0] >> i & 1 else "D" if b[1] >> i & 1 else "." for i in range(self._t.n)
        )

    def setup_to_move(self) -> str:
        """The colour to move in the set-up position (Light for a normal start)."""
        return COLOURS[self._base[2]]

    def turn_number(self, colour: str | None = None) -> int:
        """The number of ``colour``'s current or next turn (1 for its first stone)."""
        c = self._to_move if colour is None else colour_index(colour)
        return self._turns[c] + 1

    def position(self) -> str:
        """One character per point in ``points`` order: ``.``, ``L`` or ``D``."""
        light, dark = self._stones
        return "".join(
            "L" if light >> i & 1 else "D" if dark >> i & 1 else "." for i in range(self._t.n)
        )

    def stones(self, colour: str) -> frozenset[str]:
        """The points holding ``colour``'s stones."""
        names = self._t.names
        return frozenset(names[i] for i in bits(self._stones[colour_index(colour)]))

    def __repr__(self) -> str:
        return (
            f"<kato.Game size={self.size} pie={self.pie} tournament={self.tournament} "
            f"plies={len(self._history)} to_move={self.to_move!r} winner={self.winner!r}>"
        )

    # --- legal moves ----------------------------------------------------------------------

    def legal_mask(self) -> int:
        """The legal placements of the player to move as a mask (bit i = ``points[i]``)."""
        c = self._to_move
        if self._turns[c] >= 2 and self._winner < 0:
            # The sight masks hold board points only, so ``~occupied`` is enough.
            w = self._W
            st = self._stones
            if c:
                return (w[3] | w[4] | w[5]) & ~(st[0] | st[1])
            return (w[0] | w[1] | w[2]) & ~(st[0] | st[1])
        if self._winner >= 0:
            return 0
        occ = self._stones[0] | self._stones[1]
        empty = self._t.board & ~occ
        if self._turns[c] == 0:
            return empty
        # Second stone: a path to the first, so at least one empty point between.
        first = self._stones[c]
        if not first:
            return empty
        s = first.bit_length() - 1
        t = self._t
        seen = 0
        for d in (0, 1, 2):
            m = t.ray[d][s] & occ
            seen |= t.ray[d][s] ^ t.rayi[d][(m & -m).bit_length() - 1] if m else t.ray[d][s]
            m = t.ray[d + 3][s] & occ
            seen |= t.ray[d + 3][s] ^ t.rayi[d + 3][m.bit_length() - 1] if m else t.ray[d + 3][s]
        return seen & ~t.adjacent[s]

    def legal_moves(self) -> set[str]:
        """The legal moves: cell names, ``{"pass"}`` exactly when no placement exists,
        plus ``"swap"`` while the pie choice is open. Empty once the game is over."""
        if self._winner >= 0:
            return set()
        names = self._t.names
        mask = self.legal_mask()
        out = {names[i] for i in bits(mask)} if mask else {PASS_MOVE}
        if self._choice_open:
            out.add(SWAP_MOVE)
        return out

    def is_legal(self, move: str) -> bool:
        """True when ``play(move)`` would be accepted (without overlooked groups)."""
        try:
            code, overlooked = self._parse(move, ())
        except IllegalMoveError:
            return False
        return not overlooked and self._illegal_reason(code) is None

    # --- playing ------------------------------------------------------------------------

    def play(self, move: str, overlooked: Iterable[str] = ()) -> Ply:
        """Apply ``move`` (a cell name, ``"pass"`` or ``"swap"``) and return the ply.

        ``move`` may also carry overlooked groups in notation form,
        ``"G6 overlooked C3 E5"``. ``overlooked`` names at least one cell of each of the
        opponent's groups removed at the start of this turn that the mover overlooked
        (tournament games only). Raises IllegalMoveError naming the move and the rule.
        """
        code, over_cells = self._parse(move, overlooked)
        over_mask = self._overlooked_mask(move, code, over_cells) if over_cells else 0
        if over_mask:
            before = self._snapshot()
            for x in bits(over_mask):
                put(self._ctx, x, 1 - self._to_move)
            reason = self._illegal_reason(code)
            if reason is not None:
                self._restore(before)
                raise IllegalMoveError(say("illegal move {move}: {reason}", move=repr(move),
                                           reason=reason))
            self._apply(code, over_mask, before)
        else:
            reason = self._illegal_reason(code)
            if reason is not None:
                raise IllegalMoveError(say("illegal move {move}: {reason}", move=repr(move),
                                           reason=reason))
            self._apply(code, 0, self._snapshot())
        return self._ply(self._history[-1], self._t.names)

    def play_index(self, code: int) -> int:
        """Fast path for search and benchmarks: play a legal placement index (bit of
        ``legal_mask()``), ``PASS`` (-1) or ``SWAP`` (-2). Returns the removed mask.

        The caller guarantees legality; nothing is checked.
        """
        return self._apply(code, 0, None)

    def undo(self) -> Ply:
        """Take back the last move exactly, removals and overlooked groups included."""
        if not self._history:
            raise IndexError("there is no move to undo (the game is at its start)")
        entry = self._history.pop()
        self._restore(entry[_BEFORE])
        return self._ply(entry, self._t.names)

    def random_playout(self, rng: random.Random, limit: int = 1_000_000) -> int:
        """Fast path for search and benchmarks: play uniformly random legal moves until
        the game is over or ``limit`` plies are played; return the number played.

        Each ply is ``pick_move(self.legal_mask(), self.choice_open, rng, width)`` (a
        uniform choice among ``legal_moves()``; its common case is written out here to
        spare a call) applied by the same code as ``play``, so the game and its history
        are exactly those of the public API driven by the same draws.
        """
        legal_mask = self.legal_mask
        apply = self._apply
        getrandbits = rng.getrandbits
        draw = rng.random
        width = self._t.n.bit_length()
        dense = _dense_from(width)
        plies = 0
        while self._winner < 0 and plies < limit:
            m = legal_mask()
            if self._choice_open:
                i = pick_move(m, True, rng, width)
            elif not m:
                i = PASS
            elif m.bit_count() >= dense:
                i = getrandbits(width)
                while not m >> i & 1:
                    i = getrandbits(width)
            else:
                k = int(draw() * m.bit_count())
                while k:
                    m &= m - 1
                    k -= 1
                i = (m & -m).bit_length() - 1
            apply(i, 0, None)
            plies += 1
        return plies

    # --- internals: parsing and legality -----------------------------------------------------

    def _parse(self, move: str, overlooked: Iterable[str]) -> tuple[int, list[str]]:
        if not isinstance(move, str):
            raise IllegalMoveError(say("move {move} is not a string (a cell name, 'pass' or "
                                       "'swap')", move=repr(move)))
        words = move.split()
        if not words:
            raise IllegalMoveError(say("empty move: give a cell name such as 'G6', 'pass' or "
                                       "'swap'"))
        over = [w.upper() for w in overlooked]
        if len(words) > 1:
            if words[1].lower() != OVERLOOKED or len(words) < 3:
                raise IllegalMoveError(say(
                    "move {move} is not a cell name, 'pass' or 'swap', optionally "
                    "followed by 'overlooked' and cells (e.g. 'G6 overlooked C3')",
                    move=repr(move)))
            over.extend(w.upper() for w in words[2:])
        head = words[0]
        low = head.lower()
        if low == PASS_MOVE:
            return PASS, over
        if low == SWAP_MOVE:
            return SWAP, over
        i = self._t.index.get(head.upper(), -1)
        if i < 0:
            raise IllegalMoveError(say(
                "move {move}: {head} is not a point of the size-{size} board "
                "(cells run {first}..{last}), 'pass' or 'swap'", move=repr(move),
                head=repr(head), size=self.size, first=self._t.names[0],
                last=self._t.names[-1]))
        return i, over

    def _illegal_reason(self, code: int) -> Words | None:
        if self._winner >= 0:
            return say("the game is over ({seat} won)", seat=_seat(COLOURS[self._winner]))
        if code == SWAP:
            if not self._choice_open:
                return say("'swap' is only allowed once, in pie games, right after the "
                           "opener's two stones")
            return None
        mask = self.legal_mask()
        if code == PASS:
            if mask:
                return say("passing is not allowed while a placement exists "
                           "({count} legal points, e.g. {site})", count=mask.bit_count(),
                           site=self._t.names[(mask & -mask).bit_length() - 1])
            return None
        if mask >> code & 1:
            return None
        if (self._stones[0] | self._stones[1]) >> code & 1:
            return say("the point is occupied")
        turn = self._turns[self._to_move]
        if turn == 1:
            first = self._t.names[self._stones[self._to_move].bit_length() - 1]
            if self._t.adjacent[code] & self._stones[self._to_move]:
                return say("the second stone must have a path to the first ({first}): "
                           "adjacent is not allowed, leave at least one empty point between "
                           "them", first=first)
            return say("the second stone must have a path to the first ({first}): an "
                       "unbroken straight line of empty points between them", first=first)
        return say("no line from the point reaches a stone of {seat} before any other "
                   "stone (placements must see a friendly stone)", seat=_seat(self.to_move))

    def _overlooked_mask(self, move: str, code: int, cells: list[str]) -> int:
        if not self.tournament:
            raise IllegalMoveError(say(
                "illegal move {move}: dead groups can only be overlooked in tournament "
                "games; otherwise they are always removed", move=repr(move)))
        if code == SWAP:
            raise IllegalMoveError(say("illegal move {move}: a swap cannot overlook dead "
                                       "groups", move=repr(move)))
        removed = self._history[-1][_REMOVED] if self._history else 0
        t = self._t
        out = 0
        for name in cells:
            i = t.index.get(name, -1)
            if i < 0 or not removed >> i & 1:
                raise IllegalMoveError(say(
                    "illegal move {move}: {site} was not in a dead group removed at the "
                    "start of this turn, so it cannot be overlooked", move=repr(move),
                    site=repr(name)))
            # The whole group: the connected part of the removed stones holding it.
            grp = frontier = 1 << i
            while frontier:
                grow = 0
                for x in bits(frontier):
                    grow |= t.adjacent[x]
                frontier = grow & removed & ~grp
                grp |= frontier
            out |= grp
        return out

    # --- internals: applying a move ----------------------------------------------------------

    def _snapshot(self) -> _Snapshot:
        return (
            self._stones[0],
            self._stones[1],
            self._to_move,
            self._turns[0],
            self._turns[1],
            self._swapped,
            self._choice_open,
            self._winner,
        )

    def _restore(self, s: _Snapshot) -> None:
        self._stones = [s[0], s[1]]
        self._to_move = s[2]
        self._turns = [s[3], s[4]]
        self._swapped = s[5]
        self._choice_open = s[6]
        self._winner = s[7]
        self._rebuild()

    def _apply(self, code: int, overlooked: int, before: _Snapshot | None) -> int:
        """Apply a legal move; ``before`` is the snapshot to undo to (None: take it now).

        Returns the mask of the stones that the removal step took."""
        mover = self._to_move
        stones = self._stones
        turns = self._turns
        if before is None:
            before = (
                stones[0],
                stones[1],
                mover,
                turns[0],
                turns[1],
                self._swapped,
                self._choice_open,
                self._winner,
            )
        if code == SWAP:
            self._swapped = not self._swapped
            self._choice_open = False
            self._history.append((code, mover, 0, overlooked, before))
            return 0
        if code >= 0:
            put(self._ctx, code, mover)
        turns[mover] += 1
        other = 1 - mover
        if self.pie:
            self._choice_open = mover == DARK and turns[DARK] == 1
        removed = 0
        # The opponent's turn starts now: from its third turn on, the mover's dead
        # groups are removed together (DESIGN.md "Removal").
        if turns[other] >= 2:
            dead = self._dead[mover]
            if dead:
                removed = self._remove_groups(dead, mover)
                if not stones[mover] and not self.tournament:
                    # The mover cannot gain a stone before its next turn starts, so it
                    # loses there; the result is fixed now. (In tournament games the
                    # opponent may still overlook the groups: the loss waits.)
                    self._winner = other
            if not stones[other]:
                self._winner = mover
        self._to_move = other
        self._history.append((code, mover, removed, overlooked, before))
        return removed

    def _remove_groups(self, dead: set[int], c: int) -> int:
        """Remove the dead groups ``dead`` (the dead set of colour ``c``) together;
        return their mask."""
        gmask = self._gmask
        removed = 0
        for g in dead:
            removed |= gmask[g]
            gmask[g] = 0
        dead.clear()
        take(self._ctx, removed, c)
        return removed

    # --- the game contract (meridian_table.games.contract.Engine) ---------------------------

    def clone(self) -> Game:
        """An independent copy that shares the read-only tables (a deep copy would copy
        them too, at ten times the price): what a search copies once per iteration."""
        new = Game.__new__(Game)
        new.__dict__.update(self.__dict__)
        new._stones = list(self._stones)
        new._turns = list(self._turns)
        new._history = list(self._history)
        new._col = list(self._col)
        new._gid = list(self._gid)
        new._gmask = list(self._gmask)
        new._links = [dict(d) if d else {} for d in self._links]
        new._dead = [set(self._dead[0]), set(self._dead[1])]
        new._W = list(self._W)
        new._ctx = (
            new._col, new._gid, new._gmask, new._links, new._dead, new._W, new._stones,
            *self._ctx[7:],
        )
        return new

    def turn(self) -> Turn:
        """The seat (0: the first player, the opener under pie) that acts, and how."""
        if self._winner >= 0:
            return Turn(None, "ended")
        phase = "choice" if self._choice_open else "play"
        if phase == "play" and not self.legal_mask():
            phase = "pass"
        return Turn(self.seat_to_move - 1, phase)

    def legal(self) -> tuple[str, ...]:
        """The legal moves in board order, then ``pass`` and ``swap`` when legal."""
        moves = self.legal_moves()
        order = {name: i for i, name in enumerate(self._t.names)}
        return tuple(sorted(moves, key=lambda m: order.get(m, len(order) + (m == SWAP_MOVE))))

    def outcome(self) -> Outcome | None:
        """The winner's seat once the game is won."""
        if self._winner < 0:
            return None
        colour = COLOURS[self._winner]
        return Outcome((self.seat(colour) - 1,), (), f"{colour} wins")


def _dense_from(width: int) -> int:
    """The legal count from which ``pick_move`` draws points until one is legal.

    Drawing costs about ``2**width / count`` tries; skipping to the k-th set bit about
    ``count / 2`` steps of a third of the price; they break even near this count.
    """
    return math.isqrt(3 << width)


def pick_move(mask: int, swap: bool, rng: random.Random, width: int) -> int:
    """A uniformly random legal move code for ``play_index``.

    ``mask`` is ``legal_mask()``, ``swap`` is ``choice_open`` (``SWAP`` is then one more
    choice) and ``width`` is ``len(points).bit_length()``. ``PASS`` when nothing else is
    legal. Dense masks: draw ``width``-bit numbers until one is a legal point. Sparse
    masks: skip a uniformly drawn number of set bits. Both are exactly uniform.
    """
    if swap:
        if not mask:
            return SWAP if rng.random() < 0.5 else PASS
        count = mask.bit_count()
        k = int(rng.random() * (count + 1))
        if k == count:
            return SWAP
    elif not mask:
        return PASS
    elif mask.bit_count() >= _dense_from(width):
        i = rng.getrandbits(width)
        while not mask >> i & 1:
            i = rng.getrandbits(width)
        return i
    else:
        k = int(rng.random() * mask.bit_count())
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


def _move_name(code: int, names: tuple[str, ...]) -> str:
    if code == PASS:
        return PASS_MOVE
    if code == SWAP:
        return SWAP_MOVE
    return names[code]


def new_game(size: int = 6, pie: bool = False, tournament: bool = False) -> Game:
    """A new game; the options are exactly those logged at game creation."""
    return Game(size=size, pie=pie, tournament=tournament)
