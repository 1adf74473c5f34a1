"""The journal's SQLite schema and how its connections are opened.

``application_id`` and ``user_version`` sit in the file's first page, so a file can be told
apart from any other SQLite database before a single table is read.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final
from urllib.parse import quote

APPLICATION_ID: Final = 0x42414A31  # "BAJ1": baccarat journal
USER_VERSION: Final = 1
BUSY_TIMEOUT_MS: Final = 5000

# Statement text exactly as stored in sqlite_schema: verify compares it, so a trigger, an
# extra index or an altered table is found rather than trusted.
TABLES: Final = (
    ("table", "meta", "CREATE TABLE meta (key TEXT PRIMARY KEY, value BLOB NOT NULL)"),
    ("table", "events", "CREATE TABLE events (seq INTEGER PRIMARY KEY, wall_ts REAL NOT NULL, "
     "mono_ts REAL NOT NULL, body BLOB NOT NULL, outbox_digest BLOB NOT NULL, "
     "hash BLOB NOT NULL)"),
    ("table", "outbox", "CREATE TABLE outbox (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, "
     "topic TEXT NOT NULL, payload BLOB NOT NULL, delivered INTEGER NOT NULL DEFAULT 0)"),
    # Only undelivered rows are indexed, so the index stays as small as the backlog.
    ("index", "outbox_pending",
     "CREATE INDEX outbox_pending ON outbox (id) WHERE delivered = 0"),
    ("table", "head", "CREATE TABLE head (one INTEGER PRIMARY KEY CHECK (one = 1), "
     "seq INTEGER NOT NULL, hash BLOB NOT NULL)"),
)
# SQLite's own automatic index for meta's TEXT primary key.
AUTO_INDEXES: Final = frozenset({("index", "sqlite_autoindex_meta_1")})


def connect(path: Path, *, readonly: bool, frozen: bool = False) -> sqlite3.Connection:
    """A connection that never creates the file (``mode=ro``/``rw``) and reads every TEXT
    column as bytes, so a damaged string is a finding of ours, not a decode traceback.
    ``frozen``: read-only, of a journal nobody writes and with no WAL content (one moved
    aside): opened ``immutable``, so SQLite creates no ``-wal``/``-shm`` beside it and takes
    no lock, and it reads on a full disk too. Raises ``sqlite3.Error``."""
    mode = "ro&immutable=1" if frozen else "ro" if readonly else "rw"
    conn = sqlite3.connect(f"file:{quote(str(path))}?mode={mode}", uri=True,
                           isolation_level=None, check_same_thread=False)
    try:
        conn.text_factory = bytes
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA trusted_schema = OFF")
        conn.execute("PRAGMA cell_size_check = ON")
        if readonly or frozen:
            conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def create_schema(conn: sqlite3.Connection, header: bytes, header_digest: bytes) -> None:
    """Fill an empty database: WAL mode, identity, tables, the header and an empty head."""
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {USER_VERSION}")
    if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0] not in ("wal", b"wal"):
        raise sqlite3.OperationalError("this file system does not support WAL mode")
    conn.execute("BEGIN IMMEDIATE")
    for _, _, sql in TABLES:
        conn.execute(sql)
    conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [
        ("header", header), ("header_sha256", header_digest)])
    conn.execute("INSERT INTO head (one, seq, hash) VALUES (1, 0, ?)", (header_digest,))
    conn.execute("COMMIT")
