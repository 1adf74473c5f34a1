"""Shoe integrity (issue 11): the report at every shoe's end and the repeated-shoe alarm."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from math import comb
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.events import InputEvent
from drivers.simulated import CUT, Fault, SimulatedDealer, random_shoes, shuffled_shoe
from station.errors import ConfigError, InputFileError
from station.game.cards import ALL_CARDS, parse_card
from station.game.shoe import ShoeCounts
from station.journal import Journal
from station.journal.recovery import recover
from station.live.config import parse_config
from station.table.integrity import (
    REPEAT_ACTION,
    Pause,
    RepeatWatch,
    ShoeLog,
    false_alarm_bound,
    lcs_length,
    multiset_bits,
    position_masks,
    shoe_report,
)
from station.table.outputs import Announced, Output, Published
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules
from station.wire import messages as m
from station.wire.observe import Snapshot, build, changes
from station.wire.recording import Recorder, read_recording
from tests.sampling import examples
from tests.tablekit import Table

T0 = 1_800_000_000.0


def reports(outputs: list[Output]) -> list[dict[str, Any]]:
    return [o.message for o in outputs
            if isinstance(o, Announced) and o.message["type"] == "shoe_report"]


# --- the report -----------------------------------------------------------------------------
def test_the_report_of_a_hand_built_shoe() -> None:
    """Every field of a report, by hand: a 1-deck shoe with a burn of 2, a complete round, a
    card not due voided, a round voided mid-deal, then the dealer ends the shoe."""
    t = Table(decks=1)
    t.new_shoe(("2H", "5C", "6C"))                  # 3 burned
    t.round("2S", "3D", "4C", "5H")                   # banker 8: natural; 4 dealt
    t.card("9S")                                      # not due: a stray
    t.cmd("void", "supervisor:ann")                   # cleared: discarded
    t.cmd("open_betting")
    t.cmd("close_betting")
    t.cards("AS", "AD")
    t.lost()                                          # paused mid-round
    t.restored()
    t.cmd("void", "supervisor:bob")                   # the round's 2 cards: discarded
    t.cmd("end_shoe")
    (r,) = reports(t.outputs)
    shoe = r["shoe"]
    assert r["key"] == f"{shoe}:shoe_report"
    assert (r["decks"], r["cards"], r["dealt"], r["burned"], r["discarded"], r["set_aside"],
            r["on_table"], r["left"]) == (1, 52, 4, 3, 3, 0, 0, 42)
    assert r["ranks"]["A"] == {"seen": 2, "full": 4, "left": 2}
    assert r["ranks"]["2"] == {"seen": 2, "full": 4, "left": 2}
    assert r["ranks"]["5"] == {"seen": 2, "full": 4, "left": 2}
    assert r["ranks"]["K"] == {"seen": 0, "full": 4, "left": 4}
    assert sum(v["seen"] for v in r["ranks"].values()) == 52 - r["left"]
    assert r["anomalies"] == []
    assert r["rounds"] == {"complete": 1, "void": 1}
    assert [(p["reasons"], p["cleared"], p["by"]) for p in r["pauses"]] == [
        (["card not due: 9S (extra card: a natural, no third cards)"], "void", "supervisor:ann"),
        (["scanner lost (port vanished)"], "void", "supervisor:bob"),
    ]
    assert r["started"] == m.iso_ts(T0 + 1.0)
    assert r["ended"] == m.iso_ts(t.now)
    assert r["duration_s"] == round(t.now - (T0 + 1.0), 3)


def test_anomalies_and_the_unclassed_cards_are_reported_not_assumed() -> None:
    counts = ShoeCounts("s", 1)
    card = parse_card("QH")
    counts.counts[card.index] = 2  # more than a 1-deck shoe holds: cannot happen, reported
    counts.stray.append(card)
    counts.held.append(card)
    r = shoe_report(ShoeLog("s", T0), counts, T0 + 2.5, on_table=1)
    assert r["anomalies"] == [{"card": "QH", "seen": 2, "full": 1}]
    assert (r["set_aside"], r["on_table"], r["left"]) == (2, 1, 50)
    assert r["ranks"]["Q"] == {"seen": 2, "full": 4, "left": 2}
    assert r["rounds"] == {"complete": 0, "void": 0} and r["pauses"] == []


def test_other_round_statuses_are_counted_under_their_own_name() -> None:
    log = ShoeLog("s", T0, rounds={"complete": 3, "skipped": 2})
    r = shoe_report(log, ShoeCounts("s", 8), T0)
    assert r["rounds"] == {"complete": 3, "void": 0, "skipped": 2}
    assert r["on_table"] == 0 and r["left"] == 416


def test_times_are_utc_to_the_millisecond() -> None:
    r = shoe_report(ShoeLog("s", 1_767_225_600.0), ShoeCounts("s", 8), 1_767_225_602.0126)
    assert (r["started"], r["ended"], r["duration_s"]) == (
        "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:02.013Z", 2.013)


def _cut_shoe(t: Table) -> None:
    t.new_shoe()
    t.round("2S", "3D", "4C", "5H")
    t.cut()
    t.round("2S", "3D", "4C", "5H")


@pytest.mark.parametrize("how", ["cut_card", "end_shoe", "void_burn", "cut_close_shoe"])
def test_one_report_at_every_shoe_end_and_upstream(how: str) -> None:
    t = Table(cut_card_between_rounds="close_shoe" if how == "cut_close_shoe" else
              "next_round_last")
    events_before = 0
    if how == "cut_card":
        _cut_shoe(t)
    elif how == "end_shoe":
        t.new_shoe()
        t.round("2S", "3D", "4C", "5H")
        events_before = len(t.events)
        t.cmd("end_shoe")
    elif how == "void_burn":
        t.cmd("new_shoe")
        t.card("5S")
        t.card("ZZ")  # unreadable in the burn: paused
        t.cmd("void", "supervisor:ann")  # abandons the shoe
    else:
        t.new_shoe()
        t.round("2S", "3D", "4C", "5H")
        t.cut()
    assert t.phase == "shoe_closed"
    (r,) = reports(t.outputs)
    assert not reports(t.outputs[:events_before])
    assert r["rounds"] == {"complete": {"cut_card": 2, "end_shoe": 1, "void_burn": 0,
                                        "cut_close_shoe": 1}[how], "void": 0}
    # The same events through the upstream mapping: one shoe_report message, keyed by shoe.
    station = Station(t.station.rules)
    sent: list[dict[str, Any]] = []
    for event in t.events:
        before = Snapshot.of(station)
        out = station.apply(event)
        for kind, args in changes(before, Snapshot.of(station), event, out, 8):
            sent.append(build(kind, args, table="table-1", seq=len(sent) + 1))
    (msg,) = [s for s in sent if s["kind"] == m.SHOE_REPORT]
    assert msg["key"] == f"{r['shoe']}:shoe_report" and msg["left"] == r["left"]
    assert "type" not in msg
    assert [s["kind"] for s in sent].index(m.SHOE_REPORT) < [s["kind"] for s in sent].index(
        m.SHOE_ENDED)


def test_a_new_shoe_over_an_unfinished_one_reports_it_first() -> None:
    """Today's machine only starts a shoe over a closed one; the station still reports a
    shoe it never saw close (a later path to a new shoe) with its cards on the table."""
    t = Table()
    t.new_shoe()
    t.round("2S", "3D", "4C", "5H")
    t.cmd("open_betting")
    t.cmd("close_betting")
    t.cards("9D")
    st_ = t.station
    old = st_.dealing.shoe
    assert old is not None
    # Cards in every class, so each is taken out of what was on the table.
    for code, where in (("2H", old.stray), ("3H", old.held), ("4H", old.discarded)):
        old.take(parse_card(code))
        where.append(parse_card(code))
    # Start the next shoe the way a future path would: the machine's own callback.
    st_.dealing.start_shoe("table-1-next")
    out = t.cmd("open_betting")  # a shoe starts on a command: the station notices then
    (r,) = reports(out)
    assert old is not None and r["shoe"] == old.shoe_id
    assert (r["dealt"], r["set_aside"], r["discarded"], r["on_table"], r["left"]) == (
        4, 2, 1, 1, 416 - 2 - 4 - 1 - 3)


def test_an_open_round_of_the_shoe_in_play_is_on_the_table() -> None:
    """No path of today's machine ends a shoe mid-round; the report still counts such cards
    (the report is built directly here)."""
    t = Table()
    t.new_shoe()
    t.cmd("open_betting")
    t.cmd("close_betting")
    t.cards("2S", "3D", "4C")
    out: list[Output] = []
    t.station.integrity._report(t.now, t.station.dealing, out)
    (r,) = reports(out)
    assert (r["on_table"], r["left"]) == (3, 416 - 2 - 3)


# --- the measure ------------------------------------------------------------------------------
def _lcs_dp(a: list[int], b: list[int]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=40),
       st.lists(st.integers(0, 5), max_size=40))
def test_the_bit_parallel_lcs_is_the_lcs(a: list[int], b: list[int]) -> None:
    assert lcs_length(position_masks(a), len(a), b) == _lcs_dp(a, b)


def _fresh(rng: random.Random, decks: int = 8, n: int = 30) -> list[int]:
    cards = list(range(52)) * decks
    rng.shuffle(cards)
    return cards[:n]


def _watch_with(seq: list[int], **kw: int) -> RepeatWatch:
    w = RepeatWatch(**kw)
    w.begin("first")
    for c in seq:
        w.add(c)
    w.begin("second")
    return w


def _feed(w: RepeatWatch, seq: list[int]) -> Any:
    found = None
    for i, c in enumerate(seq):
        assert found is None, f"answered before card {i}"
        found = w.add(c)
    return found


def test_the_same_order_is_a_repeat_of_every_card() -> None:
    seq = _fresh(random.Random(1))
    found = _feed(_watch_with(seq), seq)
    assert (found.shoe, found.score, found.cards) == ("first", 30, 30)


@pytest.mark.parametrize("changes_", [1, 5, 10])
def test_swaps_shifts_and_replacements_up_to_the_threshold_still_repeat(changes_: int) -> None:
    """Each change costs the score at most one: 10 changes of 30 leave at least 20."""
    rng = random.Random(changes_)
    for kind in ("swap", "shift", "replace"):
        seq = _fresh(rng)
        other = list(seq)
        for _ in range(changes_):
            i = rng.randrange(29)
            if kind == "swap":
                other[i], other[i + 1] = other[i + 1], other[i]
            elif kind == "shift":
                other.insert(rng.randrange(30), other.pop(i))
            else:
                other[i] = (other[i] + 1 + rng.randrange(51)) % 52
        found = _feed(_watch_with(seq), other)
        assert found is not None and found.score >= 30 - changes_, kind


def test_a_score_under_the_threshold_is_not_a_repeat() -> None:
    seq = _fresh(random.Random(7))
    other = list(seq)
    for i in range(0, 30, 3):  # 10 cards replaced by cards absent from the first 30
        other[i] = next(c for c in range(52) if c not in seq)
    assert lcs_length(position_masks(seq), 30, other) == 20
    assert _feed(_watch_with(seq), other).score == 20
    assert _feed(_watch_with(seq, threshold=21), other) is None


def test_the_best_and_most_recent_earlier_shoe_is_named() -> None:
    rng = random.Random(3)
    seq = _fresh(rng)
    w = RepeatWatch()
    for name in ("a", "b", "c"):
        w.begin(name)
        _feed(w, seq if name != "c" else _fresh(rng))
    w.begin("d")
    found = _feed(w, seq)
    assert (found.shoe, found.score) == ("b", 30)


def test_only_the_last_history_shoes_are_compared_and_a_short_shoe_is_not_kept() -> None:
    rng = random.Random(4)
    seq = _fresh(rng)
    w = RepeatWatch(history=2)
    w.begin("old")
    _feed(w, seq)
    for name in ("x", "y"):
        w.begin(name)
        _feed(w, _fresh(rng))
    w.begin("short")
    for c in seq[:29]:
        w.add(c)
    w.begin("new")
    assert _feed(w, seq) is None  # "old" has left the history; "short" was never kept
    assert [k.shoe for k in w.kept] == ["y", "new"]


def test_never_on_ten_thousand_fresh_eight_deck_shoes() -> None:
    """Seeded: 10,000 shoes shuffled as the simulated table shuffles, their burns taken as a
    dealer takes them, each compared with the 100 before it. The bound skips nearly all."""
    rng = random.Random(20261201)
    w = RepeatWatch()
    for n in range(10_000):
        tokens = [x for x in shuffled_shoe(rng) if x != CUT]
        burn = 1 + parse_card(tokens[0]).burn_count
        w.begin(f"s{n}")
        found = _feed(w, [parse_card(c).index for c in tokens[burn:burn + 30]])
        assert found is None, (n, found)
    assert w.lcs_computed < 10_000 * 100 // 1000


def test_the_documented_false_alarm_bound() -> None:
    """The figure in docs/integrity.md, and the formula by hand: C(30,20)^2 (8/376)^20."""
    assert false_alarm_bound() == pytest.approx(comb(30, 20) ** 2 * (8 / 376) ** 20,
                                                rel=1e-12)
    assert f"{false_alarm_bound():.2g}" == "3.3e-19"
    assert false_alarm_bound(20, 10, decks=1) == pytest.approx(
        comb(20, 10) ** 2 * (1 / (52 - 11 - 19)) ** 10, rel=1e-12)


# --- through the station ------------------------------------------------------------------------
def _deal(station: Station, tokens: list[str], now: float, supervisor: str = "resume"
          ) -> tuple[list[Output], float]:
    dealer = SimulatedDealer(iter([tokens]), supervisor=supervisor, start_ts=now)
    out: list[Output] = []
    simulate(station, dealer, out.extend)
    return out, dealer.now


def _shoe(seed: int) -> list[str]:
    return shuffled_shoe(random.Random(seed))


def test_a_re_dealt_shoe_pauses_the_table_naming_the_earlier_shoe() -> None:
    station = Station(TableRules())
    first, now = _deal(station, _shoe(11), T0)
    (r1,) = reports(first)
    assert station.phase.value == "shoe_closed"
    _deal(station, _shoe(11), now + 60, supervisor="none")
    d = station.dealing
    assert d.state == "paused"
    reason = (f"repeated shoe: the first 30 cards after the burn of {d.shoe.shoe_id} match "
              f"shoe {r1['shoe']} in order (30 of 30)" if d.shoe else "")
    assert d.pause_reasons == [reason]
    assert d.pause_actions == [REPEAT_ACTION]
    assert REPEAT_ACTION in station.prompt.text
    # Paused right after the 30th card after the burn: the card was dealt as due, not set aside.
    tokens = [c for c in _shoe(11) if c != CUT]
    burn = 1 + parse_card(tokens[0]).burn_count
    assert d.shoe is not None and d.shoe.drawn == burn + 30 and not d.shoe.stray


def test_resume_goes_on_and_void_refunds_the_round() -> None:
    for supervisor in ("resume", "void"):
        station = Station(TableRules())
        _, now = _deal(station, _shoe(12), T0)
        out, _ = _deal(station, _shoe(12), now + 60, supervisor=supervisor)
        (r,) = reports(out)
        assert station.phase.value == "shoe_closed"
        (pause,) = [p for p in r["pauses"] if p["reasons"][0].startswith("repeated shoe")]
        assert pause["cleared"] == supervisor
        # Seed 12's 30th card after the burn is mid-round: a void refunds that round.
        voided = [o.record for o in out if isinstance(o, Published)
                  and o.record["status"] == "void"]
        assert r["rounds"]["void"] == len(voided) == (supervisor == "void")
        assert all(v["void_reason"].startswith("repeated shoe") for v in voided)
        assert r["dealt"] + r["burned"] + r["discarded"] + r["left"] == 416


def test_the_watch_is_rebuilt_from_the_journal_on_restart(tmp_path: Path) -> None:
    rules = TableRules()
    events: list[InputEvent] = []
    dealer = SimulatedDealer(iter([_shoe(13)]), supervisor="resume", start_ts=T0)
    simulate(Station(rules), dealer, record=events.append)
    with Journal.create(tmp_path / "j.sqlite3", rules, None, "s1") as journal:
        for i, event in enumerate(events):
            journal.append(event, event.ts, float(i), [])
    with Journal.open(tmp_path / "j.sqlite3") as journal:
        station = recover(journal).station
    _deal(station, _shoe(13), dealer.now + 60, supervisor="none")
    assert station.dealing.pause_reasons[0].startswith("repeated shoe")


def test_simulate_with_a_shoe_file_dealt_twice(tmp_path: Path) -> None:
    shoe = tmp_path / "shoe.txt"
    shoe.write_text("\n".join(_shoe(14)) + "\n")
    said = tmp_path / "said.jsonl"
    res = subprocess.run([sys.executable, "-m", "station.cli", "simulate", "--shoe-file",
                          str(shoe), "--shoe-file", str(shoe), "--announcements", str(said)],
                         capture_output=True, text=True, timeout=100, check=False)
    assert res.returncode == 0, res.stderr
    assert "stopped PAUSED: repeated shoe: the first 30 cards after the burn of " in res.stderr
    assert "(30 of 30)" in res.stderr
    (r,) = [a for a in map(json.loads, said.read_text().splitlines())
            if a["type"] == "shoe_report"]
    assert r["shoe"] in res.stderr
    # Two different shoes: no alarm, two reports.
    other = tmp_path / "other.txt"
    other.write_text("\n".join(_shoe(15)) + "\n")
    res = subprocess.run([sys.executable, "-m", "station.cli", "simulate", "--shoe-file",
                          str(shoe), "--shoe-file", str(other), "--announcements", str(said)],
                         capture_output=True, text=True, timeout=100, check=False)
    assert res.returncode == 0 and "PAUSED" not in res.stderr, res.stderr
    assert len([a for a in map(json.loads, said.read_text().splitlines())
                if a["type"] == "shoe_report"]) == 2


# --- the counts add up ----------------------------------------------------------------------
@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32), supervisor=st.sampled_from(["resume", "void"]),
       faults=st.lists(st.tuples(st.sampled_from(["garbled", "double", "not_due"]),
                                 st.integers(1, 60)), max_size=4))
def test_every_report_adds_up(seed: int, supervisor: str,
                              faults: list[tuple[str, int]]) -> None:
    """dealt + burned + discarded + set_aside + on_table + left == decks x 52, over random
    1-deck shoes with faults and either supervisor; and a closed shoe has nothing unclassed."""
    fs = [Fault(kind=k, card=None if k == "not_due" else n,
                after_round=n // 6 if k == "not_due" else None, seconds=0.04, shoe=1 + n % 2)
          for k, n in faults]
    station = Station(TableRules(decks=1, dedupe_ms=0))
    dealer = SimulatedDealer(random_shoes(seed, 2, 1), fs, supervisor=supervisor)
    out: list[Output] = []
    simulate(station, dealer, out.extend)
    found = reports(out)
    assert found
    for r in found:
        assert (r["dealt"] + r["burned"] + r["discarded"] + r["set_aside"] + r["on_table"]
                + r["left"]) == 52
        assert r["set_aside"] == r["on_table"] == 0
        assert sum(v["seen"] for v in r["ranks"].values()) == 52 - r["left"]
        assert all(v["seen"] + v["left"] == 4 for v in r["ranks"].values())


def test_pauses_are_kept_in_order_with_every_reason() -> None:
    t = Table()
    t.new_shoe()
    t.cmd("open_betting")
    t.cmd("close_betting")
    t.card("2S")
    t.lost()
    t.card("3D")                     # drawn while paused: a second reason
    t.restored()
    t.cmd("resume", "supervisor:ann")
    t.cards("4C", "5H", "6D", "7C")  # player 7 stands, banker 0 draws
    t.cmd("end_shoe")
    (r,) = reports(t.outputs)
    assert r["pauses"] == [{
        "ts": m.iso_ts(t.events[6].ts), "cleared": "resume", "by": "supervisor:ann",
        "reasons": ["scanner lost (port vanished)", "drawn while paused: 1 card (3D)"]}]


def test_report_pauses_carry_their_own_objects() -> None:
    """The report is a snapshot: later changes to the log do not reach an emitted report."""
    log = ShoeLog("s", T0, pauses=[Pause(T0, ["x"])])
    r = shoe_report(log, ShoeCounts("s", 8), T0)
    log.pauses[0].reasons.append("y")
    assert r["pauses"][0]["reasons"] == ["x"]


def test_every_card_index_maps_to_its_rank() -> None:
    counts = ShoeCounts("s", 8)
    for card in ALL_CARDS:
        counts.take(card)
    r = shoe_report(ShoeLog("s", T0), counts, T0)
    assert all(v == {"seen": 4, "full": 32, "left": 28} for v in r["ranks"].values())


def test_no_report_before_a_shoe_and_none_twice() -> None:
    t = Table()
    t.card("AS")  # no shoe: paused, nothing to report
    t.cmd("void", "supervisor:ann")
    _cut_shoe(t)
    t.card("KD")  # after the shoe closed: paused, set aside; not a second report
    t.cmd("resume", "supervisor:ann")
    assert len(reports(t.outputs)) == 1
    assert t.phase == "shoe_closed"


# --- configuration and recordings ---------------------------------------------------------------
@pytest.mark.parametrize(("integrity", "message"), [
    ({"repeat_cards": 19}, "integrity.repeat_cards: expected a whole number >= 20, got 19; "
     "how many cards after the burn are compared with earlier shoes, e.g. 30"),
    ({"repeat_cards": "thirty"}, "integrity.repeat_cards: expected a whole number >= 20"),
    ({"repeat_cards": 101}, "integrity.repeat_cards: expected a whole number <= 100"),
    ({"repeat_threshold": 14}, "integrity.repeat_threshold: expected a whole number >= 15, "
     "got 14; how many of those cards, in order, make a repeated shoe, e.g. 20 of 30"),
    ({"repeat_threshold": 31}, "integrity.repeat_threshold: expected a whole number <= 30"),
    ({"repeat_cards": 40, "repeat_threshold": 41}, "integrity.repeat_threshold: expected a "
     "whole number <= 40"),
    ({"repeat_history": 0}, "integrity.repeat_history: expected a whole number >= 1, got 0; "
     "how many earlier shoes each new shoe is compared with, e.g. 100"),
    ({"repeat_history": True}, "integrity.repeat_history: expected a whole number >= 1"),
    ({"repeat_history": 10_001}, "integrity.repeat_history: expected a whole number <= 10000"),
    ({"repeat": 30}, "integrity.repeat: unknown key (did you mean 'repeat_cards'?)"),
    ("on", "integrity: must be a mapping"),
])
def test_bad_integrity_keys_name_the_key_and_the_fix(integrity: Any, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(Path("s.yaml"), {"integrity": integrity})
    assert f"s.yaml: {message}" in str(err.value)


def test_a_one_deck_shoe_cannot_be_asked_for_more_cards_than_it_gives() -> None:
    with pytest.raises(ConfigError, match=r"integrity.repeat_cards: 42 cards after the burn is "
                       r"more than a 1-deck shoe surely gives \(41\)"):
        parse_config(Path("s.yaml"), {"table": {"decks": 1}, "integrity": {"repeat_cards": 42}})
    rules = parse_config(Path("s.yaml"), {"table": {"decks": 1}, "integrity": {
        "repeat_cards": 41, "repeat_threshold": 21}}).rules
    assert rules.repeat_cards == 41 and rules.repeat_threshold == 21


def test_integrity_settings_reach_the_station() -> None:
    rules = parse_config(Path("s.yaml"), {"integrity": {
        "repeat_cards": 24, "repeat_threshold": 18, "repeat_history": 7}}).rules
    assert (rules.repeat_cards, rules.repeat_threshold, rules.repeat_history) == (24, 18, 7)
    watch = Station(rules).integrity.watch
    assert (watch.cards, watch.threshold, watch.history) == (24, 18, 7)
    # A config's only default that differs from TableRules' is the bet guard's (issue 25:
    # observe for a new table, off for a recording made before the guard).
    assert parse_config(Path("s.yaml"), {}).rules == replace(TableRules(), bet_guard="observe")


def _header(rules: TableRules) -> str:
    buf = io.StringIO()
    Recorder(buf, rules)
    return buf.getvalue()


def test_recordings_keep_their_bytes_unless_integrity_is_set(tmp_path: Path) -> None:
    assert _header(TableRules()) == (
        '{"format": "dealer-station-recording", "version": 1, "rules": {"table": "table-1", '
        '"decks": 8, "dedupe_ms": 150, "cut_card_between_rounds": "next_round_last", '
        '"badge_prefix": "DEALER-"}}\n')
    rules = TableRules(repeat_threshold=25)
    text = _header(rules)
    assert '"repeat_threshold": 25' in text and "repeat_cards" not in text
    path = tmp_path / "r.jsonl"
    path.write_text(text)
    assert read_recording(path).rules == rules
    # Every key is read back, whichever are written.
    full = TableRules(repeat_cards=40, repeat_threshold=30, repeat_history=5)
    path.write_text(_header(full))
    assert read_recording(path).rules == full


@pytest.mark.parametrize(("extra", "message"), [
    ({"repeat_cards": 5}, "rules.repeat_cards: expected a whole number >= 20, got 5"),
    ({"repeat_threshold": "x"}, "rules.repeat_threshold: expected a whole number >= 15"),
    ({"repeat_history": -1}, "rules.repeat_history: expected a whole number >= 1"),
    ({"repeat_cards": 60, "decks": 1}, "rules.repeat_cards: 60 cards after the burn is more"),
])
def test_a_recording_with_bad_integrity_rules_is_refused(tmp_path: Path, extra: dict[str, Any],
                                                          message: str) -> None:
    header = json.loads(_header(TableRules()))
    header["rules"].update(extra)
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(header) + "\n")
    with pytest.raises(InputFileError) as err:
        read_recording(path)
    assert message in str(err.value) and "line 1: bad recording header" in str(err.value)


def test_a_shoe_that_ends_before_its_nth_card_is_neither_compared_nor_kept() -> None:
    """Cards drawn after such a shoe closed (set aside) are not its first cards either."""
    t = Table()
    t.new_shoe()
    t.round("2S", "3D", "4C", "5H")
    t.cmd("end_shoe")
    for code in [c.code for c in ALL_CARDS[:30]]:
        t.card(code)  # drawn from a closed shoe: paused, set aside
        t.cmd("resume", "supervisor:ann")
    assert t.phase == "shoe_closed"
    assert not t.station.integrity.watch.kept



@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(0, 51), min_size=30, max_size=30),
       st.lists(st.integers(0, 51), min_size=30, max_size=30))
def test_the_bound_is_the_multiset_intersection(a: list[int], b: list[int]) -> None:
    shared = sum((Counter(a) & Counter(b)).values())
    assert (multiset_bits(a, 30) & multiset_bits(b, 30)).bit_count() == shared
    assert lcs_length(position_masks(a), 30, b) <= shared


def test_every_kept_shoe_is_compared_and_the_lcs_only_where_the_bound_allows() -> None:
    rng = random.Random(8)
    seq = _fresh(rng)
    w = RepeatWatch()
    for name, cards in (("fresh", _fresh(rng)), ("same", seq), ("fresh2", _fresh(rng))):
        w.begin(name)
        _feed(w, cards)
    assert w.lcs_computed == 0
    w.begin("again")
    assert _feed(w, seq).shoe == "same"
    assert w.lcs_computed == 1
    w.compare(seq)  # "same" and "again" now
    assert w.lcs_computed == 3


@pytest.mark.parametrize(("kw", "ok"), [
    ({"cards": 30, "threshold": 1, "history": 1}, True),
    ({"cards": 30, "threshold": 30, "history": 1}, True),
    ({"cards": 30, "threshold": 0, "history": 100}, False),
    ({"cards": 30, "threshold": 31, "history": 100}, False),
    ({"cards": 30, "threshold": 20, "history": 0}, False),
])
def test_the_watch_refuses_settings_it_cannot_honour(kw: dict[str, int], ok: bool) -> None:
    if ok:
        assert RepeatWatch(**kw).threshold == kw["threshold"]
        return
    with pytest.raises(ValueError, match=f"got cards=30, threshold={kw['threshold']}, "
                       f"history={kw['history']}"):
        RepeatWatch(**kw)


def test_burn_cards_are_never_collected_even_through_a_pause() -> None:
    """A burn card re-scanned while the burn is paused is a burn card; a card drawn when
    none was due after the burn is the shoe's next card and is collected, in draw order."""
    t = Table()
    t.cmd("new_shoe")
    t.cards("5S", "2C", "3C")            # 5 shown: 5 more face down
    t.card("ZZ")                         # unreadable burn card: paused, re-scan it
    t.card("4C")                         # the re-scan, held
    t.cmd("resume", "supervisor:ann")    # dealt as the burn card
    t.cards("6C", "7C")                  # the burn is over
    t.card("8C")                         # not due: set aside, but out of the shoe
    t.cmd("resume", "supervisor:ann")
    t.round("9C", "TC", "JC", "QC")
    assert [ALL_CARDS[i].code for i in t.station.integrity.watch.collected] == [
        "8C", "9C", "TC", "JC", "QC"]



