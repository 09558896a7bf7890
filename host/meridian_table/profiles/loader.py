"""Reading and validating board profiles (the ones each game ships in its ``boards/``
folder, or any ``.json``/``.toml`` file).

Validation is complete: a profile that loads can be flashed and played. Every
``ProfileError`` names the file, the dotted key and the fix.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from meridian_fw import wire
from meridian_table import datafile
from meridian_table.profiles import geometry, pico
from meridian_table.profiles.model import (
    FORMAT_VERSION,
    Profile,
    ProfileError,
    ShiftChain,
    Site,
)
from meridian_table.textload import json_loads, toml_loads

LOGGER = logging.getLogger(__name__)

# The firmware's own config checker (MicroPython-dialect code, untyped on purpose, so
# it is imported dynamically and mypy does not hold it to the host's strictness).
fw_config: Any = importlib.import_module("meridian_fw.config")

# Extra directories to search, separated like PATH; searched before the games' own boards.
BOARDS_ENV = "MERIDIAN_TABLE_BOARDS"

SCANNERS = ("matrix", "sr165")
LED_ORDERS = ("GRB", "RGB", "BRG", "RBG", "GBR", "BGR")
POWER_SOURCES = ("usb", "external")
EXTERNAL_SUPPLY_MAX_MA = 10000   # the firmware accepts budgets up to 10 A
DEBOUNCE_SCANS = (2, 15)   # the firmware counts up to 15 equal scans
SCAN_PERIOD_MS = (1, 20)
SETTLE_US = (10, 1000)
DEBOUNCE_WINDOW_MS = (2, 50)
MAX_LEDS = 1024
MAX_CHAIN_BITS = 32 * 30   # the firmware's largest bitmap
SR_US_PER_BIT = 8         # MicroPython bit-banging: read data, clock high, clock low

_TOP_KEYS = (
    "format", "name", "title", "game", "variant", "notes", "pico",
    "matrix", "leds", "power", "debounce", "sites", "buttons",
)
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")


def shipped_dirs() -> list[Path]:
    """The board folders the installed games ship (``GameSpec.boards``), in game id order:
    a game installed from its own package brings its boards with it."""
    from meridian_table.games import registry  # the games register on first use

    return [spec.boards for spec in registry.specs().values()
            if spec.boards is not None and spec.boards.is_dir()]


def search_path() -> list[Path]:
    """Directories searched for a profile given by name, first match wins:
    ``$MERIDIAN_TABLE_BOARDS``, then every installed game's own boards."""
    extra = [Path(p) for p in os.environ.get(BOARDS_ENV, "").split(os.pathsep) if p]
    return [*extra, *shipped_dirs()]


def is_shipped(path: Path) -> bool:
    """Whether ``path`` is one of the profiles an installed game ships (not the user's
    to edit: an upgrade replaces it)."""
    parent = path.resolve().parent
    return any(parent == folder.resolve() for folder in shipped_dirs())


def shipped_profile(name: str) -> Path:
    """The file of the profile ``name`` that an installed game ships; ProfileError when
    no game ships one of that name."""
    for folder in shipped_dirs():
        path = folder / f"{name}.json"
        if path.is_file():
            return path
    raise ProfileError(
        name, "(name)", "no installed game ships a board profile of this name",
        f"use one of {', '.join(list_profiles())}",
    )


def list_profiles() -> list[str]:
    """Names of every profile on the search path."""
    names: set[str] = set()
    for folder in search_path():
        if folder.is_dir():
            names.update(p.stem for p in folder.iterdir() if p.suffix in (".json", ".toml"))
    return sorted(names)


def resolve(name_or_path: str | Path) -> Path:
    """The file for a shipped profile's name or a path; ProfileError when none exists."""
    text = str(name_or_path)
    candidate = Path(text).expanduser()
    looks_like_path = isinstance(name_or_path, Path) or os.sep in text or "/" in text or (
        candidate.suffix in (".json", ".toml")
    )
    if looks_like_path:
        if candidate.exists() and not candidate.is_dir():
            return candidate  # the bounded reader refuses a device or a pipe by name
        if candidate.is_dir():
            raise ProfileError(
                text, "(file)", "is a folder, not a profile file",
                "give the path of a .json or .toml profile inside it",
            )
        raise ProfileError(
            text, "(file)", "no such profile file",
            "check the path, or give a shipped profile's name "
            f"(known: {', '.join(list_profiles())})",
        )
    for folder in search_path():
        for suffix in (".json", ".toml"):
            path = folder / f"{text}{suffix}"
            if path.is_file():
                return path
    raise ProfileError(
        text, "(name)", "no board profile has this name",
        f"use one of {', '.join(list_profiles())}, or a path to a .json/.toml profile",
    )


