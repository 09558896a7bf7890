"""A subscriber that records what a Link delivers, for tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from meridian_table.link import LinkEvent, SenseEvent, Snapshot


class Collector:
    """Records what a Link delivers and lets a test wait for it (no sleeps)."""

    def __init__(self) -> None:
        self.events: list[LinkEvent] = []
        self._cond = threading.Condition()

    def __call__(self, event: LinkEvent) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def wait(self, predicate: Callable[[list[LinkEvent]], bool], timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self.events):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out; got {self.events[-12:]!r}")
                # Wake on every delivered event, and now and then for predicates that
                # look at something else (the board's state).
                self._cond.wait(min(left, 0.02))

    def senses(self) -> list[SenseEvent]:
        with self._cond:
            return [e for e in self.events if isinstance(e, SenseEvent)]

    def snapshots(self) -> list[Snapshot]:
        with self._cond:
            return [e for e in self.events if isinstance(e, Snapshot)]

    def wait_senses(self, n: int, timeout: float = 10.0) -> list[SenseEvent]:
        self.wait(lambda ev: sum(isinstance(e, SenseEvent) for e in ev) >= n, timeout)
        return self.senses()
