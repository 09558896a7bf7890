"""Calibration: find out which matrix position each site's switch really is.

A pure state machine, driven by events and free of I/O, so it can be tested with a
script and driven by ``meridian-table calibrate`` against a real or virtual board:

Every step is said to the maker, and a fault is reported only when it is real:

1. ``start(closed, now_ms)`` with the board's occupancy. Before any prompt, every
   closed switch must open: the machine asks to lift it (``AwaitRelease``, phase
   "clearing"): a magnet left from a paused run, or a neighbour that a double
   closed and is still letting go. Only a switch that stays closed after the maker
   says it is clear (``skip()``) is flagged **stuck**.
2. For each step (every site in LED order, then every button) the machine emits a
   ``Prompt``: the shell lights that site's LED and asks for a magnet (or a press).
3. ``switch(pos, closed, now_ms)``: the first switch to close is recorded for the
   prompted site. It is flagged **cross-wired** when that position already belongs
   to another step of this run, or when the profile expected it for another site
   (the wires are swapped, or the board was labelled differently). Then the machine
   says "lift it now" (``AwaitRelease``) and waits for it to open; a second switch
   closing meanwhile is a **double**.
4. ``tick(now_ms)``: time is counted from the last thing the maker was told. After
   ``timeout_ms`` without the awaited change, a ``Reminder`` repeats the request once
   and says how to give up; it is not a fault (slow hands are not a broken board).
5. ``skip()``: the maker gives up. While a magnet is asked for, the step is skipped
   and flagged **dead** (nothing closed at all); while a lift is awaited, the switch
   still closed is flagged **stuck** (the maker says the magnet is off). Each skip
   says so (``Skipped``).
6. ``result_profile()`` gives the measured profile. A skipped site keeps its old
   position when nothing else took it; otherwise it moves to a free position (no
   switch is wired there, so it senses nothing until repaired) and the flag says so.

``to_progress()`` / ``from_progress()`` persist a half-done run so it can resume.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from meridian_table.profiles.loader import profile_from_dict
from meridian_table.profiles.model import Profile

LOGGER = logging.getLogger(__name__)

DEFAULT_TIMEOUT_MS = 30_000
PROGRESS_FORMAT = 1

FlagKind = Literal["stuck", "dead", "cross-wired", "double"]
Phase = Literal["idle", "clearing", "waiting", "releasing", "done"]


class CalibrationError(ValueError):
    """The calibration cannot go on as asked (a bad progress file, an event out of turn)."""


@dataclass(frozen=True)
class Step:
    """One thing to calibrate: a site (with its LED, if any) or a button."""

    name: str
    kind: Literal["site", "button"]
    led: int | None
    expected_pos: int


@dataclass(frozen=True)
class Flag:
    """A wiring problem found during calibration, in words for the maker."""

    kind: FlagKind
    name: str          # the step it was found at ("" for a stuck switch found at start)
    pos: int | None
    detail: str


@dataclass(frozen=True)
class Prompt:
    """Light ``step.led`` and ask for a magnet on (or a press of) ``step.name``."""

    step: Step
    index: int   # 0-based
    total: int


@dataclass(frozen=True)
class Recorded:
    """``name`` is wired to matrix position ``pos``."""

    name: str
    pos: int


@dataclass(frozen=True)
class AwaitRelease:
    """Ask the maker to lift the magnet (or let go of the button) at ``pos``."""

    name: str
    pos: int


@dataclass(frozen=True)
class Flagged:
    flag: Flag


@dataclass(frozen=True)
class Reminder:
    """The awaited change has not come within the timeout: say the request again."""

    name: str          # the step ("" while clearing a switch nobody owns)
    pos: int | None    # the switch still closed, or None while waiting for a magnet
    text: str


@dataclass(frozen=True)
class Skipped:
    """The maker skipped ``name`` (it keeps or loses its position, see ``moved()``)."""

    name: str
    why: str


@dataclass(frozen=True)
class Finished:
    """Every step has a result (recorded or skipped)."""

    recorded: int
    skipped: int


Effect = Prompt | Recorded | AwaitRelease | Flagged | Finished | Reminder | Skipped


class Calibration:
    """The calibration state machine for one profile. See the module docstring."""

    def __init__(
        self,
        profile: Profile,
        *,
        include_buttons: bool = True,
        only: Iterable[str] | None = None,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
    ) -> None:
        if timeout_ms <= 0:
            raise CalibrationError(f"timeout {timeout_ms} ms must be positive; 30000 is the default")
        self.profile = profile
        self.timeout_ms = timeout_ms
        steps = [
            Step(name, "site", site.led, site.pos)
            for name, site in sorted(
                profile.sites.items(),
                key=lambda kv: (kv[1].led is None, kv[1].led or 0, kv[0]),
            )
        ]
        if include_buttons:
            steps += [Step(name, "button", None, pos) for name, pos in profile.buttons.items()]
        if only is not None:
            wanted = list(only)
            known = {s.name for s in steps}
            unknown = [w for w in wanted if w not in known]
            if unknown:
                raise CalibrationError(
                    f"{', '.join(unknown)} is not a site or button of {profile.name}; "
                    f"names look like {', '.join(list(known)[:3])}"
                )
            steps = [s for s in steps if s.name in set(wanted)]
        self.steps: tuple[Step, ...] = tuple(steps)
        self._expected_owner = {s.expected_pos: s.name for s in self._all_steps()}
        self.index = 0
        self.phase: Phase = "idle"
        self.measured: dict[str, int] = {}
        self.skipped: list[str] = []
        self.flags: list[Flag] = []
        self.closed: set[int] = set()
        self.stuck: set[int] = set()
        self._since = 0
        self._reminded = False
        self._holding: int | None = None

    def _all_steps(self) -> list[Step]:
        return [Step(n, "site", s.led, s.pos) for n, s in self.profile.sites.items()] + [
            Step(n, "button", None, p) for n, p in self.profile.buttons.items()
        ]

    # -- state -------------------------------------------------------------------------

    @property
    def current(self) -> Step | None:
        """The step being asked for, or None when idle or done."""
        if self.phase in ("clearing", "waiting", "releasing") and self.index < len(self.steps):
            return self.steps[self.index]
        return None

    @property
    def done(self) -> bool:
        return self.phase == "done"

    def owner_of(self, pos: int) -> str | None:
        """The step already measured at ``pos`` in this run (or kept from the profile)."""
        for name, measured in self.measured.items():
            if measured == pos:
                return name
        return None

    # -- events ------------------------------------------------------------------------

    def start(self, closed: Iterable[int], now_ms: int) -> list[Effect]:
        """Begin (or resume) with the board's current occupancy."""
        if self.phase != "idle":
            raise CalibrationError("start() was called twice; create a new Calibration")
        self.closed = set(closed)
        return self._prompt(now_ms)

    def switch(self, pos: int, closed: bool, now_ms: int) -> list[Effect]:
        """A switch changed (a SENSE event)."""
        if closed:
            self.closed.add(pos)
        else:
            self.closed.discard(pos)
            if pos in self.stuck:
                # It opened after all: it works, but it was closed at the wrong time.
                self.stuck.discard(pos)
                LOGGER.info("position %d opened; no longer treated as stuck", pos)
        if self.phase == "clearing":
            if closed and pos not in self.stuck:
                return [self._lift(pos, now_ms)]
            if not self._unexplained():
                return self._prompt(now_ms)
            return []
        if self.phase == "waiting" and closed and pos not in self.stuck:
            return self._record(pos, now_ms)
        if self.phase == "releasing":
            if not closed and pos == self._holding:
                return self._advance(now_ms)
            if closed and pos != self._holding and pos not in self.stuck:
                step = self.steps[self.index]
                owner = self._name_at(pos)
                detail = (
                    f"position {pos}{f' ({owner})' if owner else ''} closed while the magnet "
                    f"was on {step.name}: the magnet reaches two switches, or a diode is missing"
                )
                flag = Flag("double", step.name, pos, detail)
                self.flags.append(flag)
                return [Flagged(flag)]
        return []

    def snapshot(self, closed: Iterable[int], now_ms: int) -> list[Effect]:
        """The whole occupancy (after a reconnect): replay it as changes."""
        new = set(closed)
        effects: list[Effect] = []
        for pos in sorted(self.closed - new):
            effects += self.switch(pos, False, now_ms)
        for pos in sorted(new - self.closed):
            effects += self.switch(pos, True, now_ms)
        return effects

    def tick(self, now_ms: int) -> list[Effect]:
        """Time passes: after ``timeout_ms`` without the awaited change, remind once."""
        if now_ms - self._since < self.timeout_ms or self._reminded:
            return []
        step = self.steps[self.index] if self.index < len(self.steps) else None
        if step is None:
            return []
        seconds = self.timeout_ms // 1000
        if self.phase == "waiting":
            self._reminded = True
            what = "pressed" if step.kind == "button" else "given a magnet"
            return [Reminder(step.name, None,
                             f"nothing has closed in {seconds} s since {step.name} was {what}: "
                             f"check the magnet is on {step.name}, or skip it (a dead switch)")]
        if self.phase in ("releasing", "clearing"):
            self._reminded = True
            pos = self._holding if self.phase == "releasing" else min(self._unexplained())
            owner = self._name_at(pos) if pos is not None else None
            where = f"position {pos}{f' ({owner})' if owner else ''}"
            return [Reminder(step.name if self.phase == "releasing" else "", pos,
                             f"{where} is still closed {seconds} s after it was to be "
                             "lifted: lift the magnet; if nothing is on it, skip (the "
                             "switch is stuck)")]
        return []

    def skip(self, now_ms: int) -> list[Effect]:
        """The maker gives up on the current request; see the module docstring."""
        if self.phase == "waiting":
            step = self.steps[self.index]
            self.skipped.append(step.name)
            effects: list[Effect] = []
            if step.expected_pos not in self.stuck:
                what = "pressed" if step.kind == "button" else "given a magnet"
                flag = Flag(
                    "dead", step.name, None,
                    f"nothing closed after {step.name} was {what}: check its switch, "
                    "diode and solder joints (docs/MAKERS.md, a dead row or column)",
                )
                self.flags.append(flag)
                effects.append(Flagged(flag))
            effects.append(Skipped(step.name, "nothing closed"))
            return effects + self._advance(now_ms)
        if self.phase == "releasing":
            step = self.steps[self.index]
            effects = []
            if self._holding is not None and self._holding in self.closed:
                effects.append(self._flag_stuck(self._holding, step.name,
                                                "stayed closed after the magnet was lifted"))
            return effects + self._advance(now_ms)
        if self.phase == "clearing":
            step = self.steps[self.index]
            effects = [self._flag_stuck(pos, "", f"stayed closed with no magnet on it "
                                                f"(before {step.name} was asked for)")
                       for pos in sorted(self._unexplained())]
            return effects + self._prompt(now_ms)
        raise CalibrationError(f"nothing to skip while {self.phase}")

    # -- internals ---------------------------------------------------------------------

    def _name_at(self, pos: int) -> str | None:
        return self.owner_of(pos) or self._expected_owner.get(pos)

    def _flag_stuck(self, pos: int, name: str, why: str) -> Flagged:
        self.stuck.add(pos)
        owner = self._expected_owner.get(pos)
        flag = Flag(
            "stuck", name, pos,
            f"position {pos}{f' (expected for {owner})' if owner else ''} {why}: a magnet "
            "left nearby, a welded reed or a short; fix it and calibrate that site again",
        )
        self.flags.append(flag)
        return Flagged(flag)

    def _record(self, pos: int, now_ms: int) -> list[Effect]:
        step = self.steps[self.index]
        effects: list[Effect] = []
        claimed = self.owner_of(pos)
        if claimed is not None:
            flag = Flag(
                "cross-wired", step.name, pos,
                f"{step.name} closed position {pos}, which {claimed} already closed: both "
                "reach the same switch (a short between their wires, or the magnet was on "
                f"the wrong site); {step.name} is left for a later run",
            )
            self.flags.append(flag)
            self.skipped.append(step.name)
            self._holding = pos
            self.phase = "releasing"
            self._since = now_ms
            self._reminded = False
            return [Flagged(flag), AwaitRelease(step.name, pos)]
        expected_for = self._expected_owner.get(pos)
        if expected_for is not None and expected_for != step.name:
            flag = Flag(
                "cross-wired", step.name, pos,
                f"{step.name} closed position {pos}, the switch the profile expected for "
                f"{expected_for}: their wires are swapped; recorded as measured",
            )
            self.flags.append(flag)
            effects.append(Flagged(flag))
        self.measured[step.name] = pos
        effects.append(Recorded(step.name, pos))
        self._holding = pos
        self.phase = "releasing"
        self._since = now_ms
        self._reminded = False
        effects.append(AwaitRelease(step.name, pos))
        return effects

    def _advance(self, now_ms: int) -> list[Effect]:
        self.index += 1
        self._holding = None
        return self._prompt(now_ms)

    def _unexplained(self) -> set[int]:
        """Closed switches that should not be: everything closed but the known-stuck."""
        return self.closed - self.stuck

    def _lift(self, pos: int, now_ms: int) -> AwaitRelease:
        self._since = now_ms
        self._reminded = False
        return AwaitRelease(self._name_at(pos) or "", pos)

    def _prompt(self, now_ms: int) -> list[Effect]:
        # Resuming skips the steps a previous run already finished.
        while self.index < len(self.steps) and (
            self.steps[self.index].name in self.measured
            or self.steps[self.index].name in self.skipped
        ):
            self.index += 1
        self._since = now_ms
        self._reminded = False
        if self.index >= len(self.steps):
            self.phase = "done"
            return [Finished(len(self.measured), len(self.skipped))]
        if self._unexplained():
            # A magnet still down (a paused run, a double's neighbour letting go): ask
            # for it to be lifted before the next prompt, instead of calling it stuck.
            self.phase = "clearing"
            return [self._lift(pos, now_ms) for pos in sorted(self._unexplained())]
        self.phase = "waiting"
        step = self.steps[self.index]
        return [Prompt(step, self.index, len(self.steps))]

    # -- results -----------------------------------------------------------------------

    def positions(self) -> dict[str, int]:
        """Every site and button's position after this run (measured, kept or moved)."""
        out: dict[str, int] = {}
        taken = set(self.measured.values())
        pending: list[Step] = []
        for step in self._all_steps():
            if step.name in self.measured:
                out[step.name] = self.measured[step.name]
            elif step.expected_pos not in taken:
                out[step.name] = step.expected_pos
                taken.add(step.expected_pos)
            else:
                pending.append(step)
        # Spare positions first (no site was ever wired there), then any position
        # still free; rows x cols >= steps is checked when the profile loads.
        wired = set(self._expected_owner)
        spare = [p for p in range(self.profile.positions) if p not in taken and p not in wired]
        rest = [p for p in range(self.profile.positions) if p not in taken and p in wired]
        free = iter(spare + rest)
        for step in pending:
            out[step.name] = next(free)
            taken.add(out[step.name])
        return out

    def moved(self) -> dict[str, int]:
        """Steps not measured whose old position was taken: where they were moved to."""
        positions = self.positions()
        return {
            s.name: positions[s.name]
            for s in self._all_steps()
            if s.name not in self.measured and positions[s.name] != s.expected_pos
        }

    def result_profile(self) -> Profile:
        """The profile with the measured positions (validated like any loaded profile)."""
        data = self.profile.to_dict()
        positions = self.positions()
        for name, entry in data["sites"].items():
            entry["pos"] = positions[name]
        for name in data["buttons"]:
            data["buttons"][name] = positions[name]
        source = str(self.profile.path or self.profile.name)
        return profile_from_dict(data, source, path=self.profile.path)

    # -- persistence -------------------------------------------------------------------

    def to_progress(self) -> dict[str, Any]:
        """A JSON-able record of this run, for ``from_progress`` after an interruption."""
        return {
            "format": PROGRESS_FORMAT,
            "profile": self.profile.name,
            "steps": [s.name for s in self.steps],
            "measured": dict(self.measured),
            "skipped": list(self.skipped),
            "flags": [
                {"kind": f.kind, "name": f.name, "pos": f.pos, "detail": f.detail}
                for f in self.flags
            ],
        }

    @classmethod
    def from_progress(
        cls, profile: Profile, progress: dict[str, Any], *, timeout_ms: int = DEFAULT_TIMEOUT_MS
    ) -> Calibration:
        """Resume a run saved by ``to_progress``; finished steps are not asked again."""
        if not isinstance(progress, dict) or progress.get("format") != PROGRESS_FORMAT:
            raise CalibrationError(
                f"the progress record is not format {PROGRESS_FORMAT}; delete it and start again"
            )
        if progress.get("profile") != profile.name:
            raise CalibrationError(
                f"the progress record is for board {progress.get('profile')!r}, not "
                f"{profile.name!r}; pass the matching --profile or delete the progress file"
            )
        steps = progress.get("steps")
        if not isinstance(steps, list):
            raise CalibrationError("the progress record has no step list; delete it and start again")
        buttons = any(s in profile.buttons for s in steps)
        try:
            machine = cls(profile, include_buttons=buttons, only=steps, timeout_ms=timeout_ms)
        except CalibrationError as exc:
            raise CalibrationError(f"the progress record does not fit {profile.name}: {exc}") from exc
        measured = progress.get("measured", {})
        skipped = progress.get("skipped", [])
        if not isinstance(measured, dict) or not isinstance(skipped, list):
            raise CalibrationError("the progress record is damaged; delete it and start again")
        for name, pos in measured.items():
            if name not in steps or not isinstance(pos, int) or not 0 <= pos < profile.positions:
                raise CalibrationError(
                    f"the progress record measures {name!r} at {pos!r}, which does not fit "
                    f"{profile.name}; delete it and start again"
                )
        machine.measured = dict(measured)
        machine.skipped = [s for s in skipped if isinstance(s, str)]
        for raw in progress.get("flags", []):
            if isinstance(raw, dict):
                machine.flags.append(
                    Flag(raw.get("kind", "dead"), str(raw.get("name", "")), raw.get("pos"),
                         str(raw.get("detail", "")))
                )
        return machine
