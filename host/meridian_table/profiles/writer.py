"""Writing board profiles: stable, diff-friendly JSON with one site per line."""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from meridian_table.profiles.model import Profile

LOGGER = logging.getLogger(__name__)

# Objects written one entry per line, so a calibration run shows as a readable diff.
_ONE_PER_LINE = ("sites", "buttons")


def dumps_profile(data: dict[str, Any]) -> str:
    """Format a profile dict (``Profile.to_dict()``) as the committed JSON style."""
    lines = ["{"]
    items = list(data.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if key in _ONE_PER_LINE and isinstance(value, dict) and value:
            lines.append(f"  {json.dumps(key)}: {{")
            entries = list(value.items())
            for j, (name, entry) in enumerate(entries):
                inner = "," if j < len(entries) - 1 else ""
                lines.append(f"    {json.dumps(name)}: {json.dumps(entry)}{inner}")
            lines.append(f"  }}{comma}")
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False)
            text = text.replace("\n", "\n  ")
            lines.append(f"  {json.dumps(key)}: {_compact_lists(text)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _compact_lists(text: str) -> str:
    """Put short lists of numbers (pin lists) on one line."""
    out: list[str] = []
    buf: list[str] | None = None
    for line in text.split("\n"):
        stripped = line.strip()
        if buf is not None:
            if stripped in ("]", "],"):
                out[-1] = out[-1] + ", ".join(buf) + stripped
                buf = None
            elif stripped.rstrip(",").lstrip("-").isdigit():
                buf.append(stripped.rstrip(","))
            else:  # not a list of numbers after all: give the lines back untouched
                out.extend(buf)
                out.append(line)
                buf = None
            continue
        if stripped.endswith("[") and not stripped.startswith("["):
            out.append(line)
            buf = []
            continue
        out.append(line)
    return "\n".join(out)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a synced temporary file, so a crash or a full
    disk never leaves half a file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_profile(profile: Profile, path: Path, backup: bool = True) -> Path | None:
    """Write ``profile`` to ``path`` atomically; keep ``<path>.bak`` when it existed.

    Returns the backup's path, or None when there was nothing to back up.
    """
    text = dumps_profile(profile.to_dict())
    path.parent.mkdir(parents=True, exist_ok=True)
    backup_path: Path | None = None
    if backup and path.exists():
        backup_path = path.with_name(path.name + ".bak")
        shutil.copy2(path, backup_path)
        LOGGER.info("backed up %s to %s", path, backup_path)
    write_atomically(path, text)
    return backup_path
