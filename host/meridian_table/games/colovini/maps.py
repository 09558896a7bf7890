"""Island maps of Colovini's Meridian, read from TOML files the user can edit.

The printed board's island map is not public, so the companion reads it from a file
(the shipped samples in this package's ``data/maps/*.toml``, or the user's own; see
docs/games/colovini.md for the format). A map lists the side (5 or 4 cities per
meridian), each meridian's cities from north (top) to south, each city's island and
capital flag, and optional island names and values.

City ids are ``"<meridian>.<index>"`` with the index counted from the north edge
(docs/ARCHITECTURE.md): ``"3.1"`` is the northernmost city of meridian 3.
"""

from __future__ import annotations

import logging
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from meridian_table import datafile
from meridian_table.resources import package_path
from meridian_table.textload import toml_loads

LOGGER = logging.getLogger(__name__)

MERIDIANS = 10
SIDES = (5, 4)
MIN_CAPITAL_ISLAND = 4
MAX_ISLAND_VALUE = 100  # points; an island is worth its few cities, a typo is not
MAX_NAME = 40  # characters of an island's name
ISLAND_KEYS = ("name", "value")


def maps_dir() -> Path:
    """The folder of the shipped sample maps (this package's ``data/maps``)."""
    return package_path(__package__ or "meridian_table.games.colovini", "data", "maps")


def shipped_maps() -> tuple[str, ...]:
    """The names of the shipped maps (``sample-40``, ``sample-50``)."""
    return tuple(sorted(p.stem for p in maps_dir().glob("*.toml")))


class MapError(ValueError):
    """A map file is malformed or breaks a rule. The message names file, line and fix."""

    def __init__(self, source: str, line: int | None, problem: str, fix: str) -> None:
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {problem}. Fix: {fix}")
        self.source = source
        self.line = line
        self.problem = problem
        self.fix = fix


@dataclass(frozen=True)
class City:
    """One city: its id, meridian (1..10), index from the north (1..side), island, capital."""

    id: str
    meridian: int
    index: int
    island: str
    capital: bool

    @property
    def strength(self) -> int:
        """A garrison here counts 2 in a capital and 1 elsewhere."""
        return 2 if self.capital else 1


@dataclass(frozen=True)
class Island:
    """An island: its key in the file, display name, city ids and value in points."""

    key: str
    name: str
    cities: tuple[str, ...]
    value: int


@dataclass(frozen=True)
class BoardMap:
    """A validated map. Build it with :func:`parse_map` or :func:`load_map`."""

    name: str
    side: int
    cities: Mapping[str, City]
    islands: Mapping[str, Island]
    #: The TOML text the map was read from: a game logs it, so it replays without the file.
    text: str = field(default="", repr=False, compare=False)

    def city(self, meridian: int, index: int) -> City:
        return self.cities[city_id(meridian, index)]

    def meridian(self, meridian: int) -> tuple[City, ...]:
        """The cities of one meridian, north to south."""
        return tuple(self.city(meridian, i) for i in range(1, self.side + 1))

    def island_of(self, city: str) -> Island:
        return self.islands[self.cities[city].island]

    def __repr__(self) -> str:
        return f"<BoardMap {self.name!r} side={self.side} islands={len(self.islands)}>"


def city_id(meridian: int, index: int) -> str:
    """The site name of a city: meridian 1..10, index 1..side from the north."""
    return f"{meridian}.{index}"


def split_city(city: str) -> tuple[int, int]:
    """``"3.2"`` -> ``(3, 2)``. Raises ValueError naming the bad id."""
    match = re.fullmatch(r"(\d{1,2})\.(\d)", city.strip())
    if not match:
        raise ValueError(f"city {city!r} is not '<meridian>.<index>' like '3.2'")
    return int(match.group(1)), int(match.group(2))


def _line_of(text: str, pattern: str, section: str | None = None) -> int | None:
    """The 1-based line of the first line matching ``pattern`` (inside ``section``)."""
    current: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = re.fullmatch(r"\[\s*([^\]]+?)\s*\]", stripped)
        if header:
            current = header.group(1).replace('"', "").replace(" ", "")
            if section is None and re.match(pattern, stripped):
                return number
            continue
        if (section is None or current == section) and re.match(pattern, stripped):
            return number
    return None


def _key_line(text: str, section: str, key: str) -> int | None:
    return _line_of(text, rf'"?{re.escape(key)}"?\s*=', section)


