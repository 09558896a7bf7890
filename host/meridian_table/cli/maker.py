"""Tools for makers: `profile list|check|show`, `calibrate` and `flash`.

Thin shells: the work is done by ``meridian_table.profiles`` (loading and checking),
``maker.calibration`` / ``maker.calibration_run`` (the calibration state
machine and its driver) and ``maker.flashing`` (build, copy, verify).
"""

from __future__ import annotations

import contextlib
import json
import logging
import subprocess
import sys
import threading
import time as time_module
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from meridian_table.link import BoardFault, Link, LinkError, LinkState, UnknownPortError, check_port
from meridian_table.maker import boards, flashing
from meridian_table.maker import selftest as st
from meridian_table.maker.calibration import (
    DEFAULT_TIMEOUT_MS,
    AwaitRelease,
    Calibration,
    CalibrationError,
    Effect,
    Finished,
    Flagged,
    Prompt,
    Recorded,
    Reminder,
    Skipped,
)
from meridian_table.maker.calibration_run import (
    CalibrationRun,
    Maker,
    SimMaker,
    load_progress,
)
from meridian_table.profiles import (
    Profile,
    ProfileError,
    dumps_profile,
    is_shipped,
    list_profiles,
    load_profile,
    resolve,
    save_profile,
)
from meridian_table.profiles.problems import all_problems

if TYPE_CHECKING:
    from meridian_table.sim import VirtualBoard

LOGGER = logging.getLogger(__name__)


def _load(name: str) -> Profile:
    try:
        return load_profile(name)
    except ProfileError as exc:
        raise click.ClickException(str(exc)) from exc


def _console() -> Console:
    return Console(highlight=False)


# -- profile list / check / show ----------------------------------------------------------


def _summary_table(profiles: Sequence[Profile]) -> Table:
    table = Table(title="board profiles", show_edge=False)
    # The name is what --profile takes and the game what `play` takes: never cut them;
    # the other columns fold onto more lines instead of ending in "…".
    for column, texts in (("name", [p.name for p in profiles]), ("game", [p.game for p in profiles])):
        table.add_column(column, no_wrap=True, min_width=max(map(len, texts), default=4))
    for column in ("sites", "buttons", "scanner", "GPIOs", "LEDs", "budget"):
        if column in ("scanner", "budget"):
            table.add_column(column, overflow="fold", min_width=len(column))
        else:
            table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    for p in profiles:
        scanner = (
            f"matrix {p.rows}x{p.cols}" if p.shift_chain is None
            else f"sr165 x{p.chips} ({p.rows}x{p.cols})"
        )
        table.add_row(
            p.name, p.game, str(len(p.sites)), str(len(p.buttons)), scanner,
            str(p.gpio_count), str(p.leds), f"{p.budget_ma} mA {p.power_source}",
        )
    return table


