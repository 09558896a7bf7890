"""`meridian-table install-service`, `uninstall-service` and `kiosk`.

``install-service`` makes the computer start the table by itself: on Linux (a Raspberry
Pi next to the board) a systemd user unit, an XDG autostart entry that opens the page
full screen when a desktop session (a display) starts, and, with consent, the udev rule
for the Pico; on macOS a launchd agent; on Windows a command in the Startup folder.
``--print`` shows every file and writes nothing. ``uninstall-service`` removes exactly
what ``install-service`` wrote. ``kiosk`` waits for the table page and opens it in
Chromium's kiosk mode.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import click
import psutil

from meridian_table.games import registry
from meridian_table.service import install, units

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome", "msedge")
MAC_CHROME = Path("/Applications/Google Chrome.app/Contents/MacOS/Google Chrome")


def _exe() -> str:
    """The `meridian-table` command of this installation (its venv, pipx's, ...)."""
    name = "meridian-table.exe" if os.name == "nt" else "meridian-table"
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    found = shutil.which("meridian-table")
    if found is None:
        raise click.ClickException(
            "cannot find the `meridian-table` command of this installation; install it "
            "with `pipx install meridian-table` (or `make venv` in a clone) and run "
            "install-service from there"
        )
    return str(Path(found).resolve())


def _run(command: list[str], *, echo: bool = True) -> bool:
    if echo:
        click.echo("  $ " + " ".join(command))
    try:
        done = subprocess.run(command, check=False, capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        click.echo(f"    could not run {command[0]} ({exc})", err=True)
        return False
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        click.echo(f"    {command[0]} failed: {detail[-1] if detail else done.returncode}",
                   err=True)
        return False
    return True


def _as_root(command: list[str]) -> list[str]:
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return command
    return ["sudo", *command]


def _want_udev(choice: bool | None) -> bool:
    if choice is not None:
        return choice
    if not sys.stdin.isatty():
        click.echo("Not installing the udev rule (no one to ask): add --udev to install it.")
        return False
    return click.confirm(
        "Install the udev rule for the Pico (a stable /dev/meridian-table and access "
        "without root)? It goes into /etc/udev/rules.d and needs sudo", default=True)


def _install_root_files(items: list[install.Item]) -> None:
    for item in items:
        if not item.needs_root:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".rules", delete=False,
                                         encoding="utf-8") as tmp:
            tmp.write(item.text)
        try:
            ok = _run(_as_root(["install", "-D", "-m", "0644", tmp.name, str(item.path)]))
        finally:
            Path(tmp.name).unlink(missing_ok=True)
        if not ok:
            raise click.ClickException(
                f"could not write {item.path}; run install-service again from a terminal "
                "where sudo works, or leave the rule out with --no-udev"
            )


def register(group: click.Group) -> None:
    @group.command("install-service")
    @click.argument("game", required=False)
    @click.option("--board", default="auto", show_default=True,
                  help="auto (a Pico, else the virtual board), sim, or a port.")
    @click.option("--host", default="127.0.0.1", show_default=True, help="Page address.")
    @click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535),
                  help="Page port.")
    @click.option("--kiosk/--no-kiosk", default=True, show_default=True,
                  help="Linux: open the page full screen when a display session starts.")
    @click.option("--udev/--no-udev", default=None,
                  help="Linux: install the udev rule for the Pico (asked when not given).")
    @click.option("--print", "show", is_flag=True, help="Show every file; write nothing.")
    @click.option("--files-only", is_flag=True,
                  help="Write the files but run no systemctl, loginctl, udevadm or launchctl.")
    @click.option("--system", type=click.Choice(install.SYSTEMS), default=None,
                  help="Write for this system (default: this one); with --print, to see "
                  "another system's files.")
    @click.option("--udev-dir", type=click.Path(file_okay=False, path_type=Path),
                  default=install.UDEV_DIR, show_default=True, hidden=True,
                  help="Where the udev rule goes.")
    def install_service(game: str, board: str, host: str, port: int, kiosk: bool,
                        udev: bool | None, show: bool, files_only: bool,
                        system: str | None, udev_dir: Path) -> None:
        """Start the table when the computer starts (a Raspberry Pi kiosk, a Mac, a PC).

        Linux: a systemd user unit that runs `meridian-table play GAME` at boot (logs in
        the journal: `journalctl --user -u meridian-table`), a kiosk entry that opens the
        page full screen in Chromium when a display session starts, and (with consent)
        the udev rule for the Pico. macOS: a launchd agent. Windows: a Startup command.

        \b
        Examples:
          meridian-table install-service --print
          meridian-table install-service kato --udev
          meridian-table uninstall-service
        """
        game = game or registry.default_game()
        if game not in registry.specs():
            raise click.BadParameter(
                f"no game {game!r} is installed; choose one of: {', '.join(registry.specs())}",
                param_hint="GAME")
        chosen: install.System = next(
            (s for s in install.SYSTEMS if s == system), install.this_system())
        try:
            config = units.ServiceConfig(exe=_exe(), game=game, board=board, host=host,
                                         port=port)
        except units.ServiceValueError as exc:
            # Nothing is written: each value would land in a unit, plist or command file.
            raise click.BadParameter(str(exc), param_hint=exc.flag) from None
        if show:
            for item in install.plan(chosen, config, kiosk=kiosk, udev=True, udev_dir=udev_dir):
                click.echo(f"# ---- {item.path}" + (" (needs root)" if item.needs_root else ""))
                click.echo(item.text.replace("\r\n", "\n"))
            return
        want_udev = chosen == "linux" and _want_udev(udev)
        items = install.plan(chosen, config, kiosk=kiosk, udev=want_udev, udev_dir=udev_dir)
        if any(i.needs_root for i in items) and files_only:
            raise click.BadParameter(
                f"the udev rule goes into {udev_dir}, which needs root; drop --files-only "
                "or add --no-udev", param_hint="--files-only")
        _install_root_files(items)
        manifest = install.write(items)
        for item in items:
            click.echo(f"wrote {item.path}")
        if chosen == "linux" and not files_only:
            user = os.environ.get("USER") or os.environ.get("LOGNAME") or ""
            for command in install.activate_commands(chosen, items):
                if command[0] == "udevadm":
                    command = _as_root(command)
                _run(command)
            # Lingering starts the user's units at boot, before anyone logs in.
            if user:
                _run(["loginctl", "enable-linger", user])
        elif chosen == "macos" and not files_only:
            for command in install.activate_commands(chosen, items):
                _run(command)
        click.echo(f"recorded in {manifest}; `meridian-table uninstall-service` removes it all")

    @group.command("uninstall-service")
    @click.option("--files-only", is_flag=True,
                  help="Remove the files but run no systemctl or launchctl.")
    def uninstall_service(files_only: bool) -> None:
        """Stop the table starting with the computer: remove what install-service wrote.

        It removes only the files install-service recorded (and stops the service
        first); a file it did not write is never touched.

        \b
        Example:
          meridian-table uninstall-service
        """
        try:
            items = install.read_manifest()
        except install.ServiceError as exc:
            raise click.ClickException(str(exc)) from None
        if not items:
            click.echo("install-service has written nothing here: nothing to remove.")
            return
        if not files_only:
            for command in install.deactivate_commands(install.this_system(), items):
                _run(command)
        for item in items:
            if item.needs_root and item.path.exists():
                _run(_as_root(["rm", "-f", str(item.path)]))
        left = install.remove(items)
        for item in items:
            if item not in left:
                click.echo(f"removed {item.path}")
        if left:
            raise click.ClickException(
                "could not remove " + ", ".join(str(i.path) for i in left)
                + "; remove it with sudo and run uninstall-service again")
        if not files_only and any(i.kind == "unit" for i in items):
            _run(["systemctl", "--user", "daemon-reload"])

    @group.command()
    @click.option("--url", default="http://127.0.0.1:8765/", show_default=True,
                  help="The table page.")
    @click.option("--browser", default=None, help="The browser to run (default: Chromium).")
    @click.option("--wait", "wait_s", default=120.0, show_default=True,
                  type=click.FloatRange(0, 3600),
                  help="Seconds to wait for the table page to answer.")
    @click.option("--print-command", is_flag=True,
                  help="Print the browser command once the page answers; do not run it.")
    @click.option("--nice", "niceness", default=units.KIOSK_NICE, show_default=True,
                  type=click.IntRange(0, 19),
                  help="Run the browser at this lower priority (POSIX niceness; below "
                       "normal on Windows), so the table answers the board first.")
    def kiosk(url: str, browser: str | None, wait_s: float, print_command: bool,
              niceness: int) -> None:
        """Open the table page full screen in Chromium's kiosk mode (once it answers).

        Does nothing when no display is attached (Linux: neither WAYLAND_DISPLAY nor
        DISPLAY is set), so the same set-up serves a Pi with or without a screen.
        install-service starts it with the desktop session (an XDG autostart entry).

        \b
        Example:
          meridian-table kiosk --url http://127.0.0.1:8765/
        """
        if sys.platform.startswith("linux") and not (
                os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY")):
            click.echo("No display attached (WAYLAND_DISPLAY and DISPLAY are unset): the "
                       "table runs without a screen; open its page from another device.")
            return
        program = browser or _find_browser()
        if program is None:
            raise click.ClickException(
                "no Chromium found; install it (Raspberry Pi OS and Debian: `sudo apt "
                "install chromium`) or name a browser with --browser")
        if not _wait_for_page(url, wait_s):
            raise click.ClickException(
                f"the table page {url} did not answer within {wait_s:g} s; is the table "
                "running? (`systemctl --user status meridian-table`)")
        profile = Path(install.state_dir()) / "kiosk-browser"
        command = [program, "--kiosk", "--noerrdialogs", "--disable-infobars",
                   "--no-first-run", "--disable-session-crashed-bubble",
                   f"--user-data-dir={profile}", url]
        if os.environ.get("WAYLAND_DISPLAY"):
            command.insert(1, "--ozone-platform-hint=auto")
        if print_command:
            click.echo(subprocess.list2cmdline(command) if os.name == "nt"
                       else " ".join(command))
            return
        raise SystemExit(_run_lowered(command, niceness))


def _run_lowered(command: list[str], niceness: int) -> int:
    """Run ``command`` at ``niceness`` (the browser must never delay the board's answer).

    This process lowers itself first and the browser inherits it (POSIX niceness; on
    Windows a below-normal priority class, which children inherit too): the kiosk command
    does nothing but wait for its browser."""
    if niceness > 0:
        try:
            me = psutil.Process()
            if hasattr(psutil, "BELOW_NORMAL_PRIORITY_CLASS"):  # Windows
                me.nice(psutil.BELOW_NORMAL_PRIORITY_CLASS)
            else:
                me.nice(max(me.nice(), niceness))
        except (psutil.Error, OSError) as exc:  # a sandbox may refuse: the browser still runs
            click.echo(f"the browser keeps normal priority: {exc}", err=True)
    return subprocess.call(command)


def _find_browser() -> str | None:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    if sys.platform == "darwin" and MAC_CHROME.exists():
        return str(MAC_CHROME)
    return None


def _wait_for_page(url: str, wait_s: float) -> bool:
    deadline = time.monotonic() + wait_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return True
        except (urllib.error.URLError, OSError, ValueError):
            pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.5)  # start-up only: the kiosk waits once for the table to come up
