"""Realistic hands at a board: a seeded generator of timed switch traces, one per turn.

The model (docs/TABLE.md, "The hand model") turns one turn of a game, the action a
player means, into what the reed switches see. Each trace is seeded by ``(seed, game,
number)``, so the same seed gives the same corpus on every machine.

What a turn does to the board comes from the game's adapter, never from a game name:
the sites that empty, fill or change piece (``expected()`` and ``pieces()`` before and
after ``play``), which sites are neighbours (``neighbours()``), whether pieces stack
(``stacked``) and what a person answers besides moving pieces (``person_inputs``).

One pattern shapes the last piece the hand puts down (the new piece):

- ``clean``: it lands and stays;
- ``slide``: it lands 1-3 neighbouring empty points away and is dragged over them to
  its point (20-120 ms on each, the next switch closing as the last one opens);
- ``hesitate``: a hand resting 50-400 ms on the way: mid-slide, or hovering over the
  point (the reed closing for 5-25 ms as the magnet comes near) before landing;
- ``lift``: it lands on its point or a neighbour, is lifted 50-250 ms later and put
  down on its point 100-400 ms after that;
- ``two``: a second piece lands on another empty point 0-40 ms apart, and is lifted
  again 0.7-1.2 s later (the player sees two and takes the stray one back);
- ``knock``: the hand knocks a neighbouring piece: it rocks (its switch opens 5-60 ms)
  or is shoved onto an empty neighbour and slid back 0.4-0.9 s later;
- ``tower`` (games whose pieces stack): the piece is the base of a tower, 1-3 more
  pieces go on 150-450 ms apart, each rocking the tower (5-40 ms open).

Moving other pieces (a pushed tower) comes first, 150-450 ms apart.
Every switch transition chatters 0-3 times within 1.5 ms (reed bounce). Pieces the
table asks to take off afterwards (dead stones) are not in the trace: whoever replays
it follows the board's guidance, as a player does.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from meridian_table.games import registry
from meridian_table.games.board import Adapter, History
from meridian_table.games.contract import OptionValue
from meridian_table.games.registry import create_adapter as create

#: The patterns and how often each comes (per 100 traces); ``tower`` only where pieces
#: stack.
WEIGHTS: Mapping[str, int] = {
    "clean": 25, "slide": 15, "hesitate": 15, "lift": 15, "two": 10, "knock": 20,
}
TOWER_WEIGHT = 30
PATTERNS = (*WEIGHTS, "tower")


@dataclass(frozen=True)
class Step:
    """One switch transition: ``t_ms`` after the trace starts, ``site`` opens or closes."""

    t_ms: float
    site: str
    closed: bool


@dataclass(frozen=True)
class Trace:
    """One turn at the board: the action the player means and what the hand does."""

    game: str
    seed: int
    number: int
    pattern: str
    action: str
    #: What the player answers besides moving pieces (``("button", "pass")`` presses).
    inputs: tuple[tuple[str, str], ...]
    steps: tuple[Step, ...]
    #: The site of the new piece (where its tentative cue must show), if any.
    target: str | None
    #: The moment the new piece lands for good (the switch change a commit is timed from).
    landed_ms: float | None
    #: A new game starts with this trace (the corpus plays games one after another).
    new_game: bool = False
    #: The new piece lands on an empty site (its switch closes: the cue shows there).
    fresh: bool = True
    #: The game's options (a seeded deal where the game deals: the same game each run).
    options: tuple[tuple[str, OptionValue], ...] = ()

    @property
    def counted(self) -> bool:
        """A turn that moves a piece (a pass or a swap is a filler, not counted)."""
        return self.target is not None

    def describe(self) -> str:
        return (f"{self.game} trace {self.seed}/{self.number} ({self.pattern}): "
                f"{self.action}")


class _Hand:
    """The timeline of one trace under construction."""

    def __init__(self, rng: random.Random, occupied: set[str]) -> None:
        self.rng = rng
        self.t = 0.0
        self.occupied = set(occupied)
        self.steps: list[Step] = []

    def wait(self, lo: float, hi: float) -> None:
        self.t += self.rng.uniform(lo, hi)

    def switch(self, site: str, closed: bool) -> None:
        """A transition at the current time, with reed chatter before it settles."""
        for _ in range(self.rng.randint(0, 3)):
            self.steps.append(Step(self.t, site, closed))
            self.t += self.rng.uniform(0.1, 0.5)
            self.steps.append(Step(self.t, site, not closed))
            self.t += self.rng.uniform(0.05, 0.3)
        self.steps.append(Step(self.t, site, closed))
        if closed:
            self.occupied.add(site)
        else:
            self.occupied.discard(site)

    def empty_near(self, site: str, neighbours: Mapping[str, frozenset[str]],
                   avoid: set[str]) -> list[str]:
        return sorted(n for n in neighbours.get(site, frozenset())
                      if n not in self.occupied and n not in avoid)


def _path(hand: _Hand, target: str, neighbours: Mapping[str, frozenset[str]],
          length: int) -> list[str]:
    """Empty points leading to ``target`` (a walk away from it, reversed)."""
    path: list[str] = []
    here = target
    for _ in range(length):
        options = hand.empty_near(here, neighbours, {target, *path})
        if not options:
            break
        here = hand.rng.choice(options)
        path.append(here)
    return path[::-1]


def _slide(hand: _Hand, path: list[str], target: str, rest_at: int | None) -> None:
    """Drag a piece from ``path[0]`` over the rest of ``path`` to ``target``."""
    hand.switch(path[0], True)
    for i, (here, there) in enumerate(zip(path, [*path[1:], target], strict=True)):
        hand.wait(20, 120)
        if i == rest_at:
            hand.wait(50, 400)
        if hand.rng.random() < 0.5:   # make before break: the next reed closes first
            hand.switch(there, True)
            hand.wait(0, 8)
            hand.switch(here, False)
        else:
            hand.switch(here, False)
            hand.wait(0, 8)
            hand.switch(there, True)


def _place(hand: _Hand, pattern: str, target: str, neighbours: Mapping[str, frozenset[str]],
           height: int) -> tuple[str, float, list[Step]]:
    """Put the new piece on ``target`` with ``pattern``; returns the pattern used (a
    fallback when the board leaves no room for it), when it landed and the later steps
    (a stray piece lifted, a knocked one put back) to merge in."""
    rng = hand.rng
    later: list[Step] = []
    if pattern in ("slide", "hesitate"):
        length = rng.randint(1, 3) if pattern == "slide" else rng.randint(2, 3)
        path = _path(hand, target, neighbours, length)
        if pattern == "hesitate" and len(path) < 2:
            # No room for a slide: the hand hovers over the point instead.
            hand.switch(target, True)
            hand.wait(5, 25)
            hand.switch(target, False)
            hand.wait(50, 400)
        elif path:
            rest = rng.randint(1, len(path) - 1) if pattern == "hesitate" else None
            _slide(hand, path, target, rest)
            return pattern, hand.t, later
        elif pattern == "slide":
            pattern = "clean"
    elif pattern == "lift":
        first = rng.choice([target, *hand.empty_near(target, neighbours, set())])
        hand.switch(first, True)
        hand.wait(50, 250)
        hand.switch(first, False)
        hand.wait(100, 400)
    elif pattern == "two":
        strays = sorted(set(neighbours) - hand.occupied - {target})
        if strays:
            stray = rng.choice(strays)
            first, second = (target, stray) if rng.random() < 0.5 else (stray, target)
            hand.switch(first, True)
            hand.wait(0, 40)
            hand.switch(second, True)
            landed = hand.t
            t = hand.t + rng.uniform(700, 1200)
            later.append(Step(t, stray, False))
            hand.occupied.discard(stray)
            return pattern, landed, later
        pattern = "clean"
    elif pattern == "knock":
        knocked = sorted(n for n in neighbours.get(target, frozenset()) if n in hand.occupied)
        if knocked:
            victim = rng.choice(knocked)
            room = hand.empty_near(victim, neighbours, {target})
            offset = rng.uniform(-80, 150)
            if room and rng.random() < 0.4:
                # Shoved onto its empty neighbour, then slid back by the player.
                spot = rng.choice(room)
                t0 = hand.t + max(0.0, offset)
                t1 = t0 + rng.uniform(0, 15)
                t2 = t1 + rng.uniform(400, 900)
                later += [Step(t0, victim, False), Step(t1, spot, True),
                          Step(t2, spot, False), Step(t2 + rng.uniform(0, 10), victim, True)]
            else:
                t0 = hand.t + offset
                later += [Step(t0, victim, False), Step(t0 + rng.uniform(5, 60), victim, True)]
            if offset < 0:
                hand.t -= offset  # the knock came first: the piece lands after it
                later = [Step(s.t_ms + offset, s.site, s.closed) for s in later]
        else:
            pattern = "clean"
    hand.switch(target, True)
    landed = hand.t
    if pattern == "tower":
        for _ in range(min(3, max(1, height - 1))):
            hand.wait(150, 450)
            hand.switch(target, False)
            hand.wait(5, 40)
            hand.switch(target, True)
    return pattern, landed, later


def _height(adapter: Adapter, action: str) -> int:
    for field, value in adapter.person_inputs(action):
        if field == "height" and value.isdigit():
            return int(value)
    return 1


def trace_for(history: History, action: str, pattern: str, rng: random.Random,
              seed: int, number: int) -> Trace:
    """The trace of ``action`` made with ``pattern`` from the game's current position
    (played and taken back through ``history``: the game is left unchanged)."""
    adapter = history.adapter
    before = adapter.expected()
    pieces_before = adapter.pieces()
    applied = history.play(action)
    after = adapter.expected()
    pieces_after = adapter.pieces()
    history.undo()
    placed = sorted(applied.placed)
    target = placed[0] if placed else None
    inputs = adapter.person_inputs(action)
    hand = _Hand(rng, set(before))
    if target is None:
        return Trace(adapter.game, seed, number, "filler", action, inputs, (), None, None)
    neighbours = adapter.neighbours()
    changed = sorted(s for s in before & after if pieces_before.get(s) != pieces_after.get(s))
    arrivals = sorted(after - before - {target})
    if target in before:
        changed = [s for s in changed if s != target]
    # A piece moved (a ship taken from its quadrant) is lifted first, then set down.
    for site in adapter.moved_from(action):
        if site in before and site not in after:
            hand.wait(150, 450)
            hand.switch(site, False)
    # Other pieces first: lifted to be moved (a push) and put down. Pieces the move
    # takes off the board (dead stones) are left to the board's guidance afterwards.
    for site in changed + ([target] if target in before else []):
        hand.wait(150, 450)
        hand.switch(site, False)
    for site in arrivals + changed:
        hand.wait(150, 450)
        hand.switch(site, True)
    hand.wait(150, 450) if hand.steps else hand.wait(0, 50)
    if pattern == "tower" and not adapter.stacked:
        pattern = "clean"
    pattern, landed, later = _place(hand, pattern, target, neighbours, _height(adapter, action))
    steps = sorted([*hand.steps, *later], key=lambda s: s.t_ms)
    start = steps[0].t_ms if steps and steps[0].t_ms < 0 else 0.0
    steps = [Step(round(s.t_ms - start, 3), s.site, s.closed) for s in steps]
    return Trace(adapter.game, seed, number, pattern, action, inputs, tuple(steps), target,
                 round(landed - start, 3), fresh=target not in before)


def _choose(adapter: Adapter, rng: random.Random) -> str | None:
    """A turn a person might take: a move that puts a piece down when there is one."""
    legal = list(adapter.engine.legal())
    if not legal:
        return None
    moving = [a for a in legal if _moves_a_piece(adapter, a)]
    passes = [a for a in legal if a == "pass" or a.endswith(":pass")]
    return rng.choice(moving or passes or legal)


def _moves_a_piece(adapter: Adapter, action: str) -> bool:
    inputs = dict(adapter.person_inputs(action))
    if "remove" in inputs or "rebuild" in inputs:
        return False  # a rebuild's answers depend on what the switches see: not modelled
    return action not in ("pass", "swap") and not action.endswith(":pass")


def corpus(game: str, count: int, seed: int = 1,
           options: Mapping[str, OptionValue] | None = None,
           settings: Mapping[str, OptionValue] | None = None,
           variant: Mapping[str, object] | None = None,
           patterns: tuple[str, ...] | None = None) -> Iterator[Trace]:
    """``count`` counted traces of ``game`` (fillers come in between), games played one
    after another with random moves. ``patterns`` restricts the mix (default: all)."""
    rng = random.Random(f"{seed}:{game}")
    made = 0
    number = 0
    dealt = any(o.name == "seed" for o in registry.spec(game).options)
    while made < count:
        chosen: dict[str, OptionValue] = dict(options or {})
        if dealt:
            chosen.setdefault("seed", rng.randrange(2**31))
        adapter = create(game, chosen, dict(settings or {}), variant or {})
        history = History(adapter)  # the game's moves, as a table would keep them
        mix = {k: v for k, v in WEIGHTS.items()}
        if adapter.stacked:
            mix["tower"] = TOWER_WEIGHT
        if patterns is not None:
            mix = {k: v for k, v in mix.items() if k in patterns}
        names, weights = list(mix), list(mix.values())
        first = True
        while made < count and adapter.result() is None:
            action = _choose(adapter, rng)
            if action is None:
                break
            pattern = rng.choices(names, weights)[0]
            trace_rng = random.Random(f"{seed}:{game}:{number}")
            trace = trace_for(history, action, pattern, trace_rng, seed, number)
            if first:
                trace = Trace(**{**trace.__dict__, "new_game": True})
                first = False
            trace = Trace(**{**trace.__dict__, "options": tuple(sorted(chosen.items()))})
            yield trace
            history.play(action)
            number += 1
            made += trace.counted


__all__ = ["PATTERNS", "Step", "Trace", "corpus", "trace_for"]
