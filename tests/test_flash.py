"""`meridian-table flash` without a Pico: the build is real (mpy-cross), the prepare
script runs on the real MicroPython unix port, mpremote is replaced by a recorder,
and the HELLO check talks to the link's fake board."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from meridian_fw import FW_VERSION, wire
from meridian_table.cli.main import main
from meridian_table.link import FakeBoard, Link
from meridian_table.maker import flashing
from meridian_table.maker.flashing import FirmwareFile, FlashError
from meridian_table.profiles import Profile, load_profile

MICROPYTHON = Path(sys.executable).with_name("micropython")
PICO_PROBE = "('micropython', (1, 29, 0), 4870, 'Raspberry Pi Pico with RP2040', 'rp2')\n"


@pytest.fixture(scope="module")
def kato() -> Profile:
    return load_profile("kato-114")


@pytest.fixture(scope="module")
def built(kato: Profile, tmp_path_factory: pytest.TempPathFactory) -> list[FirmwareFile]:
    return flashing.build(kato, tmp_path_factory.mktemp("build") / "pico")


def test_sources_are_the_pico_modules_only() -> None:
    names = [p.as_posix() for p in flashing.firmware_sources()]
    assert "meridian_fw/wire.py" in names and "meridian_fw/hal/rp2.py" in names
    assert "meridian_fw/hal/sim.py" not in names and "meridian_fw/hal/circuitpy.py" not in names
    assert "meridian_fw/main.py" not in names  # the boot file goes to the root, as source


def test_build_compiles_every_module_and_writes_the_config(
    kato: Profile, built: list[FirmwareFile]
) -> None:
    remotes = [f.remote for f in built]
    expected = [p.with_suffix(".mpy").relative_to("meridian_fw").as_posix()
                for p in flashing.firmware_sources()]
    assert remotes[:-2] == [f"meridian_fw/{e}" for e in expected]
    assert remotes[-2:] == ["main.py", "config.json"]
    for f in built[:-2]:
        flashing.check_mpy(f.local)  # version 6, bytecode or armv6m
    config = json.loads(built[-1].local.read_text())
    assert config == kato.firmware_config()
    assert built[-2].local.read_text() == (flashing.FIRMWARE_DIR / "meridian_fw" / "main.py").read_text()


def test_rebuild_clears_stale_files_but_never_a_foreign_folder(kato: Profile, tmp_path: Path) -> None:
    out = tmp_path / "pico"
    flashing.build(kato, out)
    (out / "meridian_fw" / "removed_module.mpy").write_bytes(b"M\x06")
    flashing.build(kato, out)
    assert not (out / "meridian_fw" / "removed_module.mpy").exists()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("precious")
    with pytest.raises(FlashError, match="refusing to clear it"):
        flashing.build(kato, foreign)
    assert (foreign / "thesis.tex").read_text() == "precious"


def test_a_compile_error_names_the_file(kato: Profile, tmp_path: Path) -> None:
    firmware = tmp_path / "firmware"
    shutil.copytree(flashing.FIRMWARE_DIR, firmware)
    (firmware / "meridian_fw" / "broken.py").write_text("def f(:\n    pass\n")
    with pytest.raises(FlashError) as info:
        flashing.build(kato, tmp_path / "out", firmware_dir=firmware)
    assert "could not compile meridian_fw/broken.py" in str(info.value)
    assert "SyntaxError" in str(info.value)


def test_check_mpy_rejects_other_architectures_and_files(tmp_path: Path) -> None:
    src = tmp_path / "fast.py"
    src.write_text("import micropython\n@micropython.native\ndef f(x):\n    return x + 1\n")
    out = tmp_path / "fast.mpy"
    cmd = [*flashing.mpy_cross_command(), "-march=x64", "-o", str(out), str(src)]
    subprocess.run(cmd, check=True)
    with pytest.raises(FlashError, match="not compiled for armv6m"):
        flashing.check_mpy(out)
    subprocess.run([*flashing.mpy_cross_command(), "-march=armv6m", "-o", str(out), str(src)],
                   check=True)
    flashing.check_mpy(out)
    (tmp_path / "x.mpy").write_text("print(1)\n")
    with pytest.raises(FlashError, match="not a version-6 .mpy"):
        flashing.check_mpy(tmp_path / "x.mpy")


def test_mpremote_commands(built: list[FirmwareFile]) -> None:
    commands = flashing.mpremote_commands("/dev/ttyACM7", built)
    base = [sys.executable, "-m", "mpremote", "connect", "/dev/ttyACM7"]
    assert all(cmd[:5] == base for cmd in commands)
    assert commands[0][5] == "exec"
    copies = commands[1:-3]
    assert [c[5:7] for c in copies] == [["fs", "cp"]] * len(built)
    stage = flashing.STAGE
    assert [c[7:] for c in copies] == [[str(f.local), f":{stage}/{f.remote}"] for f in built]
    assert "hashlib.sha256" in commands[-3][6] and "os.rename" in commands[-2][6]
    assert commands[-1][5:] == ["reset"]
    # An update leaves the board's config.json alone: it is not even copied.
    kept = flashing.mpremote_commands("/dev/ttyACM7", built, keep_config=True)
    assert not any(c[-1].endswith("config.json") for c in kept if c[5:7] == ["fs", "cp"])


def _board_run(board: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Run one of flash's on-board scripts on the real interpreter, in a folder that
    stands for the Pico's flash."""
    return subprocess.run([str(MICROPYTHON), "-c", script], cwd=board,
                          capture_output=True, text=True, check=False, timeout=30)