def _profile_group(group: click.Group) -> None:
    @group.group()
    def profile() -> None:
        """List, check and show board profiles (the shipped ones, and $MERIDIAN_TABLE_BOARDS)."""

    @profile.command("list")
    def list_command() -> None:
        """Every profile on the search path, with its wiring in one line."""
        _console().print(_summary_table([_load(name) for name in list_profiles()]))

    @profile.command("check")
    @click.argument("names", nargs=-1)
    def check_command(names: tuple[str, ...]) -> None:
        """Validate profiles (names or paths; all when none given). Exit 1 on any error.

        \b
        Example:
          meridian-table profile check ./my-board.json
        """
        console = _console()
        failed = 0
        for name in names or tuple(list_profiles()):
            try:
                p = load_profile(name)
            except ProfileError as exc:
                failed += 1
                # soft_wrap: the line is printed whole and the terminal wraps it, so a
                # long path is never folded inside its name (tables keep the width)
                console.print(f"[red]FAIL[/red] {exc}", soft_wrap=True)
                more = all_problems(name)[1:] if exc.key != "(name)" else []
                if more:
                    console.print(f"     and {len(more)} more problem(s):")
                for problem in more:
                    console.print(f"     {problem.key}: {problem.problem}; {problem.fix}",
                                  soft_wrap=True)
                continue
            console.print(
                f"[green]ok[/green]   {p.name}: {len(p.sites)} sites, {len(p.buttons)} buttons, "
                f"{p.gpio_count} GPIOs, {p.leds} LEDs ({resolve(name)})"
            )
            for warning in p.warnings:
                console.print(f"     [yellow]warning[/yellow] {warning}")
        if failed:
            raise click.ClickException(f"{failed} profile(s) failed the check")

    @profile.command("bom")
    @click.argument("name")
    def bom_command(name: str) -> None:
        """The bill of materials of one board, computed from its profile."""
        from meridian_table.maker.bom import bill_of_materials

        p = _load(name)
        table = Table(title=f"bill of materials: {p.name}")
        table.add_column("qty", justify="right")
        table.add_column("part")
        table.add_column("why")
        for line in bill_of_materials(p):
            table.add_row(str(line.qty), line.part, line.why)
        _console().print(table)

    @profile.command("show")
    @click.argument("name")
    @click.option("--config", "as_config", is_flag=True,
                  help="Print the firmware's config.json instead.")
    @click.option("--json", "as_json", is_flag=True,
                  help="Print the profile file itself, to save and edit as your own board.")
    def show_command(name: str, as_config: bool, as_json: bool) -> None:
        """Show one profile: wiring, pins, power and every site.

        \b
        Examples:
          meridian-table profile show PROFILE
          meridian-table profile show PROFILE --json > my-board.json
        """
        p = _load(name)
        if as_config and as_json:
            raise click.UsageError("give --config or --json, not both")
        if as_config:
            click.echo(json.dumps(p.firmware_config(), indent=2))
            return
        if as_json:
            click.echo(dumps_profile(p.to_dict()), nl=False)
            return
        console = _console()
        console.print(_summary_table([p]))
        for note in p.notes:
            console.print(note)
        pins = Table(title="GPIOs")
        pins.add_column("role")
        pins.add_column("GPIO")
        for role, value in p.pins.items():
            pins.add_row(role, json.dumps(value))
        console.print(pins)
        console.print(
            f"LEDs: {p.leds} x up to 60 mA = {p.leds * 60} mA at full white; budget "
            f"{p.budget_ma} mA, brightness {p.brightness}/255; debounce {p.debounce_scans} x "
            f"{p.scan_period_ms} ms = {p.debounce_window_ms} ms"
        )
        sites = Table(title="sites")
        for column in ("site", "pos", "row", "col", "LED"):
            sites.add_column(column)
        for site, where in p.sites.items():
            row, col = p.row_col(where.pos)
            sites.add_row(site, str(where.pos), str(row), str(col), str(where.led))
        for button, pos in p.buttons.items():
            row, col = p.row_col(pos)
            sites.add_row(f"[bold]{button}[/bold]", str(pos), str(row), str(col), "-")
        console.print(sites)


# -- calibrate -----------------------------------------------------------------------------


def _describe_effect(effect: Effect) -> str | None:
    if isinstance(effect, Prompt):
        step = effect.step
        if step.kind == "button":
            return f"[{effect.index + 1}/{effect.total}] press the [bold]{step.name}[/bold] button"
        where = f" (LED {step.led} is pulsing)" if step.led is not None else ""
        return f"[{effect.index + 1}/{effect.total}] put a magnet on [bold]{step.name}[/bold]{where}"
    if isinstance(effect, Recorded):
        return f"    {effect.name} -> position {effect.pos}"
    if isinstance(effect, AwaitRelease):
        if effect.name:
            return f"    lift the magnet from [bold]{effect.name}[/bold] now (or let go of it)"
        return (f"    position {effect.pos} is closed: lift any magnet from the board "
                "before the next site")
    if isinstance(effect, Reminder):
        return f"    [yellow]still waiting[/yellow]: {effect.text}"
    if isinstance(effect, Skipped):
        return f"    skipped {effect.name} ({effect.why})"
    if isinstance(effect, Flagged):
        colour = "yellow" if effect.flag.kind == "dead" else "red"
        return f"    [{colour}]{effect.flag.kind}[/{colour}]: {effect.flag.detail}"
    if isinstance(effect, Finished):
        return f"finished: {effect.recorded} recorded, {effect.skipped} skipped"
    return None


def _keyboard(run: CalibrationRun) -> None:
    """Enter (or s) skips the current step, q stops; runs on a daemon thread."""
    for line in sys.stdin:
        answer = line.strip().lower()
        if answer in ("", "s", "skip"):
            run.skip()
        elif answer in ("q", "quit"):
            run.stop()
            return


def _make_link(port: str) -> Link:
    """The link to calibrate over (a seam for tests)."""
    return Link(port)


@contextlib.contextmanager
def _board(profile: Profile, port: str, sim: bool) -> Iterator[tuple[str, Maker | None]]:
    if not sim:
        yield port, None
        return
    if port == "emu":
        with _emulated_board(profile) as emulated:
            yield emulated.port, SimMaker(emulated)
        return
    try:
        from meridian_table.sim import VirtualBoard  # type: ignore[attr-defined,unused-ignore]
    except ImportError as exc:
        raise click.ClickException(
            f"the virtual board is not available ({exc}); calibrate a real board with --port"
        ) from exc
    with VirtualBoard(profile, mode="cpython") as board:
        yield board.port, SimMaker(board)


