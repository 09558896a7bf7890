"""Property tests over random games, against a naive reference written plainly here:
sets of axial coordinates and step-by-step walks, no bitboards."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meridian_table.games import kato
from meridian_table.games.kato import geometry

Coord = tuple[int, int]
DIRS: list[Coord] = [(1, 0), (0, 1), (1, -1), (-1, 0), (0, -1), (-1, 1)]


def board_of(game: kato.Game) -> dict[Coord, str]:
    """Axial coordinate -> '.', 'L' or 'D'."""
    coords = geometry.coordinates(game.size)
    return {coords[p]: ch for p, ch in zip(game.points, game.position(), strict=True)}


def first_stone(board: dict[Coord, str], at: Coord, d: Coord) -> tuple[Coord | None, int]:
    """Walk from ``at`` along ``d``: the first occupied point and how many steps."""
    q, r = at
    steps = 0
    while True:
        q, r = q + d[0], r + d[1]
        steps += 1
        if (q, r) not in board:
            return None, steps
        if board[(q, r)] != ".":
            return (q, r), steps


def naive_groups(board: dict[Coord, str], label: str) -> list[set[Coord]]:
    seen: set[Coord] = set()
    out: list[set[Coord]] = []
    for start, ch in board.items():
        if ch != label or start in seen:
            continue
        group = {start}
        todo = [start]
        while todo:
            q, r = todo.pop()
            for dq, dr in DIRS:
                n = (q + dq, r + dr)
                if board.get(n) == label and n not in group:
                    group.add(n)
                    todo.append(n)
        seen |= group
        out.append(group)
    return out


def naive_dead(board: dict[Coord, str], label: str) -> set[Coord]:
    """Stones of ``label`` in groups where no stone sees, across at least one empty
    point, a friendly stone of another group."""
    dead: set[Coord] = set()
    for group in naive_groups(board, label):
        alive = False
        for s in group:
            for d in DIRS:
                hit, steps = first_stone(board, s, d)
                if hit is not None and steps >= 2 and board[hit] == label and hit not in group:
                    alive = True
        if not alive:
            dead |= group
    return dead


def naive_legal(game: kato.Game) -> set[str]:
    if game.winner is not None:
        return set()
    board = board_of(game)
    coords = geometry.coordinates(game.size)
    label = "L" if game.to_move == "light" else "D"
    turn = game.turn_number()
    own = [c for c, ch in board.items() if ch == label]
    legal: set[str] = set()
    for name in game.points:
        at = coords[name]
        if board[at] != ".":
            continue
        if turn == 1:
            legal.add(name)
        elif turn == 2:
            # A path to the first stone: same line, all between empty, not adjacent.
            for d in DIRS:
                hit, steps = first_stone(board, at, d)
                if hit == own[0] and steps >= 2:
                    legal.add(name)
        else:
            for d in DIRS:
                hit, _ = first_stone(board, at, d)
                if hit is not None and board[hit] == label:
                    legal.add(name)
    if not legal:
        legal = {"pass"}
    if game.pie and game.turn_number("dark") == 2 and game.to_move == "light":
        if game.turn_number("light") == 2 and not any(p.move == "swap" for p in game.plies):
            legal.add("swap")
    return legal


def state(game: kato.Game) -> tuple[object, ...]:
    return (
        game.position(),
        game.to_move,
        game.winner,
        game.swapped,
        frozenset(game.legal_moves()),
        game.plies,
        sorted(map(sorted, game.dead_groups("light"))),
        sorted(map(sorted, game.dead_groups("dark"))),
    )


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    size=st.sampled_from([5, 6, 7]),
    pie=st.booleans(),
    tournament=st.booleans(),
    choices=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=220),
)
def test_random_games_match_the_naive_reference(
    size: int, pie: bool, tournament: bool, choices: list[int]
) -> None:
    game = kato.Game(size=size, pie=pie, tournament=tournament)
    coords = geometry.coordinates(size)
    for step, choice in enumerate(choices):
        if game.winner is not None:
            break
        legal = game.legal_moves()
        assert legal == naive_legal(game)
        move = sorted(legal)[choice % len(legal)]
        overlooked: list[str] = []
        last = game.plies[-1] if game.plies else None
        if tournament and last is not None and last.removed and move != "swap" and choice % 3 == 0:
            overlooked = [min(last.removed)]
        mover = game.to_move
        label = "L" if mover == "light" else "D"
        before = state(game)
        board = board_of(game)
        try:
            ply = game.play(move, overlooked=overlooked)
        except kato.IllegalMoveError:
            # Only an overlooked stone that blocks the chosen point's line may refuse.
            assert overlooked
            assert state(game) == before
            continue
        # What the naive rules predict the removal step takes: the mover's dead groups
        # once the opponent's third turn begins, and nothing of the opponent's.
        if overlooked:
            for name in ply.overlooked:
                board[coords[name]] = "D" if label == "L" else "L"
        if move in coords:
            board[coords[move]] = label
        opponent_turn = game.turn_number()
        expected = naive_dead(board, label) if opponent_turn >= 3 and move != "swap" else set()
        assert {coords[p] for p in ply.removed} == expected
        for p in ply.removed:
            assert board[coords[p]] == label  # only ever the mover's stones
        if step % 7 == 0:
            game.check_consistency()
            game.undo()
            assert state(game) == before
            game.play(move, overlooked=overlooked)
    # Undo everything: back to the empty board.
    while game.plies:
        game.undo()
    assert game.position() == "." * len(game.points)
    assert game.legal_moves() == set(game.points)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_dead_groups_and_safe_points_match_the_naive_reference(seed: int) -> None:
    import random

    rng = random.Random(seed)
    game = kato.Game(size=6)
    for _ in range(rng.randrange(4, 120)):
        if game.winner is not None:
            break
        game.play(rng.choice(sorted(game.legal_moves())))
    board = board_of(game)
    coords = geometry.coordinates(6)
    for colour, label in (("light", "L"), ("dark", "D")):
        dead = {coords[p] for grp in game.dead_groups(colour) for p in grp}
        assert dead == naive_dead(board, label)
        # Safe points: placements by the turn-3 rule whose new group then has a path.
        safe: set[str] = set()
        for name in game.points:
            at = coords[name]
            if board[at] != ".":
                continue
            if not any(
                (hit := first_stone(board, at, d)[0]) is not None and board[hit] == label
                for d in DIRS
            ):
                continue
            after = dict(board)
            after[at] = label
            group = next(g for g in naive_groups(after, label) if at in g)
            if not group & naive_dead(after, label):
                safe.add(name)
        assert game.safe_points(colour) == safe
