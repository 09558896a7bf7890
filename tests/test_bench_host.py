"""`meridian-table bench host --json --quick` prints every footprint figure and a verdict
against the budgets (the figures themselves are judged by the bench, never here)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from meridian_table.bench import host
from meridian_table.cli.bench import _with_verdict
from meridian_table.cli.main import main


@pytest.mark.slow
def test_bench_host_reports_the_footprint_and_a_verdict() -> None:
    result = CliRunner().invoke(main, ["bench", "host", "--json", "--quick"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    for key in ("cold_start_to_page_s", "rss_after_start_mb", "rss_after_game_mb",
                "idle_cpu_percent", "reference_interpreter_start_s",
                "reference_interpreter_rss_mb", "reference_board_and_link_idle_cpu_percent",
                "help_s", "help_ratio"):
        assert figures[key] >= 0, key
    # Start-up: what --help and play import, beside a bare interpreter's own modules.
    assert 0 < figures["reference_interpreter_modules"] < figures["modules_imported_by_help"]
    assert figures["modules_imported_by_help"] < figures["modules_imported_by_play"]
    assert set(figures["verdict_by_target"]) == {"cold_start_to_page_s", "help_s"}
    assert figures["moves_played"] == host.QUICK_MOVES
    assert figures["budgets"] == {"rss_mb": 80.0, "idle_cpu_percent": 2.0}
    assert len(figures["cold_start_runs_s"]) == 1  # --quick: one start (else the median of 3)
    # The budget's verdict in words, then every target missed named after it.
    words = host._verdict(figures)
    assert words == "within budget" or words.startswith("over budget: ")
    missed = [name for name, outcome in figures["verdict_by_target"].items() if outcome != "pass"]
    assert figures["verdict"].startswith(words)
    for name in missed:
        assert f"{name} {figures[name]}, target < " in figures["verdict"]
    assert ("target missed" in figures["verdict"]) == bool(missed)


def test_the_verdict_names_every_figure_over_budget() -> None:
    figures = {"rss_after_start_mb": 50.0, "rss_after_game_mb": 81.0, "idle_cpu_percent": 2.5}
    assert host._verdict(figures) == (
        "over budget: rss_after_game_mb 81.0 >= 80.0; idle_cpu_percent 2.5 >= 2.0")
    figures.update(rss_after_game_mb=60.0, idle_cpu_percent=0.4)
    assert host._verdict(figures) == "within budget"


def test_a_verdict_in_words_names_every_target_missed() -> None:
    figures = {"verdict": "within budget", "cold_start_to_page_s": 0.613, "help_s": 0.09}
    out = _with_verdict(figures, host.TARGETS)
    assert out["verdict_by_target"] == {"cold_start_to_page_s": "fail", "help_s": "pass"}
    assert out["verdict"] == "within budget; target missed: cold_start_to_page_s 0.613, target < 0.5"
    figures["cold_start_to_page_s"] = 0.45
    assert _with_verdict(figures, host.TARGETS)["verdict"] == "within budget"
