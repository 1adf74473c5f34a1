"""A table whose records the archive cannot write (a full or failing disk): its messages are
held, unacknowledged, in arrival order, and taken again with a capped backoff until they are
written. Pure bookkeeping, used by the service's one thread.

Why hold rather than refuse: a message acknowledged to the broker is gone from its session,
and one refused as a gap after a failed write was such a message (issue 33). Held messages
are not acknowledged, so the broker's receive maximum bounds them, and after a kill or a lost
connection the broker sends them again (the ones of the old connection are then dropped here).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

FIRST_WAIT_S: Final = 0.5
MAX_WAIT_S: Final = 5.0  # a disk that frees is written to within this

T = TypeVar("T")


@dataclass(slots=True)
class Stall(Generic[T]):
    """One table's outage: since when (monotonic seconds), the next try, and what waits."""

    since: float
    detail: str
    wait_s: float = FIRST_WAIT_S
    next_try: float = 0.0
    tries: int = 0
    held: list[T] = field(default_factory=list)


class Stalls(Generic[T]):
    """The tables in a storage outage, and when each is tried again."""

    def __init__(self) -> None:
        self._by_table: dict[str, Stall[T]] = {}
        self._trying: dict[str, Stall[T]] = {}

    def __contains__(self, table: object) -> bool:
        return table in self._by_table

    def __len__(self) -> int:
        return len(self._by_table) + len(self._trying)

    def held(self) -> int:
        return sum(len(s.held) for s in self._by_table.values())

    def hold(self, table: str, item: T) -> None:
        self._by_table[table].held.append(item)

    def due(self, now: float) -> dict[str, list[T]]:
        """The tables whose next try has come, with what they held (in order): they are
        taken again now, and either ``failed`` again or ``recovered``."""
        out: dict[str, list[T]] = {}
        for table, stall in list(self._by_table.items()):
            if now >= stall.next_try:
                del self._by_table[table]
                self._trying[table] = stall
                out[table] = stall.held
                stall.held = []
        return out

    def failed(self, table: str, detail: str, now: float, held: list[T]) -> bool:
        """``table``'s write failed; whether this starts an outage (say it once, then)."""
        stall = self._trying.pop(table, None) or self._by_table.pop(table, None)
        new = stall is None
        if stall is None:
            stall = Stall(now, detail)
        else:
            stall.wait_s = min(MAX_WAIT_S, stall.wait_s * 2)
            held = [*stall.held, *held]
        stall.tries += 1
        stall.detail = detail
        stall.next_try = now + stall.wait_s
        stall.held = held
        self._by_table[table] = stall
        return new

    def recovered(self) -> list[tuple[str, Stall[T]]]:
        """The tables tried again whose writes went through: their outages are over."""
        out = list(self._trying.items())
        self._trying.clear()
        return out

    def oldest(self) -> float | None:
        """When the oldest outage began (monotonic seconds), or None."""
        starts = [s.since for s in (*self._by_table.values(), *self._trying.values())]
        return min(starts) if starts else None
