"""One line of plain words per verified message, as ``station watch`` prints it (pure).

``t5 #12 round 4: PLAYER 6 BANKER 7, BANKER WINS``: the table, the ``seq`` (none on a
presence status), then what happened.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from station.client.findings import (
    Applied,
    BadSignature,
    Finding,
    Gap,
    RewrittenHistory,
    SchemaFailure,
    UnknownTable,
    Unreadable,
)

_WINNER = {"player": "PLAYER WINS", "banker": "BANKER WINS", "tie": "TIE"}


def line(finding: Finding) -> str | None:
    """The line for a finding; None for a duplicate (dropped silently)."""
    match finding:
        case Applied(message=m):
            return describe(m)
        case Gap():
            return f"{finding.table} GAP: {finding.detail}"
        case BadSignature(table=t, key=k, detail=d):
            return f"{t} BAD SIGNATURE on {k or 'a message with no key'}: {d}"
        case SchemaFailure(table=t, key=k, detail=d):
            return f"{t} INVALID {k or 'message'}: {d}"
        case RewrittenHistory(table=t, key=k, detail=d):
            return f"{t} REWRITTEN HISTORY at {k}: {d}"
        case UnknownTable(detail=d):
            return f"{finding.table} UNKNOWN TABLE: {d}"
        case Unreadable(topic=topic, detail=d):
            return f"UNREADABLE on {topic!r}: {d}"
    return None


def describe(m: Mapping[str, Any]) -> str:
    head = f"{m.get('table')} #{m['seq']}" if "seq" in m else str(m.get("table"))
    rnd = f"round {m['round']}: " if m.get("round") is not None else ""
    try:
        return f"{head} {rnd}{_what(m)}"
    except (KeyError, TypeError, ValueError, AttributeError):
        # Only a message the schemas were not there to refuse: say what it claims to be.
        return f"{head} {rnd}{m.get('kind')} (fields not as the contract says)"


def _what(m: Mapping[str, Any]) -> str:
    match m["kind"]:
        case "shoe_started":
            return f"shoe started: {m['shoe']} ({m['decks']} decks)"
        case "betting_open":
            return "betting open" + (" (skipped)" if m.get("skipped") else "")
        case "betting_closed":
            return "betting closed" + (" (skipped)" if m.get("skipped") else "")
        case "card":
            card = "face down" if m.get("card") is None else m["card"]
            return f"{m['hand']} card {m['position']}: {card}"
        case "reveal":
            cards = " ".join(c["card"] for c in m["cards"])
            return f"{m['hand']} revealed {cards} by {m['by']}"
        case "round":
            return _round(m)
        case "pause":
            by = f" (raised by {m['raised_by']})" if m.get("raised_by") else ""
            return f"PAUSED: {m['reason']}{by}"
        case "resume":
            if m.get("action") == "void":
                return f"voided by {m['by']}: no round to void, the card set aside, going on"
            return f"resumed by {m['by']}"
        case "command_refused":
            return (f"command {m['command_id']} ({m['action']}) refused, {m['reason']}: "
                    f"{m['detail']}")
        case "shoe_ended":
            return f"shoe ended after {m['rounds']} rounds ({m['reason']})"
        case "shoe_report":
            pen = f", penetration {m['penetration']:.1%}" if "penetration" in m else ""
            return (f"shoe report: {m['dealt']} dealt, {m['burned']} burned, {m['left']} left, "
                    f"{len(m['anomalies'])} anomalies{pen}")
        case "dealer":
            was = f" (was {m['previous']})" if m.get("previous") else ""
            who = m["dealer"] or "nobody"
            return f"dealer {who}: {m['action'].replace('_', ' ')} by {m['how']}{was}"
        case "alert":
            return f"ALERT {m['alert']}: {m['detail']} ({m['by']})"
        case "status":
            if "seq" not in m:
                return "ONLINE" if m.get("online") else "OFFLINE"
            paused = f" ({m['paused']})" if m.get("paused") else ""
            clock = " CLOCK UNSYNCHRONISED" if m.get("clock") == "unsynchronised" else ""
            return f"status: {m['phase'].replace('_', ' ')}{paused}{clock}"
        case "config_changed":
            keys = ", ".join(m["keys"]) or "no key (the files only)"
            moved = " (a new journal)" if m.get("previous_journal") else ""
            return f"CONFIG CHANGED{moved}: {keys}"
    return str(m["kind"])


def _round(m: Mapping[str, Any]) -> str:
    if m["status"] == "void":
        return f"VOID ({m.get('void_reason')}) by {m.get('voided_by')}"
    return (f"PLAYER {m['player_total']} BANKER {m['banker_total']}, "
            f"{_WINNER.get(m['winner'], str(m['winner']).upper())}")
