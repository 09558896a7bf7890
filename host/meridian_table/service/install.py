"""Writing and removing what starts the table with the computer.

``plan(system, config)`` lists the files (path, text, whether the folder is the
system's and needs root). ``install`` writes them and records them in a manifest in the
user's state folder; ``uninstall`` removes exactly what the manifest lists, so it never
touches a file it did not write. Commands that tell the system (``systemctl --user``,
``launchctl``, ``udevadm``) are returned, not run, so the CLI decides and the tests need
no running systemd.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import platformdirs

from meridian_table.service import units
from meridian_table.textload import json_loads

LOGGER = logging.getLogger(__name__)

System = Literal["linux", "macos", "windows"]
SYSTEMS: tuple[System, ...] = ("linux", "macos", "windows")
UDEV_DIR = Path("/etc/udev/rules.d")
MANIFEST = "service.json"


class ServiceError(RuntimeError):
    """Installing or removing the service failed; the message says what to do."""


@dataclass(frozen=True)
class Item:
    """One file: ``kind`` is "unit", "kiosk", "udev", "launchd" or "startup"."""

    kind: str
    path: Path
    text: str
    needs_root: bool = False


def this_system() -> System:
    if sys.platform == "win32":
        return "windows"
    if sys.platform == "darwin":
        return "macos"
    return "linux"


def state_dir() -> Path:
    """Where the manifest lives (``platformdirs``' user state folder)."""
    return Path(platformdirs.user_state_dir("meridian-table"))


def _config_home() -> Path:
    # systemd and XDG autostart read $XDG_CONFIG_HOME, else ~/.config, on every Linux.
    xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
    return Path(xdg) if xdg else Path.home() / ".config"


def _startup_folder() -> Path:
    appdata = os.environ.get("APPDATA", "").strip()
    base = Path(appdata) if appdata else Path.home() / "AppData" / "Roaming"
    return base / "Microsoft" / "Windows" / "Start Menu" / "Programs" / "Startup"


def plan(system: System, config: units.ServiceConfig, *, kiosk: bool = True,
         udev: bool = True, udev_dir: Path = UDEV_DIR) -> list[Item]:
    """The files that start the table on ``system`` (pure: writes nothing)."""
    if system == "linux":
        items = [Item("unit", _config_home() / "systemd" / "user" / units.UNIT_NAME,
                      units.systemd_unit(config))]
        if kiosk:
            items.append(Item("kiosk", _config_home() / "autostart" / units.AUTOSTART_NAME,
                              units.autostart_entry(config)))
        if udev:
            items.append(Item("udev", udev_dir / units.UDEV_NAME, units.udev_rule(),
                              needs_root=not _writable(udev_dir)))
        return items
    if system == "macos":
        log = Path.home() / "Library" / "Logs" / "meridian-table" / "table.log"
        path = Path.home() / "Library" / "LaunchAgents" / f"{units.LAUNCHD_LABEL}.plist"
        return [Item("launchd", path, units.launchd_plist(config, str(log)))]
    return [Item("startup", _startup_folder() / units.WINDOWS_NAME,
                 units.windows_startup(config))]


def _writable(folder: Path) -> bool:
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return os.access(probe, os.W_OK)


def activate_commands(system: System, items: list[Item]) -> list[list[str]]:
    """What tells the system about the new files (run by the CLI unless --files-only)."""
    kinds = {item.kind: item for item in items}
    commands: list[list[str]] = []
    if "unit" in kinds:
        commands += [["systemctl", "--user", "daemon-reload"],
                     ["systemctl", "--user", "enable", "--now", units.UNIT_NAME]]
    if "udev" in kinds:
        commands += [["udevadm", "control", "--reload-rules"],
                     ["udevadm", "trigger", "--subsystem-match=tty"]]
    if "launchd" in kinds:
        commands.append(["launchctl", "load", "-w", str(kinds["launchd"].path)])
    return commands


def deactivate_commands(system: System, items: list[Item]) -> list[list[str]]:
    """What stops the service before its files go."""
    kinds = {item.kind: item for item in items}
    commands: list[list[str]] = []
    if "unit" in kinds:
        commands.append(["systemctl", "--user", "disable", "--now", units.UNIT_NAME])
    if "launchd" in kinds:
        commands.append(["launchctl", "unload", "-w", str(kinds["launchd"].path)])
    return commands


def write(items: list[Item], manifest_dir: Path | None = None) -> Path:
    """Write every file that needs no root and record them all; returns the manifest.

    Files in a system folder (``needs_root``) are recorded but left to the caller (the
    CLI copies them with sudo, after asking)."""
    folder = manifest_dir or state_dir()
    for item in items:
        if item.needs_root:
            continue
        item.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = item.path.with_name(item.path.name + ".tmp")
        tmp.write_text(item.text, encoding="utf-8", newline="")
        tmp.replace(item.path)
        LOGGER.info("wrote %s", item.path)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / MANIFEST
    previous = read_manifest(folder)
    known = {str(i.path): i for i in previous}
    for item in items:
        known[str(item.path)] = item
    records = [{"kind": i.kind, "path": str(i.path), "needs_root": i.needs_root}
               for i in known.values()]
    manifest.write_text(json.dumps({"files": records}, indent=2), encoding="utf-8")
    return manifest


def read_manifest(manifest_dir: Path | None = None) -> list[Item]:
    """What an earlier ``install-service`` wrote ([] when nothing). Raises ServiceError
    for a manifest that is not ours."""
    manifest = (manifest_dir or state_dir()) / MANIFEST
    try:
        data = json_loads(manifest.read_text(encoding="utf-8"))
        return [Item(str(r["kind"]), Path(r["path"]), "", bool(r.get("needs_root")))
                for r in data["files"]]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ServiceError(
            f"{manifest}: not a manifest written by install-service ({exc}); delete it and "
            "remove the service's files by hand (see docs/MAKERS.md)"
        ) from None


def remove(items: list[Item], manifest_dir: Path | None = None) -> list[Item]:
    """Remove the files that need no root, forget them; returns those left for root."""
    left: list[Item] = []
    for item in items:
        if item.needs_root and item.path.exists() and not _writable(item.path.parent):
            left.append(item)
            continue
        try:
            item.path.unlink()
            LOGGER.info("removed %s", item.path)
        except FileNotFoundError:
            pass
    manifest = (manifest_dir or state_dir()) / MANIFEST
    if left:
        records = [{"kind": i.kind, "path": str(i.path), "needs_root": True} for i in left]
        manifest.write_text(json.dumps({"files": records}, indent=2), encoding="utf-8")
    else:
        manifest.unlink(missing_ok=True)
    return left
