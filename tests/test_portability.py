"""The host runs on Windows and macOS too: nothing on its default path is POSIX-only.

Two checks:

- **static**: every module of ``meridian_table`` is parsed; a POSIX-only module
  (``pty``, ``termios``, ``fcntl``...), a POSIX-only call or constant (``os.fork``,
  ``os.kill``, ``signal.SIGKILL``, ``select.poll``, ``pass_fds=``...), a hard-coded
  ``/dev``, ``/proc`` or ``/tmp`` path, or a path separator glued on by hand fails the
  test unless it sits behind a guard (``try: ... except ImportError``, ``if sys.platform
  ...``/``os.name``/``hasattr(...)``) or in a scope listed in ``GUARDED`` with the
  reason it is never reached on Windows.
- **dynamic**: a fresh interpreter in which ``meridian_table`` cannot import those
  modules (a Windows-like import system) imports every module of the package and plays
  moves on the virtual board through the CLI, over the socket transport.

The checker is itself tested on small sources, so it can fail.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

import meridian_table

PACKAGE = Path(meridian_table.__file__).resolve().parent

POSIX_MODULES = frozenset({
    "pty", "tty", "termios", "fcntl", "resource", "pwd", "grp", "posix", "crypt", "nis",
    "spwd", "syslog", "readline", "curses",
})
POSIX_ATTRIBUTES = frozenset({
    ("os", "fork"), ("os", "forkpty"), ("os", "openpty"), ("os", "setsid"),
    ("os", "killpg"), ("os", "getpgid"), ("os", "setpgid"), ("os", "getuid"),
    ("os", "geteuid"), ("os", "getgid"), ("os", "ttyname"), ("os", "mkfifo"),
    ("os", "set_blocking"), ("os", "get_blocking"), ("os", "getloadavg"), ("os", "sync"),
    # On Windows os.kill(pid, 0) terminates the process instead of probing it.
    ("os", "kill"),
    ("time", "pthread_getcpuclockid"), ("time", "clock_gettime"),
    # Not POSIX-only, but POSIX in meaning: on Windows it lets a second process bind the
    # same port (use SO_EXCLUSIVEADDRUSE there).
    ("socket", "SO_REUSEADDR"),
    ("select", "poll"), ("select", "epoll"), ("select", "kqueue"),
    ("signal", "SIGKILL"), ("signal", "SIGHUP"), ("signal", "SIGUSR1"),
    ("signal", "SIGUSR2"), ("signal", "SIGALRM"), ("signal", "SIGCHLD"),
    ("signal", "SIGQUIT"), ("signal", "SIGPIPE"), ("signal", "alarm"),
    ("signal", "setitimer"), ("signal", "pause"), ("signal", "pthread_kill"),
})
POSIX_KEYWORDS = frozenset({"pass_fds", "preexec_fn", "start_new_session"})
HARD_PATH = re.compile(r"^/(dev|proc|sys|tmp|run|var/run)(/\S*)?$")
GUARD_WORDS = ("sys.platform", "os.name", "hasattr(", "platform.system", "pty_available")
GUARD_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError"})

#: Scopes (module path, and a class or function name, "" for the whole module) that may
#: use POSIX-only things, each with the reason Windows never reaches it.
GUARDED: dict[tuple[str, str], str] = {
    ("sim/pty.py", ""): "the pty transport: imported only by sim.transport.open_port, and "
                        "sim.transport.choose refuses 'pty' where pty_available() is False",
    ("sim/mp_entry.py", ""): "runs inside the MicroPython unix port, never under CPython",
    ("sim/board.py", "_MicroPythonBackend"): "the MicroPython virtual board: its __init__ "
                                             "refuses any os.name but 'posix'",
    ("bench/_page_fuzz.py", ""): "hostile values the fuzzer sends the page ('/dev/zero', "
                                 "'/etc/shadow'): strings the table must refuse, never opened",
    ("club/cluster.py", "_run"): "the private PostgreSQL: run as the postgres user (pwd) only "
                                 "when root on POSIX; Windows ignores start_new_session",
}
#: Project modules that are POSIX-only themselves: who may import them (lazily).
GUARDED_IMPORTS: dict[str, frozenset[str]] = {
    "meridian_table.sim.pty": frozenset({"sim/transport.py"}),
}


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def _guard_test(node: ast.AST, source: str) -> bool:
    # ast.unparse, not ast.get_source_segment: that one splits the whole file on every
    # call, which made this check take seconds. The guard words survive unparsing.
    del source
    text = ast.unparse(node)
    return any(word in text for word in GUARD_WORDS)


def _catches(handler: ast.ExceptHandler) -> set[str]:
    kind = handler.type
    names: list[ast.expr] = []
    if isinstance(kind, ast.Tuple):
        names = list(kind.elts)
    elif kind is not None:
        names = [kind]
    return {n.id for n in names if isinstance(n, ast.Name)}


class _Checker(ast.NodeVisitor):
    def __init__(self, rel: str, source: str) -> None:
        self.rel = rel
        self.source = source
        self.findings: list[Finding] = []
        self._guards = 0
        self._scopes: list[str] = []
        self._depth = 0  # function nesting: lazy imports live in functions

    # -- scopes and guards ------------------------------------------------------------

    def _allowed(self) -> bool:
        if self._guards:
            return True
        if (self.rel, "") in GUARDED:
            return True
        return any((self.rel, scope) in GUARDED for scope in self._scopes)

    def _scoped(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._scopes.append(node.name)
        is_function = not isinstance(node, ast.ClassDef)
        self._depth += is_function
        self.generic_visit(node)
        self._depth -= is_function
        self._scopes.pop()

    visit_ClassDef = _scoped
    visit_FunctionDef = _scoped
    visit_AsyncFunctionDef = _scoped

    def visit_If(self, node: ast.If) -> None:
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for child in node.orelse:  # the body is for the type checker: never run
                self.visit(child)
            return
        guarded = _guard_test(node.test, self.source)
        self._guards += guarded  # `if hasattr(os, "x") and os.x():` guards its own test
        self.visit(node.test)
        for child in node.body:
            self.visit(child)
        for child in node.orelse:
            self.visit(child)
        self._guards -= guarded

    def visit_IfExp(self, node: ast.IfExp) -> None:
        guarded = _guard_test(node.test, self.source)
        self._guards += guarded
        self.generic_visit(node)
        self._guards -= guarded

    def visit_Try(self, node: ast.Try) -> None:
        caught: set[str] = set()
        for handler in node.handlers:
            caught |= _catches(handler)
        guarded = bool(caught & GUARD_EXCEPTIONS)
        self._guards += guarded
        for child in node.body:
            self.visit(child)
        self._guards -= guarded
        for child in [*node.handlers, *node.orelse, *node.finalbody]:
            self.visit(child)

    # -- what is looked for ------------------------------------------------------------

    def _flag(self, node: ast.AST, what: str) -> None:
        if not self._allowed():
            self.findings.append(Finding(self.rel, getattr(node, "lineno", 0), what))

    def _import(self, node: ast.AST, name: str) -> None:
        top = name.split(".")[0]
        if top in POSIX_MODULES:
            self._flag(node, f"imports the POSIX-only module {name!r}")
        importers = GUARDED_IMPORTS.get(name)
        if importers is not None and (self.rel not in importers or self._depth == 0):
            self.findings.append(Finding(
                self.rel, getattr(node, "lineno", 0),
                f"imports the POSIX-only {name!r} (allowed lazily in {sorted(importers)})"))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._import(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        self._import(node, module)
        for alias in node.names:
            if (module, alias.name) in POSIX_ATTRIBUTES:
                self._flag(node, f"imports the POSIX-only {module}.{alias.name}")
            if f"{module}.{alias.name}" in GUARDED_IMPORTS:
                self._import(node, f"{module}.{alias.name}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name) and (node.value.id, node.attr) in POSIX_ATTRIBUTES:
            self._flag(node, f"uses the POSIX-only {node.value.id}.{node.attr}")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        for keyword in node.keywords:
            if keyword.arg in POSIX_KEYWORDS:
                self._flag(node, f"passes the POSIX-only {keyword.arg}=")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and HARD_PATH.match(node.value):
            self._flag(node, f"hard-codes the POSIX path {node.value!r}")

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.Add):
            for side in (node.left, node.right):
                if isinstance(side, ast.Constant) and side.value in ("/", "\\"):
                    self._flag(node, "glues a path separator on by hand (use pathlib)")
        self.generic_visit(node)

    # Docstrings name ports as examples for people, not as paths the code opens.
    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return
        self.generic_visit(node)


def check_source(rel: str, source: str) -> list[Finding]:
    checker = _Checker(rel, source)
    checker.visit(ast.parse(source))
    return checker.findings


def check_package(root: Path = PACKAGE) -> list[Finding]:
    findings: list[Finding] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        findings.extend(check_source(rel, path.read_text(encoding="utf-8")))
    return findings


# -- the check itself ---------------------------------------------------------------------


def test_the_host_uses_nothing_posix_only_on_its_default_path() -> None:
    findings = check_package()
    assert not findings, "POSIX-only code on the default path:\n" + "\n".join(
        map(str, findings))


def test_every_guarded_scope_still_exists() -> None:
    # A stale entry would silently allow whatever later lands under that name.
    for (rel, scope), _why in GUARDED.items():
        path = PACKAGE / rel
        assert path.exists(), f"GUARDED names {rel}, which is gone"
        if scope:
            names = {n.name for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                     if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
            assert scope in names, f"GUARDED names {rel}:{scope}, which is gone"


# -- the checker fails where it must (and only there) -------------------------------------


@pytest.mark.parametrize(("source", "what"), [
    ("import pty\n", "'pty'"),
    ("import termios as t\n", "'termios'"),
    ("from fcntl import flock\n", "'fcntl'"),
    ("import os\npid = os.fork()\n", "os.fork"),
    ("import os\nos.kill(1, 0)\n", "os.kill"),
    ("import signal\nsig = signal.SIGKILL\n", "signal.SIGKILL"),
    ("import select\np = select.poll()\n", "select.poll"),
    ("import socket\ns = socket.socket()\ns.setsockopt(1, socket.SO_REUSEADDR, 1)\n",
     "SO_REUSEADDR"),
    ("from os import setsid\n", "os.setsid"),
    ("import subprocess\nsubprocess.Popen(['x'], pass_fds=(3,))\n", "pass_fds"),
    ("def f():\n    return open('/dev/ttyACM0')\n", "'/dev/ttyACM0'"),
    ("p = '/proc/self/status'\n", "'/proc/self/status'"),
    ("p = f'/tmp/{1}'\n", "/tmp/"),
    ("def f(a, b):\n    return a + '/' + b\n", "separator"),
    ("try:\n    import pty\nexcept OSError:\n    pass\n", "'pty'"),
    ("if True:\n    import pty\n", "'pty'"),
    ("def f():\n    from meridian_table.sim.pty import Pty\n", "meridian_table.sim.pty"),
])
def test_the_checker_names_posix_only_code(source: str, what: str) -> None:
    findings = check_source("cli/x.py", source)
    assert len(findings) == 1 and what in findings[0].what, findings


@pytest.mark.parametrize("source", [
    "try:\n    import fcntl\nexcept ImportError:\n    fcntl = None\n",
    "import sys\nif sys.platform != 'win32':\n    import termios\n",
    "import os\nif os.name == 'posix':\n    os.setsid()\n",
    "import os\nif hasattr(os, 'fork'):\n    os.fork()\n",
    "import os\nx = os.getuid() if hasattr(os, 'getuid') else 0\n",
    "'''Open /dev/ttyACM0 or COM5.'''\n",
    "help_text = 'a device (/dev/ttyACM0, COM5)'\n",
    "from pathlib import Path\np = Path('a') / 'b'\n",
    "import os\nsep = os.sep\n",
])
def test_the_checker_lets_guarded_and_portable_code_pass(source: str) -> None:
    assert check_source("cli/x.py", source) == []


def test_guarded_scopes_and_importers_are_the_only_exceptions() -> None:
    body = "import pty\nclass _MicroPythonBackend:\n    def f(self):\n        import fcntl\n"
    assert [f.line for f in check_source("sim/board.py", body)] == [1]
    typed = "if TYPE_CHECKING:\n    from meridian_table.sim.pty import Pty\n"
    assert check_source("cli/x.py", typed) == []
    lazy = "def open_port():\n    from meridian_table.sim.pty import Pty\n"
    assert check_source("sim/transport.py", lazy) == []
    eager = "from meridian_table.sim.pty import Pty\n"
    assert len(check_source("sim/transport.py", eager)) == 1


# -- the dynamic check: a Windows-like import system ---------------------------------------

BLOCKER = textwrap.dedent("""
    import importlib.abc, json, sys, os
    from pathlib import Path

    PACKAGE = Path({package!r})
    BLOCKED = set({blocked!r})
    refused = []

    class NoPosix(importlib.abc.MetaPathFinder):
        # Refuse a POSIX-only module when meridian_table asks for it (pyserial and the
        # standard library pick their own platform modules, as they do on Windows).
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] not in BLOCKED:
                return None
            frame = sys._getframe(1)
            while frame is not None:
                filename = frame.f_code.co_filename
                if not filename.startswith("<frozen"):
                    if Path(filename).resolve().is_relative_to(PACKAGE):
                        refused.append(name)
                        raise ModuleNotFoundError(f"No module named {{name!r}} (as on Windows)")
                    if "importlib" not in filename:
                        return None
                frame = frame.f_back
            return None

    for name in list(sys.modules):
        if name.split(".")[0] in BLOCKED:
            del sys.modules[name]
    sys.meta_path.insert(0, NoPosix())
