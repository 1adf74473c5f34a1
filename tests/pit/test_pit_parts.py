"""The pit's parts without a broker: the SSE ring, the alert book, the command answers."""

from __future__ import annotations

import asyncio
from typing import Any

from station.client import Floor
from station.services.pit.alerts import MAX_ALERTS, AlertBook
from station.services.pit.feed import Feed
from station.services.pit.model import Action, Extra, PitModel, named_ids


def test_a_page_that_falls_out_of_the_ring_skips_to_the_latest_floor() -> None:
    async def go() -> None:
        feed = Feed(ring=4)
        feed.push("tables", b"T1")
        cursor, frames = feed.since(0)
        assert frames == [b"event: tables\ndata: T1\n\n"] and cursor == 1
        feed.push("alert", b"A1")
        feed.push("tables", b"T2")
        for n in range(5):
            feed.push("table", b"%d" % n)
        # cursor 1: frames 2..8 were pushed, the ring holds 5..8; A1 and T2 fell out. The
        # page gets the floor as it is (T2), then what followed that is still held.
        cursor, frames = feed.since(cursor)
        assert cursor == 8
        assert frames == [b"event: tables\ndata: T2\n\n"] + [
            b"event: table\ndata: %d\n\n" % n for n in range(1, 5)]
        assert feed.since(cursor) == (8, [])
    asyncio.run(go())


def test_a_repeating_problem_is_counted_and_the_book_is_bounded() -> None:
    book = AlertBook()
    first = book.raise_("t", "bad_signature", "message k: no", None, "t0")
    for _ in range(3):
        assert book.raise_("t", "bad_signature", "message k: no", None, "t1") is first
    assert first.detail == "message k: no (4 times)" and len(book) == 1
    book.ack(first, "ann", "t2")
    assert book.raise_("t", "bad_signature", "again", None, "t3") is not first
    for n in range(MAX_ALERTS + 10):
        book.raise_(f"u{n}", "unknown_table", "no key", None, "t4")
    assert len(book) == MAX_ALERTS


class Journal:
    def __init__(self) -> None:
        self.answers: list[tuple[str, str]] = []

    def seen(self, *a: Any, **k: Any) -> None: ...

    def alert(self, *a: Any, **k: Any) -> None: ...

    def alert_detail(self, *a: Any) -> None: ...

    def cleared(self, *a: Any) -> None: ...

    def answered(self, cid: str, state: str, detail: str | None, at: str) -> None:
        self.answers.append((cid, state))


def test_names_and_a_guess_corrected_by_the_refusal() -> None:
    assert named_ids({"by": "upstream:pit/ann [pit-1]"}) == ["pit-1"]
    assert named_ids({"shuffle": {"confirmed_by": "upstream:pit/ann [pit-2]"}}) == ["pit-2"]
    journal = Journal()
    model = PitModel(Floor({}), journal)
    model.extra["t"] = Extra()
    model._raise("t", "pause", "card not due: 3S", None, "t0")
    model.sent(Action("pit-9", "t", "void", "ann", "t0"))
    # The pause clears with no message naming the command: taken for applied ...
    model._answers("t", {"kind": "status", "seq": 5, "paused": None}, "t1")
    assert journal.answers == [("pit-9", "applied")]
    # ... until the table says it refused it (someone else had cleared the pause).
    model._answers("t", {"kind": "command_refused", "command_id": "pit-9",
                         "reason": "not_now", "detail": "not possible while between rounds"},
                   "t2")
    assert journal.answers[-1] == ("pit-9", "refused")


def test_made_up_table_names_cannot_flood_the_alerts() -> None:
    """Whoever can publish may name any table: 20 new alerts at once, then one a second,
    the rest counted in the newest."""
    model = PitModel(Floor({}), Journal())
    for n in range(500):
        payload = b'{"table": "g%d", "kind": "dealer"}' % n
        model.ingest(f"baccarat/g{n}/events", payload, "t", received=1000.0 + n / 1000)
    unknown = [a for a in model.alerts if a.kind == "unknown_table"]
    assert len(unknown) == 20
    assert unknown[-1].detail.endswith("(481 times)")
    model.ingest("baccarat/late/events", b'{"table": "late", "kind": "dealer"}', "t",
                 received=1002.0)
    assert len([a for a in model.alerts if a.kind == "unknown_table"]) == 21


def test_the_ring_is_bounded_in_bytes_too() -> None:
    async def go() -> None:
        feed = Feed(ring=100, ring_bytes=10_000)
        for n in range(50):
            feed.push("tables", b"x" * 1000 + b"%d" % n)
        _, frames = feed.since(49)
        assert frames == [b"event: tables\ndata: " + b"x" * 1000 + b"49\n\n"]
        held = feed.since(41)[1]  # the ring holds the last nine (1 KiB each) of 50
        assert len(held) == 9 and sum(len(f) for f in held) <= 10_000
        assert len(feed.since(0)[1]) == 1  # the first 41 are gone: the floor now
    asyncio.run(go())
