"""Kato with full assist warns the mover about their own stones with no path before the
removal step takes them, and names the turn that takes them; other levels do not."""

from __future__ import annotations

import random

from meridian_table.games.board import History
from meridian_table.games.kato.adapter import KatoAdapter


def _find_warning(assist: str, seed: int) -> tuple[KatoAdapter, tuple[str, ...], str] | None:
    rng = random.Random(seed)
    adapter = KatoAdapter(5, False, assist=assist)
    history = History(adapter)
    for _ in range(120):
        if adapter.result() is not None:
            return None
        view = adapter.view(None)
        if view.warnings:
            return adapter, view.warnings[0].sites, view.warnings[0].text
        history.play(rng.choice(sorted(view.legal)))
    return None


def test_the_mover_is_warned_before_the_removal_takes_their_stones() -> None:
    for seed in range(200):
        found = _find_warning("full", seed)
        if found is None:
            continue
        adapter, sites, text = found
        mover = adapter.to_move
        other = "dark" if mover == "light" else "light"
        assert "no path" in text and f"start of {other.capitalize()}'s turn" in text
        assert all(adapter.pieces()[s] == mover[0].upper() for s in sites)
        # A move that does not give them a path: the removal takes exactly those stones.
        for move in sorted(adapter.view(None).legal):
            trial = KatoAdapter(5, False, assist="full")
            for applied in adapter.past:
                trial.play(applied.notation)
            applied = trial.play(move)
            if set(sites) <= set(applied.removed):
                return
        continue
    raise AssertionError("no warned group was removed in 200 random games")


def test_no_warning_without_full_assist() -> None:
    for seed in range(40):
        assert _find_warning("captures", seed) is None
