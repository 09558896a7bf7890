"""The emulated Pico (``meridian_table.sim.emu``): fixtures shared by tests/emu.

One emulated board runs at a time (the emulator keeps a core busy): ``pico`` hands out
the board of a profile, booting it on first use and closing the one before; the last
one closes at the end of the session. Tests restore the switches they close.

When the MicroPython image, the boot ROM, Node or rp2040js are missing nothing here is
collected and the summary says so in one line naming what is missing; with
``MERIDIAN_REQUIRE_EMU=1`` (set by ``.ci/run``) every test fails with that line instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.link.collector import Collector

from meridian_table.link import Link, Snapshot
from meridian_table.profiles import load_profile
from meridian_table.profiles.model import Profile
from meridian_table.sim import emu

REQUIRE_ENV = "MERIDIAN_REQUIRE_EMU"
#: Every shipped board profile that runs on a Pico (RP2040): all of them say "any".
PICO_PROFILES = ("kato-80", "kato-114", "kato-154", "colovini-40", "colovini-50",
                 "empire-in-space")


_MISSING = emu.missing()
_REQUIRED = os.environ.get(REQUIRE_ENV) == "1"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Nothing here is collected when the emulated Pico cannot run (unless required):
    the summary says why in one line."""
    if _MISSING is not None and not _REQUIRED and collection_path.name.startswith("test_"):
        return True
    return None


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _MISSING is not None and not _REQUIRED:
        terminalreporter.write_line(f"SKIPPED tests/emu (the emulated Pico): {_MISSING}",
                                    yellow=True)


@pytest.fixture(scope="session")
def emu_ready() -> None:
    if _MISSING is not None:
        pytest.fail(f"{REQUIRE_ENV}=1 but {_MISSING}", pytrace=False)


@pytest.fixture(autouse=True)
def _needs_emu(emu_ready: None) -> None:
    """Every test here needs the emulated Pico (skipped or failed once, above)."""


class Pool:
    """At most one running emulated board (with its Link and Collector)."""

    def __init__(self) -> None:
        self.key: tuple[str, bool] | None = None
        self.board: emu.EmulatedBoard | None = None
        self.link: Link | None = None
        self.collector = Collector()

    def get(self, profile: Profile, diodes: bool = True) -> tuple[emu.EmulatedBoard, Link,
                                                                   Collector]:
        key = (profile.name, diodes)
        if self.key != key or self.board is None or self.link is None:
            self.close()
            config = profile.firmware_config()
            if not diodes:
                config["diodes"] = False
            board = emu.EmulatedBoard(profile if diodes else config)
            if not diodes:
                board.profile = profile
            board.start()
            self.board = board
            self.collector = Collector()
            self.link = Link(board.find_port, self.collector)
            self.link.start()
            self.link.wait_connected(60)
            self.collector.wait(lambda ev: any(isinstance(e, Snapshot) for e in ev), 60)
            self.key = key
        assert self.board is not None and self.link is not None
        return self.board, self.link, self.collector

    def close(self) -> None:
        if self.link is not None:
            self.link.close()
            self.link = None
        if self.board is not None:
            self.board.close()
            self.board = None
        self.key = None


@pytest.fixture(scope="session")
def pool() -> Iterator[Pool]:
    p = Pool()
    try:
        yield p
    finally:
        p.close()


@pytest.fixture
def collector_mark(pool: Pool) -> int:
    return len(pool.collector.events)


def profile(name: str) -> Profile:
    return load_profile(name)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every emulated-Pico test runs in one xdist worker (``--dist loadgroup``): the
    boards are shared per process, and two emulators at once starve each other on a
    two-core machine. Their own time limit is longer than the suite's, for the same
    reason as ``tests.patience``."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.xdist_group("emulated-pico"))
            item.add_marker(pytest.mark.timeout(1200))
