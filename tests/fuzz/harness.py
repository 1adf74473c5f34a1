"""Run one fuzz case through the station's CLI and check the property of issue 7.

Property: exit 0 or 2; on 2 one line ``station CMD: error: ...`` naming the input file;
never a traceback; within 2 s of CPU time, and 10 s of wall time (and 256 MB in a
subprocess); and an output file that existed
before a refusal is left exactly as it was.

Most cases run in this process (``station.cli.main`` with stdout and stderr captured and a
SIGALRM deadline), because a subprocess per case costs 0.3 s; ``run_subprocess`` runs a
sample for real with RLIMIT_AS and a wall-clock timeout. One ``*_case`` function per input
kind builds the command line for a file of that kind.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import logging
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from station.cli import main
from station.errors import StationError
from station.live.config import load_config

REPO = Path(__file__).resolve().parents[2]
# Every case runs in a scratch folder: a fuzzed command line that is valid writes its
# outputs (`--svg none`, `--out x`) there, never into the checkout.
SCRATCH = Path(tempfile.mkdtemp(prefix="station-fuzz-"))
atexit.register(shutil.rmtree, SCRATCH, True)
SHORT_SHOE = REPO / "tests" / "shoes" / "short.txt"
PAYTABLE_000 = REPO / "config" / "paytables" / "seed000.yaml"
TIME_LIMIT_S = 2.0  # of CPU time: what the case costs, whatever else the machine is doing
HANG_FACTOR = 5  # a case still running after this many times its limit in wall time hangs
MEMORY_LIMIT = 256 << 20


@dataclass
class Outcome:
    argv: list[str]
    code: int | None
    stdout: str
    stderr: str
    elapsed: float
    crash: str = ""  # a traceback that escaped main(), or "timeout"


@dataclass
class Case:
    """A command line, the input file it is about, and the outputs that must survive."""

    argv: list[str]
    subject: Path | None = None
    outputs: list[Path] = field(default_factory=list)
    allowed: tuple[int, ...] = (0, 2)


class _Deadline(BaseException):
    """Raised by SIGALRM inside a case that ran past the time limit."""


def _alarm(signum: int, frame: object) -> None:
    raise _Deadline


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_inprocess(argv: Sequence[str], limit_s: float = TIME_LIMIT_S) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    root = logging.getLogger()
    handlers = list(root.handlers)
    # CPU time, not wall time: on a loaded machine (CI's two cores, or other work) a case waits
    # for the CPU without costing more; the wall-clock deadline still catches a hang.
    started = time.process_time()
    code: int | None = None
    crash = ""
    try:
        with (contextlib.chdir(SCRATCH), contextlib.redirect_stdout(out),
              contextlib.redirect_stderr(err), _deadline(limit_s * HANG_FACTOR)):
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse: usage errors and --help
                code = exc.code if isinstance(exc.code, int) else 2
    except _Deadline:
        crash = "timeout"
    except Exception:  # noqa: BLE001 - any escaping exception is the finding
        crash = traceback.format_exc()
    finally:
        # `station run` calls logging.basicConfig with the captured stderr: undo it.
        for h in root.handlers[:]:
            if h not in handlers:
                root.removeHandler(h)
    return Outcome(list(argv), code, out.getvalue(), err.getvalue(),
                   time.process_time() - started, crash)


def _limits(memory: int) -> Callable[[], None]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    return limit


def run_subprocess(argv: Sequence[str], limit_s: float = TIME_LIMIT_S,
                   memory: int = MEMORY_LIMIT) -> Outcome:
    """The case in a fresh interpreter with 256 MB of address space (``memory``); the time
    limit covers the case, not the interpreter's start-up (measured once and added)."""
    started = _children_cpu()
    try:
        res = subprocess.run(
            [sys.executable, "-m", "station.cli", *argv], capture_output=True,
            timeout=(limit_s + startup_s()) * HANG_FACTOR, preexec_fn=_limits(memory),
            check=False, cwd=SCRATCH, env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    except subprocess.TimeoutExpired:
        return Outcome(list(argv), None, "", "", _children_cpu() - started, "timeout")
    stderr = res.stderr.decode("utf-8", "replace")
    crash = "MemoryError" if "MemoryError" in stderr else ""
    return Outcome(list(argv), res.returncode, res.stdout.decode("utf-8", "replace"), stderr,
                   _children_cpu() - started - startup_s(), crash)


def _children_cpu() -> float:
    """CPU seconds (user + system) of every child this process has waited for."""
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


_STARTUP: list[float] = []


def startup_s() -> float:
    """CPU seconds to start the interpreter and import the CLI (``station --version``)."""
    if not _STARTUP:
        started = _children_cpu()
        subprocess.run([sys.executable, "-m", "station.cli", "--version"], capture_output=True,
                       check=False, timeout=60)
        _STARTUP.append(_children_cpu() - started)
    return _STARTUP[0]


def snapshot(paths: Sequence[Path]) -> dict[Path, tuple[int, int] | None]:
    out: dict[Path, tuple[int, int] | None] = {}
    for p in paths:
        try:
            st = p.stat()
            out[p] = (st.st_mtime_ns, st.st_size)
        except OSError:
            out[p] = None
    return out


def problems(case: Case, outcome: Outcome, before: dict[Path, tuple[int, int] | None],
             limit_s: float = TIME_LIMIT_S) -> list[str]:
    """Every way ``outcome`` breaks the property (empty: the case passed)."""
    found: list[str] = []
    if outcome.crash:
        found.append(f"crash: {outcome.crash[-2000:]}")
        return found
    if "Traceback" in outcome.stderr:
        found.append(f"traceback on stderr: {outcome.stderr[-2000:]}")
    if outcome.elapsed > limit_s:
        found.append(f"took {outcome.elapsed:.2f} s")
    if outcome.code not in case.allowed:
        found.append(f"exit {outcome.code}: {outcome.stderr[-1000:]}")
    if outcome.code == 2:
        cmd = case.argv[0] if case.argv and not case.argv[0].startswith("-") else ""
        prefix = f"station {cmd}: error: " if cmd else "station: error: "
        lines = [x for x in outcome.stderr.splitlines() if x.startswith("station")]
        # argparse names a nested command whole: "station journal verify: error: ...".
        errors = [x for x in lines if x.startswith(prefix) or x.startswith("station: error: ")
                  or (cmd and x.startswith(f"station {cmd} ") and ": error: " in x)]
        if len(errors) != 1:
            found.append(f"expected one line '{prefix}...', got: {outcome.stderr[-1000:]}")
        elif case.subject is not None and str(case.subject) not in errors[0] and not (
            _names_another_input(errors[0], case)
        ):
            found.append(f"the error does not name {case.subject}: {errors[0][:500]}")
        after = snapshot(list(before))
        for path, was in before.items():
            if was is not None and after[path] != was:
                found.append(f"refused, but {path} was changed")
    return found


def _names_another_input(line: str, case: Case) -> bool:
    """A refusal may be about another input of the same command line (the shoe file of a
    simulate run whose config is the subject): fine, if it names that input."""
    return any(a in line for a in case.argv[1:] if len(a) > 2 and not a.startswith("-"))


def check(case: Case, subprocess_: bool = False, memory: int = MEMORY_LIMIT,
          limit_s: float = TIME_LIMIT_S) -> list[str]:
    """Run ``case`` and return what is wrong with it."""
    return check_outcome(case, subprocess_, memory, limit_s)[0]


def check_outcome(case: Case, subprocess_: bool = False, memory: int = MEMORY_LIMIT,
                  limit_s: float = TIME_LIMIT_S) -> tuple[list[str], Outcome]:
    """``check``, and what the case printed."""
    for out in case.outputs:
        if not out.exists():
            out.write_text("existing output\n", encoding="utf-8")
    before = snapshot(case.outputs)
    outcome = (run_subprocess(case.argv, limit_s, memory) if subprocess_
               else run_inprocess(case.argv, limit_s))
    return problems(case, outcome, before, limit_s), outcome


# -- one command line per input kind -------------------------------------------------------


def shoe_case(path: Path, out: Path) -> Case:
    return Case(["simulate", "--shoe-file", str(path), "--out", str(out), "--supervisor",
                 "void"], path, [out])


def faults_case(path: Path, out: Path) -> Case:
    return Case(["simulate", "--shoe-file", str(SHORT_SHOE), "--faults", str(path), "--out",
                 str(out), "--supervisor", "resume"], path, [out])


def config_case(path: Path, out: Path) -> Case:
    """``run -c`` only for a config that does not load (so no daemon can start and run
    forever); a config that loads goes to ``simulate -c``, which reads the same file."""
    try:
        load_config(path)
    except StationError:
        return Case(["run", "-c", str(path)], path, [])
    return Case(["simulate", "-c", str(path), "--shoe-file", str(SHORT_SHOE), "--out",
                 str(out)], path, [out])


def paytable_case(path: Path, out: Path, analyze: bool) -> Case:
    if analyze:
        return Case(["analyze", str(path), "--json"], path, [])
    return Case(["simulate", "--shoe-file", str(SHORT_SHOE), "--paytable", str(path),
                 "--out", str(out)], path, [out])


def remaining_case(path: Path) -> Case:
    """``analyze --remaining``: the cards left, as cards out (a shoe file) or as JSON."""
    return Case(["analyze", str(PAYTABLE_000), "--remaining", str(path), "--json"], path, [])


def recording_case(path: Path, out: Path) -> Case:
    return Case(["replay", str(path), "--out", str(out)], path, [out])


def results_case(path: Path, out: Path) -> Case:
    return Case(["roads", "--results", str(path), "--json", "--svg", str(out)], path, [out])


def sequence_case(letters: str) -> Case:
    return Case(["roads", "--sequence", letters, "--json"])
