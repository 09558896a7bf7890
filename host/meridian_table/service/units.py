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

import ipaddress
import plistlib
import re
import unicodedata
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


class ServiceValueError(ValueError):
    """A value that may not go into a unit, a plist or a command file; ``flag`` names it."""

    def __init__(self, flag: str, value: str, problem: str, fix: str) -> None:
        super().__init__(f"{flag} {value[:60]!r}: {problem}; {fix}")
        self.flag = flag


#: A board: auto, sim, a port (/dev/ttyACM0, /dev/cu.usbmodem1101, COM5, \\.\COM10) or
#: a pyserial URL (socket://127.0.0.1:7000). No space, quote, ``%``, ``&``, ``$``...
_BOARD = re.compile(r"[A-Za-z0-9_./\\:@+-]{1,200}")
#: A host name (RFC 1123 labels) or an IP address.
_HOSTNAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                       r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*")
_GAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")


def _plain_text(flag: str, value: str) -> None:
    """No line break, NUL or other control character: each would end or split a line of
    the unit, the kiosk entry or the command file (or make the plist unreadable)."""
    for char in value:
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            raise ServiceValueError(flag, value, f"holds the control character U+{ord(char):04X}",
                                    "type it again without it")


def check_board(value: str) -> str:
    _plain_text("--board", value)
    if not _BOARD.fullmatch(value):
        raise ServiceValueError(
            "--board", value, "is not a port name",
            "give auto, sim, a port such as /dev/ttyACM0 or COM5, or a socket:// URL "
            "(letters, digits and . / \\ : @ + - _ only)")
    return value


def check_host(value: str) -> str:
    _plain_text("--host", value)
    try:
        ipaddress.ip_address(value)
        return value
    except ValueError:
        pass
    if not _HOSTNAME.fullmatch(value):
        raise ServiceValueError("--host", value, "is not an IP address or a host name",
                                "give an address such as 127.0.0.1, 0.0.0.0 or ::1, or a "
                                "host name such as raspberrypi.local")
    return value


@dataclass(frozen=True)
class ServiceConfig:
    """What the service runs: ``exe play GAME --board BOARD --host HOST --port PORT``.
    Every value is checked here (:class:`ServiceValueError`) before any file is written;
    each file's writer then quotes for its own format."""

    exe: str
    #: The game ``play`` starts (the registry's default game when not given).
    game: str = field(default_factory=registry.default_game)
    board: str = "auto"
    host: str = "127.0.0.1"
    port: int = 8765
    extra: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        _plain_text("the program path", self.exe)
        if not _GAME.fullmatch(self.game):
            raise ServiceValueError("GAME", self.game, "is not a game name",
                                    "give the name of an installed game (meridian-table play --help lists them)")
        check_board(self.board)
        check_host(self.host)
        if isinstance(self.port, bool) or not isinstance(self.port, int) or not (
                1 <= self.port <= 65535):
            raise ServiceValueError("--port", str(self.port), "is not a port 1..65535",
                                    "give a port such as 8765")
        for arg in self.extra:
            _plain_text("an extra argument", arg)

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
    # "%" is its specifier character and "$" its variable sign: both are doubled.
    out = []
    for arg in args:
        arg = arg.replace("%", "%%").replace("$", "$$")
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
    command = " ".join(_desktop_quote(a) for a in config.kiosk_args())
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


_DESKTOP_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def _desktop_quote(arg: str) -> str:
    """One argument of a desktop entry's ``Exec=`` (the Desktop Entry Specification):
    quoted in double quotes when it holds a reserved character, with ``"``, `````, ``$``
    and ``\\`` escaped inside; ``%`` (a field code) doubled; then the string escaping of
    the file itself doubles every backslash."""
    arg = arg.replace("%", "%%")
    if arg and not any(c in _DESKTOP_RESERVED for c in arg):
        return arg
    inner = "".join("\\" + c if c in '"`$\\' else c for c in arg)
    return ('"' + inner + '"').replace("\\", "\\\\")


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
    command = " ".join(_cmd_quote(a) for a in config.play_args())
    return f'@echo off\r\nrem {HEADER}\r\nstart "Meridian Table" /min {command}\r\n'


_CMD_PLAIN = re.compile(r"[A-Za-z0-9_./\\:=+-]+")


def _cmd_quote(arg: str) -> str:
    """One argument of a line in a ``.cmd`` file: in double quotes unless it is plain, so
    ``&``, ``|``, ``<``, ``>``, ``^`` and ``(``/``)`` are text, not cmd.exe's operators;
    ``%`` doubled (a batch file expands ``%NAME%`` even in quotes). A double quote cannot
    be quoted for cmd.exe, so it is refused."""
    if '"' in arg:
        raise ServiceValueError("a value", arg, "holds a double quote, which a Windows "
                                "command file cannot carry", "remove it")
    arg = arg.replace("%", "%%")
    if _CMD_PLAIN.fullmatch(arg):
        return arg
    return '"' + arg + '"'

