"""The layers of ``station/``, computed from the code rather than kept by hand.

``station/`` is a stack of packages (``LAYERS``, bottom up, as docs/architecture.md "Layers"
draws it); a module may import only from its own layer or those below, counting every
import: those made only for type checking (``if TYPE_CHECKING:``) and those inside functions
too, since either still means the lower module cannot be understood without the upper one.

- ``drivers/`` never imports ``station/`` (it sits below every layer: devices to events).
- No import against the order, so no loop between layers.
- No loop between the packages and root modules inside one layer (``station.kinds.registry``
  may import ``station.kinds.readers``, which may import ``station.kinds.keys``, but never
  back), nor between any two modules.
- No private name (``_x``) is imported from another module: what a module shares, it names.
- Purity follows from the layer: every module of ``station.game`` and ``station.table`` does
  no I/O, and reaches none through what it imports at run time (transitively); so does every
  module elsewhere whose docstring says it is pure (``Pure.`` / ``Pure:``). Imports under
  ``TYPE_CHECKING`` never run and do not count here. A package's ``__init__`` counts when it
  is imported by name, not because a submodule is.

What counts as I/O, precisely: importing a module of ``IO_MODULES`` (by its top-level name,
standard library or third party: files, sockets, devices, processes, threads, the clock, the
environment, logging, serialisation to files), or calling the built-ins ``open``, ``print``
or ``input``. Every other library (``transitions``, ``orjson``, ``random`` seeded by the
caller, ``datetime`` for formatting, ``cryptography``) is taken as computation.

A failure names the layer a module belongs in: the lowest one at or above everything it
imports (and, for code that does I/O, above the pure layers).
"""

from __future__ import annotations

import ast
import re
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

# Bottom up: (package, what belongs there). ``station.errors`` (the one exception tree) is
# below them all and ``station.cli`` above; ``drivers`` is below ``station`` altogether.
LAYERS: tuple[tuple[str, str], ...] = (
    ("station.errors", "the exception tree every layer raises"),
    ("station.game", "pure baccarat and its money: cards, tableau, shoe, settlement, bet "
                     "guard, roads, exact analysis"),
    ("station.table", "one table's pure machine, Station.apply: phases, modes, dealers, "
                      "procedures, pauses, integrity, the commands it takes"),
    ("station.settings", "the config's values and the input and output files they come from"),
    ("station.wire", "the contract on the wire: messages, schemas, canonical JSON, signing, "
                     "commands, status, feed, the chain, event JSON, budgets"),
    ("station.client", "a consumer of the wire contract (game servers, the pit, watch)"),
    ("station.journal", "the journal and what is kept beside it: store, verify, outbox, "
                        "recovery, retention, recordings kept, raw traffic"),
    ("station.upstream", "the links that carry the contract off the station: MQTT, file, "
                         "mirror, sinks, streams"),
    ("station.web", "the dealer's page and its local API, and what the pit's pages share"),
    ("station.kinds", "the pluggable kinds: readers, cut-card sensors, outlets, displays"),
    ("station.live", "one table's process: config loading, devices, assembly, the daemon, "
                     "its checks, systemd"),
    ("station.services", "the services of many tables: broker set-up, archive, pit, fleet"),
    ("station.commands", "one module per CLI command"),
    ("station.cli", "the console script"),
)
LAYER_NAMES = tuple(name for name, _ in LAYERS)
PURE_LAYERS = ("station.game", "station.table")
# A module's own word that it is pure, as its docstring's sentence.
SAYS_PURE = re.compile(r"(^|[.;]\s+|\n\s*)Pure\b[.:;,]")


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


def layer_of(name: str) -> str | None:
    """The layer a module of ``station`` is in, or None when it is in none."""
    for layer in LAYER_NAMES:
        if name == layer or name.startswith(layer + "."):
            return layer
    return None


def rank(name: str) -> int:
    layer = layer_of(name)
    return -1 if layer is None else LAYER_NAMES.index(layer)


def belongs_in(name: str) -> str:
    """The lowest layer at or above everything ``name`` imports (above the pure layers when
    it does I/O itself): where a new module with these imports goes."""
    every, _, _ = _scan(name)
    ours = [m for m in every if m in MODULES and m.startswith("station.") and m != name]
    low = max([rank(m) for m in ours] + [0])
    if io_of(name):
        low = max(low, LAYER_NAMES.index(PURE_LAYERS[-1]) + 1)
    low = min(max(low, 1), len(LAYER_NAMES) - 2)  # a package, not the floor or the cli
    return LAYER_NAMES[low]


def node_of(name: str) -> str:
    """The unit a loop inside a layer is counted between: a root module of the layer is its
    own node, a sub-package is one node with everything in it."""
    layer = layer_of(name) or name
    rest = name[len(layer):].lstrip(".").split(".")
    if not rest[0]:
        return layer
    head = f"{layer}.{rest[0]}"
    return head if (REPO / Path(*head.split("."))).is_dir() else name


