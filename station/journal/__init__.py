"""The durable, tamper-evident journal: every input event and the outbox rows it caused, in
an SQLite database, hash-chained (see docs/journal.md).

An I/O edge: ``chain`` is pure; the rest touches files.
"""

from station.journal.errors import JournalCorrupt, JournalError, JournalWriteError
from station.journal.export import export_journal, is_journal_file, read_journal
from station.journal.store import Journal
from station.journal.verify import Record, Report, verify_journal

__all__ = [
    "Journal",
    "JournalCorrupt",
    "JournalError",
    "JournalWriteError",
    "Record",
    "Report",
    "export_journal",
    "is_journal_file",
    "read_journal",
    "verify_journal",
]
