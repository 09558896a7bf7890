"""`meridian-table bench empire-table`: the game's own table bench runs and prints its
figures (its step once named a type imported only for typing: a NameError traceback)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from meridian_table.cli.main import main


def test_bench_empire_table_quick_prints_its_figures() -> None:
    result = CliRunner().invoke(main, ["bench", "empire-table", "--quick", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["game"] == "empire"
    assert figures["switch_to_led_ms_p99"] > 0 and figures["switch_to_led_ms_p50"] > 0
    assert "verdict" in figures
