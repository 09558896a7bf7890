"""A game's own page files: ``GET /games/<id>/static/<path>`` from the game's package.

A game that needs code on the table page (its own drawing, panels or control labels)
ships it in the ``static/`` folder of the package that registers its spec, names it in
``PageSpec.script`` (``"static/page.js"``), and the page loads it from here. The
package is found through the game's ``meridian_table.games`` entry point and read with
importlib.resources, so it works from a clone and from an installed wheel alike.

Only files under the package's ``static/`` folder are served, only with the suffixes in
:data:`MEDIA_TYPES`; a path that climbs out (``..``), is absolute or hides in a dot
folder is refused.
"""

from __future__ import annotations

import importlib
import logging
from importlib.metadata import entry_points
from importlib.resources import files
from importlib.resources.abc import Traversable

from meridian_table.games import registry

LOGGER = logging.getLogger(__name__)

STATIC = "static"
MEDIA_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
    ".html": "text/html; charset=utf-8",
    ".wav": "audio/wav",
}


class GameFileError(LookupError):
    """A game file that is not served: unknown game, bad path or no such file."""


def package_of(game: str) -> str:
    """The package that registers ``game`` (its entry point's module's package)."""
    registry.spec(game)  # UnknownGameError (a ValueError) names the installed games
    for point in entry_points(group=registry.GROUP, name=game):
        module = importlib.import_module(point.module)
        if module.__package__:
            return module.__package__
    raise GameFileError(f"game {game!r} has no entry point in {registry.GROUP!r}")


def check_path(path: str) -> tuple[str, ...]:
    """``path`` (below ``static/``) as its parts; GameFileError when it is not a plain
    relative path to a file of a served type."""
    parts = tuple(path.split("/"))
    if (
        not path
        or "\\" in path
        or "\x00" in path
        or any(part in ("", ".", "..") or part.startswith(".") for part in parts)
    ):
        raise GameFileError(f"game file {path!r} is not a plain relative path")
    suffix = "." + parts[-1].rpartition(".")[2] if "." in parts[-1] else ""
    if suffix not in MEDIA_TYPES:
        raise GameFileError(
            f"game file {path!r}: only {', '.join(sorted(MEDIA_TYPES))} files are served"
        )
    return parts


def game_file(game: str, path: str) -> tuple[bytes, str]:
    """The bytes and media type of ``static/<path>`` in ``game``'s package."""
    parts = check_path(path)
    try:
        package = package_of(game)
    except ValueError as exc:
        raise GameFileError(str(exc)) from None
    node: Traversable = files(package).joinpath(STATIC)
    for part in parts:
        node = node.joinpath(part)
    if not node.is_file():
        raise GameFileError(f"game {game!r} has no page file static/{path}")
    suffix = "." + parts[-1].rpartition(".")[2]
    return node.read_bytes(), MEDIA_TYPES[suffix]


__all__ = ["MEDIA_TYPES", "GameFileError", "check_path", "game_file", "package_of"]
