"""Every file reader turns any input into data or its normal error: random bytes,
mutations of real files, and nesting 100,000 levels deep (issue 10, item 9).

The hypothesis examples here are a fixed, derandomized slice; ``meridian-table bench
fuzz`` runs the long version.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.cli.helpers import refuse

from meridian_fw.config import parse_config
from meridian_table.bench.fuzz import deep_inputs, file_readers, read_file_safely
from meridian_table.cli.main import main

DEEP = 100_000


@pytest.mark.parametrize(
    ("args", "suffix", "text", "words"),
    [
        (["profile", "check"], ".json", "[" * DEEP, "not valid JSON"),
        (["profile", "check"], ".json", '{"a":' * DEEP, "not valid JSON"),
        (["profile", "check"], ".toml", "a = " + "[" * DEEP, "not valid TOML"),
        (["colovini", "map", "check"], ".toml", "side = " + "[" * DEEP, "not valid TOML"),
        (["colovini", "map", "check"], ".toml", "x = " + "{a=" * DEEP, "not valid TOML"),
        (["empire", "check", "--cards", "sample", "--map"], ".toml", "a = " + "[" * DEEP,
         "not valid TOML"),
        (["empire", "check", "--map", "sample", "--cards"], ".toml", "a = " + "[" * 900 +
         "]" * 900, "nested"),
    ],
)
def test_deep_nesting_is_a_syntax_error_naming_the_file(
    tmp_path: Path, args: list[str], suffix: str, text: str, words: str
) -> None:
    path = tmp_path / f"deep{suffix}"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, [*args, str(path)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    flat = " ".join(result.output.split())
    assert "Traceback" not in flat and str(path) in flat and words in flat, flat


def test_the_firmware_config_reader_never_raises() -> None:
    for text in ("[" * DEEP, '{"a":' * DEEP, "\x00", "{"):
        config, problem = parse_config(text)
        assert config is None and problem == ("config.json", "not_json")


@settings(max_examples=60, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reader=st.sampled_from(sorted(file_readers())), data=st.binary(max_size=400))
def test_random_bytes_give_each_reader_its_normal_error(
    tmp_path: Path, reader: str, data: bytes
) -> None:
    read_file_safely(reader, data, tmp_path)  # raises AssertionError on a stray exception


@pytest.mark.parametrize("reader", sorted(file_readers()))
def test_deep_and_mutated_inputs_give_each_reader_its_normal_error(
    tmp_path: Path, reader: str
) -> None:
    for data in deep_inputs(reader, seed=10, count=25):
        read_file_safely(reader, data, tmp_path)


def test_the_store_reads_a_log_whose_json_was_tampered_with(tmp_path: Path) -> None:
    import sqlite3

    from meridian_table.store import CorruptDatabaseError, Store

    db = tmp_path / "log.sqlite3"
    with Store.open(db) as store:
        gid = store.create_game("kato", {"size": 6}, ["Ann", "Bob"])
        store.append(gid, "note", {"text": "hi"})
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE events SET payload = ?", ("[" * DEEP,))
        conn.execute("UPDATE games SET players = ?", (json.dumps({"not": "a list"}),))
    with Store.open(db, readonly=True) as store, pytest.raises(CorruptDatabaseError,
                                                                match="did not write"):
        store.games()
    refuse(["games", "--db", str(db)], str(db), "did not write")
    refuse(["replay", str(gid), "--db", str(db)], str(db), "did not write")
