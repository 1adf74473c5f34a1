"""``upstream.type: file``: the signed messages as JSON Lines, drained from the outbox.

The default, so ``station run`` needs no broker. A line is written, flushed and fsynced
before its row is marked delivered, so a crash or a full disk can lose no message, only
repeat one (a reader de-duplicates by ``key``, as from the broker). A torn last line (a
crash or a full disk mid-write) is cut off at start and on every failed write, because its
row was never marked delivered and will be written again whole.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from pathlib import Path

from station.errors import StationError
from station.journal.outbox import Outbox
from station.upstream.outage import Backoff, Outage

log = logging.getLogger(__name__)

BATCH = 500
POLL_S = 1.0  # drain at least this often even if nobody calls notify()


def cut_torn_tail(path: Path) -> int:
    """Truncate ``path`` after its last newline; returns the bytes cut (0 if none)."""
    with path.open("r+b") as f:
        size = f.seek(0, os.SEEK_END)
        end = size
        while end > 0:
            start = max(0, end - 65536)
            f.seek(start)
            chunk = f.read(end - start)
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                keep = start + nl + 1
                break
            end = start
        else:
            keep = 0
        if keep < size:
            f.truncate(keep)
            os.fsync(f.fileno())
        return size - keep


class FileSink:
    """A thread that appends every outbox row's payload to a file (or stdout: ``-``).

    ``start``/``stop``/``notify`` may be called from any thread; ``notify`` never blocks.
    """

    def __init__(self, outbox: Outbox, path: str, *, batch: int = BATCH,
                 fsync: bool = True, retry_max_s: float = 30.0) -> None:
        self._outbox = outbox
        self.path = path
        self._batch = batch
        self._fsync = fsync and path != "-"
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._fd: int | None = None  # the file, unbuffered: a failed write leaves nothing behind
        self._backoff = Backoff(0.2, retry_max_s)
        self._outage = Outage(log, f"upstream file {path}")
        self.delivered = 0

    def start(self) -> None:
        """Open the file (cutting a torn last line) and start draining; raises StationError
        when the file cannot be opened."""
        if self.path != "-":
            target = Path(self.path)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                if target.exists() and (cut := cut_torn_tail(target)):
                    log.warning("upstream file %s: cut a torn last line (%d bytes); its "
                                "message is still in the outbox and is written again", target,
                                cut)
                self._fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            except OSError as exc:
                raise StationError(f"upstream file {target}: {exc.strerror or exc}") from None
        self._thread = threading.Thread(target=self._run, name="upstream-file", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """New rows are in the outbox."""
        self._wake.set()

    def backlog(self) -> int:
        return self._outbox.backlog()

    @property
    def connected(self) -> None:
        """A file has no link to lose (``station.upstream.outlet``)."""
        return None

    def stop(self, timeout_s: float = 5.0) -> None:
        """Write what is pending (within ``timeout_s``), then close."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _run(self) -> None:
        while True:
            stopping = self._stop.is_set()
            try:
                while self._drain_batch():
                    pass
            except (OSError, StationError) as exc:
                # A full disk fails the file or the journal's delivery marks alike: an outage
                # that ends by itself, said once, not a bug with a traceback.
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                self._outage.failed(reason, self._safe_backlog())
                if stopping:
                    return
                self._stop.wait(self._backoff.next())
                continue
            except Exception as exc:
                # A sink thread that died would stop every upstream message without a word:
                # say so once and keep retrying.
                if self._outage.failed(f"{type(exc).__name__}: {exc}", -1):
                    log.exception("upstream file %s: unexpected error", self.path)
                if stopping:
                    return
                self._stop.wait(self._backoff.next())
                continue
            self._backoff.reset()
            if stopping:
                return
            self._wake.wait(POLL_S)
            self._wake.clear()

    def _safe_backlog(self) -> int:
        try:
            return self._outbox.backlog()
        except Exception:  # noqa: BLE001 - only for a log line; the outbox may be the fault
            return -1

    def _drain_batch(self) -> bool:
        """Write one batch; True if it was full (more may be waiting). Raises OSError."""
        rows = self._outbox.pending(self._batch)
        if not rows:
            return False
        data = b"".join(row.payload + b"\n" for row in rows)
        if self._fd is None:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            self._append(self._fd, data)
        self._outbox.mark_delivered([row.id for row in rows])
        self.delivered += len(rows)
        if self._outage.ongoing:
            self._outage.recovered(self._outbox.backlog())
        return len(rows) == self._batch

    def _append(self, fd: int, data: bytes) -> None:
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if self._fsync:
                os.fsync(fd)
        except OSError:
            # What a failed write left is a torn line; its rows are still pending and are
            # written again whole.
            try:
                os.ftruncate(fd, size)
            except OSError:
                log.exception("upstream file %s: cannot cut back a failed write; the next "
                              "start cuts the torn line", self.path)
            raise
