"""Observed return of every bet over simulated rounds, to check against the exact analysis.

``BetStats`` is fed result records (dicts with ``status`` and ``bets``, the latter as
``station.game.settlement.settle`` makes it). ``format_summary`` prints, per bet, the observed
return with its confidence interval, the exact return from ``station.game.analysis``, and whether
the observed return lies in the interval the exact figures predict for that many rounds
(exact return +- z * exact standard deviation / sqrt(rounds)). Over a long simulation that
holds for all but about 1 bet in 20 at 95%: settlement and analysis checked against each
other (issue 3). Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from statistics import NormalDist

from station.game.analysis import BetAnalysis, PaytableAnalysis
from station.game.settlement import net_result


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


@dataclass(slots=True)
class _Running:
    rounds: int = 0
    wins: int = 0
    pushes: int = 0
    total: float = 0.0
    total_sq: float = 0.0


@dataclass(frozen=True, slots=True)
class BetSummary:
    """Observed figures of one bet: ``observed_rtp`` is 1 + the mean net result per unit
    staked; ``low``/``high`` its normal-approximation confidence interval (sample variance).
    """

    key: str
    rounds: int
    wins: int
    pushes: int
    observed_rtp: float
    low: float
    high: float


def expected_range(bet: BetAnalysis, rounds: int, confidence: float = 0.95) -> tuple[float, float]:
    """Where the observed return of ``rounds`` independent rounds should fall: the exact
    return +- z * exact standard deviation / sqrt(rounds). Raises ``ValueError`` for no
    rounds or a confidence outside (0, 1)."""
    if rounds < 1:
        raise ValueError("no rounds to compare")
    half = _z(confidence) * math.sqrt(float(bet.variance) / rounds)
    rtp = float(bet.rtp)
    return rtp - half, rtp + half


@dataclass(slots=True)
class BetStats:
    """Running per-bet totals over result records.

    Void rounds are counted apart and left out of the returns: they were refunded, and the
    exact analysis is of dealt rounds. With ``only_open`` a bet is counted only in rounds
    whose record lists it in ``open_bets`` (records without that list count every bet).
    """

    only_open: bool = False
    complete: int = 0
    voided: int = 0
    _bets: dict[str, _Running] = field(default_factory=dict)

    def add(self, record: Mapping[str, object]) -> None:
        """Add one result record. Raises ``ValueError`` for a complete record without a
        ``bets`` mapping or with an outcome that is not win, push or lose."""
        if record.get("status") == "void":
            self.voided += 1
            return
        bets = record.get("bets")
        if not isinstance(bets, Mapping):
            raise ValueError(f"record {record.get('key')!r} has no 'bets' to count")
        open_bets = record.get("open_bets")
        allowed = set(open_bets) if self.only_open and isinstance(open_bets, list) else None
        self.complete += 1
        for key, entry in bets.items():
            if allowed is not None and key not in allowed:
                continue
            if not isinstance(entry, Mapping):
                raise ValueError(f"bet {key!r}: expected {{'outcome', 'pays'}}, got {entry!r}")
            result = entry.get("outcome")
            net = net_result(result, entry.get("pays"))
            run = self._bets.setdefault(str(key), _Running())
            run.rounds += 1
            run.wins += result == "win"
            run.pushes += result == "push"
            run.total += net
            run.total_sq += net * net

    def add_all(self, records: Iterable[Mapping[str, object]]) -> None:
        for record in records:
            self.add(record)

    @property
    def keys(self) -> tuple[str, ...]:
        """Bets seen so far, in the order first seen."""
        return tuple(self._bets)

    def summary(self, key: str, confidence: float = 0.95) -> BetSummary:
        """The observed return of bet ``key`` with its two-sided confidence interval.

        Raises ``KeyError`` for a bet never seen and ``ValueError`` for a confidence outside
        (0, 1).
        """
        z = _z(confidence)
        run = self._bets[key]
        n = run.rounds
        mean = run.total / n
        var = max(run.total_sq / n - mean * mean, 0.0) * n / (n - 1) if n > 1 else 0.0
        half = z * math.sqrt(var / n)
        return BetSummary(key, n, run.wins, run.pushes, 1 + mean, 1 + mean - half, 1 + mean + half)

    def outside(self, analysis: PaytableAnalysis, confidence: float = 0.95) -> list[str]:
        """Keys of the bets whose observed return lies outside ``expected_range``."""
        out = []
        for bet in analysis.bets:
            if bet.key in self._bets:
                low, high = expected_range(bet, self._bets[bet.key].rounds, confidence)
                if not low <= self.summary(bet.key).observed_rtp <= high:
                    out.append(bet.key)
        return out


def format_summary(
    stats: BetStats, analysis: PaytableAnalysis | None = None, confidence: float = 0.95
) -> str:
    """A table of every bet seen: rounds, observed return and its interval; with the exact
    ``analysis`` (``station.game.analysis.analyze(paytable, decks)``) also the exact return, the
    range expected for that many rounds, and ``ok`` or ``OUTSIDE``."""
    exact = {b.key: b for b in analysis.bets} if analysis is not None else {}
    level = f"{confidence:.0%}"
    head = f"{'bet':<26} {'rounds':>8} {'observed':>9} {'(' + level + ' interval)':>22}"
    if analysis is not None:
        head += f" {'exact':>9} {'(expected range)':>22}"
    lines = [f"{stats.complete} complete rounds, {stats.voided} void (not counted)", head]
    for key in stats.keys:
        s = stats.summary(key, confidence)
        line = f"{key:<26} {s.rounds:>8} {s.observed_rtp:9.3%} ({s.low:9.3%}, {s.high:9.3%})"
        bet = exact.get(key)
        if bet is not None:
            low, high = expected_range(bet, s.rounds, confidence)
            verdict = "ok" if low <= s.observed_rtp <= high else "OUTSIDE"
            line += f" {float(bet.rtp):9.3%} ({low:9.3%}, {high:9.3%}) {verdict}"
        lines.append(line)
    return "\n".join(lines)
