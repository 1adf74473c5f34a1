"""The import rules of the design, computed from the code rather than kept by hand.

- ``drivers/`` never imports ``station/``.
- Neither package has an import cycle, counting every import: those made only for type
  checking (``if TYPE_CHECKING:``) and those inside functions too. A cycle hidden under
  ``TYPE_CHECKING`` still means two modules cannot be understood apart.
- Which modules are pure is computed: a module is pure when it does no I/O itself and every
  module of ours it imports at run time is pure, transitively. Imports under
  ``TYPE_CHECKING`` never run and do not count here. A package's ``__init__`` counts when it
  is imported by name (``from station.journal import Journal``), not because a submodule
  is (``station.journal.chain`` reaches none of the store's code). The modules the docs
  call pure must come out pure.

What counts as I/O, precisely: importing a module of ``IO_MODULES`` (by its top-level name,
standard library or third party: files, sockets, devices, processes, threads, the clock, the
environment, logging, serialisation to files), or calling the built-ins ``open``, ``print``
or ``input``. Every other library (``transitions``, ``orjson``, ``random`` seeded by the
caller, ``datetime`` for formatting, ``cryptography``) is taken as computation.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import REPO

IO_MODULES = frozenset({
    "os", "sys", "io", "socket", "ssl", "select", "selectors", "signal", "sqlite3",
    "subprocess", "multiprocessing", "concurrent", "threading", "asyncio", "pathlib", "shutil",
    "tempfile", "glob", "fcntl", "termios", "pty", "mmap", "time", "logging", "urllib", "http",
    "json", "yaml", "serial", "aiohttp", "paho", "cv2", "zxingcpp", "pyzbar", "playwright",
})
BUILTIN_IO = frozenset({"open", "print", "input"})

# What the docs call pure (README's layout, docs/architecture.md "Layering", and the docs of
# each area): these must come out pure from their imports.
DOCUMENTED_PURE = (
    "station.actions", "station.cards", "station.rules", "station.outcome", "station.shoe",
    "station.machine", "station.fsm", "station.entry", "station.station", "station.tablerules",
    "station.modes", "station.acks", "station.retention",
    "station.results", "station.outputs", "station.errors", "station.simulation",
    "station.settlement", "station.stats", "station.limits", "station.dealers",
    "station.integrity", "station.pauses", "station.ratelimit", "station.bets",
    "station.analysis", "station.roads", "station.betguard", "station.guardstats",
    "station.journal.chain", "station.upstream.observe", "station.upstream.messages",
    "station.upstream.canonical", "station.web.view", "station.web.words",
    "station.web.hosts", "station.web.modeview",
    "station.client.findings", "station.client.order", "station.client.state",
    "station.client.words", "station.pit.stats",
    "station.pit.alerts", "station.pit.views", "station.pit.words",
)
PURE_PACKAGES = ("station.bets", "station.analysis", "station.roads")


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top in ("station", "drivers"):
        for path in sorted((REPO / top).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of import nodes under ``if TYPE_CHECKING:``."""
    out: set[int] = set()
    for node in ast.walk(tree):
        test = getattr(node, "test", None)
        if isinstance(node, ast.If) and (getattr(test, "id", "") == "TYPE_CHECKING"
                                         or getattr(test, "attr", "") == "TYPE_CHECKING"):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def _imported(node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """Every name an import statement imports: ``from a import b`` is ``a.b`` when that is
    a module, else ``a``."""
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
        return
    base = node.module or ""
    for alias in node.names:
        full = f"{base}.{alias.name}"
        yield full if full in MODULES else base


@cache
def _scan(name: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(every import, the imports that run, the built-in I/O calls) of module ``name``."""
    tree = ast.parse(MODULES[name].read_text())
    typing_only = _type_checking_only(tree)
    every: set[str] = set()
    running: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            assert not (isinstance(node, ast.ImportFrom) and node.level), (
                f"{name}: relative import; the graph below reads absolute imports only")
            names = set(_imported(node))
            every |= names
            if id(node) not in typing_only:
                running |= names
    calls = {n.func.id for n in ast.walk(tree)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)} & BUILTIN_IO
    return frozenset(every), frozenset(running), frozenset(calls)


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")


def imports(path: Path) -> frozenset[str]:
    """Every module a file of ours imports (run time, type checking and function level)."""
    return _scan(module_name(path))[0]


def graph(*, running_only: bool) -> dict[str, set[str]]:
    """Our modules and which of ours each imports."""
    out: dict[str, set[str]] = {}
    for name in MODULES:
        every, running, _ = _scan(name)
        edges = {m for m in (running if running_only else every) if m in MODULES}
        edges.discard(name)
        out[name] = edges
    return out


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root, first in edges.items():
        if root in index:
            continue
        work = [(root, iter(sorted(first)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def io_of(name: str) -> set[str]:
    """What module ``name`` does I/O with itself: deny-listed imports and built-in calls."""
    _, running, calls = _scan(name)
    return {m for m in running if m.split(".")[0] in IO_MODULES} | {f"{c}()" for c in calls}


def impure_paths() -> dict[str, list[str]]:
    """Each impure module of ours, with a chain of imports that reaches I/O (for the
    message): ``[module, ..., the module doing I/O, what it does]``."""
    edges = graph(running_only=True)
    why: dict[str, list[str]] = {}
    for name in MODULES:
        own = io_of(name)
        if own:
            why[name] = [name, sorted(own)[0]]
    changed = True
    while changed:  # a fixpoint: impurity flows back along imports
        changed = False
        for name, deps in edges.items():
            if name in why:
                continue
            bad = sorted(d for d in deps if d in why)
            if bad:
                why[name] = [name, *why[bad[0]]]
                changed = True
    return why


@pytest.mark.parametrize("path", sorted((REPO / "drivers").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(REPO / "drivers")))
def test_drivers_never_import_station(path: Path) -> None:
    bad = {n for n in imports(path) if n == "station" or n.startswith("station.")}
    assert not bad, f"{path.name} imports {bad}"


def test_no_import_cycle() -> None:
    found = cycles(graph(running_only=False))
    assert not found, f"import cycles (TYPE_CHECKING and function-level imports count): {found}"


def test_the_cycle_finder_finds_a_cycle() -> None:
    """The finder itself: a two-module cycle and a three-module one, beside an acyclic
    branch, are found; a clean graph gives none."""
    edges = {"a": {"b"}, "b": {"a", "c"}, "c": set(), "d": {"e"}, "e": {"f"}, "f": {"d"}}
    assert sorted(cycles(edges)) == [["a", "b"], ["d", "e", "f"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def _documented() -> list[str]:
    out = []
    for name in DOCUMENTED_PURE:
        out.append(name)
        if name in PURE_PACKAGES:
            out += [m for m in MODULES if m.startswith(name + ".")]
    return out


@pytest.mark.parametrize("name", _documented())
def test_documented_pure_modules_are_pure(name: str) -> None:
    assert name in MODULES, f"{name} is named pure but does not exist: update DOCUMENTED_PURE"
    chain = impure_paths().get(name)
    assert chain is None, f"{name} is documented pure but reaches I/O: {' -> '.join(chain)}"


def test_purity_is_computed_through_imports() -> None:
    """The rule itself: an edge that opens files is impure, and so is a module importing it;
    the config (YAML files) and the daemon are impure; the paytable reads its file and the
    machine diagram's script writes one (neither was in the hand-kept lists)."""
    why = impure_paths()
    for name in ("station.config", "station.daemon", "station.yamlload", "station.paytable",
                 "station.journal.store", "station.web.server", "drivers.serial_scanner",
                 "station.diagram"):
        assert name in why, f"{name} does I/O but came out pure"
    assert why["station.paytable"][-1] in {"pathlib", "yaml", "open()"} or len(
        why["station.paytable"]) > 2
