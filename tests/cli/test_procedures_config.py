"""The table procedures' settings and vocabulary (docs/rules.md "Procedures"): every bad
config value refused with the file, the key and the fix; good ones reach ``TableRules``; a
recording header carries them only when not the defaults and is refused with a bad one; the
pause codes' and pack codes' rules, word for word."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.errors import ConfigError, InputFileError
from station.kinds.readers import reader_codes
from station.live.config import parse_config
from station.table.procedures import (
    NOTE_MAX,
    PAUSE_CODES,
    PROCEDURE_KEYS,
    band_text,
    pack_of,
    pause_problem,
    pause_reason,
    penetration,
    procedure_value_problem,
)
from station.table.tablerules import TableRules
from station.wire.recording import header_line, read_recording

BAD: list[tuple[str, str, object, str]] = [
    ("table", "shuffle_check", "pitboss", r"table\.shuffle_check: 'pitboss' is not one of "
     r"none, supervisor; none, or supervisor \(a supervisor confirms"),
    ("table", "shuffle_check", True, r"table\.shuffle_check: True is not one of"),
    ("table", "shuffle_method", "auto", r"table\.shuffle_method: 'auto' is not one of manual, "
     r"machine; manual or machine"),
    ("table", "penetration", [0.9, 0.6], r"table\.penetration: expected \[min, max\] with "
     r"0 <= min <= max <= 1, got \[0\.9, 0\.6\]; \[min, max\] as fractions"),
    ("table", "penetration", [-0.1, 0.5], r"table\.penetration: expected \[min, max\]"),
    ("table", "penetration", [0.5, 1.5], r"table\.penetration: expected \[min, max\]"),
    ("table", "penetration", [0.5], r"table\.penetration: expected \[min, max\]"),
    ("table", "penetration", [True, 1], r"table\.penetration: expected \[min, max\]"),
    ("table", "penetration", "0.6-0.9", r"table\.penetration: expected \[min, max\]"),
    ("reader", "pack_prefix", "PACK ", r"reader\.pack_prefix: expected up to 16 printable "
     r"ASCII characters, got 'PACK '; the start of a pack"),
    ("reader", "pack_prefix", "包-", r"reader\.pack_prefix: expected up to 16"),
    ("reader", "pack_prefix", "P" * 17, r"reader\.pack_prefix: expected up to 16"),
    ("reader", "pack_prefix", "PK\t", r"reader\.pack_prefix: expected up to 16"),
    ("reader", "pack_prefix", 5, r"reader\.pack_prefix: expected up to 16"),
]


@pytest.mark.parametrize(("section", "key", "value", "message"), BAD,
                         ids=lambda x: str(x)[:20])
def test_a_bad_procedure_key_names_file_key_and_fix(tmp_path: Path, section: str, key: str,
                                                    value: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_config(tmp_path / "station.yaml", {section: {key: value}})
    assert str(caught.value).startswith(str(tmp_path / "station.yaml"))


def test_every_procedure_key_is_covered() -> None:
    assert {k for _, k, _, _ in BAD} == set(PROCEDURE_KEYS)


def test_good_procedure_keys_reach_the_rules_and_the_reader(tmp_path: Path) -> None:
    c = parse_config(tmp_path / "s.yaml", {
        "table": {"shuffle_check": "supervisor", "shuffle_method": "machine",
                  "penetration": [0, 1]},
        "reader": {"type": "serial", "port": "/dev/null", "pack_prefix": "PK-"}})
    r = c.rules
    assert (r.shuffle_check, r.shuffle_method, r.penetration, r.pack_prefix) == (
        "supervisor", "machine", (0.0, 1.0), "PK-")
    assert r.procedures.shuffle_check and r.procedures.on_records
    # The scanner passes pack codes to the station as read, as it does badges.
    assert type(reader_codes(c.reader).classify("PK-8812A")).__name__ == "PassedCode"
    assert parse_config(tmp_path / "s.yaml", {"table": {"penetration": None}}).rules == (
        parse_config(tmp_path / "s.yaml", {}).rules)
    assert not TableRules().procedures.on_records
    assert TableRules(penetration=(0.5, 0.9)).procedures.on_records


def test_a_recording_header_carries_the_procedures_only_when_not_the_defaults(
        tmp_path: Path) -> None:
    assert "shuffle" not in header_line(TableRules()) and "pack" not in header_line(
        TableRules())
    rules = TableRules(shuffle_check="supervisor", shuffle_method="machine",
                       penetration=(0.6, 0.9), pack_prefix="PK-")
    path = tmp_path / "r.jsonl"
    path.write_text(header_line(rules) + "\n")
    assert read_recording(path).rules == rules


@pytest.mark.parametrize(("key", "value"), [("shuffle_check", "yes"), ("penetration", [1, 0]),
                                            ("pack_prefix", " "), ("shuffle_method", None)])
def test_a_recording_header_with_a_bad_procedure_key_is_refused(tmp_path: Path, key: str,
                                                                value: object) -> None:
    header: dict[str, Any] = json.loads(header_line(TableRules()))
    header["rules"][key] = value
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(header) + "\n")
    with pytest.raises(InputFileError, match=rf"rules\.{key}"):
        read_recording(path)
    done = subprocess.run([sys.executable, "-m", "station.cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr and key in done.stderr


def test_procedure_values_are_checked_exactly() -> None:
    assert procedure_value_problem("penetration", [0.5, 0.5]) is None
    assert procedure_value_problem("penetration", (0, 1)) is None
    assert procedure_value_problem("pack_prefix", "") is None
    assert procedure_value_problem("pack_prefix", "P" * 16) is None
    assert procedure_value_problem("shuffle_method", "manual") is None
    with pytest.raises(KeyError):
        procedure_value_problem("nonsense", 1)


# --- the vocabulary, word for word ------------------------------------------------------------
ONE_OF = "one of card_dropped, card_exposed, misdeal, dispute, equipment, other"


@pytest.mark.parametrize(("code", "note", "problem"), [
    (None, None, f"a pause needs a reason code: {ONE_OF}"),
    ("card_lost", None, f"unknown reason 'card_lost': {ONE_OF}"),
    ("x" * 60, None, f"unknown reason '{'x' * 39}: {ONE_OF}"),
    (5, None, f"unknown reason int: {ONE_OF}"),
    ("other", None, "reason other needs a note saying what happened"),
    ("dispute", "", f"a note is 1-{NOTE_MAX} printable characters"),
    ("dispute", 7, f"a note is 1-{NOTE_MAX} printable characters"),
    ("dispute", "n" * (NOTE_MAX + 1), f"a note is 1-{NOTE_MAX} printable characters"),
    ("dispute", "tab\there", f"a note is 1-{NOTE_MAX} printable characters"),
    ("dispute", "x", None), ("dispute", "n" * NOTE_MAX, None), ("other", "x", None),
    *((code, None, None) for code in PAUSE_CODES if code != "other"),
])
def test_pause_problems_word_for_word(code: object, note: object, problem: str | None) -> None:
    assert pause_problem(code, note) == problem


def test_pause_reasons_word_for_word() -> None:
    assert pause_reason("card_dropped", None) == "held by the dealer: card dropped"
    assert pause_reason("equipment", "lamp") == "held by the dealer: equipment problem (lamp)"


def test_pack_codes() -> None:
    assert pack_of("PK-8812A", "PK-") == "8812A"
    assert pack_of("PK-8812A ", "PK-") == "8812A"
    assert pack_of("PK-", "PK-") is None
    assert pack_of("PK-a b", "PK-") is None
    assert pack_of("PK-" + "x" * 33, "PK-") is None
    assert pack_of("XX-8812A", "PK-") is None
    assert pack_of("PK-8812A", "") is None


def test_penetration_and_band_words() -> None:
    assert penetration(5, 1) == 0.0962 and penetration(208, 8) == 0.5
    assert penetration(400, 8) == 0.9615
    assert band_text((0.6, 0.85)) == "0.6-0.85"
