"""Where published rounds go: one JSON object per line, to a file or stdout."""

from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson


class ResultsWriter:
    """Writes round records as JSON Lines. ``path`` ``-`` is stdout.

    ``append`` keeps what the file holds (the daemon, across restarts); a simulation or a
    replay starts the file afresh. ``flush_each`` makes each round visible to a reader at
    once (the daemon); a simulation leaves buffering on: it writes thousands of rounds a
    second.
    """

    def __init__(self, path: str | IO[str], flush_each: bool = False,
                 append: bool = False) -> None:
        """``path`` may be an open stream, which the caller owns (``station.outfiles``)."""
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
