"""The pit's journal (SQLite): what it saw and what it did, for a shift's audit.

``seen`` is the contract with the statistics (docs/pit.md): every verified
message the client library applied, in the order applied, exactly as received. The other
tables are the pit's own: ``alerts``, ``acks``, ``actions`` (commands sent, by whom, with
the table's answer), ``dealer_changes`` and ``sign_ins`` (every PIN tried, right or wrong,
every lockout it started: the lockout is rebuilt from them at start).

One connection, used from the service's event loop only. Writes are grouped: ``commit`` is
called once per batch of messages, so a burst costs one transaction, not one per message.

**Chained** (issue 33), like the station's: every write is also an entry of the ``chain``
table, in the same transaction, ``H(n) = SHA-256(H(n-1) || entry)`` from ``H(0)``, the hash of
the journal's own header (``meta``); the entry is the write's canonical JSON (a ``seen``
row's body by its SHA-256, so the record of the floor does not double). After each commit
the head (n, H(n)) goes to ``<journal>-head``, as the station's does (and locked: one pit
per journal). ``station pit verify`` (station.services.pit.verify) walks the chain, checks
the head file, and replays the entries against every table: an edited, added or deleted row
is found. Rows written before the chain existed (a journal of an older pit) are named as
such, not verified.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import orjson

from station.errors import ConfigError
from station.journal.errors import JournalError
from station.journal.witness import WitnessWriter

HEADER_MAGIC: Final = "dealer-station pit journal v1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS seen (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  table_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  seq INTEGER,
  key TEXT NOT NULL,
  body TEXT NOT NULL,
  UNIQUE (table_id, key)
);
CREATE TABLE IF NOT EXISTS alerts (
  id INTEGER PRIMARY KEY,
  table_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  detail TEXT NOT NULL,
  by TEXT,
  raised_at TEXT NOT NULL,
  cleared_at TEXT
);
CREATE TABLE IF NOT EXISTS acks (
  id INTEGER PRIMARY KEY,
  alert_id INTEGER NOT NULL,
  by TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS actions (
  id TEXT PRIMARY KEY,
  at TEXT NOT NULL,
  table_id TEXT NOT NULL,
  action TEXT NOT NULL,
  by TEXT NOT NULL,
  reason TEXT,
  note TEXT,
  payload TEXT NOT NULL,
  state TEXT NOT NULL,
  detail TEXT,
  answered_at TEXT
);
CREATE TABLE IF NOT EXISTS dealer_changes (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  table_id TEXT NOT NULL,
  by TEXT NOT NULL,
  dealer TEXT,
  note TEXT
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS chain (
  n INTEGER PRIMARY KEY,
  entry BLOB NOT NULL,
  hash BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS sign_ins (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  what TEXT NOT NULL,
  verdict TEXT NOT NULL
);
"""


def head_path(path: Path) -> Path:
    return path.with_name(path.name + "-head")


def entry_bytes(entry: dict[str, Any]) -> bytes:
    return orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)


def chain_hash(prev: bytes, entry: bytes) -> bytes:
    return hashlib.sha256(prev + entry).digest()


def body_digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


# The tables whose rows the chain accounts for, and the column that numbers them.
CHAINED: Final = {"seen": "id", "alerts": "id", "acks": "id", "actions": "id",
                  "dealer_changes": "id", "sign_ins": "id"}


