"""The virtual board: the real firmware with the simulated HAL, behind a pty or a socket.

See ``meridian_table.sim.board`` and docs/LINK.md.
"""

from meridian_table.sim.board import (
    MODES,
    RGB,
    Mode,
    VirtualBoard,
    micropython_binary,
)
from meridian_table.sim.transport import TransportError, VirtualBoardError

__all__ = ["MODES", "RGB", "Mode", "TransportError", "VirtualBoard", "VirtualBoardError",
           "micropython_binary"]
