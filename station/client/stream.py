"""Feed a table's raw messages in, get findings out: verify, validate, de-duplicate, order,
fold. No broker code: the caller hands over each payload and the topic it came on.

``Floor`` takes every table's messages (``<prefix>/+/events`` and ``<prefix>/+/status``) and
trusts only the tables it has a public key for; ``TableStream`` is one table's part of it.
Nothing fed in raises: whatever the bytes, the answer is a list of findings, and a message
that fails a check is never applied.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from station.client.findings import (
    Applied,
    BadSignature,
    Duplicate,
    Finding,
    Gap,
    RewrittenHistory,
    SchemaFailure,
    UnknownTable,
    Unreadable,
)
from station.client.order import Sequencer, Take
from station.client.state import TableState
from station.wire.signing import SignatureError, verify

Validator = Callable[[dict[str, Any]], None]  # raises ValueError naming the problem


def schema_validator() -> Validator | None:
    """``station.wire.schema.validate`` when the ``jsonschema`` package is there (a
    dependency of the station since the client; a consumer that copies only this package may
    lack it), else None: the signature and order are still checked."""
    try:
        import jsonschema  # noqa: F401, PLC0415 - only to know whether it is there
    except ImportError:
        return None
    from station.wire.schema import validate  # noqa: PLC0415

    return validate


class TableStream:
    """One table: its key, its sequencer and its folded state."""

    def __init__(self, table: str, key: Ed25519PublicKey, *,
                 validate: Validator | None = None, window: int = 0) -> None:
        self.table = table
        self.key = key
        self.validate = validate
        self.order = Sequencer(window)
        self.state = TableState(table)

    def feed_message(self, m: dict[str, Any]) -> list[Finding]:
        """A parsed message that names this table (its topic already checked)."""
        key = m.get("key") if isinstance(m.get("key"), str) else None
        try:
            verify(m, self.key)
        except SignatureError as exc:
            return [BadSignature(self.table, key, str(exc))]
        if self.validate is not None:
            try:
                self.validate(m)
            except ValueError as exc:
                return [SchemaFailure(self.table, key, str(exc))]
        elif not _minimal(m):
            return [SchemaFailure(self.table, key, "no key, kind or seq where the "
                                  "contract requires them")]
        assert key is not None
        takes = self.order.offer(m)
        if takes is None:
            return self._duplicate(m, key)
        return self._apply(takes)

    def flush(self) -> list[Finding]:
        """Stop waiting for the messages held messages link to (with ``window`` > 0)."""
        return self._apply(self.order.flush())

    def _duplicate(self, m: Mapping[str, Any], key: str) -> list[Finding]:
        seq = m.get("seq")
        # The last journaled status, re-sent on a reconnect after an offline last will:
        # the same bytes, but it says the station is back.
        if (m.get("kind") == "status" and seq == self.order.last_status
                and m.get("online") is True and self.state.online is False):
            self.state.online = True
            return [Applied(self.table, "status", seq, key, m)]
        return [Duplicate(self.table, key, seq if isinstance(seq, int) else None)]

    def _apply(self, takes: list[Take]) -> list[Finding]:
        out: list[Finding] = []
        for t in takes:
            m = t.message
            if t.gap_after is not None and m.get("prev_seq") is not None:
                out.append(Gap(self.table, t.gap_after, m["prev_seq"]))
            try:
                rewritten = self.state.head_problem(m)
                self.state.apply(m)
            except (KeyError, TypeError, AttributeError, ValueError) as exc:
                # Only without the schemas: signed by the table's key, yet not the contract.
                out.append(SchemaFailure(self.table, m.get("key"), f"cannot fold: {exc!r}"))
                continue
            out.append(Applied(self.table, m["kind"], m.get("seq"), m["key"], m))
            if rewritten is not None:
                out.append(RewrittenHistory(self.table, m["key"], rewritten))
        return out


class Floor:
    """Every table of a broker's prefix, each checked with its own key."""

    def __init__(self, keys: Mapping[str, Ed25519PublicKey], *,
                 validate: Validator | None = None, window: int = 0) -> None:
        self._validate, self._window = validate, window
        self.tables = {t: TableStream(t, k, validate=validate, window=window)
                       for t, k in keys.items()}

    def add(self, table: str, key: Ed25519PublicKey) -> None:
        """Trust a table from now on (a key added while running); a table already known
        keeps its stream and state."""
        if table not in self.tables:
            self.tables[table] = TableStream(table, key, validate=self._validate,
                                             window=self._window)

    def feed(self, topic: str, payload: bytes) -> list[Finding]:
        """Findings of one payload as it came off ``topic`` (``<prefix>/<table>/events`` or
        ``.../status``; any other topic is taken as given). Never raises."""
        try:
            m = orjson.loads(payload)
        except orjson.JSONDecodeError as exc:
            return [Unreadable(topic, f"not JSON: {exc}")]
        if not isinstance(m, dict):
            return [Unreadable(topic, "not a JSON object")]
        table = m.get("table")
        if not isinstance(table, str):
            return [Unreadable(topic, "no 'table' string")]
        parts = topic.split("/")
        if len(parts) >= 2 and parts[-1] in ("events", "status") and parts[-2] != table:
            return [Unreadable(topic, f"a message of table {table!r} on {parts[-2]!r}'s topic")]
        if len(parts) >= 2 and parts[-1] in ("events", "status") and \
                (parts[-1] == "status") != (m.get("kind") == "status"):
            return [Unreadable(topic, f"a {m.get('kind')!r} message on the {parts[-1]} topic")]
        stream = self.tables.get(table)
        if stream is None:
            return [UnknownTable(table, f"no public key for table {table!r}: not trusted")]
        return stream.feed_message(m)

    def flush(self) -> list[Finding]:
        return [f for s in self.tables.values() for f in s.flush()]

    def state(self, table: str) -> TableState:
        return self.tables[table].state


def _minimal(m: Mapping[str, Any]) -> bool:
    """Without the schemas: what ordering itself needs (every kind but a presence status
    has an int ``seq``; events have ``prev_seq``)."""
    if not isinstance(m.get("key"), str) or not isinstance(m.get("kind"), str):
        return False
    seq = m.get("seq")
    if m["kind"] == "status":
        return seq is None or (isinstance(seq, int) and not isinstance(seq, bool))
    prev = m.get("prev_seq")
    return (isinstance(seq, int) and not isinstance(seq, bool)
            and (prev is None or (isinstance(prev, int) and not isinstance(prev, bool))))
