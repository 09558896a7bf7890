"""`meridian-table colovini map check/show` and `bench colovini` through click's runner."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.games.colovini.maps import maps_dir

SAMPLE = maps_dir() / "sample-50.toml"


def test_map_check_accepts_the_samples() -> None:
    for name in ("sample-50", "sample-40"):
        result = CliRunner().invoke(main, ["colovini", "map", "check", name])
        assert result.exit_code == 0, result.output
        assert "valid" in result.output


def test_map_check_reports_file_line_and_fix(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    text = SAMPLE.read_text(encoding="utf-8").replace('1  = ["A",', '1  = ["A*",')
    bad.write_text(text, encoding="utf-8")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if row.startswith("1  ="))
    result = CliRunner().invoke(main, ["colovini", "map", "check", str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:{line}: capital on a small island" in result.output
    assert "Fix:" in result.output


def test_map_show_writes_svg(tmp_path: Path) -> None:
    out = tmp_path / "map.svg"
    result = CliRunner().invoke(main, ["colovini", "map", "show", str(SAMPLE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    svg = out.read_text(encoding="utf-8")
    assert svg.startswith("<svg") and svg.count('class="city"') == 50
    assert svg.count("&#9733;") == 7  # the capitals
    assert ">10</text>" in svg  # meridian numbers along the bottom
    stdout = CliRunner().invoke(main, ["colovini", "map", "show", "sample-40"])
    assert stdout.output.count('class="city"') == 40


def test_bench_colovini_prints_the_figures() -> None:
    result = CliRunner().invoke(main, ["bench", "colovini", "--json", "--quick"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    for key in ("legal_actions_us_p99", "legal_actions_us_p50", "reference_copy_columns_us_p50"):
        assert figures[key] > 0
    assert figures["positions"] > 100


def test_map_show_toml_gives_a_shipped_map_to_edit(tmp_path: Path) -> None:
    out = tmp_path / "mine.toml"
    result = CliRunner().invoke(main, ["colovini", "map", "show", "sample-40", "--toml", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == (maps_dir() / "sample-40.toml").read_text(
        encoding="utf-8")
    assert CliRunner().invoke(main, ["colovini", "map", "check", str(out)]).exit_code == 0
