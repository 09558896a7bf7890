"""Bots at the table, through the virtual board: the real firmware, link, session, log,
and each bot thinking in its worker process.

A person plays Kato against a bot and takes a move back while the bot thinks (the
worker's search is cancelled and the next request is answered); a person plays
Colovini against two bots; quitting the table ends the workers.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

from tests.games.colovini.test_colovini_virtual import Driver as ColoviniDriver
from tests.games.colovini.test_colovini_virtual import _choose, perform
from tests.games.kato.test_kato_virtual import Driver as KatoDriver
from tests.games.kato.test_kato_virtual import white
from tests.table.test_automata_virtual import _open, _sources, carry_out, resolve, wait_phase

from meridian_table.bots.worker import WorkerPolicy
from meridian_table.table.runner import TableSetup, open_table


def _wait(predicate: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return
        pause.wait(0.01)
    raise AssertionError("the condition never held")


def test_kato_against_a_bot_undo_cancels_its_thinking_and_quit_ends_its_worker(
        tmp_path: Path) -> None:
    running = _open(tmp_path, "kato", "kato-80", ("Ann", "Computer"), {"2": "bot:5"})
    running.session.think_s = 30.0  # long enough to be still thinking at the undo
    with running:
        d = KatoDriver(running)
        worker = running.session.seats.policy(1)
        assert isinstance(worker, WorkerPolicy)
        assert d.state()["seats_kind"] == {"light": "person", "dark": "bot:5"}
        d.set("A1", True)
        state = wait_phase(d, "thinking", timeout=30)
        assert state["automaton"]["status"] == "thinking"
        assert "Computer (Computer — level 5 (strongest)) is thinking" in state["message"]
        _wait(lambda: worker.alive)
        d.session.press("undo")
        assert d.moves() == [] and d.state()["automaton"] is None
        resolve(d)
        # A bot of a fixed amount of search answers at once, from a new worker.
        d.session.set_seat(2, "bot:1:40")
        assert not worker.alive  # the seat changed hands: the old worker was closed
        d.set("B2", True)
        state = wait_phase(d, "execute", timeout=60)
        target = state["diff"]["next"]
        assert state["automaton"]["automaton"] == "bot:1:40"
        d.shows(target, white)
        carry_out(d)
        wait_phase(d, "play", "pass")
        assert _sources(d) == [("B2", "board", "person"), (target, "automaton", "automaton")]
        second = running.session.seats.policy(1)
        assert isinstance(second, WorkerPolicy) and second.alive
    assert not second.alive  # quitting the table ended the worker


def test_colovini_with_a_person_and_two_bots(tmp_path: Path) -> None:
    running = _open(tmp_path, "colovini", "colovini-40", ("Ann", "Bob", "Cid"),
                    {"2": "bot:1", "3": "bot:2"}, deck="digital", seed=41)
    with running:
        d = ColoviniDriver(running)
        engine = d.adapter.engine
        rng = random.Random(9)
        for _ in range(300):
            if engine.is_over:
                break
            state = wait_phase(d, "play", "pass", "execute", "ended", "resync", "choice",
                               timeout=30)
            if state["phase"] == "ended":
                break
            if state["phase"] == "execute":
                assert state["automaton"]["automaton"] in ("bot:1", "bot:2")
                carry_out(d)
            elif state["phase"] == "resync":
                resolve(d)
            elif engine.to_move == 0:
                action = _choose(engine, rng)
                before = len(d.moves())
                try:
                    perform(d, action, by_buttons=False)
                except AssertionError:
                    pass  # a bot that passes may already have played after it
                assert d.moves()[before] == action.notation(), d.state()["message"]
        assert engine.is_over
        wait_phase(d, "ended", timeout=30)
        by = {(src, who) for _, src, who in _sources(d)}
        assert ("automaton", "automaton") in by and any(w == "person" for _, w in by)


def _cyan(c: tuple[int, int, int]) -> bool:  # the hint's pulse: green and blue, no red
    return c[0] == 0 and c[1] > 0 and c[2] > 0


def test_a_hint_lights_the_bots_move_for_the_person_to_move(tmp_path: Path) -> None:
    running = _open(tmp_path, "kato", "kato-80", ("Ann", "Bob"), {})
    with running:
        d = KatoDriver(running)
        state = d.state()
        assert "hint" in state["controls"] and state["control_state"]["hint"]["enabled"]
        d.session.press("hint")
        _wait(lambda: d.state()["message"].startswith("Hint: "), timeout=60)
        state = d.state()
        hinted = [site for site, led in state["leds"].items() if led.get("colour") == "#00b4c8"]
        assert len(hinted) == 1, state["leds"]
        site = hinted[0]
        assert site in state["legal"]
        d.shows(site, _cyan, timeout=10)
        # A move makes the hint stale: it is no longer lit.
        d.set(site, True)
        wait_phase(d, "play")
        assert d.moves() == [site]
    setup = TableSetup(game="kato", board="sim", profile="kato-80", players=("Ann", "Bob"),
                       settings={"assist": "tournament"}, db=str(tmp_path / "t.sqlite3"))
    with open_table(setup) as tournament:
        assert tournament.wait_ready(30)
        assert "hint" not in tournament.session.state()["controls"]
