"""The journal's exceptions, under the station's one tree (``station.errors``).

The command line turns any ``StationError`` into exit 2; ``station journal verify`` returns
exit 1 itself for a ``JournalCorrupt``, because a damaged journal is a finding, not bad usage.
"""

from __future__ import annotations

from station.errors import StationError


class JournalError(StationError):
    """The journal cannot be used: not a journal, unreadable, or (subclasses) damaged."""


class JournalCorrupt(JournalError):
    """The file is a journal but fails verification; the message names the record or page."""


class JournalWriteError(JournalError):
    """An append did not happen (disk full, I/O error, ...); the journal is as it was before.

    The caller must not apply the event: the daemon pauses until the cause is fixed.
    """
