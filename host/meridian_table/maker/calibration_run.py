"""Driving a ``Calibration`` from a live board: the link's events in, LEDs and progress out.

``CalibrationRun`` owns no policy: it feeds the link's SENSE events, snapshots and
the clock into the state machine, lights the LEDs to match the machine's state,
saves the progress file after every step and reports every effect to the caller
(the CLI prints them). A ``Maker`` can stand in for the person placing magnets;
``SimMaker`` does that on a virtual board, with optional deliberate miswiring.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from meridian_table.ledplan import PULSE, SOLID, LedPlan, Light
from meridian_table.link import BoardFault, Link, LinkState, SenseEvent, Snapshot
from meridian_table.maker.calibration import (
    AwaitRelease,
    Calibration,
    CalibrationError,
    Effect,
    Finished,
    Flagged,
    Prompt,
    Recorded,
    Reminder,
    Skipped,
    Step,
)
from meridian_table.profiles.writer import write_atomically
from meridian_table.textload import json_loads

LOGGER = logging.getLogger(__name__)

ASK = Light(0xFFFFFF, PULSE)      # put the magnet here
DONE = Light(0x00A000, SOLID)     # measured
PROBLEM = Light(0xC00000, SOLID)  # skipped or cross-wired: look at it again
FIRST_SNAPSHOT_S = 3.0


class Maker(Protocol):
    """Someone (or something) who puts magnets where the calibration asks."""

    def place(self, step: Step) -> None: ...

    def lift(self, name: str, pos: int) -> None: ...


class SwitchBoard(Protocol):
    """The part of a virtual or fake board a ``SimMaker`` needs."""

    def set_switch(self, pos: int, closed: bool) -> Any: ...


class SimMaker:
    """Plays the maker on a simulated board: puts the magnet on the asked-for site and
    lifts it when told.

    ``wiring`` maps a site or button to the position its switch really closes (None: a
    dead switch); anything not listed is wired as the profile says. (A virtual board
    can also carry the faults itself: ``VirtualBoard.swap_switches`` and friends.)
    """

    def __init__(self, board: SwitchBoard, wiring: Mapping[str, int | None] | None = None) -> None:
        self.board = board
        self.wiring = dict(wiring or {})
        self._placed: int | None = None

    def place(self, step: Step) -> None:
        pos = self.wiring.get(step.name, step.expected_pos)
        self._placed = pos
        if pos is not None:
            self.board.set_switch(pos, True)

    def lift(self, name: str, pos: int) -> None:
        if self._placed is not None:
            self.board.set_switch(self._placed, False)
            self._placed = None
        elif pos is not None:
            # Asked to clear a magnet this maker did not put down (left from a paused run).
            self.board.set_switch(pos, False)


def save_progress(path: Path, machine: Calibration) -> None:
    """Write the progress file atomically (a crash never leaves half a file)."""
    write_atomically(path, json.dumps(machine.to_progress(), indent=1))


def load_progress(path: Path) -> dict[str, Any]:
    """Read a progress file; CalibrationError names it when it is unreadable."""
    try:
        data = json_loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CalibrationError(
            f"{path}: cannot read the calibration progress ({exc}); delete it to start again"
        ) from exc
    if not isinstance(data, dict):
        raise CalibrationError(f"{path}: not a calibration progress file; delete it to start again")
    return data


class CalibrationRun:
    """Runs one calibration over a started ``Link``. See the module docstring."""

    def __init__(
        self,
        machine: Calibration,
        link: Link,
        *,
        on_effect: Callable[[Effect], None] | None = None,
        on_link: Callable[[LinkState | BoardFault], None] | None = None,
        progress_path: Path | None = None,
        maker: Maker | None = None,
        auto_skip_dead: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.machine = machine
        self.link = link
        self.on_effect = on_effect
        self.on_link = on_link
        self.progress_path = progress_path
        self.maker = maker
        self.auto_skip_dead = auto_skip_dead
        self.clock = clock
        self._events: queue.Queue[object] = queue.Queue()
        self._stop = threading.Event()

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def skip(self) -> None:
        """Skip the current step (thread-safe: called from the keyboard thread)."""
        self._events.put("skip")

    def stop(self) -> None:
        """End the run early (thread-safe); progress is already saved."""
        self._stop.set()
        self._events.put("stop")

    def run(self, timeout: float | None = None) -> bool:
        """Run until the machine is done (True) or stopped / timed out (False)."""
        unsubscribe = self.link.subscribe(self._events.put)
        if self.link.state == "connected":
            # The connect-time snapshot went out before we subscribed: ask for a fresh one.
            self.link.request_snapshot()
        deadline = None if timeout is None else self.clock() + timeout
        try:
            closed = self._first_snapshot()
            self._apply(self.machine.start(closed, self._now_ms()))
            while not self.machine.done and not self._stop.is_set():
                if deadline is not None and self.clock() > deadline:
                    return False
                try:
                    item = self._events.get(timeout=0.1)
                except queue.Empty:
                    item = None
                now = self._now_ms()
                if isinstance(item, SenseEvent):
                    self._apply(self.machine.switch(item.pos, item.closed, now))
                elif isinstance(item, Snapshot):
                    self._apply(self.machine.snapshot(item.closed, now))
                elif isinstance(item, LinkState | BoardFault):
                    # A state change, or a FAULT such as GHOST (a missing diode): the
                    # maker should see it, the machine has nothing to decide.
                    if self.on_link is not None:
                        self.on_link(item)
                elif item == "skip":
                    if self.machine.phase in ("clearing", "waiting", "releasing"):
                        self._apply(self.machine.skip(now))
                self._apply(self.machine.tick(self._now_ms()))
            return self.machine.done
        finally:
            unsubscribe()

    def _first_snapshot(self) -> frozenset[int]:
        # The link delivers a Snapshot right after it connects. Switch events taken
        # before it are already reflected in it; anything else is put back.
        deadline = self.clock() + FIRST_SNAPSHOT_S
        early: list[object] = []
        found: frozenset[int] | None = None
        while found is None and self.clock() < deadline:
            try:
                item = self._events.get(timeout=0.1)
            except queue.Empty:
                continue
            if isinstance(item, Snapshot):
                found = item.closed
            else:
                early.append(item)
        for item in early:
            if not isinstance(item, SenseEvent):
                self._events.put(item)
        return found if found is not None else self.link.occupancy

    def _apply(self, effects: list[Effect]) -> None:
        changed = False
        for effect in effects:
            if self.on_effect is not None:
                self.on_effect(effect)
            if isinstance(effect, Prompt):
                changed = True
                if self.maker is not None:
                    self.maker.place(effect.step)
            elif isinstance(effect, AwaitRelease):
                if self.maker is not None:
                    self.maker.lift(effect.name, effect.pos)
            elif isinstance(effect, Recorded | Finished | Skipped | Flagged):
                changed = True
            elif isinstance(effect, Reminder) and self.auto_skip_dead:
                # Unattended (--skip-dead, the virtual board): give up at the reminder,
                # so a dead switch is skipped and a stuck one confirmed.
                self._events.put("skip")
        if changed:
            self._show()
            if self.progress_path is not None:
                save_progress(self.progress_path, self.machine)

    def _show(self) -> None:
        """Light the LEDs: done sites green, problems red, the asked-for site pulsing."""
        profile = self.machine.profile
        lights: dict[int, Light] = {}
        problems = set(self.machine.skipped) | {
            f.name for f in self.machine.flags if f.kind == "cross-wired"
        }
        for name, site in profile.sites.items():
            if site.led is None:
                continue
            if name in problems:
                lights[site.led] = PROBLEM
            elif name in self.machine.measured:
                lights[site.led] = DONE
        current = self.machine.current
        if current is not None and current.led is not None and self.machine.phase == "waiting":
            lights[current.led] = ASK
        self.link.send_plan(LedPlan.from_mapping(profile.leds, lights))
