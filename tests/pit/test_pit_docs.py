"""docs/pit.md stays true: every config key the pit reads is in its table, the journal's
tables are the ones it lists, and its API examples have the contract's fields."""

from __future__ import annotations

import json
import re

from station.services.pit.config import PIT_KEYS
from station.services.pit.journal import SCHEMA
from tests.conftest import REPO

DOC = (REPO / "docs" / "pit.md").read_text(encoding="utf-8")
TILE = {"table", "online", "phase", "shoe", "round", "dealer", "mode", "last_result",
        "penetration", "cut_card_out", "lag_s", "clock", "pause", "open_alerts", "needs",
        "notes", "last_seen", "offline_since", "stale"}
ALERT = {"id", "table", "kind", "detail", "by", "raised_at", "acked_by", "acked_at",
         "cleared_at"}


def test_every_key_is_documented() -> None:
    rows = DOC.split("## PIT.yaml", 1)[1].split("## The tables' side", 1)[0]
    for key in PIT_KEYS:
        assert f"`pit.{key}`" in rows, f"pit.{key}"
    # broker: and tables: are every service's: one table of them in configuration.md
    # (tests/cli/test_config_docs.py holds it to the parser).
    assert "configuration.md#broker-and-tables-station-pit-station-archive" in rows


def test_the_journal_tables_are_the_documented_ones() -> None:
    made = set(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA))
    part = DOC.split("## The pit's journal", 1)[1].split("## Operations", 1)[0]
    listed = set(re.findall(r"^\| `(\w+)` \|", part, re.M))
    assert made == listed


def test_the_examples_have_the_contract_fields() -> None:
    examples = [json.loads(x) for x in re.findall(r"^(\{.*\})$", DOC, re.M)]
    tables = next(x for x in examples if "tables" in x)
    assert set(tables["tables"][0]) == TILE
    assert set(tables["broker"]) == {"connected", "lost_since", "stale_after_s", "stale"}
    alerts = next(x for x in examples if "alerts" in x)
    assert set(alerts["alerts"][0]) == ALERT
    command = next(x for x in examples if "command" in x)
    assert set(command["command"]) == {"id", "table", "action", "by", "state", "detail",
                                        "after_s"}
    signed = next(x for x in examples if "sig" in x)
    assert set(signed) == {"v", "id", "table", "action", "ts", "actor", "sig"}


def test_the_statistics_routes_bounds_are_the_documented_ones() -> None:
    from station.services.pit.statsroute import MAX_DAYS, RETRY_S, SHIFT_HOURS  # noqa: PLC0415

    part = DOC.split("### `GET /api/stats` and `GET /api/stats.csv`", 1)[1].split("\n### ", 1)[0]
    assert f"at most **{MAX_DAYS} days**" in part
    assert f"`from` to {SHIFT_HOURS} hours before `to`" in part
    assert f"`Retry-After: {RETRY_S}`" in part and f"ask again in {RETRY_S} s" in part
    # Every link to a section of this page names one that exists.
    anchors = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-")
               for h in re.findall(r"^#+ (.+)$", DOC, re.M)}
    for link in re.findall(r"\]\(#([\w-]+)\)", DOC):
        assert link in anchors, link


def test_every_need_is_documented() -> None:
    # The alert kinds' table is held to their declarations by tests/upstream/test_declarations.py.
    from station.services.pit.views import NEEDS  # noqa: PLC0415

    needs = DOC.split("`needs` is what the table needs someone for", 1)[1].split("\n\n", 2)[1]
    assert re.findall(r"^\| `(\w+)` \|", needs, re.M) == list(NEEDS)
