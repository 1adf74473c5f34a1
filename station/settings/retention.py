"""``journal.retention`` as a loaded config holds it. Pure: a value that ``station.live.config``
makes and ``station.journal.retention`` decides by; it lives here, below both, because the
config's values may not import the journal."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RetentionLimits:
    """``journal.retention``: keep at least ``days`` days and ``shoes`` shoes of journals
    (``station.journal.retention`` decides by them)."""

    days: int
    shoes: int
