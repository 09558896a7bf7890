"""A pseudo-terminal that stands in for the Pico's USB serial port.

The virtual board holds the master side; the host opens the slave path with pyserial
exactly as it would open ``/dev/ttyACM0``. Closing the master makes the slave path
vanish and every open slave handle fail, which is what an unplugged USB cable does.
"""

from __future__ import annotations

import errno
import logging
import os
import pty
import tty
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from meridian_table.sim.port import Selectable

LOGGER = logging.getLogger(__name__)


class Pty:
    """One pty pair: ``path`` for the host, ``master`` (non-blocking) for the board."""

    def __init__(self) -> None:
        master, slave = pty.openpty()
        # Raw before anyone opens it: no echo (the board would read its own output
        # back), no line editing, and 0x03 is a byte, not a signal.
        tty.setraw(slave)
        os.set_blocking(master, False)
        self.master: int | None = master
        # Kept open so the master never sees EIO while no host has the port open.
        self._slave: int | None = slave
        self.path = os.ttyname(slave)
        self.dropped = 0

    def selectables(self) -> list[Selectable]:
        """What to ``select()`` on to wake when the host writes."""
        return [self.master] if self.master is not None else []

    def read(self, size: int = 4096) -> bytes:
        """What the host wrote (b"" when nothing is waiting). Never blocks."""
        fd = self.master
        if fd is None:
            return b""
        try:
            return os.read(fd, size)
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno == errno.EIO:
                return b""
            raise

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Send to the host. Never blocks: what the host does not take is dropped,
        like USB CDC output while no host reads (a lost line is resent or re-asked)."""
        fd = self.master
        if fd is None:
            self.dropped += len(data)
            return
        view = memoryview(data)
        while view:
            try:
                n = os.write(fd, view)
            except (BlockingIOError, OSError):
                self.dropped += len(view)
                return
            view = view[n:]

    def close(self) -> None:
        """Close both sides: the slave path disappears and open handles fail."""
        for name in ("master", "_slave"):
            fd = getattr(self, name)
            setattr(self, name, None)
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
