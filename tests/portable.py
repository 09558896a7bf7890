"""What a test may assume about the virtual board's port, whichever transport runs it.

The suite runs with the pty (the default on Linux) and again with
``MERIDIAN_TABLE_SIM_TRANSPORT=socket`` (``make portable``): the port is then a
``socket://127.0.0.1:PORT`` URL, as on Windows.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from meridian_table.sim.transport import choose

TRANSPORT = choose()
#: How the port of a virtual board started with the default transport is named.
PORT_PREFIX = "/dev/" if TRANSPORT == "pty" else "socket://127.0.0.1:"
#: Words in the error a second host gets when the port is taken: the pty's exclusive
#: lock, or the socket closed at once by the board.
BUSY_WORDS = "lock" if TRANSPORT == "pty" else "reset|disconnected"


def port_exists(port: str) -> bool:
    """A pty's node exists, or a socket port still listens (a refused connect: gone)."""
    if "://" not in port:
        import os

        return os.path.exists(port)
    parts = urlsplit(port)
    try:
        with socket.create_connection((parts.hostname or "", parts.port or 0), timeout=1):
            return True
    except OSError:
        return False
