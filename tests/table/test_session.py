"""The table session with a fake board and a fake clock: settling, guidance, undo, unplug."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from typing import Any

import pytest
from tests.table.fakes import FakeBoard, FakeClock, State

from meridian_table.games import kato
from meridian_table.games.board import PUT_BACK_COLOUR, REMOVE_COLOUR, SEEN_COLOUR, dim
from meridian_table.games.kato.adapter import DARK_COLOUR, LIGHT_COLOUR, KatoAdapter
from meridian_table.profiles import load_profile
from meridian_table.store.events import Action, LogEvent
from meridian_table.table import MemoryJournal, SessionError, TableSession


@dataclass
class Table:
    session: TableSession
    board: FakeBoard
    clock: FakeClock
    journal: MemoryJournal
    adapter: KatoAdapter

    def settle(self) -> None:
        self.clock.advance(0.301)
        self.session.tick()

    def place(self, site: str) -> None:
        self.board.set(site, True)
        self.settle()

    def lift(self, site: str) -> None:
        self.board.set(site, False)
        self.settle()

    def moves(self) -> list[str]:
        return [m["notation"] for m in self.session.state()["moves"]]


def make(pie: bool = False, assist: str = "full") -> Table:
    profile = load_profile("kato-114")
    board = FakeBoard(profile)
    clock = FakeClock()
    adapter = KatoAdapter(6, pie, assist=assist)
    journal = MemoryJournal(1)
    session = TableSession(
        adapter, profile, board, journal=journal, clock=clock, settle_s=0.3, players=("Ann", "Bob")
    )
    board.session = session
    return Table(session, board, clock, journal, adapter)


def capture_line(seed: int = 1) -> tuple[list[str], int]:
    """A random game's moves up to and including the first ply that removes stones."""
    rng = random.Random(seed)
    for _ in range(200):
        game = kato.new_game(6)
        moves: list[str] = []
        for _ply in range(80):
            legal = sorted(game.legal_moves())
            if not legal:
                break
            move = rng.choice(legal)
            ply = game.play(move)
            moves.append(move)
            if ply.removed and move != "pass" and game.winner is None:
                return moves, len(ply.removed)
    raise AssertionError("no capture found")


def test_placement_settles_then_is_logged_flashed_and_hints_the_next_mover() -> None:
    t = make()
    assert t.session.phase == "play"
    assert t.board.light_at("G6") == (dim(LIGHT_COLOUR), "S")
    t.board.set("G6", True)
    # The instant acknowledgement: the tentative cue before anything is read.
    assert t.board.light_at("G6") == (SEEN_COLOUR, "S")
    assert t.session.state()["tentative"] == {"arriving": ["G6"], "leaving": []}
    t.clock.advance(0.01)
    assert t.session.tick() is not None  # still settling (the quick window is 30 ms)
    assert t.moves() == []
    t.clock.advance(0.09)
    assert t.session.tick() is not None  # read early: shown, not logged until 300 ms
    assert t.moves() == ["G6"] and t.session.state()["moves"][0].get("provisional")
    assert t.journal.of_kind("action") == []
    assert t.board.light_at("G6") == (LIGHT_COLOUR, "X")
    t.clock.advance(0.25)
    t.session.tick()
    assert t.moves() == ["G6"] and not t.session.state()["moves"][0].get("provisional")
    assert t.journal.of_kind("action")[0][1]["notation"] == "G6"
    assert t.board.light_at("G6") == (LIGHT_COLOUR, "X")
    assert t.board.light_at("A1") == (dim(DARK_COLOUR), "S")
    assert t.session.state()["to_move"] == "dark"


def test_a_change_that_reverts_within_the_window_is_nothing() -> None:
    t = make()
    t.board.set("G6", True)
    t.clock.advance(0.2)
    t.session.tick()  # read early...
    assert t.moves() == ["G6"]
    t.board.set("G6", False)  # ...and lifted within the full window: taken back
    assert t.moves() == []
    t.settle()
    assert t.moves() == [] and t.session.phase == "play"
    assert t.journal.of_kind("action", "sense", "undo") == []  # the log holds nothing wrong


