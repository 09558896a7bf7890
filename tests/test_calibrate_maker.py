"""A maker calibrates a faulty virtual board: every real fault is reported, none that is
not, and every step is said (docs/MAKERS.md, step 4).

The board carries its faults itself (``VirtualBoard`` fault injection): two sites'
wires swapped, a magnet that closes a neighbour too (a double), a dead switch. The
maker is slow (past the timeout) to place and to lift on some sites, and comes back
to a paused run with a magnet still held down on a site.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.link import Link
from meridian_table.maker.calibration import (
    AwaitRelease,
    Calibration,
    Effect,
    Flagged,
    Prompt,
    Recorded,
    Reminder,
    Skipped,
    Step,
)
from meridian_table.maker.calibration_run import CalibrationRun, SimMaker
from meridian_table.profiles import Profile, load_profile
from meridian_table.sim import VirtualBoard

TIMEOUT_MS = 2_000


class FakeClock:
    """Time the maker can jump; it also creeps on by 10 ms a reading, so a run that
    waits for something that never comes reaches its reminders (and its end)."""

    def __init__(self) -> None:
        self.t = 1_000.0

    def __call__(self) -> float:
        self.t += 0.01
        return self.t


class SlowMaker(SimMaker):
    """Puts magnets on the sites asked for; takes longer than the timeout on ``slow``.

    A hand lifts a magnet long after the board has read every switch it closed: before
    lifting, the maker waits (in real time) until the host has seen them all. Without
    that, a busy machine let the lift come between the two scans that read a double's
    two switches, and the neighbour's close was never reported (a `make
    test-under-load` run)."""

    def __init__(self, board: VirtualBoard, link: Link, clock: FakeClock,
                 slow: set[str]) -> None:
        super().__init__(board)
        self.vb = board
        self.link = link
        self.clock = clock
        self.slow = slow

    def place(self, step: Step) -> None:
        if step.name in self.slow:
            self.clock.t += TIMEOUT_MS / 1000 + 1   # looks for the magnet first
        super().place(step)

    def lift(self, name: str, pos: int) -> None:
        deadline = time.monotonic() + 10
        while not self.vb.sensed <= self.link.occupancy and time.monotonic() < deadline:
            time.sleep(0.005)
        if name in self.slow:
            self.clock.t += TIMEOUT_MS / 1000 + 1   # only lifts it after a while
        super().lift(name, pos)


@pytest.fixture(scope="module")
def forty() -> Profile:
    return load_profile("colovini-40")


def test_a_maker_calibrates_a_faulty_board_and_only_real_faults_are_reported(
    forty: Profile,
) -> None:
    pos = {name: site.pos for name, site in forty.sites.items()}
    swapped, double, neighbour, dead, held = ("2.1", "8.3"), "4.2", "4.3", "6.1", "3.3"
    slow = {"1.2", "5.4", "9.1", double, swapped[0]}
    clock = FakeClock()
    seen: list[Effect] = []
    with VirtualBoard(forty, mode="cpython") as board, Link(board.port) as link:
        board.swap_switches(pos[swapped[0]], pos[swapped[1]])
        board.double_switch(pos[double], pos[neighbour])
        board.kill_switch(pos[dead])
        board.set_switch(pos[held], True)   # left on from a paused run
        link.wait_connected(timeout=10)
        deadline = time.monotonic() + 5
        while pos[held] not in link.occupancy and time.monotonic() < deadline:
            time.sleep(0.01)   # the board has seen the held magnet
        assert pos[held] in link.occupancy
        machine = Calibration(forty, include_buttons=False, timeout_ms=TIMEOUT_MS)
        run: CalibrationRun

        def on_effect(effect: Effect) -> None:
            seen.append(effect)
            if isinstance(effect, Prompt) and effect.step.name == dead:
                clock.t += TIMEOUT_MS / 1000 + 1    # the maker waits, nothing happens...
            if isinstance(effect, Reminder) and effect.name == dead:
                run.skip()                           # ...and gives up when reminded

        run = CalibrationRun(machine, link, maker=SlowMaker(board, link, clock, slow),
                             on_effect=on_effect, clock=clock)
        assert run.run(timeout=600)   # fake seconds: fails instead of hanging

    # Every real fault, and nothing else.
    flags = sorted((f.kind, f.name) for f in machine.flags)
    assert flags == [("cross-wired", swapped[0]), ("cross-wired", swapped[1]),
                     ("dead", dead), ("double", double)]
    double_flag = next(f for f in machine.flags if f.kind == "double")
    assert double_flag.pos == pos[neighbour] and f"({neighbour})" in double_flag.detail
    assert machine.skipped == [dead]
    assert not machine.stuck

    # Every prompt, in order: the held magnet is asked off first, then each site is
    # asked for, recorded, and told to lift; the slow ones are reminded, not faulted.
    assert seen[0] == AwaitRelease(held, pos[held])
    prompts = [e.step.name for e in seen if isinstance(e, Prompt)]
    assert prompts == [s.name for s in machine.steps]
    for name in prompts:
        if name == dead:
            continue
        i = next(k for k, e in enumerate(seen) if isinstance(e, Recorded) and e.name == name)
        assert isinstance(seen[i + 1], AwaitRelease) and seen[i + 1].name == name  # "lift it"
    reminded = {e.name for e in seen if isinstance(e, Reminder)}
    assert reminded == slow | {dead}
    assert Skipped(dead, "nothing closed") in seen
    # The neighbour a double closed is waited for, not called stuck, and records fine.
    assert machine.measured[neighbour] == pos[neighbour]
    assert machine.measured[held] == pos[held]
    result = machine.result_profile()
    assert result.sites[swapped[0]].pos == pos[swapped[1]]
    assert result.sites[swapped[1]].pos == pos[swapped[0]]
    assert not any(isinstance(e, Flagged) and e.flag.kind == "stuck" for e in seen)


def test_the_calibrate_command_says_each_step_and_the_demo_is_labelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["calibrate", "--profile", "colovini-40", "--sim",
                                       "--no-buttons"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert text.count("] put a magnet on ") == 40
    assert text.count("lift the magnet from ") == 40
    # The demo writes a file that says what it is, and never offers it as the profile.
    assert (tmp_path / "colovini-40.sim-demo.json").exists()
    assert not (tmp_path / "colovini-40.calibrated.json").exists()
    assert "this was a demo on the virtual board" in text
    assert "copy it over" not in text
