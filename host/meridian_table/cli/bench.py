"""`meridian-table bench NAME [--json]`: benchmarks that print figures.

Each module in `meridian_table.bench` defines `NAME` (the bench's name), `HELP` (one
line) and `run(options) -> dict` returning the figures, and may define `TARGETS`
(``{figure: (op, limit)}``, op one of ``<``, ``<=``, ``>``, ``>=``, limit a number or the
name of another figure); each game brings its own through its spec's `benches`. Targets
are proved by these figures, never by timed assertions in tests; each bench measures its
own reference in the same run and reports ratios where the machine's noise would
otherwise decide.

Every run ends with a verdict per target (pass or fail) and the machine's load average,
since a busy machine explains a slow figure. Targets come from ``TARGETS``, from the
figures themselves (a ``verdict`` dict; ``target_X`` next to figure ``X``: at least
``X`` for a rate ``per_s``, else at most; ``meets_target``), and the verdicts go into
the figures as ``verdict`` with ``load_average`` ([1, 5, 15] minutes).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import operator
import os
import pkgutil
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click
import psutil

from meridian_table import bench as _bench_pkg
from meridian_table.games import registry

BenchRun = Callable[[dict[str, Any]], dict[str, Any]]
Targets = dict[str, tuple[str, float | str]]

_OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def _benches() -> dict[str, tuple[BenchRun, Targets]]:
    """The platform's benches (modules of ``meridian_table.bench``) and every game's."""
    found: dict[str, tuple[BenchRun, Targets]] = {}
    for info in pkgutil.iter_modules(_bench_pkg.__path__):
        if info.name.startswith("_"):  # helpers (_gametable: the <id>-table benches)
            continue
        module = importlib.import_module(f"meridian_table.bench.{info.name}")
        found[module.NAME] = (module.run, _targets(getattr(module, "TARGETS", {})))
    for spec in registry.specs().values():
        for bench in spec.benches:
            found[bench.name] = (bench.run, {})
        if spec.bench.table_driver is not None:
            found[f"{spec.id}-table"] = (functools.partial(_game_table, spec.id), {})
    return dict(sorted(found.items()))


@contextlib.contextmanager
def _progress(total: int) -> Iterator[Callable[[int, str], None]]:
    """A progress bar on the terminal's stderr while benches run (some take an hour:
    `bench feel --contend` runs the whole corpus three times). ``step(done, words)``
    moves it. Nothing is drawn where stderr is not a terminal (a pipe, a log, a test), so
    the figures on stdout stay the only output there."""
    if not sys.stderr.isatty():
        yield lambda done, words: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("bench", total=total)
        yield lambda done, words: bar.update(task, completed=done, description=words)


def _game_table(game: str, options: dict[str, Any]) -> dict[str, Any]:
    """``bench <id>-table`` for a game that declares a table driver (docs/BENCH.md)."""
    from meridian_table.bench import _gametable  # imported when run: it opens a table

    return _gametable.run(game, options)


def _targets(declared: object) -> Targets:
    """A module's TARGETS: ``(op, limit)`` pairs, or a bare number meaning "at most"."""
    out: Targets = {}
    if isinstance(declared, dict):
        for name, target in declared.items():
            if isinstance(target, tuple) and len(target) == 2 and target[0] in _OPS:
                out[str(name)] = (str(target[0]), target[1])
            elif _number(target) is not None:
                out[str(name)] = ("<=", float(target))
    return out


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def judge(figures: dict[str, Any], targets: Targets) -> dict[str, str]:
    """``{target: "pass" | "fail"}`` for every target the bench declares or its figures
    carry (see the module docstring)."""
    verdict: dict[str, str] = {}
    given = figures.get("verdict")
    if isinstance(given, dict):
        verdict.update({str(k): str(v) for k, v in given.items()})
    checks: Targets = dict(targets)
    for key, value in figures.items():
        name = key.removeprefix("target_")
        if key.startswith("target_") and name in figures and _number(value) is not None:
            checks.setdefault(name, (">=" if "per_s" in name else "<=", float(value)))
    for name, (op, limit) in checks.items():
        if name in verdict:
            continue
        if name not in figures:
            continue  # judged inside the bench (per game, per mode): see meets_target(s)
        value = _number(figures.get(name))
        bound = _number(figures.get(limit)) if isinstance(limit, str) else _number(limit)
        if value is None or bound is None:
            verdict[name] = "fail"  # a target whose figure could not be measured is not met
            continue
        verdict[name] = "pass" if _OPS[op](value, bound) else "fail"
    for key in ("meets_target", "meets_targets"):
        if isinstance(figures.get(key), bool) and not verdict:
            verdict[key.removeprefix("meets_")] = "pass" if figures[key] else "fail"
    return verdict