@contextlib.contextmanager
def _emulated_board(profile: Profile) -> Iterator[VirtualBoard]:
    """The emulated Pico (``--board emu``/``--port emu``): the firmware on MicroPython's
    rp2 build in rp2040js; a clear error when the emulator cannot start."""
    from meridian_table.sim.emu import EmulatedBoard
    from meridian_table.sim.transport import VirtualBoardError

    board = EmulatedBoard(profile)
    try:
        board.start()
    except VirtualBoardError as exc:
        raise click.ClickException(f"the emulated Pico cannot start: {exc}") from None
    with board:
        yield board


def _calibrate_command(group: click.Group) -> None:
    @group.command()
    @click.option("--profile", "profile_name", required=True, help="Board profile name or path.")
    @click.option("--port", default="auto", show_default=True,
                  help="Serial port or pyserial URL of the board.")
    @click.option("--sim", is_flag=True,
                  help="Calibrate a virtual board; the tool places the magnets itself (a demo).")
    @click.option("--output", type=click.Path(dir_okay=False, path_type=Path),
                  help="Where to write the measured profile [default: ./NAME.calibrated.json].")
    @click.option("--in-place", is_flag=True,
                  help="Overwrite the profile itself (the old file is kept as .bak).")
    @click.option("--timeout", "timeout_s", default=DEFAULT_TIMEOUT_MS / 1000, show_default=True,
                  type=click.FloatRange(min=1),
                  help="Seconds without a switch closing before it is called dead.")
    @click.option("--skip-dead", is_flag=True, help="Skip dead switches without asking.")
    @click.option("--no-buttons", is_flag=True, help="Calibrate the sites only.")
    @click.option("--only", multiple=True, help="Calibrate only these sites/buttons (repeatable).")
    @click.option("--restart", is_flag=True, help="Ignore saved progress and start again.")
    def calibrate(
        profile_name: str, port: str, sim: bool, output: Path | None, in_place: bool,
        timeout_s: float, skip_dead: bool, no_buttons: bool, only: tuple[str, ...], restart: bool,
    ) -> None:
        """Light each site in turn, record the switch a magnet closes, write the profile.

        Flags dead switches (nothing closes: press Enter to skip), stuck switches
        (closed before the magnet) and cross-wired ones (a position another site
        closed, or the one the profile expected for another site). Progress is saved
        after every step; run the same command again to resume.

        \b
        Examples:
          meridian-table calibrate --profile PROFILE
          meridian-table calibrate --profile ./my.json --in-place --only G6 --only A1
          meridian-table calibrate --profile PROFILE --sim         # a demo
          meridian-table calibrate --profile PROFILE --port emu    # the emulated Pico
        """
        profile = _load(profile_name)
        emu = port == "emu"
        if emu and sim:
            raise click.UsageError("give --sim or --port emu, not both")
        sim = sim or emu  # the emulated Pico is a virtual board too: magnets placed for you
        if not sim:
            _check_port(port)
        console = _console()
        if in_place:
            if output is not None:
                raise click.UsageError("give --output or --in-place, not both")
            if profile.path is None:
                raise click.UsageError("--in-place needs a profile loaded from a file")
            if is_shipped(profile.path):
                raise click.UsageError(
                    f"--in-place would overwrite {profile.name}, a profile shipped inside "
                    "meridian-table (an upgrade replaces it); leave --in-place out to write "
                    f"./{profile.name}.calibrated.json, then play with --profile FILE"
                )
            target = profile.path
        elif sim:
            # A demo: the file says so, and is never offered as the board's profile.
            target = output or Path.cwd() / f"{profile.name}.{'emu' if emu else 'sim'}-demo.json"
        else:
            target = output or Path.cwd() / f"{profile.name}.calibrated.json"
        progress_path = target.with_name(target.name + ".progress.json")
        timeout_ms = int(timeout_s * 1000)
        try:
            if progress_path.exists() and not restart:
                machine = Calibration.from_progress(
                    profile, load_progress(progress_path), timeout_ms=timeout_ms
                )
                done = len(set(machine.measured) | set(machine.skipped))
                console.print(f"resuming from {progress_path} ({done} of "
                              f"{len(machine.steps)} done: {len(machine.measured)} recorded, "
                              f"{len(machine.skipped)} skipped)")
            else:
                machine = Calibration(profile, include_buttons=not no_buttons,
                                      only=only or None, timeout_ms=timeout_ms)
        except CalibrationError as exc:
            raise click.ClickException(str(exc)) from exc

        with _board(profile, port, sim) as (board_port, maker), _make_link(board_port) as link:
            try:
                hello = link.wait_connected(timeout=15)
            except LinkError as exc:
                if "dialout" in str(exc) or "permission denied" in str(exc):
                    raise click.ClickException(str(exc)) from None
                raise click.ClickException(f"{exc}; plug the board in or give --port") from exc
            if (hello.rows, hello.cols) != (profile.rows, profile.cols):
                raise click.ClickException(
                    f"the board on {link.port} is configured as {hello.board!r} with a "
                    f"{hello.rows} x {hello.cols} matrix, but {profile.name} is "
                    f"{profile.rows} x {profile.cols}; flash it first: "
                    f"meridian-table flash --profile {profile_name}"
                )
            with Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), console=console, transient=True,
            ) as bar:
                task = bar.add_task("calibrating", total=len(machine.steps))

                def on_effect(effect: Effect) -> None:
                    text = _describe_effect(effect)
                    if text is not None:
                        bar.console.print(text)
                    if isinstance(effect, Reminder) and not (skip_dead or sim):
                        bar.console.print("    press Enter to skip, or keep trying")
                    if isinstance(effect, Prompt):
                        bar.update(task, completed=effect.index,
                                   description=f"{effect.step.name}")
                    if isinstance(effect, Finished):
                        bar.update(task, completed=len(machine.steps))

                def on_link(event: LinkState | BoardFault) -> None:
                    if isinstance(event, BoardFault):
                        hint = (" (three corners of a rectangle closed: a diode is missing "
                                "or reversed)" if event.code == "GHOST" else "")
                        bar.console.print(f"[red]board fault {event.code}[/red] "
                                          f"{' '.join(event.detail)}{hint}")
                    else:
                        bar.console.print(f"[yellow]link {event.state}[/yellow] {event.detail}")

                run = CalibrationRun(
                    machine, link, on_effect=on_effect, on_link=on_link,
                    progress_path=progress_path, maker=maker, auto_skip_dead=skip_dead or sim,
                )
                if maker is None and sys.stdin.isatty():
                    threading.Thread(target=_keyboard, args=(run,), daemon=True).start()
                console.print(f"calibrating {profile.name} on {link.port}: "
                              f"{len(machine.steps)} steps, Ctrl-C to pause")
                try:
                    finished = run.run()
                except KeyboardInterrupt:
                    finished = False
        if not finished:
            console.print(f"paused; progress is in {progress_path}. Run the same command to resume.")
            return
        _finish(console, machine, target, progress_path, in_place, sim)