def _duplicate_meridians(text: str, source: str) -> None:
    """A meridian listed twice defines its cities twice; tomllib's message is terse."""
    seen: dict[int, int] = {}
    current: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.split("#", 1)[0].strip()
        header = re.fullmatch(r"\[\s*([^\]]+?)\s*\]", stripped)
        if header:
            current = header.group(1).strip()
            continue
        if current != "meridians":
            continue
        key = re.match(r'"?0*(\d+)"?\s*=', stripped)
        if not key:
            continue
        meridian = int(key.group(1))
        if meridian in seen:
            raise MapError(
                source,
                number,
                f"duplicate city: meridian {meridian} is listed again (first on line "
                f"{seen[meridian]}), so cities {meridian}.1 and on are defined twice",
                "keep one line per meridian under [meridians]",
            )
        seen[meridian] = number


def _parse_city(entry: Any, where: str, source: str, line: int | None) -> tuple[str, bool]:
    if isinstance(entry, str):
        key = entry.strip()
        capital = key.endswith("*")
        key = key.rstrip("*").strip()
    elif isinstance(entry, dict):
        key = entry.get("island", "")
        capital = entry.get("capital", False)
        extra = sorted(set(entry) - {"island", "capital"})
        if not isinstance(key, str) or not isinstance(capital, bool) or extra:
            raise MapError(
                source, line, f"city {where} is {entry!r}",
                'write {island = "D"} or {island = "D", capital = true} (capital is true or false)',
            )
        key = key.strip()
    else:
        raise MapError(
            source, line, f"city {where} is {entry!r}",
            'write the island key, e.g. "A", or "A*" for a capital',
        )
    if not re.fullmatch(r"[A-Za-z0-9_-]+", key):
        raise MapError(
            source, line, f"city {where} names island {key!r}",
            "use an island key of letters, digits, '-' or '_' (add '*' for a capital)",
        )
    return key, capital


def parse_map(text: str, source: str = "<map>", name: str | None = None) -> BoardMap:
    """Parse and validate a map from TOML text. Raises MapError with source and line."""
    try:
        _duplicate_meridians(text, source)
        data = toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        # Python 3.11's tomllib puts the position only in the message
        found = re.search(r"at line (\d+)", str(exc))
        line = int(found.group(1)) if found else None
        raise MapError(source, line, f"not valid TOML ({exc})", "correct the syntax there") from exc
    for extra in sorted(set(data) - {"side", "islands", "meridians"}):
        raise MapError(
            source, _line_of(text, rf'"?{re.escape(extra)}"?\s*=|\[\s*"?{re.escape(extra)}'),
            f"key {extra!r} is not known", "a map holds only side, [islands.X] and [meridians]",
        )
    side = data.get("side")
    if side not in SIDES:
        raise MapError(
            source, _line_of(text, r"side\s*="), f"side is {side!r}",
            "set side = 5 (the 2/4-player side) or side = 4 (the 3-player side)",
        )
    meridians = data.get("meridians")
    if not isinstance(meridians, dict):
        raise MapError(
            source, None, "there is no [meridians] table",
            'add [meridians] with lines like 1 = ["A", "B*", ...] listing cities north to south',
        )
    cities: dict[str, City] = {}
    for key, entries in meridians.items():
        line = _key_line(text, "meridians", key)
        if not (key.isdigit() and 1 <= int(key) <= MERIDIANS):
            raise MapError(source, line, f"meridian {key!r} is not 1..10", "number meridians 1 to 10")
        meridian = int(key)
        if not isinstance(entries, list) or len(entries) != side:
            count = len(entries) if isinstance(entries, list) else "no"
            raise MapError(
                source, line,
                f"wrong city count: meridian {meridian} lists {count} cities but this side has {side}",
                f"list exactly {side} cities, north to south",
            )
        for index, entry in enumerate(entries, start=1):
            cid = city_id(meridian, index)
            island, capital = _parse_city(entry, cid, source, line)
            cities[cid] = City(cid, meridian, index, island, capital)
    missing = [m for m in range(1, MERIDIANS + 1) if str(m) not in meridians]
    if missing:
        raise MapError(
            source, _line_of(text, r"\[\s*meridians\s*\]"),
            f"wrong city count: meridians {missing} are missing ({len(cities)} cities, "
            f"expected {MERIDIANS * side})",
            "list all 10 meridians under [meridians]",
        )
    return _build(text, source, name or Path(source).stem, side, cities, data.get("islands", {}))


