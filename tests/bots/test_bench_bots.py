"""`meridian-table bench bots --quick --json` prints every field the full bench prints."""

from __future__ import annotations

import json

from click.testing import CliRunner

from meridian_table import bots
from meridian_table.cli.main import main


def test_the_quick_bench_prints_every_figure() -> None:
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
