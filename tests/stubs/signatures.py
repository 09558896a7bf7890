"""Compare a fake module's public API with a published stub (.pyi), by ``ast`` and ``inspect``.

A fake matches its stub when every public name it offers exists in the stub (a class,
a function, a constant or an attribute) and every public function or method accepts
exactly the calls the stub's signature accepts (each of its ``@overload`` variants),
parameter by parameter: the same positions, the same keyword names, the same
required/optional split. A fake may take ``*args``/``**kwargs`` where the stub lists
keyword options it does not model. Names a fake adds for the tests only (``close()``
on the fake ``machine``, say) are listed by the caller.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

POS_ONLY, POS, VAR_POS, KW_ONLY, VAR_KW = "pos-only", "pos", "*args", "kw-only", "**kwargs"


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    optional: bool


def _stub_params(fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[Param]:
    a = fn.args
    positional = [(p, POS_ONLY) for p in a.posonlyargs] + [(p, POS) for p in a.args]
    defaults = [False] * (len(positional) - len(a.defaults)) + [True] * len(a.defaults)
    params = [Param(p.arg, kind, d) for (p, kind), d in zip(positional, defaults, strict=True)]
    # Old-style positional-only names (``__x``) are positional-only too.
    params = [Param(p.name, POS_ONLY, p.optional) if p.name.startswith("__") else p for p in params]
    if method and params and not _is_static(fn):
        params = params[1:]
    if a.vararg:
        params.append(Param(a.vararg.arg, VAR_POS, True))
    for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        params.append(Param(p.arg, KW_ONLY, d is not None))
    if a.kwarg:
        params.append(Param(a.kwarg.arg, VAR_KW, True))
    return params


def _is_static(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)


def _is_property(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for d in fn.decorator_list:
        if isinstance(d, ast.Name) and d.id == "property":
            return True
        if isinstance(d, ast.Attribute) and d.attr in ("setter", "getter"):
            return True
    return False


def _fake_params(fn: object, method: bool) -> list[Param]:
    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: POS_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD: POS,
        inspect.Parameter.VAR_POSITIONAL: VAR_POS,
        inspect.Parameter.KEYWORD_ONLY: KW_ONLY,
        inspect.Parameter.VAR_KEYWORD: VAR_KW,
    }
    sig = inspect.signature(fn)  # type: ignore[arg-type]
    params = [Param(p.name, kinds[p.kind], p.default is not inspect.Parameter.empty)
              for p in sig.parameters.values()]
    if method and not isinstance(fn, staticmethod):
        params = params[1:]
    return params


class StubModule:
    """The names a .pyi defines at top level, and each class's members."""

    def __init__(self, path: Path) -> None:
        self.path = path
        tree = ast.parse(path.read_text(), str(path))
        self.names: dict[str, list[ast.stmt]] = {}
        for node in _flatten(tree.body):
            for name in _names_of(node):
                self.names.setdefault(name, []).append(node)

    def members(self, cls: str) -> dict[str, list[ast.stmt]]:
        out: dict[str, list[ast.stmt]] = {}
        for node in self.names.get(cls, []):
            if isinstance(node, ast.ClassDef):
                for member in _flatten(node.body):
                    for name in _names_of(member):
                        out.setdefault(name, []).append(member)
        return out


def _flatten(body: list[ast.stmt]) -> list[ast.stmt]:
    # Stubs put some definitions under ``if sys.version_info`` or ``if TYPE_CHECKING``.
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If):
            out.extend(_flatten(node.body))
            out.extend(_flatten(node.orelse))
        else:
            out.append(node)
    return out


def _names_of(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.name]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
    return []


def _accepts(fake: list[Param], stub: list[Param]) -> list[str]:
    """What is wrong when ``fake`` does not accept exactly the calls ``stub`` accepts."""
    problems: list[str] = []
    f_pos = [p for p in fake if p.kind in (POS_ONLY, POS)]
    s_pos = [p for p in stub if p.kind in (POS_ONLY, POS)]
    f_kw = {p.name: p for p in fake if p.kind in (POS, KW_ONLY)}
    s_kw = {p.name: p for p in stub if p.kind in (POS, KW_ONLY)}
    f_var = {p.kind for p in fake if p.kind in (VAR_POS, VAR_KW)}
    s_var = {p.kind for p in stub if p.kind in (VAR_POS, VAR_KW)}
    for i, s in enumerate(s_pos):
        if i >= len(f_pos):
            if VAR_POS not in f_var:
                problems.append(f"takes no positional argument {i + 1} ({s.name})")
            continue
        f = f_pos[i]
        if s.optional != f.optional:
            problems.append(f"argument {i + 1} ({s.name}) is "
                            f"{'optional' if s.optional else 'required'} on the board")
        if s.kind == POS and f.name != s.name:
            problems.append(f"argument {i + 1} is called {s.name!r} on the board, not {f.name!r}")
    for i, f in enumerate(f_pos[len(s_pos):], start=len(s_pos) + 1):
        if f.name in s_kw and s_kw[f.name].kind == KW_ONLY:
            if f.kind == POS_ONLY:
                problems.append(f"{f.name!r} is keyword-only on the board")
            elif s_kw[f.name].optional != f.optional:
                problems.append(f"{f.name!r} is optional on the board")
            continue
        if VAR_POS not in s_var:
            problems.append(f"argument {i} ({f.name}) does not exist on the board")
    for name, s in s_kw.items():
        if s.kind == KW_ONLY and name not in f_kw and VAR_KW not in f_var:
            problems.append(f"keyword {name!r} is missing")
        if s.kind == KW_ONLY and name in f_kw and s.optional != f_kw[name].optional:
            problems.append(f"keyword {name!r} is {'optional' if s.optional else 'required'} on the board")
    for name, f in f_kw.items():
        if f.kind == KW_ONLY and name not in s_kw and VAR_KW not in s_var:
            problems.append(f"keyword {name!r} does not exist on the board")
    return problems


