"""A start with another config or paytable than the journal's last publishes and journals a
``config_changed`` (docs/journal.md, "Configuration changes"): the files' hashes before and
after and the dotted keys that changed, never a value; a start with the same config, none."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from drivers.events import ConfigChanged
from station.journal import Journal, read_journal, verify_journal
from station.live import assembly
from station.live.assembly import build_daemon
from station.live.config import load_config
from station.settings.configprint import ConfigPrint, print_of
from station.wire.schema import validate
from tests.daemon.test_daemon import config_dict
from tests.service.test_clock import assert_replay_rebuilds_every_message


def start(config: Path) -> None:
    built = build_daemon(load_config(config))
    try:
        built.daemon.run()  # plays the simulated shoe out, or stops at once after it
    finally:
        built.close()


def sent(tmp: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (tmp / "upstream.jsonl").read_text().splitlines()]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_changed_setting_is_published_and_journaled_once(tmp_path: Path) -> None:
    data = config_dict(tmp_path, shoes=1)
    config = tmp_path / "station.yaml"
    config.write_text(yaml.safe_dump(data))
    first_hash = sha(config)
    start(config)
    header = verify_journal(tmp_path / "journal.sqlite3").header
    assert header.config is not None and header.config["config"] == first_hash
    assert header.config["paytable"] == sha(Path(data["table"]["paytable"]))  # type: ignore
    assert not [m for m in sent(tmp_path) if m["kind"] == "config_changed"]

    # The same file again: nothing. Then a display setting and a secret's path change, and
    # a comment: the same journal goes on, with one config_changed naming the keys.
    start(config)
    assert not [m for m in sent(tmp_path) if m["kind"] == "config_changed"]
    data["display"] = {"type": "none", "language": "zh"}
    data["upstream"] = dict(data["upstream"], signing_key_file=None)  # type: ignore[call-overload]
    config.write_text("# moved to the new rack\n" + yaml.safe_dump(data))
    start(config)
    changes = [m for m in sent(tmp_path) if m["kind"] == "config_changed"]
    assert len(changes) == 1
    (change,) = changes
    validate({**change, "sig": "A" * 86 + "=="})  # unsigned file upstream: all but sig
    assert change["keys"] == ["display.language", "upstream.signing_key_file"]
    assert change["old"] == {"config": first_hash, "paytable": header.config["paytable"]}
    assert change["new"] == {"config": sha(config), "paytable": header.config["paytable"]}
    assert change["previous_journal"] is None
    assert "zh" not in json.dumps(change)  # the names, never a value
    assert not list(tmp_path.glob("journal-*.sqlite3"))  # no new journal for these

    # Journaled as an input event: a replay rebuilds the same message; and the next start
    # compares with it, not with the header: nothing new.
    events = [e for e in read_journal(tmp_path / "journal.sqlite3").events
              if isinstance(e, ConfigChanged)]
    assert len(events) == 1 and events[0].new_config == sha(config)
    assert_replay_rebuilds_every_message(tmp_path / "journal.sqlite3")
    start(config)
    assert len([m for m in sent(tmp_path) if m["kind"] == "config_changed"]) == 1
    # Only a comment: the file is another, no key changed; said all the same.
    before = sha(config)
    config.write_text(config.read_text() + "# checked by the pit\n")
    start(config)
    *_, last = [m for m in sent(tmp_path) if m["kind"] == "config_changed"]
    assert last["keys"] == [] and last["old"]["config"] == before != last["new"]["config"]


def test_a_journal_without_a_recorded_config_says_so_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = config_dict(tmp_path, shoes=1)
    config = tmp_path / "station.yaml"
    config.write_text(yaml.safe_dump(data))
    # A journal of an older station: its header holds no config.
    with monkeypatch.context() as m:
        m.setattr(assembly, "_create", lambda path, cfg, now: Journal.create(
            path, cfg.rules, cfg.paytable, "older"))
        start(config)
    journal = tmp_path / "journal.sqlite3"
    assert verify_journal(journal).header.config is None
    start(config)
    (change,) = [m for m in sent(tmp_path) if m["kind"] == "config_changed"]
    assert change["old"] == {"config": None, "paytable": None} and change["keys"] == []
    assert change["new"]["config"] == sha(config)
    start(config)  # recorded now: not again
    assert len([m for m in sent(tmp_path) if m["kind"] == "config_changed"]) == 1


def test_the_print_names_dotted_keys_added_removed_or_changed_and_holds_no_value(
        tmp_path: Path) -> None:
    file = tmp_path / "c.yaml"
    file.write_text("x: 1\n")
    old = print_of({"table": {"id": "t1", "decks": 8}, "upstream": {"host": "10.0.0.5"},
                    "simulation": {"faults": [{"kind": "lost"}]}}, file, None)
    new = print_of({"table": {"id": "t1", "decks": 6}, "display": {"language": "zh"},
                    "simulation": {"faults": [{"kind": "double"}]}}, file, None)
    assert new.changed(old) == ("display.language", "simulation.faults", "table.decks",
                                "upstream.host")
    assert new.changed(new) == () and new.same_files(old)  # the same file bytes
    assert all(len(d) == 16 for _, d in new.values)
    text = json.dumps(new.to_json())
    assert "10.0.0.5" not in text and "zh" not in text and "double" not in text
    assert ConfigPrint.from_json(json.loads(text)) == new
    assert ConfigPrint.from_json(None) is None  # a header from before prints
    assert new.config == sha(file) and print_of({}, tmp_path / "none.yaml", None).config is None
