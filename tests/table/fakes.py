"""Test doubles for the table: a board that records plans, and a fake clock."""

from __future__ import annotations

from typing import Any

from meridian_table.ledplan import LedPlan
from meridian_table.link.events import LinkState, SenseEvent
from meridian_table.profiles import Profile

# The link's own event classes: the session dispatches on their types.
Sense = SenseEvent
State = LinkState


class FakeClock:
    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class FakeBoard:
    """Implements the BoardLike surface; feeds events to a session by site name."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.state = "connected"
        self.closed: set[int] = set()
        self.plans: list[LedPlan] = []
        self.session: Any = None
        self._seq = 0

    @property
    def occupancy(self) -> frozenset[int]:
        return frozenset(self.closed)

    def send_plan(self, plan: LedPlan) -> None:
        if not self.plans or self.plans[-1] != plan:
            self.plans.append(plan)

    def stats(self) -> dict[str, Any]:
        return {"plans": len(self.plans)}

    def set(self, name: str, closed: bool) -> None:
        pos = self.profile.sites[name].pos if name in self.profile.sites else self.profile.buttons[name]
        if closed:
            self.closed.add(pos)
        else:
            self.closed.discard(pos)
        self._seq += 1
        if self.state == "connected" and self.session is not None:
            self.session.on_link_event(Sense(self._seq, 0, pos, closed))

    def press(self, button: str) -> None:
        self.set(button, True)
        self.set(button, False)

    def unplug(self) -> None:
        self.state = "searching"
        self.session.on_link_event(State("searching", "unplugged"))

    def replug(self) -> None:
        self.state = "connected"
        self.session.on_link_event(State("connected", "back"))

    def light_at(self, site: str) -> tuple[int, str]:
        led = self.profile.sites[site].led
        assert led is not None
        light = self.plans[-1].lights[led]
        return (light.colour, light.effect) if not light.is_off else (0, "O")
