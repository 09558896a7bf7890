"""A whole Kato game at the table on the emulated Pico (``--board emu``): a person
against the random automaton, every move through the pin-level matrix, the automaton's
moves read off the LEDs decoded from the WS2812 data pin; and the same from the CLI."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from meridian_table.table.runner import RunningTable, TableSetup, open_table

from .conftest import Pool

RGB = tuple[int, int, int]


class Driver:
    def __init__(self, table: RunningTable) -> None:
        self.table = table
        self.vb = table.virtual
        self.session = table.session
        self.profile = table.profile
        self._pause = threading.Event()

    def state(self) -> dict[str, Any]:
        return self.session.state()

    def idle(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        link = self.table.link
        self._pause.wait(0.03)
        while not (not self.session.settling and link.shown_gen >= link.plan_gen):
            assert time.monotonic() < deadline, "the table did not settle"
            self._pause.wait(0.005)

    def set(self, site: str, closed: bool) -> None:
        self.vb.set_site(site, closed)
        deadline = time.monotonic() + 30
        while (site in self.session.sensed) != closed:
            assert time.monotonic() < deadline, f"switch {site} never reached the table"
            self._pause.wait(0.003)
        self.idle()

    def lit(self, site: str) -> RGB:
        index = self.profile.sites[site].led
        assert index is not None
        frame = self.vb.wait_for(lambda f: f[index] != (0, 0, 0), timeout=30)
        return frame[index]  # type: ignore[no-any-return]

    def wait_phase(self, *phases: str, timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state()
            if state["phase"] in phases and not self.session.settling:
                self.idle()
                return self.state()
            self._pause.wait(0.01)
        raise AssertionError(f"never reached {phases}: {self.state()['phase']}")

    def follow(self, phase: str) -> None:
        """Do what the execute (or resync) guidance asks, one lit point at a time."""
        for _ in range(200):
            state = self.state()
            if state["phase"] != phase:
                return
            site = state["diff"]["next"]
            assert self.lit(site) != (0, 0, 0)  # the point to act on is lit on the pin
            self.set(site, site in state["diff"]["put_back"])
        raise AssertionError(f"the {phase} guidance did not converge")


def test_a_whole_kato_game_against_the_automaton_on_the_emulated_pico(
        pool: Pool, tmp_path: Path) -> None:
    pool.close()  # one emulator at a time
    setup = TableSetup(game="kato", board="emu", profile="kato-80", players=("Ann", "Computer"),
                       settings={"seats": {"2": "random"}, "automaton_seed": 5, "think_s": 0.05},
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.04)
    with open_table(setup) as table:
        assert type(table.virtual).__name__ == "EmulatedBoard"
        assert table.wait_ready(60), "the emulated Pico did not connect"
        d = Driver(table)
        rng = random.Random(3)
        executed = 0
        for _ in range(400):
            state = d.wait_phase("play", "pass", "execute", "ended", "resync", "choice")
            phase = state["phase"]
            if phase == "ended":
                break
            if phase == "execute":
                d.follow("execute")
                executed += 1
            elif phase == "resync":
                d.follow("resync")
            elif phase == "pass":
                d.session.press("confirm")
            elif phase == "choice":
                d.session.command({"cmd": "choose", "field": state["question"]["field"],
                                   "value": state["question"]["options"][0]["value"]})
            else:
                d.set(rng.choice(state["legal"]), True)
        else:
            raise AssertionError("the game did not end")
        assert d.state()["result"] is not None and executed > 0
        assert table.link.stats()["crc_errors"] == 0


def test_play_headless_on_board_emu(pool: Pool, tmp_path: Path) -> None:
    pool.close()
    cmd = [sys.executable, "-m", "meridian_table.cli.main", "play", "kato", "--headless",
           "--board", "emu", "--db", str(tmp_path / "g.sqlite3"), "--settle-ms", "60"]
    out = subprocess.run(cmd, input="place G6\nwait\nstate\nquit\n", capture_output=True,
                         text=True, timeout=180, check=False)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    ready = records[0]
    assert ready["event"] == "ready" and ready["ready"] and ready["virtual"]
    assert [r["notation"] for r in records if r["event"] == "move"] == ["G6"]
