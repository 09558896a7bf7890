"""Defect 8 of issue 27: loose fields. A seat of "²" and an automaton of ``bot:١`` are
refused in words; player names must be text without control or text-direction
characters; WebSocket error replies carry the command's id; the CSV export escapes cells
that start like a formula (OWASP); record parsers bound their headers."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from meridian_table.games import registry
from meridian_table.games.colovini import record as colovini_record
from meridian_table.games.contract import OptionError
from meridian_table.games.empire import record as empire_record
from meridian_table.games.kato import record as kato_record
from meridian_table.games.record_headers import MAX_HEADERS
from meridian_table.store import Store
from meridian_table.store.export import export
from meridian_table.table import TableSession
from meridian_table.table.lobby import _seats
from meridian_table.table.names import PlayerNameError, clean_names
from meridian_table.web import create_app


@pytest.mark.parametrize("description", ["bot:١", "bot:٣", "bot:３", "bot:²", "random\x00",
                                         "bot:" + "9" * 100])
def test_loose_fields_an_automaton_with_non_ascii_digits_is_refused(description: str) -> None:
    for game in ("kato", "colovini"):
        with pytest.raises(OptionError) as caught:
            registry.spec(game).policy(description)
        assert "ValueError" not in str(caught.value)


def test_loose_fields_a_superscript_seat_is_refused_in_words() -> None:
    with pytest.raises(ValueError, match="not a seat of this game") as caught:
        _seats({"²": "random"}, registry.spec("kato"), 2)
    assert "invalid literal" not in str(caught.value)


@pytest.mark.parametrize("name", ["Ann\x00", "Ann\u202eevil", "\u2066Bob", "a\x1bb", "x\u2028y"])
def test_loose_fields_a_name_with_control_characters_is_refused(name: str) -> None:
    with pytest.raises(PlayerNameError, match="U\\+"):
        clean_names([name, "Bob"])


@pytest.mark.parametrize("value", [{"a": 1}, ["Ann"], 7, None, True])
def test_loose_fields_a_name_that_is_not_text_is_refused(value: object) -> None:
    with pytest.raises(PlayerNameError, match="not text"):
        clean_names([value, "Bob"])


def test_loose_fields_names_in_other_scripts_still_pass() -> None:
    assert clean_names(["Zoë", "حسن", "李雷", "👩‍👩‍👧"]) == ("Zoë", "حسن", "李雷", "👩‍👩‍👧")


def test_loose_fields_a_websocket_error_reply_names_the_command(
        logged_session: TableSession) -> None:
    client = TestClient(create_app(logged_session), base_url="http://127.0.0.1:8765")
    with client.websocket_connect("ws://127.0.0.1:8765/ws") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_text(json.dumps({"type": "command", "id": "c-17", "cmd": {"nope": 1}}))
        reply = ws.receive_json()
        while reply["type"] == "state":
            reply = ws.receive_json()
        assert reply["type"] == "error" and reply["id"] == "c-17"


def test_loose_fields_csv_cells_that_start_like_a_formula_are_escaped(tmp_path: Path) -> None:
    with Store.open(tmp_path / "log.sqlite3") as store:
        names = ["=HYPERLINK(\"http://x\",\"a\")", "+1", "-2+3", "@SUM(A1)", "\tTab", "Ann"]
        gid = store.create_game("toy", {}, names[:2] + ["Ann"])
        text = export(store, gid, "csv")
        gid2 = store.create_game("toy", {}, names[2:5])
        text2 = export(store, gid2, "csv")
    cells = [row["player"] for row in csv.DictReader(io.StringIO(text + text2.split("\n", 1)[1]))]
    assert cells == ["'=HYPERLINK(\"http://x\",\"a\")", "'+1", "Ann", "'-2+3", "'@SUM(A1)",
                     "'\tTab"]


@pytest.mark.parametrize("parse", [kato_record.parse, colovini_record.parse,
                                   empire_record.parse])
def test_loose_fields_a_record_with_10000_headers_is_refused_at_once(parse: object) -> None:
    game = {kato_record.parse: "kato", colovini_record.parse: "colovini",
            empire_record.parse: "empire"}[parse]  # type: ignore[index]
    text = f"Game: {game}\n" + "".join(f"X{n}: {n}\n" for n in range(10_000)) + "\n"
    with pytest.raises(ValueError, match=f"line {MAX_HEADERS + 1}.*more than {MAX_HEADERS} "
                       "headers"):
        parse(text)  # type: ignore[operator]
