"""A fast start: `station --help`, `roads` and `analyze` import only what they use (issue 13).

Timings are the benchmark's (benchmarks/bench_speed.py); these tests check the property
that makes the start fast, which no machine load can blur: the modules a command line
imports, in a fresh interpreter.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import xml.sax.saxutils
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from station.cli import build_parser
from station.commands import COMMANDS, SUMMARIES
from station.game.roads.xmltext import escape, quoteattr
from tests.conftest import REPO

# Modules every command but the one that needs them is spared: the other commands' modules,
# and what they pull in (the XML, URL and HTTP stack, YAML, the machine, the analysis).
HEAVY = ("xml.sax", "urllib.request", "http.client", "yaml", "transitions", "station.game.analysis",
         "station.settings.paytable", "station.live.config", "station.table.station",
         "drivers.simulated")

PROBE = """
import sys
from station.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("\\nMODULES", " ".join(sorted(sys.modules)))
"""


def imported(*argv: str) -> set[str]:
    res = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=REPO, capture_output=True,
                         text=True, timeout=60, check=False)
    line = next(x for x in res.stdout.splitlines() if x.startswith("MODULES "))
    return set(line.split()[1:])


def heavy_in(modules: set[str]) -> set[str]:
    return {m for m in modules for h in HEAVY if m == h or m.startswith(h + ".")}


def test_help_imports_no_command_module_and_nothing_heavy() -> None:
    modules = imported("--help")
    assert not {m for m in modules if m.startswith("station.commands.")}
    assert not heavy_in(modules)


@pytest.mark.parametrize("argv", [("roads", "--sequence", "BPPTB"), ("roads", "--help"),
                                  ("analyze", "--help"), ("simulate", "--help"),
                                  ("replay", "--help")])
def test_a_command_imports_only_its_own_module(argv: tuple[str, ...]) -> None:
    modules = imported(*argv)
    commands = {m.removeprefix("station.commands.") for m in modules
                if m.startswith("station.commands.")}
    assert commands == {argv[0]}
    if argv[0] in ("roads", "analyze"):
        assert not heavy_in(modules)


def test_analyze_imports_the_analysis_when_it_runs() -> None:
    modules = imported("analyze", str(REPO / "config" / "paytables" / "seed000.yaml"))
    assert "station.game.analysis" in modules


def _help(parser: object) -> str:
    return parser.format_help()  # type: ignore[attr-defined, no-any-return]


def test_every_command_has_its_summary() -> None:
    # Without one, `station --help` imports the command's module to list it.
    assert {c.replace("_", "-") for c in COMMANDS} <= set(SUMMARIES)


def test_the_fast_help_lists_each_command_as_its_module_describes_it() -> None:
    # Every module registered: the help the station printed before commands were lazy.
    assert _help(build_parser(only="")) == _help(build_parser())
    for name in COMMANDS:
        assert _help(build_parser(only=name)) == _help(build_parser())


def test_station_help_and_an_unknown_command_behave_as_before() -> None:
    res = subprocess.run([sys.executable, "-m", "station.cli", "--help"], cwd=REPO,
                         capture_output=True, text=True, timeout=60, check=False)
    assert res.returncode == 0 and re.search(r"\n +analyze +exact house edge", res.stdout)
    res = subprocess.run([sys.executable, "-m", "station.cli", "bogus"], cwd=REPO,
                         capture_output=True, text=True, timeout=60, check=False)
    assert res.returncode == 2 and "invalid choice: 'bogus'" in res.stderr


TEXT = st.text(alphabet=st.sampled_from(list("ab&<>\"'\n\r\t ;#x1")) | st.characters(),
               max_size=40)


@given(TEXT)
@example("a\"b'c&<>\n\r\t")
@example("only \"double\"")
@example("only 'single'")
def test_svg_escaping_is_the_standard_librarys(text: str) -> None:
    assert escape(text) == xml.sax.saxutils.escape(text)
    assert quoteattr(text) == xml.sax.saxutils.quoteattr(text)


def test_setup_leaves_every_module_compiled() -> None:
    """scripts/setup writes the bytecode of every module of the station and its drivers, so
    no start compiles one, even where writing it at import is off (PYTHONDONTWRITEBYTECODE,
    or a service user who cannot write to the tree): a third of `station roads`' start-up."""
    sources = sorted([*(REPO / "station").rglob("*.py"), *(REPO / "drivers").rglob("*.py")])
    for source in sources[::2]:  # some gone, as on a fresh clone (the rest: as on an update)
        Path(importlib.util.cache_from_source(str(source))).unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    res = subprocess.run(["bash", "scripts/setup"], cwd=REPO, capture_output=True, text=True,
                         timeout=600, check=False, env=dict(env, PYTHON=sys.executable))
    assert res.returncode == 0, res.stderr
    stale = []
    for source in sources:
        cached = Path(importlib.util.cache_from_source(str(source)))
        # What the import checks (PEP 552): the source's mtime and size, or, for a pyc
        # written as hash-based, the source's hash.
        head = cached.read_bytes()[:16] if cached.exists() else b""
        stat = source.stat()
        if head[4:8] == b"\0\0\0\0":
            fresh = head[8:16] == (int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + (
                stat.st_size & 0xFFFFFFFF).to_bytes(4, "little")
        else:
            fresh = head[8:16] == importlib.util.source_hash(source.read_bytes())
        if not fresh or head[:4] != importlib.util.MAGIC_NUMBER:
            stale.append(str(source.relative_to(REPO)))
    assert not stale


def test_simulate_loads_no_sqlite_and_no_journal_store() -> None:
    """``simulate`` writes no journal: the outlets' kinds import the outbox protocol from the
    journal layer, and that must not load the store, SQLite or the verifier with it (the
    package's names are loaded when first asked for: station/journal/__init__.py)."""
    modules = imported("simulate", "--shoes", "1", "--out", os.devnull)
    assert "station.journal.outbox" in modules
    assert not {"sqlite3", "station.journal.store", "station.journal.verify"} & modules


def test_the_journal_package_names_resolve_lazily() -> None:
    import station.journal as journal  # noqa: PLC0415

    assert sorted(journal.__all__) == sorted(journal._WHERE)
    for name in journal.__all__:
        assert getattr(journal, name).__name__ == name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        journal.nothing  # noqa: B018
