"""Exactly-once, in-order delivery of SENSE events: the pure core of the link.

The firmware keeps every event in a ring until it is acknowledged and resends it
every 250 ms, so events arrive *at least* once and possibly out of order (a line lost
to noise leaves a gap that a later resend fills). The ``Sequencer`` turns that into
*exactly once, in order*:

- an event with the next expected ``seq`` is delivered, then any held-back events
  that now follow it;
- an event already delivered is a duplicate and is dropped (counted);
- an event beyond a gap is held back until the resend fills the gap; if the gap is
  still open after ``gap_wait`` seconds (the ring overflowed, events are gone) the
  caller is told to ask for a snapshot, and that snapshot is delivered as the truth
  (``reason="resync"``) so the consumer can reconcile;
- a snapshot that is ahead of the delivered events (after a reconnect) is held back
  until the resent events catch up with it, so every event is still delivered once,
  followed by the snapshot that confirms them (``reason="reconnect"``).

It does no I/O and reads no clock: the caller passes ``now``. Sequence numbers run
1..65535 and wrap to 1; 0 means "nothing delivered since this boot".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from meridian_table.link.events import SenseEvent, Snapshot

LOGGER = logging.getLogger(__name__)

SEQ_MOD = 65535  # seq runs 1..65535 then wraps to 1
WINDOW = SEQ_MOD // 2  # an event at most this far ahead is new; anything else is old


def next_seq(seq: int) -> int:
    """The event number after ``seq`` (0 means none yet, so the next is 1)."""
    return seq % SEQ_MOD + 1


def seq_distance(frm: int, to: int) -> int:
    """How far ``to`` is ahead of ``frm`` on the 1..65535 ring (0..65534)."""
    if frm == 0:
        return to
    return (to - frm) % SEQ_MOD


def is_ahead(frm: int, to: int) -> bool:
    """True when ``to`` is a newer event than ``frm``."""
    return 0 < seq_distance(frm, to) <= WINDOW


@dataclass
class SequencerStats:
    delivered: int = 0
    duplicates: int = 0
    held_back: int = 0
    gaps: int = 0
    snapshots: int = 0
    folded: int = 0  # events never delivered one by one because a resync snapshot replaced them


class Sequencer:
    """Orders SENSE events and snapshots for delivery; see the module docstring."""

    def __init__(self, gap_wait: float = 1.0, snap_wait: float = 1.5) -> None:
        self.gap_wait = gap_wait
        self.snap_wait = snap_wait
        self.boot: str | None = None
        self.delivered = 0
        self.occupancy: frozenset[int] = frozenset()
        self.stats = SequencerStats()
        self._held: dict[int, SenseEvent] = {}
        self._gap_since: float | None = None
        self._deferred: Snapshot | None = None
        self._deferred_until = 0.0
        self._resync = True  # the next snapshot is the truth
        self._resync_reason = "resync"
        self._need_truth = True  # no snapshot since this boot: hold every event until one
        self._snap_requested_at: float | None = None

    # -- inputs ---------------------------------------------------------------------

    def hello(self, boot: str) -> bool:
        """A HELLO arrived. Returns True when the board is new or was reset."""
        if boot == self.boot:
            return False
        if self.boot is not None:
            LOGGER.info("board boot nonce changed %s -> %s: it was reset", self.boot, boot)
        self.boot = boot
        self.delivered = 0
        self._held.clear()
        self._gap_since = None
        self._deferred = None
        self._resync = True
        self._need_truth = True
        return True

    def sense(self, event: SenseEvent, now: float) -> list[SenseEvent | Snapshot]:
        """One SENSE frame (maybe a resend). Returns what to deliver now, in order."""
        if self._need_truth:
            # Before the first snapshot of a boot, events may predate this host; the
            # snapshot will say which of them it already reflects.
            self._held.setdefault(event.seq, event)
            return []
        if event.seq == next_seq(self.delivered):
            out: list[SenseEvent | Snapshot] = []
            self._deliver(event, out)
            self._drain(out)
            return out
        if is_ahead(self.delivered, event.seq):
            if event.seq not in self._held:
                self._held[event.seq] = event
                self.stats.held_back += 1
                if self._gap_since is None:
                    self._gap_since = now
                    self.stats.gaps += 1
            else:
                self.stats.duplicates += 1
            return []
        self.stats.duplicates += 1
        return []

    def snapshot(self, snap: Snapshot, now: float) -> list[SenseEvent | Snapshot]:
        """A SNAP frame. Returns what to deliver now (maybe nothing: held back)."""
        self._snap_requested_at = None
        if self._resync:
            return self._apply(snap)
        if snap.last_seq == self.delivered:
            return self._apply(snap)
        if is_ahead(self.delivered, snap.last_seq):
            # Events up to snap.last_seq are still in the board's ring and will be
            # resent: deliver them one by one, then this snapshot.
            self._deferred = snap
            self._deferred_until = now + self.snap_wait
            return []
        LOGGER.warning(
            "snapshot at seq %d is older than the delivered seq %d; ignored",
            snap.last_seq,
            self.delivered,
        )
        return []

    def overflow(self) -> None:
        """The board's ring overflowed: events are gone, the next snapshot is the truth."""
        self._resync = True
        self._resync_reason = "resync"

    def want_resync(self) -> None:
        """The caller asked for a snapshot that must replace what it knows."""
        self._resync = True
        self._resync_reason = "request"

    def poll(self, now: float) -> tuple[list[SenseEvent | Snapshot], bool]:
        """Timers. Returns (deliveries, ask_for_snapshot)."""
        out: list[SenseEvent | Snapshot] = []
        if self._deferred is not None and now >= self._deferred_until:
            snap = self._deferred
            LOGGER.warning(
                "events %d..%d were not resent in time; delivering the snapshot instead",
                next_seq(self.delivered),
                snap.last_seq,
            )
            self._resync = True
            self._resync_reason = "resync"
            out.extend(self._apply(snap))
        ask = False
        if self._gap_since is not None and now - self._gap_since >= self.gap_wait:
            if self._snap_requested_at is None or now - self._snap_requested_at >= self.gap_wait:
                LOGGER.warning(
                    "event %d never arrived (held back: %s); asking for a snapshot",
                    next_seq(self.delivered),
                    sorted(self._held)[:5],
                )
                self._resync = True
                self._resync_reason = "resync"
                self._snap_requested_at = now
                ask = True
        return out, ask

    # -- internals ------------------------------------------------------------------

    def _deliver(self, event: SenseEvent, out: list[SenseEvent | Snapshot]) -> None:
        self.delivered = event.seq
        if event.closed:
            self.occupancy = self.occupancy | {event.pos}
        else:
            self.occupancy = self.occupancy - {event.pos}
        self.stats.delivered += 1
        out.append(event)
        if self._deferred is not None and self._deferred.last_seq == event.seq:
            snap = self._deferred
            self._deferred = None
            if snap.closed != self.occupancy:
                LOGGER.warning(
                    "snapshot at seq %d differs from the events (%s vs %s); it wins",
                    snap.last_seq,
                    sorted(snap.closed),
                    sorted(self.occupancy),
                )
                self.occupancy = snap.closed
            self.stats.snapshots += 1
            out.append(Snapshot(snap.last_seq, snap.closed, "reconnect"))

    def _drain(self, out: list[SenseEvent | Snapshot]) -> None:
        while True:
            nxt = next_seq(self.delivered)
            event = self._held.pop(nxt, None)
            if event is None:
                break
            self._deliver(event, out)
        if not self._held:
            self._gap_since = None

    def _apply(self, snap: Snapshot) -> list[SenseEvent | Snapshot]:
        first = self._need_truth
        self._need_truth = False
        reason = "connect" if first else (self._resync_reason if self._resync else snap.reason)
        if self._resync and not first and is_ahead(self.delivered, snap.last_seq):
            self.stats.folded += seq_distance(self.delivered, snap.last_seq)
        self._resync = False
        self._deferred = None
        self.delivered = snap.last_seq
        self.occupancy = snap.closed
        self.stats.snapshots += 1
        for seq in [s for s in self._held if not is_ahead(self.delivered, s)]:
            del self._held[seq]
        out: list[SenseEvent | Snapshot] = [Snapshot(snap.last_seq, snap.closed, reason)]
        self._drain(out)
        return out
