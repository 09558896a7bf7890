"""Players' clocks: sudden death, Fischer increment, Bronstein delay, or a per-turn timer.

A pure core with the time passed in (``now``, seconds on a monotonic clock): the session
says whose clock runs (the seat to move, or none while the board is unplugged, a count is
offered or the game is over) and asks whose flag fell. Nothing here sleeps or reads a
clock itself.

- ``sudden``: each player has ``base_s`` for the whole game.
- ``fischer``: ``extra_s`` is added to a player's clock each time their turn ends with a
  move.
- ``bronstein``: the time a turn used, up to ``extra_s``, is given back when it ends with
  a move (a quick move costs nothing; the clock never gains).
- ``turn``: every turn starts with ``base_s`` (Colovini and Empire in Space tables that
  prefer a per-turn timer to a game clock).

When a clock reaches zero the flag falls; ``flag`` says what then happens: ``lose`` (that
player loses), ``score`` (the game ends and the score so far decides) or ``warn`` (the
page and the sound say so; play goes on).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from meridian_table.i18n import _, seat_word
from meridian_table.store import events as ev
from meridian_table.table.ending import best_of
from meridian_table.table.presenter import ClockPanel

KINDS = ("sudden", "fischer", "bronstein", "turn")
FLAG_RULES = ("lose", "score", "warn")
#: Below this many seconds a clock is "low": the page shows it and sounds once.
DEFAULT_LOW_S = 10.0

_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$")


class ClockError(ValueError):
    """A clock description that cannot be read; the message shows how to write one."""


def parse_duration(text: str, what: str, bare: str = "m") -> float:
    """``"5m"``, ``"90s"``, ``"1m30s"``, ``"1h"``, or a bare number (``bare``'s unit)."""
    value = text.strip().lower()
    try:
        number = float(value)
    except ValueError:
        match = _DURATION.match(value)
        if not value or match is None or not any(match.groups()):
            raise ClockError(
                f"{what} {text!r} is not a time; write it like 5m, 90s, 1m30s or 1h"
            ) from None
        hours, minutes, seconds = (float(g) if g else 0.0 for g in match.groups())
        return hours * 3600 + minutes * 60 + seconds
    if number != number or number in (float("inf"), float("-inf")):  # NaN or infinite
        raise ClockError(f"{what} {text!r} is not a time; write it like 5m or 90s")
    return number * (60.0 if bare == "m" else 1.0)


@dataclass(frozen=True)
class ClockRule:
    """How the clocks run (see the module docstring)."""

    kind: str
    base_s: float
    extra_s: float = 0.0
    flag: str = "lose"
    low_s: float = DEFAULT_LOW_S
    #: Show low time on the board too: the mover's steady lights breathe instead.
    leds: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ClockError(f"clock {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.flag not in FLAG_RULES:
            raise ClockError(f"flag rule {self.flag!r} is not one of {', '.join(FLAG_RULES)}")
        if not 1 <= self.base_s <= 24 * 3600:
            raise ClockError(f"clock time {self.base_s:g} s: give between 1 s and 24 h")
        if not 0 <= self.extra_s <= 3600:
            raise ClockError(f"clock increment or delay {self.extra_s:g} s: give 0 to 1 h")
        if self.kind in ("sudden", "turn") and self.extra_s:
            raise ClockError(
                f"a {self.kind} clock has no increment or delay; use fischer:... or "
                "bronstein:... for one"
            )

    @classmethod
    def parse(cls, text: str, flag: str = "lose", low_s: float = DEFAULT_LOW_S,
              leds: bool = False) -> ClockRule:
        """``KIND:TIME[+EXTRA]``: ``sudden:10m``, ``fischer:5m+3s``, ``bronstein:5m+5s``,
        ``turn:90s``. A bare time is minutes (the extra: seconds)."""
        kind, sep, rest = text.strip().partition(":")
        kind = kind.lower()
        if not sep or kind not in KINDS:
            raise ClockError(
                f"clock {text!r}: write KIND:TIME[+EXTRA] with KIND one of "
                f"{', '.join(KINDS)}, e.g. fischer:5m+3s, bronstein:5m+5s, sudden:10m or turn:90s"
            )
        base, plus, extra = rest.partition("+")
        base_s = parse_duration(base, "clock time")
        extra_s = parse_duration(extra, "clock increment", bare="s") if plus else 0.0
        return cls(kind, base_s, extra_s, flag, low_s, leds)

    def words(self) -> str:
        """The rule in words for the page: "Fischer 5 min + 3 s"."""
        base = _span(self.base_s)
        extra = _span(self.extra_s)
        if self.kind == "fischer":
            return _("Fischer {base} + {extra} a move").format(base=base, extra=extra)
        if self.kind == "bronstein":
            return _("Bronstein {base}, {extra} delay").format(base=base, extra=extra)
        if self.kind == "turn":
            return _("{base} a turn").format(base=base)
        return _("{base} each").format(base=base)

    def to_setting(self) -> dict[str, Any]:
        """As logged in the game's settings (and given back by :meth:`from_setting`)."""
        return {"kind": self.kind, "base_s": self.base_s, "extra_s": self.extra_s,
                "flag": self.flag, "low_s": self.low_s, "leds": self.leds}

    @classmethod
    def from_setting(cls, value: object) -> ClockRule | None:
        """The logged rule, or None when the game has no clock."""
        if not isinstance(value, Mapping):
            return None
        return cls(str(value["kind"]), float(value["base_s"]), float(value.get("extra_s", 0)),
                   str(value.get("flag", "lose")), float(value.get("low_s", DEFAULT_LOW_S)),
                   bool(value.get("leds", False)))


def _span(seconds: float) -> str:
    whole = int(round(seconds))
    if whole >= 60 and whole % 60 == 0:
        return f"{whole // 60} min"
    if whole >= 60:
        return f"{whole // 60} min {whole % 60} s"
    return f"{seconds:g} s"


@dataclass
class Clocks:
    """Each seat's remaining time; at most one runs."""

    rule: ClockRule
    seats: tuple[str, ...]
    remaining: dict[str, float] = field(default_factory=dict)
    running: str | None = None
    #: When the running clock started this turn, and what it held then.
    started_at: float = 0.0
    held: float = 0.0
    #: Whose turn the clocks last ran for (a per-turn timer restarts only for a new turn).
    turn_of: str | None = None

    def __post_init__(self) -> None:
        for seat in self.seats:
            self.remaining.setdefault(seat, self.rule.base_s)

    def left(self, seat: str, now: float) -> float:
        """Seconds left on ``seat``'s clock at ``now`` (negative once its flag fell)."""
        if seat != self.running:
            return self.remaining[seat]
        return self.held - max(0.0, now - self.started_at)

    def flagged(self, now: float) -> str | None:
        """The running seat whose time ran out, else None (a Bronstein delay counts)."""
        if self.running is None:
            return None
        grace = self.rule.extra_s if self.rule.kind == "bronstein" else 0.0
        return self.running if self.left(self.running, now) + grace <= 0 else None

    def run(self, seat: str | None, now: float, moved: bool) -> None:
        """Stop the running clock (with its increment or delay when its turn ended with
        a move) and start ``seat``'s (None: no clock runs, e.g. while paused)."""
        if self.running is not None:
            used = max(0.0, now - self.started_at)
            left = self.held - used
            if moved and self.rule.kind == "fischer":
                left += self.rule.extra_s
            elif moved and self.rule.kind == "bronstein":
                left += min(used, self.rule.extra_s)
            self.remaining[self.running] = left
        if seat is not None and self.rule.kind == "turn" and (moved or seat != self.turn_of):
            self.remaining[seat] = self.rule.base_s
        if seat is not None:
            self.turn_of = seat
        self.running = seat if seat in self.remaining else None
        if self.running is not None:
            self.started_at = now
            self.held = self.remaining[self.running]

    def low(self, now: float) -> bool:
        """The running clock is under the rule's low mark (and not yet out)."""
        if self.running is None:
            return False
        return 0 < self.left(self.running, now) <= self.rule.low_s

    def snapshot(self, now: float) -> dict[str, Any]:
        """What the log keeps: each seat's time left (ms precision) and whose runs."""
        return {"remaining": {s: round(self.left(s, now), 3) for s in self.seats},
                "running": self.running}

    def restore(self, logged: Mapping[str, Any]) -> None:
        """Take the times of a logged snapshot (the clock that ran is started again by
        the session once the board is back)."""
        remaining = logged.get("remaining")
        if isinstance(remaining, Mapping):
            for seat, value in remaining.items():
                if seat in self.remaining and isinstance(value, int | float):
                    self.remaining[seat] = float(value)
        running = logged.get("running")
        self.turn_of = running if isinstance(running, str) else None
        self.running = None


#: How often the ticker looks at a running clock, and how often the times are logged (a
#: ``clock`` event), so a process killed mid-turn resumes within a second of the truth.
CLOCK_TICK_S = 0.1
CLOCK_SAVE_S = 0.5


class GameLike(Protocol):
    """What a flag fall asks of the game (``games.board.Adapter``)."""

    @property
    def colours(self) -> tuple[str, ...]: ...

    def scores(self) -> dict[str, Any]: ...

    def adjudicate(self) -> dict[str, Any] | None: ...


class TableClocks:
    """The players' clocks as the table keeps them: whose runs (a turn that ends with a
    move gets its increment), flags that fell under the ``warn`` rule, the mover's
    lights breathing when low, and a snapshot to log now and then."""

    def __init__(self, rule: ClockRule, seats: tuple[str, ...],
                 logged: Mapping[str, Any] | None, moves: int, now: float) -> None:
        self.clocks = Clocks(rule, seats)
        if logged is not None:
            self.clocks.restore(logged)
        self.moves = moves
        self.saved_at = now
        self.time_up: set[str] = set()  # seats whose flag fell under the "warn" rule
        self.low_leds = False  # the mover's lights breathe: their clock is low

    @property
    def rule(self) -> ClockRule:
        return self.clocks.rule

    @property
    def running(self) -> str | None:
        return self.clocks.running

    def snapshot(self, now: float) -> dict[str, Any]:
        return self.clocks.snapshot(now)

    def sync(self, mover: str | None, moves: int, now: float) -> None:
        """Run ``mover``'s clock; a turn that ended with a move gets its increment."""
        moved = moves > self.moves
        self.moves = moves
        if mover != self.clocks.running or moved:
            self.clocks.run(mover, now, moved)

    def fallen(self, now: float) -> str | None:
        """The running seat whose flag just fell (not one already noted), else None."""
        seat = self.clocks.flagged(now)
        return seat if seat is not None and seat not in self.time_up else None

    def leds_turned(self, now: float) -> bool:
        """True when the mover's lights must start or stop breathing."""
        if self.rule.leds and self.clocks.low(now) != self.low_leds:
            self.low_leds = not self.low_leds
            return True
        return False

    def save_due(self, now: float) -> dict[str, Any] | None:
        """The snapshot to log when the last is old enough, else None."""
        if now - self.saved_at < CLOCK_SAVE_S:
            return None
        self.saved_at = now
        return self.clocks.snapshot(now)

    def flag_result(self, seat: str, game: GameLike) -> dict[str, Any] | None:
        """How the game ends on ``seat``'s flag by the rule (None: it does not end)."""
        label = seat_word(seat)
        rule = self.rule.flag
        if rule == "score":
            count = game.adjudicate()
            if count is None:
                return None
            return dict(count, reason=_("{seat}'s time ran out; the count decides: "
                                        "{reason}").format(
                seat=label, reason=count.get("reason", "")).rstrip(": "))
        if rule == "lose":
            others = [c for c in game.colours if c != seat]
            return {"winner": best_of(others, game.scores()), "reason": _("{seat}'s time ran out").format(seat=label),
                    "scores": game.scores()}
        return None

    def time_up_note(self, seat: str, now: float) -> ev.Note:
        """The ``note`` logged when ``seat``'s time is up and the game goes on."""
        self.time_up.add(seat)
        return ev.Note(_("{seat}'s time is up").format(seat=seat_word(seat)),
                       extra={"clock": seat, "clocks": self.clocks.snapshot(now)})

    def breathing(self, now: float) -> bool:
        """Whether the steady lights breathe now (the mover's time is low)."""
        if not self.rule.leds:
            return False
        self.low_leds = self.clocks.low(now)
        return self.low_leds

    def panel(self, now: float) -> ClockPanel:
        """The page's clock panel (presenter.ClockPanel)."""
        clocks = self.clocks
        return {
            "rule": self.rule.to_setting(),
            "words": self.rule.words(),
            "low_s": self.rule.low_s,
            "running": clocks.running,
            "seats": {seat: {"remaining_s": round(clocks.left(seat, now), 3),
                             "time_up": seat in self.time_up
                             or (clocks.left(seat, now) <= 0 and seat != clocks.running)}
                      for seat in clocks.seats},
        }


__all__ = ["CLOCK_SAVE_S", "CLOCK_TICK_S", "FLAG_RULES", "KINDS", "ClockError", "ClockRule",
           "Clocks", "TableClocks", "parse_duration"]
