"""Which port the virtual board hides behind: a pty, or a loopback socket.

Both give the host a name to open with pyserial (``/dev/pts/N`` or
``socket://127.0.0.1:PORT``), so the link cannot tell them apart. The pty is the
default where the ``pty`` module exists (Linux, macOS); the socket works everywhere,
Windows included. ``MERIDIAN_TABLE_SIM_TRANSPORT=socket`` (or ``pty``) forces one, so
the test suite can run with the pty switched off (``make portable``).

``meridian_table.sim.pty`` is imported only here, and only when a pty is chosen: on
Windows the ``pty``, ``tty`` and ``termios`` modules do not exist.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Literal

from meridian_table.sim.port import BoardPort

Transport = Literal["pty", "socket"]
TRANSPORTS: tuple[Transport, ...] = ("pty", "socket")
ENV_VAR = "MERIDIAN_TABLE_SIM_TRANSPORT"


class VirtualBoardError(RuntimeError):
    """The virtual board could not start or stopped unexpectedly."""


class TransportError(VirtualBoardError, ValueError):
    """A transport that does not exist, or that this system cannot provide (a
    VirtualBoardError for whoever starts a board, a ValueError for a bad setting)."""


def pty_available() -> bool:
    """True where a pty can be opened (POSIX systems with the ``pty`` module)."""
    return os.name == "posix" and importlib.util.find_spec("pty") is not None


def choose(requested: str | None = None) -> Transport:
    """The transport to use: ``requested``, else ``$MERIDIAN_TABLE_SIM_TRANSPORT``, else
    the pty where there is one and the socket elsewhere. Raises TransportError."""
    source = "transport"
    if requested is None:
        env = os.environ.get(ENV_VAR, "").strip().lower()
        if env:
            requested, source = env, ENV_VAR
    if requested is None:
        return "pty" if pty_available() else "socket"
    chosen = next((t for t in TRANSPORTS if t == requested), None)
    if chosen is None:
        raise TransportError(
            f"{source} {requested!r} is not one of {', '.join(TRANSPORTS)}: use `socket` "
            "(works everywhere) or `pty` (Linux, macOS)"
        )
    if chosen == "pty" and not pty_available():
        raise TransportError(
            f"{source} 'pty' is not available on this system (no pty module); use `socket`"
        )
    return chosen


def open_port(transport: Transport) -> BoardPort:
    """A new port of that kind (each call is a fresh "plug in")."""
    if transport == "pty":
        from meridian_table.sim.pty import Pty  # POSIX only: see the module docstring

        return Pty()
    from meridian_table.sim.loopback import LoopbackPort

    return LoopbackPort()
