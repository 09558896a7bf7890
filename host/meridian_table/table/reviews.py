"""One review at a time per table, bounded, at low priority, and only while someone waits.

A review analyses every position of a game in a process of its own (niced like the
bot's worker, ``bots/worker.py``). :class:`ReviewGate` lets one run at a time: the same
review asked again while it runs joins it (one process, one answer for both); any other
is refused with the reason and what to do. When every page that asked has gone away
(:mod:`meridian_table.waiting`), the review is cancelled and its process ended. The
page's level is 1..5 and its time is bounded in total (:func:`bounded_budget`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from meridian_table import waiting

LOGGER = logging.getLogger(__name__)

#: The longest a page's review may think in all, in seconds (two analyses a position).
REVIEW_MAX_S = 120.0
POLL_S = 0.1


class ReviewBusyError(ValueError):
    """Another review runs: one at a time per table."""


class ReviewCancelled(ValueError):
    """Nobody waits for the review any more (the page went away)."""


def bounded_budget(budget_s: float, moves: int) -> float:
    """The seconds a position, cut so that a whole review of ``moves`` moves stays within
    :data:`REVIEW_MAX_S` (each position is analysed at most twice)."""
    return max(0.01, min(budget_s, REVIEW_MAX_S / (2 * (moves + 1))))


@dataclass
class _Job:
    key: Hashable
    label: str
    cancel: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    waiters: list[threading.Event | None] = field(default_factory=list)
    result: Any = None
    error: BaseException | None = None


class ReviewGate:
    """At most one review running; see the module docstring."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._job: _Job | None = None

    @property
    def running(self) -> str | None:
        """What the running review is (``"game 3"``), or None."""
        with self._lock:
            job = self._job
            return job.label if job is not None and not job.done.is_set() else None

    def run(self, key: Hashable, label: str, work: Callable[[threading.Event], Any],
            busy: Callable[[str], str] = lambda label: label) -> Any:
        """``work(cancel)``'s answer: started now, or the running one's when its ``key``
        is the same. Raises :class:`ReviewBusyError` (``busy(label)`` says how far the
        running one is) when another review runs, :class:`ReviewCancelled` when this
        caller's page goes away."""
        mine = waiting.gone()
        with self._lock:
            job = self._job
            if job is not None and not job.done.is_set():
                if job.key != key:
                    raise ReviewBusyError(
                        f"the table is reviewing {busy(job.label)}; one review runs at a time: "
                        "ask again when it is done")
                job.waiters.append(mine)
            else:
                job = _Job(key, label, waiters=[mine])
                self._job = job
                threading.Thread(target=self._work, args=(job, work), name="review",
                                 daemon=True).start()
        while not job.done.wait(POLL_S):
            if mine is not None and mine.is_set():
                self._leave(job, mine)
                raise ReviewCancelled(f"the review of {label} was left: its page went away")
        if job.error is not None:
            raise job.error
        return job.result

    def _leave(self, job: _Job, mine: threading.Event) -> None:
        with self._lock:
            if mine in job.waiters:
                job.waiters.remove(mine)
            if not job.waiters:
                LOGGER.info("nobody waits for the review of %s: cancelled", job.label)
                job.cancel.set()

    @staticmethod
    def _work(job: _Job, work: Callable[[threading.Event], Any]) -> None:
        try:
            job.result = work(job.cancel)
        except BaseException as exc:  # handed to every waiter, raised there
            job.error = exc
        finally:
            job.done.set()


#: The table's gate: ``meridian-table play`` runs one table in a process.
GATE = ReviewGate()

__all__ = ["GATE", "REVIEW_MAX_S", "ReviewBusyError", "ReviewCancelled", "ReviewGate",
           "bounded_budget"]
