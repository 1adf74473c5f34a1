"""The import rules of the design: drivers never import station; pure code does no I/O."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

PURE = ["cards", "rules", "outcome", "shoe", "machine", "fsm", "station", "results", "outputs",
        "errors", "simulation", "settlement", "stats", "limits", "dealers",
        "integrity", "modes", "betguard", "guardstats"]
PURE_PACKAGES = ["bets", "analysis", "roads"]
IO_MODULES = {"os", "sys", "io", "socket", "serial", "sqlite3", "subprocess", "pathlib",
              "threading", "time", "shutil", "tempfile", "logging", "yaml", "json"}
IO_STATION = {"station.recording", "station.sinks", "station.display", "station.daemon",
              "station.config", "station.cli", "station.commands", "station.shoefile",
              "station.journal", "station.upstream", "station.assembly", "station.recovery",
              "station.outfiles", "station.yamlload", "station.textfile",
              "station.rawtraffic", "station.devices", "station.videoreplay", "station.service",
              "station.web"}
# Pure modules inside the I/O edges: what they compute is tested without files or sockets.
PURE_EDGE_FILES = ["journal/chain.py", "upstream/observe.py", "upstream/messages.py",
                   "upstream/canonical.py", "web/view.py", "web/words.py", "web/hosts.py",
                   "web/modeview.py"]
PURE_EDGE_MODULES = {"station." + f.removesuffix(".py").replace("/", ".") for f in PURE_EDGE_FILES}
PURE_EDGE_MODULES.add("station.upstream")  # its __init__ is a docstring: `from ... import m`
PURE_EDGE_MODULES.add("station.web")  # the same


def imports(path: Path) -> set[str]:
    """Modules imported at run time (imports under ``if TYPE_CHECKING:`` are for types)."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            node.body = []
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted((REPO / "drivers").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(REPO / "drivers")))
def test_drivers_never_import_station(path: Path) -> None:
    bad = {n for n in imports(path) if n == "station" or n.startswith("station.")}
    assert not bad, f"{path.name} imports {bad}"


PURE_FILES = [REPO / "station" / f"{n}.py" for n in PURE] + [
    p for pkg in PURE_PACKAGES for p in sorted((REPO / "station" / pkg).glob("*.py"))
] + [REPO / "station" / f for f in PURE_EDGE_FILES]


@pytest.mark.parametrize("path", PURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pure_modules_do_no_io(path: Path) -> None:
    name = path.relative_to(REPO)
    found = imports(path)
    bad = {n for n in found if n.split(".")[0] in IO_MODULES}
    bad |= {n for n in found if any(n == m or n.startswith(m + ".") for m in IO_STATION)
            and n not in PURE_EDGE_MODULES}
    assert not bad, f"{name} imports I/O modules {bad}"
    tree = ast.parse(path.read_text())
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name)}
    assert not calls & {"open", "print", "input"}, f"{name} does I/O directly"