def _finish(console: Console, machine: Calibration, target: Path, progress_path: Path,
            in_place: bool, sim: bool = False) -> None:
    try:
        result = machine.result_profile()
    except ProfileError as exc:
        raise click.ClickException(
            f"the measured profile does not validate ({exc}); progress is kept in {progress_path}"
        ) from exc
    backup = save_profile(result, target, backup=in_place)
    progress_path.unlink(missing_ok=True)
    if machine.flags:
        table = Table(title="problems found")
        for column in ("kind", "site", "position", "what to do"):
            table.add_column(column)
        for flag in machine.flags:
            table.add_row(flag.kind, flag.name or "-", "-" if flag.pos is None else str(flag.pos),
                          flag.detail)
        console.print(table)
    moved = machine.moved()
    if moved:
        console.print("not measured and moved to a free position (they will not sense until "
                      "repaired and calibrated with --only): "
                      + ", ".join(f"{k} -> {v}" for k, v in moved.items()))
    console.print(f"wrote {target}" + (f" (previous version in {backup})" if backup else ""),
                  soft_wrap=True)  # a long path whole, never folded inside its name
    if sim:
        console.print("this was a demo on the virtual board: the file describes no real "
                      "board; calibrate your board without --sim")
    elif not in_place:
        hint = f"use it with --profile {target}"
        path = machine.profile.path
        if path is not None and not is_shipped(path):
            hint += f", or copy it over {path}"
        console.print(hint)


# -- flash -----------------------------------------------------------------------------------


