"""A plain, slow Kato engine with the ``kato.Game`` API (issue 4), written from DESIGN.md.

It lets the adapter and table tests run without the real engine's internals, and
serves as a cross-check: tests run against both when the real engine is importable.
"""

from __future__ import annotations

from dataclasses import dataclass

from meridian_table.games.kato.geometry import DIRECTIONS, coordinates, points


class NaiveIllegalMoveError(ValueError):
    pass


@dataclass(frozen=True)
class Ply:
    move: str
    removed: frozenset[str]


OTHER = {"light": "dark", "dark": "light"}
LABEL = {"light": "L", "dark": "D"}


class NaiveGame:
    def __init__(self, size: int = 6, pie: bool = False) -> None:
        self.size = size
        self.pie = pie
        self.points = points(size)
        self._coords = coordinates(size)
        self._at = {v: k for k, v in self._coords.items()}
        self.board: dict[str, str] = {}
        self.to_move = "light"
        self.placed = {"light": 0, "dark": 0}
        self.winner: str | None = None
        self._stack: list[tuple[dict[str, str], str, dict[str, int], str | None, bool]] = []
        self._choice_open = False
        self._pie_stage = 0  # 0: Light stone, 1: Dark stone, 2: done

    # geometry
    def _ray(self, site: str, d: tuple[int, int]) -> list[str]:
        q, r = self._coords[site]
        out = []
        while True:
            q, r = q + d[0], r + d[1]
            s = self._at.get((q, r))
            if s is None:
                return out
            out.append(s)

    def _neighbours(self, site: str) -> list[str]:
        q, r = self._coords[site]
        return [self._at[(q + a, r + b)] for a, b in DIRECTIONS if (q + a, r + b) in self._at]

    def _group(self, board: dict[str, str], site: str) -> set[str]:
        colour = board[site]
        seen, todo = {site}, [site]
        while todo:
            for n in self._neighbours(todo.pop()):
                if n not in seen and board.get(n) == colour:
                    seen.add(n)
                    todo.append(n)
        return seen

    def _alive(self, board: dict[str, str], group: set[str]) -> bool:
        colour = board[next(iter(group))]
        for s in group:
            for d in DIRECTIONS:
                ray = self._ray(s, d)
                empties = 0
                for t in ray:
                    if t not in board:
                        empties += 1
                        continue
                    if board[t] == colour and empties and t not in group:
                        return True
                    break
        return False

    def _dead(self, board: dict[str, str], colour: str) -> set[str]:
        dead: set[str] = set()
        seen: set[str] = set()
        for s, c in board.items():
            if c == LABEL[colour] and s not in seen:
                g = self._group(board, s)
                seen |= g
                if not self._alive(board, g):
                    dead |= g
        return dead

    def _placements(self, colour: str, board: dict[str, str]) -> set[str]:
        empty = [p for p in self.points if p not in board]
        own = [s for s, c in board.items() if c == LABEL[colour]]
        n = self.placed[colour]
        if n == 0:
            return set(empty)
        if n == 1 and len(own) == 1:
            out = set()
            for d in DIRECTIONS:
                ray = self._ray(own[0], d)
                for i, t in enumerate(ray):
                    if t in board:
                        break
                    if i >= 1:
                        out.add(t)
            return out
        out = set()
        for p in empty:
            for d in DIRECTIONS:
                for t in self._ray(p, d):
                    if t in board:
                        if board[t] == LABEL[colour]:
                            out.add(p)
                        break
        return out

    # API
    def legal_moves(self) -> set[str]:
        if self.winner is not None:
            return set()
        if self.pie and self._pie_stage < 2:
            return {p for p in self.points if p not in self.board}
        moves = self._placements(self.to_move, self.board)
        if self._choice_open:
            moves.add("swap")
        return moves or {"pass"}

    def play(self, move: str) -> Ply:
        if move not in self.legal_moves():
            raise NaiveIllegalMoveError(f"move {move!r} is not legal for {self.to_move}")
        self._stack.append(
            (dict(self.board), self.to_move, dict(self.placed), self.winner, self._choice_open)
        )
        self._stack[-1] = (*self._stack[-1][:4], self._choice_open)
        self._pie_stack = getattr(self, "_pie_stack", [])
        self._pie_stack.append(self._pie_stage)
        if move == "swap":
            self._choice_open = False
            return Ply(move, frozenset())
        if self.pie and self._pie_stage < 2:
            colour = "light" if self._pie_stage == 0 else "dark"
            self.board[move] = LABEL[colour]
            self.placed[colour] += 1
            self._pie_stage += 1
            if self._pie_stage == 2:
                self._choice_open = True
                self.to_move = "light"
            else:
                self.to_move = "dark"
            return Ply(move, frozenset())
        self._choice_open = False
        mover = self.to_move
        if move != "pass":
            self.board[move] = LABEL[mover]
            self.placed[mover] += 1
        removed: set[str] = set()
        if self.placed[mover] >= 2 and self.placed[OTHER[mover]] >= 2 or move == "pass":
            removed = self._dead(self.board, mover)
            for s in removed:
                del self.board[s]
        if self.placed[mover] >= 2 and not any(c == LABEL[mover] for c in self.board.values()):
            self.winner = OTHER[mover]
        self.to_move = OTHER[mover]
        return Ply(move, frozenset(removed))

    def undo(self) -> None:
        board, to_move, placed, winner, choice = self._stack.pop()
        self.board, self.to_move, self.placed, self.winner = board, to_move, placed, winner
        self._choice_open = choice
        self._pie_stage = self._pie_stack.pop()

    def position(self) -> str:
        return "".join(self.board.get(p, ".") for p in self.points)

    def safe_points(self, colour: str) -> set[str]:
        out = set()
        for p in self._placements(colour, self.board) if self.placed[colour] >= 2 else set():
            board = dict(self.board)
            board[p] = LABEL[colour]
            if self._alive(board, self._group(board, p)):
                out.add(p)
        return out
