"""The switch matrix at pin level on the emulated Pico: every site and button of every
Pico profile closes and opens at the host through the firmware's real scan (GPIO rows
and columns with the pull-ups applied by the harness, or the 74HC165 chain), the
ghosting rectangle with and without diodes, and debouncing of bounces made at the pin."""

from __future__ import annotations

import pytest
from tests.link.collector import Collector
from tests.patience import patience

from meridian_table.link import BoardFault, Link, SenseEvent
from meridian_table.profiles.model import Profile

from .conftest import PICO_PROFILES, Pool, profile


def _positions(p: Profile) -> dict[int, str]:
    names = {site.pos: name for name, site in p.sites.items()}
    names.update({pos: name for name, pos in p.buttons.items()})
    return names


def _batches(rows: int, cols: int, used: set[int]) -> list[list[int]]:
    """Diagonals: one switch a row, each batch a different column shift, so every
    position is in exactly one batch and no two switches of a batch share a row."""
    out = []
    for k in range(cols):
        batch = sorted(r * cols + (r + k) % cols for r in range(rows)
                       if r * cols + (r + k) % cols in used)
        if batch:
            out.append(batch)
    return out


def _senses_since(collector: Collector, mark: int) -> list[SenseEvent]:
    return [e for e in collector.events[mark:] if isinstance(e, SenseEvent)]


@pytest.mark.parametrize("name", PICO_PROFILES)
def test_every_site_closes_and_opens_at_the_host(pool: Pool, name: str) -> None:
    p = profile(name)
    board, link, collector = pool.get(p)
    names = _positions(p)
    assert names, name
    seen_closed: set[int] = set()
    seen_open: set[int] = set()
    previous: list[int] = []
    # Each step closes one diagonal and opens the one before: every switch closes and
    # opens once, each change seen at the host as exactly its own SENSE event.
    for batch in [*_batches(p.rows, p.cols, set(names)), []]:
        mark = len(collector.events)
        for pos in previous:
            board.set_switch(pos, False)
        for pos in batch:
            board.set_switch(pos, True)
        expected = sorted([(pos, True) for pos in batch] + [(pos, False) for pos in previous])
        want = len(expected)
        collector.wait(lambda ev, m=mark, n=want: len(_senses_since(collector, m)) >= n,
                       timeout=patience(60))
        got = _senses_since(collector, mark)
        assert sorted((e.pos, e.closed) for e in got) == expected, (
            f"{name}: closing {[names[pos] for pos in batch]}, opening "
            f"{[names[pos] for pos in previous]}")
        assert link.occupancy == frozenset(batch)
        seen_closed.update(e.pos for e in got if e.closed)
        seen_open.update(e.pos for e in got if not e.closed)
        previous = batch
    assert seen_closed == seen_open == set(names), name


def _rectangle(link: Link, collector: Collector, board: object, corners: list[int]) -> int:
    mark = len(collector.events)
    for pos in corners:
        board.set_switch(pos, True)  # type: ignore[attr-defined]
    return mark


def test_a_held_rectangle_reads_right_with_diodes(pool: Pool) -> None:
    board, link, collector = pool.get(profile("kato-114"))
    # (1,1) (1,3) (4,1) (4,3) on the 11 x 11 matrix.
    corners = [1 * 11 + 1, 1 * 11 + 3, 4 * 11 + 1, 4 * 11 + 3]
    mark = len(collector.events)
    for pos in corners[:3]:
        board.set_switch(pos, True)
    collector.wait(lambda ev: len(_senses_since(collector, mark)) >= 3, timeout=patience(60))
    assert link.occupancy == frozenset(corners[:3])  # no ghost at the fourth corner
    board.set_switch(corners[3], True)
    collector.wait(lambda ev: len(_senses_since(collector, mark)) >= 4, timeout=patience(60))
    assert link.occupancy == frozenset(corners)
    assert not [e for e in collector.events[mark:] if isinstance(e, BoardFault)]
    mark = len(collector.events)
    for pos in corners:
        board.set_switch(pos, False)
    collector.wait(lambda ev: len(_senses_since(collector, mark)) >= 4, timeout=patience(60))
    assert link.occupancy == frozenset()


def test_without_diodes_the_ghost_is_refused_as_ambiguous(pool: Pool) -> None:
    board, link, collector = pool.get(profile("kato-114"), diodes=False)
    corners = [1 * 11 + 1, 1 * 11 + 3, 4 * 11 + 1]
    ghost = 4 * 11 + 3
    mark = len(collector.events)
    for pos in corners[:2]:
        board.set_switch(pos, True)
    collector.wait(lambda ev: len(_senses_since(collector, mark)) >= 2, timeout=patience(60))
    # The third corner closes the fourth electrically (through the diode-less matrix):
    # the firmware cannot tell which is real and holds both back as a GHOST fault.
    board.set_switch(corners[2], True)
    collector.wait(lambda ev: any(isinstance(e, BoardFault) and e.code == "GHOST"
                                  for e in ev[mark:]), timeout=patience(60))
    faults = {int(e.detail[0]) for e in collector.events[mark:]
              if isinstance(e, BoardFault) and e.code == "GHOST"}
    assert faults <= {corners[2], ghost} and faults, faults
    assert link.occupancy == frozenset(corners[:2])
    # Lifting a piece of the rectangle clears the ambiguity: the real third corner is
    # released as a closure, the ghost never reported.
    mark = len(collector.events)
    board.set_switch(corners[0], False)
    collector.wait(lambda ev: len(_senses_since(collector, mark)) >= 2, timeout=patience(60))
    assert link.occupancy == frozenset({corners[1], corners[2]})
    for pos in corners[1:]:
        board.set_switch(pos, False)
    collector.wait(lambda ev: link.occupancy == frozenset(), timeout=patience(60))
    pool.close()


def test_bounces_at_the_pin_are_debounced_by_the_real_loop(pool: Pool) -> None:
    p = profile("kato-80")
    board, link, collector = pool.get(p)
    config = p.firmware_config()
    window_us = config["debounce_scans"] * config["scan_period_ms"] * 1000
    pos = 21
    # A burst of flips faster than the debounce window, ending closed: one SENSE.
    mark = len(collector.events)
    board.bounce(pos, flips=9, period_us=window_us // 6, closed=True)
    collector.wait(lambda ev: len(_senses_since(collector, mark)) >= 1, timeout=patience(60))
    # The same burst ending open: one SENSE back, and never a flicker in between.
    board.bounce(pos, flips=9, period_us=window_us // 6, closed=False)
    collector.wait(lambda ev: len(_senses_since(collector, mark)) >= 2, timeout=patience(60))
    # A closure seen by a scan or two but shorter than the debounce window: nothing.
    board.bounce(pos, flips=1, period_us=window_us // 2, closed=False)
    link.request_snapshot()
    collector.wait(lambda ev: sum(1 for e in ev[mark:] if type(e).__name__ == "Snapshot") >= 1,
                   timeout=patience(60))
    got = [(e.pos, e.closed) for e in _senses_since(collector, mark)]
    assert got == [(pos, True), (pos, False)]
    assert link.occupancy == frozenset()