def _flash_command(group: click.Group) -> None:
    @group.command()
    @click.option("--profile", "profile_name", required=True, help="Board profile name or path.")
    @click.option("--port", default="auto", show_default=True,
                  help="The Pico's serial port (auto: the first Pico by USB VID:PID).")
    @click.option("--build-dir", type=click.Path(file_okay=False, path_type=Path),
                  default=Path("build/pico"), show_default=True,
                  help="Where the compiled files and config.json are written (cleared first).")
    @click.option("--build-only", is_flag=True, help="Compile and write config.json; copy nothing.")
    @click.option("--no-verify", is_flag=True, help="Do not wait for the board's HELLO.")
    @click.option("--wait", "wait_s", type=click.FloatRange(min=1.0, max=600.0),
                  default=flashing.VERIFY_TIMEOUT_S, show_default=True, metavar="SECONDS",
                  help="How long to wait for the board's HELLO after the reset (a slow "
                       "host or an emulated Pico may need longer).")
    @click.option("--update", is_flag=True,
                  help="Replace the firmware only; keep the board's config.json.")
    def flash(profile_name: str, port: str, build_dir: Path, build_only: bool,
              no_verify: bool, wait_s: float, update: bool) -> None:
        """Compile the firmware (mpy-cross), copy it and the board's config.json to the
        Pico (mpremote), reset it and check the firmware version in its HELLO.

        Install MicroPython on the Pico first (hold BOOTSEL, plug in, copy the UF2).

        \b
        Examples:
          meridian-table flash --profile PROFILE
          meridian-table flash --profile ./my.json --port /dev/ttyACM1
        """
        profile = _load(profile_name)
        if not build_only:
            _check_port(port, allow_sim=False)
        console = _console()
        for warning in profile.warnings:
            console.print(f"[yellow]warning[/yellow] {warning}")
        try:
            if build_only:
                _build(console, profile, build_dir, _profile_arch(profile))
                return
            target = _pico_port(port, profile, build_dir, console, keep_config=update)
            _refuse_virtual_board(target)
            said_bye = flashing.release(target)
            if said_bye:
                console.print("the running firmware gave the REPL back")
            with console.status(f"asking {target} which board it is"):
                try:
                    info = flashing.probe(target)
                except flashing.FlashError as exc:
                    if said_bye:
                        raise flashing.FlashError(
                            f"{exc}. The Meridian firmware on {target} answered REPL and has "
                            "stopped: unplug the board and plug it in again to restart it"
                        ) from exc
                    raise
            arch = flashing.choose_arch(info, profile)
            console.print(f"{info.machine or 'the board'}: MicroPython {info.version_text}, "
                          f"building for {arch}")
            files = _build(console, profile, build_dir, arch)
            keep = flashing.keep_board_config(flashing.board_config(target), profile, update)
            if keep:
                console.print("keeping the board's config.json "
                              + ("(--update)" if update else "(it is already the profile's)"))
            commands = flashing.mpremote_commands(target, files, keep_config=keep)
            copied = [f.remote for f in files if not (keep and f.remote == "config.json")]
            labels = (["prepare the staging folder"] + copied
                      + ["check every copy (SHA-256)", "switch to the new firmware", "reset"])
            with Progress(
                TextColumn("{task.description:<28}"), BarColumn(), MofNCompleteColumn(),
                console=console,
            ) as bar:
                task = bar.add_task("copying", total=len(commands))

                def on_step(index: int, cmd: Sequence[str]) -> None:
                    bar.update(task, completed=index, description=labels[index])

                flashing.run_commands(commands, on_step=on_step)
                bar.update(task, completed=len(commands), description="done")
            if no_verify:
                console.print("copied; not verified (--no-verify)")
                return
            with console.status("waiting for the board's HELLO"):
                verified = flashing.verify(target, profile, timeout=wait_s)
        except flashing.FlashError as exc:
            raise click.ClickException(str(exc)) from exc
        console.print(
            f"[green]ok[/green] {verified.board} runs firmware {verified.fw} "
            f"({verified.rows} x {verified.cols}, {verified.leds} LEDs)"
        )


def _profile_arch(profile: Profile) -> str:
    """The architecture of the board the profile names (the RP2040's when it names none)."""
    model = boards.MODELS.get(profile.pico)
    return model.arch if model is not None else flashing.MPY_ARCH


def _build(console: Console, profile: Profile, build_dir: Path,
           arch: str) -> list[flashing.FirmwareFile]:
    with console.status(f"compiling the firmware with mpy-cross for {arch}"):
        files = flashing.build(profile, build_dir, arch=arch)
    for f in files:
        if f.remote.endswith(".mpy"):
            flashing.check_mpy(f.local, arch)
    console.print(f"built {len(files)} files in {build_dir} for {profile.name} ({arch})")
    return files


def _refuse_virtual_board(target: str) -> None:
    from meridian_table.link import discovery

    if target in {c.port for c in discovery.find_sims()}:
        raise flashing.FlashError(
            f"{target} is a virtual board (meridian-table sim): it runs the firmware from "
            "this installation already and has nothing to flash; give the Pico's port"
        )


