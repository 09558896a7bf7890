"""What the virtual board needs from the port it hides behind (a pty or a loopback
socket): :class:`BoardPort`, and what a port offers to ``select()``.

Its own module so that the ports (``sim.pty``, ``sim.loopback``) and the chooser
(``sim.transport``) import it without importing each other.
"""

from __future__ import annotations

import logging
import socket
from typing import Protocol

LOGGER = logging.getLogger(__name__)

#: What a port offers to ``select()``: a pty's file descriptor, or sockets.
Selectable = int | socket.socket


class BoardPort(Protocol):
    """What the virtual board needs from its port (``Pty`` and ``LoopbackPort``)."""

    path: str
    dropped: int

    def read(self, size: int = 4096) -> bytes: ...

    def write(self, data: bytes | bytearray | memoryview) -> None: ...

    def close(self) -> None: ...

    def selectables(self) -> list[Selectable]: ...


__all__ = ["BoardPort", "Selectable"]
