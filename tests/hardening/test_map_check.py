"""`map check` and `play` refuse the bad Colovini maps that used to be accepted, naming
the file, the line and the key (issue 10, item 10)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.cli.helpers import refuse

from meridian_table.games.colovini.maps import maps_dir

SAMPLE = (maps_dir() / "sample-50.toml").read_text(encoding="utf-8")


def line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def bad_maps() -> list[tuple[str, str, str, str]]:
    """(id, text, the line it must name, words the error must hold)."""
    no_section = re.sub(r"\[islands\.A\]\nname = \"Albarra\"\n", "", SAMPLE)
    assert no_section != SAMPLE
    typo = SAMPLE.replace('1  = ["A"', '1  = ["Q"', 1) if '1  = ["A"' in SAMPLE else None
    name5 = SAMPLE.replace('name = "Albarra"', "name = 5")
    huge = SAMPLE.replace('name = "Albarra"', 'name = "Albarra"\nvalue = 99999999999999999999')
    unknown = SAMPLE.replace('name = "Albarra"', 'name = "Albarra"\nvaleu = 4')
    out = [
        ("no-section", no_section, str(line_of(no_section, "1 ")), "islands.A"),
        ("name-5", name5, str(line_of(name5, "name = 5")), "islands.A.name"),
        ("value-huge", huge, str(line_of(huge, "value = 9")), "islands.A.value"),
        ("unknown-key", unknown, str(line_of(unknown, "valeu")), "islands.A.valeu"),
    ]
    if typo is not None:
        out.append(("typo", typo, str(line_of(typo, "1 ")), "islands.Q"))
    return out


@pytest.mark.parametrize(("text", "line", "key"), [m[1:] for m in bad_maps()],
                         ids=[m[0] for m in bad_maps()])
def test_map_check_and_play_name_the_file_the_line_and_the_key(
    tmp_path: Path, text: str, line: str, key: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    where = f"{path}:{line}"
    refuse(["colovini", "map", "check", str(path)], where, key)
    refuse(["play", "colovini", "--headless", "--board", "sim", "--db", ":memory:",
            "--map", str(path)], where, key, stdin="")