def _check_port(port: str, *, allow_sim: bool = True) -> None:
    try:
        check_port(port, allow_sim=allow_sim)
    except UnknownPortError as exc:
        raise click.BadParameter(str(exc), param_hint="--port") from None


def _pico_port(port: str, profile: Profile | None = None, build_dir: Path | None = None,
               console: Console | None = None, *, keep_config: bool = False) -> str:
    if port not in ("auto", "pico"):
        return port
    picos = flashing_find_picos()
    if not picos:
        manual = ""
        if profile is not None and build_dir is not None and console is not None:
            files = _build(console, profile, build_dir, _profile_arch(profile))
            steps = "\n  ".join(flashing.manual_steps(build_dir, files,
                                                        keep_config=keep_config))
            manual = (
                f"\nTo copy it by hand, once MicroPython runs on the Pico:\n  {steps}\n"
                f"or, in Thonny, upload everything inside {build_dir} to the Pico's root "
                + ("except config.json (--update keeps the board's own) " if keep_config
                   else "")
                + "(View > Files, right-click > Upload to /)."
            )
        others = boards.boards_in_other_modes()
        seen = ("\nFound, but not running MicroPython (install its UF2, docs/MAKERS.md): "
                + "; ".join(others)) if others else ""
        raise click.ClickException(
            "no Pico found (USB VID:PID 2E8A:0005, MicroPython); plug it in, or give --port "
            "(hold BOOTSEL while plugging in only to install MicroPython itself)" + seen + manual
        )
    if len(picos) > 1:
        raise click.ClickException(
            f"{len(picos)} Picos are plugged in ({', '.join(picos)}); choose one with --port"
        )
    return picos[0]


def flashing_find_picos() -> list[str]:
    """The ports of every plugged-in Pico (a seam for tests)."""
    from meridian_table.link import find_picos

    return [c.port for c in find_picos()]


def register(group: click.Group) -> None:
    _profile_group(group)
    _calibrate_command(group)
    _flash_command(group)
    _selftest_command(group)
    _leds_group(group)


# -- leds --------------------------------------------------------------------------------------


def _leds_group(group: click.Group) -> None:
    @group.group()
    def leds() -> None:
        """Check the LED strip of a board.

        \b
        Example:
          meridian-table leds test --profile kato-114
        """

    @leds.command("test")
    @click.option("--profile", "profile_name", required=True, help="Board profile name or path.")
    @click.option("--port", default="auto", show_default=True,
                  help="Serial port of the board, auto, or sim (the virtual board).")
    @click.option("--ident", "ident_s", default=3, show_default=True,
                  type=click.IntRange(0, 60),
                  help="Seconds of the identify pattern first (every LED blinks white).")
    @click.option("--hold", "hold_s", default=0.15, show_default=True,
                  type=click.FloatRange(0, 5), help="Seconds each LED stays lit in turn.")
    @click.option("--ask/--no-ask", default=True, show_default=True,
                  help="Ask which LEDs were wrong after each step.")
    def leds_test(profile_name: str, port: str, ident_s: int, hold_s: float, ask: bool) -> None:
        """Light each LED in turn, then the whole strip red, green and blue.

        First the board's identify pattern (IDENT) blinks every LED white, so you know
        which board answers. Type the numbers of the LEDs that were wrong when asked.

        \b
        Examples:
          meridian-table leds test --profile kato-114
          meridian-table leds test --profile kato-114 --port sim --no-ask
        """
        profile = _load(profile_name)
        sim = port == "sim"
        if not sim:
            _check_port(port)
        console = _console()
        with _selftest_board(profile, port, sim, ()) as (vb, link_port, _maker):
            with _make_link(link_port) as link:
                try:
                    link.wait_connected(timeout=15)
                except LinkError as exc:
                    raise click.ClickException(f"{exc}; is the firmware flashed?") from exc
                if ident_s:
                    console.print(f"identify: every LED blinks white for {ident_s} s")
                    link.identify(ident_s)
                    time_module.sleep(ident_s)
                    link.identify(0)
                eyes: st.Eyes
                if vb is not None:
                    eyes = st.SimEyes(vb, link)
                elif ask:
                    eyes = _HumanEyes(console)
                else:
                    eyes = _Blind()
                console.print("each LED lights white in turn, then all red, green, blue")
                with Progress(TextColumn("{task.description:<16}"), BarColumn(),
                              MofNCompleteColumn(), console=console, transient=True) as bar:
                    task = bar.add_task("LEDs", total=profile.leds + len(st.COLOURS))

                    def on_led(index: int, total: int, what: str) -> None:
                        bar.update(task, completed=index, description=what)

                    results = st.check_leds(link, profile.leds, eyes, on_step=on_led,
                                            hold_s=0.0 if vb is not None else hold_s)
        if not ask and vb is None:
            console.print("shown; run with --ask to record which LEDs were wrong")
            return
        for r in results:
            mark = "[green]ok[/green]  " if r.passed else "[red]FAIL[/red]"
            console.print(f"{mark} {r.name}: {r.detail}")
        if not all(r.passed for r in results):
            raise click.ClickException("some LEDs were wrong; see above")


