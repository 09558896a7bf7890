"""`meridian-table selftest`: the firmware's tests on the real MicroPython interpreter,
then every LED and switch, against the virtual board with injected faults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.patience import patience

from meridian_table.cli.main import main
from meridian_table.maker import selftest as st
from meridian_table.profiles import load_profile


def test_the_suite_is_every_firmware_test_that_needs_no_fake_board() -> None:
    names = [p.stem for p in st.firmware_suite()]
    assert names == ["test_fw_app", "test_fw_bench", "test_fw_debounce", "test_fw_leds",
                     "test_fw_link"]
    folder = st.tests_dir()
    assert folder is not None
    for path in folder.glob("test_*.py"):
        if path.stem not in names:
            assert st.needs_fake_board(path), path  # only fake-board modules are left out


def _selftest(tmp_path: Path, *args: str) -> tuple[int, str, dict[str, object]]:
    report = tmp_path / "report.json"
    # The timeout calls a switch dead: on a busy machine the virtual board's answer to a
    # magnet can take over a second (make test-under-load saw D4 called dead), so it
    # grows with the load; the dead switch the tests inject waits it out once.
    result = CliRunner().invoke(main, ["selftest", "--profile", "kato-80", "--board", "sim",
                                       "--timeout", f"{patience(1.0):.1f}",
                                       "--report", str(report), *args])
    data = json.loads(report.read_text()) if report.exists() else {}
    return result.exit_code, " ".join(result.output.split()), data


@pytest.mark.slow
def test_a_broken_led_and_a_dead_switch_are_reported_end_to_end(tmp_path: Path) -> None:
    code, output, report = _selftest(tmp_path, "--fault", "led:3", "--fault", "dead:A1")
    assert code == 1 and "check(s) failed" in output
    results = report["results"]
    assert isinstance(results, list)
    failed = {(r["step"], r["name"]): r["detail"] for r in results if not r["passed"]}
    # The firmware's own tests ran on the MicroPython unix port and passed.
    firmware = [r for r in results if r["step"] == "firmware"]
    assert [r["name"] for r in firmware] == [p.stem for p in st.firmware_suite()]
    assert all(r["passed"] for r in firmware)
    # LED 3 and only LED 3, in every colour; A1 and only A1.
    assert set(failed) == {("leds", "each LED in turn"), ("leds", "all red"),
                           ("leds", "all green"), ("leds", "all blue"), ("switches", "A1")}
    for (step, _), detail in failed.items():
        if step == "leds":
            assert detail.startswith("LED 3 ")
    assert "nothing closed after A1 was given a magnet" in failed[("switches", "A1")]
    assert report["passed"] is False and report["profile"] == "kato-80"
    # The maker was asked for every site and button.
    profile = load_profile("kato-80")
    assert output.count("] put a magnet on ") == len(profile.sites)
    assert output.count("] press the ") == len(profile.buttons)


def test_a_good_board_passes(tmp_path: Path) -> None:
    code, output, report = _selftest(tmp_path, "--skip-tests")
    assert code == 0, output
    assert "every check passed" in output and report["passed"] is True


def test_a_re_test_of_some_sites_checks_only_their_leds_and_switches(tmp_path: Path) -> None:
    """``--sites``: after a repair, only those sites' LEDs in turn and their switches."""
    code, output, report = _selftest(tmp_path, "--skip-tests", "--sites", "B2, D4",
                                     "--fault", "dead:D4")
    assert code == 1, output
    assert output.count("] put a magnet on ") == 2 and "] press the " not in output
    results = report["results"]
    assert isinstance(results, list)
    failed = {(r["step"], r["name"]) for r in results if not r["passed"]}
    assert failed == {("switches", "D4")}
    code, output, _ = _selftest(tmp_path, "--skip-tests", "--sites", "B2,Q9")
    assert code == 2 and "'Q9' is not a site of kato-80" in output and "--sites" in output


def test_faults_are_for_the_virtual_board_and_are_checked(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["selftest", "--profile", "kato-80", "--board", "/dev/null",
                                       "--fault", "led:3"])
    assert result.exit_code == 2 and "add --board sim" in result.output
    code, output, _ = _selftest(tmp_path, "--skip-tests", "--fault", "dead:Q9")
    assert code == 2 and "'Q9' is not a site or button of kato-80" in output
    code, output, _ = _selftest(tmp_path, "--skip-tests", "--fault", "melt:A1")
    assert code == 2 and "use led:N, dead:SITE or stuck:SITE" in output


