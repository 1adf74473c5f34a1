"""The import rules of the design: drivers never import station; pure code does no I/O."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

PURE = ["cards", "rules", "outcome", "shoe", "machine", "station", "results", "outputs",
        "errors", "simulation"]
IO_MODULES = {"os", "sys", "io", "socket", "serial", "sqlite3", "subprocess", "pathlib",
              "threading", "time", "shutil", "tempfile", "logging", "yaml", "json"}
IO_STATION = {"station.recording", "station.sinks", "station.display", "station.daemon",
              "station.config", "station.cli", "station.commands", "station.shoefile"}


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted((REPO / "drivers").glob("*.py")), ids=lambda p: p.name)
def test_drivers_never_import_station(path: Path) -> None:
    bad = {n for n in imports(path) if n == "station" or n.startswith("station.")}
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("name", PURE)
def test_pure_modules_do_no_io(name: str) -> None:
    path = REPO / "station" / f"{name}.py"
    found = imports(path)
    bad = {n for n in found if n.split(".")[0] in IO_MODULES}
    bad |= {n for n in found if any(n == m or n.startswith(m + ".") for m in IO_STATION)}
    assert not bad, f"station/{name}.py imports I/O modules {bad}"
    tree = ast.parse(path.read_text())
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name)}
    assert not calls & {"open", "print", "input"}, f"station/{name}.py does I/O directly"
