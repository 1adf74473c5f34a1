"""Numbers, builds and signs the upstream messages of each applied event, for the journal.

The bytes made here are final: they are journaled with the event that caused them (one
transaction) and every delivery, first or repeated, sends them unchanged. ``seq`` goes on
from the newest message in the journal, so it only ever increases for a table. Every message
on the events topic also carries ``prev_seq``, the ``seq`` of the events message before it
(null for the table's first), so a consumer of that topic alone can tell a lost message from
a status it did not subscribe to (docs/upstream.md). Both numbers go on from the journal's
outbox at a start, so a replay of the same events rebuilds the same bytes.

Every status names the journal's head as it was before the event's record (``journal``): the
daemon's feed reads it off the journal (``head``); a feed with no journal (``station simulate
--messages``, a replay of a recording) computes the chain a journal of the same header and
events would hold, each record at its event's time (``chain``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from drivers.events import InputEvent
from station import __version__
from station.table.outputs import Output
from station.wire import messages as m
from station.wire.canonical import canonical
from station.wire.chain import Chain
from station.wire.commands import Refused
from station.wire.observe import Snapshot, build, changes
from station.wire.recording import event_to_json
from station.wire.signing import Signer

Payloads = list[tuple[str, bytes]]  # (topic, payload), as Journal.append takes them
# The journal's head before the record being built: (journal id, seq, chain hash).
HeadSource = Callable[[], tuple[bytes, int, bytes]]


class Feed:
    """Called on the station loop only."""

    def __init__(self, table: str, decks: int, signer: Signer | None, last_seq: int = 0,
                 last_events_seq: int | None = None, *, head: HeadSource | None = None,
                 chain: Chain | None = None) -> None:
        """``head``: the journal's (the daemon); without it, ``chain`` is advanced by each
        ``messages`` call, one record per event (a chain of an empty header if not given)."""
        self.table = table
        self.decks = decks
        self.signer = signer
        self.seq = last_seq
        # The seq of the newest message on the events topic: the next one's prev_seq.
        self.events_seq = last_events_seq
        self._head = head
        self.chain = None if head is not None else (chain if chain is not None else Chain(b""))

    def messages(self, before: Snapshot, after: Snapshot, event: InputEvent,
                 outputs: list[Output]) -> Payloads:
        pending = changes(before, after, event, outputs, self.decks)
        # Only a status names the head: most events cause none.
        journal = self._journal() if any(k == m.STATUS for k, _ in pending) else None
        out = [self._payload(build(kind, args, table=self.table, seq=self._next(),
                                   journal=journal))
               for kind, args in pending]
        if self.chain is not None:
            # The record a journal would write for this event, at the event's own time (its
            # body as encode_event makes it, without the store's round-trip check: a
            # simulation's events are the station's own).
            body = orjson.dumps(event_to_json(event), option=orjson.OPT_SORT_KEYS)
            self.chain.add(wall_ts=event.ts, mono_ts=event.ts, messages=out, body=body)
        return out

    def _journal(self) -> dict[str, Any]:
        if self._head is not None:
            return m.journal_head(*self._head())
        assert self.chain is not None
        return m.journal_head(self.chain.journal_id, self.chain.seq, self.chain.hash)

    def refused(self, refused: Refused, ts: float) -> Payloads:
        return [self._payload(m.command_refused(
            table=self.table, seq=self._next(), ts=ts, command_id=refused.id,
            action=refused.action, reason=refused.reason, detail=refused.detail))]

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def _payload(self, message: dict[str, Any]) -> tuple[str, bytes]:
        # Which station built it: an optional key every schema allows (docs/upstream.md).
        message[m.STATION_VERSION] = __version__
        topic = m.topic_for(message["kind"])
        if topic == m.EVENTS_TOPIC:
            # The link a consumer of events alone checks for gaps; status (retained, the
            # latest state only) is not linked.
            message[m.PREV_SEQ] = self.events_seq
            self.events_seq = message["seq"]
        # Unsigned only for the file upstream with no key configured (documented): the MQTT
        # upstream refuses to start without one.
        data = self.signer.sign(message) if self.signer is not None else canonical(message)
        return topic, data
