"""docs/pit.md stays true: every config key the pit reads is in its table, the journal's
tables are the ones it lists, and its API examples have the contract's fields."""

from __future__ import annotations

import json
import re

from station.pit.config import BROKER_KEYS, PIT_KEYS, TABLES_KEYS
from station.pit.journal import SCHEMA
from tests.conftest import REPO

DOC = (REPO / "docs" / "pit.md").read_text(encoding="utf-8")
TILE = {"table", "online", "phase", "shoe", "round", "dealer", "mode", "last_result",
        "penetration", "cut_card_out", "lag_s", "clock", "pause", "open_alerts", "needs",
        "last_seen"}
ALERT = {"id", "table", "kind", "detail", "by", "raised_at", "acked_by", "acked_at",
         "cleared_at"}


def test_every_key_is_documented() -> None:
    rows = DOC.split("## PIT.yaml", 1)[1].split("## The tables' side", 1)[0]
    for section, keys in (("broker", BROKER_KEYS), ("tables", TABLES_KEYS),
                          ("pit", PIT_KEYS)):
        for key in keys:
            assert f"`{section}.{key}`" in rows, f"{section}.{key}"


def test_the_journal_tables_are_the_documented_ones() -> None:
    made = set(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA))
    part = DOC.split("## The pit's journal", 1)[1].split("## Operations", 1)[0]
    listed = set(re.findall(r"^\| `(\w+)` \|", part, re.M))
    assert made == listed


def test_the_examples_have_the_contract_fields() -> None:
    examples = [json.loads(x) for x in re.findall(r"^(\{.*\})$", DOC, re.M)]
    tables = next(x for x in examples if "tables" in x)
    assert set(tables["tables"][0]) == TILE
    alerts = next(x for x in examples if "alerts" in x)
    assert set(alerts["alerts"][0]) == ALERT
    command = next(x for x in examples if "command" in x)
    assert set(command["command"]) == {"id", "table", "action", "by", "state", "detail"}
    signed = next(x for x in examples if "sig" in x)
    assert set(signed) == {"v", "id", "table", "action", "ts", "actor", "sig"}
