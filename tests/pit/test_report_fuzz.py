"""``station pit report`` under fuzz: hypothesis-made arguments, seeded mutations of the
journal file's bytes, and hypothesis-made rows in a well-formed journal. Always exit 0 or
2, never a traceback; on exit 2 nothing is written; the journal is never changed."""

from __future__ import annotations

import contextlib
import hashlib
import io
import random
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.services.pit import report
from station.services.pit.stats import READ_KINDS, compute
from tests.pit.statskit import (
    FAULTS,
    REPORT,
    SEEN,
    at,
    rows_of,
    simulate,
    write_journal,
    write_pit_config,
)
from tests.sampling import examples


@pytest.fixture(scope="module")
def pit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("fuzz")
    msgs = simulate(tmp / "sim", table="t7", seed=9, shoes=1, faults=FAULTS[:3])
    write_journal(tmp / "pit.sqlite", rows_of(msgs))
    write_pit_config(tmp, "pit.sqlite")
    return tmp


def in_process(args: list[str]) -> tuple[int, str]:
    """``main(args)``: its exit code (argparse's SystemExit too) and what it wrote to stderr;
    any other exception fails the test, as a traceback would."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = report.main(args)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, err.getvalue()


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


TIMES = st.one_of(
    st.sampled_from(["2026-01-01", "2026-01-01T00:30:00Z", "2026-01-01T01:00+08:00",
                     "2026-01-02T00:00:00.000Z", "2025-12-31T23:00", "0001-01-01",
                     "9999-12-31T23:59:59", "", "now", "2026-02-30", "2026-01-01T25:00"]),
    st.text(max_size=30))
OUTS = st.sampled_from(["-", "out.csv", "sub/out.csv", "pit.sqlite", "pit.yaml", ".", "",
                        "pit.sqlite-wal", "out\u00e9.csv"])


@settings(max_examples=examples(120), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=TIMES, end=TIMES, by=st.sampled_from(["table", "dealer", "shoe", ""]), out=OUTS,
       drop=st.sampled_from(["", "-c", "--from", "--to"]))
def test_any_arguments_exit_0_or_2(pit: Path, start: str, end: str, by: str, out: str,
                                   drop: str) -> None:
    before, journal = listing(pit), digest(pit / "pit.sqlite")
    target = "-" if out == "-" else str(pit / out) if out else ""
    args = {"-c": str(pit / "pit.yaml"), "--from": start, "--to": end, "--by": by,
            "--out": target}
    argv = ["report", *(x for k, v in args.items() if k != drop for x in (k, v))]
    code, err = in_process(argv)
    assert code in (0, 2), err
    assert digest(pit / "pit.sqlite") == journal
    if code == 2:
        assert err.strip(), argv
        assert listing(pit) == before
    elif target not in ("-", ""):
        Path(target).unlink()


def mutants(data: bytes, seed: int) -> Iterator[bytes]:
    """Seeded damage to a SQLite file: flipped bytes, zeroed pages, cuts, a torn header."""
    rng = random.Random(seed)
    for _ in range(12):
        b = bytearray(data)
        match rng.randrange(5):
            case 0:
                for _ in range(rng.randint(1, 40)):
                    b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            case 1:
                page = rng.randrange(len(b) // 4096) * 4096
                b[page:page + 4096] = bytes(4096)
            case 2:
                del b[rng.randrange(len(b)):]
            case 3:
                b[rng.randrange(100)] = rng.randrange(256)
            case _:
                start = rng.randrange(len(b))
                b[start:start + 64] = rng.randbytes(64)
        yield bytes(b)


@pytest.mark.parametrize("seed", range(6))
def test_a_damaged_journal_is_exit_0_or_2(pit: Path, tmp_path: Path, seed: int) -> None:
    good = (pit / "pit.sqlite").read_bytes()
    write_pit_config(tmp_path, "pit.sqlite")
    for n, damaged in enumerate(mutants(good, seed)):
        (tmp_path / "pit.sqlite").write_bytes(damaged)
        out = tmp_path / "out.csv"
        code, err = in_process(["report", "-c", str(tmp_path / "pit.yaml"), "--from",
                                "2026-01-01", "--to", "2026-01-02", "--out", str(out)])
        assert code in (0, 2), (seed, n, err)
        assert (tmp_path / "pit.sqlite").read_bytes() == damaged
        if code == 2:
            assert "pit journal" in err and not out.exists(), (seed, n, err)
        else:
            out.unlink()
        for extra in ("pit.sqlite-wal", "pit.sqlite-shm", "pit.sqlite-journal"):
            (tmp_path / extra).unlink(missing_ok=True)


def test_a_damaged_journal_in_a_real_process(pit: Path, tmp_path: Path) -> None:
    """The same, through the interpreter: what a user sees is a message, not a traceback."""
    good = (pit / "pit.sqlite").read_bytes()
    cfg = write_pit_config(tmp_path, "pit.sqlite")
    codes = set()
    for damaged in list(mutants(good, 99))[:6]:
        (tmp_path / "pit.sqlite").write_bytes(damaged)
        done = subprocess.run([*REPORT, "-c", str(cfg), "--from", "2026-01-01", "--to",
                               "2026-01-02"], capture_output=True, text=True, timeout=120,
                              check=False)
        assert done.returncode in (0, 2) and "Traceback" not in done.stderr, done.stderr
        codes.add(done.returncode)
    assert codes  # (which codes depends on where the damage fell)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=12)
    | st.sampled_from(["2026-01-01T00:10:00.000Z", "2026-01-01T00:20:00Z", "complete", "void",
                       "held by the dealer: misdeal", "card not due: 3S", "paused", "D1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["ts", "status", "dealer", "previous", "key", "round_key", "reason",
                         "code", "raised_by", "paused", "phase", "void_reason", "seq"]),
        inner, max_size=8),
    max_leaves=20)
ROWS = st.lists(st.tuples(
    st.sampled_from(["t1", "t2"]) | st.text(max_size=3),
    st.sampled_from([*READ_KINDS, "card", "x"]),
    st.none() | st.integers(-5, 50),
    st.just("2026-01-01T00:00:00.000Z"),
    JSONISH.map(lambda v: orjson.dumps(v).decode()) | st.text(max_size=40)),
    max_size=40)


@settings(max_examples=examples(200), deadline=None)
@given(rows=ROWS)
def test_any_rows_never_raise(rows: list[tuple[Any, ...]]) -> None:
    r = compute(rows, at(0), at(3600))
    assert r["skipped"] <= len(rows)
    for g in r["tables"] + r["dealers"]:
        assert 0 <= g["paused_s"] <= 3600
        assert 0 <= g["dealing_s"] <= 3600


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS)
def test_any_rows_in_a_journal_are_exit_0(tmp_path: Path, rows: list[tuple[Any, ...]]) -> None:
    journal = tmp_path / "pit.sqlite"
    journal.unlink(missing_ok=True)
    with closing(sqlite3.connect(journal)) as db:
        db.executescript(SEEN)
        db.executemany("INSERT OR IGNORE INTO seen (at, table_id, kind, seq, key, body) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       [(r[3], r[0], r[1], r[2], str(i), r[4]) for i, r in enumerate(rows)])
        db.commit()
    write_pit_config(tmp_path, "pit.sqlite")
    code, err = in_process(["report", "-c", str(tmp_path / "pit.yaml"), "--from",
                            "2026-01-01", "--to", "2026-01-02", "--by", "dealer"])
    assert code == 0, err
