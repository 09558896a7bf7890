"""Automaton seats through the virtual board: the real firmware, pty, link, table, log.

A person plays against the random automaton: its moves are lit on the LEDs (checked on
the frames the firmware rendered), a stone on the wrong point is guided back, an undo
takes back both moves, the game ends, and the log names each action's source.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.games.colovini.test_colovini_virtual import Driver as ColoviniDriver
from tests.games.colovini.test_colovini_virtual import _choose, perform
from tests.games.driver import BoardDriver
from tests.games.kato.test_kato_virtual import Driver as KatoDriver
from tests.games.kato.test_kato_virtual import off, red, white

from meridian_table.store import Store
from meridian_table.table.runner import RunningTable, TableSetup, open_table


def _open(tmp_path: Path, game: str, profile: str, players: tuple[str, ...],
          seats: dict[str, str], **options: Any) -> RunningTable:
    setup = TableSetup(
        game=game, board="sim", profile=profile, players=players, options=options,
        settings={"seats": seats, "automaton_seed": 5}, db=str(tmp_path / "games.sqlite3"),
        settle_s=0.04,
    )
    running = open_table(setup)
    if not running.wait_ready(30):
        running.close()
        raise AssertionError("the virtual board did not connect")
    return running


def wait_phase(d: BoardDriver, *phases: str, timeout: float = 10.0) -> dict[str, Any]:
    """Wait until the table is in one of ``phases`` and its LEDs are shown."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while time.monotonic() < deadline:
        state = d.state()
        if state["phase"] in phases and not d.session.settling:
            d.idle()
            return d.state()
        pause.wait(0.01)
    raise AssertionError(f"the table never reached {phases}: {d.state()['phase']} "
                         f"({d.state()['message']})")


def carry_out(d: BoardDriver) -> None:
    """Do what the execute phase asks, one lit square at a time, until it is done."""
    for _ in range(40):
        state = d.state()
        if state["phase"] != "execute":
            return
        site = state["diff"]["next"]
        d.set(site, site in state["diff"]["put_back"])
    raise AssertionError("the execute phase did not converge")


def resolve(d: BoardDriver) -> None:
    """Follow the out-of-sync guidance, one lit square at a time."""
    for _ in range(200):
        state = d.state()
        if state["phase"] != "resync":
            return
        site = state["diff"]["next"]
        d.set(site, site in state["diff"]["put_back"])
    raise AssertionError("guidance did not converge")


@pytest.fixture
def kato(tmp_path: Path) -> Iterator[KatoDriver]:
    running = _open(tmp_path, "kato", "kato-80", ("Ann", "Computer"), {"2": "random"})
    with running:
        yield KatoDriver(running)


def _sources(d: BoardDriver) -> list[tuple[str, str, str]]:
    """(notation, source, by) of every standing action in the log (undone ones left out)."""
    journal = d.table.journal
    store = d.table.store
    assert store is not None and journal.game_id is not None
    return [(e.payload["notation"], e.payload["source"], e.payload["by"])
            for e in store.moves(journal.game_id)]


def test_a_person_against_the_random_automaton_on_kato(kato: KatoDriver) -> None:
    d = kato
    state = d.state()
    assert state["seats_kind"] == {"light": "person", "dark": "random"}
    d.set("A1", True)
    state = wait_phase(d, "execute")
    target = state["diff"]["next"]
    assert state["diff"]["put_back"] == [target] and state["automaton"]["status"] == "executing"
    assert "Computer (random player) plays a dark stone on " + target in state["message"]
    d.shows(target, white)  # the automaton's stone: "put a piece here"
    # Buttons and the board wait for the automaton's move.
    assert not d.session.command({"cmd": "button", "name": "pass"})["ok"]
    # A stone on the wrong point is guided back: it blinks red until lifted.
    wrong = next(s for s in d.profile.sites if s not in {"A1", target} and s not in
                 d.session.sensed)
    d.set(wrong, True)
    state = wait_phase(d, "execute")
    assert state["diff"]["next"] == wrong and state["diff"]["remove"] == [wrong]
    d.shows(wrong, red)
    assert d.moves() == ["A1"]
    d.set(wrong, False)
    d.shows(wrong, off)
    d.shows(target, white)
    d.set(target, True)
    state = wait_phase(d, "play")
    assert d.moves() == ["A1", target]
    assert _sources(d) == [("A1", "board", "person"), (target, "automaton", "automaton")]
    # Undo takes back the automaton's move and the person's move before it.
    d.session.press("undo")
    state = d.state()
    assert d.moves() == [] and state["phase"] == "resync"
    assert sorted(state["diff"]["remove"]) == sorted(["A1", target])
    # Nobody placed those two stones at once: the Undo took them back (issue 26).
    assert state["message"].startswith("Undone: take the stone off ")
    assert "at once" not in state["message"] and "Undo" in state["diff"]["reasons"]["A1"]
    resolve(d)
    assert wait_phase(d, "play")["to_move"] == "light"


