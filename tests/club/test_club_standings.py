"""Standings match ratings computed by hand with Weng and Lin's Plackett-Luce update
(JMLR 2011, Algorithm 4) with OpenSkill's defaults."""

from __future__ import annotations

import math

import pytest

from meridian_table.club.standings import Finished, ranks, rate

from .conftest import Club

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




def test_a_withdrawn_game_leaves_the_standings_and_is_logged(club: Club) -> None:
    """The organiser withdraws a game (a remote one: every copy) and resets a table: the
    standings are recomputed without them, and each action is in the admin's log."""
    import psycopg
    from click.testing import CliRunner
    from psycopg.types.json import Jsonb
    from starlette.testclient import TestClient

    from meridian_table.cli.main import main
    from meridian_table.club.remote import invite
    from meridian_table.club.web import create_club_app

    with club.admin() as admin:
        urls = {name: admin.add_table(name) for name in ("north", "south")}
    invite(club.admin_url, "duel", "kato", {}, ["Ann", "Bob"], ["north", "south"])
    for name in ("north", "south"):
        with psycopg.connect(urls[name], autocommit=True) as conn:
            for gid, remote, winner in ((1, "duel", "Ann"), (2, None, "Bob")):
                conn.execute("INSERT INTO club.games (game_id, game, options, players, "
                             "versions, started, remote) VALUES (%s, 'kato', '{}', "
                             "'[\"Ann\", \"Bob\"]', '{}', now(), %s)", (gid, remote))
                conn.execute("INSERT INTO club.events (game_id, seq, local_id, kind, at, "
                             "payload) VALUES (%s, 1, %s, 'result', now(), %s)",
                             (gid, gid, Jsonb({"winners": [winner]})))

    def games_of(page: TestClient) -> dict[str, int]:
        rows = page.get("/standings?format=json").json().get("kato", [])
        return {s["player"]: s["games"] for s in rows}

    with TestClient(create_club_app(club.page_url), base_url="http://127.0.0.1") as page:
        assert games_of(page) == {"Ann": 3, "Bob": 3}   # duel once, two games of their own
        done = CliRunner().invoke(main, ["club", "withdraw", "south", "1", "--reason",
                                         "wrong rule", "--db", club.admin_url])
        assert done.exit_code == 0 and "2 copies" in done.output, done.output
        assert games_of(page) == {"Ann": 2, "Bob": 2}
        assert "Withdrawn by the organiser" in page.get("/game/north/1").text
        reset = CliRunner().invoke(main, ["club", "reset-table", "north", "--db",
                                          club.admin_url])
        assert reset.exit_code == 0, reset.output
        assert games_of(page) == {"Ann": 1, "Bob": 1}
        missing = CliRunner().invoke(main, ["club", "withdraw", "south", "9", "--db",
                                            club.admin_url])
        assert missing.exit_code == 1 and "no game 9 of table 'south'" in missing.output
    with psycopg.connect(club.page_url) as conn:
        actions = [r[0] for r in conn.execute("SELECT action FROM club.admin_log ORDER BY id")]
    assert actions == ["add-table", "add-table", "withdraw", "reset"]
    for url in (urls["north"], club.page_url):    # only the admin withdraws
        with psycopg.connect(url, autocommit=True) as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("INSERT INTO club.withdrawn (table_name, game_id) "
                             "VALUES ('south', 2)")
