"""Data shipped inside the installed package, found with :mod:`importlib.resources`.

Board profiles (each game's ``boards/``), each game package's own data (its
``data/`` folder: a map, a card set) and the firmware (the ``meridian_fw`` package, its
``main.py`` included) travel in the wheel, so ``pip install
meridian-table`` plays without a clone. Nothing here climbs out of the package into a
checkout: an editable install and a wheel answer the same way.

Callers get real folders on disk because the tools they feed need paths (``mpy-cross``
and ``mpremote`` read files, MicroPython's ``MICROPYPATH`` lists folders). A package
imported from a zip has no such folders; :class:`PackageDataError` says so.
"""

from __future__ import annotations

import logging
from importlib import resources
from pathlib import Path

LOGGER = logging.getLogger(__name__)

#: The firmware package: on the Pico, and run by the virtual board.
FIRMWARE_PACKAGE = "meridian_fw"


class PackageDataError(RuntimeError):
    """Shipped data that is missing or not a folder on disk; the message says which."""


def package_path(package: str, *parts: str) -> Path:
    """The file or folder ``parts`` inside the installed ``package``, as a path on disk.

    ``package_path("meridian_table.games.kato", "boards")`` is the folder of the shipped
    board profiles. Raises :class:`PackageDataError` when the package is not installed
    as files (a zip) or the data is missing from the installation.
    """
    try:
        found = resources.files(package).joinpath(*parts)
    except ModuleNotFoundError as exc:
        raise PackageDataError(
            f"package {package!r} is not installed; reinstall meridian-table"
        ) from exc
    if not isinstance(found, Path):
        raise PackageDataError(
            f"{package}/{'/'.join(parts)} is inside {type(found).__name__}, not a folder on "
            "disk; install meridian-table unzipped (pip install meridian-table)"
        )
    if not found.exists():
        raise PackageDataError(
            f"{found} is missing from the installed {package}; reinstall meridian-table "
            "(pip install --force-reinstall meridian-table)"
        )
    return found


def firmware_package() -> Path:
    """The ``meridian_fw`` package folder (``app.py``, ``hal/``, ``main.py`` ...)."""
    return package_path(FIRMWARE_PACKAGE)


def firmware_root() -> Path:
    """The folder that holds ``meridian_fw``: what MicroPython's path and ``mpy-cross -s``
    names are relative to (``meridian_fw/app.py`` on the Pico)."""
    return firmware_package().parent


__all__ = ["FIRMWARE_PACKAGE", "PackageDataError", "firmware_package", "firmware_root", "package_path"]
