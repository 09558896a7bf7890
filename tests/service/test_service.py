"""`install-service`, `uninstall-service` and `kiosk`: the generated texts, checked by the
tools that read them where this machine has them, and a round trip in a temporary home.

No systemd, launchd or udev is run: ``--files-only`` writes the files and runs nothing.
"""

from __future__ import annotations

import http.server
import os
import plistlib
import re
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.service import install, units

EXE = "/opt/meridian table/bin/meridian-table"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway home: the unit, the autostart entry and the manifest land in it."""
    for name, sub in (("HOME", "home"), ("XDG_CONFIG_HOME", "home/.config"),
                      ("XDG_STATE_HOME", "home/.local/state"), ("APPDATA", "appdata")):
        monkeypatch.setenv(name, str(tmp_path / sub))
    (tmp_path / "home").mkdir()
    return tmp_path


def _sections(text: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            current = out.setdefault(line.strip("[]"), {})
        else:
            key, _, value = line.partition("=")
            current[key] = value
    return out


def test_print_shows_the_unit_and_the_udev_rule_and_writes_nothing(home: Path) -> None:
    result = CliRunner().invoke(main, ["install-service", "--print", "--system", "linux",
                                       "--udev-dir", str(home / "udev")])
    assert result.exit_code == 0, result.output
    assert f"# ---- {home / 'home/.config/systemd/user/meridian-table.service'}" in result.output
    assert "ExecStart=" in result.output and " play kato --board auto " in result.output
    assert "StandardOutput=journal" in result.output
    assert 'ATTRS{idVendor}=="2e8a", ATTRS{idProduct}=="0005"' in result.output
    assert "meridian-table kiosk --url http://127.0.0.1:8765/" in result.output
    assert not (home / "home/.config").exists() and not (home / "udev").exists()


def test_the_unit_starts_the_table_at_boot_and_logs_to_the_journal() -> None:
    config = units.ServiceConfig(exe=EXE, game="colovini", port=9000)
    unit = _sections(units.systemd_unit(config))
    assert shlex.split(unit["Service"]["ExecStart"]) == [
        EXE, "play", "colovini", "--board", "auto", "--host", "127.0.0.1", "--port", "9000"]
    assert unit["Service"]["StandardOutput"] == unit["Service"]["StandardError"] == "journal"
    assert unit["Service"]["Restart"] == "on-failure"
    assert unit["Install"]["WantedBy"] == "default.target"  # with lingering: at boot


def test_a_percent_sign_is_escaped_for_systemd() -> None:
    unit = units.systemd_unit(units.ServiceConfig(exe="/home/a%b/meridian-table"))
    assert "ExecStart=/home/a%%b/meridian-table play" in unit


def _verify(path: Path) -> str:
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", str(path)],
                          capture_output=True, text=True, timeout=60)
    return (done.stderr + done.stdout).strip()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_accepts_the_unit_and_would_name_a_broken_one(tmp_path: Path) -> None:
    exe = tmp_path / "meridian-table"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    text = units.systemd_unit(units.ServiceConfig(exe=str(exe)))
    good = tmp_path / units.UNIT_NAME
    good.write_text(text)
    assert _verify(good) == ""
    broken = tmp_path / "broken.service"
    broken.write_text(text.replace("Type=exec", "Type=sometimes"))
    assert "Failed to parse service type" in _verify(broken)


def test_the_udev_rule_matches_the_pico_and_grants_access_without_root() -> None:
    rule = "".join(line for line in units.udev_rule().replace("\\\n", "").splitlines()
                   if not line.startswith("#"))
    pairs = dict((k, (op, v)) for k, op, v in re.findall(r'([A-Z]+(?:\{\w+\})?)(==|\+=|=)"([^"]*)"',
                                                         rule))
    assert pairs["SUBSYSTEM"] == ("==", "tty")
    assert pairs["ATTRS{idVendor}"] == ("==", "2e8a")
    assert pairs["ATTRS{idProduct}"] == ("==", "0005")
    assert pairs["SYMLINK"] == ("+=", "meridian-table")
    assert pairs["TAG"] == ("+=", "uaccess") and pairs["MODE"] == ("=", "0660")
    # Every clause was understood: nothing left over but separators.
    leftover = re.sub(r'[A-Z]+(?:\{\w+\})?(==|\+=|=)"[^"]*"', "", rule)
    assert leftover.replace(",", "").strip() == ""


def test_the_macos_agent_and_the_windows_command_run_the_table() -> None:
    config = units.ServiceConfig(exe=EXE)
    agent = plistlib.loads(units.launchd_plist(config, "/Users/a/Library/Logs/t.log").encode())
    assert agent["ProgramArguments"] == config.play_args() and agent["RunAtLoad"] is True
    assert agent["KeepAlive"] == {"SuccessfulExit": False}
    command = units.windows_startup(units.ServiceConfig(exe=r"C:\Program Files\mt\meridian-table.exe"))
    assert command.endswith("\r\n") and "\n" not in command.replace("\r\n", "")
    assert ('start "Meridian Table" /min "C:\\Program Files\\mt\\meridian-table.exe" play kato'
            in command)


def _install(home: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["install-service", "--files-only", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_uninstall_removes_exactly_what_install_wrote(home: Path) -> None:
    udev = home / "udev"
    udev.mkdir()
    (udev / "99-other.rules").write_text("# someone else's\n")
    shown = CliRunner().invoke(main, ["install-service", "--print", "--udev-dir", str(udev)])
    _install(home, "--udev", "--udev-dir", str(udev))
    unit = home / "home/.config/systemd/user/meridian-table.service"
    entry = home / "home/.config/autostart/meridian-table-kiosk.desktop"
    rule = udev / units.UDEV_NAME
    for path in (unit, entry, rule):
        assert path.exists(), path
        assert path.read_text() in shown.output  # what --print showed is what was written
    (unit.parent / "other.service").write_text("[Unit]\n")
    result = CliRunner().invoke(main, ["uninstall-service", "--files-only"])
    assert result.exit_code == 0, result.output
    assert not unit.exists() and not entry.exists() and not rule.exists()
    assert (unit.parent / "other.service").exists() and (udev / "99-other.rules").exists()
    again = CliRunner().invoke(main, ["uninstall-service", "--files-only"])
    assert again.exit_code == 0 and "nothing to remove" in again.output


def test_without_consent_no_udev_rule_is_written(home: Path) -> None:
    udev = home / "udev"
    _install(home, "--udev-dir", str(udev), "--no-kiosk")
    assert not udev.exists()
    assert [i.kind for i in install.read_manifest()] == ["unit"]


@pytest.mark.parametrize(("system", "relative"), [
    ("macos", "home/Library/LaunchAgents/org.meridian-table.table.plist"),
    ("windows", "appdata/Microsoft/Windows/Start Menu/Programs/Startup/meridian-table.cmd"),
])
def test_macos_and_windows_files_round_trip(home: Path, system: str, relative: str) -> None:
    _install(home, "--system", system)
    assert (home / relative).exists()
    result = CliRunner().invoke(main, ["uninstall-service", "--files-only"])
    assert result.exit_code == 0, result.output
    assert not (home / relative).exists()


def test_a_foreign_manifest_is_named_not_trusted(home: Path) -> None:
    folder = install.state_dir()
    folder.mkdir(parents=True)
    (folder / install.MANIFEST).write_text("[1, 2]")
    result = CliRunner().invoke(main, ["uninstall-service", "--files-only"])
    assert result.exit_code == 1
    assert "not a manifest written by install-service" in result.output
    assert "Traceback" not in result.output


def test_an_unknown_game_is_named() -> None:
    result = CliRunner().invoke(main, ["install-service", "chess", "--print"])
    assert result.exit_code == 2 and "no game 'chess' is installed" in result.output


# -- kiosk ----------------------------------------------------------------------------------


@pytest.fixture
def page() -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_kiosk_does_nothing_without_a_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    result = CliRunner().invoke(main, ["kiosk", "--url", "http://127.0.0.1:9/"])
    assert result.exit_code == 0 and "No display attached" in result.output


def test_kiosk_opens_the_page_full_screen_once_it_answers(
        page: str, monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    result = CliRunner().invoke(main, ["kiosk", "--url", page, "--browser", "/usr/bin/chromium",
                                       "--print-command"])
    assert result.exit_code == 0, result.output
    words = result.output.split()
    assert words[0] == "/usr/bin/chromium" and "--kiosk" in words and words[-1] == page


@pytest.mark.skipif(os.name == "nt", reason="POSIX niceness")
@pytest.mark.parametrize("given, lowered", [((), units.KIOSK_NICE), (("--nice", "3"), 3)])
def test_kiosk_runs_the_browser_below_the_table(
        page: str, tmp_path: Path, given: tuple[str, ...], lowered: int) -> None:
    # The browser yields the CPU to the table (the board's answer comes first). The kiosk
    # command lowers itself, so it runs in a process of its own here.
    seen = tmp_path / "niceness"
    browser = tmp_path / "browser"
    browser.write_text(f"#!/bin/sh\nnice > {seen}\n")
    browser.chmod(0o755)
    env = dict(os.environ, DISPLAY=":0")
    env.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run(
        [sys.executable, "-m", "meridian_table.cli.main", "kiosk", "--url", page,
         "--browser", str(browser), *given], env=env, capture_output=True, text=True,
        timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(seen.read_text()) == min(19, max(os.nice(0), lowered))


def test_the_unit_gives_the_table_the_larger_share_of_cpu_and_disk() -> None:
    unit = _sections(units.systemd_unit(units.ServiceConfig(exe=EXE)))
    assert int(unit["Service"]["CPUWeight"]) == units.TABLE_CPU_WEIGHT > 100
    assert int(unit["Service"]["IOWeight"]) == units.TABLE_IO_WEIGHT > 100
    assert unit["Service"]["Nice"] == "0"  # a user unit cannot go above normal


def test_kiosk_names_a_page_that_never_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    result = CliRunner().invoke(main, ["kiosk", "--url", "http://127.0.0.1:9/",
                                       "--browser", "/usr/bin/chromium", "--wait", "0.2"])
    assert result.exit_code == 1
    assert "did not answer within 0.2 s" in result.output and "Traceback" not in result.output


def test_the_service_runs_this_installation(home: Path) -> None:
    shown = CliRunner().invoke(main, ["install-service", "--print", "--system", "linux"])
    exe = shlex.split(_sections(shown.output.split("# ---- ")[1].split("\n", 1)[1])
                      ["Service"]["ExecStart"])[0]
    assert os.access(exe, os.X_OK) and Path(exe).name == "meridian-table"
