"""The pit's journal is chained and verifiable (issue 33): ``station pit verify`` passes a
journal the pit wrote, and finds a row edited, added or deleted by hand, a chain entry
edited, and a tail cut off (the head file). Real SQLite, the real CLI, and a real pit."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.services.pit.journal import PitJournal, head_path
from station.services.pit.verify import verify_pit_journal
from station.wire.signing import public_pem
from tests.pit.pitkit import Pit, PitFolder
from tests.upstream.broker import Broker

STATION = str(Path(sys.executable).parent / "station")


def written(path: Path) -> Path:
    """A pit journal with a row of every table, as the service writes them."""
    j = PitJournal(path)
    j.seen("2026-12-01T10:00:00.000Z", "t1", "status", seq=3, key="t1:status:3",
           body='{"kind":"status"}')
    j.seen("2026-12-01T10:00:00.000Z", "t1", "status", seq=3, key="t1:status:3",
           body='{"kind":"status"}')  # the same again: ignored, as the service's are
    j.alert(1, "t1", "pause", detail="card not due", by=None, raised_at="2026-12-01T10:00:01Z")
    j.alert_detail(1, "card not due (2 times)")
    j.commit()
    j.ack(1, "ann", "2026-12-01T10:00:02Z")
    j.action("pit-1", "2026-12-01T10:00:03Z", "t1", "resume", by="ann", reason=None,
             note=None, payload="{}")
    j.answered("pit-1", "applied", "resumed by ann", "2026-12-01T10:00:04Z")
    j.cleared(1, "2026-12-01T10:00:04Z")
    j.commit()
    j.dealer_change("2026-12-01T10:00:05Z", "t1", "ann", "D042", None)
    j.sign_in("2026-12-01T10:00:06Z", "ann", "web 10.0.0.5", "resume", "accepted")
    j.close()
    return path


def edit(path: Path, sql: str, *args: object) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.execute(sql, args)
        db.commit()


def test_a_journal_as_written_verifies(tmp_path: Path) -> None:
    problems, summary = verify_pit_journal(written(tmp_path / "pit.sqlite3"))
    assert problems == [] and "rows as the chain says" in summary


@pytest.mark.parametrize(("sql", "found"), [
    ("UPDATE alerts SET detail = 'nothing happened' WHERE id = 1",
     "alerts row 1: detail is 'nothing happened'"),
    ("UPDATE acks SET by = 'bob'", "acks row 1: by is 'bob'"),
    ("UPDATE actions SET state = 'refused'", "actions row pit-1: state is 'refused'"),
    ("UPDATE seen SET body = '{\"kind\":\"pause\"}'", "seen row 1: body is"),
    ("DELETE FROM sign_ins", "sign_ins row 1: in the chain but not in the table (deleted)"),
    ("INSERT INTO dealer_changes (at, table_id, by, dealer) VALUES ('x', 't1', 'eve', 'D1')",
     "dealer_changes row 2: not in the chain (added by hand)"),
    ("UPDATE chain SET entry = replace(entry, 'ann', 'bob') WHERE n = 4",
     "chain: entry 4 does not hash"),
    ("DELETE FROM chain WHERE n = (SELECT max(n) FROM chain)", "entries were lost or cut off"),
])
def test_an_edited_journal_is_found(tmp_path: Path, sql: str, found: str) -> None:
    path = written(tmp_path / "pit.sqlite3")
    edit(path, sql)
    problems, _ = verify_pit_journal(path)
    assert any(found in p for p in problems), problems


def test_a_missing_head_file_is_said(tmp_path: Path) -> None:
    path = written(tmp_path / "pit.sqlite3")
    head_path(path).unlink()
    problems, _ = verify_pit_journal(path)
    assert problems and "missing" in problems[0]


def test_an_older_pits_rows_are_named_not_verified(tmp_path: Path) -> None:
    path = tmp_path / "pit.sqlite3"
    with closing(sqlite3.connect(path)) as db:  # an older pit's journal: no chain
        db.executescript("CREATE TABLE sign_ins (id INTEGER PRIMARY KEY, at TEXT NOT NULL, "
                         "name TEXT NOT NULL, source TEXT NOT NULL, what TEXT NOT NULL, "
                         "verdict TEXT NOT NULL);"
                         "INSERT INTO sign_ins (at, name, source, what, verdict) "
                         "VALUES ('x', 'ann', 'web', 'resume', 'accepted');")
    PitJournal(path).close()
    problems, summary = verify_pit_journal(path)
    assert problems == [] and "1 rows from before the chain, not verified" in summary


def test_the_cli_on_a_real_pits_journal(tmp_path: Path, broker: Broker) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "t1.pub.pem").write_bytes(public_pem(Ed25519PrivateKey.generate().public_key()))
    folder = PitFolder(tmp_path / "pit")
    config = folder.config(broker.port, keys)
    pit = Pit(config, folder.port)
    try:
        status, _ = pit.request("POST", "/api/tables/t1/commands/resume",
                                {"name": "ann", "pin": "0000"})  # a wrong PIN: journaled
        assert status in (401, 403), status
    finally:
        pit.stop()
        pit.close()
    journal = Path(yaml.safe_load(config.read_text())["pit"]["journal"])
    ok = subprocess.run([STATION, "pit", "verify", "-c", str(config)], capture_output=True,
                        text=True, timeout=60, check=False)
    assert ok.returncode == 0 and ok.stdout.rstrip().endswith("verified"), ok.stdout + ok.stderr
    edit(journal, "UPDATE sign_ins SET verdict = 'accepted'")
    bad = subprocess.run([STATION, "pit", "verify", "-c", str(config)], capture_output=True,
                         text=True, timeout=60, check=False)
    assert bad.returncode == 1 and "FAILED: sign_ins row" in bad.stdout, bad.stdout
