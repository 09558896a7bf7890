"""The boards the firmware runs on, and how to tell them apart from the host.

A board running MicroPython describes itself in ``sys.implementation``: ``_machine``
("Raspberry Pi Pico 2 W with RP2350"), ``version`` and ``_mpy``, whose low byte is
the ``.mpy`` version, bits 8-9 its sub-version and bits 10-13 the architecture of
native code (``mpy-cross -march``), indexed as in MicroPython's ``docs/reference/mpy_files.rst``.
``flash`` asks for these and compiles for what the board says.

USB identities: MicroPython's rp2 port enumerates as 2E8A:0005 on every Pico, RP2040
or RP2350, so discovery cannot tell a Pico from a Pico 2 by USB alone (``flash``
asks the board). The boot ROM's BOOTSEL drive and CircuitPython have identities of
their own, listed here so a board in the wrong mode is named instead of ignored
(raspberrypi/usb-pid's list, CircuitPython's board definitions).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from meridian_table.profiles.pico import ANY_PICO, MODELS, BoardModel

# .mpy native architectures, by the index held in bits 10-13 of sys.implementation._mpy.
MPY_ARCHES: tuple[str | None, ...] = (
    None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp",
    "xtensa", "xtensawin", "rv32imc", "rv64imc",
)
MPY_VERSION = 6  # the .mpy format MicroPython 1.20 and later load

__all__ = ["ANY_PICO", "MODELS", "BoardModel"]  # re-exported: the models live with the profile


# Every architecture the firmware is compiled and checked for (tools/mpycheck.py).
SUPPORTED_ARCHES: tuple[str, ...] = ("armv6m", "armv7emsp")
CHIP_ARCH = {"RP2040": "armv6m", "RP2350": "armv7emsp"}


# MicroPython's board names (``MICROPY_HW_BOARD_NAME``, the start of ``_machine``) that
# differ from our titles: its RPI_PICO2 build says "Raspberry Pi Pico2", no space.
MICROPYTHON_NAMES = {
    "Raspberry Pi Pico2": "Raspberry Pi Pico 2",
    "Raspberry Pi Pico2 W": "Raspberry Pi Pico 2 W",
}


@dataclass(frozen=True)
class UsbIdentity:
    vid: int
    pid: int
    mode: str         # "micropython", "bootsel" or "circuitpython"
    what: str


USB_IDENTITIES: tuple[UsbIdentity, ...] = (
    UsbIdentity(0x2E8A, 0x0005, "micropython", "a Pico, Pico W, Pico 2 or Pico 2 W running MicroPython"),
    UsbIdentity(0x2E8A, 0x0003, "bootsel", "an RP2040 Pico in BOOTSEL mode (a USB drive, no MicroPython yet)"),
    UsbIdentity(0x2E8A, 0x000F, "bootsel", "an RP2350 Pico 2 in BOOTSEL mode (a USB drive, no MicroPython yet)"),
    UsbIdentity(0x239A, 0x80F4, "circuitpython", "a Pico running CircuitPython"),
    UsbIdentity(0x2E8A, 0x000B, "circuitpython", "a Pico 2 running CircuitPython"),
)


def boards_in_other_modes() -> list[str]:
    """Serial ports of Picos that are plugged in but not running MicroPython, in words."""
    from serial.tools import list_ports

    found = []
    for info in list_ports.comports():
        ident = usb_identity(info.vid, info.pid)
        if ident is not None and ident.mode != "micropython":
            found.append(f"{info.device}: {ident.what}")
    return found


def usb_identity(vid: int | None, pid: int | None) -> UsbIdentity | None:
    for ident in USB_IDENTITIES:
        if (ident.vid, ident.pid) == (vid, pid):
            return ident
    return None


class BoardInfoError(ValueError):
    """The board's answer to the probe is not what MicroPython prints."""