def _old_board(board: Path) -> None:
    fw = board / "meridian_fw"
    fw.mkdir()
    (fw / "wire.py").write_text("# an old source copy that would shadow wire.mpy\n")
    (fw / "wire.mpy").write_bytes(b"M\x06")
    (fw / "gone.mpy").write_bytes(b"M\x06")
    (board / "main.py").write_text("# the old boot file\n")
    (board / "config.json").write_text('{"board": "old"}')
    (board / "notes.txt").write_text("left alone")


def _copy_staged(board: Path, commands: list[list[str]]) -> None:
    """What each `mpremote fs cp LOCAL :REMOTE` does, done here."""
    for cmd in commands:
        if cmd[5:7] == ["fs", "cp"]:
            dest = board / cmd[8].lstrip(":")
            dest.write_bytes(Path(cmd[7]).read_bytes())


@pytest.mark.skipif(not MICROPYTHON.exists(), reason="the MicroPython unix port is not installed")
def test_staged_copies_are_verified_then_switched_on_micropython(
    built: list[FirmwareFile], tmp_path: Path
) -> None:
    """On the real interpreter: staged, every SHA-256 checked, switched with the boot
    file last; stale .py and unknown .mpy removed; nothing else touched."""
    _old_board(tmp_path)
    commands = flashing.mpremote_commands("x", built)
    assert _board_run(tmp_path, commands[0][6]).returncode == 0
    _copy_staged(tmp_path, commands)
    verify = _board_run(tmp_path, commands[-3][6])
    assert verify.returncode == 0 and "verified" in verify.stdout, verify.stderr
    switch = _board_run(tmp_path, commands[-2][6])
    assert switch.returncode == 0 and "switched" in switch.stdout, switch.stderr
    fw = tmp_path / "meridian_fw"
    assert "wire.py" not in os.listdir(fw) and "gone.mpy" not in os.listdir(fw)
    assert (fw / "wire.mpy").read_bytes() == next(
        f.local for f in built if f.remote == "meridian_fw/wire.mpy").read_bytes()
    assert (tmp_path / "main.py").read_text() == built[-2].local.read_text()
    assert json.loads((tmp_path / "config.json").read_text())["board"] == "kato-114"
    assert (tmp_path / "notes.txt").exists() and not (tmp_path / flashing.STAGE).exists()


