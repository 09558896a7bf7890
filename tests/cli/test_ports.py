"""Unknown ports are refused at once, naming the port and what to try instead.

Before this check, `play --board /dev/ttyACM9` and `monitor COM5` searched forever
for a device that does not exist, and `flash --port X` blamed "another program".
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.cli.helpers import refuse

from meridian_table.cli.main import main
from meridian_table.link import UnknownPortError, check_port

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="device paths are POSIX")


@posix_only
@pytest.mark.parametrize("args, flag", [
    (["play", "kato", "--board", "/dev/ttyACM9", "--headless"], "--board"),
    (["monitor", "/dev/ttyACM9", "--duration", "0"], "PORT"),
    (["calibrate", "--profile", "kato-80", "--port", "/dev/ttyACM9"], "--port"),
    (["flash", "--profile", "kato-80", "--port", "/dev/ttyACM9", "--no-verify"], "--port"),
])
def test_a_missing_device_is_refused_by_every_command(args: list[str], flag: str,
                                                       tmp_path: Path) -> None:
    if args[0] == "play":
        args = [*args, "--db", str(tmp_path / "g.db")]
    if args[0] == "flash":
        args = [*args, "--build-dir", str(tmp_path / "build")]
    error = refuse(args, flag, "'/dev/ttyACM9'", "no such device", "auto", code=2)
    if args[0] == "flash":
        assert "sim" not in error  # a virtual board cannot be flashed: not offered
    else:
        assert "`sim`" in error
    if args[0] == "play":
        assert not (tmp_path / "g.db").exists(), "a game was logged for a board that is not there"


@posix_only
def test_a_windows_port_name_on_posix_says_so() -> None:
    refuse(["monitor", "COM5", "--duration", "0"], "'COM5'", "COM ports are Windows names",
           code=2)


@pytest.mark.parametrize("url, why", [
    ("bogus://foo", "protocol 'bogus' not known"),
    ("socket://", "port number is missing"),
    ("socket://host:notaport", "socket://HOST:PORT"),
])
def test_a_bad_pyserial_url_is_refused(url: str, why: str) -> None:
    refuse(["monitor", url, "--duration", "0"], repr(url), why, code=2)
    refuse(["play", "kato", "--board", url, "--headless", "--db", ":memory:"], "--board",
           repr(url), code=2)


@posix_only
def test_a_file_or_folder_is_not_a_serial_device(tmp_path: Path) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("x")
    with pytest.raises(UnknownPortError, match="is a file, not a serial device"):
        check_port(str(plain))
    with pytest.raises(UnknownPortError, match="is a directory, not a serial device"):
        check_port(str(tmp_path))


def test_keywords_urls_and_real_devices_are_accepted() -> None:
    for port in ("auto", "pico", "sim", "loop://", "socket://localhost:7000"):
        check_port(port)
    if sys.platform != "win32":
        check_port("/dev/null")  # a character device: the link itself tries it
    with pytest.raises(UnknownPortError, match="virtual board cannot"):
        check_port("sim", allow_sim=False)
    with pytest.raises(UnknownPortError, match="empty"):
        check_port("  ")


def test_out_of_range_numbers_are_usage_errors() -> None:
    refuse(["play", "kato", "--port", "99999"], "--port", "99999", code=2)
    refuse(["colovini", "score", "--port", "70000"], "--port", code=2)
    refuse(["monitor", "--duration", "-5"], "--duration", code=2)
    refuse(["monitor", "--stats-every", "-1"], "--stats-every", code=2)
    refuse(["calibrate", "--profile", "kato-80", "--timeout", "0"], "--timeout", code=2)


def test_auto_with_nothing_plugged_in_says_what_to_do(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from meridian_table.cli.main import main
    from meridian_table.link import discovery

    monkeypatch.setenv("MERIDIAN_SIM_REGISTRY", str(tmp_path))
    monkeypatch.setattr(discovery, "find_picos", lambda serial_number=None: [])
    result = CliRunner().invoke(main, ["monitor", "auto", "--duration", "0.5",
                                       "--stats-every", "0"], terminal_width=300)
    flat = " ".join(result.output.split())
    assert ("LINK searching no board found (auto: no Pico on USB and no `meridian-table sim` "
            "running; plug the board in)") in flat


def test_an_occupied_page_port_is_named() -> None:
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        refuse(["play", "kato", "--board", "sim", "--db", ":memory:", "--port", str(port)],
               f"127.0.0.1:{port}", "--port", code=1)


def test_a_busy_page_port_logs_no_game_and_resume_takes_a_game_id(tmp_path: Path) -> None:
    """Issue 26: a start that failed on a busy port logged an empty game, which a later
    `--resume` picked instead of the real one; `--resume ID` names the game."""
    import socket

    from meridian_table.store import Store

    db = tmp_path / "games.sqlite3"
    with Store.open(db) as store:
        real = store.create_game("kato", {"size": 6, "pie": False}, ["Ann", "Bob"])
        store.append(real, "action", {"notation": "G6", "player": "light", "source": "board"})
        other = store.create_game("kato", {"size": 6, "pie": False}, ["Cy", "Di"])
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        refuse(["play", "kato", "--board", "sim", "--db", str(db), "--port", str(port)],
               "--port", code=1)
    with Store.open(db, readonly=True) as store:
        assert [g.id for g in store.games()] == [real, other]  # nothing new was logged
    refuse(["play", "kato", "--db", str(db), "--resume", "x1"], "--resume", "game id", code=2)
    refuse(["play", "kato", "--db", str(db), "--resume", "99"], "no game 99",
           "meridian-table games", code=1)
    with Store.open(db) as store:
        store.finish(other, {"winners": ["Cy"], "reason": "test"})
    refuse(["play", "kato", "--db", str(db), "--resume", str(other), "--headless"],
           f"game {other} is finished", code=1)
    result = CliRunner().invoke(main, ["play", "kato", "--board", "sim", "--db", str(db),
                                       "--resume", str(real), "--headless"], input="quit\n")
    assert result.exit_code == 0, result.output
    assert '"resumed": true' in result.output and '"G6"' in result.output


def test_a_page_address_that_is_not_an_address_names_the_host_not_the_port() -> None:
    error = refuse(["play", "kato", "--board", "sim", "--db", ":memory:",
                    "--host", "999.1.1.1"], "--host '999.1.1.1'", "127.0.0.1", "0.0.0.0",
                   code=1)
    assert "--port" not in error and "not an IP address" in error


def test_a_page_address_this_computer_lacks_names_the_host_not_the_port() -> None:
    # 192.0.2.1 is TEST-NET-1 (RFC 5737): valid, but never an address of this machine.
    error = refuse(["play", "kato", "--board", "sim", "--db", ":memory:",
                    "--host", "192.0.2.1"], "--host 192.0.2.1", "not an address of this computer",
                   code=1)
    assert "--port" not in error
