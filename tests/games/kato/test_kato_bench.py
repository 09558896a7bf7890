"""The bench's figures are present and its plain reference plays the same rules."""

from __future__ import annotations

import random

import pytest

from meridian_table.games import kato
from meridian_table.games.kato import bench, geometry
from meridian_table.games.kato.game import PASS, SWAP, pick_move


def test_quick_bench_reports_every_figure() -> None:
    figures = bench.run({"quick": True})
    for key in ("plies_per_s", "analysis_us_p50", "analysis_us_p99", "reference_plies_per_s"):
        assert figures[key] > 0
    # speedup is the ratio of the unrounded rates: the rounded figures agree within what
    # rounding each rate to a whole number can move their ratio (a busy machine runs the
    # reference slower, so the same half unit weighs more: 542156 / 1972 = 274.93 was
    # printed beside a speedup of 275.0).
    plies, reference = figures["plies_per_s"], figures["reference_plies_per_s"]
    ratio = plies / reference
    slack = ratio * (0.5 / plies + 0.5 / reference) + 0.051  # speedup itself has 1 decimal
    assert figures["speedup"] == pytest.approx(ratio, abs=slack)
    # The rounds split the same games: the overall rate lies within their range.
    rounds = figures["plies_per_s_rounds"]
    assert len(rounds) >= 2
    assert min(rounds) - 1 <= figures["plies_per_s"] <= max(rounds) + 1


def test_reference_agrees_with_the_engine() -> None:
    rng = random.Random(3)
    coords = geometry.coordinates(6)
    names = {qr: name for name, qr in coords.items()}
    for _ in range(3):
        g = kato.Game()
        ref = bench.NaiveGame(6)
        while g.winner is None:
            legal = {names[p] for p in ref.legal()} or {"pass"}
            assert legal == g.legal_moves()
            move = rng.choice(sorted(legal))
            g.play(move)
            ref.play(coords[move] if move != "pass" else None)
            assert ref.winner == (-1 if g.winner is None else kato.COLOURS.index(g.winner))


def test_pick_move_is_uniform() -> None:
    """Dense masks (drawn points), sparse masks (skipped bits) and the swap choice."""
    rng = random.Random(1)
    width = (114).bit_length()
    cases = [
        (0b1011, False),
        (1 << 77, False),
        ((1 << 114) - 1, False),
        (sum(1 << i for i in range(0, 114, 3)), False),  # 38 points: the dense draw
        (sum(1 << i for i in range(5, 114, 9)), False),  # 13 points: the skip
        (0b101 << 40, True),  # two points and "swap"
        (0, True),  # "pass" and "swap"
    ]
    for mask, swap in cases:
        options = [i for i in range(114) if mask >> i & 1] or [PASS]
        if swap:
            options.append(SWAP)
        draws = 400 * len(options)
        counts = dict.fromkeys(options, 0)
        for _ in range(draws):
            code = pick_move(mask, swap, rng, width)
            assert code in counts, (bin(mask), swap, code)
            counts[code] += 1
        expected = draws / len(options)
        # 400 expected per option: +-30 % is over 6 standard deviations.
        assert all(0.7 * expected < n < 1.3 * expected for n in counts.values()), counts


@pytest.mark.parametrize(
    ("size", "pie", "seed"), [(6, False, 1), (6, False, 2), (5, True, 8), (7, True, 4)]
)
def test_random_playout_is_the_public_api_game(size: int, pie: bool, seed: int) -> None:
    """``random_playout`` plays exactly the game that ``legal_moves`` + ``play`` play
    with the same draws: same moves, removals, final position and winner."""
    fast = kato.Game(size=size, pie=pie)
    plies = fast.random_playout(random.Random(seed))
    assert fast.winner is not None
    assert plies == len(fast.plies)

    api = kato.Game(size=size, pie=pie)
    rng = random.Random(seed)
    index = {name: i for i, name in enumerate(api.points)}
    width = len(api.points).bit_length()
    while api.winner is None:
        legal = api.legal_moves()
        mask = sum(1 << index[m] for m in legal if m in index)
        code = pick_move(mask, "swap" in legal, rng, width)
        move = "pass" if code == PASS else "swap" if code == SWAP else api.points[code]
        assert move in legal
        api.play(move)
    assert api.plies == fast.plies
    assert api.position() == fast.position()
    assert api.winner == fast.winner
    fast.check_consistency()
    if (size, seed) == (5, 8):
        assert fast.swapped  # this seed takes the pie swap


def test_random_playout_stops_at_the_limit() -> None:
    g = kato.Game()
    assert g.random_playout(random.Random(5), limit=30) == 30
    assert len(g.plies) == 30
    g.check_consistency()