def test_a_slide_across_neighbours_reads_only_where_the_stone_stops() -> None:
    t = make()
    for site, closed, dt in (("G6", True, 0.05), ("G6", False, 0.02), ("G7", True, 0.06),
                             ("G7", False, 0.01), ("H7", True, 0.0)):
        t.board.set(site, closed)
        t.clock.advance(dt)
        t.session.tick()
    assert t.moves() == []  # a slide waits longer than the table's window...
    t.settle()
    assert t.moves() == []  # ...a hand may rest on a point on its way (docs/TABLE.md)
    t.clock.advance(0.3)
    t.session.tick()
    assert t.moves() == ["H7"]
    assert [p["notation"] for _, p in t.journal.of_kind("action")] == ["H7"]
    assert t.journal.of_kind("undo") == []


def test_a_hand_resting_mid_slide_is_not_read_as_the_move() -> None:
    t = make()
    # G6 then G7 on the way, resting 400 ms on G7 (a legal point), then on to H7.
    for site, closed, dt in (("G6", True, 0.04), ("G6", False, 0.0), ("G7", True, 0.4),
                             ("G7", False, 0.0), ("H7", True, 0.0)):
        t.board.set(site, closed)
        t.clock.advance(dt)
        t.session.tick()
    assert t.moves() == []
    t.clock.advance(0.61)
    t.session.tick()
    assert t.moves() == ["H7"]
    assert [p["notation"] for _, p in t.journal.of_kind("action")] == ["H7"]


def test_a_knocked_neighbour_settling_back_waits_for_the_hands() -> None:
    t = make()
    t.place("G6")
    t.board.set("C3", True)
    t.clock.advance(0.04)
    t.session.tick()
    assert t.moves() == ["G6", "C3"]  # read early, shown at once
    t.board.set("G6", False)  # the hand knocks G6: it wobbles and settles back
    t.clock.advance(0.02)
    t.board.set("G6", True)
    assert t.moves() == ["G6"]  # the early read is taken back, unlogged
    t.settle()
    assert t.moves() == ["G6"]  # a re-place waits longer
    t.clock.advance(0.3)
    t.session.tick()
    assert t.moves() == ["G6", "C3"]
    assert [p["notation"] for _, p in t.journal.of_kind("action")] == ["G6", "C3"]


def test_two_stones_at_once_retract_an_early_read_and_are_two_mistakes() -> None:
    t = make()
    t.board.set("G6", True)
    t.clock.advance(0.05)
    t.session.tick()
    assert t.moves() == ["G6"]  # read early
    t.board.set("B3", True)  # the second stone of the same hand, 50 ms later
    assert t.moves() == []
    t.settle()
    state = t.session.state()
    assert state["phase"] == "resync" and sorted(state["diff"]["remove"]) == ["B3", "G6"]
    assert t.journal.of_kind("action") == []


def test_illegal_stone_blinks_remove_until_lifted() -> None:
    t = make()
    t.place("A1")
    t.place("M1")
    t.place("A2")  # adjacent second stone: illegal
    assert t.session.phase == "resync"
    assert t.board.light_at("A2") == (REMOVE_COLOUR, "F")
    state = t.session.state()
    assert state["diff"]["remove"] == ["A2"] and state["diff"]["next"] == "A2"
    assert "second stone" in state["message"]
    t.lift("A2")
    assert t.session.phase == "play" and t.moves() == ["A1", "M1"]


def test_two_stones_at_once_are_two_mistakes_guided_one_at_a_time() -> None:
    t = make()
    t.board.set("A1", True)
    t.board.set("M1", True)
    t.settle()
    assert t.session.phase == "resync"
    assert t.session.state()["diff"]["remove"] == ["A1", "M1"]
    assert t.board.light_at("A1") == (REMOVE_COLOUR, "F")
    assert t.board.light_at("M1") == (0, "O")  # one square at a time
    t.lift("A1")
    assert t.moves() == ["M1"]  # the stone left is one placement, now legal


def test_lifted_stone_pulses_put_back_and_buttons_wait() -> None:
    t = make()
    for site in ("A1", "M1", "A3"):
        t.place(site)
    t.lift("A1")
    assert t.board.light_at("A1") == (PUT_BACK_COLOUR, "P")
    assert t.session.command({"cmd": "button", "name": "pass"})["ok"] is False
    t.place("A1")
    assert t.session.phase == "play"