def _missed(name: str, figures: dict[str, Any], targets: Targets) -> str:
    """A missed target in words: ``cold_start_to_page_s 0.613, target < 0.5``."""
    value = figures.get(name, "not measured")
    if name not in targets:
        return f"{name} {value}"
    op, limit = targets[name]
    bound = figures.get(limit) if isinstance(limit, str) else limit
    return f"{name} {value}, target {op} {bound}"


def _load_average() -> list[float]:
    try:  # psutil emulates it on Windows
        return [round(x, 2) for x in psutil.getloadavg()]
    except OSError:
        return []


def _with_verdict(figures: dict[str, Any], targets: Targets) -> dict[str, Any]:
    out = dict(figures)
    judged = judge(figures, targets)
    if "verdict" in figures and not isinstance(figures["verdict"], dict):
        # The bench's own verdict in words ("within budget") stays, with every target
        # missed named after it (a verdict at the top must not read as a pass when a
        # target failed); the per-target judgement goes beside it.
        missed = [name for name, outcome in judged.items() if outcome != "pass"]
        if missed:
            out["verdict"] = (f"{figures['verdict']}; target missed: "
                              + "; ".join(_missed(name, figures, targets) for name in missed))
        out["verdict_by_target"] = judged
    else:
        out["verdict"] = judged
    out["load_average"] = _load_average()
    return out


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
        if key in ("verdict", "verdict_by_target", "load_average"):
            continue
        table.add_row(key, json.dumps(value) if not isinstance(value, str) else value)
    console = Console()
    console.print(table)
    verdict = figures.get("verdict") or {}
    stated = not isinstance(verdict, dict)
    if stated:
        console.print(f"verdict: {verdict}")
        verdict = figures.get("verdict_by_target") or {}
    for target, outcome in verdict.items():
        style = "green" if outcome == "pass" else "bold red"
        console.print(f"{target}: [{style}]{outcome}[/{style}]")
    if not verdict and not stated:
        console.print("no target declared for this bench: figures only")
    load = figures.get("load_average") or []
    cpus = os.cpu_count() or 1
    console.print(f"load average {' '.join(map(str, load)) or 'unknown'} on {cpus} CPUs"
                  + (" (busy: figures may be slower than on an idle machine)"
                     if load and load[0] > cpus else ""))


def _help() -> str:
    # Module names, not imports: importing every bench would slow every CLI start.
    names = sorted([m.name for m in pkgutil.iter_modules(_bench_pkg.__path__)
                    if not m.name.startswith("_")]
                   + [b.name for spec in registry.specs().values() for b in spec.benches]
                   + [f"{spec.id}-table" for spec in registry.specs().values()
                      if spec.bench.table_driver is not None])
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
    @click.option("--contend", is_flag=True,
                  help="Run idle, then with one busy process per core and a level-5 bot "
                       "thinking (a player's host with its kiosk browser); figures side by "
                       "side.")
    def bench(name: str, as_json: bool, quick: bool, contend: bool) -> None:
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
        steps = {key: 3 if contend and key != "bots" else 1 for key in chosen}
        with _progress(sum(steps.values())) as step:
            done = 0
            for key in chosen:
                run, targets = benches[key]
                step(done, f"bench {key}")
                try:
                    if contend and key == "bots":
                        # The bots' own contended run: strength, not latency (bench/bots.py).
                        from meridian_table.bench import bots as bots_bench

                        figures = bots_bench.run_contend({"quick": quick})
                        targets = dict(bots_bench.CONTEND_TARGETS)
                    elif contend:
                        from meridian_table.bench import _contend

                        def phase(i: int, words: str, base: int = done,
                                  key: str = key) -> None:
                            step(base + i, f"bench {key}, {i + 1} of 3: {words}" if i < 3
                                 else f"bench {key} done")

                        figures = _contend.run_contended(key, run, {"quick": quick},
                                                         on_phase=phase)
                        targets = {**{f"{k}_idle": t for k, t in targets.items()},
                                   **_contend.targets(key)}
                    else:
                        figures = run({"quick": quick})
                except (ValueError, RuntimeError, OSError) as exc:
                    # A bad setting (an environment variable, a missing game) or a machine
                    # that cannot run it: said in a line, not a traceback.
                    raise click.ClickException(f"bench {key}: {exc}") from exc
                done += steps[key]
                step(done, f"bench {key} done")
                results[key] = _with_verdict(figures, targets)
        if len(chosen) == 1:
            _print(chosen[0], results[chosen[0]], as_json)
        elif as_json:
            click.echo(json.dumps(results, indent=2, sort_keys=True))
        else:
            for key, figures in results.items():
                _print(key, figures, False)
