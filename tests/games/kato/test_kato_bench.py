"""The bench's figures are present and its plain reference plays the same rules."""

from __future__ import annotations

import random

from meridian_table.bench import kato as bench
from meridian_table.games import kato
from meridian_table.games.kato import geometry


def test_quick_bench_reports_every_figure() -> None:
    figures = bench.run({"quick": True})
    for key in ("plies_per_s", "analysis_us_p50", "analysis_us_p99", "reference_plies_per_s"):
        assert figures[key] > 0
    assert figures["speedup"] == round(figures["plies_per_s"] / figures["reference_plies_per_s"], 1)


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


def test_pick_is_uniform_enough() -> None:
    rng = random.Random(1)
    for mask in (0b1011, (1 << 114) - 1, 1 << 77):
        counts: dict[int, int] = {}
        for _ in range(3000):
            i = bench._pick(mask, 114, rng.random)
            assert mask >> i & 1
            counts[i] = counts.get(i, 0) + 1
        assert len(counts) == mask.bit_count()  # every legal point can come up
        if mask.bit_count() <= 4:
            assert min(counts.values()) > 0.5 * 3000 / mask.bit_count()
