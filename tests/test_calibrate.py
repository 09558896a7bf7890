"""Calibration: the pure state machine with a scripted maker, then the real CLI path
against the virtual board with two deliberately cross-wired sites."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from meridian_table.maker.calibration import (
    AwaitRelease,
    Calibration,
    CalibrationError,
    Effect,
    Finished,
    Flagged,
    Prompt,
    Recorded,
    Reminder,
    Skipped,
)
from meridian_table.maker.calibration_run import CalibrationRun, SimMaker
from meridian_table.profiles import Profile, load_profile


class ScriptedMaker:
    """Plays the maker: puts a magnet where each prompt asks, per a wiring table.

    ``wiring`` maps a site or button to the matrix position its switch really closes
    (None: a dead switch, nothing closes). The clock advances 1 s per action.
    """

    def __init__(self, machine: Calibration, wiring: dict[str, int | None],
                 stuck: frozenset[int] = frozenset()) -> None:
        self.machine = machine
        self.wiring = wiring
        self.stuck = stuck   # switches welded shut in this board
        self.now = 1_000
        self.effects: list[Effect] = []

    def feed(self, effects: list[Effect]) -> list[Effect]:
        self.effects += effects
        return effects

    def run(self, closed_at_start: frozenset[int] = frozenset(), stop_after: int | None = None) -> None:
        pending = self.feed(self.machine.start(closed_at_start, self.now))
        answered = 0
        while not self.machine.done:
            if self.machine.phase == "clearing":
                # Asked to lift: lift what lifts; a welded switch does not, so give up.
                liftable = sorted(self.machine.closed - self.machine.stuck - self.stuck)
                self.now += 500
                if liftable:
                    pending = self.feed(self.machine.switch(liftable[0], False, self.now))
                    continue
                self.now += self.machine.timeout_ms
                self.feed(self.machine.tick(self.now))
                pending = self.feed(self.machine.skip(self.now))
                continue
            prompt = next((e for e in pending if isinstance(e, Prompt)), None)
            assert prompt is not None, pending
            if stop_after is not None and answered >= stop_after:
                return
            answered += 1
            pos = self.wiring.get(prompt.step.name, prompt.step.expected_pos)
            self.now += 1_000
            if pos is None or pos in self.stuck:
                # Nothing closes: wait out the timeout, then skip like the maker would.
                self.now += self.machine.timeout_ms
                self.feed(self.machine.tick(self.now))
                pending = self.feed(self.machine.skip(self.now))
                continue
            self.feed(self.machine.switch(pos, True, self.now))
            self.now += 500
            pending = self.feed(self.machine.switch(pos, False, self.now))

    def flags(self, kind: str) -> list[str]:
        return [e.flag.name for e in self.effects if isinstance(e, Flagged) and e.flag.kind == kind]


@pytest.fixture(scope="module")
def forty() -> Profile:
    return load_profile("colovini-40")


def _swap(profile: Profile, a: str, b: str) -> dict[str, int | None]:
    return {a: profile.sites[b].pos, b: profile.sites[a].pos}


def test_a_correct_board_calibrates_to_the_same_profile(forty: Profile) -> None:
    machine = Calibration(forty)
    maker = ScriptedMaker(machine, {})
    maker.run()
    assert machine.done and not machine.flags
    assert machine.result_profile().to_dict() == forty.to_dict()
    prompts = [e for e in maker.effects if isinstance(e, Prompt)]
    assert len(prompts) == 40 + 17
    # Sites are asked in LED-chain order, so the lit LED walks along the strip.
    assert [p.step.led for p in prompts[:40]] == list(range(40))
    assert prompts[40].step.kind == "button" and prompts[40].step.led is None
    assert isinstance(maker.effects[-1], Finished) and maker.effects[-1].recorded == 57


def test_two_cross_wired_sites_are_flagged_and_recorded_as_measured(forty: Profile) -> None:
    machine = Calibration(forty, include_buttons=False)
    maker = ScriptedMaker(machine, _swap(forty, "3.2", "7.4"))
    maker.run()
    assert sorted(maker.flags("cross-wired")) == ["3.2", "7.4"]
    details = [e.flag.detail for e in maker.effects if isinstance(e, Flagged)]
    assert any("the switch the profile expected for 7.4" in d for d in details)
    result = machine.result_profile()
    assert result.sites["3.2"].pos == forty.sites["7.4"].pos
    assert result.sites["7.4"].pos == forty.sites["3.2"].pos
    assert result.sites["3.2"].led == forty.sites["3.2"].led  # LEDs are not touched
    assert result.site_at(forty.sites["3.2"].pos) == "7.4"


def test_a_switch_closed_before_the_magnet_is_asked_off_and_only_then_stuck(
    forty: Profile,
) -> None:
    stuck_pos = forty.sites["5.3"].pos
    machine = Calibration(forty, include_buttons=False)
    maker = ScriptedMaker(machine, {}, stuck=frozenset({stuck_pos}))
    maker.run(closed_at_start=frozenset({stuck_pos}))
    # First the maker is asked to lift it; it does not open, the maker gives up: stuck.
    assert maker.effects[0] == AwaitRelease("5.3", stuck_pos)
    assert isinstance(maker.effects[1], Reminder) and maker.effects[1].pos == stuck_pos
    stuck = [e.flag for e in maker.effects if isinstance(e, Flagged) and e.flag.kind == "stuck"]
    assert len(stuck) == 1 and stuck[0].pos == stuck_pos
    assert "expected for 5.3" in stuck[0].detail and "no magnet on it" in stuck[0].detail
    # 5.3 itself cannot close: skipped, and not reported a second time as dead.
    assert maker.flags("dead") == []
    assert machine.skipped == ["5.3"]
    assert [f.kind for f in machine.flags] == ["stuck"]
    assert machine.result_profile().sites["5.3"].pos == stuck_pos  # kept: nobody took it


def test_a_slow_maker_is_reminded_not_flagged_and_only_a_skip_is_dead(forty: Profile) -> None:
    machine = Calibration(forty, include_buttons=False, timeout_ms=10_000)
    machine.start(frozenset(), 0)
    assert machine.current is not None and machine.current.name == "1.1"
    assert machine.tick(9_999) == []
    first = machine.tick(10_000)
    assert len(first) == 1 and isinstance(first[0], Reminder)
    assert "nothing has closed in 10 s since 1.1 was given a magnet" in first[0].text
    assert machine.tick(20_000) == []  # said once
    # A late close counts, and leaves no fault behind.
    effects = machine.switch(forty.sites["1.1"].pos, True, 21_000)
    assert Recorded("1.1", forty.sites["1.1"].pos) in effects
    assert machine.flags == []
    machine.switch(forty.sites["1.1"].pos, False, 22_000)
    # 1.2 never closes: the maker skips it, and that is the dead switch.
    effects = machine.skip(40_000)
    assert isinstance(effects[0], Flagged) and effects[0].flag.kind == "dead"
    assert effects[1] == Skipped("1.2", "nothing closed")
    assert isinstance(effects[-1], Prompt) and effects[-1].step.name == "1.3"


def test_a_position_already_claimed_is_cross_wired_and_the_site_moves(forty: Profile) -> None:
    # 1.2's wire is shorted onto 1.1's switch: both close the same position.
    wiring: dict[str, int | None] = {"1.2": forty.sites["1.1"].pos}
    machine = Calibration(forty, include_buttons=False)
    maker = ScriptedMaker(machine, wiring)
    maker.run()
    flags = [e.flag for e in maker.effects if isinstance(e, Flagged)]
    assert [f.kind for f in flags] == ["cross-wired"]
    assert "which 1.1 already closed" in flags[0].detail
    assert machine.skipped == ["1.2"]
    result = machine.result_profile()
    assert result.sites["1.2"].pos == forty.sites["1.2"].pos  # its own position was free


def test_a_skipped_site_whose_position_was_taken_moves_to_a_free_one(forty: Profile) -> None:
    wiring: dict[str, int | None] = {"1.1": forty.sites["1.2"].pos, "1.2": None}
    machine = Calibration(forty, include_buttons=False)
    ScriptedMaker(machine, wiring).run()
    moved = machine.moved()
    assert list(moved) == ["1.2"]
    used = {s.pos for s in forty.sites.values()} | set(forty.buttons.values())
    assert moved["1.2"] not in used
    assert machine.result_profile().sites["1.2"].pos == moved["1.2"]


def test_lift_is_said_and_a_slow_lift_is_no_fault_but_a_welded_switch_is(forty: Profile) -> None:
    machine = Calibration(forty, include_buttons=False, timeout_ms=5_000)
    machine.start(frozenset(), 0)
    pos = forty.sites["1.1"].pos
    effects = machine.switch(pos, True, 100)
    assert effects[-1] == AwaitRelease("1.1", pos)   # "lift it now"
    effects = machine.tick(5_100)                     # timed from that request
    assert len(effects) == 1 and isinstance(effects[0], Reminder)
    assert "still closed 5 s after it was to be lifted" in effects[0].text
    effects = machine.switch(pos, False, 9_000)       # slow hands, but it opens
    assert isinstance(effects[-1], Prompt) and effects[-1].step.name == "1.2"
    assert machine.flags == []
    # 1.2's switch stays closed after the lift: the maker says so with skip().
    pos2 = forty.sites["1.2"].pos
    machine.switch(pos2, True, 10_000)
    assert isinstance(machine.tick(15_000)[0], Reminder)
    effects = machine.skip(16_000)
    assert isinstance(effects[0], Flagged) and effects[0].flag.kind == "stuck"
    assert "stayed closed after the magnet was lifted" in effects[0].flag.detail
    assert isinstance(effects[-1], Prompt) and effects[-1].step.name == "1.3"
    assert machine.measured["1.2"] == pos2  # the reading itself was good


def test_two_switches_under_one_magnet_is_a_double_and_no_stuck_neighbour(
    forty: Profile,
) -> None:
    machine = Calibration(forty, include_buttons=False)
    machine.start(frozenset(), 0)
    a, b = forty.sites["1.1"].pos, forty.sites["1.2"].pos
    machine.switch(a, True, 10)
    effects = machine.switch(b, True, 20)
    assert isinstance(effects[0], Flagged) and effects[0].flag.kind == "double"
    assert "(1.2)" in effects[0].flag.detail
    # Both let go together: 1.1 first, 1.2 a moment later.
    effects = machine.switch(a, False, 30)
    assert effects == [AwaitRelease("1.2", b)]   # wait for the neighbour, no verdict
    effects = machine.switch(b, False, 31)
    assert isinstance(effects[-1], Prompt) and effects[-1].step.name == "1.2"
    assert [f.kind for f in machine.flags] == ["double"] and not machine.stuck


def test_resume_half_way_gives_the_same_result(forty: Profile) -> None:
    wiring = _swap(forty, "2.1", "9.3")
    full = Calibration(forty)
    ScriptedMaker(full, wiring).run()

    first = Calibration(forty)
    ScriptedMaker(first, wiring).run(stop_after=20)
    saved = json.loads(json.dumps(first.to_progress()))
    assert len(saved["measured"]) == 20

    resumed = Calibration.from_progress(forty, saved)
    maker = ScriptedMaker(resumed, wiring)
    maker.run()
    prompts = [e for e in maker.effects if isinstance(e, Prompt)]
    assert len(prompts) == 57 - 20  # finished steps are not asked again
    assert resumed.result_profile().to_dict() == full.result_profile().to_dict()
    assert sorted(f.name for f in resumed.flags if f.kind == "cross-wired") == ["2.1", "9.3"]


def test_snapshot_after_a_reconnect_is_replayed_as_changes(forty: Profile) -> None:
    machine = Calibration(forty, include_buttons=False)
    machine.start(frozenset(), 0)
    pos = forty.sites["1.1"].pos
    effects = machine.snapshot(frozenset({pos}), 100)
    assert Recorded("1.1", pos) in effects
    effects = machine.snapshot(frozenset(), 200)
    assert isinstance(effects[-1], Prompt) and effects[-1].step.name == "1.2"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: Calibration.from_progress(p, {"format": 1, "profile": "kato-114", "steps": []}),
         "is for board 'kato-114', not 'colovini-40'"),
        (lambda p: Calibration.from_progress(p, {"format": 9}), "not format 1"),
        (lambda p: Calibration.from_progress(
            p, {"format": 1, "profile": "colovini-40", "steps": ["1.1"], "measured": {"1.1": 999}}),
         "measures '1.1' at 999"),
        (lambda p: Calibration(p, only=["Z9"]), "Z9 is not a site or button of colovini-40"),
        (lambda p: Calibration(p, timeout_ms=0), "must be positive"),
    ],
)
def test_bad_requests_say_what_to_do(
    forty: Profile, make: Callable[[Profile], object], message: str
) -> None:
    with pytest.raises(CalibrationError) as info:
        make(forty)
    assert message in str(info.value)


def test_skip_when_done_is_refused(forty: Profile) -> None:
    machine = Calibration(forty, only=["1.1"])
    machine.start(frozenset(), 0)
    machine.switch(forty.sites["1.1"].pos, True, 1)
    machine.switch(forty.sites["1.1"].pos, False, 2)
    assert machine.done
    with pytest.raises(CalibrationError, match="nothing to skip while done"):
        machine.skip(3)


# -- the live path: a real Link, a board behind it, the run driver --------------------


def _live_run(profile: Profile, board: object, link: object, tmp_path: Path,
              wiring: dict[str, int | None]) -> tuple[CalibrationRun, list[Effect]]:
    from meridian_table.link import Link

    assert isinstance(link, Link)
    seen: list[Effect] = []
    machine = Calibration(profile, include_buttons=False, timeout_ms=2_000)
    run = CalibrationRun(
        machine, link, on_effect=seen.append, progress_path=tmp_path / "progress.json",
        maker=SimMaker(board, wiring), auto_skip_dead=True,  # type: ignore[arg-type]
    )
    assert run.run(timeout=60), "calibration did not finish"
    return run, seen


def test_live_calibration_over_the_link_with_two_cross_wired_sites(
    forty: Profile, tmp_path: Path
) -> None:
    from meridian_table.link import FakeBoard, Link

    board = FakeBoard(rows=forty.rows, cols=forty.cols, leds=forty.leds, board=forty.name)
    with Link(board.find_port, opener=board.open) as link:
        link.wait_connected(timeout=5)
        run, seen = _live_run(forty, board, link, tmp_path, _swap(forty, "2.3", "8.1"))
        link.wait_shown(timeout=5)
    flagged = sorted(e.flag.name for e in seen if isinstance(e, Flagged))
    assert flagged == ["2.3", "8.1"]
    result = run.machine.result_profile()
    assert result.sites["2.3"].pos == forty.sites["8.1"].pos
    assert result.sites["8.1"].pos == forty.sites["2.3"].pos
    # The final LED picture: the two problem sites red, every other site green.
    shown = board.shown
    assert shown[forty.sites["2.3"].led or 0] == "C00000S"
    assert shown[forty.sites["8.1"].led or 0] == "C00000S"
    assert shown.count("00A000S") == 38
    progress = json.loads((tmp_path / "progress.json").read_text())
    assert len(progress["measured"]) == 40


def test_live_calibration_on_the_virtual_board(forty: Profile, tmp_path: Path) -> None:
    from meridian_table import sim
    from meridian_table.link import Link

    problems = sorted(led for led in (forty.sites["4.4"].led, forty.sites["6.2"].led)
                      if led is not None)

    def final_picture(leds: list[tuple[int, int, int]]) -> bool:
        red = [i for i, (r, g, _) in enumerate(leds) if r > 0 and g == 0]
        green = [i for i, (r, g, _) in enumerate(leds) if g > 0 and r == 0]
        return red == problems and len(green) == 38

    with sim.VirtualBoard(forty, mode="cpython") as board, Link(board.port) as link:
        link.wait_connected(timeout=10)
        run, seen = _live_run(forty, board, link, tmp_path, _swap(forty, "4.4", "6.2"))
        # What the firmware really rendered (after its boot pattern): the two
        # cross-wired sites red, every other site green.
        board.wait_for(final_picture, timeout=10)
    assert sorted(e.flag.name for e in seen if isinstance(e, Flagged)) == ["4.4", "6.2"]
    result = run.machine.result_profile()
    assert result.sites["4.4"].pos == forty.sites["6.2"].pos
    assert result.sites["6.2"].pos == forty.sites["4.4"].pos


# -- the CLI shell -------------------------------------------------------------------------


@pytest.fixture
def fake_cli(forty: Profile, monkeypatch: pytest.MonkeyPatch) -> Callable[..., object]:
    """Point `meridian-table calibrate --sim` at a FakeBoard with the given miswiring."""
    import contextlib

    from meridian_table.cli import maker as maker_cli
    from meridian_table.link import FakeBoard, Link

    def install(wiring: dict[str, int | None], rows: int | None = None) -> FakeBoard:
        board = FakeBoard(rows=rows or forty.rows, cols=forty.cols, leds=forty.leds,
                          board=forty.name)

        @contextlib.contextmanager
        def fake_board(profile: Profile, port: str, sim: bool):  # type: ignore[no-untyped-def]
            yield board.port, SimMaker(board, wiring)

        monkeypatch.setattr(maker_cli, "_board", fake_board)
        monkeypatch.setattr(maker_cli, "_make_link",
                            lambda port: Link(board.find_port, opener=board.open))
        return board

    return install


def test_calibrate_command_writes_the_measured_profile(
    forty: Profile, tmp_path: Path, fake_cli: Callable[..., object]
) -> None:
    from click.testing import CliRunner

    from meridian_table.cli.main import main

    fake_cli(_swap(forty, "1.1", "10.4"))
    # A long folder: the path written must come out whole, never folded inside it.
    out = tmp_path / ("a-long-folder-name-" * 4) / "forty.json"
    out.parent.mkdir()
    result = CliRunner().invoke(main, ["calibrate", "--profile", "colovini-40", "--sim",
                                       "--no-buttons", "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert "cross-wired" in result.output and f"wrote {out}" in result.output
    written = load_profile(out)
    assert written.sites["1.1"].pos == forty.sites["10.4"].pos
    assert written.sites["10.4"].pos == forty.sites["1.1"].pos
    assert not out.with_name(out.name + ".progress.json").exists()


def test_calibrate_command_resumes_from_saved_progress(
    forty: Profile, tmp_path: Path, fake_cli: Callable[..., object]
) -> None:
    from click.testing import CliRunner

    from meridian_table.cli.main import main
    from meridian_table.maker.calibration_run import save_progress

    out = tmp_path / "forty.json"
    half = Calibration(forty, include_buttons=False)
    ScriptedMaker(half, {}).run(stop_after=25)
    save_progress(out.with_name(out.name + ".progress.json"), half)
    fake_cli({})
    result = CliRunner().invoke(main, ["calibrate", "--profile", "colovini-40", "--sim",
                                       "--output", str(out)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "resuming from" in text and "(25 of 40 done: 25 recorded, 0 skipped)" in text
    assert "[26/40]" in result.output and "[25/40]" not in result.output
    assert load_profile(out).sites == forty.sites


def test_calibrate_command_refuses_a_board_flashed_for_another_profile(
    tmp_path: Path, fake_cli: Callable[..., object]
) -> None:
    from click.testing import CliRunner

    from meridian_table.cli.main import main

    fake_cli({}, rows=4)
    result = CliRunner().invoke(main, ["calibrate", "--profile", "colovini-40", "--sim",
                                       "--output", str(tmp_path / "x.json")])
    assert result.exit_code == 1
    assert "4 x 6 matrix" in result.output and "meridian-table flash --profile colovini-40" in result.output


def test_calibrate_in_place_never_overwrites_a_shipped_profile() -> None:
    from click.testing import CliRunner

    from meridian_table.cli.main import main
    from meridian_table.profiles import shipped_profile

    before = shipped_profile("colovini-40").read_bytes()
    result = CliRunner().invoke(main, ["calibrate", "--profile", "colovini-40", "--sim",
                                       "--in-place"])
    assert result.exit_code == 2, result.output
    assert "shipped inside meridian-table" in result.output
    assert "colovini-40.calibrated.json" in result.output
    assert shipped_profile("colovini-40").read_bytes() == before


# -- properties ------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_rewiring_is_measured_exactly(data: st.DataObject) -> None:
    """Whatever permutation the wires make, calibration recovers it, flags exactly the
    swapped sites, and the dead ones are reported and still leave a loadable profile."""
    profile = load_profile("colovini-40")
    names = list(profile.sites)
    expected = [profile.sites[n].pos for n in names]
    shuffled = data.draw(st.permutations(expected))
    dead = set(data.draw(st.lists(st.sampled_from(names), max_size=4, unique=True)))
    wiring: dict[str, int | None] = {
        n: (None if n in dead else pos) for n, pos in zip(names, shuffled, strict=True)
    }
    machine = Calibration(profile, include_buttons=False)
    maker = ScriptedMaker(machine, wiring)
    maker.run()
    assert set(maker.flags("dead")) == dead
    swapped = {n for n in names if n not in dead and wiring[n] != profile.sites[n].pos}
    assert set(maker.flags("cross-wired")) == swapped
    assert not maker.flags("stuck") and not maker.flags("double")
    result = machine.result_profile()  # validates: unique positions, every site present
    for n in names:
        if n not in dead:
            assert result.sites[n].pos == wiring[n]
