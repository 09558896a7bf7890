"""The maker's tools on the emulated Pico (``--board emu``): selftest with injected
faults (a broken LED, a dead switch, a stuck one), calibration finding a crossed pair
through the pin-level matrix."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner
from tests.patience import patience

from meridian_table.cli.main import main
from meridian_table.link import Link
from meridian_table.maker.calibration import Flagged

from .conftest import Pool, profile

FULL_ENV = "MERIDIAN_EMU_FULL"


def test_selftest_on_board_emu_reports_the_injected_faults(pool: Pool, tmp_path: Path) -> None:
    """A re-test of four sites (``--sites``): each one's LED in turn through the pin,
    every LED red, green and blue, and the four switches; the whole board's run is the
    same code over every site (minutes on the emulator, ``MERIDIAN_EMU_FULL=1``)."""
    pool.close()  # one emulator at a time
    kato = profile("kato-80")
    third = next(name for name, site in kato.sites.items() if site.led == 3)
    sites = list(dict.fromkeys(["A1", "C2", "B3", third]))
    if os.environ.get(FULL_ENV) == "1":
        sites = list(kato.sites)
    report = tmp_path / "report.json"
    result = CliRunner().invoke(main, [
        "selftest", "--profile", "kato-80", "--board", "emu", "--skip-tests",
        "--timeout", f"{patience(1.5):.1f}",
        "--report", str(report), "--sites", ",".join(sites),
        "--fault", "led:3", "--fault", "dead:A1", "--fault", "stuck:C2"])
    assert result.exit_code == 1, result.output
    data = json.loads(report.read_text())
    assert data["board"] == "emulated Pico"
    failed = {(r["step"], r["name"]): r["detail"] for r in data["results"] if not r["passed"]}
    c2 = kato.sites["C2"].pos
    assert {("leds", "each LED in turn"), ("switches", "A1")} <= set(failed)
    # A stuck switch reads closed before any magnet: flagged by its position.
    assert ("switches", "C2") in failed or ("switches", f"position {c2}") in failed, failed
    assert failed[("leds", "each LED in turn")].startswith("LED 3 ")
    assert "nothing closed after A1 was given a magnet" in failed[("switches", "A1")]
    # The other sites' switches close and open through the pins: no result against them.
    switches = {name for step, name in failed if step == "switches"}
    assert switches <= {"A1", "C2", f"position {c2}"}, switches


def test_calibration_on_the_emulated_pico_finds_a_crossed_pair(pool: Pool, tmp_path: Path
                                                                ) -> None:
    from meridian_table.maker.calibration import Calibration
    from meridian_table.maker.calibration_run import CalibrationRun, SimMaker
    from meridian_table.sim.emu import EmulatedBoard

    forty = profile("colovini-40")
    pool.close()  # one emulator at a time
    a, b = forty.sites["4.4"].pos, forty.sites["6.2"].pos
    seen: list[object] = []
    with EmulatedBoard(forty) as board, Link(board.find_port) as link:
        board.swap_switches(a, b)  # crossed wires, at the pins
        link.wait_connected(timeout=patience(60))
        # Four sites, the crossed pair among them: the emulator is slow, the logic the same.
        machine = Calibration(forty, only=["1.1", "4.4", "6.2", "9.3"], include_buttons=False,
                              timeout_ms=30_000)
        run = CalibrationRun(machine, link, on_effect=seen.append,
                             progress_path=tmp_path / "progress.json", maker=SimMaker(board),
                             auto_skip_dead=True)
        assert run.run(timeout=patience(240)), "calibration did not finish"
    flagged = sorted(e.flag.name for e in seen if isinstance(e, Flagged))
    assert flagged == ["4.4", "6.2"]
    result = run.machine.result_profile()
    assert result.sites["4.4"].pos == b and result.sites["6.2"].pos == a
    assert result.sites["1.1"].pos == forty.sites["1.1"].pos
