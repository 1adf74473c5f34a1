"""The archive's alerts as the pit takes them (issue 33): a signed ``archive_alert`` on
``<prefix>/<table>/archive`` (docs/journal.md), verified with the archive's key
(``pit.archive_key_file``), becomes one of the pit's alert kinds. It reads no file, no clock
and no broker: the service hands it each payload.

What the archive says is grouped by what a pit boss does about it: its disk (``storage``),
a gap in a table's journal it asked the station for (``gap``), and every other refusal,
which says the table's mirror is not to be trusted (``signature``, ``malformed``,
``unknown_table``, ``chain``, ``conflict``). ``recovered`` ends a storage outage: it clears
the table's ``archive_storage`` alert and is kept for the record. ``lag`` (records reaching
the archive later than its ``archive.max_lag_s``) says the table's mirror is behind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from station.wire.signing import SignatureError, verify

STORAGE: Final = "archive_storage"
GAP: Final = "archive_gap"
REFUSED: Final = "archive_refused"
RECOVERED: Final = "archive_recovered"
LAG: Final = "archive_lag"
# The archive's problem (station.services.archive.receiver.PROBLEMS, and its ``recovered``)
# -> the pit's kind.
BY_PROBLEM: Final = {"storage": STORAGE, "gap": GAP, "recovered": RECOVERED, "lag": LAG,
                     "signature": REFUSED, "malformed": REFUSED, "unknown_table": REFUSED,
                     "chain": REFUSED, "conflict": REFUSED}
# What a recovered alert ends.
CLEARS: Final = {RECOVERED: (STORAGE,)}
MAX_BYTES: Final = 4096  # an archive alert is under 1 KiB; past this it is not one
DETAIL_MAX: Final = 500


@dataclass(frozen=True, slots=True)
class ArchiveAlert:
    table: str
    kind: str  # one of BY_PROBLEM's values
    detail: str
    archive: str  # the archive's name (who raised it)


def read_alert(topic_table: str, payload: bytes, key: Ed25519PublicKey
               ) -> ArchiveAlert | str:
    """The alert, or why it is not taken (a sentence naming what is wrong)."""
    if len(payload) > MAX_BYTES:
        return f"{len(payload)} bytes; an archive alert is at most {MAX_BYTES}"
    try:
        m: Any = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return "not JSON"
    if not isinstance(m, dict):
        return "not a JSON object"
    try:
        verify(m, key)
    except SignatureError as exc:
        return f"the signature does not verify with pit.archive_key_file ({exc})"
    if m.get("kind") != "archive_alert":
        return f"kind {str(m.get('kind'))[:40]!r} is not archive_alert"
    if m.get("table") != topic_table:
        return f"an alert of table {str(m.get('table'))[:64]!r} on table {topic_table!r}'s topic"
    kind = BY_PROBLEM.get(str(m.get("problem")))
    if kind is None:
        return f"problem {str(m.get('problem'))[:40]!r} is not one the archive raises"
    detail = m.get("detail")
    archive = m.get("archive")
    if not isinstance(detail, str) or not isinstance(archive, str):
        return "'detail' and 'archive' must be text"
    held = m.get("not_published")
    more = f" (and {held} more like it)" if isinstance(held, int) and held > 0 else ""
    return ArchiveAlert(topic_table, kind, (detail + more)[:DETAIL_MAX], archive[:64])
