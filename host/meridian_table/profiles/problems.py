"""Every problem of a profile file, not only the first (`meridian-table profile check`).

The loader stops at the first problem, which is what every other caller wants. Here
each problem found is recorded, the value at fault is *set aside* (a setting gets its
default, an unknown key or entry is dropped, a clashing GPIO, position or LED is moved
to a free one) and the check runs again, until the profile loads or a problem is
structural (the game, the matrix size, missing sites: everything after it would only
repeat it). Setting aside never changes the file; it only lets the next check see past
the last problem.
"""

from __future__ import annotations

import copy
import re
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from meridian_table import datafile
from meridian_table.profiles import pico
from meridian_table.profiles.loader import profile_from_dict, resolve
from meridian_table.profiles.model import ProfileError
from meridian_table.textload import json_loads, toml_loads

MAX_PROBLEMS = 50

# Settings with a default a profile may leave out: a wrong value is replaced by it.
_DEFAULTS: dict[str, Any] = {
    "leds.order": "GRB",
    "leds.brightness": pico.DEFAULT_BRIGHTNESS,
    "leds.ma_per_channel": pico.LED_TYPICAL_MA_PER_CHANNEL,
    "leds.idle_ma_per_led": pico.LED_IDLE_MA,
    "debounce.scans": 4,
    "debounce.scan_period_ms": 2,
    "debounce.settle_us": 100,
}
# Optional keys: a wrong value is dropped (the loader's default applies).
_OPTIONAL = {"title", "notes", "pico", "format", "power", "buttons"}
_PIN = re.compile(r"^(matrix\.(row_pins|col_pins)\[(\d+)\]|matrix\.sr\.(load|clk|data)|leds\.pin)$")


def all_problems(name_or_path: str | Path) -> list[ProfileError]:
    """Every problem found in a profile file (empty when it loads)."""
    path = resolve(name_or_path)
    source = str(path)
    try:
        text = datafile.read_text(path, what="board profile")
        # The nesting-bounded readers (docs/SECURITY.md): a file nested too deep is a
        # syntax error, never a RecursionError.
        data: Any = toml_loads(text) if path.suffix == ".toml" else json_loads(text)
    except (datafile.DataFileError, ValueError) as exc:
        try:
            from meridian_table.profiles.loader import load_profile

            load_profile(path)   # the loader's own words for an unreadable file
        except ProfileError as error:
            return [error]
        return [ProfileError(source, "(file)", str(exc), "fix the file")]
    return problems_in(data, source)


def problems_in(data: Any, source: str) -> list[ProfileError]:
    work = copy.deepcopy(data)
    found: list[ProfileError] = []
    seen: set[str] = set()
    while len(found) < MAX_PROBLEMS:
        try:
            profile_from_dict(work, source)
            return found
        except ProfileError as exc:
            found.append(exc)
            if exc.key in seen or not isinstance(work, MutableMapping):
                return found
            seen.add(exc.key)
            if not _set_aside(work, exc.key):
                return found
    return found


def _set_aside(data: MutableMapping[str, Any], key: str) -> bool:
    """Change ``data`` so the check can go past ``key``; False when it cannot."""
    if "." not in key and "[" not in key:
        if key in _OPTIONAL or (key in data and key not in _STRUCTURAL):
            data.pop(key, None)
            return True
        return False
    if key in _DEFAULTS:
        section, leaf = key.split(".")
        if isinstance(data.get(section), MutableMapping):
            data[section][leaf] = _DEFAULTS[key]
            return True
        return False
    if key == "leds.budget_ma" and isinstance(data.get("leds"), MutableMapping):
        data["leds"]["budget_ma"] = _fitting_budget(data)
        return True
    if key.startswith("power."):
        data["power"] = {"source": "usb"}
        return True
    pin = _PIN.match(key)
    if pin is not None:
        return _free_pin(data, pin)
    parts = key.split(".")
    if parts[0] == "sites" and len(parts) >= 2 and isinstance(data.get("sites"), MutableMapping):
        return _set_aside_site(data, parts)
    if parts[0] == "buttons" and len(parts) == 2 and isinstance(data.get("buttons"), MutableMapping):
        data["buttons"].pop(parts[1], None)   # a missing button is only a warning
        return True
    if key in ("matrix.sr", "matrix.row_pins", "matrix.col_pins") and isinstance(
            data.get("matrix"), MutableMapping) and key.split(".")[1] in data["matrix"]:
        del data["matrix"][key.split(".")[1]]
        return True
    return False


# Without these the rest of the profile cannot be read at all.
_STRUCTURAL = {"name", "game", "variant", "matrix", "leds", "debounce", "sites"}


def _used_pins(data: MutableMapping[str, Any]) -> set[int]:
    used: set[int] = set()
    raw = data.get("matrix")
    matrix: MutableMapping[str, Any] = raw if isinstance(raw, MutableMapping) else {}
    for k in ("row_pins", "col_pins"):
        if isinstance(matrix.get(k), list):
            used |= {p for p in matrix[k] if isinstance(p, int)}
    if isinstance(matrix.get("sr"), MutableMapping):
        used |= {p for p in matrix["sr"].values() if isinstance(p, int)}
    leds = data.get("leds")
    if isinstance(leds, MutableMapping) and isinstance(leds.get("pin"), int):
        used.add(leds["pin"])
    return used


def _free_pin(data: MutableMapping[str, Any], match: re.Match[str]) -> bool:
    free = [p for p in pico.USABLE_GPIOS if p not in _used_pins(data)]
    if not free:
        return False
    if match.group(2):
        pins = data["matrix"][match.group(2)]
        pins[int(match.group(3))] = free[0]
    elif match.group(4):
        data["matrix"]["sr"][match.group(4)] = free[0]
    else:
        data["leds"]["pin"] = free[0]
    return True


def _fitting_budget(data: MutableMapping[str, Any]) -> int:
    leds = data["leds"]
    count = leds.get("count") if isinstance(leds.get("count"), int) else 0
    raw = data.get("power")
    power: MutableMapping[str, Any] = raw if isinstance(raw, MutableMapping) else {}
    supply = power.get("supply_ma") if power.get("source") == "external" else pico.USB_PORT_MA
    supply = supply if isinstance(supply, int) else pico.USB_PORT_MA
    return max(count + 1, min(supply - pico.PICO_BOARD_MA, count + 100))


def _set_aside_site(data: MutableMapping[str, Any], parts: list[str]) -> bool:
    sites = data["sites"]
    name = parts[1]
    if name not in sites:
        return False
    entry = sites[name]
    if len(parts) == 2:
        if isinstance(entry, MutableMapping):
            return False
        sites[name] = {"pos": _free_position(data), "led": None}
        return True
    if not isinstance(entry, MutableMapping):
        return False
    if parts[2] == "pos":
        entry["pos"] = _free_position(data)
    elif parts[2] == "led":
        entry["led"] = None
    else:
        entry.pop(parts[2], None)
    return True


def _free_position(data: MutableMapping[str, Any]) -> int:
    taken: set[int] = set()
    for entry in data["sites"].values():
        if isinstance(entry, MutableMapping) and isinstance(entry.get("pos"), int):
            taken.add(entry["pos"])
    buttons = data.get("buttons")
    if isinstance(buttons, MutableMapping):
        taken |= {p for p in buttons.values() if isinstance(p, int)}
    pos = 0
    while pos in taken:
        pos += 1
    return pos
