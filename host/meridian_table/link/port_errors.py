"""What to do when the OS refuses a serial port: the same words from ``flash``,
``monitor``, ``calibrate`` and ``play``.

On Linux a serial port belongs to the ``dialout`` group; a user outside it gets
"permission denied" (errno 13), which pyserial, mpremote and the link each word their
own way ("may be in use by another program", a raw ``[Errno 13]``, "plug the board in").
:func:`explain` turns it into the one thing to do (docs/MAKERS.md, "Permissions").
"""

from __future__ import annotations

import errno
import logging
import sys

LOGGER = logging.getLogger(__name__)


def is_permission(exc: BaseException | str) -> bool:
    """True when ``exc`` (an OSError, a SerialException or a message) is the OS refusing
    access to the port, not a missing or busy one."""
    if isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM):
        return True
    text = str(exc).lower()
    return ("permission denied" in text or "errno 13" in text or "access is denied" in text
            or "[errno 1]" in text)


def advice(port: str) -> str:
    """The sentence for a port the OS will not open for this user."""
    if sys.platform.startswith("linux"):
        return (f"permission denied on {port}: add yourself to the dialout group "
                "(sudo usermod -aG dialout $USER, then log out and in again; or run "
                "meridian-table install-service --udev) (docs/MAKERS.md)")
    if sys.platform == "win32":
        return (f"permission denied on {port}: another program holds it (a serial terminal, "
                "Thonny, another meridian-table); close it (docs/MAKERS.md)")
    return (f"permission denied on {port}: check the port's owner and permissions "
            f"(ls -l {port}) (docs/MAKERS.md)")


def explain(port: str, exc: BaseException) -> str:
    """Why ``port`` cannot be opened, with what to do when it is a permission problem."""
    if is_permission(exc):
        return advice(port)
    return f"cannot open {port}: {exc}"


__all__ = ["advice", "explain", "is_permission"]
