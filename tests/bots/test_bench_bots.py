"""`meridian-table bench bots --quick --json` prints every field the full bench prints."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from meridian_table import bots
from meridian_table.cli.main import main


@pytest.mark.slow
def test_the_quick_bench_prints_every_figure_playing_on_every_core_and_checks_its_adjudication(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every field the full bench prints, played the full bench's way: games in worker
    processes, decided games adjudicated, the played-out ones checked (here 1 game a
    pairing, played out). One run for both (it was two runs of the same games: 30 CPU-s
    of the unit stage's longest chain)."""
    monkeypatch.setenv("MERIDIAN_BENCH_BOT_JOBS", "2")
    monkeypatch.setenv("MERIDIAN_BENCH_BOT_ADJUDICATE", "1")
    result = CliRunner().invoke(main, ["bench", "bots", "--quick", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["games_per_pairing"] == 1
    for game in ("kato", "colovini"):
        data = figures[game]
        for level in bots.LEVELS:
            row = data["levels"][str(level)]
            assert {"vs_random", "vs_greedy", "think_ms_p50", "think_ms_p99"} <= set(row)
            assert 0.0 <= row["vs_random"]["win_rate"] <= 1.0
    assert "top_vs_uct_equal_time" in figures["kato"]
    assert figures["colovini"]["top_vs_random_4_players"]["players"] == 4
    assert isinstance(figures["switch_to_led_ms_p99_while_thinking"], float)
    assert {"kato_top_vs_uct", "colovini_top_vs_random_4_players",
            "switch_to_led_p99_under_10ms_while_thinking"} <= set(figures["verdict"])
    assert figures["jobs"] == 2
    adjudication = figures["adjudication"]
    assert adjudication["played_out_games"] >= 1
    assert 0 <= adjudication["right_in_played_out"] <= adjudication["checked_in_played_out"]
    top = figures["kato"]["levels"]["5"]["vs_random"]
    assert top["played_out"] == 1 and top["adjudicated"] == 0
    assert set(figures["verdict"].values()) <= {"pass", "fail"}
    assert "kato_top_vs_greedy" in figures["targets"]


def test_a_bad_jobs_setting_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MERIDIAN_BENCH_BOT_JOBS", "lots")
    result = CliRunner().invoke(main, ["bench", "bots", "--quick", "--json"])
    assert result.exit_code != 0
    assert "MERIDIAN_BENCH_BOT_JOBS='lots'" in result.output


@pytest.mark.slow
def test_the_contended_bench_plays_each_mode_and_gives_the_iteration_mode_its_calibration() -> None:
    """``bench bots --contend``: idle, then beside one busy process per core with the
    wall-time budget, then with the iterations per move measured idle at the start."""
    result = CliRunner().invoke(main, ["bench", "bots", "--contend", "--quick", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    calibration = figures["calibration_idle"]
    assert calibration["iterations_per_move"] >= 1 and calibration["positions"] >= 1
    for mode in ("idle_time_budget", "contended_time_budget", "contended_iteration_budget"):
        assert figures[mode]["games"] == figures["games_per_mode"] == 1
        assert 0.0 <= figures[mode]["win_rate"] <= 1.0
    assert figures["idle_time_budget"]["iterations"] is None
    assert figures["contended_iteration_budget"]["iterations"] == calibration["iterations_per_move"]
    assert figures["contended_time_budget"]["contention"]["busy_processes"] >= 1
    assert figures["verdict"]["strength_kept_contended"] in ("pass", "fail")
