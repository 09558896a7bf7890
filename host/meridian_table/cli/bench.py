"""`meridian-table bench NAME [--json]`: benchmarks that print figures.

Each module in `meridian_table.bench` defines `NAME` (the bench's name), `HELP` (one
line) and `run(options) -> dict` returning the figures; each game brings its own
through its spec's `benches`. Targets are proved by these
figures, never by timed assertions in tests; each bench measures its own reference
in the same run and reports ratios where the machine's noise would otherwise decide.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Callable
from typing import Any

import click

from meridian_table import bench as _bench_pkg
from meridian_table.games import registry

BenchRun = Callable[[dict[str, Any]], dict[str, Any]]


def _benches() -> dict[str, BenchRun]:
    """The platform's benches (modules of ``meridian_table.bench``) and every game's."""
    found: dict[str, BenchRun] = {}
    for info in pkgutil.iter_modules(_bench_pkg.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"meridian_table.bench.{info.name}")
        found[module.NAME] = module.run
    for spec in registry.specs().values():
        for bench in spec.benches:
            found[bench.name] = bench.run
    return dict(sorted(found.items()))


def _print(name: str, figures: dict[str, Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(figures, indent=2, sort_keys=True))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"bench {name}")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for key, value in figures.items():
        table.add_row(key, json.dumps(value) if not isinstance(value, str) else value)
    Console().print(table)


def _help() -> str:
    # Module names, not imports: importing every bench would slow every CLI start.
    names = sorted([m.name for m in pkgutil.iter_modules(_bench_pkg.__path__)
                    if not m.name.startswith("_")]
                   + [b.name for spec in registry.specs().values() for b in spec.benches])
    return (
        "Run benchmark NAME (or `all`) and print its figures.\n\n"
        f"NAME is one of: all, {', '.join(names)}.\n\n"
        "\b\nExample:\n  meridian-table bench link --quick --json"
    )


def register(group: click.Group) -> None:
    @group.command(help=_help())
    @click.argument("name")
    @click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
    @click.option("--quick", is_flag=True, help="Fewer iterations (for smoke tests).")
    def bench(name: str, as_json: bool, quick: bool) -> None:
        """Run benchmark NAME (or `all`) and print its figures."""
        benches = _benches()
        if name == "all":
            chosen = list(benches)
        elif name in benches:
            chosen = [name]
        else:
            raise click.BadParameter(
                f"unknown bench {name!r}; choose one of: {', '.join(['all', *benches])}",
                param_hint="NAME",
            )
        results: dict[str, Any] = {}
        for key in chosen:
            results[key] = benches[key]({"quick": quick})
        if len(chosen) == 1:
            _print(chosen[0], results[chosen[0]], as_json)
        elif as_json:
            click.echo(json.dumps(results, indent=2, sort_keys=True))
        else:
            for key, figures in results.items():
                _print(key, figures, False)
