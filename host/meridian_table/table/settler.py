"""The settler: when the sensed board has been still long enough to read it.

A pure core in the style of ``link/sequencer.py``: the caller passes ``now`` (or the
injected clock gives it), and every case is testable without a thread. The switch
events move the sensed positions; :meth:`Settler.due` says when the board has been
still for the settle window, and :meth:`Settler.settle` takes the settled sites.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping


class Settler:
    """Sensed switch positions and the settle window over them."""

    def __init__(
        self,
        site_of: Mapping[int, str],
        settle_s: float,
        clock: Callable[[], float],
        positions: Iterable[int] = (),
    ) -> None:
        if settle_s < 0:
            raise ValueError(f"settle window {settle_s!r} s is negative; use 0 or more")
        self._site_of = dict(site_of)
        self.settle_s = settle_s
        self._clock = clock
        self._positions: set[int] = {p for p in positions if p in self._site_of}
        self._changed_at: float | None = None
        self.settled: frozenset[str] = self.sites()

    def sites(self) -> frozenset[str]:
        """The sites sensed occupied now (maybe not settled yet)."""
        return frozenset(self._site_of[p] for p in self._positions)

    def is_site(self, pos: int) -> bool:
        return pos in self._site_of

    def change(self, pos: int, closed: bool) -> None:
        """One switch changed: the settle window starts again."""
        if closed:
            self._positions.add(pos)
        else:
            self._positions.discard(pos)
        self._changed_at = self._clock()

    def replace(self, positions: Iterable[int]) -> None:
        """The board's whole occupancy (a snapshot, a reconnect): settle it afresh."""
        self._positions = {p for p in positions if p in self._site_of}
        self._changed_at = self._clock()

    @property
    def pending(self) -> bool:
        """True while a change is waiting for the window to pass."""
        return self._changed_at is not None

    def due(self, now: float | None = None) -> float | None:
        """Seconds until the pending change settles (0 or less: now), None if none."""
        if self._changed_at is None:
            return None
        now = self._clock() if now is None else now
        return self._changed_at + self.settle_s - now

    def settle(self) -> frozenset[str]:
        """Take the sensed board as settled; returns the settled sites."""
        self._changed_at = None
        self.settled = self.sites()
        return self.settled


__all__ = ["Settler"]
