"""station.services.pit.stats on cases small enough to work out by hand (docs/pit.md,
Statistics)."""

from __future__ import annotations

from typing import Any

import pytest

from station.services.pit.stats import NO_DEALER, compute, csv_header, csv_rows, reason_of
from tests.pit.statskit import Script, at

NOT_DUE = "card not due: 3S (extra card: the round is over)"
MISDEAL = "held by the dealer: misdeal"
LOST = "sim-shoe lost (no answer)"


def shift() -> Script:
    """Dealer A from 0, B from 200; a table closed from 300 to 2000; a pause still open."""
    s = Script("t1")
    s.dealer(0, "A", None, "sign_in")
    s.round(10, 40, 1, "A")
    s.round(50, 80, 2, "A")
    s.open_round(85, 3)
    s.pause(90, NOT_DUE, n=3)
    s.pause(95, NOT_DUE + "; card not due: 4H (extra card: the round is over)", n=3)
    s.resume(150, n=3)
    s.result(170, 3, "A")
    s.dealer(200, "B", "A")
    s.round(210, 240, 4, "B")
    s.open_round(250, 5)
    s.pause(260, MISDEAL, code="misdeal", n=5)
    s.result(300, 5, "B", void_reason=MISDEAL)
    s.round(2000, 2030, 6, "B")
    s.open_round(2040, 7)
    s.pause(2050, LOST, n=7)
    return s


def by(result: dict[str, Any], part: str, name: str | None) -> dict[str, Any]:
    key = "table" if part == "tables" else "dealer"
    found = [g for g in result[part] if g[key] == name]
    assert len(found) == 1, result[part]
    group: dict[str, Any] = found[0]
    return group


def reasons(group: dict[str, Any]) -> dict[tuple[str, str], tuple[int, float, int]]:
    return {(r["raised"], r["reason"]): (r["pauses"], r["paused_s"], r["voids"])
            for r in group["reasons"]}


def test_a_shift_worked_out_by_hand() -> None:
    r = compute(shift().rows(), at(0), at(3000))
    t = by(r, "tables", "t1")
    # Rounds 1-6 (7 never finished); stints 10-300 and 2000-2030 (the gap is over 15 min).
    assert (t["rounds"], t["complete"], t["void"]) == (6, 5, 1)
    assert t["dealing_s"] == 320.0
    assert t["rounds_per_hour"] == 67.5
    # Three pauses: 90-150, 260-300 (the void ended it), 2050 to the period's end.
    assert (t["pauses"], t["paused_s"], t["voids"]) == (3, 60 + 40 + 950, 1)
    assert reasons(t) == {("station", "not_due"): (1, 60.0, 0),
                          ("dealer", "misdeal"): (1, 40.0, 1),
                          ("station", "device_lost"): (1, 950.0, 0)}
    a, b = by(r, "dealers", "A"), by(r, "dealers", "B")
    assert (a["rounds"], a["dealing_s"], a["rounds_per_hour"]) == (3, 160.0, 67.5)
    assert reasons(a) == {("station", "not_due"): (1, 60.0, 0)}
    # B: 210-300, then 2000-2030 after the table was closed.
    assert (b["rounds"], b["void"], b["dealing_s"], b["rounds_per_hour"]) == (3, 1, 120.0, 90.0)
    assert reasons(b) == {("dealer", "misdeal"): (1, 40.0, 1),
                          ("station", "device_lost"): (1, 950.0, 0)}
    assert b["tables"] == ["t1"]
    assert r["skipped"] == 0


def test_the_period_clips_rounds_pauses_and_stints() -> None:
    r = compute(shift().rows(), at(100), at(2060))
    t = by(r, "tables", "t1")
    # Round 3 opened at 85: its stint starts at the period's start.
    assert (t["rounds"], t["dealing_s"]) == (4, 200.0 + 30.0)
    # The pause from 90 counts 100-150 of its time but not as a pause of the period.
    assert (t["pauses"], t["paused_s"]) == (2, 50 + 40 + 10)
    assert reasons(t)[("station", "not_due")] == (0, 50.0, 0)


def test_a_pause_still_open_counts_up_to_now() -> None:
    r = compute(shift().rows(), at(1000), at(2500), now=at(2055))
    t = by(r, "tables", "t1")
    assert (t["rounds"], t["dealing_s"], t["rounds_per_hour"]) == (1, 30.0, 120.0)
    assert (t["pauses"], t["paused_s"]) == (1, 5.0)
    assert r["until"] == "2026-01-01T00:34:15.000Z"


def test_a_period_with_nothing_in_it() -> None:
    r = compute(shift().rows(), at(400), at(1900))
    assert r["tables"] == [] and r["dealers"] == []


def test_a_pause_before_anyone_is_named_is_the_dealer_named_next() -> None:
    """The pit started mid-shift: the dealer a pause belongs to is who the next dealer
    message says was there, or the dealer of the next round."""
    x = Script("tx")
    x.pause(5, LOST)
    x.resume(20)
    x.dealer(30, "Y", "X")
    z = Script("tz")
    z.pause(5, LOST)
    z.resume(20)
    z.round(30, 40, 1, "Z")
    old = Script("to")  # records from before dealers existed: no dealer field
    old.pause(5, LOST)
    old.resume(20)
    old.round(30, 40, 1, None, with_dealer=False)
    r = compute(x.rows() + z.rows() + old.rows(), at(0), at(100))
    assert by(r, "dealers", "X")["pauses"] == 1
    assert by(r, "dealers", "Z")["pauses"] == 1
    nobody = by(r, "dealers", None)
    assert (nobody["pauses"], nobody["rounds"], nobody["tables"]) == (1, 1, ["to"])
    assert [g["dealer"] for g in r["dealers"]] == ["X", "Z", None]