class PitJournal:
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
            self.journal_id, self._n, self._head = self._chain_start()
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"pit.journal {path}: cannot be opened ({exc}); name a file "
                              "this user may write") from None
        try:
            self._witness: WitnessWriter | None = WitnessWriter(head_path(path))
        except JournalError as exc:
            self.db.close()
            raise ConfigError(f"pit.journal {path}: {exc}") from None
        self._open = False
        self._witness.write(self.journal_id, self._n, self._head)

    def _chain_start(self) -> tuple[bytes, int, bytes]:
        """The journal's id (its header's hash) and the chain's head; a new header for a
        journal that has none (new, or an older pit's: its rows so far are before the chain,
        and the header says how many of each there were)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'header'").fetchone()
        if row is None:
            before = {t: int(self.db.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {t}")
                             .fetchone()[0]) for t in CHAINED}
            header = entry_bytes({"magic": HEADER_MAGIC, "created": datetime.now(UTC)
                                  .isoformat(timespec="milliseconds"), "before": before})
            self.db.execute("INSERT INTO meta (key, value) VALUES ('header', ?)", (header,))
        else:
            header = bytes(row[0])
        journal_id = hashlib.sha256(header).digest()
        last = self.db.execute("SELECT n, hash FROM chain ORDER BY n DESC LIMIT 1").fetchone()
        if last is None:
            return journal_id, 0, journal_id
        return journal_id, int(last[0]), bytes(last[1])

    def _chain(self, entry: dict[str, Any]) -> None:
        data = entry_bytes(entry)
        self._n += 1
        self._head = chain_hash(self._head, data)
        self.db.execute("INSERT INTO chain (n, entry, hash) VALUES (?, ?, ?)",
                        (self._n, data, self._head))

    def _begin(self) -> None:
        if not self._open:
            self.db.execute("BEGIN")
            self._open = True

    def commit(self) -> None:
        if self._open:
            self.db.execute("COMMIT")
            self._open = False
            if self._witness is not None:
                # It only lags (as the station's head file): verify then says how far.
                with contextlib.suppress(OSError):
                    self._witness.write(self.journal_id, self._n, self._head)

    def close(self) -> None:
        self.commit()
        self.db.close()
        if self._witness is not None:
            self._witness.close()
            self._witness = None

    def next_alert_id(self) -> int:
        row = self.db.execute("SELECT COALESCE(MAX(id), 0) FROM alerts").fetchone()
        return int(row[0]) + 1

    # --- what it saw ------------------------------------------------------------------------
    def seen(self, at: str, table: str, kind: str, *, seq: int | None, key: str,
             body: str) -> None:
        self._begin()
        cur = self.db.execute("INSERT OR IGNORE INTO seen (at, table_id, kind, seq, key, body) "
                              "VALUES (?, ?, ?, ?, ?, ?)", (at, table, kind, seq, key, body))
        if cur.rowcount == 1:
            self._chain({"t": "seen", "id": cur.lastrowid, "at": at, "table_id": table,
                         "kind": kind, "seq": seq, "key": key, "body": body_digest(body)})

    def alert(self, alert_id: int, table: str, kind: str, *, detail: str, by: str | None,
              raised_at: str) -> None:
        self._begin()
        self.db.execute("INSERT INTO alerts (id, table_id, kind, detail, by, raised_at) "
                        "VALUES (?, ?, ?, ?, ?, ?)", (alert_id, table, kind, detail, by,
                                                     raised_at))
        self._chain({"t": "alerts", "id": alert_id, "table_id": table, "kind": kind,
                     "detail": detail, "by": by, "raised_at": raised_at})

    def alert_detail(self, alert_id: int, detail: str) -> None:
        self._begin()
        self.db.execute("UPDATE alerts SET detail = ? WHERE id = ?", (detail, alert_id))
        self._chain({"t": "alerts", "update": alert_id, "detail": detail})

    def cleared(self, alert_id: int, at: str) -> None:
        self._begin()
        self.db.execute("UPDATE alerts SET cleared_at = ? WHERE id = ?", (at, alert_id))
        self._chain({"t": "alerts", "update": alert_id, "cleared_at": at})

    # --- what it did ------------------------------------------------------------------------
    def ack(self, alert_id: int, by: str, at: str) -> None:
        self.acks([alert_id], by, at)

    def acks(self, alert_ids: list[int], by: str, at: str) -> None:
        """One row per alert acknowledged (an acknowledgement by kind is one per alert it
        acknowledged, each with who), in one transaction."""
        self._begin()
        for i in alert_ids:
            cur = self.db.execute("INSERT INTO acks (alert_id, by, at) VALUES (?, ?, ?)",
                                  (i, by, at))
            self._chain({"t": "acks", "id": cur.lastrowid, "alert_id": i, "by": by, "at": at})
        self.commit()

    def action(self, cid: str, at: str, table: str, action: str, *, by: str,
               reason: str | None, note: str | None, payload: str) -> None:
        self._begin()
        self.db.execute("INSERT INTO actions (id, at, table_id, action, by, reason, note, "
                        "payload, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'sent')",
                        (cid, at, table, action, by, reason, note, payload))
        self._chain({"t": "actions", "id": cid, "at": at, "table_id": table, "action": action,
                     "by": by, "reason": reason, "note": note, "payload": payload,
                     "state": "sent"})
        self.commit()  # journaled before it is published: never an action unaccounted for

    def answered(self, cid: str, state: str, detail: str | None, at: str) -> None:
        self._begin()
        cur = self.db.execute("UPDATE actions SET state = ?, detail = ?, answered_at = ? "
                              "WHERE id = ?", (state, detail, at, cid))
        if cur.rowcount:
            self._chain({"t": "actions", "update": cid, "state": state, "detail": detail,
                         "answered_at": at})

    def dealer_change(self, at: str, table: str, by: str, dealer: str | None,
                      note: str | None) -> int:
        self._begin()
        cur = self.db.execute("INSERT INTO dealer_changes (at, table_id, by, dealer, note) "
                              "VALUES (?, ?, ?, ?, ?)", (at, table, by, dealer, note))
        self._chain({"t": "dealer_changes", "id": cur.lastrowid, "at": at, "table_id": table,
                     "by": by, "dealer": dealer, "note": note})
        self.commit()
        return int(cur.lastrowid or 0)

    def sign_in(self, at: str, name: str, source: str, what: str, verdict: str) -> None:
        self._begin()
        cur = self.db.execute("INSERT INTO sign_ins (at, name, source, what, verdict) "
                              "VALUES (?, ?, ?, ?, ?)", (at, name, source, what, verdict))
        self._chain({"t": "sign_ins", "id": cur.lastrowid, "at": at, "name": name,
                     "source": source, "what": what, "verdict": verdict})
        self.commit()

    def sign_in_history(self, since: str) -> list[tuple[str, str, str]]:
        """The sign-ins journaled at or after ``since`` (ISO), oldest first: (name, verdict,
        at), for the lockout to be rebuilt after a restart (station.web.lockout.replay)."""
        return [(str(n), str(v), str(a)) for n, v, a in self.db.execute(
            "SELECT name, verdict, at FROM sign_ins WHERE at >= ? ORDER BY id", (since,))]

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        """For tests and the docs' examples: read what was journaled."""
        return list(self.db.execute(sql, args))
