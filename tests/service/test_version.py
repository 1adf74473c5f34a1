"""``station --version``, and the version in every upstream message and the journal header:
an optional key added to a contract checked from outside (nothing renamed or removed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from station import __version__
from station.journal import Journal
from station.live.assembly import build_daemon
from station.live.config import parse_config
from station.wire import messages as m
from station.wire.schema import load_schema, validate
from tests.daemon.test_daemon import config_dict
from tests.stationkit import write_key

# A status names a journal head (docs/upstream.md); these tests have no journal.
NO_JOURNAL = m.journal_head(bytes(32), 0, bytes(32))


def test_station_version_prints_the_package_version() -> None:
    done = subprocess.run([sys.executable, "-m", "station.cli", "--version"],
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == f"station {__version__}"


def test_every_journaled_message_and_the_header_carry_the_version(tmp_path: Path) -> None:
    cfg = config_dict(tmp_path, shoes=1)
    key, _ = write_key(tmp_path)
    cfg["upstream"] = {"type": "file", "path": str(tmp_path / "upstream.jsonl"),
                       "signing_key_file": str(key)}
    built = build_daemon(parse_config(tmp_path / "s.yaml", cfg))
    d = built.daemon
    try:
        d.run(until=lambda: d.station.dealing.round_no >= 3)
    finally:
        built.close()
    lines = (tmp_path / "upstream.jsonl").read_text().splitlines()
    kinds = set()
    for line in lines:
        msg = json.loads(line)
        kinds.add(msg["kind"])
        assert msg[m.STATION_VERSION] == __version__
        validate(line.encode())
    assert {"shoe_started", "card", "round", "status"} <= kinds
    journal = Journal.open(tmp_path / "journal.sqlite3")
    try:
        assert journal.header.station_version == __version__
    finally:
        journal.close()


def test_presence_carries_it_and_the_schemas_allow_it_without_requiring_it() -> None:
    msg = m.presence(journal=NO_JOURNAL, table="t1", ts=1_767_225_600.0, online=False)
    assert msg[m.STATION_VERSION] == __version__
    for kind in m.KINDS:
        schema = load_schema(kind)
        assert m.STATION_VERSION in schema["properties"], kind
        assert m.STATION_VERSION not in schema.get("required", []), kind
    # A message from a station before the key existed is still valid.
    older = m.card(table="t1", seq=4, ts=1_767_225_600.0, shoe="s", round_no=1,
                   hand="player", position=1, code="AS")
    older["sig"] = "A" * 86 + "=="
    older[m.PREV_SEQ] = 3  # the feed's link, which this test is not about
    validate(older)
