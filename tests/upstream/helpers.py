"""Message streams for the publisher tests: signed, one seq per outbox row."""

from __future__ import annotations

import json
from typing import Any

from station.journal.outbox import OutboxRow
from station.wire import messages as m
from station.wire.signing import Signer
from tests.upstream.broker import Received
from tests.upstream.outboxes import MemoryOutbox

# A status names a journal head (docs/upstream.md); these tests have no journal.
NO_JOURNAL = m.journal_head(bytes(32), 0, bytes(32))

TABLE = "table-1"
SHOE = "table-1-20260101T000003Z-1"
T0 = 1_767_225_603.0


def message_for(seq: int) -> dict[str, Any]:
    """A plausible stream: a status every 10th message, cards otherwise."""
    ts = T0 + seq * 0.5
    if seq % 10 == 0:
        return m.status(journal=NO_JOURNAL, table=TABLE, seq=seq, ts=ts, phase="dealing", shoe=SHOE,
                        round_no=seq // 10, paused=None)
    # One card per round number keeps every key distinct (the dedupe is by key).
    return m.card(table=TABLE, seq=seq, ts=ts, shoe=SHOE, round_no=seq, hand="player",
                  position=1, code="9H")


def produce(outbox: MemoryOutbox, signer: Signer, count: int) -> list[int]:
    ids = []
    for _ in range(count):
        seq = len(outbox.rows) + 1
        msg = message_for(seq)
        ids.append(outbox.append(m.topic_for(msg["kind"]), signer.sign(msg)))
    return ids


def deduped_seqs(received: list[Received]) -> list[int]:
    """Event and status seqs in arrival order, each key kept once (first arrival)."""
    seen: set[str] = set()
    out = []
    for r in received:
        msg = json.loads(r.payload)
        if "seq" not in msg or msg["key"] in seen:
            continue  # presence messages have no seq
        seen.add(msg["key"])
        out.append(msg["seq"])
    return out


def row_payloads(rows: list[OutboxRow]) -> dict[int, bytes]:
    return {r.id: r.payload for r in rows}
