"""station.services.pit.stats over real stations' streams (``station simulate --messages`` with
faults, dealer changes, resumes and voids), against what the messages themselves say, and
its properties under hypothesis: counts add up over a split period, time is clipped to the
period, the interleaving of tables does not matter."""

from __future__ import annotations

import heapq
import itertools
import random
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.services.pit.stats import compute, csv_header, csv_rows, reason_of
from tests.conftest import REPO
from tests.pit.statskit import FAULTS, applied_order, at, rows_of, simulate
from tests.sampling import examples

END = 3 * 3600.0  # after every simulated message


@pytest.fixture(scope="module")
def streams(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("streams")
    return {
        "t7": [orjson.loads(p) for p in simulate(tmp, table="t7", seed=3, faults=FAULTS)],
        "t8": [orjson.loads(p) for p in simulate(tmp, table="t8", seed=4, faults=FAULTS,
                                                 supervisor="void")],
    }


class Rows(list[tuple[Any, ...]]):
    def __repr__(self) -> str:  # hypothesis prints its arguments: not 7,000 rows
        return f"<{len(self)} rows>"


@pytest.fixture(scope="module")
def rows(streams: dict[str, list[dict[str, Any]]]) -> Rows:
    # As the pit applies them (statuses late), then each table in seq order, as report.py
    # reads them.
    out = applied_order(rows_of(streams["t7"])) + applied_order(rows_of(streams["t8"]))
    return Rows(sorted(out, key=lambda r: (r[0], r[2] or 0)))


def ts(msg: dict[str, Any]) -> float:
    return at(0).fromisoformat(msg["ts"]).timestamp() - at(0).timestamp()


def test_the_figures_are_what_the_messages_say(streams: dict[str, list[dict[str, Any]]],
                                               rows: list[tuple[Any, ...]]) -> None:
    r = compute(rows, at(0), at(END))
    assert r["skipped"] == 0 and r["out_of_order"] == 0
    for table, msgs in streams.items():
        t = next(g for g in r["tables"] if g["table"] == table)
        rounds = [m for m in msgs if m["kind"] == "round"]
        by_status = Counter(m["status"] for m in rounds)
        assert (t["complete"], t["void"]) == (by_status["complete"], by_status["void"])
        # Every pause is in its shoe's integrity report, with its reasons: the station's
        # own account, made apart from the messages this folds.
        reported = [p for m in msgs if m["kind"] == "shoe_report" for p in m["pauses"]]
        assert t["pauses"] == len(reported) > 0
        kinds = Counter(reason_of(p["reasons"][0]) for p in reported)
        assert {(x["raised"], x["reason"]): x["pauses"] for x in t["reasons"]
                if x["pauses"]} == dict(kinds)
        voids = Counter(reason_of(m["void_reason"]) for m in rounds if m["status"] == "void")
        assert {(x["raised"], x["reason"]): x["voids"] for x in t["reasons"]
                if x["voids"]} == dict(voids)
        dealers = Counter(m["dealer"] for m in rounds)
        for d, n in dealers.items():
            g = next(g for g in r["dealers"] if g["dealer"] == d)
            assert table in g["tables"] and g["rounds"] >= n
        assert set(dealers) == {"D042", "D043"}
        # At the simulation's default pace, well over a round a minute and under one in 10 s.
        assert 60 < t["rounds_per_hour"] < 360
    voided = next(g for g in r["tables"] if g["table"] == "t8")
    assert voided["void"] > 0


def test_the_dealers_add_up_to_the_tables(rows: list[tuple[Any, ...]]) -> None:
    r = compute(rows, at(0), at(END))
    for field in ("rounds", "complete", "void", "pauses", "voids"):
        assert sum(g[field] for g in r["dealers"]) == sum(g[field] for g in r["tables"])
    assert sum(g["paused_s"] for g in r["dealers"]) == pytest.approx(
        sum(g["paused_s"] for g in r["tables"]))
    # A dealer's stints are parts of the table's: the dealer changes between shoes.
    assert 0 < sum(g["dealing_s"] for g in r["dealers"]) <= sum(
        g["dealing_s"] for g in r["tables"])


@settings(max_examples=examples(60), deadline=None)
@given(a=st.integers(0, int(END * 1000)), b=st.integers(0, int(END * 1000)),
       c=st.integers(0, int(END * 1000)))
def test_counts_add_up_over_a_split_period(rows: Rows, a: int, b: int, c: int) -> None:
    lo, mid, hi = (x / 1000 for x in sorted((a, b, c)))
    if not lo < mid < hi:
        return
    whole = compute(rows, at(lo), at(hi))
    parts = [compute(rows, at(lo), at(mid)), compute(rows, at(mid), at(hi))]
    for part in ("tables", "dealers"):
        key = "table" if part == "tables" else "dealer"
        for g in whole[part]:
            pieces = [x for p in parts for x in p[part] if x[key] == g[key]]
            for field in ("rounds", "complete", "void", "pauses", "voids"):
                assert g[field] == sum(x[field] for x in pieces)
            assert g["paused_s"] == pytest.approx(sum(x["paused_s"] for x in pieces),
                                                  abs=0.01)
            # Clipped to the period: never more time than it has.
            assert g["paused_s"] <= hi - lo + 0.001
            if part == "tables":
                assert g["dealing_s"] <= hi - lo + 0.001


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2**32))
def test_the_interleaving_of_tables_does_not_matter(rows: Rows, seed: int) -> None:
    rng = random.Random(seed)
    queues = {t: [r for r in rows if r[0] == t] for t in ("t7", "t8")}
    mixed: list[tuple[Any, ...]] = []
    while any(queues.values()):
        t = rng.choice([t for t, q in queues.items() if q])
        mixed.append(queues[t].pop(0))
    assert compute(mixed, at(0), at(END)) == compute(rows, at(0), at(END))


