"""What every virtual-board adapter test does at the table: set a switch, wait for calm."""

from __future__ import annotations

import threading
import time
from typing import Any

from meridian_table.table.runner import RunningTable


class BoardDriver:
    """Plays at the virtual board like a person: a switch at a time, then waits."""

    def __init__(self, table: RunningTable) -> None:
        self.table = table
        self.vb = table.virtual
        self.session = table.session
        self.profile = table.profile
        self._pause = threading.Event()

    def idle(self, timeout: float = 5.0) -> None:
        """Wait until nothing is settling and the board confirmed the current plan."""
        deadline = time.monotonic() + timeout
        self._pause.wait(0.03)
        link = self.table.link
        while time.monotonic() < deadline:
            if not self.session.settling and link.shown_gen >= link.plan_gen:
                return
            self._pause.wait(0.005)
        raise AssertionError("the table did not settle")

    def set(self, site: str, closed: bool) -> None:
        """Stand a piece on ``site`` (or lift it) and wait until the table has read it."""
        self.vb.set_site(site, closed)
        deadline = time.monotonic() + 5
        while (site in self.session.sensed) != closed:
            assert time.monotonic() < deadline, f"switch {site} never reached the table"
            self._pause.wait(0.003)
        self.idle()

    def state(self) -> dict[str, Any]:
        return self.session.state()