def compare(fake: ModuleType, stub: StubModule, test_only: set[str]) -> list[str]:
    """Every way ``fake`` differs from ``stub``; empty when it matches."""
    problems: list[str] = []
    mod = fake.__name__
    for name, value in sorted(vars(fake).items()):
        if name.startswith("_") or name in test_only or isinstance(value, ModuleType):
            continue
        if getattr(value, "__module__", mod) != mod:
            continue  # imported by the fake (``from array import array``), not its own
        if name not in stub.names:
            problems.append(f"{mod}.{name}: not in the stub {stub.path.name}")
            continue
        nodes = stub.names[name]
        if inspect.isclass(value):
            problems.extend(_compare_class(mod, name, value, stub, test_only))
        elif inspect.isfunction(value):
            problems.extend(_compare_function(f"{mod}.{name}", value, nodes, method=False))
    return problems


def _compare_class(mod: str, name: str, cls: type, stub: StubModule,
                   test_only: set[str]) -> list[str]:
    problems: list[str] = []
    members = stub.members(name)
    if not any(isinstance(n, ast.ClassDef) for n in stub.names[name]):
        return [f"{mod}.{name}: a class here, not on the board"]
    for attr, value in sorted(vars(cls).items()):
        qual = f"{mod}.{name}.{attr}"
        if attr.startswith("_") and attr != "__init__" or qual in test_only:
            continue
        if attr == "__init__" and attr not in members:
            continue  # the stub leaves the constructor implicit
        if attr not in members:
            problems.append(f"{qual}: not in the stub")
            continue
        if isinstance(value, property):
            if not any(isinstance(n, ast.AnnAssign) or isinstance(n, ast.FunctionDef)
                       and _is_property(n) for n in members[attr]):
                problems.append(f"{qual}: a property here, a method on the board")
            continue
        if inspect.isfunction(value) or isinstance(value, staticmethod):
            problems.extend(_compare_function(qual, value, members[attr], method=True))
    return problems


def _compare_function(qual: str, fn: object, nodes: list[ast.stmt], method: bool) -> list[str]:
    defs = [n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not defs:
        return [f"{qual}: a function here, not on the board"]
    fake = _fake_params(fn, method)
    variants = [_stub_params(d, method) for d in defs if not _is_property(d)]
    if not variants:
        return [f"{qual}: a method here, a property on the board"]
    # Overloads: the fake must take every variant's calls (``value()`` and ``value(x)``).
    merged = _merge(variants) if len(variants) > 1 else variants[0]
    return [f"{qual}: {p}" for p in _accepts(fake, merged)]


def _merge(variants: list[list[Param]]) -> list[Param]:
    """One signature taking what every overload takes: a parameter is optional unless all
    variants require it; the longest positional list wins; keyword names are pooled."""
    longest = max(variants, key=lambda v: len([p for p in v if p.kind in (POS_ONLY, POS)]))
    out: list[Param] = []
    for i, p in enumerate(q for q in longest if q.kind in (POS_ONLY, POS)):
        required = all(
            len(pos) > i and not pos[i].optional
            for pos in ([q for q in v if q.kind in (POS_ONLY, POS)] for v in variants)
        )
        kind = p.kind if all(
            len(pos) <= i or pos[i].kind == p.kind
            for pos in ([q for q in v if q.kind in (POS_ONLY, POS)] for v in variants)
        ) else POS_ONLY
        out.append(Param(p.name, kind, not required))
    seen = {p.name for p in out}
    for v in variants:
        for p in v:
            if p.kind in (VAR_POS, KW_ONLY, VAR_KW) and p.name not in seen:
                out.append(Param(p.name, p.kind, True if p.kind != KW_ONLY else p.optional))
                seen.add(p.name)
    return out
