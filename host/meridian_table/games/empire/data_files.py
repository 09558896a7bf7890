"""The board map and the card set of Empire in Space, parsed from TOML text and checked.

Pure: this module turns text into frozen objects and never opens a file (``files.py``
does). Every problem is a :class:`DataError` that names the file, the line, the key and
a fix; a file either loads whole or not at all (nothing is half-loaded).

Formats: docs/games/empire.md ("Data formats"). The effect vocabulary of abilities is
in ``effects.py``.
"""

from __future__ import annotations

import logging
import re
import tomllib
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from meridian_table.games.empire.effects import Effect, EffectError, parse_ability
from meridian_table.textload import toml_loads

LOGGER = logging.getLogger(__name__)

SECTORS = 8
QUADRANTS_PER_SECTOR = 4
RINGS = ("yellow", "white", "orange")
MOON_RING = "grey"
#: The book's component list: 11 planet cards (4 yellow, 4 white, 3 orange as the board
#: profile reads the misprint) and 15 moon cards.
PLANET_COUNTS = {"yellow": 4, "white": 4, "orange": 3}
MOON_CARDS = 15
INNER_PLANETS = ("New Earth", "Slate", "Concordia", "Nexus")


class DataError(ValueError):
    """A map or card file that is malformed or breaks a rule: file, line, key and fix."""

    def __init__(self, source: str, line: int | None, key: str, problem: str, fix: str) -> None:
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {key}: {problem}. Fix: {fix}")
        self.source = source
        self.line = line
        self.key = key
        self.problem = problem
        self.fix = fix


class DataErrors(DataError):
    """Every problem found in one file (``empire check`` prints them all), one a line."""

    def __init__(self, errors: list[DataError]) -> None:
        first = errors[0]
        super().__init__(first.source, first.line, first.key, first.problem, first.fix)
        self.errors = tuple(errors)
        self.args = ("\n".join(str(e) for e in errors),)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


# --- the board map ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Quadrant:
    id: str
    sector: int
    capacity: int
    centre: bool
    adjacent: tuple[str, ...]


@dataclass(frozen=True)
class Body:
    """A planet area (ring yellow, white or orange) or a moon (ring grey)."""

    id: str
    ring: str
    orbit: tuple[str, ...]
    borders: tuple[int, ...]

    @property
    def is_moon(self) -> bool:
        return self.ring == MOON_RING


@dataclass(frozen=True)
class BoardMap:
    name: str
    title: str
    quadrants: Mapping[str, Quadrant]
    bodies: Mapping[str, Body]
    #: quadrant -> quadrant -> steps (shortest path, ignoring ships; the centre is no edge)
    distance: Mapping[str, Mapping[str, int]]
    #: quadrant -> the bodies it orbits
    orbiting: Mapping[str, tuple[str, ...]]

    def body_distance(self, a: str, b: str) -> int:
        """Steps between two bodies: the fewest quadrant steps from an orbit quadrant of
        ``a`` to an orbit quadrant of ``b`` (0 when their orbits share a quadrant)."""
        return min(self.distance[x][y] for x in self.bodies[a].orbit for y in self.bodies[b].orbit)

    def sites(self) -> tuple[str, ...]:
        """The board profile's sites: the quadrants, then the bodies (profile order)."""
        return quadrant_ids() + tuple(self.bodies)


def quadrant_ids() -> tuple[str, ...]:
    """``S1Q1`` ... ``S8Q4``."""
    return tuple(
        f"S{s}Q{q}" for s in range(1, SECTORS + 1) for q in range(1, QUADRANTS_PER_SECTOR + 1)
    )


def sector_of(quadrant: str) -> int:
    return int(quadrant[1:quadrant.index("Q")])


# --- the card set ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Card:
    """A planet, moon, waypoint, event or guild card."""

    kind: str  # planet, moon, waypoint, event, guild
    name: str
    text: str = ""
    ring: str = ""
    cost: int = 0
    production: int = 0
    capacity: int = 0
    inner: bool = False
    ability: tuple[Effect, ...] = ()