def test_parsed_and_unparsed_bodies_give_the_same(rows: list[tuple[Any, ...]]) -> None:
    parsed = [(*r[:4], orjson.loads(r[4])) for r in rows]
    as_bytes = [(*r[:4], r[4].encode()) for r in rows]
    expected = compute(rows, at(0), at(END))
    assert compute(parsed, at(0), at(END)) == expected
    assert compute(as_bytes, at(0), at(END)) == expected


def documented_examples() -> list[list[str]]:
    """The CSV lines of docs/pit.md's example of the statistics (its ```csv blocks)."""
    text = (REPO / "docs" / "pit.md").read_text(encoding="utf-8")
    text = text.split("\n## Statistics\n", 1)[1].split("\n## ", 1)[0]
    return [block.split("```", 1)[0].splitlines() for block in text.split("```csv\n")[1:]]


def test_the_example_of_the_docs_is_a_real_run(tmp_path: Path) -> None:
    """docs/pit.md's example of the statistics is this very run's CSV: the first simulated
    hour of t7 (resumes) and t8 (voids), by table and by dealer."""
    rows = (rows_of(simulate(tmp_path, table="t7", seed=3, faults=FAULTS))
            + rows_of(simulate(tmp_path, table="t8", seed=4, faults=FAULTS,
                               supervisor="void")))
    r = compute(rows, at(0), at(3600))
    assert documented_examples() == [
        [",".join(csv_header(by))] + [",".join(row) for row in csv_rows(r, by)]
        for by in ("table", "dealer")]


def test_rows_in_the_order_the_pit_applied_them(streams: dict[str, list[dict[str, Any]]],
                                                rows: Rows) -> None:
    """The seen table's own order: statuses late against events (another topic), tables
    interleaved by time. Each table's two streams are merged back into seq order."""
    t7 = applied_order(rows_of(streams["t7"]), lag=5)
    assert any(a[2] > b[2] for a, b in itertools.pairwise(t7) if a[2] and b[2])
    # (heapq.merge keeps each table's own order)
    applied = list(heapq.merge(t7, applied_order(rows_of(streams["t8"]), lag=2),
                               key=lambda r: r[3]))
    r = compute(applied, at(0), at(END))
    assert r["out_of_order"] == 0
    assert r == compute(rows, at(0), at(END))


def test_a_table_whose_statuses_never_came(rows: Rows) -> None:
    events = [r for r in rows if r[1] != "status"]
    r = compute(events, at(0), at(END))
    assert r["out_of_order"] == 0
    expected = compute(rows, at(0), at(END))
    assert [g["rounds"] for g in r["tables"]] == [g["rounds"] for g in expected["tables"]]
