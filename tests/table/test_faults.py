"""Board faults (the link's BoardFault): shown in state(), logged once as a note."""

from __future__ import annotations

import io
import json

import pytest
from tests.table.test_session import make

from meridian_table.cli.play import HeadlessPrinter
from meridian_table.link import BoardFault


def faults(t: object) -> list[dict[str, object]]:
    return list(t.session.state()["link"]["faults"])  # type: ignore[attr-defined]


def test_a_ghost_names_the_site_row_and_column_and_the_missing_diode(
    caplog: pytest.LogCaptureFixture,
) -> None:
    t = make()
    pos = t.board.profile.sites["G6"].pos
    cols = t.board.profile.cols
    t.session.on_link_event(BoardFault("GHOST", (str(pos),)))
    (fault,) = faults(t)
    assert fault["code"] == "GHOST" and fault["count"] == 1
    text = str(fault["text"])
    assert f"position {pos}" in text and "site G6" in text and "diode" in text
    assert f"row {pos // cols}, column {pos % cols}" in text
    assert "ignoring unknown link event" not in caplog.text
    (note,) = t.journal.of_kind("note")
    assert note[1] == {"text": text, "fault": "GHOST", "detail": [str(pos)]}
    # The same ghost again only counts; another position is a second fault.
    t.session.on_link_event(BoardFault("GHOST", (str(pos),)))
    t.session.on_link_event(BoardFault("GHOST", ("9999",)))
    first, second = faults(t)
    assert first["count"] == 2 and "no site of profile kato-114" in str(second["text"])
    assert len(t.journal.of_kind("note")) == 2
    assert t.moves() == [] and t.session.phase == "play"  # a fault is no move


@pytest.mark.parametrize("code, detail, words", [
    ("CONFIG", ("rows", "bad_value"), ["'rows' is bad_value", "flash --profile kato-114"]),
    ("OVERFLOW", ("12",), ["12 changes", "nothing is lost"]),
    ("EXC", ("MemoryError",), ["MemoryError", "monitor"]),
    ("WEIRD", (), ["WEIRD"]),
])
def test_other_faults_are_sentences_in_the_state_and_the_log(
    code: str, detail: tuple[str, ...], words: list[str]
) -> None:
    t = make()
    for _ in range(3):  # CONFIG repeats every second: one note, a count
        t.session.on_link_event(BoardFault(code, detail))
    (fault,) = faults(t)
    assert fault["count"] == 3 and fault["detail"] == list(detail)
    for word in words:
        assert word in str(fault["text"])
    assert len(t.journal.of_kind("note")) == 1
    json.dumps(t.session.state())  # still JSON-able


def test_a_note_that_cannot_be_stored_does_not_stop_the_link() -> None:
    t = make()

    def broken(kind: str, payload: object) -> None:
        raise OSError("disk full")

    t.journal.append = broken  # type: ignore[method-assign]
    t.session.on_link_event(BoardFault("EXC", ("ValueError",)))
    assert faults(t)[0]["code"] == "EXC"


def test_headless_prints_each_new_fault_once() -> None:
    t = make()
    out = io.StringIO()
    printer = HeadlessPrinter(out)
    printer.prime(t.session.state())
    t.session.subscribe(printer)
    t.session.on_link_event(BoardFault("CONFIG", ("leds", "missing")))
    t.session.on_link_event(BoardFault("CONFIG", ("leds", "missing")))
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    printed = [r for r in records if r["event"] == "fault"]
    assert len(printed) == 1 and printed[0]["code"] == "CONFIG" and "'leds'" in printed[0]["text"]


def test_the_link_panel_and_banner_get_the_links_detail_and_whether_it_ever_connected() -> None:
    """state()["link"]["detail"] carries the link's words (a mismatch's advice) and
    ["ever_connected"] tells searching at start-up from an unplug."""
    from tests.table.fakes import FakeBoard, FakeClock, State

    from meridian_table.games.kato.adapter import KatoAdapter
    from meridian_table.profiles import load_profile
    from meridian_table.table import MemoryJournal, TableSession

    profile = load_profile("kato-114")
    board = FakeBoard(profile)
    board.state = "searching"
    session = TableSession(
        KatoAdapter(6, False), profile, board, journal=MemoryJournal(1), clock=FakeClock(),
        players=("Ann", "Bob"),
    )
    link = session.state()["link"]
    assert link["state"] == "searching" and link["ever_connected"] is False
    advice = "the board speaks protocol 2, this host 1: update the host"
    session.on_link_event(State("version-mismatch", advice))
    link = session.state()["link"]
    assert link["detail"] == advice and link["ever_connected"] is False
    session.on_link_event(State("connected", "pico on /dev/ttyACM0"))
    session.on_link_event(State("searching", "lost /dev/ttyACM0: unplugged"))
    link = session.state()["link"]
    assert link["ever_connected"] is True and link["detail"] == "lost /dev/ttyACM0: unplugged"
    json.dumps(session.state())
