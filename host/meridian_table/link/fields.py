"""Strict grammars for the numbers the host reads from the board.

A frame's CRC proves it was not damaged on the wire, not that its sender obeyed the
protocol. Python's ``int()`` is far more generous than the protocol (it takes ``-1``,
``+5``, ``0x1F``, ``1_0``, spaces and non-ASCII digits), so every numeric field is read
here instead: unsigned decimal or upper-case hex digits only (what the firmware's
``Encoder`` writes), of bounded length and value. Each function raises ``ValueError``
naming the field and the rule it broke; the link counts the frame as bad and drops it.
"""

from __future__ import annotations

import re

_DEC = re.compile(r"(?:0|[1-9][0-9]{0,9})")
_HEX = re.compile(r"[0-9A-F]{1,16}")


def dec(text: str, name: str, high: int, low: int = 0) -> int:
    """``text`` as a decimal integer in ``low..high``: digits only, no sign, no leading zero."""
    if _DEC.fullmatch(text) is None:
        raise ValueError(f"{name} {text!r} is not an unsigned decimal number")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"{name} {value} is outside {low}..{high}")
    return value


def hex_mask(text: str, name: str, bits: int) -> int:
    """``text`` as upper-case hex digits whose value fits in ``bits`` bits."""
    if _HEX.fullmatch(text) is None:
        raise ValueError(f"{name} {text!r} is not an unsigned upper-case hex number")
    value = int(text, 16)
    if value >> bits:
        raise ValueError(f"{name} {text} has a bit set beyond the board's {bits} columns")
    return value


def flag(text: str, name: str) -> bool:
    """``"1"`` is True and ``"0"`` is False; anything else is refused (not read as 0)."""
    if text == "1":
        return True
    if text == "0":
        return False
    raise ValueError(f"{name} {text!r} is neither 0 nor 1")