@dataclass(frozen=True)
class BoardInfo:
    """What a board said about itself (``PROBE_SCRIPT``)."""

    implementation: str     # "micropython" (or "circuitpython")
    version: tuple[int, int, int]
    mpy: int                # sys.implementation._mpy (0 when the port has none)
    machine: str            # sys.implementation._machine, e.g. "Raspberry Pi Pico with RP2040"
    platform: str           # sys.platform: "rp2" on every Pico

    @property
    def mpy_version(self) -> int:
        return self.mpy & 0xFF

    @property
    def arch(self) -> str | None:
        index = (self.mpy >> 10) & 0x0F
        return MPY_ARCHES[index] if index < len(MPY_ARCHES) else f"arch-{index}"

    @property
    def chip(self) -> str | None:
        for chip in CHIP_ARCH:
            if chip in self.machine:
                return chip
        return None

    @property
    def model(self) -> BoardModel | None:
        """The Pico model named by ``_machine``, or None for another board."""
        name = self.machine.split(" with ")[0].strip()
        name = MICROPYTHON_NAMES.get(name, name)
        for model in MODELS.values():
            if model.title == name:
                return model
        return None

    @property
    def version_text(self) -> str:
        return ".".join(str(v) for v in self.version)


# Run on the board with ``mpremote exec``: one line, a Python literal.
PROBE_SCRIPT = (
    "import sys;i=sys.implementation;"
    "print(repr((i.name,tuple(i.version[:3]),getattr(i,'_mpy',0),"
    "getattr(i,'_machine',''),sys.platform)))"
)


def parse_probe(text: str) -> BoardInfo:
    """The BoardInfo in the probe's output (the last line that parses); BoardInfoError if none."""
    for line in reversed(text.strip().splitlines()):
        try:
            value = ast.literal_eval(line.strip())
        except (ValueError, SyntaxError):
            continue
        if (isinstance(value, tuple) and len(value) == 5 and isinstance(value[0], str)
                and isinstance(value[1], tuple) and isinstance(value[2], int)
                and isinstance(value[3], str) and isinstance(value[4], str)):
            version = tuple(int(v) for v in value[1][:3])
            version = version + (0,) * (3 - len(version))
            return BoardInfo(value[0], (version[0], version[1], version[2]), value[2], value[3],
                             value[4])
    shown = text.strip().splitlines()[-1][:120] if text.strip() else "nothing"
    raise BoardInfoError(f"the board's answer is not MicroPython's sys.implementation ({shown!r})")


class BoardMismatch(ValueError):
    """The board is not one the firmware (or this profile) can run on; the message says why."""


def choose_arch(info: BoardInfo, wanted: str = ANY_PICO) -> str:
    """The ``mpy-cross -march`` for this board; BoardMismatch explains a board it cannot be.

    ``wanted`` is the profile's ``"pico"`` (a MODELS key, or "any").
    """
    if info.implementation != "micropython":
        raise BoardMismatch(
            f"the board runs {info.implementation} {info.version_text}, not MicroPython; "
            "install MicroPython's UF2 (docs/MAKERS.md), or use the CircuitPython backend "
            "by copying firmware/meridian_fw by hand"
        )
    if info.mpy_version != MPY_VERSION:
        raise BoardMismatch(
            f"MicroPython {info.version_text} loads .mpy version {info.mpy_version}, this "
            f"firmware is built as version {MPY_VERSION}: install MicroPython 1.23 or newer"
        )
    arch = info.arch
    if arch not in SUPPORTED_ARCHES:
        hint = (" (the RP2350's RISC-V cores: install the ARM build, "
                "RPI_PICO2, instead)" if arch == "rv32imc" else "")
        raise BoardMismatch(
            f"{info.machine or 'the board'} runs native code for {arch}{hint}; the firmware "
            f"is built for {' and '.join(SUPPORTED_ARCHES)} (Pico, Pico W, Pico 2, Pico 2 W)"
        )
    if wanted != ANY_PICO and wanted in MODELS:
        model = MODELS[wanted]
        found = info.model
        if found is not None and found.key != wanted:
            raise BoardMismatch(
                f"the profile is for a {model.title} ({model.chip}), but the board is a "
                f"{found.title} ({found.chip}); plug in the right board, or set \"pico\" "
                f"in the profile to {found.key!r} (or \"any\")"
            )
        if found is None and info.chip is not None and info.chip != model.chip:
            raise BoardMismatch(
                f"the profile is for a {model.title} ({model.chip}), but the board has an "
                f"{info.chip} ({info.machine!r}); plug in the right board, or set \"pico\" "
                "in the profile to \"any\""
            )
    return arch
