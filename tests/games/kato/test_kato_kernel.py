"""The compiled playout kernel against the pure-Python engine, play for play.

The C extension (``_kernel.c``) and its Python twin (``kernel.py`` driving ``Game``) must
play the same games from the same seed: same legal moves, same removals, same winner,
same safe points, same search choices. The engine in ``game.py`` is the reference
(itself checked against an independent engine and the rule book's examples).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Iterator

import pytest

from meridian_table.games.kato import kernel
from meridian_table.games.kato.bot import EXPLORE, RAVE_K, KatoBot
from meridian_table.games.kato.game import PASS, SWAP, Game
from meridian_table.games.kato.tables import bits


@pytest.fixture
def twin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run the kernel's calls on the Python twin for the test's duration."""
    monkeypatch.setattr(kernel, "_C", None)
    yield


def test_the_compiled_kernel_is_built_where_the_tests_run() -> None:
    if os.environ.get("MERIDIAN_KATO_KERNEL", "").lower() == "python":
        pytest.skip("MERIDIAN_KATO_KERNEL=python forces the Python twin")
    assert kernel.compiled(), (
        "the C kernel (meridian_table/games/kato/_kernel.c) did not build: run "
        "`.venv/bin/pip install -e .` and read what the compiler says"
    )
    assert kernel.name() == "compiled"


@pytest.mark.parametrize("size", [5, 6, 7])
@pytest.mark.parametrize("pie", [False, True])
@pytest.mark.parametrize("tournament", [False, True])
def test_every_ply_agrees_with_the_python_engine(size: int, pie: bool, tournament: bool) -> None:
    """Random games through both: at every ply the same legal points, safe points and,
    after the move, the same state and the same stones taken."""
    if not kernel.compiled():
        pytest.skip("no compiled kernel to compare")
    rng = random.Random(size * 10 + pie * 2 + tournament)
    plies = 0
    for _ in range(4):
        g = Game(size=size, pie=pie, tournament=tournament)
        state = kernel.state_of(g)
        while not g.is_over and len(g.plies) < 300:
            mask = g.legal_mask()
            assert kernel.legal(state) == tuple(bits(mask))
            assert kernel.safe_counts(state) == (
                g.safe_mask(0).bit_count(),
                g.safe_mask(1).bit_count(),
            )
            codes = bits(mask) or [PASS]
            if g.choice_open:
                codes.append(SWAP)
            code = rng.choice(codes)
            removed = g.play_index(code)
            state, taken = kernel.play(state, code)
            assert taken == bits(removed)
            assert state == kernel.state_of(g)
            plies += 1
        assert kernel.winner(state) == g._winner
    assert plies > 200


def _compiled_then_twin(monkeypatch: pytest.MonkeyPatch, call: str, *args: object) -> tuple[
    object, object
]:
    fn = getattr(kernel, call)
    first = fn(*args)
    monkeypatch.setattr(kernel, "_C", None)
    second = fn(*args)
    monkeypatch.undo()
    return first, second


@pytest.mark.parametrize("seed", range(12))
def test_whole_playouts_are_the_same_game_in_both(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    if not kernel.compiled():
        pytest.skip("no compiled kernel to compare")
    g = Game(size=(5, 6, 7)[seed % 3], pie=seed % 2 == 0)
    compiled, twin = _compiled_then_twin(monkeypatch, "playout", kernel.state_of(g), seed)
    assert compiled == twin
    plies, final = compiled  # type: ignore[misc]
    assert plies >= 1 and kernel.winner(final) in (0, 1)


@pytest.mark.parametrize("seed", range(12))
def test_short_rollouts_are_the_same_in_both(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """From mid-game positions: the plies with their seats, the final state and its safe
    points."""
    if not kernel.compiled():
        pytest.skip("no compiled kernel to compare")
    rng = random.Random(seed)
    g = Game(size=6, pie=seed % 2 == 1)
    for _ in range(rng.randrange(0, 40)):
        if g.is_over:
            break
        g.play(rng.choice(sorted(g.legal_moves())))
    if g.is_over:
        return
    compiled, twin = _compiled_then_twin(monkeypatch, "rollout", kernel.state_of(g), seed, 12)
    assert compiled == twin
    # The seats are those the engine reports as it plays the same moves.
    for seat, code in compiled.moves:  # type: ignore[attr-defined]
        assert seat == g.seat_to_move - 1
        g.play_index(code)


def test_selection_agrees_to_the_last_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    if not kernel.compiled():
        pytest.skip("no compiled kernel to compare")
    rng = random.Random(4)
    for _ in range(400):
        k = rng.randrange(1, 120)
        n = [rng.choice((0, 0, 1, 3, 8, 40)) for _ in range(k)]
        w = [rng.random() * x for x in n]
        an = [rng.choice((0, 2, 17, 300)) for _ in range(k)]
        aw = [rng.random() * x for x in an]
        visits = sum(n) + rng.randrange(0, 5)
        for rave in (True, False):
            args = (n, w, an, aw, visits, rave, RAVE_K, EXPLORE)
            compiled, twin = _compiled_then_twin(monkeypatch, "select", *args)
            assert compiled == twin


def _position(seed: int) -> Game:
    rng = random.Random(seed)
    g = Game(size=6)
    for _ in range(18):
        g.play(rng.choice(sorted(g.legal_moves())))
    return g


def test_the_bot_thinks_the_same_on_either_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixed search (level 3, 300 iterations) gives the same move and the same values
    whichever kernel runs it: the determinism promised for tests holds on every host."""
    if not kernel.compiled():
        pytest.skip("no compiled kernel to compare")
    for seed in (1, 2):
        g = _position(seed)
        compiled = KatoBot(seed=7, argument="3:300").analyse(g.clone())
        monkeypatch.setattr(kernel, "_C", None)
        twin = KatoBot(seed=7, argument="3:300").analyse(g.clone())
        monkeypatch.undo()
        assert compiled == twin


def test_the_python_twin_alone_when_the_extension_is_missing(tmp_path: object) -> None:
    """MERIDIAN_KATO_KERNEL=python, as on a host with no C compiler: the twin runs and
    the bot makes the same move from the same seed."""
    script = (
        "import random\n"
        "from meridian_table.games.kato import kernel\n"
        "from meridian_table.games.kato.bot import KatoBot\n"
        "from meridian_table.games.kato.game import Game\n"
        "rng = random.Random(1); g = Game(size=6)\n"
        "for _ in range(18): g.play(rng.choice(sorted(g.legal_moves())))\n"
        "print(kernel.name(), KatoBot(seed=3, argument='2:150').choose(g))\n"
    )
    outs = []
    for forced in ("python", ""):
        env = dict(os.environ, MERIDIAN_KATO_KERNEL=forced)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              env=env, timeout=120, check=True)
        outs.append(done.stdout.split())
    assert outs[0][0] == "python"
    if kernel.compiled():
        assert outs[1][0] == "compiled"
    assert outs[0][1] == outs[1][1]


def test_bad_calls_are_refused_with_what_was_wrong() -> None:
    state = kernel.state_of(Game(size=6))
    occupied_state, _ = kernel.play(state, 5)
    with pytest.raises(ValueError, match="rollout"):
        kernel.rollout(state, 1, 9999)
    if kernel.compiled():
        with pytest.raises(ValueError, match="not an empty point"):
            kernel.play(occupied_state, 5)
        with pytest.raises(ValueError, match="15 ints"):
            kernel.legal((6, 0))  # type: ignore[arg-type]
