"""Layer 6, the journal: every input event and the outbox rows it caused, in an SQLite
database, hash-chained (see docs/journal.md), and what is kept beside it.

The store and its verification, journals moved aside, export, the outbox, recovery at start,
the kept recording and raw device traffic, retention's verdicts (pure) and the prune that
carries them out. The chain itself is wire contract (``station.wire.chain``).

The names below are loaded when first asked for (PEP 562), so a module that needs only a
light part of the layer (the outbox protocol, retention's verdicts) does not load SQLite and
the store with it: ``simulate`` imports the outbox through the outlets' kinds.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from station.journal.errors import JournalCorrupt, JournalError, JournalWriteError
    from station.journal.export import export_journal, is_journal_file, read_journal
    from station.journal.store import Journal
    from station.journal.verify import Record, Report, verify_journal

_WHERE = {
    "Journal": "store",
    "JournalCorrupt": "errors",
    "JournalError": "errors",
    "JournalWriteError": "errors",
    "Record": "verify",
    "Report": "verify",
    "export_journal": "export",
    "is_journal_file": "export",
    "read_journal": "export",
    "verify_journal": "verify",
}

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


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value  # once found, an ordinary attribute
    return value