def test_an_alarm_on_the_card_that_ends_the_shoe_is_in_its_report() -> None:
    """N = 20: five rounds of four cards after a burn of two, the cut card before the fifth,
    so the 20th card after the burn closes the shoe; dealt twice, the second shoe's report
    holds the alarm's pause and the table waits for the supervisor."""
    t = Table(repeat_cards=20, repeat_threshold=10)

    def shoe() -> None:
        t.new_shoe()
        for n in range(5):
            if n == 4:
                t.cut()
            t.round("3S", "3H", "4S", "4H")  # 7 against 7: nobody draws
    shoe()
    shoe()
    first, second = reports(t.outputs)
    assert t.phase == "paused" and t.station.dealing.paused_from is not None
    assert t.station.dealing.paused_from.value == "shoe_closed"
    (pause,) = second["pauses"]
    assert pause["reasons"] == [f"repeated shoe: the first 20 cards after the burn of "
                                f"{second['shoe']} match shoe {first['shoe']} in order "
                                "(20 of 20)"]
    assert pause["cleared"] is None and second["rounds"]["complete"] == 5
    t.cmd("resume", "supervisor:ann")
    assert t.phase == "shoe_closed" and len(reports(t.outputs)) == 2


@pytest.mark.parametrize("offset", [1, 5, 10])
def test_the_same_order_starting_a_few_cards_later_still_repeats(offset: int) -> None:
    """A re-dealt shoe with a different burn (or cards added on top) is the same order
    shifted: docs/integrity.md promises a score of at least N minus the shift."""
    run = _fresh(random.Random(offset), n=40)
    found = _feed(_watch_with(run[:30]), run[offset:offset + 30])
    assert found is not None and found.score >= 30 - offset


