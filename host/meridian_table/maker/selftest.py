"""The maker's self-test: the firmware's own tests on the board's interpreter, then the
hardware, LED by LED and switch by switch, ending in a saved pass/fail report.

Steps (``meridian-table selftest``; docs/MAKERS.md):

1. **Firmware tests.** The ``tests/firmware`` modules that need no fake board
   (``firmware_suite``) run on the real interpreter: copied to a Pico with ``mpremote``
   and run there (``pico_suite_commands``), or run by the MicroPython unix port, the
   interpreter the virtual board uses (``run_suite_unix``).
2. **LEDs** (``check_leds``): each LED in turn, then the whole strip red, green and
   blue. ``Eyes`` say which LEDs did not show what they should: a person answering
   prompts, or ``SimEyes`` reading the virtual board's frames.
3. **Buttons and sites**: a calibration run (``maker.calibration``) asks for each
   button press and a magnet on each site; a switch that never closes is reported.
4. **The report** (``SelftestReport``): every check with pass/fail and what to do,
   saved as JSON next to the calibrated profile.

The firmware tests ship with the source checkout (``tests/firmware``); an installed
wheel has none and step 1 says so instead of failing.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from meridian_table.ledplan import SOLID, LedPlan, Light
from meridian_table.link import Link, LinkError
from meridian_table.maker.calibration import Calibration, Effect, Flag
from meridian_table.maker.calibration_run import CalibrationRun, Maker
from meridian_table.profiles.model import Profile
from meridian_table.profiles.writer import write_atomically
from meridian_table.resources import firmware_root

LOGGER = logging.getLogger(__name__)

HEAPSIZE = "192k"          # the Pico's free heap: the unix port fails where the Pico would
MODULE_TIMEOUT_S = 120.0   # one test module on the board
REPORT_FORMAT = 1
BOARD_DIR = "/selftest"    # where the suite goes on the Pico (removed afterwards)

RGB = tuple[int, int, int]
COLOURS: tuple[tuple[str, int], ...] = (("red", 0xFF0000), ("green", 0x00FF00), ("blue", 0x0000FF))
CHASE = 0xFFFFFF
#: The emulated Pico runs slower than a Pico: its boot pattern and each frame take longer.
EMU_BOOT_S = 60.0
EMU_LOOK_S = 3.0
#: How long a look waits for a slow board to draw its first frame after the plan.
SLOW_LOOK_S = 10.0
#: A slow board that drew no frame for this long after a wrong one is done drawing.
SLOW_QUIET_S = 1.0
SETTLE_S = 3.0             # the boot pattern lasts 0.9 s (docs/FIRMWARE.md, "LEDs")

# Runs on the board (or the unix port): imports one test module and calls its test_*
# functions, printing PASS/FAIL lines and "RESULT passed failed".
RUNNER = """
import sys
def _run(name):
    mod = __import__(name)
    passed = 0
    failed = 0
    for key in sorted(dir(mod)):
        if not key.startswith("test_"):
            continue
        try:
            getattr(mod, key)()
        except Exception as e:
            failed += 1
            print("FAIL " + name + "::" + key + " " + repr(e))
        else:
            passed += 1
    print("RESULT %d %d" % (passed, failed))
