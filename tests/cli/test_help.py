"""Every command's --help is complete: a summary, help for every option, an example."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

import meridian_table.cli.bench as bench_cli
from meridian_table import cli as cli_pkg
from meridian_table.cli.main import COMMANDS as LAZY
from meridian_table.cli.main import LazyGroup, main

# Groups only list their commands; `profile list/show/bom` and `map` need no example.
NO_EXAMPLE = {"profile", "profile list", "profile show", "profile bom", "colovini map"}


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], click.Command]]:
    for name, command in sorted(group.commands.items()):
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


def _all(group: click.Group) -> click.Group:
    """``main`` with every command loaded (it imports a command's module on first use)."""
    assert isinstance(group, LazyGroup)
    group.load_all()
    return group


COMMANDS = list(_commands(_all(main)))


def test_every_documented_command_is_there() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    for wanted in ("play", "sim", "monitor", "calibrate", "flash", "profile", "colovini map",
                   "colovini score", "empire check", "games", "replay", "export", "bench"):
        assert wanted in names


@pytest.mark.parametrize("path, command", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_help_is_complete(path: tuple[str, ...], command: click.Command) -> None:
    result = CliRunner().invoke(main, [*path, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    assert (command.help or "").strip(), f"{' '.join(path)} has no description"
    for param in command.params:
        if isinstance(param, click.Option) and "--help" not in param.opts:
            assert (param.help or "").strip(), f"{' '.join(path)} {param.opts[0]} has no help"
    if " ".join(path) not in NO_EXAMPLE:
        assert "Example" in result.output, f"{' '.join(path)} --help shows no example"
        assert "meridian-table " + path[0] in result.output


def test_bench_help_lists_the_benches() -> None:
    result = CliRunner().invoke(main, ["bench", "--help"])
    flat = " ".join(result.output.split())  # the help wraps at the terminal's width
    names = ", ".join(["all", *sorted(bench_cli._benches())])
    assert f"NAME is one of: {names}." in flat
    assert {"feel", "kato", "table", "link", "host", "club", "fuzz"} <= set(bench_cli._benches())


def test_the_lazy_command_table_matches_the_modules() -> None:
    # `--help` lists the commands from main.COMMANDS without importing them: each entry
    # must name the module that registers the command, and that command's own first line.
    for name, (module, summary) in LAZY.items():
        scratch = click.Group()
        importlib.import_module(f"meridian_table.cli.{module}").register(scratch)
        assert name in scratch.commands, f"meridian_table.cli.{module} does not register {name!r}"
        first = " ".join((scratch.commands[name].help or "").split("\n\n")[0].split())
        assert first == summary, f"main.COMMANDS[{name!r}] says {summary!r}, the command {first!r}"
    # ... and every command a cli module registers is in the table.
    for info in pkgutil.iter_modules(cli_pkg.__path__):
        if info.name == "main" or info.name.startswith("_"):
            continue
        scratch = click.Group()
        importlib.import_module(f"meridian_table.cli.{info.name}").register(scratch)
        for name in scratch.commands:
            assert LAZY.get(name, ("", ""))[0] == info.name, (
                f"{name!r} (meridian_table.cli.{info.name}) is missing from main.COMMANDS")


def test_help_imports_no_command_and_no_engine() -> None:
    code = ("import sys\nsys.argv = ['meridian-table', '--help']\n"
            "from meridian_table.cli.main import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('MODULES', ' '.join(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "Play a game at the table and serve its page." in out
    modules = set(out.split("MODULES", 1)[1].split())
    commands = {m for m in modules if m.startswith("meridian_table.cli.")}
    assert commands <= {"meridian_table.cli.main", "meridian_table.cli._params"}, commands
    heavy = {m for m in modules if m.startswith("meridian_table.games.") and m.rsplit(
        ".", 1)[-1] in {"engine", "game", "bot", "record"} or m.startswith((
            "meridian_table.table", "meridian_table.store", "meridian_table.link",
            "meridian_table.games.board", "rich",
            "psutil", "starlette", "uvicorn"))}
    assert heavy == set(), sorted(heavy)
