"""Where published rounds go: one JSON object per line, to a file or stdout."""

from __future__ import annotations

import errno
import logging
import os
import sys
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson

from station.upstream.filesink import cut_torn_tail

log = logging.getLogger(__name__)


class ResultsWriter:
    """Writes round records as JSON Lines. ``path`` ``-`` is stdout.

    ``append`` keeps what the file holds (the daemon, across restarts); a simulation or a
    replay starts the file afresh. ``flush_each`` makes each round visible to a reader at
    once (the daemon); a simulation leaves buffering on: it writes thousands of rounds a
    second.
    """

    def __init__(self, path: str | IO[str], flush_each: bool = False,
                 append: bool = False) -> None:
        """``path`` may be an open stream, which the caller owns (``station.settings.outfiles``)."""
        self._flush_each = flush_each
        if not isinstance(path, str):
            self.path = getattr(path, "name", "-")
            self._own = False
            self._stream: IO[str] = path
            return
        self.path = path
        self._own = path != "-"
        self._stream = (
            # Closed by close(): the writer outlives any one block in the daemon.
            Path(path).open("a" if append else "w", encoding="utf-8") if self._own else sys.stdout  # noqa: SIM115
        )

    def write(self, record: dict[str, Any]) -> None:
        # Same bytes as json.dumps(record, separators=(",", ":")), twenty times faster.
        self._stream.write(orjson.dumps(record).decode() + "\n")
        if self._flush_each:
            self._stream.flush()

    def close(self) -> None:
        if self._own:
            self._stream.close()
        else:
            self._stream.flush()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AppendLog:
    """The daemon's results and announcements files: convenience copies for people and
    tools on the dealer PC (the journal and upstream carry the truth).

    One ``os.write`` per line on an ``O_APPEND`` descriptor. A write that fails (a full disk)
    never stops the station: it is logged once per outage, the torn part of the line is cut
    off before the next write, and a torn last line left by a crash is cut off at start, so
    the file only ever holds whole lines. ``-`` is stdout.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.dropped = 0
        self._failing = False
        if path == "-":
            self._fd = sys.stdout.fileno()
            return
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() and (cut := cut_torn_tail(target)):
            log.warning("%s: cut a torn last line (%d bytes) left by a crash", path, cut)
        self._fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(self, record: dict[str, Any]) -> None:
        line = orjson.dumps(record) + b"\n"
        try:
            if self._failing and self.path != "-":
                cut_torn_tail(Path(self.path))
            if os.write(self._fd, line) != len(line):
                raise OSError(errno.ENOSPC, "short write")
        except OSError as exc:
            self.dropped += 1
            if not self._failing:
                log.error("%s: cannot write (%s); the station goes on, the rounds are in the "
                          "journal and go upstream", self.path, exc.strerror or exc)
            self._failing = True
            return
        if self._failing:
            log.warning("%s: writable again (%d lines were not written)", self.path,
                        self.dropped)
            self._failing = False

    def close(self) -> None:
        """Idempotent: the daemon and the assembly both close it at a stop, and a second
        ``os.close`` of the same number would close whatever file or socket reused it."""
        if self.path != "-" and self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
