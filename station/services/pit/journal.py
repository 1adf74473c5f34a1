"""The pit's journal (SQLite): what it saw and what it did, for a shift's audit.

``seen`` is the contract with the statistics (docs/pit.md): every verified
message the client library applied, in the order applied, exactly as received. The other
tables are the pit's own: ``alerts``, ``acks``, ``actions`` (commands sent, by whom, with
the table's answer), ``dealer_changes`` and ``sign_ins`` (every PIN tried, right or wrong,
every lockout it started: the lockout is rebuilt from them at start).

One connection, used from the service's event loop only. Writes are grouped: ``commit`` is
called once per batch of messages, so a burst costs one transaction, not one per message.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from station.errors import ConfigError

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
CREATE TABLE IF NOT EXISTS sign_ins (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  what TEXT NOT NULL,
  verdict TEXT NOT NULL
);
"""


class PitJournal:
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"pit.journal {path}: cannot be opened ({exc}); name a file "
                              "this user may write") from None
        self._open = False

    def _begin(self) -> None:
        if not self._open:
            self.db.execute("BEGIN")
            self._open = True

    def commit(self) -> None:
        if self._open:
            self.db.execute("COMMIT")
            self._open = False

    def close(self) -> None:
        self.commit()
        self.db.close()

    def next_alert_id(self) -> int:
        row = self.db.execute("SELECT COALESCE(MAX(id), 0) FROM alerts").fetchone()
        return int(row[0]) + 1

    # --- what it saw ------------------------------------------------------------------------
    def seen(self, at: str, table: str, kind: str, *, seq: int | None, key: str,
             body: str) -> None:
        self._begin()
        self.db.execute("INSERT OR IGNORE INTO seen (at, table_id, kind, seq, key, body) "
                        "VALUES (?, ?, ?, ?, ?, ?)", (at, table, kind, seq, key, body))

    def alert(self, alert_id: int, table: str, kind: str, *, detail: str, by: str | None,
              raised_at: str) -> None:
        self._begin()
        self.db.execute("INSERT INTO alerts (id, table_id, kind, detail, by, raised_at) "
                        "VALUES (?, ?, ?, ?, ?, ?)", (alert_id, table, kind, detail, by,
                                                     raised_at))

    def alert_detail(self, alert_id: int, detail: str) -> None:
        self._begin()
        self.db.execute("UPDATE alerts SET detail = ? WHERE id = ?", (detail, alert_id))

    def cleared(self, alert_id: int, at: str) -> None:
        self._begin()
        self.db.execute("UPDATE alerts SET cleared_at = ? WHERE id = ?", (at, alert_id))

    # --- what it did ------------------------------------------------------------------------
    def ack(self, alert_id: int, by: str, at: str) -> None:
        self.acks([alert_id], by, at)

    def acks(self, alert_ids: list[int], by: str, at: str) -> None:
        """One row per alert acknowledged (an acknowledgement by kind is one per alert it
        acknowledged, each with who), in one transaction."""
        self._begin()
        self.db.executemany("INSERT INTO acks (alert_id, by, at) VALUES (?, ?, ?)",
                            [(i, by, at) for i in alert_ids])
        self.commit()

    def action(self, cid: str, at: str, table: str, action: str, *, by: str,
               reason: str | None, note: str | None, payload: str) -> None:
        self._begin()
        self.db.execute("INSERT INTO actions (id, at, table_id, action, by, reason, note, "
                        "payload, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'sent')",
                        (cid, at, table, action, by, reason, note, payload))
        self.commit()  # journaled before it is published: never an action unaccounted for

    def answered(self, cid: str, state: str, detail: str | None, at: str) -> None:
        self._begin()
        self.db.execute("UPDATE actions SET state = ?, detail = ?, answered_at = ? "
                        "WHERE id = ?", (state, detail, at, cid))

    def dealer_change(self, at: str, table: str, by: str, dealer: str | None,
                      note: str | None) -> int:
        self._begin()
        cur = self.db.execute("INSERT INTO dealer_changes (at, table_id, by, dealer, note) "
                              "VALUES (?, ?, ?, ?, ?)", (at, table, by, dealer, note))
        self.commit()
        return int(cur.lastrowid or 0)

    def sign_in(self, at: str, name: str, source: str, what: str, verdict: str) -> None:
        self._begin()
        self.db.execute("INSERT INTO sign_ins (at, name, source, what, verdict) "
                        "VALUES (?, ?, ?, ?, ?)", (at, name, source, what, verdict))
        self.commit()

    def sign_in_history(self, since: str) -> list[tuple[str, str, str]]:
        """The sign-ins journaled at or after ``since`` (ISO), oldest first: (name, verdict,
        at), for the lockout to be rebuilt after a restart (station.web.lockout.replay)."""
        return [(str(n), str(v), str(a)) for n, v, a in self.db.execute(
            "SELECT name, verdict, at FROM sign_ins WHERE at >= ? ORDER BY id", (since,))]

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        """For tests and the docs' examples: read what was journaled."""
        return list(self.db.execute(sql, args))
