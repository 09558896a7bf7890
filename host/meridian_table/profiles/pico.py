"""Facts about the Raspberry Pi Pico and USB power that every board profile is checked against.

Sources: the Pico datasheet (GPIO pinout), the USB 2.0 specification (500 mA per port
after configuration) and MicroPython's rp2 USB descriptor (bMaxPower = 250 mA).
"""

from __future__ import annotations

from dataclasses import dataclass

# GP23 (SMPS power save), GP24 (VBUS sense), GP25 (on-board LED) and GP29 (VSYS/3)
# are wired on the Pico itself and are not on the header; on a Pico W they belong to
# the radio. That leaves 26 header GPIOs.
USABLE_GPIOS: tuple[int, ...] = (*range(0, 23), 26, 27, 28)
RESERVED_GPIOS: dict[int, str] = {
    23: "SMPS power-save control",
    24: "VBUS sense",
    25: "the on-board LED (the radio on a Pico W)",
    29: "VSYS/3 voltage sense",
}

USB_PORT_MA = 500            # USB 2.0 port after enumeration
MICROPYTHON_DESCRIPTOR_MA = 250  # what MicroPython's rp2 USB descriptor asks the host for
PICO_BOARD_MA = 50           # Pico + level shifter + shift registers, with margin

LED_MAX_MA = 60              # one WS2812 at full white (3 channels x 20 mA)
LED_TYPICAL_MA_PER_CHANNEL = 20
LED_IDLE_MA = 1              # a dark WS2812 still draws about 1 mA

DEFAULT_BRIGHTNESS = 64      # of 255: about 25 %
DEFAULT_BUDGET_MA = 400

MAX_ROW_BITS = 30            # row masks stay small ints on the RP2040 (< 2**30)


def pin_problem(pin: int) -> str | None:
    """Why ``pin`` cannot be used for the matrix or the LEDs, or None when it can."""
    if pin in RESERVED_GPIOS:
        return f"GP{pin} is used on the Pico itself for {RESERVED_GPIOS[pin]}"
    if pin not in USABLE_GPIOS:
        return f"GP{pin} does not exist on a Pico (GP0..GP22 and GP26..GP28 are on the header)"
    return None


def direct_matrix_capacity(pins: int) -> int:
    """The most matrix positions ``pins`` GPIOs can scan as a direct rows x cols matrix."""
    rows = pins // 2
    return rows * (pins - rows)


# -- the models a profile can name ("pico": ...) ---------------------------------------

@dataclass(frozen=True)
class BoardModel:
    """One Pico model: what a profile names in ``"pico"`` and what flash builds for it."""

    key: str          # the profile's "pico" value
    title: str
    chip: str         # "RP2040" or "RP2350"
    arch: str         # mpy-cross -march for its ARM cores
    uf2: str          # MicroPython's board name on its download page
    wireless: bool


MODELS: dict[str, BoardModel] = {
    m.key: m
    for m in (
        BoardModel("pico", "Raspberry Pi Pico", "RP2040", "armv6m", "RPI_PICO", False),
        BoardModel("pico_w", "Raspberry Pi Pico W", "RP2040", "armv6m", "RPI_PICO_W", True),
        BoardModel("pico2", "Raspberry Pi Pico 2", "RP2350", "armv7emsp", "RPI_PICO2", False),
        BoardModel("pico2_w", "Raspberry Pi Pico 2 W", "RP2350", "armv7emsp", "RPI_PICO2_W",
                   True),
    )
}
ANY_PICO = "any"