class _Blind:
    """Nobody answers: every step is only shown."""

    def look(self, description: str, expected: Sequence[tuple[int, int, int]]) -> set[int]:
        return set()

    def summary(self, description: str) -> set[int]:
        return set()


# -- selftest --------------------------------------------------------------------------------


class _HumanEyes:
    """A person at the board: watches, then types the numbers of the LEDs that were wrong."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def look(self, description: str, expected: Sequence[tuple[int, int, int]]) -> set[int]:
        return set()  # answered once the whole step has been shown (summary)

    def summary(self, description: str) -> set[int]:
        while True:
            answer = click.prompt(
                f"{description}: type the numbers of the LEDs that did not (Enter: all did)",
                default="", show_default=False,
            )
            try:
                return {int(word) for word in answer.replace(",", " ").split()}
            except ValueError:
                self.console.print(f"[yellow]{answer!r}[/yellow]: LED numbers only, like 3 17")


def _selftest_command(group: click.Group) -> None:
    @group.command()
    @click.option("--profile", "profile_name", required=True, help="Board profile name or path.")
    @click.option("--board", "board_port", default="auto", show_default=True,
                  help="The Pico's serial port, auto, sim (the virtual board) or emu (the "
                  "emulated Pico).")
    @click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path),
                  help="Where to save the report [default: ./NAME.selftest.json, beside "
                       "./NAME.calibrated.json].")
    @click.option("--timeout", "timeout_s", default=20.0, show_default=True,
                  type=click.FloatRange(min=0.5),
                  help="Seconds to wait for each switch before it is reported dead.")
    @click.option("--fault", "faults", multiple=True,
                  help="With --board sim or emu: inject led:N, dead:SITE or stuck:SITE "
                  "(repeatable).")
    @click.option("--skip-tests", is_flag=True, help="Skip the firmware tests (step 1).")
    @click.option("--sites", "sites_text", default=None, metavar="SITE,...",
                  help="Check only these sites: their LEDs in turn and their switches (a "
                       "re-test after a repair); every LED still shows red, green and blue.")
    def selftest(profile_name: str, board_port: str, report_path: Path | None, timeout_s: float,
                 faults: tuple[str, ...], skip_tests: bool, sites_text: str | None) -> None:
        """Check a built board: the firmware's tests on its interpreter, every LED red,
        green and blue, every button and every site's switch; save a pass/fail report.

        \b
        Examples:
          meridian-table selftest --profile kato-114
          meridian-table selftest --profile kato-114 --board sim --fault led:3 --fault dead:A1
          meridian-table selftest --profile kato-114 --sites G6,H7
        """
        profile = _load(profile_name)
        only = _selftest_sites(profile, sites_text)
        sim = board_port == "sim"
        emu = board_port == "emu"
        if faults and not (sim or emu):
            raise click.UsageError("--fault injects faults into the virtual board: add --board "
                                   "sim or --board emu")
        if not (sim or emu):
            _check_port(board_port, allow_sim=False)
        console = _console()
        suffix = ".selftest-sim.json" if sim else ".selftest-emu.json" if emu else ".selftest.json"
        target = report_path or Path.cwd() / f"{profile.name}{suffix}"
        report = st.SelftestReport(
            profile.name, "virtual board" if sim else "emulated Pico" if emu else board_port)
        port = board_port if (sim or emu) else _pico_port(board_port)
        with _selftest_board(profile, port, sim or emu, faults) as (vb, link_port, maker):
            if not skip_tests:
                # The emulated Pico runs the firmware's tests on its own MicroPython, as a
                # Pico on USB does (copied with mpremote, run one module at a time).
                report.results += _selftest_firmware(console, link_port, sim)
            with _make_link(link_port) as link:
                try:
                    link.wait_connected(timeout=15)
                except LinkError as exc:
                    raise click.ClickException(f"{exc}; is the firmware flashed?") from exc
                eyes = (st.SimEyes(vb, link, settle_s=st.EMU_LOOK_S if emu else 1.5, slow=emu)
                        if vb is not None else _HumanEyes(console))
                with Progress(TextColumn("{task.description:<16}"), BarColumn(),
                              MofNCompleteColumn(), console=console, transient=True) as bar:
                    turns = profile.leds if only is None else len(only)
                    task = bar.add_task("LEDs", total=turns + len(st.COLOURS))

                    def on_led(index: int, total: int, what: str) -> None:
                        bar.update(task, completed=index, description=what)

                    if vb is None:
                        console.print("LEDs: watch the strip: each LED lights white in turn, "
                                      "then all red, all green, all blue")
                    leds = None if only is None else [
                        led for s in only if (led := profile.sites[s].led) is not None]
                    report.results += st.check_leds(link, profile.leds, eyes, on_step=on_led,
                                                    hold_s=0.0 if vb is not None else 0.15,
                                                    leds=leds,
                                                    boot_s=st.EMU_BOOT_S if emu else st.SETTLE_S)
                console.print("switches: press each button and put a magnet on each site "
                              "when asked; lift it when told")

                def on_effect(effect: Effect) -> None:
                    text = _describe_effect(effect)
                    if text is not None:
                        console.print(text)

                report.results += st.check_switches(link, profile, maker,
                                                    timeout_ms=int(timeout_s * 1000),
                                                    on_effect=on_effect, only=only)
        report.save(target)
        table = Table(title=f"self-test of {profile.name}")
        for column in ("step", "check", "result", "detail"):
            table.add_column(column)
        for r in report.results:
            table.add_row(r.step, r.name, "[green]pass[/green]" if r.passed else "[red]FAIL[/red]",
                          r.detail)
        console.print(table)
        console.print(f"report saved in {target}")
        if not report.passed:
            raise click.ClickException(
                f"{len(report.failures)} check(s) failed; the report says what to look at"
            )
        console.print("[green]every check passed[/green]")


def _selftest_sites(profile: Profile, text: str | None) -> list[str] | None:
    """The sites named by ``--sites`` (None: every site and button); an unknown name is a
    usage error that shows the profile's names."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in profile.sites]
    if not names or unknown:
        example = ", ".join(list(profile.sites)[:4])
        what = f"{', '.join(map(repr, unknown))} is not a site of {profile.name}" if unknown \
            else "no site named"
        raise click.BadParameter(f"{what}; give site names separated by commas, such as "
                                 f"{example}", param_hint="--sites")
    return list(dict.fromkeys(names))