def test_a_void_between_rounds_ends_the_pause_at_its_status() -> None:
    s = Script()
    s.pause(10, "unreadable code '?' from sim-shoe: not a card (no card is due)")
    s.status(70, "between_rounds", None, None)  # voided: no round, no resume
    s.status(80, "betting_open", None, 1)
    t = by(compute(s.rows(), at(0), at(1000)), "tables", "t1")
    assert (t["pauses"], t["paused_s"]) == (1, 60.0)
    assert reasons(t) == {("station", "unreadable"): (1, 60.0, 0)}


def test_a_pause_seen_only_in_a_status_still_counts() -> None:
    s = Script()
    s.status(10, "paused", "station restarted mid-round", 1)
    s.resume(40, 1)
    t = by(compute(s.rows(), at(0), at(100)), "tables", "t1")
    assert reasons(t) == {("station", "restart"): (1, 30.0, 0)}


def test_a_void_with_no_pause() -> None:
    s = Script()
    s.round(10, 20, 1, "A", void_reason="voided by supervisor")
    t = by(compute(s.rows(), at(0), at(100)), "tables", "t1")
    assert (t["voids"], t["pauses"]) == (1, 0)
    assert reasons(t) == {("supervisor", "voided_by_supervisor"): (0, 0.0, 1)}


def test_statuses_out_of_seq_order_are_counted_not_fatal() -> None:
    rows = shift().rows()
    rows.insert(0, rows.pop(5))
    r = compute(rows, at(0), at(3000))
    assert r["out_of_order"] == 1
    assert by(r, "tables", "t1")["rounds"] == 6


@pytest.mark.parametrize(("text", "expected"), [
    (MISDEAL, ("dealer", "misdeal")),
    # A void's reasons: the dealer's pause, then a fault while it was on.
    (MISDEAL + "; card not due: 3S (the table is paused)", ("dealer", "misdeal")),
    ("held by the dealer: other (the lamp over the shoe went out; card not due)",
     ("dealer", "other")),
    ("held by the dealer: equipment problem", ("dealer", "equipment")),
    ("held by the dealer: card dropped", ("dealer", "card_dropped")),
    (NOT_DUE + "; sim-shoe lost (no answer)", ("station", "not_due")),
    ("unreadable code 'a; b' from sim-shoe: not a card; 3 more not shown", ("station",
                                                                            "unreadable")),
    ("AS would be copy 9 in a 8-deck shoe: foreign card or misread", ("station",
                                                                      "beyond_shoe")),
    ("repeated shoe: the first 60 cards after the burn of s2 match shoe s1 in order (60 of 60)",
     ("station", "repeated_shoe")),
    ("cut card came out during the burn: the shoe can give one more round",
     ("station", "cut_card")),
    ("sim-shoe sends noise: more than 20 bad codes within 1 s", ("station", "noise")),
    ("voided by supervisor", ("supervisor", "voided_by_supervisor")),
    ("something new", ("station", "other")),
])
def test_reasons_are_grouped_by_what_caused_the_pause(text: str,
                                                      expected: tuple[str, str]) -> None:
    assert reason_of(text) == expected


def test_rows_that_cannot_be_read_change_nothing() -> None:
    rows = shift().rows()
    bad: list[tuple[Any, ...]] = [
        ("t1", "round", 900, "x", "not json"),
        ("t1", "round", 901, "x", '{"ts": "yesterday", "status": "complete"}'),
        ("t1", "round", 902, "x", '{"ts": "2026-01-01T00:10:00Z", "status": "won"}'),
        ("t1", "dealer", 903, "x", '{"ts": "2026-01-01T00:10:00Z", "dealer": 5}'),
        ("t1", "pause", 904, "x", "[1, 2]"),
        (7, "pause", 905, "x", "{}"),
        ("t1", "status", None, "x", "{}"),  # a presence status: passed over, not an error
    ]
    r = compute(rows + bad, at(0), at(3000))
    assert r["skipped"] == 6
    assert r["tables"] == compute(rows, at(0), at(3000))["tables"]


def test_csv_rows_by_table_and_by_dealer() -> None:
    r = compute(shift().rows(), at(0), at(3000))
    head = csv_header("table")
    rows = [dict(zip(head, row, strict=True)) for row in csv_rows(r, "table")]
    assert [(x["table"], x["raised"], x["reason"]) for x in rows] == [
        ("t1", "all", "all"), ("t1", "dealer", "misdeal"), ("t1", "station", "device_lost"),
        ("t1", "station", "not_due")]
    assert rows[0]["rounds_per_hour"] == "67.5" and rows[0]["paused_s"] == "1050"
    assert rows[1]["rounds"] == "" and rows[1]["voids"] == "1"
    head = csv_header("dealer")
    rows = [dict(zip(head, row, strict=True)) for row in csv_rows(r, "dealer")]
    assert {x["dealer"] for x in rows} == {"A", "B"}
    assert rows[0]["from"] == "2026-01-01T00:00:00.000Z"
    s = Script()
    s.round(10, 20, 1, None)
    lines = csv_rows(compute(s.rows(), at(0), at(100)), "dealer")
    assert lines[0][2:4] == [NO_DEALER, "t1"]


def test_a_bad_period_is_refused() -> None:
    with pytest.raises(ValueError, match="before"):
        compute([], at(10), at(10))
    with pytest.raises(ValueError, match="time zone"):
        compute([], at(0).replace(tzinfo=None), at(10))
    with pytest.raises(ValueError, match="table or dealer"):
        csv_rows(compute([], at(0), at(10)), "shoe")
