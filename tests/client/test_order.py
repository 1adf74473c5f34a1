"""The Sequencer's de-duplication by ``seq`` (issue 23: the pit's memory flat): the same
findings as the rule "once per key" on any interleaving of re-deliveries and reorders of a
real station's signed stream, and a state per table bounded whatever the stream's length."""

from __future__ import annotations

import functools
import gc
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.client import (
    Applied,
    Duplicate,
    Finding,
    Floor,
    Gap,
    load_keys,
    schema_validator,
)
from station.client.order import PRESENCE_KEPT, Sequencer
from station.wire.messages import presence
from station.wire.signing import Signer
from tests.client.clientkit import TABLE, Stream, simulated_stream
from tests.client.reference_order import KeyedSequencer
from tests.sampling import examples

PREFIX = 160  # messages of the real stream each example reorders (a few shoes' rounds)


@functools.cache
def case() -> tuple[Stream, list[bytes]]:
    """The stream's first messages with the station's presence statuses of a reconnect in
    the middle: the last will (offline), then the publisher's own online status. Made once
    and kept out of the test's arguments (hypothesis prints those on a failure)."""
    stream = simulated_stream(Path(tempfile.mkdtemp(prefix="order-")))
    signer = Signer(stream.key)
    head = next(m["journal"] for m in map(orjson.loads, stream.payloads)
                if m["kind"] == "status")
    will = signer.sign(presence(table=TABLE, ts=1_767_225_700.0, online=False, journal=head))
    back = signer.sign(presence(table=TABLE, ts=1_767_225_760.0, online=True, journal=head))
    out = list(stream.payloads[:PREFIX])
    out[PREFIX // 2:PREFIX // 2] = [will, back]
    return stream, out


def topic(p: bytes) -> str:
    kind = orjson.loads(p)["kind"]
    return f"baccarat/{TABLE}/{'status' if kind == 'status' else 'events'}"


Plan = tuple[list[tuple[int, int]], list[tuple[int, int]], int]
PLANS = st.tuples(st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 6)), max_size=12),
                  st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 8)), max_size=12),
                  st.integers(0, 20))


def deliveries(base: list[bytes], plan: Plan, reach: int) -> list[bytes]:
    """``base`` as an at-least-once, maybe-reordered transport delivers it: events moved
    after at most ``reach`` later events (so the ones they overtook wait for them), messages
    delivered again soon after (up to 9 places later: while the first copy may still be
    held), and perhaps a reconnect's re-sending of the last few."""
    moves, copies, tail = plan
    order = list(base)
    for at, by in moves:
        events = [i for i, p in enumerate(order) if orjson.loads(p)["kind"] != "status"]
        # Not the first: it starts the chain, and a late one is no loss (a late subscriber).
        j = 1 + at % (len(events) - 2)
        after = events[min(len(events) - 1, j + 1 + by % reach)]
        order.insert(after, order.pop(events[j]))
    for at, later in copies:
        i = at % len(order)
        order.insert(min(len(order), i + 1 + later), order[i])
    return order + order[len(order) - tail:]


def run(stream: Stream, order: list[bytes], window: int, keyed: bool) -> tuple[Any, ...]:
    floor = Floor(load_keys(stream.keys_dir), validate=schema_validator(), window=window)
    if keyed:
        floor.tables[TABLE].order = KeyedSequencer(window)  # type: ignore[assignment]
    found: list[Finding] = [f for p in order for f in floor.feed(topic(p), p)]
    found += floor.flush()
    s = floor.state(TABLE)
    return (found, s.online, s.phase, s.shoe, s.round, s.pause, s.dealer, s.mode,
            list(s.results), list(s.alerts), s.journal)


@settings(max_examples=examples(30), deadline=None)
@given(plan=PLANS, window=st.integers(0, 6))
def test_any_interleaving_of_redeliveries_and_reorders_gives_the_keyed_rules_findings(
        plan: Plan, window: int) -> None:
    stream, base = case()
    order = deliveries(base, plan, max(1, window))
    by_seq = run(stream, order, window, keyed=False)
    assert by_seq == run(stream, order, window, keyed=True)
    found = by_seq[0]
    # Nothing applied twice; every events message applied unless a gap was told (a status
    # overtaken by a newer one is superseded, no loss: docs/upstream.md).
    applied = [f.key for f in found if isinstance(f, Applied)]
    assert len(applied) == len(set(applied))
    events = {m["key"] for m in map(orjson.loads, base) if m["kind"] != "status"}
    assert events <= set(applied) or any(isinstance(f, Gap) for f in found)
    # Every copy is a Duplicate, but one: the last status re-sent after the last will.
    assert len([f for f in found if isinstance(f, Duplicate)]) >= len(order) - len(base) - 1


def synthetic(n: int) -> Iterator[dict[str, Any]]:
    """A long stream's ordering fields (the Sequencer sees nothing else): events linked by
    prev_seq, a journaled status every fifth, a presence status every thousandth, every
    seventh message delivered again and pairs of events swapped."""
    last_event: int | None = None
    pending: list[dict[str, Any]] = []
    for seq in range(1, n + 1):
        if seq % 1000 == 0:
            yield {"kind": "status", "key": f"{TABLE}:status:online:{seq}"}
        if seq % 5 == 0:
            m: dict[str, Any] = {"kind": "status", "seq": seq, "key": f"{TABLE}:status:{seq}"}
        else:
            m = {"kind": "round", "seq": seq, "prev_seq": last_event, "key": f"r{seq}:round"}
            last_event = seq
        if seq % 11 == 0 and m["kind"] != "status":
            pending.append(m)  # overtaken by the next events message
            continue
        yield m
        if m["kind"] != "status":
            yield from pending
            pending.clear()
        if seq % 7 == 0:
            yield m


def deep_size(root: object) -> int:
    """Bytes of ``root`` and everything it holds (shared immutable objects counted too)."""
    seen: set[int] = set()
    todo = [root]
    total = 0
    while todo:
        o = todo.pop()
        if id(o) in seen or isinstance(o, type | ModuleType | FunctionType):
            continue
        seen.add(id(o))
        total += sys.getsizeof(o)
        todo.extend(gc.get_referents(o))
    return total


@pytest.mark.parametrize("window", [0, 16])
def test_a_tables_ordering_state_is_bounded_whatever_the_streams_length(window: int) -> None:
    seq = Sequencer(window)
    messages = synthetic(200_000)
    taken = 0
    for _ in range(2_000):
        taken += len(seq.offer(next(messages)) or [])
    early = deep_size(seq)
    for m in messages:
        taken += len(seq.offer(m) or [])
    if window:  # every message once, presence statuses included (with none, the
        assert taken == 200_000 + 200  # overtaken ones are gaps: no message waits)
    assert seq.held <= window and seq.last_event is not None
    # 198,000 messages later, the same few numbers, held messages and presence keys.
    assert deep_size(seq) <= early + 2_048, (early, deep_size(seq))
    assert deep_size(seq) < 32_768


def test_a_presence_status_is_taken_once_per_key_among_the_last_few() -> None:
    seq = Sequencer()
    keys = [f"{TABLE}:status:online:{n}" for n in range(PRESENCE_KEPT + 1)]
    for k in keys:
        assert seq.offer({"kind": "status", "key": k}) is not None
    # The broker's retained status delivered again on a resubscribe: one of the last few.
    assert seq.offer({"kind": "status", "key": keys[-1]}) is None
    assert seq.offer({"kind": "status", "key": keys[1]}) is None