"""


@dataclass(frozen=True)
class CheckResult:
    """One line of the report: what was checked, whether it passed, what to do."""

    step: str       # "firmware", "leds", "switches"
    name: str
    passed: bool
    detail: str


@dataclass
class SelftestReport:
    profile: str
    board: str
    results: list[CheckResult] = field(default_factory=list)
    started: float = field(default_factory=time.time)

    @property
    def passed(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    @property
    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if not r.passed]

    def to_dict(self) -> dict[str, object]:
        return {
            "format": REPORT_FORMAT,
            "profile": self.profile,
            "board": self.board,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
            "passed": self.passed,
            "results": [
                {"step": r.step, "name": r.name, "passed": r.passed, "detail": r.detail}
                for r in self.results
            ],
        }

    def save(self, path: Path) -> None:
        write_atomically(path, json.dumps(self.to_dict(), indent=1) + "\n")


# -- step 1: the firmware's own tests ---------------------------------------------------------


def tests_dir() -> Path | None:
    """``tests/firmware`` of the source checkout the firmware comes from, if there is one."""
    candidate = firmware_root().parent / "tests" / "firmware"
    return candidate if (candidate / "fwkit.py").is_file() else None


def needs_fake_board(path: Path) -> bool:
    """A test module that loads the fake ``machine``/``rp2`` or CircuitPython modules."""
    text = path.read_text(encoding="utf-8")
    return "fakes" in text


def firmware_suite(folder: Path | None = None) -> list[Path]:
    """The firmware test modules that run on a board as it is (no fake hardware)."""
    folder = folder if folder is not None else tests_dir()
    if folder is None:
        return []
    return [p for p in sorted(folder.glob("test_*.py")) if not needs_fake_board(p)]


def suite_files(suite: Sequence[Path]) -> list[tuple[Path, str]]:
    """(local file, name on the board) for the suite: its modules, their helper, and the
    simulated HAL the app tests build on (flash does not put it on a Pico)."""
    if not suite:
        return []
    folder = suite[0].parent
    files = [(folder / "fwkit.py", "fwkit.py")] + [(p, p.name) for p in suite]
    files.append((firmware_root() / "meridian_fw" / "hal" / "sim.py", "meridian_fw_sim.py"))
    return files


@dataclass(frozen=True)
class ModuleResult:
    module: str
    passed: int
    failed: int
    failures: tuple[str, ...]
    error: str = ""

    def as_check(self) -> CheckResult:
        if self.error:
            return CheckResult("firmware", self.module, False, self.error)
        detail = f"{self.passed} passed, {self.failed} failed"
        if self.failures:
            detail += ": " + "; ".join(self.failures[:3])
        return CheckResult("firmware", self.module, self.failed == 0 and self.passed > 0, detail)


def parse_module_output(module: str, text: str) -> ModuleResult:
    failures = tuple(line[5:] for line in text.splitlines() if line.startswith("FAIL "))
    for line in text.splitlines():
        if line.startswith("RESULT "):
            parts = line.split()
            return ModuleResult(module, int(parts[1]), int(parts[2]), failures)
    tail = text.strip().splitlines()[-1:] or ["no output"]
    return ModuleResult(module, 0, 0, failures,
                        f"{module} did not run to the end on the board ({tail[0][:160]})")


def _runner_script(module: str) -> str:
    # The simulated HAL is copied as a top-level module; the app tests import it as
    # meridian_fw.hal.sim, so it is registered under that name first.
    return RUNNER + (
        "try:\n"
        "    import meridian_fw.hal.sim\n"
        "except ImportError:\n"
        "    import meridian_fw.hal\n"
        "    import meridian_fw_sim\n"
        "    sys.modules['meridian_fw.hal.sim'] = meridian_fw_sim\n"
        "    meridian_fw.hal.sim = meridian_fw_sim\n"
        f"_run({module!r})\n"
    )


def run_suite_unix(
    suite: Sequence[Path],
    micropython: str,
    *,
    on_module: Callable[[int, str], None] | None = None,
) -> list[ModuleResult]:
    """Run the suite with the MicroPython unix port, the way the board runs it: the
    files copied into one folder beside the firmware, one interpreter per module."""
    results: list[ModuleResult] = []
    with tempfile.TemporaryDirectory(prefix="meridian-selftest-") as tmp:
        board = Path(tmp)
        for local, remote in suite_files(suite):
            (board / remote).write_bytes(local.read_bytes())
        env = dict(os.environ, MICROPYPATH=os.pathsep.join(
            [".frozen", str(board), str(firmware_root())]))
        for index, path in enumerate(suite):
            if on_module is not None:
                on_module(index, path.stem)
            script = board / "selftest_runner.py"
            script.write_text(_runner_script(path.stem))
            try:
                proc = subprocess.run(
                    [micropython, "-X", "heapsize=" + HEAPSIZE, str(script)],
                    capture_output=True, text=True, timeout=MODULE_TIMEOUT_S, env=env,
                    cwd=str(board), stdin=subprocess.DEVNULL, check=False,
                )
                results.append(parse_module_output(path.stem, proc.stdout + proc.stderr))
            except subprocess.TimeoutExpired:
                results.append(ModuleResult(path.stem, 0, 0, (),
                                            f"{path.stem} gave no result within "
                                            f"{MODULE_TIMEOUT_S:.0f} s"))
    return results


def pico_suite_commands(mpremote: Sequence[str], port: str,
                        suite: Sequence[Path]) -> tuple[list[list[str]], list[list[str]], list[str]]:
    """The mpremote commands for a Pico: (copy commands, one run per module, cleanup)."""
    base = [*mpremote, "connect", port]
    copy = [[*base, "fs", "mkdir", f":{BOARD_DIR}"]] if suite else []
    copy += [[*base, "fs", "cp", str(local), f":{BOARD_DIR}/{remote}"]
             for local, remote in suite_files(suite)]
    runs = [[*base, "exec", f"import sys\nsys.path.insert(0, {BOARD_DIR!r})\n"
             + _runner_script(p.stem)] for p in suite]
    cleanup = [*base, "exec",
               f"import os\nfor n in os.listdir({BOARD_DIR!r}):\n"
               f"    os.remove({BOARD_DIR!r} + '/' + n)\nos.rmdir({BOARD_DIR!r})\n"]
    return copy, runs, cleanup


# -- step 2: the LEDs --------------------------------------------------------------------------


class Eyes(Protocol):
    """Whoever looks at the strip: says which LEDs did not show what they should."""

    def look(self, description: str, expected: Sequence[RGB]) -> set[int]: ...

    def summary(self, description: str) -> set[int]: ...


def _hue_matches(seen: RGB, expected: RGB) -> bool:
    # Brightness and the current limiter scale colours: compare which channels are lit.
    return all((s > 0) == (e > 0) for s, e in zip(seen, expected, strict=True))


def _wrong(frame: list[RGB], want: list[RGB]) -> set[int]:
    """The LEDs of ``frame`` whose colour is not the one wanted."""
    return {i for i, (f, e) in enumerate(zip(frame, want, strict=True))
            if not _hue_matches(f, e)}


def _shown_or_drawn(board: Any, shows: Callable[[list[RGB]], bool]
                    ) -> Callable[[list[RGB]], bool]:
    """A frame that shows what is expected, or any frame drawn from now on."""
    seen = board.frames

    def check(frame: list[RGB]) -> bool:
        return shows(frame) or board.frames != seen

    return check


class SimEyes:
    """Reads the virtual board's rendered frames (``VirtualBoard.leds()``)."""

    def __init__(self, board: object, link: Link, settle_s: float = 1.5,
                 slow: bool = False) -> None:
        self.board = board
        self.link = link
        self.settle_s = settle_s
        self.slow = slow  # the emulated Pico: judged on the frames it draws, however late

    def look(self, description: str, expected: Sequence[RGB]) -> set[int]:
        board = self.board
        # Called right after the plan was sent: the frames drawn so far are older ones.
        before = board.frames  # type: ignore[attr-defined]
        try:
            self.link.wait_shown(timeout=60.0 if self.slow else 5.0)
        except LinkError as exc:
            LOGGER.info("plan not confirmed: %s", exc)
        want = list(expected)

        def shows(frame: list[RGB]) -> bool:
            # A strip the firmware has drawn nothing on yet shows nothing to judge: its
            # dark comes before the boot pattern, which every board draws first. (The wait
            # for the boot pattern to end took that dark for the end, and on a slow
            # emulated Pico the first LED's look then judged the boot pattern's frame.)
            return board.frames > 0 and all(  # type: ignore[attr-defined]
                _hue_matches(f, e) for f, e in zip(frame, want, strict=True))

        if self.slow:
            return self._judge_slow(before, want, shows)
        # The frame is rendered at the firmware's next LED step after SHOW: wait for it,
        # but not forever, since a broken LED never shows what it should.
        try:
            frame = board.wait_for(shows, timeout=self.settle_s)  # type: ignore[attr-defined]
        except TimeoutError:
            frame = board.leds()  # type: ignore[attr-defined]
        return _wrong(frame, want)

    def _judge_slow(self, before: int, want: list[RGB],
                    shows: Callable[[list[RGB]], bool]) -> set[int]:
        """The emulated Pico (slow, more so on a busy machine): ``settle_s`` for the plan
        to show, as on any board; a frame still wrong then is judged once the board has
        drawn since the plan and gone quiet for SLOW_QUIET_S (the firmware draws only
        when the frame changes), SLOW_LOOK_S at most. Waiting on the frames, not a fixed
        time, keeps a broken LED from costing seconds a look."""
        board = self.board
        deadline = time.monotonic() + SLOW_LOOK_S
        try:
            frame = board.wait_for(shows, timeout=self.settle_s)  # type: ignore[attr-defined]
        except TimeoutError:
            frame = None
        while frame is None:
            left = deadline - time.monotonic()
            if left <= 0:
                frame = board.leds()  # type: ignore[attr-defined]
                break
            try:
                drawn = board.wait_for(_shown_or_drawn(board, shows),  # type: ignore[attr-defined]
                                       timeout=min(left, SLOW_QUIET_S))
            except TimeoutError:
                if board.frames > before:  # type: ignore[attr-defined]
                    frame = board.leds()  # type: ignore[attr-defined]
                continue
            if shows(drawn):
                frame = drawn
        return _wrong(frame, want)

    def summary(self, description: str) -> set[int]:
        return set()  # every look() already answered