def test_takeback_lift_and_undo() -> None:
    t = make()
    for site in ("A1", "M1", "A3"):
        t.place(site)
    t.lift("A3")
    state = t.session.state()
    assert state["diff"]["put_back"] == ["A3"] and "Undo" in state["message"]
    t.board.press("undo")
    assert t.moves() == ["A1", "M1"] and t.session.phase == "play"
    assert t.journal.of_kind("undo")[0][1]["notation"] == "A3"


def test_undo_before_lifting_guides_the_stone_off() -> None:
    t = make()
    t.place("A1")
    assert t.session.command({"cmd": "button", "name": "undo"}) == {"ok": True}
    assert t.session.phase == "resync"
    assert t.board.light_at("A1") == (REMOVE_COLOUR, "F")
    t.lift("A1")
    assert t.session.phase == "play" and t.moves() == []
    assert t.session.command({"cmd": "button", "name": "undo"})["ok"] is False


def test_dead_groups_blink_together_then_undo_asks_to_put_them_back() -> None:
    moves, count = capture_line()
    t = make()
    for move in moves[:-1]:
        if move == "pass":
            t.session.press("confirm")
        else:
            t.place(move)
    t.place(moves[-1])
    removed = t.session.state()["moves"][-1]["removed"]
    assert len(removed) == count
    assert t.session.phase == "resync"
    state = t.session.state()
    assert state["diff"]["remove"] == removed
    for site in removed:
        assert t.board.light_at(site) == (REMOVE_COLOUR, "F")  # all at once
    for site in removed:
        t.lift(site)
    assert t.session.phase == "play"
    t.session.press("undo")
    state = t.session.state()
    assert sorted(state["diff"]["put_back"]) == sorted(removed)
    assert state["diff"]["remove"] == [moves[-1]]


def test_unplug_pauses_and_replug_reconciles() -> None:
    t = make()
    t.place("A1")
    t.place("M1")
    t.board.unplug()
    assert t.session.phase == "paused"
    assert "disconnected" in t.session.state()["message"]
    assert t.session.command({"cmd": "button", "name": "undo"})["ok"] is False
    t.board.closed.discard(t.board.profile.sites["A1"].pos)  # moved while unplugged
    t.board.replug()
    t.settle()
    assert t.session.phase == "resync"
    assert t.session.state()["diff"]["put_back"] == ["A1"]
    t.place("A1")
    assert t.session.phase == "play" and t.moves() == ["A1", "M1"]


def test_pie_swap_and_keep() -> None:
    t = make(pie=True)
    assert "Light stone" in t.session.state()["message"]
    t.place("A1")
    assert "Dark stone" in t.session.state()["message"]
    t.place("M1")
    state = t.session.state()
    assert state["phase"] == "choice" and state["question"]["field"] == "pie"
    assert state["seats"] == {"light": "Bob", "dark": "Ann"}  # the opener holds Dark
    t.place("G6")  # a stone before the choice is a mistake
    assert t.session.phase == "resync"
    t.lift("G6")
    t.board.press("swap")
    assert t.moves() == ["A1", "M1", "swap"]
    assert t.session.state()["seats"] == {"light": "Ann", "dark": "Bob"}
    t.session.press("undo")
    assert t.session.phase == "choice"
    assert t.session.command({"cmd": "choose", "field": "pie", "value": "keep"}) == {"ok": True}
    assert t.session.phase == "play"
    assert t.journal.of_kind("choice")[-1][1]["value"] == "keep"


def test_unknown_commands_and_bad_toggles_are_refused_with_reasons() -> None:
    t = make()
    reply = t.session.command({"cmd": "dance"})
    assert reply["ok"] is False and "dance" in reply["error"]
    reply = t.session.command({"cmd": "toggle", "site": "A1"})
    assert reply["ok"] is False and "physical" in reply["error"]
    assert t.session.state()["error"] == reply["error"]
    with pytest.raises(SessionError):
        t.session.agree("light")


def test_subscribers_get_each_change_and_can_unsubscribe() -> None:
    t = make()
    seen: list[str] = []
    stop = t.session.subscribe(lambda state: seen.append(state["phase"]))
    t.place("A1")
    assert seen and seen[-1] == "play"
    stop()
    n = len(seen)
    t.place("M1")
    assert len(seen) == n


