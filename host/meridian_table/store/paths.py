"""Where the game log lives when nobody says otherwise."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import platformdirs

LOGGER = logging.getLogger(__name__)

ENV_VAR = "MERIDIAN_TABLE_DB"
FILENAME = "games.sqlite3"


def default_path() -> Path:
    """The log file: `$MERIDIAN_TABLE_DB` if set, else `games.sqlite3` in the user's data dir."""
    override = os.environ.get(ENV_VAR, "").strip()
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir("meridian-table")) / FILENAME


def resolve(path: str | os.PathLike[str] | None) -> Path:
    """An explicit path wins over the environment variable, which wins over the default."""
    if path is None:
        return default_path()
    return Path(path).expanduser()
