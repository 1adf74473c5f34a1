"""Inbound command verification: every refusal reason, acceptance, bounded memory."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.wire.commands import (
    ACTIONS,
    REASONS,
    Accepted,
    CommandPolicy,
    CommandVerifier,
    Refused,
    SeenIds,
    check_command,
)
from station.wire.messages import iso_ts
from station.wire.signing import Signer

NOW = 1_767_225_600.0
PIT = Ed25519PrivateKey.generate()
OTHER = Ed25519PrivateKey.generate()
POLICY = CommandPolicy("table-1", {"pit": PIT.public_key(), "ops": OTHER.public_key()},
                       window_s=30, skew_s=5, max_seen=3)


def command(key: Ed25519PrivateKey | None = PIT, **fields: Any) -> bytes:
    body: dict[str, Any] = {"v": 1, "id": "c-1", "table": "table-1", "action": "resume",
                            "ts": iso_ts(NOW - 1)}
    body.update(fields)
    body = {k: v for k, v in body.items() if v is not None}
    if key is None:
        return json.dumps(body).encode()
    return Signer(key).sign(body)


def refusal(payload: bytes, seen: SeenIds | None = None, now: float = NOW) -> Refused:
    result = check_command(payload, POLICY, now, seen or SeenIds())
    assert isinstance(result, Refused), result
    return result


def test_a_good_command_is_accepted_with_who_sent_it() -> None:
    result = check_command(command(actor="ann", reason="dealer error"), POLICY, NOW, SeenIds())
    assert result == Accepted("c-1", "resume", "pit", "ann", "dealer error", NOW - 1)
    assert result.sent_by == "upstream:pit/ann"
    other = check_command(command(OTHER, action="void"), POLICY, NOW, SeenIds())
    assert isinstance(other, Accepted) and other.sent_by == "upstream:ops"


@pytest.mark.parametrize("action", ACTIONS)
def test_every_action_is_accepted(action: str) -> None:
    # A pause needs its code (docs/rules.md); tests/core/test_procedures.py refuses it bare.
    code = "card_dropped" if action == "pause" else None
    # The archive's acknowledgement names a record (tests/upstream/test_archived_command.py).
    claim: dict[str, Any] = ({"journal": "a" * 64, "seq": 7, "head": "b" * 64}
                             if action == "archived" else
                             {"journal": "a" * 64, "seq": 7} if action == "resend" else {})
    assert isinstance(check_command(command(action=action, reason=code, **claim), POLICY, NOW,
                                    SeenIds()), Accepted)


@pytest.mark.parametrize(("payload", "reason", "detail"), [
    (b"\xff\xfe", "malformed", "not JSON"),
    (b"[1, 2]", "malformed", "not a JSON object"),
    (b"{" + b" " * 5000 + b"}", "malformed", "at most 4096"),
    (command(None), "unsigned", "no 'sig'"),
    (command(Ed25519PrivateKey.generate()), "bad_signature", "any configured"),
    (command(ts="yesterday"), "malformed", "'ts' must be"),
    (command(ts="2026-01-01T00:00:00"), "malformed", "time zone"),
    (command(v=2), "malformed", "'v' must be 1"),
    (command(id=""), "malformed", "'id' must be"),
    (command(actor=5), "malformed", "'actor'"),
    (command(extra="x"), "malformed", "unexpected field"),
    (command(table="table-2"), "wrong_table", "table-2"),
    (command(action="pay_everyone"), "unknown_action", "pay_everyone"),
    (command(ts=iso_ts(NOW - 31)), "stale", "older than 30 s"),
    (command(ts=iso_ts(NOW + 6)), "future", "ahead"),
])
def test_each_refusal_reason(payload: bytes, reason: str, detail: str) -> None:
    got = refusal(payload)
    assert got.reason == reason and reason in REASONS
    assert detail in got.detail


def test_tampering_after_signing_is_a_bad_signature() -> None:
    signed = json.loads(command())
    signed["action"] = "void"
    got = refusal(json.dumps(signed).encode())
    assert got.reason == "bad_signature" and got.action == "void"  # what it claimed


def test_no_configured_keys_refuses_everything() -> None:
    policy = CommandPolicy("table-1", {})
    got = check_command(command(), policy, NOW, SeenIds())
    assert isinstance(got, Refused) and got.reason == "bad_signature"
    assert "command_keys" in got.detail


def test_replay_is_refused_and_memory_is_bounded() -> None:
    verifier = CommandVerifier(POLICY)
    assert isinstance(verifier.verify(command(id="a"), NOW), Accepted)
    again = verifier.verify(command(id="a"), NOW + 1)
    assert isinstance(again, Refused) and again.reason == "replayed"
    assert isinstance(verifier.verify(command(id="b"), NOW), Accepted)
    assert isinstance(verifier.verify(command(id="c"), NOW), Accepted)
    full = verifier.verify(command(id="d"), NOW)
    assert isinstance(full, Refused) and full.reason == "overloaded"  # never forgets early
    # Once the window has passed, the ids are forgotten and a replay is refused as stale.
    later = NOW + 40
    late = verifier.verify(command(id="a"), later)
    assert isinstance(late, Refused) and late.reason == "stale"
    assert len(verifier.seen) == 0
    assert isinstance(verifier.verify(command(id="e", ts=iso_ts(later)), later), Accepted)


def test_check_command_does_not_change_the_seen_ids() -> None:
    seen = SeenIds()
    check_command(command(), POLICY, NOW, seen)
    assert len(seen) == 0