""")

SCRIPT = textwrap.dedent("""
    import importlib, pkgutil
    import meridian_table
    skipped = {guarded!r}
    imported = []
    for info in pkgutil.walk_packages(meridian_table.__path__, "meridian_table."):
        if info.name in skipped:
            continue
        importlib.import_module(info.name)
        imported.append(info.name)

    from click.testing import CliRunner
    from meridian_table.cli.main import main
    result = CliRunner().invoke(main, ["play", "kato", "--headless", "--board", "sim",
                                       "--db", ":memory:"],
                                input="place G6\\nwait\\nquit\\n")
    from meridian_table.sim.transport import choose
    print(json.dumps({{"imported": len(imported), "exit": result.exit_code,
                      "output": result.output, "refused": refused,
                      "transport": choose(),
                      "posix_loaded": sorted(n for n in sys.modules
                                             if n.split(".")[0] in {{"pty", "tty"}})}}))
""")


@pytest.mark.timeout(120)
def test_the_default_path_runs_without_posix_modules(tmp_path: Path) -> None:
    guarded = sorted(GUARDED_IMPORTS) + ["meridian_table.sim.mp_entry"]
    code = BLOCKER.format(package=str(PACKAGE), blocked=sorted(POSIX_MODULES)) + \
        SCRIPT.format(guarded=guarded)
    env = dict(os.environ, MERIDIAN_TABLE_SIM_TRANSPORT="socket",
               MERIDIAN_SIM_REGISTRY=str(tmp_path / "sims"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=110)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["transport"] == "socket"
    assert report["imported"] > 50
    assert report["exit"] == 0, report["output"]
    assert '"notation": "G6"' in report["output"], report["output"]
    assert report["posix_loaded"] == [], report
