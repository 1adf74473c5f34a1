"""The outbox contract between the journal (which stores messages durably, in the same
transaction as the event that caused them) and a publisher (which drains them in order).

A row is final bytes: the message is built and signed once, when it is journaled, so every
re-delivery after a crash or an outage sends exactly the same bytes with the same idempotency
key. ``topic`` is relative to ``<prefix>/<table>/``: ``events`` or ``status`` (retained).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class OutboxRow:
    id: int  # increasing, in journal order; delivery keeps this order
    topic: str  # "events" or "status"
    payload: bytes  # the signed message, canonical JSON (UTF-8)


class Outbox(Protocol):
    """Implemented by the journal; a publisher thread may call these concurrently with the
    station loop's appends (the implementation owns its own connection and locking)."""

    def pending(self, limit: int) -> Sequence[OutboxRow]:
        """Undelivered rows in id order, at most ``limit``."""
        ...

    def mark_delivered(self, ids: Sequence[int]) -> None:
        """Record that the broker acknowledged these rows; they are never sent again."""
        ...

    def backlog(self) -> int:
        """How many rows are not yet delivered."""
        ...
