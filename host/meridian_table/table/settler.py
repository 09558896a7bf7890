"""The settler: when the sensed board has been still long enough to read it.

A pure core in the style of ``link/sequencer.py``: the caller passes ``now`` (or the
injected clock gives it), and every case is testable without a thread. The switch
events move the sensed positions; :meth:`Settler.due` says when the board has been
still for the current window, and :meth:`Settler.settle` takes the settled sites.

The window is the table's ``settle_s`` unless the game changes it for the pending change
(adaptive settling, docs/TABLE.md): shorter when its meaning is already clear, longer
(at most twice the table's window) while the hands are visibly still at work.
:meth:`Settler.motion` describes the recent changes for the game's adapter to judge.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping

from meridian_table.games.board import Change, Motion


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
        self._window = settle_s
        self._recent: deque[tuple[str, bool, float]] = deque(maxlen=64)
        self.settled: frozenset[str] = self.sites()

    def sites(self) -> frozenset[str]:
        """The sites sensed occupied now (maybe not settled yet)."""
        return frozenset(self._site_of[p] for p in self._positions)

    def is_site(self, pos: int) -> bool:
        return pos in self._site_of

    def change(self, pos: int, closed: bool) -> None:
        """One switch changed: the full settle window starts again."""
        if closed:
            self._positions.add(pos)
        else:
            self._positions.discard(pos)
        now = self._clock()
        self._changed_at = now
        self._window = self.settle_s
        self._recent.append((self._site_of[pos], closed, now))

    def replace(self, positions: Iterable[int]) -> None:
        """The board's whole occupancy (a snapshot, a reconnect): settle it afresh."""
        self._positions = {p for p in positions if p in self._site_of}
        self._changed_at = self._clock()
        self._window = self.settle_s
        self._recent.clear()

    def motion(self, expected: frozenset[str], now: float | None = None,
               neighbours: Mapping[str, frozenset[str]] | None = None) -> Motion:
        """The recent changes (within the full window) against ``expected``."""
        now = self._clock() if now is None else now
        recent = tuple(Change(site, closed, now - t) for site, closed, t in self._recent
                       if now - t <= self.settle_s)
        return Motion(expected, self.sites(), recent, self.settle_s, neighbours or {})

    def set_window(self, seconds: float) -> None:
        """Settle the pending change ``seconds`` after it: sooner (the game judged it
        clear) or later (hands still at work), never more than twice the table's
        window, so ``settle_s`` keeps bounding how long a board can go unread."""
        if seconds >= 0:
            self._window = min(seconds, 2 * self.settle_s)

    def shorten(self, seconds: float) -> None:
        """Settle the pending change after ``seconds`` if that is sooner."""
        if 0 <= seconds < self._window:
            self._window = seconds

    @property
    def window(self) -> float:
        """The wait that applies to the pending change."""
        return self._window

    @property
    def pending(self) -> bool:
        """True while a change is waiting for the window to pass."""
        return self._changed_at is not None

    def due(self, now: float | None = None) -> float | None:
        """Seconds until the pending change settles (0 or less: now), None if none."""
        if self._changed_at is None:
            return None
        now = self._clock() if now is None else now
        return self._changed_at + self._window - now

    def full_window_end(self) -> float | None:
        """When the pending change would settle with the table's full window."""
        return None if self._changed_at is None else self._changed_at + self.settle_s

    def settle(self) -> frozenset[str]:
        """Take the sensed board as settled; returns the settled sites."""
        self._changed_at = None
        self.settled = self.sites()
        return self.settled


__all__ = ["Change", "Motion", "Settler"]
