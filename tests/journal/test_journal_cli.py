"""``station journal verify|export``: exit codes, messages, and what export will not touch."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from station.cli import main
from station.journal import verify_journal
from station.journal.files import companions
from station.wire.recording import read_recording
from tests.conftest import REPO
from tests.journal.journalkit import event, make_journal


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", *args], capture_output=True,
                          text=True, timeout=60, check=False, cwd=REPO)


def damage(path: Path, seq: int = 7) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("UPDATE events SET wall_ts = wall_ts + 1 WHERE seq = ?", (seq,))
    conn.close()


def test_verify_exit_codes_through_the_console_script(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    res = run("journal", "verify", str(path))
    head = verify_journal(path).head_hash.hex()
    assert res.returncode == 0, res.stderr
    assert res.stdout == (f"{path}: intact: 40 records, last seq 40, head {head}; "
                          "40 outbox rows, 40 not delivered\n")
    damage(path)
    res = run("journal", "verify", str(path))
    assert res.returncode == 1
    assert res.stderr.startswith(f"station journal verify: FAILED: {path}: record 7: its "
                                 "content does not match its hash")
    assert "start the station on a new journal" in res.stderr
    res = run("journal", "verify", str(REPO / "README.md"))
    assert res.returncode == 2
    assert "README.md: not a journal (not an SQLite database)" in res.stderr
    assert "Traceback" not in res.stderr + res.stdout


def test_verify_notes_a_missing_head_file(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    companions(path)[2].unlink()
    assert main(["journal", "verify", str(path)]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"note: {path}: no head file j.sqlite3-head")


def test_export_writes_a_recording_replay_reads(tmp_path: Path) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 5)
    out = tmp_path / "r.jsonl"
    res = run("journal", "export", str(path), "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert res.stderr == f"exported 5 events from {path} to {out}\n"
    rec = read_recording(out)
    assert list(rec.events) == [event(i) for i in range(5)]
    res = run("replay", str(out))
    assert res.returncode == 0, res.stderr
    assert "replayed" in res.stderr and "5 events" in res.stderr


def test_export_to_stdout_is_the_default(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 3)
    assert main(["journal", "export", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and '"format": "dealer-station-recording"' in lines[0]


def test_export_never_overwrites_without_force_nor_the_journal_ever(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 3)
    out = tmp_path / "r.jsonl"
    out.write_text("keep me\n")
    assert main(["journal", "export", str(path), "--out", str(out)]) == 2
    assert "exists; choose another --out, or add --force" in capsys.readouterr().err
    assert out.read_text() == "keep me\n"
    for own in (path, *companions(path)):
        before = own.read_bytes() if own.exists() else None
        assert main(["journal", "export", str(path), "--out", str(own), "--force"]) == 2
        assert "refusing to write over the journal" in capsys.readouterr().err
        assert (own.read_bytes() if own.exists() else None) == before
    link = tmp_path / "link.sqlite3"
    link.hardlink_to(path)
    assert main(["journal", "export", str(path), "--out", str(link), "--force"]) == 2
    assert main(["journal", "export", str(path), "--out", str(out), "--force"]) == 0
    assert out.read_text().count("\n") == 4


def test_export_of_a_damaged_journal_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = make_journal(tmp_path / "j.sqlite3")
    damage(path, 30)
    out = tmp_path / "r.jsonl"
    assert main(["journal", "export", str(path), "--out", str(out)]) == 1
    assert "FAILED, nothing written" in capsys.readouterr().err
    assert not out.exists()
    out.write_text("keep me\n")
    assert main(["journal", "export", str(path), "--out", str(out), "--force"]) == 1
    assert main(["journal", "export", str(path)]) == 1
    assert capsys.readouterr().out == ""
    assert out.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir() if "partial" in p.name) == []


def test_export_into_a_missing_folder_is_a_clear_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = make_journal(tmp_path / "j.sqlite3", 1)
    assert main(["journal", "export", str(path), "--out", str(tmp_path / "no" / "r")]) == 2
    assert "cannot write the recording" in capsys.readouterr().err


@pytest.mark.parametrize(("edit", "found"), [
    (["DELETE FROM head"], "the head table holds no rows"),
    (["PRAGMA ignore_check_constraints = ON", "INSERT INTO head SELECT 2, seq, hash FROM head"],
     "the head table holds 2 rows"),
], ids=["no head row", "two head rows"])
def test_a_head_table_without_exactly_one_row_is_refused_everywhere(
        tmp_path: Path, edit: list[str], found: str) -> None:
    # Issue 18: verify, export and `station run` ended in "ValueError: too many values to
    # unpack". Now each refuses it as damage: verify and export exit 1 (a finding), run exits
    # 2 (it cannot start), each naming the file, what is wrong and what to do.
    from tests.stationkit import table_config  # noqa: PLC0415

    path = make_journal(tmp_path / "j.sqlite3")
    conn = sqlite3.connect(path, isolation_level=None)
    for sql in edit:
        conn.execute(sql)
    conn.close()
    config = table_config(tmp_path, seed=1, upstream={"type": "file",
                                                      "path": str(tmp_path / "up.jsonl")},
                          journal=path)
    for args, code in ((("journal", "verify", str(path)), 1),
                       (("journal", "export", str(path), "--out", str(tmp_path / "o")), 1),
                       (("run", "-c", str(config)), 2)):
        res = run(*args)
        assert res.returncode == code, res.stderr
        assert "Traceback" not in res.stderr + res.stdout
        assert f"{path}: {found} where a journal has exactly one" in res.stderr
        assert "start the station on a new journal" in res.stderr
    assert not (tmp_path / "o").exists()