@dataclass(frozen=True)
class CardSet:
    name: str
    title: str
    planets: Mapping[str, Card]
    moons: Mapping[str, Card]
    waypoints: Mapping[str, Card]
    events: Mapping[str, Card]
    guilds: Mapping[str, Card]

    def card(self, name: str) -> Card:
        for table in (self.planets, self.moons, self.waypoints, self.events, self.guilds):
            if name in table:
                return table[name]
        raise KeyError(name)


# --- helpers: TOML with line numbers -----------------------------------------------------------


class _Source:
    """The text of one file, to find the line of a key."""

    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name
        self._lines = text.splitlines()
        #: Problems found so far: a file is checked whole, every error kept.
        self.problems: list[DataError] = []

    @contextmanager
    def each(self) -> Iterator[None]:
        """Check one entry: a problem is kept and the checking goes on to the next."""
        try:
            yield
        except DataErrors as exc:
            self.problems.extend(exc.errors)
        except DataError as exc:
            self.problems.append(exc)

    def stop_if_wrong(self) -> None:
        """Raise every problem kept so far (what follows needs the earlier parts whole)."""
        if self.problems:
            raise DataErrors(list(self.problems))

    def line(self, section: str | None, key: str | None = None) -> int | None:
        """The line of ``key`` in table ``[section]`` (or of the header without a key)."""
        current: str | None = None
        for number, raw in enumerate(self._lines, start=1):
            stripped = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("[") else ""
            header = re.fullmatch(r"\[\s*([^\]]+?)\s*\]", stripped)
            if header:
                current = header.group(1).strip()
                if key is None and current == section:
                    return number
                continue
            if key is not None and current == section:
                if re.match(rf'\s*"?{re.escape(key)}"?\s*=', raw):
                    return number
        return None

    def error(self, section: str | None, key: str | None, shown: str, problem: str,
              fix: str) -> DataError:
        return DataError(self.name, self.line(section, key), shown, problem, fix)


def _load_toml(text: str, source: str) -> dict[str, Any]:
    try:
        return toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+)", str(exc))
        line = int(found.group(1)) if found else None
        raise DataError(source, line, "(syntax)", f"not valid TOML ({exc})",
                        "correct the syntax on that line") from None