def _plan(count: int, lit: dict[int, int]) -> LedPlan:
    return LedPlan.from_mapping(count, {i: Light(c, SOLID) for i, c in lit.items()})


def _rgb(colour: int) -> RGB:
    return ((colour >> 16) & 0xFF, (colour >> 8) & 0xFF, colour & 0xFF)


def check_leds(
    link: Link,
    count: int,
    eyes: Eyes,
    *,
    on_step: Callable[[int, int, str], None] | None = None,
    hold_s: float = 0.0,
    leds: Sequence[int] | None = None,
    boot_s: float = SETTLE_S,
) -> list[CheckResult]:
    """Each LED in turn (only ``leds``, when given: a re-test after a repair), then every
    LED red, green and blue; a result per colour."""
    results: list[CheckResult] = []
    turns = list(range(count)) if leds is None else sorted(set(leds))
    total = len(turns) + len(COLOURS)
    dark: set[int] = set()
    # A board that has just booted shows its boot pattern (R, G, B...) for about a
    # second whatever the plan says: start once the strip is dark.
    link.send_plan(_plan(count, {}))
    deadline = time.monotonic() + boot_s
    while eyes.look("every LED off", [(0, 0, 0)] * count) and time.monotonic() < deadline:
        pass
    for n, i in enumerate(turns):
        if on_step is not None:
            on_step(n, total, f"LED {i}")
        link.send_plan(_plan(count, {i: CHASE}))
        expected = [(0, 0, 0)] * count
        expected[i] = _rgb(CHASE)
        dark |= {j for j in eyes.look(f"only LED {i} lit white", expected) if j == i}
        if hold_s:
            time.sleep(hold_s)
    dark |= eyes.summary("each LED lit white in turn")
    results.append(_led_result("each LED in turn", dark, "stayed dark in turn"))
    for n, (name, colour) in enumerate(COLOURS):
        if on_step is not None:
            on_step(len(turns) + n, total, f"all {name}")
        link.send_plan(_plan(count, dict.fromkeys(range(count), colour)))
        wrong = eyes.look(f"every LED {name}", [_rgb(colour)] * count)
        wrong |= eyes.summary(f"every LED {name}")
        results.append(_led_result(f"all {name}", wrong, f"did not show {name}"))
    link.send_plan(_plan(count, {}))
    return results


