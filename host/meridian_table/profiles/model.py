"""The board profile: what one physical board is, as the host and the firmware see it.

A profile maps every game site (a point, a city, a quadrant or a body: whatever the game's
board spec names) to a matrix position and an LED index, and every button to a
matrix position. It also holds the wiring (scanner, pins), the LED strip, the power
budget and the debounce settings. ``firmware_config()`` is the config.json that
``meridian-table flash`` writes to the Pico (docs/PROTOCOL.md).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

LOGGER = logging.getLogger(__name__)

FORMAT_VERSION = 1


class ProfileError(ValueError):
    """A board profile is unusable. The message names the file, the key and the fix."""

    def __init__(self, source: str, key: str, problem: str, fix: str) -> None:
        super().__init__(f"{source}: {key}: {problem}; {fix}")
        self.source = source
        self.key = key
        self.problem = problem
        self.fix = fix


class Site(NamedTuple):
    """Where a game site is wired: its matrix position and its LED index (None: no LED)."""

    pos: int
    led: int | None


class ShiftChain(NamedTuple):
    """A chain of 74HC165 parallel-in shift registers: one input per switch.

    Bit i of the chain (the first bit shifted out is 0) is matrix position i; rows x
    cols is only the shape of the occupancy bitmap. No row GPIOs, no diodes.
    """

    load: int   # SH/LD (active low): latch all inputs
    clk: int    # CLK: shift one bit
    data: int   # QH of the last chip in the chain
    bits: int   # 8 per chip


@dataclass(frozen=True)
class Profile:
    """One physical board, validated. Build it with ``load_profile`` or ``profile_from_dict``."""

    name: str
    title: str
    game: str
    variant: dict[str, Any]
    scanner: str                      # "matrix" or "sr165"
    rows: int
    cols: int
    row_pins: tuple[int, ...]         # empty for sr165
    col_pins: tuple[int, ...]         # empty for sr165
    shift_chain: ShiftChain | None    # None for a direct matrix
    led_pin: int
    leds: int
    led_order: str
    brightness: int
    budget_ma: int
    ma_per_channel: int
    idle_ma_per_led: int
    power_source: str                 # "usb" or "external"
    supply_ma: int
    debounce_scans: int
    scan_period_ms: int
    settle_us: int
    sites: dict[str, Site]
    buttons: dict[str, int]
    notes: tuple[str, ...] = ()
    path: Path | None = None
    warnings: tuple[str, ...] = ()
    pico: str = "any"                 # the board model ("pico", "pico2"...: maker.boards)
    _by_pos: dict[int, str] = field(default_factory=dict, init=False, repr=False, compare=False)
    _by_led: dict[int, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_pos = {site.pos: name for name, site in self.sites.items()}
        by_pos.update({pos: name for name, pos in self.buttons.items()})
        self._by_pos.clear()
        self._by_pos.update(by_pos)
        self._by_led.clear()
        self._by_led.update(
            {site.led: name for name, site in self.sites.items() if site.led is not None}
        )

    # -- lookups ---------------------------------------------------------------------

    def site_at(self, pos: int) -> str | None:
        """The site or button name wired to matrix position ``pos``, or None."""
        return self._by_pos.get(pos)

    def site_at_led(self, led: int) -> str | None:
        """The site lit by LED ``led``, or None."""
        return self._by_led.get(led)

    def row_col(self, pos: int) -> tuple[int, int]:
        """Matrix (row, column) of a position: ``pos = row * cols + col``."""
        return divmod(pos, self.cols)

    def position(self, row: int, col: int) -> int:
        """Matrix position of (row, column)."""
        return row * self.cols + col

    @property
    def positions(self) -> int:
        """How many matrix positions the scanner reads (rows x cols)."""
        return self.rows * self.cols

    @property
    def pins(self) -> dict[str, Any]:
        """Every GPIO the board uses, by role (rows, cols or sr, led)."""
        out: dict[str, Any] = {"led": self.led_pin}
        if self.shift_chain is None:
            out["rows"] = list(self.row_pins)
            out["cols"] = list(self.col_pins)
        else:
            out["sr"] = {
                "load": self.shift_chain.load,
                "clk": self.shift_chain.clk,
                "data": self.shift_chain.data,
            }
        return out

    @property
    def gpio_count(self) -> int:
        """How many Pico GPIOs the wiring takes, the LED data line included."""
        scan = len(self.row_pins) + len(self.col_pins) if self.shift_chain is None else 3
        return scan + 1

    @property
    def chips(self) -> int:
        """How many 74HC165 the shift-register chain needs (0 for a direct matrix)."""
        return 0 if self.shift_chain is None else self.shift_chain.bits // 8

    @property
    def worst_case_ma(self) -> int:
        """Every LED at full white, before the firmware's limiter scales it down."""
        return self.leds * 3 * self.ma_per_channel

    @property
    def debounce_window_ms(self) -> int:
        """How long a switch must hold still before the firmware reports it."""
        return self.debounce_scans * self.scan_period_ms

    # -- outputs ---------------------------------------------------------------------

    def firmware_config(self) -> dict[str, Any]:
        """The config.json for the Pico, exactly as docs/PROTOCOL.md specifies it."""
        config: dict[str, Any] = {
            "board": self.name,
            "scanner": self.scanner,
            "rows": self.rows,
            "cols": self.cols,
        }
        if self.shift_chain is None:
            config["row_pins"] = list(self.row_pins)
            config["col_pins"] = list(self.col_pins)
        else:
            config["sr"] = {
                "load": self.shift_chain.load,
                "clk": self.shift_chain.clk,
                "data": self.shift_chain.data,
                "bits": self.shift_chain.bits,
            }
        config.update(
            {
                "led_pin": self.led_pin,
                "leds": self.leds,
                "led_order": self.led_order,
                "brightness": self.brightness,
                "budget_ma": self.budget_ma,
                "ma_per_channel": self.ma_per_channel,
                "idle_ma_per_led": self.idle_ma_per_led,
                "debounce_scans": self.debounce_scans,
                "scan_period_ms": self.scan_period_ms,
                "settle_us": self.settle_us,
                "buttons": sorted(self.buttons.values()),
            }
        )
        return config

    def to_dict(self) -> dict[str, Any]:
        """The profile in its file format (meridian_table/games/<game>/boards/*.json), keys in a fixed order."""
        matrix: dict[str, Any] = {
            "scanner": self.scanner,
            "rows": self.rows,
            "cols": self.cols,
        }
        if self.shift_chain is None:
            matrix["row_pins"] = list(self.row_pins)
            matrix["col_pins"] = list(self.col_pins)
        else:
            matrix["sr"] = self.shift_chain._asdict()
        out: dict[str, Any] = {
            "format": FORMAT_VERSION,
            "name": self.name,
            "title": self.title,
            "game": self.game,
            "variant": self.variant,
        }
        if self.notes:
            out["notes"] = list(self.notes)
        if self.pico != "any":
            out["pico"] = self.pico
        power: dict[str, Any] = {"source": self.power_source}
        if self.power_source != "usb":
            power["supply_ma"] = self.supply_ma
        out.update(
            {
                "matrix": matrix,
                "leds": {
                    "count": self.leds,
                    "pin": self.led_pin,
                    "order": self.led_order,
                    "brightness": self.brightness,
                    "budget_ma": self.budget_ma,
                    "ma_per_channel": self.ma_per_channel,
                    "idle_ma_per_led": self.idle_ma_per_led,
                },
                "power": power,
                "debounce": {
                    "scans": self.debounce_scans,
                    "scan_period_ms": self.scan_period_ms,
                    "settle_us": self.settle_us,
                },
                "sites": {
                    name: {"pos": site.pos, "led": site.led} for name, site in self.sites.items()
                },
                "buttons": dict(self.buttons),
            }
        )
        return out