@pytest.mark.slow
def test_a_whole_kato_game_against_the_random_automaton_ends_and_is_logged(
        kato: KatoDriver) -> None:
    d = kato
    rng = random.Random(3)
    for _ in range(400):
        state = wait_phase(d, "play", "pass", "execute", "ended", "resync", "choice",
                           timeout=20)
        phase = state["phase"]
        if phase == "ended":
            break
        if phase == "execute":
            carry_out(d)
        elif phase == "resync":
            resolve(d)
        elif phase == "pass":
            d.session.press("confirm")
        elif phase == "play":
            d.set(rng.choice(state["legal"]), True)
    else:
        raise AssertionError("the game did not end")
    state = d.state()
    assert state["result"] is not None
    sources = _sources(d)
    people = [s for s in sources if s[2] == "person"]
    automata = [s for s in sources if s[2] == "automaton"]
    assert people and automata and len(sources) == len(state["moves"])
    assert all(src in ("board", "button") for _, src, _ in people)
    assert all(src == "automaton" for _, src, _ in automata)


def test_a_game_killed_during_the_execute_phase_resumes_in_it(tmp_path: Path) -> None:
    running = _open(tmp_path, "kato", "kato-80", ("Ann", "Computer"), {"2": "random"})
    d = KatoDriver(running)
    d.set("A1", True)
    target = wait_phase(d, "execute")["diff"]["next"]
    # The process dies here: nothing is closed in order (the log is all that is left).
    running.session.close()
    running.link.close()
    running.virtual.close()
    assert running.store is not None
    running.store.close()
    setup = TableSetup(game="kato", board="sim", profile="kato-80", resume=True,
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.04)
    with open_table(setup) as again:
        assert again.wait_ready(30)
        d2 = KatoDriver(again)
        state = wait_phase(d2, "execute")
        assert state["diff"]["next"] == target and d2.moves() == ["A1"]
        d2.set(target, True)
        wait_phase(d2, "play")
        assert d2.moves() == ["A1", target]
    with Store.open(tmp_path / "games.sqlite3") as store:
        kinds = [e.kind for e in store.events(1)]
        assert kinds.count("execute") == 1 and kinds.count("action") == 2


def test_three_player_colovini_with_two_random_automata(tmp_path: Path) -> None:
    running = _open(tmp_path, "colovini", "colovini-40", ("Ann", "Bob", "Cid"),
                    {"2": "random", "3": "random"}, deck="digital", seed=40)
    with running:
        d = ColoviniDriver(running)
        engine = d.adapter.engine
        rng = random.Random(8)
        turns = 0
        undone = False
        while not engine.is_over and turns < 200:
            state = wait_phase(d, "play", "pass", "execute", "ended", "resync", "choice",
                               timeout=20)
            if state["phase"] == "ended":
                break
            if state["phase"] == "execute":
                assert state["automaton"]["automaton"] == "random"
                site = state["diff"]["next"]
                d.shows(site, "white" if site in state["diff"]["put_back"] else "red")
                carry_out(d)
            elif state["phase"] == "resync":
                resolve(d)
            elif engine.to_move == 0:
                action = _choose(engine, rng)
                before = len(d.moves())
                try:
                    perform(d, action, by_buttons=turns % 2 == 0)
                except AssertionError:
                    # perform() checks that its move is the last one; an automaton that
                    # passes (nothing to carry out) may already have played after it.
                    pass
                assert d.moves()[before] == action.notation(), d.state()["message"]
                if not undone and len(d.moves()) >= 4:
                    # Undo from the person's turn: back to the person's previous turn.
                    before = d.moves()
                    wait_phase(d, "play", "pass", "execute", "thinking", timeout=20)
                    d.session.press("undo")
                    after = d.moves()
                    assert len(after) < len(before) and engine.to_move == 0, (before, after)
                    undone = True
            turns += 1
        assert engine.is_over and undone
        state = wait_phase(d, "ended", timeout=20)
        sources = _sources(d)
        assert {by for _, _, by in sources} == {"person", "automaton"}
        assert len(sources) == len(state["moves"])


def test_kill_9_during_the_execute_phase_resumes_in_it(tmp_path: Path) -> None:
    """A real SIGKILL of `play --headless` while the automaton's move waits on the board."""
    import json
    import os
    import signal
    import subprocess
    import sys

    if not hasattr(signal, "SIGKILL"):
        pytest.skip("no SIGKILL on this platform")
    db = str(tmp_path / "games.sqlite3")
    cli = [sys.executable, "-m", "meridian_table.cli.main", "play", "kato", "--headless",
           "--board", "sim", "--db", db]
    proc = subprocess.Popen([*cli, "--seat", "2=random"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("place G6\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    target = None
    for line in proc.stdout:
        record = json.loads(line)
        if record.get("event") == "state" and record.get("phase") == "execute":
            target = record["diff"]["next"]
            break
        assert time.monotonic() < deadline
    assert target is not None
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    out = subprocess.run([*cli, "--resume"], input="wait\nstate\n", capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    state = [r["state"] for r in records if r["event"] == "full-state"][-1]
    assert state["phase"] == "execute" and state["diff"]["next"] == target
    assert [m["notation"] for m in state["moves"]] == ["G6"]