def _led_result(name: str, wrong: set[int], what: str) -> CheckResult:
    if not wrong:
        return CheckResult("leds", name, True, "every LED as expected")
    shown = ", ".join(str(i) for i in sorted(wrong)[:12]) + (" ..." if len(wrong) > 12 else "")
    first = min(wrong)
    advice = (f"check LED {first}'s solder joints and the data line into it; a whole run "
              "from one LED on points at the LED before it or its DOUT" if len(wrong) < 3
              else "several LEDs: check the supply, the ground and the byte order (led_order)")
    return CheckResult("leds", name, False, f"LED {shown} {what}: {advice}")


# -- step 3: switches (a calibration run) -----------------------------------------------------


def check_switches(
    link: Link,
    profile: Profile,
    maker: Maker | None,
    *,
    timeout_ms: int,
    on_effect: Callable[[Effect], None] | None = None,
    only: Sequence[str] | None = None,
) -> list[CheckResult]:
    """Ask for every button and a magnet on every site (``only`` these sites, when given);
    a result per faulty switch and one for the whole matrix. Dead switches are skipped
    after ``timeout_ms``."""
    machine = Calibration(profile, timeout_ms=timeout_ms, include_buttons=only is None,
                          only=only)
    run = CalibrationRun(machine, link, maker=maker, auto_skip_dead=True,
                         on_effect=on_effect)
    finished = run.run()
    results = [_flag_result(f) for f in machine.flags]
    steps = len(machine.steps)
    if not finished:
        results.append(CheckResult("switches", "all switches", False,
                                   f"stopped after {len(machine.measured)} of {steps}"))
    elif not machine.flags:
        results.append(CheckResult("switches", "all switches", True,
                                   f"{steps} sites and buttons close and open"
                                   if only is None else f"{steps} sites close and open"))
    return results


def _flag_result(flag: Flag) -> CheckResult:
    return CheckResult("switches", flag.name or f"position {flag.pos}", False,
                       f"{flag.kind}: {flag.detail}")


# -- faults for the virtual board ------------------------------------------------------------


def apply_fault(board: object, profile: Profile, spec: str) -> str:
    """Inject ``spec`` into a virtual board: ``led:N`` (a broken LED), ``dead:SITE`` or
    ``stuck:SITE`` (a switch that never closes, or never opens). Returns it in words."""
    kind, _, what = spec.partition(":")
    if kind == "led":
        try:
            index = int(what)
        except ValueError:
            raise ValueError(f"fault {spec!r}: write led:N with N an LED number") from None
        board.break_led(index)  # type: ignore[attr-defined]
        return f"LED {index} broken"
    if kind in ("dead", "stuck"):
        if what in profile.sites:
            pos = profile.sites[what].pos
        elif what in profile.buttons:
            pos = profile.buttons[what]
        else:
            raise ValueError(f"fault {spec!r}: {what!r} is not a site or button of {profile.name}")
        if kind == "dead":
            board.kill_switch(pos)  # type: ignore[attr-defined]
        else:
            board.stick_switch(pos)  # type: ignore[attr-defined]
        return f"{what}'s switch {kind}"
    raise ValueError(f"fault {spec!r}: use led:N, dead:SITE or stuck:SITE")
