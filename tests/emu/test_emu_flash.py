"""`meridian-table flash` onto an empty emulated Pico (MicroPython formats its erased
flash at first boot through the harness's SPI NOR model), then `flash --update`, then
play: the same commands, mpremote and all, as on a Pico on USB."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.link.collector import Collector
from tests.patience import patience

from meridian_table.link import Link, SenseEvent, Snapshot
from meridian_table.sim.emu import EmulatedBoard

from .conftest import Pool, profile


def _flash(port: str, build: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "meridian_table.cli.main", "flash", "--profile", "kato-80",
         "--port", port, "--build-dir", str(build),
         # The emulated Pico boots slower on a busy machine: its HELLO may take longer
         # than a real Pico's 15 s (a CI run saw the --update run miss it).
         "--wait", f"{patience(15.0):.0f}", *extra],
        capture_output=True, text=True, timeout=600, check=False)


def test_flash_an_empty_emulated_pico_then_update_then_play(pool: Pool, tmp_path: Path) -> None:
    pool.close()  # one emulator at a time
    with EmulatedBoard(profile("kato-80"), empty=True) as board:
        assert "[]" in board.run_python("import os\nprint(os.listdir())", restart=False)
        first = _flash(board.port, tmp_path / "build")
        assert first.returncode == 0, first.stdout + first.stderr
        assert "ok kato-80 runs firmware" in first.stdout
        # --update: staged copy, SHA-256 check, switch; the board's config.json is kept.
        again = _flash(board.port, tmp_path / "build", "--update")
        assert again.returncode == 0, again.stdout + again.stderr
        assert "keeping the board's config.json" in again.stdout
        listing = board.run_python("import os\nprint(sorted(os.listdir()))\n"
                                   "print(sorted(os.listdir('meridian_fw')))")
        assert "'config.json'" in listing and "'main.py'" in listing and "app.mpy" in listing
        assert ".meridian-new" not in listing  # the staging folder is gone after the switch
        collector = Collector()
        with Link(board.find_port, collector) as link:
            hello = link.wait_connected(patience(60))
            assert (hello.board, hello.rows, hello.cols) == ("kato-80", 10, 9)
            collector.wait(lambda ev: any(isinstance(e, Snapshot) for e in ev), patience(60))
            board.set_site("A1", True)
            collector.wait(lambda ev: any(isinstance(e, SenseEvent) and e.closed
                                          for e in ev), 60)
            assert link.occupancy == {profile("kato-80").sites["A1"].pos}