def test_a_refused_physical_button_is_shown_not_raised() -> None:
    t = make()
    t.board.press("undo")  # nothing to undo: must not raise on the link's thread
    assert "nothing to undo" in t.session.state()["error"]
    t.board.press("swap")
    assert "pie" in t.session.state()["error"].lower()


def test_a_failing_log_takes_the_move_back() -> None:
    t = make()

    class Broken(MemoryJournal):
        def append(self, event: LogEvent) -> None:
            if isinstance(event, Action):
                raise OSError("disk full")
            super().append(event)

    t.session.journal = Broken(1)
    t.board.set("G6", True)
    t.clock.advance(0.31)
    t.session.tick()
    assert t.moves() == [] and len(t.session.history) == 0
    state = t.session.state()
    assert state["phase"] == "resync" and "disk full" in state["error"]
    assert state["diff"]["remove"] == ["G6"]


def test_an_accepted_press_or_choice_clears_the_last_refusal() -> None:
    t = make(pie=True)
    t.board.press("undo")  # nothing to undo: refused, shown
    assert "nothing to undo" in t.session.state()["error"]
    t.place("A1")  # the board settles: cleared as before
    assert t.session.state()["error"] == ""
    t.place("M1")
    t.board.press("pass")  # refused: the pie choice is open, no pass
    assert t.session.state()["error"]
    # a physical button that is accepted clears it (the board has not settled since)
    t.board.press("swap")
    assert t.session.state()["error"] == ""
    t.session.press("undo")
    reply = t.session.command({"cmd": "button", "name": "pass"})
    assert reply["ok"] is False and t.session.state()["error"] == reply["error"]
    assert t.session.command({"cmd": "choose", "field": "pie", "value": "keep"}) == {"ok": True}
    assert t.session.state()["error"] == ""
    reply = t.session.command({"cmd": "choose", "field": "pie", "value": "keep"})
    assert reply["ok"] is False and t.session.state()["error"]
    assert t.session.command({"cmd": "button", "name": "undo"}) == {"ok": True}
    assert t.session.state()["error"] == ""


def test_a_refused_press_after_an_accepted_one_is_still_shown() -> None:
    t = make()
    t.session.command({"cmd": "button", "name": "undo"})
    first = t.session.state()["error"]
    assert "nothing to undo" in first
    reply = t.session.command({"cmd": "button", "name": "swap"})
    assert reply["ok"] is False and t.session.state()["error"] == reply["error"] != first


def test_the_host_closing_the_link_is_not_announced_as_a_disconnection(
    caplog: pytest.LogCaptureFixture,
) -> None:
    t = make()
    t.place("G6")
    caplog.set_level("INFO", logger="meridian_table.table.core")
    t.board.state = "closed"
    t.session.on_link_event(State("closed", "closed by the host"))
    assert not [r for r in caplog.records if r.levelname == "WARNING"]
    assert "disconnected" not in caplog.text
    assert "table closed" in caplog.text
    state = t.session.state()
    assert state["phase"] == "paused" and state["message"].startswith("Table closed")
    assert "disconnected" not in state["message"].lower()


def test_an_unplug_is_still_announced(caplog: pytest.LogCaptureFixture) -> None:
    t = make()
    t.board.unplug()
    assert "board disconnected (unplugged): game paused" in caplog.text
    assert t.session.state()["message"].startswith("Board disconnected")


def test_the_last_state_told_is_the_newest_when_two_threads_tell_at_once() -> None:
    """Two threads notify at once (the page's command, the ticker): the one holding the
    older snapshot may reach the subscriber last. The page then showed a game still in
    play after the table had ended it, until the next change (found by the page's
    tests on the real table, issue 23)."""
    t = make()
    seen: list[list[str]] = []
    first = threading.Event()
    newer_told = threading.Event()

    def callback(state: Any) -> None:
        if not first.is_set():
            first.set()
            assert newer_told.wait(10)  # the older state arrives after the newer one
        else:
            newer_told.set()
        seen.append([m["notation"] for m in state["moves"]])

    t.session.subscribe(callback)
    worker = threading.Thread(target=t.session.refresh)  # tells the empty board
    worker.start()
    assert first.wait(10)
    t.place("A1")  # told on this thread meanwhile
    worker.join(10)
    assert not worker.is_alive()
    assert seen[-1] == ["A1"]