def _selftest_firmware(console: Console, port: str, sim: bool) -> list[st.CheckResult]:
    suite = st.firmware_suite()
    if not suite:
        return [st.CheckResult("firmware", "tests", True,
                               "not run: the firmware tests ship with the source checkout")]
    with Progress(TextColumn("{task.description:<20}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("firmware tests", total=len(suite))

        def on_module(index: int, name: str) -> None:
            bar.update(task, completed=index, description=name)

        if sim:
            from meridian_table.sim import micropython_binary

            results = st.run_suite_unix(suite, micropython_binary(), on_module=on_module)
        else:
            results = _selftest_on_pico(port, suite, on_module)
        bar.update(task, completed=len(suite))
    return [r.as_check() for r in results]


def _selftest_on_pico(port: str, suite: list[Path],
                      on_module: Callable[[int, str], None]) -> list[st.ModuleResult]:
    flashing.release(port)
    copy, runs, cleanup = st.pico_suite_commands(flashing.mpremote_command(), port, suite)
    try:
        flashing.run_commands(copy)
        results: list[st.ModuleResult] = []
        for index, (path, cmd) in enumerate(zip(suite, runs, strict=True)):
            on_module(index, path.stem)
            try:
                proc = flashing._run(cmd, st.MODULE_TIMEOUT_S)
                results.append(st.parse_module_output(path.stem, proc.stdout + proc.stderr))
            except subprocess.TimeoutExpired:
                results.append(st.ModuleResult(path.stem, 0, 0, (),
                                               f"no result within {st.MODULE_TIMEOUT_S:.0f} s"))
        flashing.run_commands([cleanup, [*flashing.mpremote_command(), "connect", port, "reset"]])
    except flashing.FlashError as exc:
        raise click.ClickException(f"copying the firmware tests to {port}: {exc}") from exc
    return results


@contextlib.contextmanager
def _selftest_board(profile: Profile, port: str, sim: bool,
                    faults: Sequence[str]) -> Iterator[tuple[VirtualBoard | None, str, Maker | None]]:
    if not sim:
        yield None, port, None
        return
    from meridian_table.sim import VirtualBoard

    with (_emulated_board(profile) if port == "emu"
          else VirtualBoard(profile, mode="cpython")) as board:
        for spec in faults:
            try:
                st.apply_fault(board, profile, spec)
            except ValueError as exc:
                raise click.BadParameter(str(exc), param_hint="--fault") from None
        yield board, board.port, SimMaker(board)
