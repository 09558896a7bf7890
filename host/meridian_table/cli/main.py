"""Entry point of `meridian-table`.

Every other module in `meridian_table.cli` defines a `register(group)` function that
adds its commands (`play`, `sim`, `monitor`, `bench`, ...). Modules are imported when
the CLI starts, so adding a command is adding one file.
"""

from __future__ import annotations

import importlib
import pkgutil

import click

from meridian_table import __version__
from meridian_table import cli as _cli_pkg
from meridian_table.games import registry


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="meridian-table")
def main() -> None:
    """Meridian Table: a smart board for the three games named Meridian."""


def _register_all() -> None:
    for info in sorted(pkgutil.iter_modules(_cli_pkg.__path__), key=lambda m: m.name):
        if info.name == "main" or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"meridian_table.cli.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(main)


def _register_games() -> None:
    """Each installed game may bring its own commands (its spec's register_commands)."""
    for spec in registry.specs().values():
        if spec.register_commands is not None:
            spec.register_commands(main)


_register_all()
_register_games()

if __name__ == "__main__":
    main()
