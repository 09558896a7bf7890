"""A whole Kato game at the table on the emulated Pico (``--board emu``): every stone
through the pin-level matrix, the removal guidance read off the LEDs decoded from the
WS2812 data pin; and `play --headless --board emu` from the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tests.patience import patience

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

    def idle(self, timeout: float = 120.0) -> None:  # the emulator crawls on a busy machine
        deadline = time.monotonic() + patience(timeout)
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
        frame = self.vb.wait_for(lambda f: f[index] != (0, 0, 0), timeout=patience(120))
        return frame[index]  # type: ignore[no-any-return]

    def wait_phase(self, *phases: str, timeout: float = 180.0) -> dict[str, Any]:
        deadline = time.monotonic() + patience(timeout)
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


def test_a_whole_kato_game_on_the_emulated_pico(pool: Pool, tmp_path: Path) -> None:
    """The short decisive game of tests/web/test_page_kato_game.py (size 5): Light E3,
    Dark G3, Light E7, Dark E4, Light B4 (E3 loses its path: removed, lifted as its LED
    asks), Dark F4 (Dark's merged group has no path: removed, Light wins). Short, since
    the emulator is slow on a shared machine; every stone goes through the pins."""
    pool.close()  # one emulator at a time
    setup = TableSetup(game="kato", board="emu", profile="kato-80", players=("Ann", "Bob"),
                       db=str(tmp_path / "games.sqlite3"), settle_s=0.04)
    with open_table(setup) as table:
        assert type(table.virtual).__name__ == "EmulatedBoard"
        assert table.wait_ready(), "the emulated Pico did not connect"
        d = Driver(table)
        for site in ("E3", "G3", "E7", "E4", "B4", "F4"):
            state = d.wait_phase("play", "resync", "ended")
            if state["phase"] == "resync":
                assert state["diff"]["remove"] == ["E3"]
                d.follow("resync")  # the removed stone's LED is lit on the pin: lift it
                d.wait_phase("play")
            d.set(site, True)
        state = d.wait_phase("ended", "resync")
        if state["phase"] == "resync":
            d.follow("resync")
        state = d.wait_phase("ended")
        assert [m["notation"] for m in state["moves"]] == ["E3", "G3", "E7", "E4", "B4", "F4"]
        assert state["result"]["winner"] == "light"  # Ann
        assert table.link.stats()["crc_errors"] == 0
        assert table.store is not None


def test_play_headless_on_board_emu(pool: Pool, tmp_path: Path) -> None:
    pool.close()
    cmd = [sys.executable, "-m", "meridian_table.cli.main", "play", "kato", "--headless",
           "--board", "emu", "--db", str(tmp_path / "g.sqlite3"), "--settle-ms", "60"]
    out = subprocess.run(cmd, input="place G6\nwait\nstate\nquit\n", capture_output=True,
                         text=True, timeout=280, check=False)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    ready = records[0]
    assert ready["event"] == "ready" and ready["ready"] and ready["virtual"]
    assert [r["notation"] for r in records if r["event"] == "move"] == ["G6"]
