"""Draw the wiring diagram of a board profile as SVG, from the profile alone.

    .venv/bin/python tools/render_wiring.py                 # every profile -> hardware/diagrams/
    .venv/bin/python tools/render_wiring.py kato-114 -o x.svg
    .venv/bin/python tools/render_wiring.py --check         # exit 1 if a committed SVG is stale

Each diagram shows, from the same data the host and the firmware use:

1. the Pico's physical pins (the header's numbers, the same on a Pico 2): every GP
   used with what it drives or reads, and the power pins (VBUS, GND, 3V3);
2. the switch matrix, each cell a reed switch in series with a 1N4148 between its
   column and row lines, or, for the sr165 scanner, the 74HC165 chain at pin level
   (SH/LD, CLK, CLK INH tied low, QH to SER, the last SER tied, VCC and GND);
3. the LED and power section: supply (USB or a 5 V supply with its DC jack), fuse,
   1000 uF capacitor, 74AHCT125 level shifter, 330 ohm resistor, DIN, and the figures;
4. the board seen from above: every site with its matrix position and LED index,
   and the LED chain drawn in order, so the strip's route can be checked by eye.

The output is deterministic (no dates, fixed number formatting), so a test can
regenerate it and compare: the picture cannot drift from the data.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from xml.sax.saxutils import escape

from meridian_table.games.kato import geometry as kato_geometry
from meridian_table.profiles import (
    Profile,
    ProfileError,
    is_shipped,
    list_profiles,
    load_profile,
    pico,
    resolve,
)

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "hardware" / "diagrams"

FONT = "font-family:DejaVu Sans Mono,Menlo,Consolas,monospace"
CELL_H = 30
PIN_ROW_H = 15
CHIP_W, CHIP_H = 170, 8 * 14 + 46
# The Pico's (and Pico 2's) 40-pin header: GPIO -> physical pin (datasheet pinout).
PICO_PIN = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15,
            12: 16, 13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27,
            22: 29, 26: 31, 27: 32, 28: 34}
GND_PINS = (3, 8, 13, 18, 23, 28, 33, 38)
VBUS_PIN, VSYS_PIN, V3_PIN = 40, 39, 36
# 74HC165 (DIP-16 / SOIC-16) pins.
HC165_INPUT_PIN = {"A": 11, "B": 12, "C": 13, "D": 14, "E": 3, "F": 4, "G": 5, "H": 6}
COLOURS = {
    "row": "#1f6fb2",
    "col": "#b2561f",
    "led": "#2a8a2a",
    "sr": "#7a3fb2",
    "button": "#666666",
    "site": "#222222",
    "chain": "#2a8a2a",
}


def _f(value: float) -> str:
    """Numbers in a fixed, short form so the output never depends on float noise."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


