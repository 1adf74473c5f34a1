"""The client library over a real station's signed stream (``station simulate --messages``):
verified, de-duplicated, ordered, gaps found, folded; and nothing fed in ever raises."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from station.client import (
    Applied,
    BadSignature,
    Duplicate,
    Finding,
    Floor,
    Gap,
    RewrittenHistory,
    SchemaFailure,
    TableState,
    UnknownTable,
    Unreadable,
    load_keys,
    schema_validator,
)
from station.client.words import line
from station.errors import ConfigError
from station.wire.messages import presence
from station.wire.signing import Signer, public_pem
from tests.client.clientkit import TABLE, Stream, simulated_stream
from tests.sampling import examples


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Stream:
    return simulated_stream(tmp_path_factory.mktemp("client"))


def floor_of(stream: Stream, window: int = 0) -> Floor:
    return Floor(load_keys(stream.keys_dir), validate=schema_validator(), window=window)


def feed_all(floor: Floor, stream: Stream, payloads: list[bytes]) -> list[Finding]:
    return [f for p in payloads for f in floor.feed(stream.topic(p), p)]


def snapshot(state: TableState) -> tuple[Any, ...]:
    return (state.online, state.phase, state.shoe, state.round, state.pause, state.dealer,
            state.mode, list(state.results), list(state.alerts), state.penetration)


def problems(found: list[Finding]) -> list[Finding]:
    return [f for f in found if f.problem]


def loads(p: bytes) -> dict[str, Any]:
    m: dict[str, Any] = orjson.loads(p)
    return m


def test_the_whole_stream_verifies_and_folds_into_the_tables_state(stream: Stream) -> None:
    floor = floor_of(stream)
    found = feed_all(floor, stream, stream.payloads)
    assert problems(found) == []
    assert all(isinstance(f, Applied) for f in found) and len(found) == len(stream.payloads)
    state = floor.state(TABLE)
    msgs = [loads(p) for p in stream.payloads]
    last_status = [m for m in msgs if m["kind"] == "status"][-1]
    rounds = [m for m in msgs if m["kind"] == "round"]
    assert (state.phase, state.shoe, state.round) == (
        last_status["phase"], last_status["shoe"], last_status["round"])
    assert state.online is True and state.dealer == "D042" and state.pause is None
    assert state.mode == "standard"
    assert [(r.round, r.winner) for r in state.results] == [
        (m["round"], m["winner"]) for m in rounds[-len(state.results):]]


def test_a_pause_shows_with_its_reason_until_the_resume(stream: Stream) -> None:
    floor = floor_of(stream)
    msgs = [loads(p) for p in stream.payloads]
    upto = next(i for i, m in enumerate(msgs) if m["kind"] == "pause")
    feed_all(floor, stream, stream.payloads[: upto + 1])
    pause = floor.state(TABLE).pause
    assert pause is not None and pause.reason == msgs[upto]["reason"]
    resumed = next(i for i, m in enumerate(msgs) if m["kind"] == "resume")
    feed_all(floor, stream, stream.payloads[upto + 1: resumed + 1])
    assert floor.state(TABLE).pause is None


def test_a_forged_message_is_refused_and_changes_nothing(stream: Stream) -> None:
    floor = floor_of(stream)
    at = next(i for i, p in enumerate(stream.payloads) if loads(p)["kind"] == "round")
    feed_all(floor, stream, stream.payloads[:at])
    before = snapshot(floor.state(TABLE))
    real = loads(stream.payloads[at])
    altered = real | {"winner": "tie" if real["winner"] != "tie" else "player"}
    other = Signer(Ed25519PrivateKey.generate()).sign(real)  # right bytes, wrong key
    for forged in (orjson.dumps(altered), other):
        found = floor.feed(stream.topic(forged), forged)
        assert len(found) == 1 and isinstance(found[0], BadSignature), found
        assert found[0].key == real["key"]
    assert snapshot(floor.state(TABLE)) == before
    # The real one still goes through: a forgery does not poison the de-duplication.
    assert isinstance(floor.feed(stream.topic(stream.payloads[at]), stream.payloads[at])[0],
                      Applied)


def test_a_dropped_events_message_is_a_gap_named_by_prev_seq(stream: Stream) -> None:
    floor = floor_of(stream)
    msgs = [loads(p) for p in stream.payloads]
    drop = next(i for i, m in enumerate(msgs) if m["kind"] == "card" and i > 100)
    before = max(m["seq"] for m in msgs[:drop] if m["kind"] != "status")
    found = feed_all(floor, stream, stream.payloads[:drop] + stream.payloads[drop + 1:])
    assert problems(found) == [Gap(TABLE, before, msgs[drop]["seq"])]
    assert problems(found)[0].detail == (  # type: ignore[union-attr]
        f"seq {msgs[drop]['seq']} never arrived (nor perhaps others after {before})")


def test_a_dropped_status_is_no_gap(stream: Stream) -> None:
    # The retained status is the latest state, not a stream (upstream.md).
    floor = floor_of(stream)
    drop = next(i for i, p in enumerate(stream.payloads) if loads(p)["kind"] == "status")
    found = feed_all(floor, stream, stream.payloads[:drop] + stream.payloads[drop + 1:])
    assert problems(found) == []


def test_duplicates_are_dropped_and_change_nothing(stream: Stream) -> None:
    floor = floor_of(stream)
    half = stream.payloads[: len(stream.payloads) // 2]
    feed_all(floor, stream, half)
    before = snapshot(floor.state(TABLE))
    again = feed_all(floor, stream, half[-50:])  # a reconnect's re-delivery
    assert all(isinstance(f, Duplicate) for f in again) and len(again) == 50
    assert snapshot(floor.state(TABLE)) == before


def test_reordered_messages_are_put_back_in_seq_order_within_the_window(stream: Stream) -> None:
    events = [p for p in stream.payloads if loads(p)["kind"] != "status"]
    swapped = list(events)
    for i in range(10, len(swapped) - 3, 40):
        swapped[i], swapped[i + 2] = swapped[i + 2], swapped[i]
    floor = floor_of(stream, window=4)
    found = feed_all(floor, stream, swapped)
    applied = [f for f in found if isinstance(f, Applied)]
    assert problems(found) == [] and len(applied) == len(events)
    assert [f.seq for f in applied] == sorted(loads(p)["seq"] for p in events)
    # With no window (an in-order transport, as MQTT is per topic), the same is a gap.
    strict = floor_of(stream, window=0)
    assert any(isinstance(f, Gap) for f in feed_all(strict, stream, swapped))


def test_a_message_held_for_a_link_that_never_comes_is_released_on_flush(stream: Stream) -> None:
    events = [p for p in stream.payloads if loads(p)["kind"] != "status"]
    floor = floor_of(stream, window=8)
    found = feed_all(floor, stream, events[:20] + events[21:23])
    assert problems(found) == [] and floor.tables[TABLE].order.held == 2
    released = floor.flush()
    assert [type(f) for f in released] == [Gap, Applied, Applied]
    assert released[0] == Gap(TABLE, loads(events[19])["seq"], loads(events[20])["seq"])


def test_a_table_with_no_key_is_never_trusted(stream: Stream) -> None:
    floor = Floor({}, validate=schema_validator())
    for p in stream.payloads[:5]:
        found = floor.feed(stream.topic(p), p)
        assert found == [UnknownTable(TABLE, f"no public key for table {TABLE!r}: not trusted")]


def test_a_signed_message_its_schema_refuses_is_not_applied(stream: Stream) -> None:
    floor = floor_of(stream)
    feed_all(floor, stream, stream.payloads[:30])
    before = snapshot(floor.state(TABLE))
    last = loads(stream.payloads[29])
    bad = Signer(stream.key).sign(last | {"seq": last["seq"] + 1000, "key": "x",
                                          "winnner": "tie"})
    found = floor.feed(stream.topic(bad), bad)
    assert len(found) == 1 and isinstance(found[0], SchemaFailure), found
    assert "winnner" in found[0].detail
    assert snapshot(floor.state(TABLE)) == before


def test_the_last_will_takes_the_table_offline_and_the_resent_status_back(stream: Stream) -> None:
    floor = floor_of(stream)
    feed_all(floor, stream, stream.payloads[:40])
    signer = Signer(stream.key)
    statuses = [loads(p) for p in stream.payloads[:40] if loads(p)["kind"] == "status"]
    # Registered at an earlier connect: it names an older record, which is no rewrite.
    will = signer.sign(presence(table=TABLE, ts=1_767_225_700.0, online=False,
                                journal=statuses[0]["journal"]))
    found = floor.feed(f"baccarat/{TABLE}/status", will)
    assert len(found) == 1 and isinstance(found[0], Applied), found
    assert floor.state(TABLE).online is False
    last = [p for p in stream.payloads[:40] if loads(p)["kind"] == "status"][-1]
    assert isinstance(floor.feed(f"baccarat/{TABLE}/status", last)[0], Applied)
    assert floor.state(TABLE).online is True


def test_a_status_whose_journal_head_contradicts_an_earlier_one_is_rewritten_history(
        stream: Stream) -> None:
    floor = floor_of(stream)
    found = feed_all(floor, stream, stream.payloads)
    assert not [f for f in found if f.problem]
    statuses = [loads(p) for p in stream.payloads if loads(p)["kind"] == "status"]
    heads = [(s["journal"]["id"], s["journal"]["seq"]) for s in statuses]
    assert heads == sorted(heads) and len({i for i, _ in heads}) == 1  # one journal, forward
    signer = Signer(stream.key)
    last = statuses[-1]
    nxt = last["seq"] + 1

    def status(seq: int, journal: dict[str, object]) -> bytes:
        body = {k: v for k, v in last.items() if k != "sig"}
        return signer.sign(body | {"seq": seq, "key": f"{TABLE}:status:{seq}",
                                   "journal": journal})

    # The same record with another hash: the journal was rewritten under the consumer.
    other = last["journal"] | {"head": "0" * 64}
    found = floor.feed(f"baccarat/{TABLE}/status", status(nxt, other))
    assert [type(f) for f in found] == [Applied, RewrittenHistory], found
    rewrite = found[1]
    assert isinstance(rewrite, RewrittenHistory) and "record" in rewrite.detail
    assert line(found[1]) is not None and "REWRITTEN HISTORY" in (line(found[1]) or "")
    # A journaled status that goes back to an earlier record.
    back = statuses[0]["journal"]
    found = floor.feed(f"baccarat/{TABLE}/status", status(nxt + 1, back))
    assert [type(f) for f in found] == [Applied, RewrittenHistory], found
    assert isinstance(found[1], RewrittenHistory) and "went back" in found[1].detail
    # A new journal (moved aside) starts again at its own record 0: no finding.
    fresh = {"id": "1" * 64, "seq": 0, "head": "1" * 64}
    found = floor.feed(f"baccarat/{TABLE}/status", status(nxt + 2, fresh))
    assert [type(f) for f in found] == [Applied], found


def test_a_message_on_another_tables_topic_or_the_wrong_topic_is_refused(stream: Stream) -> None:
    floor = floor_of(stream)
    p = stream.payloads[0]
    assert isinstance(floor.feed("baccarat/t6/events", p)[0], Unreadable)
    assert isinstance(floor.feed(f"baccarat/{TABLE}/status", p)[0], Unreadable)


def test_keys_are_read_as_station_keygen_writes_them(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate().public_key()
    (tmp_path / "t1.pub.pem").write_bytes(public_pem(key))
    (tmp_path / "t2.pub").write_bytes(public_pem(key))
    (tmp_path / "t1.pem").write_bytes(b"a private key is not read")
    assert sorted(load_keys(tmp_path)) == ["t1", "t2"]
    (tmp_path / "t3.pub").write_bytes(b"not a key")
    with pytest.raises(ConfigError, match=r"t3\.pub: not a PEM public key"):
        load_keys(tmp_path)
    with pytest.raises(ConfigError, match="not a directory"):
        load_keys(tmp_path / "none")


@settings(max_examples=examples(300), deadline=None)
@given(payload=st.one_of(
    st.binary(max_size=300),
    st.dictionaries(st.sampled_from(["table", "kind", "seq", "prev_seq", "key", "sig", "v",
                                     "online", "round", "shoe"]),
                    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
                              st.just(TABLE), st.lists(st.integers(), max_size=2)),
                    max_size=8).map(lambda d: json.dumps(d).encode())),
       topic=st.sampled_from([f"baccarat/{TABLE}/events", f"baccarat/{TABLE}/status", "x", ""]))
def test_nothing_fed_in_ever_raises(payload: bytes, topic: str) -> None:
    key = Ed25519PrivateKey.generate()
    for validate in (schema_validator(), None):
        floor = Floor({TABLE: key.public_key()}, validate=validate, window=2)
        found = floor.feed(topic, payload)
        assert found and all(f.problem for f in found)
        # Signed with the table's own key, it still never raises, schema or none.
        try:
            message = json.loads(payload)
            signed = Signer(key).sign(message) if isinstance(message, dict) else b""
        except ValueError:  # not JSON, or no canonical form (CanonicalError)
            continue
        if isinstance(message, dict) and message.get("table") == TABLE:
            floor.feed(topic, signed)
            floor.flush()


@settings(max_examples=examples(200), deadline=None)
@given(message=st.dictionaries(
    st.sampled_from(["kind", "seq", "round", "shoe", "hand", "cards", "status", "winner",
                     "reason", "dealer", "alert", "phase", "penetration", "anomalies"]),
    st.one_of(st.none(), st.integers(), st.text(max_size=4), st.lists(st.integers(), max_size=2),
              st.sampled_from(["round", "card", "reveal", "status", "shoe_report", "alert"])),
    max_size=8))
def test_words_never_raise_on_what_no_schema_checked(message: dict[str, Any]) -> None:
    from station.client.words import describe  # noqa: PLC0415

    assert describe({"table": TABLE} | message).startswith(TABLE)


def test_a_table_added_later_is_trusted_from_then_on(stream: Stream) -> None:
    floor = Floor({}, validate=schema_validator())
    p = stream.payloads[0]
    assert isinstance(floor.feed(stream.topic(p), p)[0], UnknownTable)
    floor.add(TABLE, load_keys(stream.keys_dir)[TABLE])
    assert isinstance(floor.feed(stream.topic(p), p)[0], Applied)


def test_an_online_status_ahead_of_the_journaled_ones_is_no_rewrite(stream: Stream) -> None:
    """At a connect the publisher says it is online naming the head committed then, and the
    journaled statuses of records committed before it come after (each names the head before
    its own record): behind the online status, yet no rewrite (station watch --strict once
    stopped on exactly this). A presence head is still held to its record's hash."""
    floor = floor_of(stream)
    signer = Signer(stream.key)
    statuses = [loads(p) for p in stream.payloads if loads(p)["kind"] == "status"]
    first, later = statuses[0], statuses[3]
    online = signer.sign(presence(table=TABLE, ts=1_767_225_603.0, online=True,
                                  journal=later["journal"]))
    assert [type(f) for f in floor.feed(f"baccarat/{TABLE}/status", online)] == [Applied]
    found = feed_all(floor, stream, stream.payloads)
    assert not [f for f in found if f.problem], [f for f in found if f.problem]
    forged = later["journal"] | {"head": "0" * 64}
    found = floor.feed(f"baccarat/{TABLE}/status",
                       signer.sign(presence(table=TABLE, ts=1_767_225_800.0, online=True,
                                            journal=forged)))
    assert [type(f) for f in found][-1] is RewrittenHistory, found
    assert first["journal"]["seq"] < later["journal"]["seq"]