def _build(
    text: str, source: str, name: str, side: int, cities: dict[str, City], table: Any
) -> BoardMap:
    if not isinstance(table, dict):
        raise MapError(source, _line_of(text, r"islands\s*="), "islands is not a table",
                       "write [islands.A] sections with optional name and value")
    members: dict[str, list[City]] = {}
    for city in cities.values():
        members.setdefault(city.island, []).append(city)
    for key in members:
        if key not in table:
            city = min(members[key], key=lambda c: (c.meridian, c.index))
            raise MapError(
                source, _key_line(text, "meridians", str(city.meridian)),
                f"key meridians.{city.meridian}: city {city.id} names island {key!r}, which "
                f"has no [islands.{key}] section (a typo would make a one-city island)",
                f"add an [islands.{key}] section, or correct the island's letter",
            )
    for key in table:
        if key not in members:
            raise MapError(
                source, _line_of(text, rf"\[\s*islands\.\"?{re.escape(key)}\"?\s*\]") or
                _key_line(text, "islands", key),
                f"island {key!r} is described but no city belongs to it",
                "remove its section or assign cities to it under [meridians]",
            )
    islands: dict[str, Island] = {}
    for key in sorted(members):
        group = sorted(members[key], key=lambda c: (c.meridian, c.index))
        _check_island(text, source, key, group)
        info = table[key]
        if not isinstance(info, dict):
            raise MapError(
                source, _line_of(text, rf'islands\.\"?{re.escape(key)}\"?\s*=') or
                _line_of(text, r"\[\s*islands\s*\]"),
                f"key islands.{key} is {info!r:.40}, not a section",
                f'write [islands.{key}] with name = "..." and, if needed, value = N',
            )
        for extra in sorted(set(info) - set(ISLAND_KEYS)):
            raise MapError(
                source, _key_line(text, f"islands.{key}", extra),
                f"key islands.{key}.{extra} is not known",
                f"an island section holds only {' and '.join(ISLAND_KEYS)}",
            )
        value = info.get("value", len(group))
        if (not isinstance(value, int) or isinstance(value, bool)
                or not 0 <= value <= MAX_ISLAND_VALUE):
            raise MapError(
                source, _key_line(text, f"islands.{key}", "value"),
                f"key islands.{key}.value: island {key!r} has value {value!r:.40}",
                f"give a whole number of points from 0 to {MAX_ISLAND_VALUE}, or leave it "
                "out to count its cities",
            )
        label = info.get("name", key)
        if not isinstance(label, str) or not label.strip() or len(label) > MAX_NAME:
            raise MapError(
                source, _key_line(text, f"islands.{key}", "name"),
                f"key islands.{key}.name is {label!r:.50}",
                f'write the island\'s name in quotes, up to {MAX_NAME} characters, e.g. '
                f'name = "Dunmar"',
            )
        islands[key] = Island(key, label.strip(), tuple(c.id for c in group), value)
    board = BoardMap(name, side, dict(sorted(cities.items(), key=lambda kv: split_city(kv[0]))),
                     islands, text)
    LOGGER.debug("loaded map %s: %d cities, %d islands", name, len(cities), len(islands))
    return board


def _check_island(text: str, source: str, key: str, group: list[City]) -> None:
    seen: dict[int, City] = {}
    for city in group:
        if city.meridian in seen:
            other = seen[city.meridian]
            raise MapError(
                source, _key_line(text, "meridians", str(city.meridian)),
                f"island {key!r} has two cities on meridian {city.meridian} "
                f"({other.id} and {city.id}); a player could hold both with one card",
                f"give {city.id} or {other.id} to another island",
            )
        seen[city.meridian] = city
    capitals = [c for c in group if c.capital]
    if capitals and len(group) < MIN_CAPITAL_ISLAND:
        raise MapError(
            source, _key_line(text, "meridians", str(capitals[0].meridian)),
            f"capital on a small island: {capitals[0].id} is a capital of island {key!r}, "
            f"which has only {len(group)} cities",
            f"capitals stand only on islands of {MIN_CAPITAL_ISLAND} or more cities: "
            f"drop the '*' or enlarge the island",
        )


def resolve_map(name_or_path: str | Path) -> Path:
    """A shipped map name (``"sample-50"``) or a path -> the file's path."""
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        return path
    shipped = maps_dir() / f"{name_or_path}.toml"
    if shipped.exists():
        return shipped
    known = shipped_maps()
    raise MapError(
        str(name_or_path), None, "no such map file or shipped map",
        f"give a path to a .toml map or one of: {', '.join(known) or '(none found)'}",
    )


def load_map(name_or_path: str | Path) -> BoardMap:
    """Read and validate a map file (or a shipped map by name, e.g. ``"sample-50"``)."""
    path = resolve_map(name_or_path)
    try:
        text = datafile.read_text(path, what="map")
    except datafile.DataFileError as exc:
        raise MapError(str(path), None, exc.problem, exc.fix) from None
    return parse_map(text, source=str(path), name=path.stem)