def _int(value: object, src: _Source, section: str, key: str, shown: str,
         low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise src.error(section, key, shown, f"is {value!r}",
                        f"write a whole number from {low} to {high}")
    return value


def _table(data: Mapping[str, Any], key: str, src: _Source, fix: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict) or not value:
        raise src.error(key, None, f"[{key}]", "is missing or empty", fix)
    return value


def _fields(entry: object, src: _Source, section: str, key: str, allowed: set[str],
            required: set[str]) -> dict[str, Any]:
    shown = f"{section}.{key}"
    if not isinstance(entry, dict):
        raise src.error(section, key, shown, f"is {entry!r}, not a table",
                        "write it as an inline table: { field = value, ... }")
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise src.error(section, key, f"{shown}.{unknown[0]}", "is not a known field",
                        f"use only {', '.join(sorted(allowed))}")
    missing = sorted(required - set(entry))
    if missing:
        raise src.error(section, key, f"{shown}.{missing[0]}", "is missing",
                        f"add {missing[0]} = ...")
    return entry


def _header(data: Mapping[str, Any], src: _Source) -> tuple[str, str]:
    if data.get("format") != 1:
        raise src.error(None, "format", "format", f"is {data.get('format')!r}",
                        "start the file with format = 1")
    name = data.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise src.error(None, "name", "name", f"is {name!r}",
                        'write name = "my-board" (letters, digits, . - _)')
    title = data.get("title", name)
    if not isinstance(title, str):
        raise src.error(None, "title", "title", f"is {title!r}", 'write title = "..."')
    return name, title


# --- parsing the map ---------------------------------------------------------------------------


def _quadrants(data: Mapping[str, Any], src: _Source) -> dict[str, Quadrant]:
    table = _table(data, "quadrants", src, "add [quadrants] with one line per quadrant S1Q1..S8Q4")
    expected = quadrant_ids()
    for key in table:
        if key not in expected:
            raise src.error("quadrants", key, f"quadrants.{key}", "is not a quadrant",
                            "name quadrants S<sector 1-8>Q<quadrant 1-4>, e.g. S3Q2")
    missing = [q for q in expected if q not in table]
    if missing:
        raise src.error("quadrants", None, f"quadrants.{missing[0]}", "is missing",
                        f"add a line for each of the 32 quadrants ({len(missing)} missing)")
    out: dict[str, Quadrant] = {}
    for key in expected:
        with src.each():
            out[key] = _quadrant(table[key], key, expected, src)
    src.stop_if_wrong()
    for key, quad in out.items():
        for other in quad.adjacent:
            with src.each():
                _adjacency(key, quad, out[other], src)
    src.stop_if_wrong()
    return out


def _quadrant(raw: object, key: str, expected: tuple[str, ...], src: _Source) -> Quadrant:
    entry = _fields(raw, src, "quadrants", key, {"capacity", "centre", "adjacent"},
                    {"capacity", "adjacent"})
    capacity = _int(entry["capacity"], src, "quadrants", key, f"quadrants.{key}.capacity", 1, 9)
    centre = entry.get("centre", False)
    if not isinstance(centre, bool):
        raise src.error("quadrants", key, f"quadrants.{key}.centre", f"is {centre!r}",
                        "write centre = true or centre = false")
    adjacent = entry["adjacent"]
    if (not isinstance(adjacent, list) or not adjacent
            or not all(isinstance(a, str) and a in expected and a != key for a in adjacent)
            or len(set(adjacent)) != len(adjacent)):
        raise src.error("quadrants", key, f"quadrants.{key}.adjacent", f"is {adjacent!r}",
                        "list the other quadrants it touches, each once, e.g. [\"S1Q2\", \"S1Q3\"]")
    return Quadrant(key, sector_of(key), capacity, centre, tuple(adjacent))


def _adjacency(key: str, quad: Quadrant, near: Quadrant, src: _Source) -> None:
    other = near.id
    if key not in near.adjacent:
        raise src.error("quadrants", key, f"quadrants.{key}.adjacent",
                        f"lists {other}, but {other} does not list {key}",
                        f"add \"{key}\" to {other}'s adjacent list, or remove \"{other}\" here")
    a, b = quad.sector, near.sector
    neighbours = a == b or (a - b) % SECTORS in (1, SECTORS - 1)
    if quad.centre and near.centre and not neighbours:
        raise src.error("quadrants", key, f"quadrants.{key}.adjacent",
                        f"joins {key} to {other} across the centre, which no ship may cross",
                        f"remove \"{other}\" (centre quadrants touch only neighbouring sectors)")
    if not neighbours:
        raise src.error("quadrants", key, f"quadrants.{key}.adjacent",
                        f"joins sector {a} to sector {b}, which are not neighbours",
                        "a quadrant touches its own sector and the two next to it")


def _distances(quadrants: Mapping[str, Quadrant]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for start in quadrants:
        seen = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for nxt in quadrants[here].adjacent:
                if nxt not in seen:
                    seen[nxt] = seen[here] + 1
                    queue.append(nxt)
        out[start] = seen
    return out


def _bodies(data: Mapping[str, Any], src: _Source,
            quadrants: Mapping[str, Quadrant]) -> dict[str, Body]:
    table = _table(data, "bodies", src, "add [bodies] with one line per planet area and moon")
    out: dict[str, Body] = {}
    for key, raw in table.items():
        with src.each():
            out[key] = _body(key, raw, src, quadrants)
    src.stop_if_wrong()
    return _body_counts(out, src)


def _connected(orbit: tuple[str, ...], quadrants: Mapping[str, Quadrant]) -> bool:
    """The orbit's quadrants touch one another (no body sits on two sides at once)."""
    seen = {orbit[0]}
    todo = [orbit[0]]
    while todo:
        here = todo.pop()
        for other in orbit:
            if other not in seen and other in quadrants[here].adjacent:
                seen.add(other)
                todo.append(other)
    return len(seen) == len(orbit)


def _body(key: str, raw: object, src: _Source, quadrants: Mapping[str, Quadrant]) -> Body:
    entry = _fields(raw, src, "bodies", key, {"ring", "orbit", "borders"},
                    {"ring", "orbit", "borders"})
    ring = entry["ring"]
    if ring not in (*RINGS, MOON_RING):
        raise src.error("bodies", key, f"bodies.{key}.ring", f"is {ring!r}",
                        "use yellow, white or orange for a planet area, grey for a moon")
    pattern = r"moon\.\d+" if ring == MOON_RING else rf"planet\.{ring}\.\d+"
    if not re.fullmatch(pattern, key):
        raise src.error("bodies", key, f"bodies.{key}", f"does not match its ring {ring!r}",
                        "name planet areas planet.<ring>.<n> and moons moon.<n>, as the "
                        "board profile's sites")
    orbit = entry["orbit"]
    if (not isinstance(orbit, list) or not 2 <= len(orbit) <= 4
            or not all(isinstance(q, str) and q in quadrants for q in orbit)
            or len(set(orbit)) != len(orbit)):
        raise src.error("bodies", key, f"bodies.{key}.orbit", f"is {orbit!r}",
                        "list the 2 to 4 quadrants around the body, e.g. [\"S1Q1\", \"S1Q2\"]")
    borders = entry["borders"]
    if (not isinstance(borders, list) or not 1 <= len(borders) <= 2
            or not all(isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= SECTORS
                       for s in borders) or len(set(borders)) != len(borders)):
        raise src.error("bodies", key, f"bodies.{key}.borders", f"is {borders!r}",
                        "list the one or two sectors (1-8) the body borders")
    if not _connected(tuple(orbit), quadrants):
        raise src.error("bodies", key, f"bodies.{key}.orbit",
                        f"is {orbit!r}: its quadrants do not touch one another (a body "
                        "cannot orbit on opposite sides)",
                        "list only the 2 to 4 quadrants right around the body; each must "
                        "be adjacent to another of them")
    sectors = {quadrants[q].sector for q in orbit}
    if sectors != set(borders):
        raise src.error("bodies", key, f"bodies.{key}.borders",
                        f"says {sorted(borders)} but the orbit lies in sectors {sorted(sectors)}",
                        f"write borders = {sorted(sectors)} or correct the orbit")
    return Body(key, ring, tuple(orbit), tuple(borders))


def _body_counts(out: dict[str, Body], src: _Source) -> dict[str, Body]:
    counts = {ring: sum(1 for b in out.values() if b.ring == ring) for ring in RINGS}
    if counts != PLANET_COUNTS:
        raise src.error("bodies", None, "bodies",
                        f"has {counts['yellow']} yellow, {counts['white']} white and "
                        f"{counts['orange']} orange planet areas",
                        "the book places its 11 planet tokens on 4 yellow, 4 white and 3 orange areas")
    moons = sum(1 for b in out.values() if b.is_moon)
    if not 1 <= moons <= MOON_CARDS:
        raise src.error("bodies", None, "bodies", f"has {moons} moons",
                        f"the box has {MOON_CARDS} moon cards: use 1 to {MOON_CARDS} moons")
    for prefix, total in [(f"planet.{r}.", counts[r]) for r in RINGS] + [("moon.", moons)]:
        numbers = sorted(int(k[len(prefix):]) for k in out if k.startswith(prefix))
        if numbers != list(range(1, total + 1)):
            first = next(k for k in out if k.startswith(prefix))
            raise src.error("bodies", first, f"bodies.{first}",
                            f"the {prefix}<n> numbers are {numbers}",
                            f"number them 1 to {total}, as the board profile's sites")
    # Profile order: yellow, white, orange planets by number, then moons by number.
    def order(body: Body) -> tuple[int, int]:
        rank = 3 if body.is_moon else RINGS.index(body.ring)
        return rank, int(body.id.rsplit(".", 1)[1])

    return {b.id: b for b in sorted(out.values(), key=order)}


def parse_map(text: str, source: str = "<map>") -> BoardMap:
    """A checked board map from TOML text; DataError names file, line, key and fix."""
    src = _Source(text, source)
    data = _load_toml(text, source)
    name, title = _header(data, src)
    unknown = sorted(set(data) - {"format", "name", "title", "ours", "quadrants", "bodies"})
    if unknown:
        raise src.error(None, unknown[0], unknown[0], "is not a known key",
                        "use format, name, title, ours, [quadrants] and [bodies]")
    quadrants = _quadrants(data, src)
    bodies = _bodies(data, src, quadrants)
    orbiting = {q: tuple(b.id for b in bodies.values() if q in b.orbit) for q in quadrants}
    LOGGER.debug("map %s: %d quadrants, %d bodies", name, len(quadrants), len(bodies))
    return BoardMap(name, title, quadrants, bodies, _distances(quadrants), orbiting)


# --- parsing the cards -------------------------------------------------------------------------


def _ability(entry: Mapping[str, Any], src: _Source, section: str, key: str,
             kind: str) -> tuple[Effect, ...]:
    try:
        return parse_ability(entry.get("ability", []), kind)
    except EffectError as exc:
        raise src.error(section, key, f"{section}.{key}.ability{exc.where}", exc.problem,
                        exc.fix) from None


def _text(entry: Mapping[str, Any], src: _Source, section: str, key: str) -> str:
    text = entry.get("text", "")
    if not isinstance(text, str):
        raise src.error(section, key, f"{section}.{key}.text", f"is {text!r}", 'write text = "..."')
    return text


def _planets(data: Mapping[str, Any], src: _Source) -> dict[str, Card]:
    table = _table(data, "planets", src, "add [planets] with one line per planet card")
    out: dict[str, Card] = {}
    for key, raw in table.items():
        with src.each():
            out[key] = _planet(key, raw, src)
    src.stop_if_wrong()
    return _planet_counts(out, src)


#: "SETTLE Planet or Moon 2E/4E/6E" (the costs table).
PLANET_COSTS = (2, 4, 6)


def _planet(key: str, raw: object, src: _Source) -> Card:
    entry = _fields(raw, src, "planets", key,
                    {"ring", "cost", "production", "capacity", "inner", "text", "ability"},
                    {"ring", "cost", "production", "capacity"})
    ring = entry["ring"]
    if ring not in RINGS:
        raise src.error("planets", key, f"planets.{key}.ring", f"is {ring!r}",
                        "use yellow, white or orange (the ring of the areas it may lie on)")
    inner = entry.get("inner", False)
    if not isinstance(inner, bool):
        raise src.error("planets", key, f"planets.{key}.inner", f"is {inner!r}",
                        "write inner = true for New Earth, Slate, Concordia and Nexus")
    cost = _int(entry["cost"], src, "planets", key, f"planets.{key}.cost", 0, 20)
    if cost not in PLANET_COSTS:
        raise src.error("planets", key, f"planets.{key}.cost", f"is {cost}",
                        "the costs table prices a settle at 2E, 4E or 6E: write cost = 2, "
                        "4 or 6")
    return Card(
        "planet", key, _text(entry, src, "planets", key), ring, cost,
        _int(entry["production"], src, "planets", key, f"planets.{key}.production", 0, 9),
        _int(entry["capacity"], src, "planets", key, f"planets.{key}.capacity", 1, 9),
        inner, _ability(entry, src, "planets", key, "planet"),
    )


def _planet_counts(out: dict[str, Card], src: _Source) -> dict[str, Card]:
    counts = {ring: sum(1 for c in out.values() if c.ring == ring) for ring in RINGS}
    if counts != PLANET_COUNTS:
        raise src.error("planets", None, "planets",
                        f"has {counts['yellow']} yellow, {counts['white']} white and "
                        f"{counts['orange']} orange planets",
                        "give 4 yellow, 4 white and 3 orange planets, one per area of the map")
    inner_names = sorted(c.name for c in out.values() if c.inner)
    if len(inner_names) != 4:
        raise src.error("planets", None, "planets.*.inner",
                        f"marks {len(inner_names)} inner planets ({', '.join(inner_names) or 'none'})",
                        "mark exactly four planets inner = true (infection mode needs them)")
    return out


def _simple(data: Mapping[str, Any], src: _Source, section: str, kind: str,
            extra: set[str]) -> dict[str, Card]:
    table = data.get(section, {})
    if not isinstance(table, dict):
        raise src.error(section, None, f"[{section}]", "is not a table", f"write [{section}]")
    out: dict[str, Card] = {}
    for key, raw in table.items():
        with src.each():
            out[key] = _simple_card(key, raw, src, section, kind, extra)
    return out


def _simple_card(key: str, raw: object, src: _Source, section: str, kind: str,
                 extra: set[str]) -> Card:
    entry = _fields(raw, src, section, key, {"text", "ability", *extra},
                    extra - {"name"} if kind == "moon" else set())
    if kind == "moon":
        return Card(
            "moon", key, _text(entry, src, section, key), MOON_RING,
            _int(entry["cost"], src, section, key, f"{section}.{key}.cost", 0, 20),
            _int(entry["production"], src, section, key, f"{section}.{key}.production", 0, 9),
            _int(entry["capacity"], src, section, key, f"{section}.{key}.capacity", 1, 9),
            False, _ability(entry, src, section, key, "moon"),
        )
    title = entry.get("name", key)
    if not isinstance(title, str):
        raise src.error(section, key, f"{section}.{key}.name", f"is {title!r}",
                        'write name = "..."')
    return Card(kind, key, _text(entry, src, section, key), "", 0, 0, 0, False,
                _ability(entry, src, section, key, kind))


def parse_cards(text: str, source: str = "<cards>") -> CardSet:
    """A checked card set from TOML text; DataError names file, line, key and fix."""
    src = _Source(text, source)
    data = _load_toml(text, source)
    name, title = _header(data, src)
    known = {"format", "name", "title", "ours", "planets", "moons", "waypoints", "events", "guilds"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise src.error(None, unknown[0], unknown[0], "is not a known key",
                        "use format, name, title, ours, [planets], [moons], [waypoints], "
                        "[events] and [guilds]")
    planets: dict[str, Card] = {}
    with src.each():
        planets = _planets(data, src)
    moons: dict[str, Card] = {}
    with src.each():
        moons = _simple(data, src, "moons", "moon", {"cost", "production", "capacity"})
        if not moons and not data.get("moons"):
            raise src.error("moons", None, "[moons]", "is missing or empty",
                            "add [moons] with one line per moon card")
    waypoints: dict[str, Card] = {}
    events: dict[str, Card] = {}
    guilds: dict[str, Card] = {}
    with src.each():
        waypoints = _simple(data, src, "waypoints", "waypoint", set())
    with src.each():
        events = _simple(data, src, "events", "event", set())
    with src.each():
        guilds = _simple(data, src, "guilds", "guild", {"name"})
    names: dict[str, str] = {}
    for section, table in (("planets", planets), ("moons", moons), ("waypoints", waypoints),
                           ("events", events), ("guilds", guilds)):
        for key in table:
            with src.each():
                if key in names:
                    raise src.error(section, key, f"{section}.{key}",
                                    f"has the same name as a card in [{names[key]}]",
                                    "give every card its own name")
                names[key] = section
                if not re.fullmatch(r"[A-Za-z][A-Za-z0-9 '_-]*", key):
                    raise src.error(section, key, f"{section}.{key}", "is not a usable card name",
                                    "use letters, digits, spaces, ' - _, starting with a letter")
    src.stop_if_wrong()
    return CardSet(name, title, planets, moons, waypoints, events, guilds)


def check_pair(board: BoardMap, cards: CardSet, map_source: str, cards_source: str) -> None:
    """The map and the cards must fit each other: enough moon cards for the moons."""
    moons = sum(1 for b in board.bodies.values() if b.is_moon)
    if len(cards.moons) < moons:
        raise DataError(cards_source, None, "moons",
                        f"has {len(cards.moons)} moon cards but {map_source} has {moons} moons",
                        f"add {moons - len(cards.moons)} moon cards or remove moons from the map")


__all__ = [
    "INNER_PLANETS",
    "MOON_RING",
    "RINGS",
    "SECTORS",
    "Body",
    "BoardMap",
    "Card",
    "CardSet",
    "DataError",
    "DataErrors",
    "Quadrant",
    "check_pair",
    "parse_cards",
    "parse_map",
    "quadrant_ids",
    "sector_of",
]
