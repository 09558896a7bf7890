"""Standings match ratings computed by hand with Weng and Lin's Plackett-Luce update
(JMLR 2011, Algorithm 4) with OpenSkill's defaults."""

from __future__ import annotations

import math

import pytest

from meridian_table.club.standings import Finished, ranks, rate

MU, SIGMA, BETA, KAPPA, TAU = 25.0, 25.0 / 3, 25.0 / 6, 0.0001, 25.0 / 300


def by_hand(players: list[tuple[float, float]], places: list[int]) -> list[tuple[float, float]]:
    """One Plackett-Luce update for one-player teams: (mu, sigma) in, (mu, sigma) out."""
    sigma_sq = [s * s + TAU * TAU for _, s in players]       # the dynamics term first
    mus = [m for m, _ in players]
    c = math.sqrt(sum(v + BETA * BETA for v in sigma_sq))
    n = len(players)
    sum_q = [sum(math.exp(mus[i] / c) for i in range(n) if places[i] >= places[q])
             for q in range(n)]
    a = [sum(1 for i in range(n) if places[i] == places[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if places[q] <= places[i]:
                share = math.exp(mus[i] / c) / sum_q[q]
                delta += share * (1 - share) / a[q]
                omega += ((1 - share) if q == i else -share) / a[q]
        omega *= sigma_sq[i] / c
        delta *= sigma_sq[i] / c ** 2 * (math.sqrt(sigma_sq[i]) / c)
        out.append((mus[i] + omega,
                    math.sqrt(sigma_sq[i]) * math.sqrt(max(1 - delta, KAPPA))))
    return out


def test_places_come_from_winners_then_scores() -> None:
    result = {"winners": ["Cid"], "scores": [{"player": "Dee", "total": 10},
                                             {"player": "Eve", "total": 7},
                                             {"player": "Fay", "total": 10}]}
    assert ranks(["Cid", "Dee", "Eve", "Fay", "Gus"], result) == [1, 2, 3, 2, 4]
    assert ranks(["Ann", "Bob"], {"winners": []}) == [1, 1]  # a draw


def test_standings_match_ratings_computed_by_hand() -> None:
    duel = Finished("kato", ("Ann", "Bob"), {"winners": ["Ann"]})
    rematch = Finished("kato", ("Bob", "Ann"), {"winners": ["Ann"]})
    four = Finished("colovini", ("Cid", "Dee", "Eve", "Fay"),
                    {"winners": ["Dee"], "scores": [{"player": "Cid", "total": 9},
                                                    {"player": "Dee", "total": 14},
                                                    {"player": "Eve", "total": 3},
                                                    {"player": "Fay", "total": 9}]})
    abandoned = Finished("kato", ("Ann", "Bob"), {"winners": [], "abandoned": True})
    boards = rate([duel, rematch, four, abandoned])

    ann, bob = by_hand([(MU, SIGMA), (MU, SIGMA)], [1, 2])
    bob, ann = by_hand([bob, ann], [2, 1])
    kato = {s.player: s for s in boards["kato"]}
    assert [s.player for s in boards["kato"]] == ["Ann", "Bob"]
    assert kato["Ann"].mu == pytest.approx(ann[0], abs=1e-9)
    assert kato["Ann"].sigma == pytest.approx(ann[1], abs=1e-9)
    assert kato["Bob"].mu == pytest.approx(bob[0], abs=1e-9)
    assert kato["Bob"].sigma == pytest.approx(bob[1], abs=1e-9)
    assert (kato["Ann"].games, kato["Ann"].wins, kato["Bob"].wins) == (2, 2, 0)

    expected = by_hand([(MU, SIGMA)] * 4, [2, 1, 3, 2])  # Cid and Fay tie on 9
    colovini = {s.player: s for s in boards["colovini"]}
    for name, (mu, sigma) in zip(["Cid", "Dee", "Eve", "Fay"], expected, strict=True):
        assert colovini[name].mu == pytest.approx(mu, abs=1e-9), name
        assert colovini[name].sigma == pytest.approx(sigma, abs=1e-9), name
    assert [s.player for s in boards["colovini"]][0] == "Dee"
    assert [s.player for s in boards["colovini"]][-1] == "Eve"
    assert colovini["Cid"].mu == pytest.approx(colovini["Fay"].mu)