def test_on_a_pico_the_suite_is_copied_run_and_removed() -> None:
    suite = st.firmware_suite()
    copy, runs, cleanup = st.pico_suite_commands(["mpremote"], "/dev/ttyACM0", suite)
    copied = [c[-1] for c in copy if c[3:5] == ["fs", "cp"]]
    assert ":/selftest/fwkit.py" in copied and ":/selftest/meridian_fw_sim.py" in copied
    assert {f":/selftest/{p.name}" for p in suite} <= set(copied)
    assert len(runs) == len(suite) and all("sys.path.insert(0, '/selftest')" in r[-1] for r in runs)
    assert "os.rmdir('/selftest')" in cleanup[-1]


@pytest.mark.parametrize(("text", "passed", "failed", "error"), [
    ("PASS x\nRESULT 3 0\n", 3, 0, False),
    ("FAIL test_fw_leds::test_x AssertionError()\nRESULT 2 1\n", 2, 1, False),
    ("Traceback...\nMemoryError: memory allocation failed\n", 0, 0, True),
])
def test_a_module_that_fails_or_dies_on_the_board_is_reported(
    text: str, passed: int, failed: int, error: bool
) -> None:
    result = st.parse_module_output("test_fw_leds", text)
    assert (result.passed, result.failed, bool(result.error)) == (passed, failed, error)
    check = result.as_check()
    assert check.passed is (failed == 0 and not error)
    if error:
        assert "MemoryError" in check.detail


def test_leds_test_identifies_the_board_then_shows_each_led_and_colour(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from meridian_table.sim import VirtualBoard

    seen: list[list[tuple[int, int, int]]] = []
    original = VirtualBoard._rendered

    def record(self: VirtualBoard, raw: bytes | bytearray) -> None:
        original(self, raw)
        seen.append(self.leds())

    monkeypatch.setattr(VirtualBoard, "_rendered", record)
    result = CliRunner().invoke(main, ["leds", "test", "--profile", "kato-80", "--port", "sim",
                                       "--ident", "1"])
    assert result.exit_code == 0, result.output
    assert "identify: every LED blinks white" in result.output
    assert result.output.count("ok ") == 4
    # IDENT reached the firmware: a frame with all 80 LEDs lit white.
    assert any(all(r == g == b > 0 for r, g, b in frame) for frame in seen)
    # Each LED alone, in turn.
    for i in (0, 41, 79):
        assert any(frame[i] != (0, 0, 0) and sum(1 for c in frame if c != (0, 0, 0)) == 1
                   for frame in seen), i


class _PlanShown:
    """The link's part in a look: the plan is shown at once (the frames are the test's)."""

    def wait_shown(self, timeout: float) -> None:
        return None


@pytest.mark.parametrize("slow", [False, True])
def test_a_look_judges_only_what_the_firmware_drew(slow: bool) -> None:
    """A board that has drawn nothing yet is dark, but that dark is no sight of the strip:
    the boot pattern comes first. The wait for the boot pattern to end took it for the
    end, and on a busy machine the emulated Pico's first LED was then judged on the boot
    pattern's frame ("LED 0 stayed dark", make test-under-load)."""
    import threading
    import time

    from meridian_table.sim.board import VirtualBoard

    vb = VirtualBoard("kato-80")  # not started: the frames come from this test, as from a pin
    n = vb.nleds
    eyes = st.SimEyes(vb, _PlanShown(), settle_s=60.0 if not slow else st.EMU_LOOK_S, slow=slow)

    def firmware() -> None:
        time.sleep(0.2)
        vb._rendered(bytes([255, 0, 0]) * n)  # the boot pattern's frame
        vb._rendered(bytes(3 * n))  # then the plan: every LED off

    drawing = threading.Thread(target=firmware)
    drawing.start()
    try:
        assert eyes.look("every LED off", [(0, 0, 0)] * n) == set()
        assert vb.frames == 2  # judged on the frame drawn after the boot pattern
    finally:
        drawing.join()
