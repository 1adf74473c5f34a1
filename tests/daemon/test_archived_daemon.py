"""The archive's ``archived`` through the real daemon, a real Mosquitto and a real pty scanner:
signed acknowledgements of journals the station has (moved aside, and the one in use) are
taken and shown (view, ``station ctl status``, metrics); those naming a record it does not
have are refused as not_now naming what differs; the journal replays to the same answers;
and at the next start retention deletes the journal whose last record was acknowledged, and
only it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
import urllib.request
from contextlib import closing
from pathlib import Path
from typing import Any

import orjson
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from drivers.sim_serial import PtyScanner
from station.wire.messages import iso_ts
from station.wire.signing import Signer
from tests import webkit
from tests.journal import retentionkit as kit
from tests.modes_replay import assert_journal_replays_live
from tests.stationkit import first_by_key, write_key
from tests.upstream.broker import Broker, Subscriber


def _events(sub: Subscriber) -> list[dict[str, Any]]:
    return [orjson.loads(m.payload) for m in sub.snapshot() if m.topic.endswith("/events")]


def _answers(sub: Subscriber) -> dict[str, tuple[str, str]]:
    return {m["command_id"]: (m["reason"], m["detail"]) for m in _events(sub)
            if m["kind"] == "command_refused"}


def _wait(check: Any, what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _head_of(journal: Path, seq: int) -> tuple[str, str]:
    """The journal's id and H(seq), read as another process would."""
    with closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=5)) as db:
        (digest,) = db.execute("SELECT value FROM meta WHERE key = 'header_sha256'").fetchone()
        (head,) = db.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()
    return bytes(digest).hex(), bytes(head).hex()


def _metric(port: int, name: str) -> list[str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    return [line for line in text.splitlines() if line.startswith(name)]


def test_archived_is_checked_answered_shown_replayed_and_lets_retention_delete(
        tmp_path: Path, broker: Broker) -> None:
    acked = kit.make_aside(tmp_path, shoes=2, records=12)
    partial = kit.make_aside(tmp_path, shoes=2, records=12)
    key, _ = write_key(tmp_path)
    archive = Ed25519PrivateKey.generate()
    metrics_port = webkit.free_port()
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.mqtt_live_config(tmp_path, pty.path, broker.port, str(key),
                                         {"archive": archive})
        cfg = yaml.safe_load(config.read_text())
        cfg["journal"]["retention"] = {"days": 0, "shoes": 0}
        cfg["metrics"] = {"port": metrics_port}
        config.write_text(yaml.safe_dump(cfg))
        base = webkit.url_of(config)
        sub = Subscriber(broker.port, "baccarat/t5/#")
        pub = Subscriber(broker.port, "baccarat/t5/nothing", client_id="archive-1")

        def send(command_id: str, journal: str, seq: int, head: str) -> None:
            body = {"v": 1, "id": command_id, "table": "t5", "action": "archived",
                    "actor": "archive-1", "ts": iso_ts(time.time()), "journal": journal,
                    "seq": seq, "head": head}
            pub.client.publish("baccarat/t5/commands", Signer(archive).sign(body),
                               qos=1).wait_for_publish(5)

        journal = tmp_path / "journal.sqlite3"
        try:
            with webkit.running(config) as proc:
                webkit.wait_reading(proc, pty.path)
                _wait(lambda: any(m.topic.endswith("/status") for m in sub.snapshot()),
                      "the station online")
                # At start nothing was acknowledged: retention deleted nothing.
                assert acked.path.exists() and partial.path.exists()
                _, partial_h2 = _head_of(partial.path, 2)
                send("a-1", acked.journal_id, acked.last_seq, acked.head)
                send("a-2", partial.journal_id, 2, partial_h2)
                webkit.wait_state(base, lambda s: len(s["archived"]) == 2, what="two marks")
                current, h1 = _head_of(journal, 1)  # record 1: a-1, as journaled
                send("a-3", partial.journal_id, partial.last_seq, "0" * 64)
                send("a-4", "f" * 64, 5, acked.head)
                send("a-5", current, 10**6, h1)
                send("a-6", current, 1, h1)
                _wait(lambda: {"a-3", "a-4", "a-5"} <= set(_answers(sub)), "the refusals")
                state = webkit.wait_state(base, lambda s: len(s["archived"]) == 3,
                                          what="three archived marks")
                marks = {m["journal"]: (m["seq"], m["by"]) for m in state["archived"]}
                assert marks == {
                    acked.journal_id: (acked.last_seq, "upstream:archive/archive-1 [a-1]"),
                    partial.journal_id: (2, "upstream:archive/archive-1 [a-2]"),
                    current: (1, "upstream:archive/archive-1 [a-6]")}
                ctl = subprocess.run([sys.executable, "-m", "station.cli", "ctl", "status",
                                      "-c", str(config)], capture_output=True, text=True,
                                     timeout=60, check=False)
                assert ctl.returncode == 0, ctl.stderr
                assert (f"archived: journal {acked.journal_id} up to seq {acked.last_seq} "
                        "(upstream:archive/archive-1 [a-1])") in ctl.stdout
                assert (f'station_journal_archived_seq{{journal="{partial.journal_id}"}} 2.0'
                        in _metric(metrics_port, "station_journal_archived_seq"))
                # The archive holds the journal in use up to record 1 (a-6): the records
                # after it wait, the oldest journaled some time ago (issue 33).
                with closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
                    (last,) = db.execute("SELECT max(seq) FROM events").fetchone()
                (records,) = _metric(metrics_port, "station_archive_backlog_records ")
                (oldest,) = _metric(metrics_port, "station_archive_backlog_oldest_seconds ")
                assert 1 <= float(records.split()[1]) <= last + 5  # more may come meanwhile
                assert float(oldest.split()[1]) > 0
        finally:
            sub.close()
            pub.close()
    answers = _answers(sub)
    assert set(answers) == {"a-3", "a-4", "a-5"}  # the others were taken: no answer
    assert answers["a-3"] == ("not_now", f"record {partial.last_seq} of journal "
                              f"{partial.journal_id} has head {partial.head}, not {'0' * 64}")
    assert answers["a-4"] == ("not_now", f"journal {'f' * 64} is not on this station: neither "
                              f"the journal in use ({current}) nor one moved aside beside it")
    assert answers["a-5"] == ("not_now", f"journal {current} (in use) has records up to seq "
                              f"{answers['a-5'][1].split('seq ')[1].split(',')[0]}, not 1000000")
    # A replay of the journal, with none of the files it was checked against, answers the same.
    assert_journal_replays_live(journal, first_by_key(_events(sub)), "bad_signature")

    # The next start: retention deletes the journal acknowledged to its last record, with its
    # files, and keeps the one acknowledged part way.
    proc = webkit.launch(config)
    try:
        _wait(lambda: not acked.path.exists(), "retention to delete the acknowledged journal")
    finally:
        log = webkit.stop(proc, config)
    assert partial.path.exists() and not Path(f"{acked.path}-head").exists()
    assert f"journal retention: deleted {acked.path}" in log
    assert "1 journal(s) deleted" in log
