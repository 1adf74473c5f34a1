"""The hash chain, as pure functions: what each record's SHA-256 covers.

Record ``seq`` stores ``H(seq) = SHA-256(H(seq-1) || pack(">qdd", seq, wall, mono) ||
outbox_digest || body)``, and ``H(0)`` is the SHA-256 of the header's bytes, so the header,
every record and the outbox rows each record caused are bound together in order. Everything
before ``body`` has a fixed length, so the input cannot be split two ways.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence

HASH_SIZE = 32
_TIMES = struct.Struct(">qdd")
_LENGTH = struct.Struct(">I")


def header_hash(header: bytes) -> bytes:
    """``H(0)``: the digest the first record chains to."""
    return hashlib.sha256(header).digest()


def outbox_digest(messages: Sequence[tuple[str, bytes]]) -> bytes:
    """SHA-256 over the record's outbox rows in order, each as length-prefixed topic and
    payload (so moving bytes between topic and payload changes the digest)."""
    h = hashlib.sha256()
    for topic, payload in messages:
        t = topic.encode()
        h.update(_LENGTH.pack(len(t)))
        h.update(t)
        h.update(_LENGTH.pack(len(payload)))
        h.update(payload)
    return h.digest()


EMPTY_OUTBOX = outbox_digest(())


def record_hash(prev: bytes, *, seq: int, wall_ts: float, mono_ts: float, digest: bytes,
                body: bytes) -> bytes:
    """``H(seq)``; ``prev`` is ``H(seq-1)``, ``digest`` the record's ``outbox_digest``."""
    h = hashlib.sha256(prev)
    h.update(_TIMES.pack(seq, wall_ts, mono_ts))
    h.update(digest)
    h.update(body)
    return h.digest()


class Chain:
    """A journal's head computed as records are added, with no database: what ``station
    simulate --messages`` (which journals nothing) names in each status, as a journal of the
    same header and events would (docs/upstream.md, "The journal's head")."""

    def __init__(self, header: bytes) -> None:
        self.journal_id = header_hash(header)
        self.seq = 0
        self.hash = self.journal_id

    def add(self, *, wall_ts: float, mono_ts: float, messages: Sequence[tuple[str, bytes]],
            body: bytes) -> None:
        self.seq += 1
        self.hash = record_hash(self.hash, seq=self.seq, wall_ts=wall_ts, mono_ts=mono_ts,
                                digest=outbox_digest(messages), body=body)
