"""A whole Kato game through the virtual board: real firmware, pty, link, table, adapter.

Every step checks the LED frame the firmware rendered (``VirtualBoard.leds()``, mapped
to sites through the profile), not only the plan the host meant to send.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.games.driver import BoardDriver

from meridian_table.table.runner import RunningTable, TableSetup, open_table

RGB = tuple[int, int, int]


def red(c: RGB) -> bool:
    return c[0] > 0 and c[1] == 0 and c[2] == 0


def white(c: RGB) -> bool:
    return c[0] > 0 and abs(c[0] - c[1]) <= 2 and abs(c[1] - c[2]) <= 2


def light(c: RGB) -> bool:  # Light's amber: red over green, no blue
    return c[0] > 0 and c[0] >= c[1] and c[2] == 0 and not red(c)


def dark(c: RGB) -> bool:  # Dark's blue
    return c[2] > 0 and c[0] == 0


def off(c: RGB) -> bool:
    return c == (0, 0, 0)


class Driver(BoardDriver):
    def led(self, site: str) -> Callable[[list[RGB]], RGB]:
        index = self.profile.sites[site].led
        assert index is not None
        return lambda leds: tuple(leds[index])  # type: ignore[return-value]

    def shows(self, site: str, test: Callable[[RGB], bool], timeout: float = 5.0) -> None:
        """Wait until ``site``'s rendered LED passes ``test`` (blinks pass when lit)."""
        get = self.led(site)
        self.vb.wait_for(lambda leds: test(get(leds)), timeout)

    def moves(self) -> list[str]:
        return [m["notation"] for m in self.state()["moves"]]

    def resolve(self) -> None:
        for _ in range(200):
            state = self.state()
            if state["phase"] != "resync":
                return
            site = state["diff"]["next"]
            self.set(site, site in state["diff"]["put_back"])
        raise AssertionError("guidance did not converge")


@pytest.fixture
def table(tmp_path: Path) -> Iterator[RunningTable]:
    setup = TableSetup(
        game="kato", board="sim", profile="kato-80", players=("Ann", "Bob"),
        options={"pie": True}, db=str(tmp_path / "games.sqlite3"), settle_s=0.04,
    )
    with open_table(setup) as running:
        assert running.wait_ready(30), "the virtual board did not connect"
        yield running


def test_a_whole_game_on_the_virtual_board(table: RunningTable) -> None:
    d = Driver(table)
    # Pie: the opener's Light stone first; legal points dim in Light's colour.
    d.shows("A1", light)
    d.set("A1", True)
    d.shows("A1", light)  # the flash of the accepted stone
    assert d.moves() == ["A1"]
    d.set("J1", True)  # the opener's Dark stone
    state = d.state()
    assert state["phase"] == "choice" and state["question"]["field"] == "pie"
    d.shows("J1", dark)
    # The swap, from the web control (the Swap button does the same).
    assert d.session.command({"cmd": "choose", "field": "pie", "value": "swap"}) == {"ok": True}
    d.idle()
    assert d.moves() == ["A1", "J1", "swap"]
    assert d.state()["seats"] == {"light": "Ann", "dark": "Bob"}
    # A mistake: Light's second stone adjacent to the first blinks red until lifted.
    d.set("A2", True)
    assert d.state()["phase"] == "resync"
    d.shows("A2", red)
    d.set("A2", False)
    d.shows("A2", off)
    assert d.state()["phase"] == "play"
    d.set("A3", True)
    d.set("J3", True)
    assert d.moves() == ["A1", "J1", "swap", "A3", "J3"]
    # Two stones at once: two mistakes, guided one square at a time.
    d.vb.set_site("E1", True)
    d.vb.set_site("E5", True)  # within one settle window
    deadline = time.monotonic() + 5
    while not {"E1", "E5"} <= d.session.sensed:
        assert time.monotonic() < deadline
        time.sleep(0.003)
    d.idle()
    state = d.state()
    assert state["phase"] == "resync" and sorted(state["diff"]["remove"]) == ["E1", "E5"]
    d.shows(state["diff"]["next"], red)
    d.vb.set_site("E1", False)  # both lifted within one settle window
    d.set("E5", False)
    # The takeback: lift the last stone (it pulses white to be put back), then Undo.
    assert d.state()["phase"] == "play"
    d.set("J3", False)
    assert "Undo" in d.state()["message"]
    d.shows("J3", white)
    d.session.press("undo")
    d.idle()
    assert d.moves() == ["A1", "J1", "swap", "A3"] and d.state()["phase"] == "play"
    d.set("J3", True)
    # Play on at random to the end, checking the removals on the LEDs.
    rng = random.Random(7)
    saw_removal = False
    for _ in range(400):
        state = d.state()
        if state["phase"] == "ended":
            break
        if state["phase"] == "resync":
            for site in state["diff"]["remove"]:
                if state["moves"][-1]["removed"] and site in state["moves"][-1]["removed"]:
                    d.shows(site, red)
                    saw_removal = True
            d.resolve()
            continue
        if state["phase"] == "pass":
            d.session.press("confirm")
            d.idle()
            continue
        d.set(rng.choice(state["legal"]), True)
    state = d.state()
    assert state["phase"] == "ended", state["message"]
    assert saw_removal
    winner = state["result"]["winner"]
    hue = light if winner == "light" else dark
    # The winning move's dead stones still stand: they blink red until lifted (the
    # table reads the board after the end), then the winner animation shows.
    dead = sorted(state["moves"][-1]["removed"])
    assert dead and "blink red" in state["message"]
    for site in dead:
        d.shows(site, red)
        d.set(site, False)
    d.vb.wait_for(lambda leds: sum(hue(tuple(c)) for c in leds) >= len(leds) // 2, 5)
    info = table.store.game(state["game_id"]) if table.store else None
    assert info is not None and info.status == "finished"
    assert info.result and info.result["winners"] == [state["seats"][winner]]


def test_unplug_move_a_stone_replug_and_get_guided_back(table: RunningTable) -> None:
    d = Driver(table)
    d.set("A1", True)
    d.set("J1", True)
    d.session.press("confirm")  # keep
    d.idle()
    d.set("A3", True)  # Light's second stone
    assert d.moves() == ["A1", "J1", "A3"]
    d.vb.unplug()
    deadline = time.monotonic() + 10
    while d.state()["phase"] != "paused":
        assert time.monotonic() < deadline, "unplugging did not pause the game"
        time.sleep(0.02)
    assert "disconnected" in d.state()["message"]
    d.vb.set_site("A1", False)  # a stone knocked off while the cable was out
    d.vb.replug()
    deadline = time.monotonic() + 15
    while d.state()["phase"] != "resync":
        assert time.monotonic() < deadline, f"no guidance after replug: {d.state()['message']}"
        time.sleep(0.02)
    assert d.state()["diff"]["put_back"] == ["A1"]
    d.shows("A1", white)
    d.set("A1", True)
    assert d.state()["phase"] == "play" and d.moves() == ["A1", "J1", "A3"]