def private_imports(name: str) -> list[str]:
    """``from other import _private`` in module ``name``: the names it reaches into."""
    tree = ast.parse(MODULES[name].read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module != name:
            top = node.module.split(".")[0]
            if top not in ("station", "drivers"):
                continue
            out += [f"{node.module}.{a.name}" for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")]
    return out


def _declared_pure(name: str) -> bool:
    doc = ast.get_docstring(ast.parse(MODULES[name].read_text())) or ""
    return bool(SAYS_PURE.search(doc))


def must_be_pure() -> list[str]:
    return [m for m in MODULES
            if layer_of(m) in PURE_LAYERS or (m.startswith("station.") and _declared_pure(m))]


@pytest.mark.parametrize("path", sorted((REPO / "drivers").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(REPO / "drivers")))
def test_drivers_never_import_station(path: Path) -> None:
    bad = {n for n in imports(path) if n == "station" or n.startswith("station.")}
    assert not bad, f"{path.name} imports {bad}"


def test_every_module_is_in_a_layer() -> None:
    lost = [m for m in MODULES if m.startswith("station.") and layer_of(m) is None]
    assert not lost, "\n".join(
        f"{m} is in no layer: it belongs in {belongs_in(m)} ({dict(LAYERS)[belongs_in(m)]})"
        for m in lost) + "\nthe layers, bottom up: " + ", ".join(LAYER_NAMES)


def test_the_layers_are_the_packages_of_station() -> None:
    """``ls station/`` is the layers: every package or module at its root is one (or the
    package data ``shipped/``), and every layer exists."""
    root = {p.stem for p in (REPO / "station").iterdir()
            if p.name != "__pycache__" and (p.suffix == ".py" or p.is_dir())}
    root -= {"__init__", "shipped"}
    assert root == {n.removeprefix("station.") for n in LAYER_NAMES}


def test_no_import_against_the_layers() -> None:
    bad = []
    for name in MODULES:
        if not name.startswith("station."):
            continue
        for dep in sorted(imports(MODULES[name])):
            if dep in MODULES and dep.startswith("station.") and rank(dep) > rank(name):
                bad.append(f"{name} ({layer_of(name)}) imports {dep} ({layer_of(dep)}): "
                           f"move what it needs down, or the module up to {belongs_in(name)}")
    assert not bad, "imports against the layers (bottom up: " + ", ".join(LAYER_NAMES) + \
        "):\n" + "\n".join(bad)


def test_no_loop_inside_a_layer() -> None:
    edges: dict[str, set[str]] = {}
    for name, deps in graph(running_only=False).items():
        if not name.startswith("station."):
            continue
        here = node_of(name)
        edges.setdefault(here, set())
        for dep in deps:
            if dep.startswith("station.") and layer_of(dep) == layer_of(name):
                there = node_of(dep)
                if there != here:
                    edges[here].add(there)
                    edges.setdefault(there, set())
    found = cycles(edges)
    assert not found, f"loops between the packages of a layer: {found}"


def test_no_import_cycle() -> None:
    found = cycles(graph(running_only=False))
    assert not found, f"import cycles (TYPE_CHECKING and function-level imports count): {found}"


def test_no_private_name_is_imported_from_another_module() -> None:
    found = {name: private_imports(name) for name in MODULES}
    found = {k: v for k, v in found.items() if v}
    assert not found, f"private names reached into (name them without the underscore): {found}"


def test_the_cycle_finder_finds_a_cycle() -> None:
    """The finder itself: a two-module cycle and a three-module one, beside an acyclic
    branch, are found; a clean graph gives none."""
    edges = {"a": {"b"}, "b": {"a", "c"}, "c": set(), "d": {"e"}, "e": {"f"}, "f": {"d"}}
    assert sorted(cycles(edges)) == [["a", "b"], ["d", "e", "f"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


@pytest.mark.parametrize("name", must_be_pure())
def test_the_pure_layers_and_modules_are_pure(name: str) -> None:
    chain = impure_paths().get(name)
    where = ("is in a pure layer" if layer_of(name) in PURE_LAYERS
             else "says it is pure in its docstring")
    assert chain is None, (f"{name} {where} but reaches I/O: {' -> '.join(chain)}; "
                           f"code that does I/O belongs in {belongs_in(name)} or above")


def test_purity_is_computed_through_imports() -> None:
    """The rule itself: an edge that opens files is impure, and so is a module importing it;
    the config (YAML files) and the daemon are impure; the paytable reads its file and the
    machine diagram's script writes one."""
    why = impure_paths()
    for name in ("station.live.config", "station.live.daemon", "station.settings.yamlload",
                 "station.settings.paytable", "station.journal.store", "station.web.server",
                 "drivers.serial_scanner", "station.commands.diagram"):
        assert name in why, f"{name} does I/O but came out pure"


def test_the_rules_catch_what_they_are_for() -> None:
    """The checks on made-up modules: an upward import is named with where the module
    belongs, a private import is found, a docstring's "Pure." is read."""
    assert rank("station.game.cards") < rank("station.table.machine") < rank("station.cli")
    assert layer_of("station.gameplay") is None and layer_of("station.game") == "station.game"
    assert node_of("station.kinds.readers.serial") == "station.kinds.readers"
    assert node_of("station.kinds.registry") == "station.kinds.registry"
    assert SAYS_PURE.search("Bounds on numbers. Pure: no I/O.")
    assert SAYS_PURE.search("Pure. The station applies them.")
    assert not SAYS_PURE.search("Impure, since it reads files; a pure function inside.")
    assert "station.live.daemon" not in must_be_pure()
    assert "station.game.cards" in must_be_pure()


def test_the_architecture_page_draws_the_layers_in_order() -> None:
    text = (REPO / "docs" / "architecture.md").read_text()
    section = text[text.index("## Layers"):]
    section = section[:section.index("\n## ", 4)]
    at = [section.index(f"| `{n.removeprefix('station.')}` |") for n in LAYER_NAMES]
    assert at == sorted(at), "docs/architecture.md 'Layers' lists them out of order"
