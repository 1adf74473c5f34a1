"""``station pit report``: a real pit journal (SQLite, the seen table) of real stations'
messages, the CSV parsed back, and every bad input refused with exit 2 and nothing written.

Until ``station pit`` dispatches to it, the subcommand runs as ``python -m
station.services.pit.report report ...`` (the same ``register_report`` arguments and ``run``)."""

from __future__ import annotations

import csv
import hashlib
import io
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from station.services.pit import report
from station.services.pit.stats import compute, csv_header
from tests.pit.statskit import (
    FAULTS,
    REPORT,
    Script,
    applied_order,
    at,
    rows_of,
    simulate,
    write_journal,
    write_pit_config,
)

FROM, TO = "2026-01-01T00:00:00Z", "2026-01-01T02:00:00Z"


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pit folder: pit.yaml naming var/pit.sqlite, with two tables' messages in it."""
    tmp = tmp_path_factory.mktemp("pit")
    rows = (applied_order(rows_of(simulate(tmp / "sim", table="t7", seed=3, faults=FAULTS)))
            + applied_order(rows_of(simulate(tmp / "sim", table="t8", seed=4, faults=FAULTS,
                                             supervisor="void"))))
    (tmp / "var").mkdir()
    write_journal(tmp / "var" / "pit.sqlite", rows)
    write_pit_config(tmp, "var/pit.sqlite")
    return tmp


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*REPORT, *args], capture_output=True, text=True, timeout=120,
                          check=False, cwd=cwd)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_csv_by_table_is_the_statistics(floor: Path, tmp_path: Path) -> None:
    out = tmp_path / "shift.csv"
    done = run("-c", str(floor / "pit.yaml"), "--from", FROM, "--to", TO, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "2 table(s)" in done.stderr and str(out) in done.stderr
    raw = out.read_bytes()
    assert raw.endswith(b"\r\n") and b"\r\n" in raw.split(b"\r\n", 1)[1]
    lines = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
    assert lines[0] == csv_header("table")
    rows = [dict(zip(lines[0], line, strict=True)) for line in lines[1:]]
    totals = {r["table"]: r for r in rows if r["reason"] == "all"}
    assert set(totals) == {"t7", "t8"}
    with closing(sqlite3.connect(floor / "var" / "pit.sqlite")) as db:
        seen = db.execute("SELECT table_id, kind, seq, at, body FROM seen").fetchall()
    expected = compute(sorted(seen, key=lambda r: (r[0], r[2] or 0)),
                       report.when(FROM, "--from"), report.when(TO, "--to"))
    for t in expected["tables"]:
        row = totals[t["table"]]
        assert int(row["rounds"]) == t["rounds"] > 100
        assert float(row["rounds_per_hour"]) == t["rounds_per_hour"]
        assert float(row["paused_s"]) == t["paused_s"]
        assert int(row["voids"]) == t["voids"]
        by_reason = {(r["raised"], r["reason"]): r for r in rows
                     if r["table"] == t["table"] and r["reason"] != "all"}
        assert {k: int(v["pauses"]) for k, v in by_reason.items()} == {
            (x["raised"], x["reason"]): x["pauses"] for x in t["reasons"]}
    assert int(totals["t8"]["voids"]) > 0


def test_by_dealer_to_stdout(floor: Path) -> None:
    done = run("-c", str(floor / "pit.yaml"), "--from", "2026-01-01", "--to", "2026-01-02",
               "--by", "dealer")
    assert done.returncode == 0, done.stderr
    lines = list(csv.reader(io.StringIO(done.stdout, newline="")))
    assert lines[0] == csv_header("dealer")
    totals = {line[2]: line for line in lines[1:] if line[4] == "all"}
    assert set(totals) == {"D042", "D043"}
    assert totals["D042"][3] == "t7 t8"


def test_a_period_with_nothing_is_a_header_alone(floor: Path) -> None:
    done = subprocess.run([*REPORT, "-c", str(floor / "pit.yaml"), "--from", "2027-01-01",
                           "--to", "2027-01-02"], capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (",".join(csv_header("table")) + "\r\n").encode()


def test_an_existing_output_is_replaced_only_when_done(floor: Path, tmp_path: Path) -> None:
    out = tmp_path / "shift.csv"
    out.write_text("yesterday's\n")
    assert run("-c", str(floor / "pit.yaml"), "--from", FROM, "--to", TO,
               "--out", str(out)).returncode == 0
    assert out.read_text().startswith("from,to,table")
    assert [p.name for p in tmp_path.iterdir()] == ["shift.csv"]


def bad_inputs(floor: Path, tmp: Path) -> list[tuple[list[str], str]]:
    cfg = str(floor / "pit.yaml")
    text = tmp / "text.sqlite"
    text.write_text("not a database, just words\n" * 100)
    other = tmp / "other.sqlite"
    with closing(sqlite3.connect(other)) as db:
        db.execute("CREATE TABLE seen (id INTEGER PRIMARY KEY, what TEXT)")
    no_key = tmp / "nokey.yaml"
    no_key.write_text("pit: {name: pit}\n")
    return [
        (["-c", str(tmp / "missing.yaml"), "--from", FROM, "--to", TO], "missing.yaml"),
        (["-c", str(no_key), "--from", FROM, "--to", TO], "no pit.journal"),
        (["-c", str(write_pit_config(tmp, "gone.sqlite", "gone.yaml")), "--from", FROM, "--to", TO],
         "no pit journal there"),
        (["-c", str(write_pit_config(tmp, "text.sqlite", "text.yaml")), "--from", FROM,
          "--to", TO],
         "not a pit journal"),
        (["-c", str(write_pit_config(tmp, "other.sqlite", "other.yaml")), "--from", FROM,
          "--to", TO],
         "not a pit journal (no seen table with at, body, kind, seq, table_id)"),
        (["-c", cfg, "--from", "yesterday", "--to", TO], "--from 'yesterday': not an ISO"),
        (["-c", cfg, "--from", FROM, "--to", "2026-13-01"], "--to '2026-13-01'"),
        (["-c", cfg, "--from", TO, "--to", FROM], "is not before --to"),
        (["-c", cfg, "--from", FROM, "--to", FROM], "is not before --to"),
        (["-c", cfg, "--from", "0001-01-01", "--to", TO], "out of range"),
        (["-c", cfg, "--from", FROM, "--to", TO, "--out", str(floor / "var" / "pit.sqlite")],
         "that is an input of this command"),
        (["-c", cfg, "--from", FROM, "--to", TO, "--out", cfg], "an input"),
        (["-c", cfg, "--from", FROM, "--to", TO, "--out", str(tmp / "no" / "x.csv")],
         "does not exist"),
        (["-c", cfg, "--from", FROM, "--to", TO, "--out", str(tmp)], "is a directory"),
        (["-c", cfg, "--from", FROM, "--to", TO, "--by", "shoe"], "invalid choice"),
        (["-c", cfg, "--to", TO], "--from"),
    ]


def test_bad_input_is_exit_2_with_what_to_fix(floor: Path, tmp_path: Path) -> None:
    journal = floor / "var" / "pit.sqlite"
    before = digest(journal)
    for args, words in bad_inputs(floor, tmp_path):
        listing = sorted(p.name for p in tmp_path.iterdir())
        done = run(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert words in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
        assert done.stdout == ""
        assert sorted(p.name for p in tmp_path.iterdir()) == listing, args
    assert digest(journal) == before


def test_the_journal_is_opened_read_only(floor: Path, tmp_path: Path) -> None:
    """A journal the report cannot write (a read-only copy) still reports; nothing of the
    journal is created or changed (no -wal, no -journal)."""
    copy = tmp_path / "ro"
    copy.mkdir()
    (copy / "pit.sqlite").write_bytes((floor / "var" / "pit.sqlite").read_bytes())
    cfg = write_pit_config(copy, "pit.sqlite")
    (copy / "pit.sqlite").chmod(0o444)
    before = digest(copy / "pit.sqlite")
    done = run("-c", str(cfg), "--from", FROM, "--to", TO, "--out", str(tmp_path / "x.csv"))
    assert done.returncode == 0, done.stderr
    assert digest(copy / "pit.sqlite") == before
    assert sorted(p.name for p in copy.iterdir()) == ["pit.sqlite", "pit.yaml"]


def test_load_stats_is_what_the_api_serves(floor: Path) -> None:
    """``GET /api/stats`` is ``load_stats`` over the pit journal: JSON-able as it is."""
    import json  # noqa: PLC0415

    r: dict[str, Any] = report.load_stats(floor / "var" / "pit.sqlite", at(0), at(7200))
    assert json.loads(json.dumps(r)) == r
    assert [t["table"] for t in r["tables"]] == ["t7", "t8"]


def test_it_reads_a_journal_the_pit_is_writing(floor: Path, tmp_path: Path) -> None:
    """The service keeps its journal open in WAL mode: rows not yet checkpointed into the
    database file are read too."""
    journal = tmp_path / "pit.sqlite"
    journal.write_bytes((floor / "var" / "pit.sqlite").read_bytes())
    cfg = write_pit_config(tmp_path, "pit.sqlite")
    writer = sqlite3.connect(journal)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        extra = Script("t9")
        extra.round(10, 40, 1, "D050")
        for table_id, kind, seq, ts, body in extra.rows():
            writer.execute("INSERT INTO seen (at, table_id, kind, seq, key, body) VALUES "
                           "(?, ?, ?, ?, ?, ?)", (ts, table_id, kind, seq, f"k{seq}", body))
        writer.commit()
        assert (tmp_path / "pit.sqlite-wal").stat().st_size > 0
        done = run("-c", str(cfg), "--from", FROM, "--to", TO)
        assert done.returncode == 0, done.stderr
        # Past the period's two columns: t9's one round of 30 s.
        rest = [line.split(",", 2)[2] for line in done.stdout.splitlines()[1:]]
        assert "t9,all,all,1,1,0,30,120,0,0,0" in rest
    finally:
        writer.close()


def test_run_takes_the_arguments_as_station_pit_parses_them(floor: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str],
                                                             ) -> None:
    """station/commands/pit.py's parser: --out a Path or unset (None: stdout)."""
    import argparse  # noqa: PLC0415

    out = tmp_path / "x.csv"
    args = argparse.Namespace(config=floor / "pit.yaml", start=FROM, end=TO, by="dealer",
                              out=out)
    assert report.run(args) == 0
    assert out.read_text().startswith("from,to,dealer,tables")
    args.out = None
    assert report.run(args) == 0
    assert capsys.readouterr().out.startswith("from,to,dealer,tables")
    args.start = "soon"
    assert report.run(args) == 2
    assert "--from 'soon'" in capsys.readouterr().err


def test_a_relative_journal_is_the_working_directorys_as_the_pit_takes_it(
        floor: Path, tmp_path: Path) -> None:
    """The pit opens ``pit.journal`` from its working directory (as the station its
    ``journal.path``); the report reads the same file when run from the same place, and not a
    file of that name beside the config."""
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "pit.yaml").write_text("pit: {name: pit, journal: var/pit.sqlite}\n")
    here = run("-c", str(etc / "pit.yaml"), "--from", FROM, "--to", TO, cwd=floor)
    assert here.returncode == 0, here.stderr
    assert here.stdout == run("-c", str(floor / "pit.yaml"), "--from", FROM, "--to",
                              TO).stdout
    elsewhere = run("-c", str(etc / "pit.yaml"), "--from", FROM, "--to", TO, cwd=tmp_path)
    assert elsewhere.returncode == 2 and "no pit journal there" in elsewhere.stderr
