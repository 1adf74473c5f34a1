"""The recording kept beside a journal: one JSON Lines file per journal, carried on across
starts (``recording.dir``; docs/journal.md, "The kept recording").

A start used to write a new recording that began with a copy of the journal's whole history,
so fifty restarts kept fifty copies (issue 18). Now the file is the journal's own export
(``station journal export``), byte for byte, kept up to date: at start it is compared with
the journal line by line while recovery reads the journal anyway, and only what it lacks is
appended. The daemon then appends each event once it is journaled, so the file can lag the
journal (a crash between the commit and the write, at worst half a line) but never lead it.

A file that is not a prefix of the journal's export (edited, or written by an older station
before its commit) is evidence: it is left exactly as found and the copy goes on in the next
file of the series, ``<stem>-2.jsonl``, which begins with the lines both agree on.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import IO

import orjson

from drivers.events import InputEvent
from station.wire.recording import event_to_json

log = logging.getLogger(__name__)
_COPY_CHUNK = 1 << 20


def event_line(event: InputEvent) -> bytes:
    """The event's line, exactly as ``Recorder.write`` writes it."""
    return orjson.dumps(event_to_json(event)) + b"\n"


def series(folder: Path, stem: str) -> list[Path]:
    """The files of one journal's recording that exist, oldest first: ``<stem>.jsonl``, then
    ``<stem>-2.jsonl`` and on (one more only when a file disagreed with the journal)."""
    found: list[Path] = []
    n = 1
    while True:
        path = folder / (f"{stem}.jsonl" if n == 1 else f"{stem}-{n}.jsonl")
        if not path.exists():
            return found
        found.append(path)
        n += 1


class KeptRecording:
    """The journal's recording, opened at start. Call ``sync`` with every journal record in
    order (recovery does), then ``done``; the daemon then calls ``write`` after each commit.
    Raises ``OSError`` while opening and syncing; ``write`` never raises (the journal holds
    the event; the next start writes what is missing)."""

    def __init__(self, folder: Path, stem: str, header: bytes) -> None:
        self._folder, self._stem = folder, stem
        kept = series(folder, stem)
        self.path = kept[-1] if kept else folder / f"{stem}.jsonl"
        self._checking = bool(kept)  # comparing an existing file, not yet appending
        self._failed = False
        self.appended = 0  # lines this start added (what the file lacked, then new events)
        if self._checking:
            self._stream: IO[bytes] = self.path.open("r+b")
        else:
            self._stream = self.path.open("xb")
        try:
            self._expect(header)
        except BaseException:
            self._stream.close()
            raise

    def sync(self, event: InputEvent) -> None:
        """The journal's next record: checked against the file, or appended to it."""
        self._expect(event_line(event))

    def done(self) -> None:
        """Every journal record has been seen: lines past them are not the journal's."""
        if self._checking:
            at = self._stream.tell()
            if self._stream.read(1):
                self._diverge(at, "it goes on past the journal's last record")
            else:
                self._checking = False
        self._stream.flush()

    def write(self, event: InputEvent) -> None:
        """A journaled event, appended. A failed write (a full disk) is logged once and the
        table goes on: the journal has the event, and the next start copies it."""
        if self._failed:
            return
        try:
            self._stream.write(event_line(event))
            self._stream.flush()
            self.appended += 1
        except (OSError, ValueError) as exc:  # ValueError: the stream was closed
            self._failed = True
            log.error("recording %s: cannot write (%s); the journal still has every event and "
                      "the next start adds what is missing", self.path, exc)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._stream.close()

    def _expect(self, line: bytes) -> None:
        if not self._checking:
            self._stream.write(line)
            self.appended += 1
            return
        at = self._stream.tell()
        found = self._stream.readline(len(line) + 1)  # bounded: a huge line is not read
        if found == line:
            return
        if line.startswith(found) and not self._stream.read(1):
            # The file ends here, or inside this very line (a crash while writing it): what
            # follows is the journal's, so the copy goes on from the start of this line.
            self._stream.seek(at)
            self._stream.truncate()
            self._checking = False
            self._expect(line)
            return
        self._diverge(at, f"its line {self._line_no(at)} differs from the journal's")
        self._expect(line)

    def _diverge(self, at: int, why: str) -> None:
        """Leave the file as found; carry on in the next one, from the ``at`` bytes both
        agree on."""
        old = self.path
        self._stream.close()
        n = len(series(self._folder, self._stem)) + 1
        self.path = self._folder / f"{self._stem}-{n}.jsonl"
        self._stream = self.path.open("xb")
        self._checking = False
        with old.open("rb") as src:
            left = at
            while left:
                chunk = src.read(min(left, _COPY_CHUNK))
                if not chunk:
                    break
                self._stream.write(chunk)
                left -= len(chunk)
        log.warning("recording %s is not a copy of the journal (%s): kept as found; the "
                    "recording goes on in %s", old, why, self.path.name)

    def _line_no(self, at: int) -> int:
        lines = 1
        with self.path.open("rb") as f:
            while at > 0:
                chunk = f.read(min(at, _COPY_CHUNK))
                if not chunk:
                    break
                lines += chunk.count(b"\n")
                at -= len(chunk)
        return lines
