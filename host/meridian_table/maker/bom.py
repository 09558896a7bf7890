"""The bill of materials of a board, computed from its profile.

Quantities come from the profile (sites, buttons, scanner, LEDs, power), so the BOM
in hardware/BOM.md (written by tools/render_bom.py) cannot drift from the data.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from meridian_table.profiles.model import Profile

LOGGER = logging.getLogger(__name__)

INJECT_EVERY_LEDS = 50


@dataclass(frozen=True)
class BomLine:
    """One line of the bill of materials."""

    qty: int
    part: str
    why: str


def bill_of_materials(profile: Profile) -> list[BomLine]:
    """Every electronic part the board needs (the printed board and pieces excluded)."""
    sites, buttons = len(profile.sites), len(profile.buttons)
    lines = [
        BomLine(1, "Raspberry Pi Pico or Pico 2 (W works too), MicroPython 1.23 or newer",
                f"scans, debounces and lights; {profile.gpio_count} of 26 GPIOs used"),
        BomLine(1, "USB cable, micro-USB B to your computer, with data lines",
                "the link to the host (a charge-only cable powers the Pico but shows no port)"),
        BomLine(sites, "reed switch, normally open, glass body about 2 x 14 mm",
                "one under each site"),
        BomLine(sites, "neodymium disc magnet 6 x 2 mm, axially magnetised",
                "one in each piece: as many as the game has pieces, at most one per site "
                "(a stronger magnet closes the neighbours too: a double)"),
    ]
    if buttons:
        lines.append(BomLine(buttons, "tactile push button, 6 x 6 mm",
                             ", ".join(profile.buttons)))
    if profile.shift_chain is None:
        lines.append(BomLine(sites + buttons, "1N4148 signal diode",
                             "one in series with every switch and button: no ghosting"))
        lines.append(BomLine(profile.cols, "10 kOhm resistor (optional)",
                             "an external pull-up to 3.3 V per column line, for long column "
                             "wires; the Pico's own pull-ups (about 50 kOhm) do for short ones"))
    else:
        chips = profile.chips
        lines += [
            BomLine(chips, "74HC165 8-bit parallel-in shift register, powered from 3.3 V",
                    f"{profile.shift_chain.bits} inputs for {sites + buttons} switches; "
                    "one input per switch, so no diodes are needed"),
            BomLine(chips, "10 kOhm x 8 bussed resistor network (9-pin SIP)",
                    "pull-ups to 3.3 V for every input (a switch pulls its input to GND)"),
            BomLine(chips, "100 nF ceramic capacitor", "decoupling, one per 74HC165"),
        ]
    lines += [
        BomLine(profile.leds, "WS2812B LED (strip or single pixels with 100 nF each)",
                "one under each site; chain order is the profile's LED index, data in at LED 0; "
                "a strip's LED pitch must match the spacing of the board's sites (else use "
                "single pixels wired in chain order)"),
        BomLine(1, "74AHCT125 quad buffer (one gate used; tie unused inputs to GND)",
                "3.3 V GPIO -> 5 V LED data (a BSS138 shifter is too slow)"),
        BomLine(1, "100 nF ceramic capacitor", "decoupling for the 74AHCT125"),
        BomLine(1, "330 Ohm resistor", "in series with the LED data line, near LED 0"),
        BomLine(1, "1000 uF 10 V electrolytic capacitor", "across 5 V / GND at the strip's input"),
    ]
    if profile.power_source == "usb":
        lines.append(BomLine(1, "500 mA resettable fuse (polyfuse, 1206 or radial)",
                             f"in the 5 V line from VBUS to the LEDs; powered from USB: LED "
                             f"budget {profile.budget_ma} mA + about 50 mA for the Pico, within "
                             "the 250 mA MicroPython's USB descriptor asks for "
                             "(hardware/README.md, Power)"))
    else:
        injections = max(1, -(-profile.leds // INJECT_EVERY_LEDS))
        amps = -(-profile.supply_ma // 1000)
        lines += [
            BomLine(1, f"5 V power supply, at least {profile.supply_ma / 1000:g} A, "
                       "5.5/2.1 mm barrel plug",
                    f"LED budget {profile.budget_ma} mA; the firmware never draws more"),
            BomLine(1, "DC barrel jack 5.5/2.1 mm (panel or PCB mount)", "the supply's input"),
            BomLine(1, f"{amps} A fuse (or polyfuse) after the jack",
                    "a short in the strip blows the fuse, not the supply or the wires"),
            BomLine(1, "1N5819 Schottky diode", "external 5 V to the Pico's VSYS, so USB and "
                    "the supply can be connected together"),
            BomLine(injections, "5 V + GND injection lead (AWG 20 or thicker)",
                    f"one every {INJECT_EVERY_LEDS} LEDs along the strip"),
        ]
    return lines


def bom_markdown(profiles: Sequence[Profile]) -> str:
    """hardware/BOM.md: one table per board."""
    out = [
        "# Bills of materials",
        "",
        "Generated from the profiles in `host/meridian_table/games/<game>/boards/` by `tools/render_bom.py`; do not",
        "edit by hand (a test regenerates it). Wire, solder, the printed board and the pieces",
        "are not listed. See `hardware/README.md` for why each part is there.",
    ]
    for profile in profiles:
        out += ["", f"## {profile.name}: {profile.title}", "", "| qty | part | why |",
                "|---:|---|---|"]
        out += [f"| {line.qty} | {line.part} | {line.why} |" for line in bill_of_materials(profile)]
    return "\n".join(out) + "\n"
