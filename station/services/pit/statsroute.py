"""``GET /api/stats`` and ``GET /api/stats.csv``: a period's statistics from the pit journal,
bounded (docs/pit.md, "Statistics").

The reading (``station.services.pit.report.load_stats``) takes seconds over a large floor's shift,
so it runs in a worker thread, never on the service's event loop, and one at a time: a
request that comes while one is computed is answered 503 with ``Retry-After`` at once (a
queue of them would hold connections and threads for nothing; the page asks again). The
period is at most ``MAX_DAYS`` long; without ``from`` and ``to`` it is the current shift, the
last ``SHIFT_HOURS`` hours.
"""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from station.errors import InputFileError
from station.services.pit import report, stats, words

MAX_DAYS: Final = 31
SHIFT_HOURS: Final = 8
BY: Final = ("table", "dealer")
RETRY_S: Final = 2


class BadQuery(ValueError):
    """A parameter of the query is wrong; the message names it."""


class Busy(RuntimeError):
    """Another request's statistics are being computed."""


def period(query: Mapping[str, str], now: datetime) -> tuple[datetime, datetime, str]:
    """``(from, to, by)`` of a query: ``to`` defaults to now, ``from`` to ``SHIFT_HOURS``
    before ``to``; ``by`` to ``table``. Raises ``BadQuery`` naming the parameter."""
    unknown = sorted(set(query) - {"from", "to", "by", "lang"})
    if unknown:
        raise BadQuery(f"unknown parameter {unknown[0][:40]!r}: give from, to and by")
    by = query.get("by", "table")
    if by not in BY:
        raise BadQuery(f"by={by[:40]!r}: give by=table or by=dealer")
    try:
        end = report.when(query["to"], "to") if "to" in query else now
        start = (report.when(query["from"], "from") if "from" in query
                 else end - timedelta(hours=SHIFT_HOURS))
    except InputFileError as exc:
        raise BadQuery(str(exc)) from None
    if not start < end:
        raise BadQuery(f"from {stats.iso(start.timestamp())} is not before to "
                       f"{stats.iso(end.timestamp())}: the period is [from, to)")
    if end - start > timedelta(days=MAX_DAYS):
        raise BadQuery(f"from to to is {(end - start).days} days: at most {MAX_DAYS}; "
                       "ask for a shorter period (or use station pit report)")
    return start, end, by


def csv_text(result: Mapping[str, Any], by: str) -> str:
    """The CSV ``station pit report`` writes (RFC 4180, CRLF) of ``result``."""
    out = io.StringIO(newline="")
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(stats.csv_header(by))
    w.writerows(stats.csv_rows(result, by))
    return out.getvalue()


def file_name(result: Mapping[str, Any], by: str) -> str:
    """``pit-stats-<by>-<from>-<to>.csv``, the times without ``:`` (a file name on any OS)."""
    def short(iso: str) -> str:
        return iso[:16].replace(":", "").replace("-", "")  # 20260101T0800

    return f"pit-stats-{by}-{short(result['from'])}-{short(result['to'])}.csv"


def with_words(result: dict[str, Any]) -> dict[str, Any]:
    """The statistics and ``say``: the page's words by language (station.services.pit.words)."""
    return {**result, "say": {lang: words.stats_words(lang) for lang in words.LANGUAGES}}


class StatsGate:
    """One computation at a time, off the loop."""

    def __init__(self, journal: Path, load: Callable[..., dict[str, Any]] = report.load_stats
                 ) -> None:
        self.journal = journal
        self.load = load  # report.load_stats; a test gives one that waits for its word
        self.busy = False

    async def compute(self, start: datetime, end: datetime) -> dict[str, Any]:
        """The statistics of ``[start, end)``; ``Busy`` while another is computed,
        ``InputFileError`` when the journal cannot be read."""
        if self.busy:
            raise Busy(f"the statistics of another request are being computed (one at a "
                       f"time); ask again in {RETRY_S} s")
        self.busy = True
        try:
            return await asyncio.to_thread(self.load, self.journal, start, end,
                                           datetime.now(UTC))
        finally:
            self.busy = False
