"""station/wire/ratelimit.py: the refusal budget and the tally of refusals, on a clock the test
moves (issue 18, defect 4)."""

from __future__ import annotations

import pytest

from station.wire.ratelimit import Budget, Every, Tally, retry_after_s


def test_a_budget_allows_a_burst_then_its_rate() -> None:
    b = Budget(burst=3, rate_per_s=2.0)
    assert [b.take("a", 0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert b.take("a", 0.0) == pytest.approx(0.5)  # a token in half a second
    assert b.take("a", 0.25) == pytest.approx(0.25)
    assert b.take("a", 0.5) == 0.0
    assert b.take("a", 0.5) > 0
    # Another source has its own bucket.
    assert b.take("b", 0.5) == 0.0


def test_a_budget_refills_to_its_burst_only() -> None:
    b = Budget(burst=2, rate_per_s=1.0)
    assert b.take("a", 1000.0) == 0.0
    assert b.take("a", 1000.0) == 0.0
    assert b.take("a", 1000.0) > 0


def test_work_the_station_takes_gives_its_token_back() -> None:
    b = Budget(burst=1, rate_per_s=0.001)
    for t in range(100):  # a source whose commands are all taken is never limited
        assert b.take("a", float(t)) == 0.0
        b.give_back("a", float(t))
    b.give_back("a", 100.0)  # never beyond the burst
    assert b.take("a", 100.0) == 0.0
    assert b.take("a", 100.0) > 0


def test_a_budget_keeps_a_bounded_number_of_sources() -> None:
    b = Budget(burst=1, rate_per_s=1.0, max_sources=10)
    for i in range(1000):
        b.take(f"10.0.{i // 256}.{i % 256}", 0.0)
    assert len(b._buckets) == 10


def test_retry_after_is_whole_seconds_at_least_one() -> None:
    assert [retry_after_s(x) for x in (0.01, 1.0, 1.2, 9.9)] == [1, 1, 2, 10]


def test_the_first_refusals_are_journaled_in_full_the_rest_summed_per_interval() -> None:
    t = Tally(full=3, interval_s=10.0)
    assert [t.note("a", "void wrong PIN", 0.0) for _ in range(5)] == [True] * 3 + [False] * 2
    t.count("a", "void over the refusal budget", 1.0)
    assert t.note("b", "resume wrong PIN", 1.0) is True  # its own allowance
    assert t.due(9.0) == []
    [(source, line)] = t.due(10.0)
    assert source == "a"
    assert line.startswith("3 more refused in 10 s")
    assert "void wrong PIN x2" in line and "void over the refusal budget x1" in line
    # A new interval: the first ones in full again.
    assert t.note("a", "void wrong PIN", 10.5) is True
    assert t.due(30.0) == []  # nothing counted, nothing to say


def test_a_flood_adds_one_line_per_interval_whatever_its_size() -> None:
    t = Tally(full=5, interval_s=10.0)
    full = lines = 0
    now = 0.0
    for i in range(100_000):
        now = i * 0.0003  # 30 s of refusals from one source
        full += t.note("127.0.0.1", "void locked out", now)
        lines += len(t.due(now))
    lines += len(t.due(now + 10.0))
    assert full <= 5 * 4 and lines <= 4


def test_a_tally_keeps_a_bounded_number_of_sources_and_counts_the_rest() -> None:
    t = Tally(full=0, interval_s=1.0, max_sources=10)
    for i in range(100):
        t.note(f"s{i}", "x", 0.0)
    assert len(t._windows) == 10
    out = dict(t.due(1.0))
    assert out["other sources"].startswith("90 more refused")
    assert sum(int(line.split()[0]) for line in out.values()) == 100


def test_a_repeated_line_is_said_once_per_interval_with_the_count() -> None:
    e = Every(60.0)
    said = [(t, n) for t in range(0, 200) if (n := e.due("accept", float(t))) is not None]
    assert said == [(0, 0), (60, 59), (120, 59), (180, 59)]
    assert e.due("other", 10.0) == 0  # each kind its own


def test_every_keeps_a_bounded_number_of_kinds() -> None:
    e = Every(60.0, max_kinds=8)
    for i in range(1000):
        e.due(f"kind {i}", 0.0)
    assert len(e._said) <= 8
