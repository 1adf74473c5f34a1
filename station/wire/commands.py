"""Commands from upstream (``<prefix>/<table>/commands``): verified before anything acts.

A command is a signed JSON object (schemas/command.json)::

    {"v": 1, "id": "pit-7f3a", "table": "table-1", "action": "resume",
     "ts": "2026-01-01T12:00:03.120Z", "actor": "ann", "sig": "..."}

``check_command`` is pure: given the configured public keys, the time now, the freshness
window and the ids already seen, it returns ``Accepted`` (with who signed it) or ``Refused``
(one reason word from ``REASONS`` and a sentence), and never raises on any input.
``CommandVerifier`` adds the memory of seen ids, bounded: an id only has to be remembered
until its command would be refused as stale anyway.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

import orjson

from station.table.acks import claim_problem
from station.table.actions import ARCHIVED_ACTION, RESEND_ACTION, UPSTREAM_ACTIONS
from station.table.procedures import NOTE_MAX, pause_problem
from station.wire.signing import SignatureError, verify

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

ACTIONS: Final = tuple(UPSTREAM_ACTIONS)  # station.table.actions: the one list
REASONS: Final = (
    "malformed",  # not a JSON object, too big, or a field missing or of the wrong type
    "unsigned",  # no sig field
    "bad_signature",  # sig does not verify with any configured key
    "wrong_table",  # signed for another table
    "unknown_action",  # signed, but not an action this station takes
    "stale",  # older than the window
    "future",  # dated ahead of now by more than the allowed clock skew
    "replayed",  # an id already accepted
    "overloaded",  # more live ids than the station remembers: refused, never forgotten
    "not_now",  # taken, but the table's mode or state does not allow it now (the station's)
    "flood",  # the refusals past the first few of an interval, summed up in one (the daemon's)
)
MAX_COMMAND_BYTES: Final = 4096
MAX_ID = 128
MAX_ACTOR = 128
MAX_REASON = 500
_FIELDS: Final = {"v", "id", "table", "action", "ts", "actor", "reason", "note", "sig"}
# The archive's acknowledgement names a journal record: only ``archived`` has these, and needs
# all three (station.table.acks, docs/upstream.md).
_CLAIM: Final = ("journal", "seq", "head")


@dataclass(frozen=True, slots=True)
class Accepted:
    id: str
    action: str
    signer: str  # the configured name of the key that verified it
    actor: str | None  # the person the command names, if any
    reason: str | None
    ts: float  # when it was sent, seconds since the epoch
    note: str | None = None  # a pause's note (its ``reason`` is the pause's code)
    # ``archived``: the journal id, record seq and its chain hash the archive holds verified;
    # ``resend``: the journal id and the first record the archive lacks (``head`` empty).
    claim: tuple[str, int, str] | None = None

    @property
    def sent_by(self) -> str:
        """Who sent it, for the journal and the display: ``upstream:pit`` or
        ``upstream:pit/ann``."""
        return f"upstream:{self.signer}" + (f"/{self.actor}" if self.actor else "")


@dataclass(frozen=True, slots=True)
class Refused:
    reason: str  # one of REASONS
    detail: str
    id: str | None = None  # as the command claimed, when readable
    action: str | None = None


@dataclass(frozen=True, slots=True)
class CommandPolicy:
    table: str
    keys: Mapping[str, Ed25519PublicKey]  # name -> key; the name is who sent it
    window_s: float = 30.0  # older than this is stale
    skew_s: float = 5.0  # newer than now + this is from the future (a clock is wrong)
    max_seen: int = 10_000  # live ids remembered; beyond this commands are refused


class SeenIds:
    """Accepted command ids, each kept until its command would be stale anyway.

    Memory is bounded by the commands accepted within one window. Not thread-safe: one
    consumer (the MQTT callback thread, or the station loop) owns it.
    """

    def __init__(self) -> None:
        self._expiry: dict[str, float] = {}
        self._heap: list[tuple[float, str]] = []

    def __contains__(self, command_id: object) -> bool:
        return command_id in self._expiry

    def __len__(self) -> int:
        return len(self._expiry)

    def add(self, command_id: str, forget_after: float) -> None:
        self._expiry[command_id] = forget_after
        heapq.heappush(self._heap, (forget_after, command_id))

    def prune(self, now: float) -> None:
        """Forget ids whose commands are stale by ``now``."""
        while self._heap and self._heap[0][0] < now:
            _, command_id = heapq.heappop(self._heap)
            self._expiry.pop(command_id, None)


def _short(value: object, limit: int = 64) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _claimed(message: Mapping[str, Any], field: str, limit: int) -> str | None:
    value = message.get(field)
    return value[:limit] if isinstance(value, str) else None


def _parse_ts(value: object) -> float | None:
    if not isinstance(value, str) or len(value) > 40:  # far longer than any ISO time
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    try:
        return when.timestamp()
    except (OverflowError, OSError, ValueError):
        return None


def _signer(message: Mapping[str, Any], keys: Mapping[str, Ed25519PublicKey]) -> str | None:
    for name in sorted(keys):
        try:
            verify(message, keys[name])
        except SignatureError:
            continue
        return name
    return None


def _field_problem(message: Mapping[str, Any]) -> str | None:
    extra = set(message) - _FIELDS - set(_CLAIM)
    if extra:
        return f"unexpected field(s) {', '.join(sorted(_short(k) for k in extra))}"
    if message.get("v") != 1 or isinstance(message.get("v"), bool):
        return f"'v' must be 1, got {_short(message.get('v'))}"
    for field, limit in (("id", MAX_ID), ("table", MAX_ID), ("action", MAX_ID)):
        value = message.get(field)
        if not isinstance(value, str) or not value or len(value) > limit:
            return f"'{field}' must be a string of 1-{limit} characters, got {_short(value)}"
    for field, limit in (("actor", MAX_ACTOR), ("reason", MAX_REASON), ("note", NOTE_MAX)):
        value = message.get(field)
        if field in message and (not isinstance(value, str) or len(value) > limit):
            return f"'{field}' must be a string of at most {limit} characters"
    if _parse_ts(message.get("ts")) is None:
        return (f"'ts' must be an ISO 8601 time with a time zone, got "
                f"{_short(message.get('ts'))}")
    if message.get("action") == "pause":
        # A pause's reason is its code (docs/rules.md); a bad one changes nothing.
        problem = pause_problem(message.get("reason"), message.get("note"))
        if problem is not None:
            return problem
    elif "note" in message:
        return "'note' goes with a pause only"
    if message.get("action") == ARCHIVED_ACTION:
        return claim_problem(*(message.get(k) for k in _CLAIM))
    if message.get("action") == RESEND_ACTION:
        if "head" in message:
            return "'head' goes with archived only: a resend names a journal and a seq"
        return claim_problem(message.get("journal"), message.get("seq"), "0" * 64)
    given = [k for k in _CLAIM if k in message]
    if given:
        return (f"{', '.join(repr(k) for k in given)}: only an archived or resend command "
                "names a record")
    return None


def check_command(payload: bytes, policy: CommandPolicy, now: float,
                  seen: SeenIds) -> Accepted | Refused:
    """Verify one command payload. Pure: reads ``seen``, never changes it; never raises."""
    if len(payload) > MAX_COMMAND_BYTES:
        return Refused("malformed", f"{len(payload)} bytes; a command is at most "
                                    f"{MAX_COMMAND_BYTES}")
    try:
        message = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return Refused("malformed", "not JSON (UTF-8)")
    if not isinstance(message, dict):
        return Refused("malformed", "not a JSON object")
    cid, action = _claimed(message, "id", MAX_ID), _claimed(message, "action", MAX_ID)
    if "sig" not in message:
        return Refused("unsigned", "no 'sig' field: commands must be signed", cid, action)
    if not policy.keys:
        return Refused("bad_signature", "no command keys are configured "
                                        "(upstream.command_keys)", cid, action)
    signer = _signer(message, policy.keys)
    if signer is None:
        return Refused("bad_signature", "the signature does not verify with any configured "
                                        "command key", cid, action)
    problem = _field_problem(message)
    if problem is not None:
        return Refused("malformed", problem, cid, action)
    assert cid is not None and action is not None
    if message["table"] != policy.table:
        return Refused("wrong_table", f"for table {_short(message['table'])}, this is "
                                      f"{policy.table!r}", cid, action)
    if action not in ACTIONS:
        return Refused("unknown_action", f"{_short(action)} is not one of "
                                         f"{', '.join(ACTIONS)}", cid, action)
    ts = _parse_ts(message["ts"])
    assert ts is not None
    if ts > now + policy.skew_s:
        return Refused("future", f"dated {ts - now:.1f} s ahead of this station's clock "
                                 f"(allowed skew {policy.skew_s:g} s)", cid, action)
    if ts < now - policy.window_s:
        return Refused("stale", f"sent {now - ts:.1f} s ago; commands older than "
                                f"{policy.window_s:g} s are refused", cid, action)
    if cid in seen:
        return Refused("replayed", f"id {_short(cid)} was already accepted", cid, action)
    if len(seen) >= policy.max_seen:
        return Refused("overloaded", f"{len(seen)} commands within {policy.window_s:g} s; "
                                     "refusing more", cid, action)
    actor = message.get("actor")
    reason = message.get("reason")
    claim = ((message["journal"], message["seq"], message["head"])
             if action == ARCHIVED_ACTION else
             (message["journal"], message["seq"], "") if action == RESEND_ACTION else None)
    return Accepted(cid, action, signer, actor or None, reason, ts, message.get("note"), claim)


class CommandVerifier:
    """``check_command`` plus the memory of accepted ids. One thread calls ``verify``."""

    def __init__(self, policy: CommandPolicy) -> None:
        self.policy = policy
        self.seen = SeenIds()

    def verify(self, payload: bytes, now: float) -> Accepted | Refused:
        self.seen.prune(now)
        result = check_command(payload, self.policy, now, self.seen)
        if isinstance(result, Accepted):
            # Kept until the command is stale (a second of margin against float rounding
            # at the boundary): a replay after that is refused as stale instead.
            self.seen.add(result.id, result.ts + self.policy.window_s + 1.0)
        return result
