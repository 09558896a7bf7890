"""The wheel plays: built from this checkout, installed into a fresh venv outside it, and
run with the checkout out of reach (another folder, a clean environment, no PYTHONPATH).

What a new user does after ``pip install meridian-table``: list the board profiles,
play Kato and Colovini headless on the virtual board (the firmware from the package,
on CPython and on the MicroPython unix port), replay and export the games, and flash a
Pico up to the point where one is needed.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from tests.table.headless import Headless
from tests.wheel.install import Installed, timed

pytestmark = [pytest.mark.wheel, pytest.mark.slow]

WHERE = """
import json, shutil, sys
import meridian_fw, meridian_table
from meridian_table.games.colovini.maps import maps_dir
from meridian_table.maker import flashing
from meridian_table.profiles import shipped_dirs
from meridian_table.resources import firmware_root
from meridian_table.sim import micropython_binary
from meridian_table.sim.board import _entry
print(json.dumps({
    "modules": [meridian_table.__file__, meridian_fw.__file__],
    "data": [*map(str, shipped_dirs()), str(maps_dir()), str(firmware_root()), str(_entry())],
    "tools": [*flashing.mpy_cross_command(), *flashing.mpremote_command(),
              micropython_binary()],
    "path": [p for p in sys.path if p],
}))
"""


def _records(installed: Installed, step: str, *args: str) -> str:
    result = installed.run(step, args)
    assert result.returncode == 0, f"{args}: {result.stderr[-2000:]}"
    return result.stdout


def test_everything_comes_from_the_installed_package(installed: Installed) -> None:
    result = installed.run("where things come from", [installed.python, "-c", WHERE])
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    venv = str(installed.venv)
    for path in found["modules"] + found["data"] + found["tools"]:
        if path.startswith("/") and path != "-m":
            assert path.startswith(venv), f"{path} is not inside the venv {venv}"
    checkout = str(installed.checkout)
    assert not [p for p in found["path"] if p.startswith(checkout)], found["path"]


def test_profile_list(installed: Installed) -> None:
    out = _records(installed, "profile list", "profile", "list")
    for name in ("kato-114", "kato-80", "kato-154", "colovini-50", "colovini-40"):
        assert name in out, out
    assert str(installed.checkout) not in out


def _kato(installed: Installed, step: str, *extra: str, moves: int) -> tuple[int, list[str]]:
    """Play ``moves`` legal moves of a new Kato game; its id and the moves."""
    started = time.perf_counter()
    h = Headless(installed.db, "--players", "Ann,Bob", *extra, cli=installed.cli,
                 env=installed.env, cwd=installed.cwd, strict=True)
    try:
        ready = h.next(60)
        assert ready["event"] == "ready" and ready["virtual"], ready
        state = h.state()
        for n in range(moves):
            legal = state["legal"]
            h.ask(f"place {legal[(7 * n + 3) % len(legal)]}")
            state = h.state()
            assert len(state["moves"]) == n + 1, state["message"]
        return int(ready["game_id"]), [m["notation"] for m in state["moves"]]
    finally:
        h.quit()
        timed(step, time.perf_counter() - started)


def test_a_headless_kato_game_and_its_replay(installed: Installed) -> None:
    game, played = _kato(installed, "a headless Kato game (8 moves)", moves=8)
    out = _records(installed, "replay (Kato)", "replay", str(game), "--db", str(installed.db))
    assert "Position after move 8" in out
    for notation in played:
        assert f" {notation} " in out, (notation, out)


def test_the_virtual_board_runs_the_shipped_firmware_under_micropython(
    installed: Installed,
) -> None:
    _, played = _kato(installed, "a headless Kato game on MicroPython (2 moves)",
                      "--sim-mode", "micropython", moves=2)
    assert len(played) == 2


def _taken(h: Headless, before: int) -> dict[str, Any]:
    """The state once the board's last change is read: a move taken or a question asked
    (a busy machine may take more than one ``wait`` to settle a switch)."""
    state = h.state()
    for _ in range(50):
        if len(state["moves"]) > before or state["question"] is not None:
            break
        state = h.state()
    return state


def _colovini_turn(h: Headless, state: dict[str, Any], n: int) -> None:
    """One turn from the state alone: a tower on an empty city when one is free, else a pass."""
    before = len(state["moves"])
    question = state["question"]
    if n % 4 != 3 and question and question["field"] == "meridian":
        h.ask(f"button meridian{question['choices'][n % len(question['choices'])]}")
        state = h.state()
        if state["question"] and state["question"]["field"] == "card":
            h.ask("button confirm")
            state = h.state()
        empty = {s["id"] for s in state["board"]["sites"] if s["piece"] is None}
        free = [site for site in state["legal"] if site in empty]
        if free:
            site = free[n % len(free)]
            h.ask(f"place {site}")
            state = _taken(h, before)
            while len(state["moves"]) == before:
                asked = state["question"]
                assert asked is not None, state["message"]
                h.ask(f"choose {asked['field']} "
                      f"{site if asked['field'] == 'where' else asked['choices'][0]}")
                state = _taken(h, before)
            return
    h.ask("button pass")
    state = _taken(h, before)
    if len(state["moves"]) == before:
        assert state["question"]["field"] == "card", state["message"]
        h.ask("button confirm")
        state = _taken(h, before)
    assert state["moves"][-1]["notation"].endswith(":pass"), state["moves"][-1]


def test_a_headless_colovini_game_replays_without_its_map_file(installed: Installed) -> None:
    sample = installed.run("read the shipped map", [installed.python, "-c",
                           "from meridian_table.games.colovini import load_map; "
                           "print(load_map('sample-40').text, end='')"])
    assert sample.returncode == 0, sample.stderr
    own = installed.cwd / "our-board.toml"
    own.write_text(sample.stdout.replace('name = "Kora"', 'name = "Korabel"'), encoding="utf-8")
    started = time.perf_counter()
    h = Headless(installed.db, "--profile", "colovini-40", "--players", "Ann,Bob,Cid",
                 "--map", own.name, game="colovini", strict=True, cli=installed.cli,
                 env=installed.env, cwd=installed.cwd)
    try:
        ready = h.next(60)
        assert ready["event"] == "ready" and ready["virtual"], ready
        game = int(ready["game_id"])
        state = h.state()
        turns = 0
        while state["phase"] != "ended":
            assert turns < 3 * 13, "the game did not end after 39 turns"
            _colovini_turn(h, state, turns)
            turns += 1
            state = h.state()
        assert len(state["moves"]) == 39
    finally:
        h.quit()
        timed("a headless Colovini game (39 turns)", time.perf_counter() - started)
    own.unlink()  # the log holds the map's text: replay and export need no file
    out = _records(installed, "replay (Colovini)", "replay", str(game), "--db", str(installed.db))
    assert "showing 39 of 39" in out, out
    assert "map_text=<" in out, "the logged map is summarised, not printed"
    record = _records(installed, "export (Colovini)", "export", str(game), "--format", "record",
                      "--db", str(installed.db))
    assert "Map: " in record and "our-board.toml" in record
    assert record.rstrip().splitlines()[-1].startswith("39. ")


def test_flash_builds_the_firmware_then_asks_for_a_pico(installed: Installed) -> None:
    result = installed.run("flash --profile kato-114 (no Pico)", ["flash", "--profile", "kato-114"])
    assert result.returncode == 1, result.stdout + result.stderr
    assert "no Pico found" in result.stderr, result.stderr
    assert "built" in result.stdout, result.stdout
    build = installed.cwd / "build" / "pico"
    assert (build / "main.py").read_text().strip().endswith("main()")
    assert (build / "meridian_fw" / "app.mpy").is_file()
    assert not (build / "meridian_fw" / "main.mpy").exists()
    assert json.loads((build / "config.json").read_text())["board"] == "kato-114"
