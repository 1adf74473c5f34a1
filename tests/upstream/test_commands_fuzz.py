"""The command verifier never raises, whatever arrives on the topic: seeded mutations of a
good command, and hypothesis-made bytes and objects. Each is refused with a known reason
(or, for a mutation that changed nothing the signature covers, accepted)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from station.wire.commands import REASONS, Accepted, CommandVerifier, Refused
from tests.sampling import examples
from tests.upstream.test_commands import NOW, POLICY, command


def _check(payload: bytes) -> Accepted | Refused:
    result = CommandVerifier(POLICY).verify(payload, NOW)
    if isinstance(result, Refused):
        assert result.reason in REASONS and result.detail
    return result


def _mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    op = rng.randrange(5)
    if op == 0 and b:  # flip a bit
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    elif op == 1 and b:  # truncate
        del b[rng.randrange(len(b)):]
    elif op == 2:  # insert junk
        i = rng.randrange(len(b) + 1)
        b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
    elif op == 3 and b:  # duplicate a slice
        i = rng.randrange(len(b))
        b[i:i] = b[i:i + rng.randrange(1, 20)]
    else:  # swap two bytes
        if len(b) > 1:
            i, j = rng.randrange(len(b)), rng.randrange(len(b))
            b[i], b[j] = b[j], b[i]
    return bytes(b)


def test_seeded_byte_mutations_never_raise() -> None:
    rng = random.Random(8)
    good = command(actor="ann")
    accepted = 0
    for _ in range(3000):
        data = good
        for _ in range(rng.randrange(1, 4)):
            data = _mutate(data, rng)
        if isinstance(_check(data), Accepted):
            accepted += 1
            # Only a change the signature does not cover (white space, say) may pass.
            assert json.loads(data) == json.loads(good)
    assert accepted < 300


def test_seeded_field_mutations_never_raise() -> None:
    rng = random.Random(9)
    weird: list[Any] = [None, True, 0, -1, 2**70, 1.5, "", "x" * 5000, [], {}, ["resume"],
                        {"a": 1}, "2026-13-45T99:99:99Z", "\x00", "\ud800", 1e308]
    fields = ["v", "id", "table", "action", "ts", "actor", "reason", "sig", "extra"]
    for _ in range(2000):
        body = json.loads(command())
        for _ in range(rng.randrange(1, 3)):
            field = rng.choice(fields)
            if rng.random() < 0.2:
                body.pop(field, None)
            else:
                body[field] = rng.choice(weird)
        try:
            payload = json.dumps(body).encode("utf-8", "surrogatepass")
        except ValueError:
            continue
        result = _check(payload)
        assert isinstance(result, Refused) or body == json.loads(command())


@settings(max_examples=examples(300))
@given(st.binary(max_size=600))
def test_arbitrary_bytes_are_refused(data: bytes) -> None:
    assert isinstance(_check(data), Refused)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=10,
)


@settings(max_examples=examples(300))
@given(st.dictionaries(st.sampled_from(["v", "id", "table", "action", "ts", "actor", "sig",
                                        "reason", "x"]), json_values, max_size=8))
def test_arbitrary_objects_are_refused(obj: dict[str, Any]) -> None:
    try:
        payload = json.dumps(obj).encode("utf-8", "surrogatepass")
    except (ValueError, OverflowError):
        return
    assert isinstance(_check(payload), Refused)
