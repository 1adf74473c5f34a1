"""What every upstream outlet is (``FileSink``, ``MqttPublisher``, or a registered kind's):
a publisher draining the journal's outbox, started and stopped by the daemon.

``connected`` and ``backlog`` are part of the interface, so the web display and the metrics
ask any outlet the same way: ``connected`` is None for an outlet with no link to lose (a
file), else whether its link is up now.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable


class Outlet(Protocol):
    def start(self) -> None: ...
    def notify(self) -> None: ...
    def stop(self, timeout_s: float = 5.0) -> None: ...
    def backlog(self) -> int: ...

    @property
    def connected(self) -> bool | None: ...


@runtime_checkable
class Resender(Protocol):
    """An outlet that mirrors the journal (``MqttPublisher`` with ``upstream.mirror``): it
    sends a journal again from a record when the archive asks (``resend``)."""

    def resend(self, path: Path, journal_id: bytes, seq: int) -> str | None:
        """Mirror the journal at ``path`` again from record ``seq``; None when it will, else
        why not (no mirror). Any thread may call it."""
        ...
