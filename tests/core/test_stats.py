"""``BetStats``: per-bet observed returns from result records, and the summary table."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from station.game.analysis import BetAnalysis, PaytableAnalysis
from station.game.stats import BetStats, expected_range, format_summary


def record(**bets: tuple[str, float]) -> dict[str, object]:
    return {
        "status": "complete",
        "bets": {k: {"outcome": o, "pays": p} for k, (o, p) in bets.items()},
    }


def test_observed_return_and_interval() -> None:
    stats = BetStats()
    # tie bet: one win at 8 to 1 and three losses: nets 8, -1, -1, -1, mean 1.25
    for outcome, pays in (("win", 8), ("lose", 0), ("lose", 0), ("lose", 0)):
        stats.add(record(tie=(outcome, pays)))
    s = stats.summary("tie")
    assert (s.rounds, s.wins, s.pushes) == (4, 1, 0)
    assert s.observed_rtp == pytest.approx(2.25)
    sample_sd = math.sqrt(((8 - 1.25) ** 2 + 3 * (-1 - 1.25) ** 2) / 3)
    assert s.high - s.observed_rtp == pytest.approx(1.959964 * sample_sd / 2, rel=1e-6)
    assert s.observed_rtp - s.low == pytest.approx(s.high - s.observed_rtp)


def test_pushes_count_zero_and_voids_are_left_out() -> None:
    stats = BetStats()
    stats.add(record(banker=("push", 0)))
    stats.add(record(banker=("win", 0.95)))
    stats.add({"status": "void", "bets": {"banker": {"outcome": "push", "pays": 0}}})
    assert (stats.complete, stats.voided) == (2, 1)
    s = stats.summary("banker")
    assert s.rounds == 2
    assert s.pushes == 1
    assert s.observed_rtp == pytest.approx(1.475)


def test_only_open_counts_a_bet_in_its_open_rounds() -> None:
    stats = BetStats(only_open=True)
    r = record(player=("win", 1), tiger_tie=("win", 40))
    r["open_bets"] = ["player"]
    stats.add(r)
    stats.add(record(tiger_tie=("lose", 0)))  # no open_bets list: every bet counts
    assert stats.summary("player").rounds == 1
    assert stats.summary("tiger_tie").rounds == 1
    assert stats.summary("tiger_tie").observed_rtp == 0


def test_bad_records_are_refused() -> None:
    stats = BetStats()
    with pytest.raises(ValueError, match="no 'bets'"):
        stats.add({"status": "complete", "key": "s:1"})
    with pytest.raises(ValueError, match="unknown bet outcome"):
        stats.add(record(player=("won", 1)))
    with pytest.raises(ValueError, match="between 0 and 1"):
        stats.add(record(player=("win", 1)))
        stats.summary("player", confidence=1.5)


def test_expected_range_uses_the_exact_spread() -> None:
    # Player bet alone: win 1/2, lose 1/2 -> mean 0, variance 1.
    even = BetAnalysis(
        "p", "闲", Fraction(1, 2), Fraction(0), Fraction(1, 2), {Fraction(1): Fraction(1, 2)}
    )
    assert even.variance == 1
    low, high = expected_range(even, 10_000)
    assert (low, high) == pytest.approx((1 - 0.0195996, 1 + 0.0195996), rel=1e-5)
    with pytest.raises(ValueError, match="no rounds"):
        expected_range(even, 0)


def test_summary_table_flags_a_bet_outside_its_range() -> None:
    stats = BetStats()
    stats.add_all(record(p=("win", 1)) for _ in range(100))
    stats.add_all(record(p=("lose", 0)) for _ in range(100))
    fair = BetAnalysis(
        "p", "闲", Fraction(1, 2), Fraction(0), Fraction(1, 2), {Fraction(1): Fraction(1, 2)}
    )
    skewed = BetAnalysis(
        "p", "闲", Fraction(1, 4), Fraction(0), Fraction(3, 4), {Fraction(1): Fraction(1, 4)}
    )
    ok = format_summary(stats, PaytableAnalysis("t", 8, (fair,)))
    assert "200 complete rounds, 0 void" in ok
    assert ok.splitlines()[-1].endswith(" ok")
    assert stats.outside(PaytableAnalysis("t", 8, (fair,))) == []
    bad = format_summary(stats, PaytableAnalysis("t", 8, (skewed,)))
    assert bad.splitlines()[-1].endswith("OUTSIDE")
    assert stats.outside(PaytableAnalysis("t", 8, (skewed,))) == ["p"]
    plain = format_summary(stats)
    assert "exact" not in plain
    assert "100.000%" in plain


def test_feeds_from_a_jsonl_file_shape(tmp_path: Path) -> None:
    """Records as ``station simulate`` will write them: one JSON object per line."""
    lines = [json.dumps(record(tie=("win", 8))), json.dumps(record(tie=("lose", 0)))]
    path = tmp_path / "rounds.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    stats = BetStats()
    stats.add_all(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    assert stats.summary("tie").observed_rtp == pytest.approx(4.5)