@pytest.mark.skipif(not MICROPYTHON.exists(), reason="the MicroPython unix port is not installed")
def test_a_damaged_copy_is_caught_and_the_old_firmware_kept(
    built: list[FirmwareFile], tmp_path: Path
) -> None:
    _old_board(tmp_path)
    commands = flashing.mpremote_commands("x", built, keep_config=True)
    _board_run(tmp_path, commands[0][6])
    _copy_staged(tmp_path, commands)
    damaged = tmp_path / flashing.STAGE / "meridian_fw" / "link.mpy"
    damaged.write_bytes(damaged.read_bytes()[:-10])   # a copy cut short
    verify = _board_run(tmp_path, commands[-3][6])
    assert verify.returncode != 0
    assert ("copy damaged, old firmware kept: .meridian-new/meridian_fw/link.mpy"
            in verify.stdout + verify.stderr)
    # run_commands stops there: the switch never runs, the old firmware boots as before.
    assert (tmp_path / "main.py").read_text() == "# the old boot file\n"
    assert (tmp_path / "config.json").read_text() == '{"board": "old"}'


def test_update_keeps_this_boards_config_and_refuses_another(kato: Profile) -> None:
    mine = kato.firmware_config()
    assert flashing.keep_board_config(mine, kato, update=False)       # nothing to write
    assert not flashing.keep_board_config({"board": "kato-114"}, kato, update=False)
    assert flashing.keep_board_config({**mine, "brightness": 20}, kato, update=True)
    with pytest.raises(FlashError, match="is for 'kato-80', not 'kato-114'"):
        flashing.keep_board_config({"board": "kato-80"}, kato, update=True)
    with pytest.raises(FlashError, match="the board has none"):
        flashing.keep_board_config(None, kato, update=True)


def test_play_is_told_when_the_board_runs_older_firmware() -> None:
    notice = flashing.update_notice("0.0.9", "kato-114")
    assert notice is not None and "meridian-table flash --profile kato-114 --update" in notice
    assert flashing.update_notice(FW_VERSION, "kato-114") is None
    assert flashing.update_notice("garbage", "kato-114") is not None


def test_run_commands_reports_progress_and_stops_at_a_failure(built: list[FirmwareFile]) -> None:
    commands = flashing.mpremote_commands("/dev/ttyACM0", built)
    seen: list[int] = []
    ran: list[Sequence[str]] = []

    def runner(cmd: Sequence[str]) -> subprocess.CompletedProcess[str]:
        ran.append(cmd)
        failed = len(ran) == 3
        return subprocess.CompletedProcess(
            list(cmd), 1 if failed else 0, "", "mpremote: could not enter raw repl" if failed else ""
        )

    with pytest.raises(FlashError) as info:
        flashing.run_commands(commands, runner=runner, on_step=lambda i, c: seen.append(i))
    assert seen == [0, 1, 2] and len(ran) == 3
    message = str(info.value)
    assert (f"mpremote connect /dev/ttyACM0 fs cp {built[1].local} "
            f":{flashing.STAGE}/{built[1].remote}") in message
    assert "could not enter raw repl" in message and "no other program" in message


class _FakePort:
    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.written = b""

    def write(self, data: bytes) -> int:
        self.written += data
        return len(data)

    def readline(self) -> bytes:
        answer, self.answer = self.answer, b""
        return answer

    def close(self) -> None:
        pass


def test_release_asks_the_firmware_for_the_repl() -> None:
    port = _FakePort(wire.encode("BYE", 3, ("repl",)))
    assert flashing.release("/dev/x", opener=lambda _: port)
    assert wire.decode(port.written).type == "REPL"
    assert not flashing.release("/dev/x", opener=lambda _: _FakePort(b""), timeout=0.2)


def _fake_link(board: FakeBoard) -> Link:
    return Link(board.find_port, opener=board.open)


def test_verify_reads_the_hello(kato: Profile) -> None:
    board = FakeBoard(kato.rows, kato.cols, kato.leds, board=kato.name, fw=FW_VERSION)
    verified = flashing.verify("fake", kato, timeout=5, link_factory=lambda _: _fake_link(board))
    assert verified.fw == FW_VERSION and verified.board == "kato-114"


