"""The texts that start the table with the computer: pure functions, no I/O.

- Linux (a Raspberry Pi kiosk): a systemd *user* unit that runs ``meridian-table play``
  at boot and logs to the journal; an XDG autostart entry that opens the page full
  screen in Chromium's kiosk mode when the desktop session starts (only a session with a
  display runs it); the udev rule that gives the Pico a stable name and lets the
  logged-in user open it without root.
- macOS: a launchd agent (``~/Library/LaunchAgents``), loaded at login.
- Windows: a command file in the user's Startup folder, run at login.

``meridian_table.service.install`` writes them; ``meridian-table install-service
--print`` shows them.
"""

from __future__ import annotations

import plistlib
import shlex
import subprocess
from dataclasses import dataclass, field

from meridian_table.games import registry
from meridian_table.link.discovery import PICO_PID, PICO_VID

UNIT_NAME = "meridian-table.service"
AUTOSTART_NAME = "meridian-table-kiosk.desktop"
UDEV_NAME = "60-meridian-table.rules"
LAUNCHD_LABEL = "org.meridian-table.table"
WINDOWS_NAME = "meridian-table.cmd"
#: The stable name the udev rule gives every Meridian board: /dev/meridian-table.
UDEV_SYMLINK = "meridian-table"
#: The table's share of CPU and disk against the default of 100 (systemd CPUWeight=,
#: IOWeight=), and the niceness of the kiosk browser (`meridian-table kiosk --nice`).
TABLE_CPU_WEIGHT = 1000
TABLE_IO_WEIGHT = 1000
KIOSK_NICE = 10
HEADER = ("Written by `meridian-table install-service`; "
          "`meridian-table uninstall-service` removes it.")


@dataclass(frozen=True)
class ServiceConfig:
    """What the service runs: ``exe play GAME --board BOARD --host HOST --port PORT``."""

    exe: str
    #: The game ``play`` starts (the registry's default game when not given).
    game: str = field(default_factory=registry.default_game)
    board: str = "auto"
    host: str = "127.0.0.1"
    port: int = 8765
    extra: tuple[str, ...] = field(default=())

    def play_args(self) -> list[str]:
        return [self.exe, "play", self.game, "--board", self.board, "--host", self.host,
                "--port", str(self.port), *self.extra]

    def kiosk_args(self) -> list[str]:
        return [self.exe, "kiosk", "--url", self.page_url()]

    def page_url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"


def _systemd_quote(args: list[str]) -> str:
    # systemd's ExecStart= splits like a shell on whitespace and honours double quotes;
    # "%" is its specifier character and must be doubled.
    out = []
    for arg in args:
        arg = arg.replace("%", "%%")
        if not arg or any(c in arg for c in " \t\"'\\;$"):
            arg = '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'
        out.append(arg)
    return " ".join(out)


def systemd_unit(config: ServiceConfig) -> str:
    """The user unit: the table at boot (with lingering), on the board if one is present
    (``--board auto`` falls back to the virtual board), logging to the journal."""
    return f"""\
# {HEADER}
[Unit]
Description=Meridian Table: the board, the rules and the table page
After=network.target

[Service]
Type=exec
ExecStart={_systemd_quote(config.play_args())}
Restart=on-failure
RestartSec=5
Environment=PYTHONUNBUFFERED=1
# The board's answer (switch to LED) must stay within milliseconds while the kiosk browser
# and a bot share the CPU: when they compete, the table gets {TABLE_CPU_WEIGHT // 100} times
# the default share of CPU time and of the disk. A user unit cannot raise a priority above
# normal (Nice= below 0 would keep the table from starting), so Nice= stays 0 and the
# others yield instead: `meridian-table kiosk` runs the browser at nice {KIOSK_NICE}, and a
# bot thinks in a worker at nice 10.
Nice=0
CPUWeight={TABLE_CPU_WEIGHT}
IOWeight={TABLE_IO_WEIGHT}
# Everything the table prints goes to the journal: journalctl --user -u {UNIT_NAME}
StandardOutput=journal
StandardError=journal
SyslogIdentifier=meridian-table

[Install]
WantedBy=default.target
"""


def autostart_entry(config: ServiceConfig) -> str:
    """The XDG autostart entry: a desktop session (that is, a display) opens the page
    full screen. ``meridian-table kiosk`` waits for the table's page first."""
    command = " ".join(shlex.quote(a) for a in config.kiosk_args())
    return f"""\
# {HEADER}
[Desktop Entry]
Type=Application
Name=Meridian Table (kiosk)
Comment=The table page full screen in Chromium's kiosk mode
Exec={command}
Terminal=false
X-GNOME-Autostart-enabled=true
"""


def udev_rule() -> str:
    """The Pico (VID:PID 2E8A:0005) as /dev/meridian-table, open to the seated user
    (``uaccess``) and to the ``dialout`` group, without root."""
    vid, pid = f"{PICO_VID:04x}", f"{PICO_PID:04x}"
    return f"""\
# {HEADER}
# A Raspberry Pi Pico running MicroPython: a stable name and access without root.
SUBSYSTEM=="tty", ATTRS{{idVendor}}=="{vid}", ATTRS{{idProduct}}=="{pid}", \
SYMLINK+="{UDEV_SYMLINK}", MODE="0660", GROUP="dialout", TAG+="uaccess"
"""


def launchd_plist(config: ServiceConfig, log_file: str) -> str:
    """The macOS launch agent: started at login, restarted if it fails."""
    data = {
        "Label": LAUNCHD_LABEL,
        "ProgramArguments": config.play_args(),
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "ThrottleInterval": 5,
        "EnvironmentVariables": {"PYTHONUNBUFFERED": "1"},
        "StandardOutPath": log_file,
        "StandardErrorPath": log_file,
    }
    return plistlib.dumps(data, sort_keys=False).decode()


def windows_startup(config: ServiceConfig) -> str:
    """The Startup-folder command file: the table in a minimised window at login (what
    it prints stays in that window)."""
    command = subprocess.list2cmdline(config.play_args())
    return f'@echo off\r\nrem {HEADER}\r\nstart "Meridian Table" /min {command}\r\n'

