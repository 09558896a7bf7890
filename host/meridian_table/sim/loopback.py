"""A loopback TCP socket that stands in for the Pico's USB serial port, on every OS.

pyserial already speaks ``socket://HOST:PORT`` (its ``protocol_socket`` URL handler),
so the host opens ``socket://127.0.0.1:PORT`` through ``serial.serial_for_url`` exactly
as it opens ``/dev/ttyACM0`` or ``COM5``: the link code is the same for both. This is
the virtual board's port where there is no pty (Windows), or when
``MERIDIAN_TABLE_SIM_TRANSPORT=socket`` asks for it.

It behaves like the pty (``meridian_table.sim.pty``) and like a USB cable:

- one host at a time: a second connection while one is open is closed at once (the
  pty's exclusive lock does the same);
- writes never block: what the host does not take, or anything written while no host
  is connected, is dropped (as USB CDC drops output with no host);
- ``close()`` is the unplug: the listening socket goes (a new connection is refused)
  and the open one is closed (the host's read fails). A new ``LoopbackPort`` listens
  on a new port number, as a replugged Pico may get a new device name.

Only ``socket`` and ``select`` on sockets are used, which Windows supports too.
"""

from __future__ import annotations

import logging
import socket
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from meridian_table.sim.port import Selectable

LOGGER = logging.getLogger(__name__)

HOST = "127.0.0.1"


class LoopbackPort:
    """A listening loopback socket: ``path`` (a pyserial URL) for the host, non-blocking
    ``read``/``write`` for the board. The same interface as ``sim.pty.Pty``."""

    def __init__(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind((HOST, 0))
        listener.listen(2)
        listener.setblocking(False)
        self._listener: socket.socket | None = listener
        self._conn: socket.socket | None = None
        self.path = f"socket://{HOST}:{listener.getsockname()[1]}"
        self.dropped = 0
        self.refused = 0

    def __repr__(self) -> str:
        return f"<LoopbackPort {self.path!r} connected={self._conn is not None}>"

    @property
    def connected(self) -> bool:
        """True while a host holds the port open."""
        return self._conn is not None

    def selectables(self) -> list[Selectable]:
        """What to ``select()`` on to wake when the host connects or writes."""
        return [s for s in (self._listener, self._conn) if s is not None]

    def _accept(self) -> None:
        listener = self._listener
        if listener is None:
            return
        while True:
            try:
                conn, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return  # closed under us (unplug)
            if self._conn is not None:
                # One host at a time, like the pty's exclusive lock.
                self.refused += 1
                LOGGER.warning("virtual board %s: a second host tried to connect; refused",
                               self.path)
                conn.close()
                continue
            # Whether an accepted socket inherits non-blocking mode differs by OS.
            conn.setblocking(False)
            # Frames are short lines: send each at once, as USB CDC does.
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._conn = conn

    def _drop_conn(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except OSError:
                pass

    def read(self, size: int = 4096) -> bytes:
        """What the host wrote (b"" when nothing is waiting). Never blocks."""
        conn = self._conn
        if conn is not None:
            try:
                data = conn.recv(size)
            except (BlockingIOError, InterruptedError):
                data = None
            except OSError:
                data = b""
            if data is not None:
                if data:
                    return data
                self._drop_conn()  # the host closed the port (or died)
        self._accept()
        return b""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Send to the host. Never blocks: what the host does not take is dropped."""
        conn = self._conn
        if conn is None:
            self._accept()
            conn = self._conn
        if conn is None:
            self.dropped += len(data)
            return
        view = memoryview(data)
        while view:
            try:
                n = conn.send(view)
            except (BlockingIOError, InterruptedError):
                self.dropped += len(view)
                return
            except OSError:
                self.dropped += len(view)
                self._drop_conn()
                return
            view = view[n:]

    def close(self) -> None:
        """Unplug: stop listening and close the host's connection. Safe to call twice."""
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        self._drop_conn()
