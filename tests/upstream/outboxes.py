"""An in-memory outbox: the journal's contract (station/journal/outbox.py) without SQLite,
so the publishers are tested on their own. It also checks how it is used: a row marked
twice, or marked before it was ever handed out, fails the test."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from station.journal.outbox import OutboxRow


class MemoryOutbox:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.rows: list[OutboxRow] = []
        self._delivered: set[int] = set()
        self._first_pending = 0  # index of the first row that may be undelivered
        self.enqueued_at: dict[int, float] = {}
        self.delivered_at: dict[int, float] = {}
        self.mark_calls: list[list[int]] = []

    def append(self, topic: str, payload: bytes) -> int:
        with self._lock:
            row = OutboxRow(len(self.rows) + 1, topic, payload)
            self.rows.append(row)
            self.enqueued_at[row.id] = time.perf_counter()
            return row.id

    def pending(self, limit: int) -> Sequence[OutboxRow]:
        with self._lock:
            out: list[OutboxRow] = []
            i = self._first_pending
            while i < len(self.rows) and len(out) < limit:
                if self.rows[i].id not in self._delivered:
                    out.append(self.rows[i])
                i += 1
            return out

    def mark_delivered(self, ids: Sequence[int]) -> None:
        now = time.perf_counter()
        with self._lock:
            for row_id in ids:
                assert 1 <= row_id <= len(self.rows), f"row {row_id} was never written"
                assert row_id not in self._delivered, f"row {row_id} marked delivered twice"
                self._delivered.add(row_id)
                self.delivered_at[row_id] = now
            self.mark_calls.append(list(ids))
            while (self._first_pending < len(self.rows)
                   and self.rows[self._first_pending].id in self._delivered):
                self._first_pending += 1

    def backlog(self) -> int:
        with self._lock:
            return len(self.rows) - len(self._delivered)

    def delivered_ids(self) -> list[int]:
        with self._lock:
            return sorted(self._delivered)