def load_profile(name_or_path: str | Path) -> Profile:
    """Load and validate a board profile by name (searched in :func:`search_path`) or path."""
    path = resolve(name_or_path)
    source = str(path)
    try:
        raw = datafile.read_bytes(path, what="board profile")
    except datafile.DataFileError as exc:
        raise ProfileError(source, "(file)", exc.problem, exc.fix) from None
    try:
        if path.suffix == ".toml":
            data: Any = toml_loads(raw.decode("utf-8"))
        else:
            data = json_loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ProfileError(
            source, "(file)", f"is not UTF-8 text (byte {exc.start} cannot be read)",
            "save it as UTF-8 text (a profile is a JSON or TOML text file)",
        ) from exc
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(
            source, "(file)", f"is not valid {path.suffix[1:].upper()} ({exc})",
            "fix the syntax at the place named",
        ) from exc
    profile = profile_from_dict(data, source, path=path)
    for warning in profile.warnings:
        LOGGER.debug("%s: %s", source, warning)
    return profile


class _Checker:
    """Typed reads from the raw profile, raising ProfileError that names the key."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, problem: str, fix: str) -> ProfileError:
        return ProfileError(self.source, key, problem, fix)

    def obj(self, data: Mapping[str, Any], key: str, dotted: str) -> Mapping[str, Any]:
        value = data.get(key)
        if not isinstance(value, Mapping):
            raise self.fail(dotted, f"must be an object, found {_show(value)}", f"add a {dotted} object")
        return value

    def integer(
        self, data: Mapping[str, Any], key: str, dotted: str, lo: int, hi: int, fix: str = ""
    ) -> int:
        value = data.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(dotted, f"must be a whole number, found {_show(value)}",
                            fix or f"set it to a number from {lo} to {hi}")
        if not lo <= value <= hi:
            raise self.fail(dotted, f"{value} is outside {lo}..{hi}",
                            fix or f"set it to a number from {lo} to {hi}")
        return value

    def string(self, data: Mapping[str, Any], key: str, dotted: str, choices: tuple[str, ...] = ()) -> str:
        value = data.get(key)
        if not isinstance(value, str) or not value:
            raise self.fail(dotted, f"must be a non-empty string, found {_show(value)}",
                            f"set it to one of {', '.join(choices)}" if choices else "add it")
        if choices and value not in choices:
            raise self.fail(dotted, f"{value!r} is not one of {', '.join(choices)}",
                            f"use one of {', '.join(choices)}")
        return value

    def pin_list(self, data: Mapping[str, Any], key: str, dotted: str, length: int, what: str) -> list[int]:
        value = data.get(key)
        if not isinstance(value, list):
            raise self.fail(dotted, f"must be a list of GPIO numbers, found {_show(value)}",
                            f"list one GPIO per {what}")
        if len(value) != length:
            raise self.fail(dotted, f"lists {len(value)} pins for {length} {what}s",
                            f"list exactly one GPIO per {what} ({length})")
        return [self.pin_value(v, f"{dotted}[{i}]") for i, v in enumerate(value)]

    def pin_value(self, value: Any, dotted: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(dotted, f"must be a GPIO number, found {_show(value)}",
                            "write the GP number as an integer (GP5 is 5)")
        problem = pico.pin_problem(value)
        if problem is not None:
            raise self.fail(dotted, problem, "pick a free GPIO from GP0..GP22 or GP26..GP28")
        return value


def _show(value: Any) -> str:
    if value is None:
        return "nothing"
    text = json.dumps(value) if not isinstance(value, Mapping | list) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def profile_from_dict(data: Any, source: str, path: Path | None = None) -> Profile:
    """Validate the parsed contents of a profile file and build the Profile."""
    check = _Checker(source)
    if not isinstance(data, Mapping):
        raise check.fail("(top level)", "must be an object", "start the file with { and keys")
    unknown = [k for k in data if k not in _TOP_KEYS]
    if unknown:
        raise check.fail(unknown[0], "is not a profile key",
                         f"remove it or fix the spelling (keys: {', '.join(_TOP_KEYS)})")
    if "format" in data:
        check.integer(data, "format", "format", FORMAT_VERSION, FORMAT_VERSION,
                      f"this version of meridian-table reads format {FORMAT_VERSION}; "
                      "upgrade meridian-table or convert the profile")
    name = check.string(data, "name", "name")
    if not _NAME_RE.match(name):
        raise check.fail("name", f"{name!r} is not a board id",
                         "use lower-case letters, digits and '-', at most 32 characters")
    title = data.get("title", name)
    if not isinstance(title, str):
        raise check.fail("title", f"must be a string, found {_show(title)}", "quote it")
    raw_notes = data.get("notes", [])
    if isinstance(raw_notes, str):
        raw_notes = [raw_notes]
    if not isinstance(raw_notes, list) or not all(isinstance(n, str) for n in raw_notes):
        raise check.fail("notes", f"must be a string or a list of strings, found {_show(raw_notes)}",
                         "quote each note")
    notes = tuple(raw_notes)
    model = data.get("pico", pico.ANY_PICO)
    if not isinstance(model, str) or (model != pico.ANY_PICO and model not in pico.MODELS):
        raise check.fail("pico", f"{_show(model)} is not a board the firmware runs on",
                         f"use one of {', '.join(sorted(pico.MODELS))} or {pico.ANY_PICO!r}")
    game = data.get("game")
    if not isinstance(game, str) or game not in geometry.games():
        raise check.fail("game", f"{_show(game)} is not a game this installation knows",
                         f"use one of {', '.join(geometry.games())}")
    variant = check.obj(data, "variant", "variant")
    try:
        expected = geometry.expected_sites(game, variant)
    except geometry.VariantError as exc:
        raise check.fail(exc.key, exc.problem, exc.fix) from exc

    warnings: list[str] = []

    # -- wiring ----------------------------------------------------------------------
    matrix = check.obj(data, "matrix", "matrix")
    scanner = check.string(matrix, "scanner", "matrix.scanner", SCANNERS)
    rows = check.integer(matrix, "rows", "matrix.rows", 1, 26)
    cols = check.integer(
        matrix, "cols", "matrix.cols", 1, pico.MAX_ROW_BITS,
        f"at most {pico.MAX_ROW_BITS} columns keep a row mask a small int on the RP2040; "
        "add rows instead",
    )
    snap_bytes: int = fw_config.snap_length(rows, cols)
    if snap_bytes > wire.MAX_LINE:
        raise check.fail(
            "matrix.rows",
            f"a {rows} x {cols} occupancy snapshot needs a {snap_bytes}-byte "
            f"SNAP frame, more than the {wire.MAX_LINE} bytes a frame may have",
            "use fewer rows with more columns (up to 30)",
        )
    row_pins: list[int] = []
    col_pins: list[int] = []
    chain: ShiftChain | None = None
    pin_roles: list[tuple[str, int]] = []
    if scanner == "matrix":
        if "sr" in matrix:
            raise check.fail("matrix.sr", "is only used by the sr165 scanner",
                             "remove it, or set matrix.scanner to \"sr165\"")
        row_pins = check.pin_list(matrix, "row_pins", "matrix.row_pins", rows, "row")
        col_pins = check.pin_list(matrix, "col_pins", "matrix.col_pins", cols, "column")
        pin_roles += [(f"matrix.row_pins[{i}]", p) for i, p in enumerate(row_pins)]
        pin_roles += [(f"matrix.col_pins[{i}]", p) for i, p in enumerate(col_pins)]
    else:
        for key in ("row_pins", "col_pins"):
            if key in matrix:
                raise check.fail(f"matrix.{key}", "is not used by the sr165 scanner (every "
                                 "switch has its own 74HC165 input)",
                                 "remove it, or set matrix.scanner to \"matrix\"")
        sr = check.obj(matrix, "sr", "matrix.sr")
        sr_pins = {k: check.pin_value(sr.get(k), f"matrix.sr.{k}") for k in ("load", "clk", "data")}
        bits = check.integer(sr, "bits", "matrix.sr.bits", 8, MAX_CHAIN_BITS)
        if bits % 8:
            raise check.fail("matrix.sr.bits", f"{bits} is not a whole number of 74HC165 chips",
                             "use 8 bits per chip (a multiple of 8)")
        if bits < rows * cols:
            raise check.fail("matrix.sr.bits",
                             f"{bits} bits ({bits // 8} chips) cannot read the {rows} x {cols} = "
                             f"{rows * cols} positions (one chain input per position)",
                             f"use {-(-rows * cols // 8) * 8} bits ({-(-rows * cols // 8)} chips)")
        chain = ShiftChain(sr_pins["load"], sr_pins["clk"], sr_pins["data"], bits)
        pin_roles += [(f"matrix.sr.{k}", p) for k, p in sr_pins.items()]

    leds_obj = check.obj(data, "leds", "leds")
    led_count = check.integer(leds_obj, "count", "leds.count", 1, MAX_LEDS)
    led_pin = check.pin_value(leds_obj.get("pin"), "leds.pin")
    pin_roles.append(("leds.pin", led_pin))
    seen_pins: dict[int, str] = {}
    for role, pin in pin_roles:
        if pin in seen_pins:
            raise check.fail(role, f"GP{pin} is already used by {seen_pins[pin]}",
                             "give every row, column, shift-register and LED line its own GPIO")
        seen_pins[pin] = role
    led_order = leds_obj.get("order", "GRB")
    if led_order not in LED_ORDERS:
        raise check.fail("leds.order", f"{_show(led_order)} is not a colour order",
                         f"use one of {', '.join(LED_ORDERS)} (WS2812B strips are GRB)")
    brightness = check.integer(leds_obj, "brightness", "leds.brightness", 1, 255,
                               f"use 1..255; {pico.DEFAULT_BRIGHTNESS} (about 25 %) is the default")
    ma_per_channel = check.integer(leds_obj, "ma_per_channel", "leds.ma_per_channel", 1,
                                   pico.LED_MAX_MA // 3,
                                   f"use {pico.LED_TYPICAL_MA_PER_CHANNEL}, the WS2812 figure per "
                                   "colour channel at full on")
    idle = check.integer(leds_obj, "idle_ma_per_led", "leds.idle_ma_per_led", 0, 5,
                         f"use {pico.LED_IDLE_MA}: a dark WS2812 draws about 1 mA")
    budget = check.integer(leds_obj, "budget_ma", "leds.budget_ma", 1, EXTERNAL_SUPPLY_MAX_MA)

    # -- power -----------------------------------------------------------------------
    power = data.get("power", {"source": "usb"})
    if not isinstance(power, Mapping):
        raise check.fail("power", f"must be an object, found {_show(power)}", 'use {"source": "usb"}')
    source_kind = check.string(power, "source", "power.source", POWER_SOURCES)
    if source_kind == "usb":
        if "supply_ma" in power:
            raise check.fail("power.supply_ma", "is fixed at 500 mA for USB power",
                             "remove it, or set power.source to \"external\" for a 5 V supply")
        supply = pico.USB_PORT_MA
    else:
        supply = check.integer(power, "supply_ma", "power.supply_ma", 500, EXTERNAL_SUPPLY_MAX_MA,
                               "give the 5 V supply's rated current in mA (for example 4000)")
    idle_total = led_count * idle
    if budget + pico.PICO_BOARD_MA > supply:
        where = "USB gives" if source_kind == "usb" else "the 5 V supply gives"
        raise check.fail(
            "leds.budget_ma",
            f"{budget} mA for the LEDs plus about {pico.PICO_BOARD_MA} mA for the Pico is more "
            f"than the {supply} mA {where}",
            f"lower it to at most {supply - pico.PICO_BOARD_MA} mA"
            + (", or inject power from a 5 V supply (power.source \"external\")"
               if source_kind == "usb" else ", or use a bigger supply"),
        )
    if budget <= idle_total:
        raise check.fail(
            "leds.budget_ma",
            f"{budget} mA does not even cover the idle draw of {led_count} LEDs "
            f"({led_count} x {idle} mA = {idle_total} mA)",
            f"raise it above {idle_total} mA (400 mA is the USB default)",
        )
    if source_kind == "usb" and budget + pico.PICO_BOARD_MA > pico.MICROPYTHON_DESCRIPTOR_MA:
        warnings.append(
            f"leds.budget_ma: {budget} mA plus the Pico is more than the "
            f"{pico.MICROPYTHON_DESCRIPTOR_MA} mA MicroPython's USB descriptor asks for; most "
            "computers give the full 500 mA anyway, but a strict hub may cut power; use a port "
            f"on the computer, or lower the budget to {pico.MICROPYTHON_DESCRIPTOR_MA - pico.PICO_BOARD_MA} mA"
        )
    if source_kind == "external" and led_count * pico.LED_MAX_MA > budget:
        LOGGER.debug("%s: the limiter will scale full-white frames", source)

    # -- debounce --------------------------------------------------------------------
    debounce = check.obj(data, "debounce", "debounce")
    scans = check.integer(debounce, "scans", "debounce.scans", *DEBOUNCE_SCANS,
                          "use 2..15 equal scans; 4 is the default")
    period = check.integer(debounce, "scan_period_ms", "debounce.scan_period_ms", *SCAN_PERIOD_MS,
                           "use 1..20 ms between scans; 2 is the default")
    settle = check.integer(debounce, "settle_us", "debounce.settle_us", *SETTLE_US,
                           "use 10..1000 us; 100 is the default (stray capacitance needs 100-500 us)")
    window = scans * period
    if not DEBOUNCE_WINDOW_MS[0] <= window <= DEBOUNCE_WINDOW_MS[1]:
        raise check.fail(
            "debounce.scans",
            f"{scans} scans x {period} ms = {window} ms is outside the "
            f"{DEBOUNCE_WINDOW_MS[0]}..{DEBOUNCE_WINDOW_MS[1]} ms a reed switch needs "
            "(it bounces for about 1 ms; longer windows only add latency)",
            "choose scans x scan_period_ms between 2 and 50 ms; 4 x 2 ms is the default",
        )
    if chain is None and rows * settle * 2 > period * 1000:
        raise check.fail(
            "debounce.settle_us",
            f"{rows} rows x {settle} us of settling is more than half of the "
            f"{period} ms scan period, leaving too little time to read and light",
            f"lower settle_us to at most {period * 500 // rows} us or raise scan_period_ms",
        )
    if chain is not None and chain.bits * SR_US_PER_BIT * 2 > period * 1000:
        shift_us = chain.bits * SR_US_PER_BIT
        raise check.fail(
            "debounce.scan_period_ms",
            f"shifting {chain.bits} bits takes about {shift_us} us, more than half of the "
            f"{period} ms scan period",
            f"raise scan_period_ms to at least {-(-shift_us * 2 // 1000)}",
        )

    # -- sites and buttons -----------------------------------------------------------
    sites_obj = check.obj(data, "sites", "sites")
    buttons_obj = data.get("buttons", {})
    if not isinstance(buttons_obj, Mapping):
        raise check.fail("buttons", f"must be an object, found {_show(buttons_obj)}",
                         "map button names to matrix positions")
    needed = len(sites_obj) + len(buttons_obj)
    if needed > rows * cols:
        raise check.fail(
            "matrix",
            f"rows x cols = {rows} x {cols} = {rows * cols} positions cannot hold "
            f"{len(sites_obj)} sites and {len(buttons_obj)} buttons ({needed})",
            "add rows or columns (see the GPIO budget in hardware/README.md)",
        )
    expected_set = set(expected)
    unknown_sites = [s for s in sites_obj if s not in expected_set]
    if unknown_sites:
        raise check.fail(
            f"sites.{unknown_sites[0]}",
            f"is not a site of {_describe(game, variant)}",
            f"remove it or fix the name (sites are named like {', '.join(expected[:3])}, ...)",
        )
    missing = [s for s in expected if s not in sites_obj]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise check.fail(
            "sites", f"{len(missing)} site(s) of {_describe(game, variant)} are missing: {shown}",
            "add each with its matrix position and LED (or run `meridian-table calibrate`)",
        )
    last_pos = rows * cols - 1
    pos_owner: dict[int, str] = {}
    led_owner: dict[int, str] = {}
    sites: dict[str, Site] = {}
    for site_name in expected:  # the game's order, so files and diagrams are stable
        entry = sites_obj[site_name]
        key = f"sites.{site_name}"
        if not isinstance(entry, Mapping):
            raise check.fail(key, f"must be an object, found {_show(entry)}",
                             'write it as {"pos": N, "led": N}')
        pos = _position(check, entry.get("pos"), f"{key}.pos", rows, cols, last_pos)
        if pos in pos_owner:
            raise check.fail(f"{key}.pos", f"matrix position {pos} is already used by {pos_owner[pos]}",
                             "give every site and button its own position "
                             "(`meridian-table calibrate` measures them)")
        pos_owner[pos] = site_name
        led = entry.get("led")
        if led is not None:
            if isinstance(led, bool) or not isinstance(led, int) or not 0 <= led < led_count:
                raise check.fail(f"{key}.led", f"{_show(led)} is not an LED index of the "
                                 f"{led_count}-LED strip (0..{led_count - 1})",
                                 "use the LED's place in the chain, counting from 0, or null")
            if led in led_owner:
                raise check.fail(f"{key}.led", f"LED {led} is already used by {led_owner[led]}",
                                 "give every site its own LED")
            led_owner[led] = site_name
        extra = set(entry) - {"pos", "led"}
        if extra:
            raise check.fail(f"{key}.{sorted(extra)[0]}", "is not a site key",
                             "a site has only pos and led")
        sites[site_name] = Site(pos, led)
    allowed = geometry.allowed_buttons(game)
    buttons: dict[str, int] = {}
    for button, value in buttons_obj.items():
        key = f"buttons.{button}"
        if button not in allowed:
            raise check.fail(key, f"is not a button of a {game} board",
                             f"use the names {', '.join(allowed)}")
        pos = _position(check, value, key, rows, cols, last_pos)
        if pos in pos_owner:
            raise check.fail(key, f"matrix position {pos} is already used by {pos_owner[pos]}",
                             "give every site and button its own position")
        pos_owner[pos] = button
        buttons[button] = pos
    absent = [b for b in allowed if b not in buttons]
    if absent:
        warnings.append(
            f"buttons: no {', '.join(absent)} button; players use the web page for these"
        )
    unused = led_count - len(led_owner)
    if unused > 0:
        warnings.append(f"leds.count: {unused} of {led_count} LEDs light no site")

    profile = Profile(
        name=name, title=title, game=game, variant=dict(variant), scanner=scanner,
        rows=rows, cols=cols, row_pins=tuple(row_pins), col_pins=tuple(col_pins),
        shift_chain=chain, led_pin=led_pin, leds=led_count, led_order=led_order,
        brightness=brightness, budget_ma=budget, ma_per_channel=ma_per_channel,
        idle_ma_per_led=idle, power_source=source_kind, supply_ma=supply,
        debounce_scans=scans, scan_period_ms=period, settle_us=settle,
        sites=sites, buttons=buttons, notes=notes, path=path, warnings=tuple(warnings),
        pico=model,
    )
    # The firmware checks its config.json itself; a profile that loads here must never
    # make the board report FAULT CONFIG, so ask the firmware's own validator too.
    _, problem = fw_config.validate(profile.firmware_config())
    if problem is not None:
        key, reason = problem
        raise check.fail(
            f"(firmware config) {key}", f"the firmware would refuse it ({reason})",
            "report this as a bug in meridian-table: its checks and the firmware's disagree",
        )
    return profile


def _position(check: _Checker, value: Any, key: str, rows: int, cols: int, last: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise check.fail(key, f"must be a matrix position (row x {cols} + column), found {_show(value)}",
                         "write the position as a whole number")
    if not 0 <= value <= last:
        raise check.fail(key, f"position {value} is outside the {rows} x {cols} matrix (0..{last})",
                         "rows x cols is too small: add rows or columns, or fix the position")
    return value


def _describe(game: str, variant: Mapping[str, Any]) -> str:
    return geometry.describe(game, variant)
