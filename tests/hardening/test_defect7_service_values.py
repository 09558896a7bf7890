"""Defect 7 of issue 27: ``install-service`` checks ``--board`` and ``--host`` and quotes
every value for the format it goes into: a newline never adds a line to the systemd unit or
the kiosk entry, ``COM5&calc.exe`` and ``%`` never reach cmd.exe as operators, a control
character never reaches plistlib (a traceback before)."""

from __future__ import annotations

import plistlib
import re

import pytest
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.service import units

BAD_BOARDS = ["auto\nExecStartPre=/bin/sh -c evil", "COM5&calc.exe", "COM5%PATH%",
              "/dev/tty\x07ACM0", "COM5 | calc", "/dev/ttyACM0\x00", "x\u2028y", ""]
BAD_HOSTS = ["127.0.0.1\nExecStartPre=evil", "0.0.0.0&calc", "a b", "host%x%", "\x1b[31m"]


@pytest.mark.parametrize("system", ["linux", "macos", "windows"])
@pytest.mark.parametrize(("flag", "value"), [*(("--board", b) for b in BAD_BOARDS),
                                             *(("--host", h) for h in BAD_HOSTS)])
def test_service_values_a_bad_board_or_host_is_refused_before_any_file(
        system: str, flag: str, value: str) -> None:
    result = CliRunner().invoke(main, ["install-service", "kato", flag, value, "--print",
                                       "--system", system])
    assert result.exit_code == 2, result.output
    assert flag in result.output and "Traceback" not in result.output
    assert "# ----" not in result.output  # nothing was shown as a file to write
    assert result.exception is None or isinstance(result.exception, SystemExit)


GOOD = [("/dev/ttyACM0", "127.0.0.1"), ("COM5", "0.0.0.0"), (r"\\.\COM10", "::1"),
        ("socket://127.0.0.1:7000", "raspberrypi.local"), ("/dev/cu.usbmodem1101", "fe80::1")]


@pytest.mark.parametrize(("board", "host"), GOOD)
def test_service_values_real_boards_and_hosts_pass(board: str, host: str) -> None:
    config = units.ServiceConfig(exe="/usr/bin/meridian-table", board=board, host=host)
    assert config.play_args()[4] == board


# An odd but real program path: spaces, and each format's special characters.
ODD_EXE = "/home/ann/my $HOME 100% & co/bin/meridian-table"


def test_service_values_systemd_doubles_dollar_and_percent_and_keeps_one_line() -> None:
    unit = units.systemd_unit(units.ServiceConfig(exe=ODD_EXE))
    line = next(x for x in unit.splitlines() if x.startswith("ExecStart="))
    assert '"/home/ann/my $$HOME 100%% & co/bin/meridian-table"' in line
    assert len([x for x in unit.splitlines() if x.startswith("Exec")]) == 1


def _desktop_args(exec_line: str) -> list[str]:
    """The Desktop Entry Specification's reading of an Exec value."""
    text = exec_line.replace("\\\\", "\\")  # the file's string escaping
    args, current, quoted, escaped, started = [], "", False, False, False
    for char in text:
        if escaped:
            current += char
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
            started = True
        elif char == " " and not quoted:
            if current or started:
                args.append(current)
            current, started = "", False
        else:
            current += char
    args.append(current)
    return [a.replace("%%", "%") for a in args]


def test_service_values_the_kiosk_entry_quotes_its_exec_per_the_desktop_spec() -> None:
    entry = units.autostart_entry(units.ServiceConfig(exe=ODD_EXE))
    execs = [x for x in entry.splitlines() if x.startswith("Exec")]
    assert len(execs) == 1
    assert _desktop_args(execs[0][len("Exec="):]) == [ODD_EXE, "kiosk", "--url",
                                                      "http://127.0.0.1:8765/"]


def test_service_values_the_plist_carries_the_values_exactly() -> None:
    config = units.ServiceConfig(exe=ODD_EXE, board=r"\\.\COM10", host="::1")
    data = plistlib.loads(units.launchd_plist(config, "/tmp/log").encode())
    assert data["ProgramArguments"] == config.play_args()


def _cmd_outside_quotes(line: str) -> str:
    out, quoted = "", False
    for char in line:
        if char == '"':
            quoted = not quoted
        elif not quoted:
            out += char
    return out


def test_service_values_the_windows_command_file_gives_cmd_no_operators() -> None:
    exe = r"C:\Program Files (x86)\a&b^c|d%PATH%\meridian-table.exe"
    text = units.windows_startup(units.ServiceConfig(exe=exe, board="COM5"))
    line = text.split("\r\n")[2]
    bare = _cmd_outside_quotes(line)
    assert not re.search(r"[&|<>^()]", bare), bare
    assert "%%PATH%%" in line and "%PATH%" not in line.replace("%%PATH%%", "")
    assert text.count("\r\n") == 3  # no line was added
    with pytest.raises(units.ServiceValueError, match="double quote"):
        units.windows_startup(units.ServiceConfig(exe='C:\\a"b\\m.exe'))