# --- the bound counted as the cards come (issue 13) ------------------------------------------
def _lcs(a: list[int], b: list[int]) -> int:
    """The textbook dynamic programme: the oracle of the bit-parallel LCS."""
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], prev + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def _oracle(kept: list[tuple[str, list[int]]], seq: list[int], threshold: int
            ) -> tuple[tuple[str, int] | None, int]:
    """The best kept shoe as the watch promises, shoe by shoe: the multiset bound, then the
    LCS; the highest score, the most recent on a tie. Also how many LCSs the bound let by."""
    best, computed = None, 0
    for shoe, other in kept:
        if sum((Counter(other) & Counter(seq)).values()) < threshold:
            continue
        computed += 1
        score = _lcs(other, seq)
        if score >= threshold and (best is None or score >= best[1]):
            best = (shoe, score)
    return best, computed


@settings(max_examples=examples(150), deadline=None, derandomize=True)
@given(cards=st.integers(3, 12), history=st.integers(1, 6), data=st.data())
def test_the_counted_bound_finds_what_a_scan_of_every_kept_shoe_finds(
        cards: int, history: int, data: st.DataObject) -> None:
    """Shoes of a few card kinds (so bounds pass and LCSs are long), repeats of earlier ones
    with a card changed, shoes cut short (never kept), more shoes than the history (slots are
    given back and reused): the watch answers as the oracle does, with as many LCSs."""
    threshold = data.draw(st.integers((cards + 1) // 2, cards))
    w = RepeatWatch(cards, threshold, history)
    kept: list[tuple[str, list[int]]] = []
    for n in range(data.draw(st.integers(1, 3 * history + 3))):
        repeat: bool = data.draw(st.booleans())
        if kept and repeat:
            seq = list(data.draw(st.sampled_from(kept))[1])
            seq[data.draw(st.integers(0, cards - 1))] = data.draw(st.integers(0, 51))
        else:
            seq = data.draw(st.lists(st.integers(0, 5), min_size=cards, max_size=cards))
        short = data.draw(st.integers(0, 5)) == 0
        if data.draw(st.integers(0, 5)) == 0:
            w.begin(f"s{n}-dropped")  # begun twice: the first begin files nothing new
        w.begin(f"s{n}")
        if short:
            for c in seq[:-1]:
                assert w.add(c) is None
            continue
        want, computed = _oracle(kept, seq, threshold)
        before = w.lcs_computed
        found = _feed(w, seq)
        assert (None if found is None else (found.shoe, found.score)) == want
        assert w.lcs_computed - before == computed
        kept = [*kept, (f"s{n}", seq)][-history:]
        # Reading ``kept`` files the shoe at once; most of the time the next begin does.
        if data.draw(st.integers(0, 3)) == 0:
            assert [k.shoe for k in w.kept] == [s for s, _ in kept]
    assert [k.shoe for k in w.kept] == [s for s, _ in kept]


def test_the_counted_bound_on_fresh_shoes_with_the_default_history() -> None:
    """300 shoes as the simulated table shuffles them, one in ten a repeat with two cards
    swapped: every answer and every LCS count as the oracle's, and every repeat is found."""
    rng = random.Random(13)
    w = RepeatWatch()
    kept: list[tuple[str, list[int]]] = []
    repeats = 0
    for n in range(300):
        if kept and rng.random() < 0.1:
            seq = list(rng.choice(kept)[1])
            i = rng.randrange(29)
            seq[i], seq[i + 1] = seq[i + 1], seq[i]
            repeats += 1
        else:
            seq = _fresh(rng)
        want, computed = _oracle(kept, seq, w.threshold)
        w.begin(f"s{n}")
        before = w.lcs_computed
        found = _feed(w, seq)
        assert (None if found is None else (found.shoe, found.score)) == want
        assert w.lcs_computed - before == computed
        if want is not None and want[1] >= 29:
            repeats -= 1
        kept = [*kept, (f"s{n}", seq)][-w.history:]
    assert repeats == 0


def test_what_the_watch_keeps_is_what_docs_integrity_says() -> None:
    """docs/integrity.md: about 1.4 KB a kept shoe and an index of about 18 KB with the
    defaults and 100 shoes kept (each within a quarter here), nothing more as shoes go on."""
    import tracemalloc  # noqa: PLC0415

    rng = random.Random(21)
    shoes = [_fresh(rng) for _ in range(300)]
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        w = RepeatWatch()
        sizes = []
        for n, seq in enumerate(shoes):
            w.begin(f"table-1-20260101T000003Z-{n}")
            _feed(w, seq)
            if n in (150, 299):
                assert len(w.kept) == 100
                sizes.append(tracemalloc.get_traced_memory()[0] - base)
    finally:
        tracemalloc.stop()
    index = sys.getsizeof(w._index) + sum(sys.getsizeof(x) for x in w._index if x > 256)
    assert 18_000 * 0.75 < index < 18_000 * 1.25
    per_shoe = (sizes[-1] - index) / 100
    assert 1_400 * 0.75 < per_shoe < 1_400 * 1.25, per_shoe
    assert abs(sizes[1] - sizes[0]) < 4_096
