"""The virtual board: the real firmware with the simulated HAL, behind a pty.

See ``meridian_table.sim.board`` and docs/LINK.md.
"""

from meridian_table.sim.board import (
    MODES,
    RGB,
    Mode,
    VirtualBoard,
    VirtualBoardError,
    micropython_binary,
)

__all__ = ["MODES", "RGB", "Mode", "VirtualBoard", "VirtualBoardError", "micropython_binary"]
