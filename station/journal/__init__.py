"""Layer 6, the journal: every input event and the outbox rows it caused, in an SQLite
database, hash-chained (see docs/journal.md), and what is kept beside it.

The store and its verification, journals moved aside, export, the outbox, recovery at start,
the kept recording and raw device traffic, retention's verdicts (pure) and the prune that
carries them out. The chain itself is wire contract (``station.wire.chain``).
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
