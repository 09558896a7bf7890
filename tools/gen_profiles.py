"""Generate the shipped board profiles (host/meridian_table/games/<game>/boards/) from the game geometry.

The committed JSON files are the data (calibration rewrites them); this tool only
made their first version, so the wiring rules below are written down once:

    .venv/bin/python tools/gen_profiles.py            # write the profiles that are missing
    .venv/bin/python tools/gen_profiles.py --force    # overwrite them (loses calibration)
    .venv/bin/python tools/gen_profiles.py --check    # exit 1 if a file differs

Wiring rules (hardware/README.md explains the arithmetic):

- LED chain: a serpentine along the board's natural lines (Kato columns A, B, ...;
  Colovini meridians 1..10; Empire sectors 1..8 then the bodies), so one strip snakes
  under the board without long jumps.
- Kato: matrix position = place in the LED chain, buttons after the points. 80 and
  114 points fit a direct matrix; 154 points plus 7 buttons need 161 positions, more
  than the 156 that 25 GPIOs can scan directly, so that board reads its columns
  through a chain of three 74HC165.
- Colovini: one matrix row per meridian (its cities north to south, then its meridian
  button), plus one column for the control buttons.
- Empire in Space: one matrix row per sector (its four quadrants), the bodies fill the
  other four columns, the buttons take the last row.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from meridian_table.games import registry
from meridian_table.games.colovini import spec as colovini_spec
from meridian_table.games.colovini.maps import MERIDIANS
from meridian_table.games.empire import board as empire_board
from meridian_table.games.kato import geometry as kato_geometry
from meridian_table.profiles import dumps_profile, profile_from_dict
from meridian_table.profiles import geometry as games
from meridian_table.profiles.loader import SR_US_PER_BIT

CONTROLS = list(games.CONTROL_BUTTONS)
LED_PIN = 22
SETTLE_US = 100


def _debounce(rows: int, shift_bits: int = 0) -> dict[str, int]:
    """4 equal scans; the period is the shortest (>= 2 ms) that keeps the scan under half."""
    scan_us = shift_bits * SR_US_PER_BIT if shift_bits else rows * SETTLE_US
    period = max(2, -(-scan_us * 2 // 1000))
    return {"scans": 4, "scan_period_ms": period, "settle_us": SETTLE_US}


def _leds(count: int, budget: int = 200, brightness: int = 64) -> dict[str, Any]:
    return {
        "count": count, "pin": LED_PIN, "order": "GRB", "brightness": brightness,
        "budget_ma": budget, "ma_per_channel": 20, "idle_ma_per_led": 1,
    }


def _direct(rows: int, cols: int) -> dict[str, Any]:
    return {
        "scanner": "matrix", "rows": rows, "cols": cols,
        "row_pins": list(range(rows)), "col_pins": list(range(rows, rows + cols)),
    }


def _serpentine(lines: list[list[str]]) -> list[str]:
    out: list[str] = []
    for i, line in enumerate(lines):
        out.extend(line if i % 2 == 0 else reversed(line))
    return out


def kato(size: int) -> dict[str, Any]:
    points = kato_geometry.points(size)
    columns: dict[str, list[str]] = {}
    for name in points:
        columns.setdefault(name[0], []).append(name)
    chain = _serpentine(list(columns.values()))
    positions = len(chain) + len(CONTROLS)
    count = len(points)
    if size == 7:
        # 161 positions: one 74HC165 input per switch, 21 chips, 168 bits.
        rows, cols = 7, 24
        bits = -(-rows * cols // 8) * 8
        matrix: dict[str, Any] = {
            "scanner": "sr165", "rows": rows, "cols": cols,
            # SPI1 pins (SCK GP10, RX GP12), so firmware may read the chain by hardware SPI.
            "sr": {"load": 13, "clk": 10, "data": 12, "bits": bits},
        }
        power: dict[str, Any] = {"source": "external", "supply_ma": 3000}
        leds = _leds(count, budget=1500)
    else:
        rows, cols = {5: (10, 9), 6: (11, 11)}[size]
        matrix = _direct(rows, cols)
        power = {"source": "usb"}
        leds = _leds(count)
    assert rows * cols >= positions  # a generator bug, not bad input
    sites = {name: {"pos": i, "led": i} for i, name in enumerate(chain)}
    buttons = {b: len(chain) + i for i, b in enumerate(CONTROLS)}
    wiring = (
        f"a direct {rows} x {cols} matrix ({rows + cols} GPIOs)"
        if matrix["scanner"] == "matrix"
        else f"a chain of {matrix['sr']['bits'] // 8} 74HC165 shift registers, one input per "
        f"switch (3 GPIOs)"
    )
    return {
        "format": 1,
        "name": f"kato-{count}",
        "title": f"Kato's Meridians, {count}-point board (size {size})",
        "game": "kato",
        "variant": {"size": size},
        "notes": [
            f"{count} reed switches, one under each point, and {len(CONTROLS)} push buttons, "
            f"read as {wiring}.",
            "Matrix position = place in the LED chain; the chain snakes up column A, down "
            "column B, and so on. Buttons follow the points.",
        ],
        "matrix": matrix, "leds": leds, "power": power,
        "debounce": _debounce(rows, matrix.get("sr", {}).get("bits", 0)),
        "sites": sites, "buttons": buttons,
    }


def colovini(side: int) -> dict[str, Any]:
    per = colovini_spec.SIDES[side]
    rows, cols = MERIDIANS, per + 2
    lines = [[f"{m}.{i}" for i in range(1, per + 1)] for m in range(1, rows + 1)]
    chain = _serpentine(lines)
    led_of = {name: i for i, name in enumerate(chain)}
    sites = {
        f"{m}.{i}": {"pos": (m - 1) * cols + (i - 1), "led": led_of[f"{m}.{i}"]}
        for m in range(1, rows + 1) for i in range(1, per + 1)
    }
    buttons = {f"meridian{m}": (m - 1) * cols + per for m in range(1, rows + 1)}
    buttons.update({b: i * cols + per + 1 for i, b in enumerate(CONTROLS)})
    players = "2 or 4 players" if side == 50 else "3 players"
    return {
        "format": 1,
        "name": f"colovini-{side}",
        "title": f"Colovini's Meridian, {side}-city side ({players})",
        "game": "colovini",
        "variant": {"side": side},
        "notes": [
            f"{side} reed switches, one under each city, 10 meridian buttons along the "
            f"bottom edge and {len(CONTROLS)} control buttons, read as a direct "
            f"{rows} x {cols} matrix ({rows + cols} GPIOs).",
            f"Matrix row m-1 is meridian m: columns 0..{per - 1} its cities from north to "
            f"south, column {per} its meridian button; column {per + 1} holds the control "
            "buttons. The LED chain snakes down meridian 1, up meridian 2, and so on.",
        ],
        "matrix": _direct(rows, cols), "leds": _leds(side), "power": {"source": "usb"},
        "debounce": _debounce(rows), "sites": sites, "buttons": buttons,
    }


def empire() -> dict[str, Any]:
    planets = {"yellow": 4, "white": 4, "orange": 3}
    moons = empire_board.MOON_CARDS
    quadrants = empire_board.quadrants()
    bodies = empire_board.bodies(planets, moons)
    rows, cols = empire_board.SECTORS + 1, empire_board.QUADRANTS * 2
    sites: dict[str, dict[str, int]] = {}
    for i, name in enumerate(quadrants):
        sector, quadrant = divmod(i, empire_board.QUADRANTS)
        sites[name] = {"pos": sector * cols + quadrant, "led": i}
    for i, name in enumerate(bodies):
        row, col = divmod(i, empire_board.QUADRANTS)
        sites[name] = {"pos": row * cols + empire_board.QUADRANTS + col, "led": len(quadrants) + i}
    buttons = {b: empire_board.SECTORS * cols + i for i, b in enumerate(CONTROLS)}
    return {
        "format": 1,
        "name": "empire-in-space",
        "title": "Meridian: Empire in Space (Rowitt), 8 sectors x 4 quadrants",
        "game": "empire",
        "variant": {"planets": planets, "moons": moons},
        "notes": [
            "From the rule book (v4.0): 8 sectors of 4 quadrants (S1Q1..S8Q4); 11 planet "
            "tokens, each placed on a board area whose ring colour matches; 15 moon cards, "
            "moons being the grey rings. A switch under each quadrant senses a starship, a "
            "switch under each body senses a colony.",
            "The rule book lists the planet areas as '4 white, 4 yellow, and 3 white' among "
            "orange, yellow and white rings; this profile reads it as 4 white, 4 yellow and "
            "3 orange. Edit variant.planets if your board differs; the sites follow.",
            f"A direct {rows} x {cols} matrix ({rows + cols} GPIOs): row s-1 holds sector s's "
            "quadrants in columns 0..3; the bodies fill columns 4..7; the buttons take the "
            "last row. The LED chain runs S1Q1..S8Q4, then the bodies in the same order.",
        ],
        "matrix": _direct(rows, cols), "leds": _leds(len(quadrants) + len(bodies)),
        "power": {"source": "usb"}, "debounce": _debounce(rows), "sites": sites, "buttons": buttons,
    }


def all_profiles() -> list[dict[str, Any]]:
    """Every shipped profile, as file data."""
    return [kato(5), kato(6), kato(7), colovini(50), colovini(40), empire()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file differs")
    parser.add_argument("--force", action="store_true",
                        help="overwrite existing profiles (calibrated positions are lost)")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: each game's own boards/ folder)")
    args = parser.parse_args(argv)
    stale = 0
    for data in all_profiles():
        folder = args.out or registry.spec(str(data["game"])).boards
        if folder is None:
            raise SystemExit(f"game {data['game']!r} ships no boards folder; give --out")
        path = folder / f"{data['name']}.json"
        # Through the loader: never write a profile that does not load, and write it in
        # the same canonical form (sites in the game's order) that calibration writes.
        text = dumps_profile(profile_from_dict(data, str(path)).to_dict())
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale += 1
        if args.check:
            print(f"{path} differs from the generator", file=sys.stderr)
        elif current is not None and not args.force:
            print(f"{path} exists and differs; kept (use --force to overwrite)")
        else:
            args.out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