def test_verify_names_what_differs(kato: Profile) -> None:
    board = FakeBoard(kato.rows, kato.cols, 8, board="kato-80", fw="0.0.9")
    with pytest.raises(FlashError) as info:
        flashing.verify("fake", kato, timeout=5, link_factory=lambda _: _fake_link(board))
    message = str(info.value)
    assert f"firmware 0.0.9, expected {FW_VERSION}" in message
    assert "board id 'kato-80', expected 'kato-114'" in message
    assert "with 8 LEDs" in message


def test_flash_command_end_to_end_without_a_pico(
    kato: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[list[str]] = []

    def runner(cmd: Sequence[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
        if "mpremote" in cmd:
            ran.append(list(cmd))
            # The probe: what MicroPython 1.29 on a Pico prints (tests/test_flash_boards.py).
            answer = PICO_PROBE if "exec" in cmd and "sys.implementation" in cmd[-1] else ""
            return subprocess.CompletedProcess(list(cmd), 0, answer, "")
        return subprocess.run(list(cmd), capture_output=True, text=True, check=False)

    board = FakeBoard(kato.rows, kato.cols, kato.leds, board=kato.name, fw=FW_VERSION)
    real_verify = flashing.verify
    monkeypatch.setattr(flashing, "_run", runner)
    monkeypatch.setattr(flashing, "release", lambda port: False)
    # /dev/ttyACM3 does not exist here: the up-front port check would refuse it.
    monkeypatch.setattr("meridian_table.cli.maker.check_port", lambda port, **_: None)
    waits: list[float] = []

    def verify(port: str, profile: Profile, *, timeout: float) -> flashing.Verified:
        waits.append(timeout)
        return real_verify(port, profile, timeout=5, link_factory=lambda _: _fake_link(board))

    monkeypatch.setattr(flashing, "verify", verify)
    result = CliRunner().invoke(
        main, ["flash", "--profile", "kato-114", "--port", "/dev/ttyACM3",
               "--build-dir", str(tmp_path / "pico"), "--wait", "40"],
    )
    assert result.exit_code == 0, result.output
    assert waits == [40.0]  # --wait: how long the HELLO is waited for after the reset
    assert f"kato-114 runs firmware {FW_VERSION}" in result.output
    assert "sys.implementation" in ran[0][-1]  # the probe, then prepare, copy, reset
    ran = ran[1:]
    assert ran[0][5] == "exec" and ran[-1][5:] == ["reset"]
    assert sum(1 for c in ran if c[5:7] == ["fs", "cp"]) == len(flashing.firmware_sources()) + 2


def test_flash_build_only_and_bad_profile(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["flash", "--profile", "kato-80", "--build-only",
                                  "--build-dir", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "b" / "config.json").read_text())["board"] == "kato-80"
    result = runner.invoke(main, ["flash", "--profile", "kato-81"])
    assert result.exit_code == 1 and "no board profile has this name" in result.output
    result = runner.invoke(main, ["flash", "--profile", "kato-80", "--wait", "0"])
    assert result.exit_code == 2 and "--wait" in result.output and "0" in result.output


def test_play_says_once_that_the_board_wants_an_update(
    kato: Profile, capsys: pytest.CaptureFixture[str]
) -> None:
    from types import SimpleNamespace

    from meridian_table.cli.play import _watch_firmware

    class _Link:
        hello: object = None
        subscribers: list = []  # noqa: RUF012

        def subscribe(self, callback):  # type: ignore[no-untyped-def]
            self.subscribers.append(callback)

    link = _Link()
    table = SimpleNamespace(link=link, profile=kato)
    _watch_firmware(table, headless=True)  # type: ignore[arg-type]
    assert capsys.readouterr().err == ""   # no HELLO yet
    link.hello = SimpleNamespace(fw="0.0.9")
    for callback in link.subscribers:
        callback(object())
        callback(object())                 # said once
    err = capsys.readouterr().err
    assert err.count("older than this meridian-table's") == 1
    assert "meridian-table flash --profile kato-114 --update" in " ".join(err.split())
