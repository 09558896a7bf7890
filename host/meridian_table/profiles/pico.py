"""Facts about the Raspberry Pi Pico and USB power that every board profile is checked against.

Sources: the Pico datasheet (GPIO pinout), the USB 2.0 specification (500 mA per port
after configuration) and MicroPython's rp2 USB descriptor (bMaxPower = 250 mA).
"""

from __future__ import annotations

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
