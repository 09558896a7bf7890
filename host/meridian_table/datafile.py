"""Reading a data file the user names (a map, a card set, a board profile) with a bound.

Every reader of such a file goes through :func:`read_text`: the file must be a regular
file (not a device such as ``/dev/zero``, a pipe or a folder) of at most ``limit``
bytes, and at most ``limit + 1`` bytes are ever read, so a file that grows while it is
read is refused too. The file is opened without blocking (a pipe with no writer would
otherwise hang the open) and checked on the open handle, so what is checked is what is
read.

These errors name the path and say what is wrong with it; they are for the command line,
where the person who types the path owns the machine. A page command never reaches here
with a path: it names shipped data by name (see :func:`is_data_name`), so its errors
cannot tell anyone whether some other file on the host exists.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from pathlib import Path

LOGGER = logging.getLogger(__name__)

#: The largest data file the table reads: a map, a card set or a profile is a few KiB.
MAX_DATA_BYTES = 1024 * 1024

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


class DataFileError(ValueError):
    """A data file that cannot be read as one: ``path``, what is wrong, what to do."""

    def __init__(self, path: str, problem: str, fix: str) -> None:
        super().__init__(f"{path}: {problem}; {fix}")
        self.path = path
        self.problem = problem
        self.fix = fix


def is_data_name(text: str) -> bool:
    """True when ``text`` is a plain name of shipped data (``sample-50``): lower-case ASCII
    letters, digits, ``-`` and ``_``, no dot, no slash. A page may send only such names."""
    return bool(_NAME.fullmatch(text))


def read_bytes(path: str | Path, *, limit: int = MAX_DATA_BYTES, what: str = "data file") -> bytes:
    """At most ``limit`` bytes of the regular file ``path``; :class:`DataFileError` when
    it is not a regular file, is larger, or cannot be opened."""
    name = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(name, flags)
    except FileNotFoundError as exc:
        raise DataFileError(name, f"cannot be read ({exc.strerror})",
                            f"check the path of the {what}") from None
    except IsADirectoryError:
        raise DataFileError(name, "is a folder, not a file",
                            f"give the path of the {what} inside it") from None
    except OSError as exc:
        raise DataFileError(name, f"cannot be opened ({exc.strerror})",
                            "check the path and its permissions") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise DataFileError(name, "is a folder, not a file",
                                f"give the path of the {what} inside it")
        if not stat.S_ISREG(info.st_mode):
            raise DataFileError(name, "is not a regular file (a device, a pipe or a socket)",
                                f"give the path of a {what} saved on disk")
        if info.st_size > limit:
            raise DataFileError(name, f"is {info.st_size:,} bytes, over the limit of "
                                f"{limit:,} bytes for a {what}",
                                f"a {what} is a small text file: check that this is the right one")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(65536, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise DataFileError(name, f"grew past the limit of {limit:,} bytes for a {what} "
                                "while it was read", "check that this is the right file")
        return b"".join(chunks)
    except OSError as exc:
        raise DataFileError(name, f"cannot be read ({exc.strerror})",
                            "check the file and its permissions") from None
    finally:
        os.close(fd)


def read_text(path: str | Path, *, limit: int = MAX_DATA_BYTES, what: str = "data file") -> str:
    """The UTF-8 text of the regular file ``path`` (see :func:`read_bytes`)."""
    raw = read_bytes(path, limit=limit, what=what)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataFileError(str(path), f"is not UTF-8 text (byte {exc.start} cannot be read)",
                            f"save it as UTF-8 text; a {what} is a text file") from None


__all__ = ["MAX_DATA_BYTES", "DataFileError", "is_data_name", "read_bytes", "read_text"]
