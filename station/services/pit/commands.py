"""The pit bosses' actions as the station's signed commands (docs/upstream.md, "Commands
from upstream"): what a request body may hold, and the command it becomes (pure but for the
signature, which the caller's ``Signer`` makes)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from typing import Any, Final

from station.table.actions import PIT_ACTIONS
from station.table.procedures import NOTE_MAX, pause_problem
from station.wire.commands import MAX_REASON

ACTIONS: Final = PIT_ACTIONS  # station.table.actions: the one list, those marked pit
BODY_KEYS: Final = frozenset({"name", "pin", "reason", "note"})
DEALER_KEYS: Final = frozenset({"name", "pin", "dealer", "note"})
ACK_KEYS: Final = frozenset({"name", "pin"})
KIND_ACK_KEYS: Final = frozenset({"name", "pin", "kind"})
_KIND: Final = re.compile(r"[a-z][a-z0-9_]{0,63}")
NAME_MAX: Final = 32  # station.web.pins.NAME_RE
DEALER_MAX: Final = 64


def new_id(pit: str) -> str:
    """Unique per command: the pit's name and 12 random hex digits (the station refuses a
    reused id)."""
    return f"{pit}-{secrets.token_hex(6)}"


def body_problem(body: object, allowed: frozenset[str]) -> str | None:
    """What is wrong with a request body's shape, or None."""
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    unknown = sorted(str(k) for k in body if k not in allowed)
    if unknown:
        return f"unknown field {unknown[0][:40]!r}; fields: {', '.join(sorted(allowed))}"
    name, pin = body.get("name"), body.get("pin")
    if not isinstance(name, str) or not 1 <= len(name) <= NAME_MAX:
        return f"name must be the pit boss's name (1-{NAME_MAX} characters)"
    if not isinstance(pin, str) or not 1 <= len(pin) <= 64:
        return "pin must be the pit boss's PIN or badge (1-64 characters)"
    return None


def command_problem(action: str, body: Mapping[str, Any]) -> str | None:
    """What is wrong with an action's reason and note, or None (the station's own checks,
    so a command the station would refuse as malformed is refused here first)."""
    if action not in ACTIONS:
        return f"unknown action {action[:40]!r}; one of {', '.join(ACTIONS)}"
    reason, note = body.get("reason"), body.get("note")
    if action == "pause":
        return pause_problem(reason, note)
    if note is not None:
        return "note goes with a pause only (a void's reason is its note on the record)"
    if reason is not None and (not isinstance(reason, str) or not 1 <= len(reason) <= MAX_REASON
                               or not reason.isprintable()):
        return f"reason must be 1-{MAX_REASON} printable characters"
    return None


def dealer_problem(body: Mapping[str, Any]) -> str | None:
    dealer, note = body.get("dealer"), body.get("note")
    if dealer is not None and (not isinstance(dealer, str)
                               or not 1 <= len(dealer) <= DEALER_MAX or not dealer.isprintable()):
        return f"dealer must be the new dealer's id or name (1-{DEALER_MAX} characters)"
    if note is not None and (not isinstance(note, str) or not 1 <= len(note) <= NOTE_MAX
                             or not note.isprintable()):
        return f"note must be 1-{NOTE_MAX} printable characters"
    if dealer is None and note is None:
        return "say who takes over (dealer) or why (note)"
    return None


def kind_problem(body: Mapping[str, Any]) -> str | None:
    """What is wrong with an acknowledgement by kind's ``kind``, or None."""
    kind = body.get("kind")
    if not isinstance(kind, str) or not _KIND.fullmatch(kind):
        return ("kind must be an alert kind as GET /api/alerts names it (1-64 of a-z, 0-9 "
                "and _, e.g. clock_unsynchronised)")
    return None


def command(cid: str, table: str, action: str, *, actor: str, ts: str,
            reason: str | None = None, note: str | None = None) -> dict[str, Any]:
    """The command object, unsigned (schemas/command.json)."""
    out: dict[str, Any] = {"v": 1, "id": cid, "table": table, "action": action, "ts": ts,
                           "actor": actor}
    if reason is not None:
        out["reason"] = reason
    if note is not None:
        out["note"] = note
    return out
