"""The shape of the host package (docs/ARCHITECTURE.md, "Layers"): read from the source
with ``ast``, every import counted (at the top, inside functions, under TYPE_CHECKING).

- no import circle between modules, nor between the packages of ``meridian_table``;
- the packages stack in layers and nothing imports upward;
- no class is over 600 lines.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "host" / "meridian_table"

#: The layers, bottom first: a package imports only from its own layer or below. The
#: games (the contract and every shipped game) are at the bottom with the leaf utilities
#: they may use; "(root)" is ``meridian_table/__init__.py`` (the version).
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"(root)", "games", "ledplan", "resources", "textload", "i18n", "datafile",
               "waiting"}),
    frozenset({"link", "store", "profiles", "bots"}),
    frozenset({"table", "maker", "service"}),
    frozenset({"web", "sim"}),
    frozenset({"club", "bench", "cli"}),
)
MAX_CLASS_LINES = 600


def _modules() -> dict[str, tuple[Path, bool]]:
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, package)
    return found


MODULES = _modules()


def _targets(node: ast.Import | ast.ImportFrom, module: str, package: bool) -> Iterator[str]:
    """The meridian_table modules an import statement runs (each name resolved to the
    submodule it names, else to the module it is taken from)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = (module if package else module.rpartition(".")[0]).split(".")
            if node.level > 1:
                base = base[: -(node.level - 1)]
            origin = ".".join(base) + (f".{node.module}" if node.module else "")
        else:
            origin = node.module or ""
        names = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in MODULES else origin
                 for a in node.names]
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name.startswith("meridian_table") and name != module:
            yield name


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, (path, package) in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[name].update(_targets(node, name, package))
    return graph


GRAPH = _graph()


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "(root)"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _layer(package: str) -> int:
    for number, members in enumerate(LAYERS):
        if package in members:
            return number
    raise AssertionError(f"package {package!r} is in no layer: add it to LAYERS (and to "
                         "docs/ARCHITECTURE.md, 'Layers')")


def test_the_graph_sees_imports_everywhere() -> None:
    """The reader counts lazy and type-only imports (so the checks below can fail)."""
    assert "meridian_table.games.contract" in GRAPH["meridian_table.games.board"] or \
        "meridian_table.games.rules" in GRAPH["meridian_table.games.board"]
    # cli.bench imports the game-table bench inside a function only
    assert "meridian_table.bench._gametable" in GRAPH["meridian_table.cli.bench"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle_between_modules() -> None:
    assert _cycles(GRAPH) == []


def test_no_import_circle_between_packages() -> None:
    packages: dict[str, set[str]] = {}
    for module, targets in GRAPH.items():
        mine = _package(module)
        packages.setdefault(mine, set()).update(
            _package(t) for t in targets if _package(t) != mine)
    assert _cycles(packages) == []


def test_every_package_is_in_a_layer() -> None:
    for module in GRAPH:
        _layer(_package(module))


def test_nothing_imports_upward() -> None:
    upward = sorted(
        f"{module} imports {target} ({_package(module)} is layer {_layer(_package(module))}, "
        f"{_package(target)} is layer {_layer(_package(target))})"
        for module, targets in GRAPH.items() for target in targets
        if _layer(_package(target)) > _layer(_package(module)))
    assert upward == []


def test_the_games_import_nothing_of_the_platform_above_them() -> None:
    """The issue's words: nothing under games/ imports table, bench, cli, store, bots,
    web, club, sim or link (nor profiles or maker)."""
    banned = {"table", "bench", "cli", "store", "bots", "web", "club", "sim", "link",
              "profiles", "maker", "service"}
    found = sorted(f"{module} imports {target}" for module, targets in GRAPH.items()
                   if _package(module) == "games" for target in targets
                   if _package(target) in banned)
    assert found == []


def _classes() -> Iterator[tuple[str, int]]:
    for name, (path, _) in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                yield f"{name}.{node.name}", node.end_lineno - node.lineno


def test_no_class_over_600_lines() -> None:
    sizes = dict(_classes())
    over = sorted(f"{name}: {lines} lines" for name, lines in sizes.items()
                  if lines > MAX_CLASS_LINES)
    assert over == []


#: The games this repository ships: shared code names none of them (only their own
#: packages do; docstrings and comments, the docs and examples, may).
SHIPPED_GAMES = ("kato", "colovini", "empire")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def test_shared_code_names_no_game() -> None:
    """Outside ``games/<id>/``, no string in the code and no name mentions a shipped game
    (a game is found in the registry, never by name)."""
    found = []
    for name, (path, _) in MODULES.items():
        parts = name.split(".")
        if len(parts) > 2 and parts[1] == "games" and parts[2] in SHIPPED_GAMES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            text = ""
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in docs:
                text = node.value
            elif isinstance(node, ast.Name):
                text = node.id
            elif isinstance(node, ast.Attribute):
                text = node.attr
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                text = " ".join([getattr(node, "module", None) or ""]
                                + [a.name for a in node.names])
            lowered = text.lower()
            for game in SHIPPED_GAMES:
                if game in lowered:
                    found.append(f"{name}:{getattr(node, 'lineno', '?')}: {text[:60]!r}")
    assert found == []


#: Games in their own packages (the template and the tests' toy): they stand on the
#: contract like the shipped games and import nothing of the platform above it.
OUTSIDE_GAMES = (ROOT.parents[1] / "examples" / "five_in_a_row" / "meridian_five",
                 ROOT.parents[1] / "tests" / "toygame" / "meridian_toygame")


@pytest.mark.parametrize("package", OUTSIDE_GAMES, ids=lambda p: p.name)
def test_a_game_in_its_own_package_imports_only_the_bottom_layer(package: Path) -> None:
    allowed = LAYERS[0]
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                if name.startswith("meridian_table") and _package(name) not in allowed:
                    found.append(f"{path.name} imports {name}")
    assert found == []
