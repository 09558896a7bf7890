"""Every command's --help is complete: a summary, help for every option, an example."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

import meridian_table.cli.bench as bench_cli
from meridian_table.cli.main import main

# Groups only list their commands; `profile list/show/bom` and `map` need no example.
NO_EXAMPLE = {"profile", "profile list", "profile show", "profile bom", "map", "score"}


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], click.Command]]:
    for name, command in sorted(group.commands.items()):
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


COMMANDS = list(_commands(main))


def test_every_documented_command_is_there() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    for wanted in ("play", "sim", "monitor", "calibrate", "flash", "profile", "map", "score",
                   "games", "replay", "export", "bench"):
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