class Svg:
    """A tiny SVG writer: elements in the order they are added."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def text(self, x: float, y: float, content: str, size: int = 12, colour: str = "#222",
             anchor: str = "start", weight: str = "normal") -> None:
        self.parts.append(
            f'<text x="{_f(x)}" y="{_f(y)}" font-size="{size}" fill="{colour}" '
            f'text-anchor="{anchor}" font-weight="{weight}">{escape(content)}</text>'
        )

    def rect(self, x: float, y: float, w: float, h: float, stroke: str = "#999",
             fill: str = "none", width: float = 1, rx: float = 0) -> None:
        self.parts.append(
            f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" height="{_f(h)}" rx="{_f(rx)}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{_f(width)}"/>'
        )

    def line(self, x1: float, y1: float, x2: float, y2: float, colour: str = "#999",
             width: float = 1, dash: str = "") -> None:
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(
            f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" '
            f'stroke="{colour}" stroke-width="{_f(width)}"{extra}/>'
        )

    def polyline(self, points: Iterable[tuple[float, float]], colour: str, width: float = 1.5) -> None:
        coords = " ".join(f"{_f(x)},{_f(y)}" for x, y in points)
        self.parts.append(
            f'<polyline points="{coords}" fill="none" stroke="{colour}" '
            f'stroke-width="{_f(width)}" stroke-linejoin="round" opacity="0.55"/>'
        )

    def circle(self, x: float, y: float, r: float, fill: str, stroke: str = "#222") -> None:
        self.parts.append(
            f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="{fill}" stroke="{stroke}"/>'
        )

    def reed(self, x: float, y: float, colour: str = "#444") -> None:
        """A reed switch drawn vertically: two contacts in a glass outline, open."""
        self.parts.append(
            f'<path d="M{_f(x)},{_f(y - 5)} L{_f(x)},{_f(y - 1)} L{_f(x + 3)},{_f(y + 2)} '
            f'M{_f(x)},{_f(y + 2)} L{_f(x)},{_f(y + 5)}" fill="none" stroke="{colour}"/>'
        )
        self.parts.append(
            f'<rect x="{_f(x - 3)}" y="{_f(y - 4)}" width="7" height="8" rx="3" fill="none" '
            f'stroke="{colour}" stroke-width="0.5"/>'
        )

    def diode(self, x: float, y: float, colour: str = "#444") -> None:
        """A small 1N4148 symbol pointing down (anode up, cathode toward the row line)."""
        self.parts.append(
            f'<path d="M{_f(x - 4)},{_f(y - 3)} L{_f(x + 4)},{_f(y - 3)} L{_f(x)},{_f(y + 3)} Z '
            f'M{_f(x - 4)},{_f(y + 3)} L{_f(x + 4)},{_f(y + 3)}" fill="none" stroke="{colour}"/>'
        )

    def document(self, width: float, height: float, title: str) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(width)}" height="{_f(height)}" '
            f'viewBox="0 0 {_f(width)} {_f(height)}" style="{FONT}">\n'
            f"<title>{escape(title)}</title>\n"
            f'<rect x="0" y="0" width="{_f(width)}" height="{_f(height)}" fill="#ffffff"/>\n'
        )
        return head + "\n".join(self.parts) + "\n</svg>\n"


# -- sections ------------------------------------------------------------------------------


def _pin_roles(profile: Profile) -> list[tuple[int, str, str]]:
    roles: list[tuple[int, str, str]] = []
    for i, pin in enumerate(profile.row_pins):
        roles.append((pin, f"row {i} (output, driven low in turn)", COLOURS["row"]))
    for i, pin in enumerate(profile.col_pins):
        roles.append((pin, f"col {i} (input, pull-up)", COLOURS["col"]))
    chain = profile.shift_chain
    if chain is not None:
        roles.append((chain.load, "74HC165 SH/LD (all chips)", COLOURS["sr"]))
        roles.append((chain.clk, "74HC165 CLK (all chips)", COLOURS["sr"]))
        roles.append((chain.data, "74HC165 QH of chip 1", COLOURS["sr"]))
    roles.append((profile.led_pin, "LED data -> 74AHCT125", COLOURS["led"]))
    return sorted(roles)


def _header(svg: Svg, profile: Profile, width: float) -> float:
    svg.text(20, 30, profile.title, size=18, weight="bold")
    if profile.shift_chain is None:
        wiring = (f"direct matrix {profile.rows} rows x {profile.cols} columns = "
                  f"{profile.positions} positions, one reed switch + 1N4148 per position")
    else:
        wiring = (f"74HC165 chain: {profile.chips} chips, {profile.shift_chain.bits} inputs, "
                  "one reed switch + 10k pull-up per input, no diodes needed")
    svg.text(20, 52, f"profile {profile.name} | game {profile.game} | {wiring}", size=12)
    free = len(pico.USABLE_GPIOS) - profile.gpio_count
    svg.text(
        20, 70,
        f"GPIOs used {profile.gpio_count} of {len(pico.USABLE_GPIOS)} ({free} free) | "
        f"{len(profile.sites)} sites, {len(profile.buttons)} buttons | {profile.leds} WS2812 LEDs, "
        f"budget {profile.budget_ma} mA ({profile.power_source}), brightness {profile.brightness}/255",
        size=12,
    )
    svg.line(20, 82, width - 20, 82, "#cccccc")
    return 100


def _power_pins(profile: Profile) -> list[tuple[int, str, str]]:
    usb = profile.power_source == "usb"
    five = ("USB 5 V: 74AHCT125 VCC and, through the fuse, the LEDs' 5 V" if usb else
            "not connected (the LEDs have their own 5 V supply)")
    roles = [(VBUS_PIN, f"VBUS: {five}", "#b22222"),
             (V3_PIN, "3V3(OUT): " + ("74HC165 VCC and the 10k pull-ups"
                                       if profile.shift_chain is not None else
                                       "optional column pull-ups only"), "#b22222"),
             (GND_PINS[-1], "GND: common ground of the Pico, the level shifter and the LEDs"
              + ("" if usb else " (and the 5 V supply's 0 V)"), "#333333")]
    return roles


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _pins(svg: Svg, profile: Profile, top: float) -> float:
    svg.text(20, top + 12, "Pico / Pico 2 header pins", size=13, weight="bold")
    roles = _pin_roles(profile)
    power = [(pin, label.partition(": "), colour) for pin, label, colour in _power_pins(profile)]
    notes = [_wrap(parts[2], 38) for _, parts, _ in power]
    rows = len(roles) + len(power) + sum(len(n) for n in notes) + 1
    height = 30 + PIN_ROW_H * rows
    svg.rect(20, top + 20, 300, height, stroke="#444", rx=6)
    for i, (pin, label, colour) in enumerate(roles):
        y = top + 38 + i * PIN_ROW_H
        svg.text(28, y, f"pin {PICO_PIN[pin]:<2}", size=10, colour="#666")
        svg.text(72, y, f"GP{pin:<2}", size=11, colour=colour, weight="bold")
        svg.text(108, y, label, size=10, colour=colour)
    y = top + 42 + len(roles) * PIN_ROW_H
    for (pin, (name, _, _), colour), note in zip(power, notes, strict=True):
        svg.text(28, y, f"pin {pin:<2}", size=10, colour="#666")
        svg.text(72, y, name, size=11, colour=colour, weight="bold")
        for line in note:
            y += PIN_ROW_H - 3
            svg.text(72, y, line, size=9, colour=colour)
        y += PIN_ROW_H
    others = ", ".join(str(p) for p in GND_PINS[:-1])
    svg.text(28, y, f"GND also on pins {others}", size=9, colour="#666")
    return top + 20 + height


def _cell_w(profile: Profile) -> float:
    """Wide enough for the longest site or button name at 10 px monospace."""
    longest = max(len(n) for n in [*profile.sites, *profile.buttons])
    return float(max(66, 6 * longest + 34))


def _matrix(svg: Svg, profile: Profile, left: float, top: float) -> tuple[float, float]:
    cell_w = _cell_w(profile)
    svg.text(left, top + 12, "switch matrix: each cell is a reed switch in series with a 1N4148",
             size=13, weight="bold")
    svg.text(left + 560, top + 12, "(wire: column line -> reed -> diode -> row line)",
             size=10, colour="#666")
    svg.text(left, top + 28, "(anode to the column line, cathode to the row line; "
             "the diode stops ghosting through closed neighbours)", size=11)
    grid_left, grid_top = left + 70, top + 56
    for c, pin in enumerate(profile.col_pins):
        x = grid_left + c * cell_w + cell_w / 2
        svg.text(x, grid_top - 18, f"col {c}", size=10, colour=COLOURS["col"], anchor="middle")
        svg.text(x, grid_top - 6, f"GP{pin}", size=10, colour=COLOURS["col"], anchor="middle")
        svg.line(x, grid_top, x, grid_top + profile.rows * CELL_H, COLOURS["col"], 0.8)
    for r, pin in enumerate(profile.row_pins):
        y = grid_top + r * CELL_H + CELL_H / 2
        svg.text(grid_left - 8, y - 2, f"row {r}", size=10, colour=COLOURS["row"], anchor="end")
        svg.text(grid_left - 8, y + 10, f"GP{pin}", size=10, colour=COLOURS["row"], anchor="end")
        svg.line(grid_left, y + CELL_H / 2 - 2, grid_left + profile.cols * cell_w,
                 y + CELL_H / 2 - 2, COLOURS["row"], 0.8)
    for pos in range(profile.positions):
        r, c = profile.row_col(pos)
        x, y = grid_left + c * cell_w, grid_top + r * CELL_H
        name = profile.site_at(pos)
        if name is None:
            svg.rect(x + 3, y + 3, cell_w - 6, CELL_H - 8, stroke="#e0e0e0")
            continue
        colour = COLOURS["button"] if name in profile.buttons else COLOURS["site"]
        svg.rect(x + 3, y + 3, cell_w - 6, CELL_H - 8, stroke=colour, fill="#fafafa", rx=3)
        svg.text(x + 8, y + 17, name, size=10, colour=colour, weight="bold")
        # Column line -> reed switch -> 1N4148 (cathode down) -> row line.
        cx, sx = x + cell_w / 2, x + cell_w - 12
        svg.line(cx, y + 5, sx, y + 5, COLOURS["col"], 0.6)
        svg.reed(sx, y + 10)
        svg.diode(sx, y + 19)
        svg.line(sx, y + 22, sx, y + CELL_H - 2, COLOURS["row"], 0.6)
        svg.text(x + cell_w - 20, y + 25, str(pos), size=8, colour="#888", anchor="end")
    return grid_left + profile.cols * cell_w, grid_top + profile.rows * CELL_H


def _chain(svg: Svg, profile: Profile, left: float, top: float) -> tuple[float, float]:
    chain = profile.shift_chain
    assert chain is not None  # only called for sr165 profiles
    svg.text(left, top + 12, "74HC165 chain: one input per switch (switch to GND, 10k pull-up "
             "to 3.3 V)", size=13, weight="bold")
    svg.text(left, top + 28, f"every chip: SH/LD (1) <- GP{chain.load} (pin {PICO_PIN[chain.load]}), "
             f"CLK (2) <- GP{chain.clk} (pin {PICO_PIN[chain.clk]}), CLK INH (15) -> GND, "
             "VCC (16) -> 3V3 (pin 36), GND (8) -> GND, ~QH (7) not connected, "
             "100 nF from VCC to GND.", size=10)
    svg.text(left, top + 42, f"chip 1's QH (9) -> GP{chain.data} (pin {PICO_PIN[chain.data]}); "
             f"chip k's SER (10) <- chip k+1's QH (9); chip {profile.chips}'s SER (10) -> GND "
             "(tied, never floating).", size=10)
    svg.text(left, top + 56, "Position = bit shifted out: chip k input H is 8(k-1), "
             "G is 8(k-1)+1 ... A is 8(k-1)+7; the pin number of each input is in brackets.",
             size=10)
    per_row = 7
    for chip in range(profile.chips):
        x = left + (chip % per_row) * (CHIP_W + 14)
        y = top + 72 + (chip // per_row) * (CHIP_H + 14)
        svg.rect(x, y, CHIP_W, CHIP_H, stroke=COLOURS["sr"], rx=4)
        svg.text(x + 8, y + 16, f"chip {chip + 1} (74HC165)", size=11, colour=COLOURS["sr"],
                 weight="bold")
        for k in range(8):
            pos = chip * 8 + k
            name = profile.site_at(pos) if pos < profile.positions else None
            pin_name = "HGFEDCBA"[k]
            label = f"{pin_name}({HC165_INPUT_PIN[pin_name]:>2}) {pos:>3} {name or '-'}"
            colour = COLOURS["button"] if name in profile.buttons else COLOURS["site"]
            svg.text(x + 10, y + 32 + k * 14, label, size=10, colour=colour if name else "#aaa")
        feed = (f"QH(9) -> GP{chain.data}" if chip == 0 else f"QH(9) -> chip {chip} SER(10)")
        ser = ("SER(10) -> GND" if chip == profile.chips - 1
               else f"SER(10) <- chip {chip + 2} QH(9)")
        svg.text(x + 10, y + CHIP_H - 18, feed, size=9, colour=COLOURS["sr"])
        svg.text(x + 10, y + CHIP_H - 6, ser, size=9, colour=COLOURS["sr"])
    rows = -(-profile.chips // per_row)
    return left + per_row * (CHIP_W + 14), top + 72 + rows * (CHIP_H + 14)


def _box(svg: Svg, x: float, y: float, w: float, title: str, note: str, colour: str) -> None:
    svg.rect(x, y, w, 34, stroke=colour, fill="#fbfbfb", rx=4)
    svg.text(x + w / 2, y + 14, title, size=10, colour=colour, anchor="middle", weight="bold")
    svg.text(x + w / 2, y + 27, note, size=8, colour="#555", anchor="middle")


def _power(svg: Svg, profile: Profile, top: float) -> float:
    svg.text(20, top + 12, "LED data and power", size=13, weight="bold")
    usb = profile.power_source == "usb"
    red, led = "#b22222", COLOURS["led"]
    y = top + 26
    # The 5 V path: source -> fuse -> +5 V rail (capacitor, shifter VCC, strip).
    if usb:
        _box(svg, 20, y, 150, "USB 5 V", f"VBUS, Pico pin {VBUS_PIN}", red)
        fuse = "500 mA polyfuse"
    else:
        _box(svg, 20, y, 150, f"5 V {profile.supply_ma // 1000 or 1} A+ supply",
             "DC jack 5.5/2.1 mm", red)
        fuse = f"{-(-profile.supply_ma // 1000)} A fuse"
    svg.line(170, y + 17, 200, y + 17, red, 1.5)
    _box(svg, 200, y, 130, "fuse", fuse, red)
    svg.line(330, y + 17, 360, y + 17, red, 1.5)
    _box(svg, 360, y, 160, "1000 uF / 10 V", "across 5 V and GND at DIN", red)
    svg.line(520, y + 17, 550, y + 17, red, 1.5)
    _box(svg, 550, y, 150, "LED strip 5 V / GND", f"{profile.leds} x WS2812", red)
    # The data path: GPIO -> level shifter -> resistor -> DIN.
    y2 = y + 46
    _box(svg, 20, y2, 150, f"GP{profile.led_pin}", f"Pico pin {PICO_PIN[profile.led_pin]}, 3.3 V", led)
    svg.line(170, y2 + 17, 200, y2 + 17, led, 1.5)
    _box(svg, 200, y2, 130, "74AHCT125", "1A->1Y, 1OE GND, VCC 5 V", led)
    svg.line(330, y2 + 17, 360, y2 + 17, led, 1.5)
    _box(svg, 360, y2, 160, "330 ohm", "in series, near DIN", led)
    svg.line(520, y2 + 17, 550, y2 + 17, led, 1.5)
    _box(svg, 550, y2, 150, "DIN of LED 0", "GND common with the Pico", led)
    lines = [
        "(WS2812 wants 0.7 x 5 V = 3.5 V for a 1; a 3.3 V GPIO is out of spec;"
        " a BSS138 shifter is too slow for 800 kbit/s)",
        f"{profile.leds} LEDs x 60 mA = {profile.worst_case_ma} mA at full white;"
        f" x 20 mA typical = {profile.leds * 20} mA",
        f"firmware limit: {profile.budget_ma} mA per frame (idle {profile.leds * profile.idle_ma_per_led} mA)",
        f"supply: {profile.supply_ma} mA {'USB' if usb else 'external 5 V'}"
        + ("; inject 5 V + GND every 50 LEDs" if not usb else ""),
        "the 1000 uF capacitor draws an inrush at plug-in: the fuse and the USB port's "
        "current limit take it; plug the board in before opening the page",
    ]
    y3 = y2 + 50
    for i, text in enumerate(lines):
        svg.text(20, y3 + i * 15, text, size=10, colour="#333")
    return y3 + len(lines) * 15


def _site_xy(profile: Profile) -> dict[str, tuple[float, float]]:
    """Where each site sits on the board, in units (x right, y down)."""
    out: dict[str, tuple[float, float]] = {}
    if profile.game == "kato":
        coords = kato_geometry.coordinates(int(profile.variant["size"]))
        for name in profile.sites:
            q, r = coords[name]
            x, y = kato_geometry.layout_xy(q, r)
            out[name] = (x, -y)  # north up
    elif profile.game == "colovini":
        for name in profile.sites:
            meridian, index = name.split(".")
            out[name] = (float(meridian), float(index))
    else:
        bodies = [n for n in profile.sites if not n.startswith("S")]
        for name in profile.sites:
            if name.startswith("S") and "Q" in name:
                sector, quadrant = name[1:].split("Q")
                out[name] = (float(int(sector) * 1.2 + (int(quadrant) - 1) % 2 * 0.5),
                             float((int(quadrant) - 1) // 2))
        for i, name in enumerate(bodies):
            out[name] = (0.6 + (i % 6) * 1.6, 2.6 + (i // 6) * 0.9)
    return out


def _board(svg: Svg, profile: Profile, top: float, width: float) -> float:
    title = {"kato": "the board from above (north up)",
             "colovini": "the board from above: meridians 1..10 left to right, north at the top",
             "empire": "the board: quadrants by sector, then the bodies"}[profile.game]
    svg.text(20, top + 12, f"{title}; label: name, pos/LED; green line: the LED chain in order",
             size=13, weight="bold")
    xy = _site_xy(profile)
    xs = [p[0] for p in xy.values()]
    ys = [p[1] for p in xy.values()]
    spread_x = max(xs) - min(xs) or 1.0
    scale = min(58.0, (width - 120) / spread_x)
    ox, oy = 60 - min(xs) * scale, top + 46 - min(ys) * scale

    def at(name: str) -> tuple[float, float]:
        x, y = xy[name]
        return ox + x * scale, oy + y * scale

    chain = sorted((s.led, n) for n, s in profile.sites.items() if s.led is not None)
    svg.polyline([at(n) for _, n in chain], COLOURS["chain"], 2)
    for name, site in profile.sites.items():
        x, y = at(name)
        svg.circle(x, y, 4, "#ffffff")
        svg.text(x, y - 7, name, size=9, anchor="middle", weight="bold")
        svg.text(x, y + 14, f"{site.pos}/{site.led if site.led is not None else '-'}", size=8,
                 colour="#666", anchor="middle")
    if chain:
        x, y = at(chain[0][1])
        svg.text(x - 10, y + 26, "DIN (LED 0)", size=9, colour=COLOURS["chain"], anchor="middle")
    return oy + (max(ys)) * scale + 40


def render(profile: Profile) -> str:
    """The complete SVG for one profile."""
    svg = Svg()
    if profile.shift_chain is None:
        width = max(1000.0, 330 + 70 + profile.cols * _cell_w(profile) + 40)
    else:
        width = 330 + 7 * (CHIP_W + 14) + 20
    y = _header(svg, profile, width)
    pins_bottom = _pins(svg, profile, y)
    if profile.shift_chain is None:
        _, grid_bottom = _matrix(svg, profile, 330, y)
    else:
        _, grid_bottom = _chain(svg, profile, 330, y)
    power_top = max(pins_bottom, grid_bottom) + 16
    svg.line(20, power_top - 6, width - 20, power_top - 6, "#cccccc")
    power_bottom = _power(svg, profile, power_top)
    board_top = power_bottom + 24
    svg.line(20, board_top - 10, width - 20, board_top - 10, "#cccccc")
    height = _board(svg, profile, board_top, width)
    return svg.document(width, height, f"wiring of {profile.name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profiles", nargs="*", help="names or paths (default: every profile)")
    parser.add_argument("-o", "--output", type=Path, help="output file (one profile only)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed SVG is stale")
    args = parser.parse_args(argv)
    names = args.profiles or list_profiles()
    if args.output is not None and len(names) != 1:
        parser.error("--output needs exactly one profile")
    stale = 0
    for name in names:
        try:
            profile = load_profile(name)
        except ProfileError as exc:
            print(f"cannot draw {name}: {exc}", file=sys.stderr)
            print("fix the profile (meridian-table profile check lists every problem), "
                  "then run this again", file=sys.stderr)
            return 2
        # A shipped profile's diagram lives in hardware/diagrams/; any other profile
        # file gets its diagram next to it, never over a shipped one.
        source = resolve(name)
        default = (OUT_DIR / f"{profile.name}.svg" if is_shipped(source)
                   else source.with_suffix(".svg"))
        path = args.output or default
        text = render(profile)
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale += 1
        if args.check:
            print(f"{path} is stale; run tools/render_wiring.py", file=sys.stderr)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
