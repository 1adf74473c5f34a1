"""Every message that goes upstream: one envelope, one builder per kind. Pure: no I/O.

The envelope is ``v``, ``kind``, ``table``, ``seq`` (per table, increasing: the order the
journal wrote them), ``key`` (the idempotency key: unique per table across every kind, the
same bytes on every re-delivery) and ``ts`` (UTC, ISO 8601 with milliseconds, from the event
that caused the message, so a replay rebuilds the same message). Builders take the event's
``ts`` in seconds since the epoch and return plain dicts; ``Signer.sign`` makes the bytes.

Keys: a round and its void share today's ``<shoe>:<round>`` (a round is settled once, either
way); what happens once per round or shoe is keyed by what it is about
(``<shoe>:<round>:betting_open``, ``<shoe>:<round>:player:2``, ``<shoe>:shoe_started``);
what can repeat (pause, resume, a refused command, status) is keyed by table, kind and seq.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from station import __version__

VERSION: Final = 1
# Optional in every message (added, so a game server that ignores unknown keys is unaffected):
# the version of the station that built it. The daemon's feed adds it to journaled messages.
STATION_VERSION: Final = "station_version"
# On every message of the events topic (the daemon's feed adds it): the seq of the events
# message before it, null for the table's first; a consumer of events alone sees a gap by it.
PREV_SEQ: Final = "prev_seq"

SHOE_STARTED: Final = "shoe_started"
SHOE_ENDED: Final = "shoe_ended"
BETTING_OPEN: Final = "betting_open"
BETTING_CLOSED: Final = "betting_closed"
CARD: Final = "card"
ROUND: Final = "round"
PAUSE: Final = "pause"
RESUME: Final = "resume"
COMMAND_REFUSED: Final = "command_refused"
STATUS: Final = "status"
DEALER: Final = "dealer"
REVEAL: Final = "reveal"
ALERT: Final = "alert"
SHOE_REPORT: Final = "shoe_report"
CONFIG_CHANGED: Final = "config_changed"
# The journal's mirror (station.upstream.mirror), on its own topic; built from committed
# records, never journaled itself.
JOURNAL: Final = "journal"

KINDS: Final = (
    SHOE_STARTED, SHOE_ENDED, BETTING_OPEN, BETTING_CLOSED, CARD, ROUND, PAUSE, RESUME,
    COMMAND_REFUSED, STATUS, DEALER, REVEAL, ALERT, SHOE_REPORT, CONFIG_CHANGED, JOURNAL,
)
HANDS: Final = ("player", "banker")

# Topics under <prefix>/<table>/: every message goes to events except status, which is
# retained so a game server that connects late sees the table's state at once.
EVENTS_TOPIC: Final = "events"
STATUS_TOPIC: Final = "status"


JOURNAL_TOPIC: Final = "journal"  # the mirror's (station.upstream.mirror), never the outbox's


def topic_for(kind: str) -> str:
    if kind == JOURNAL:
        return JOURNAL_TOPIC
    return STATUS_TOPIC if kind == STATUS else EVENTS_TOPIC


def iso_ts(ts: float) -> str:
    """``2026-01-01T00:00:03.123Z``: UTC, milliseconds (a string, so no verifier has to
    agree with Python on how to print a float)."""
    when = datetime.fromtimestamp(round(ts, 3), UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def envelope(kind: str, *, table: str, seq: int, key: str, ts: float) -> dict[str, Any]:
    if kind not in KINDS:
        raise ValueError(f"unknown message kind {kind!r}")
    if seq < 1:
        raise ValueError(f"seq starts at 1, got {seq}")
    return {"v": VERSION, "kind": kind, "table": table, "seq": seq, "key": key,
            "ts": iso_ts(ts)}


def shoe_started(*, table: str, seq: int, ts: float, shoe: str, decks: int,
                 shuffle: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``shuffle``: who shuffled and who confirmed it, where the shuffle is checked
    (``table.shuffle_check: supervisor``, docs/rules.md); absent elsewhere."""
    out = envelope(SHOE_STARTED, table=table, seq=seq, key=f"{shoe}:{SHOE_STARTED}", ts=ts) | {
        "shoe": shoe, "decks": decks,
    }
    if shuffle is not None:
        out["shuffle"] = dict(shuffle)
    return out


def shoe_ended(*, table: str, seq: int, ts: float, shoe: str, rounds: int,
               reason: str) -> dict[str, Any]:
    """``rounds``: rounds played in the shoe (complete or void); ``reason``: why it ended
    (``cut_card``, ``dealer``, ``supervisor``, ...), a word the lead's mapping chooses."""
    return envelope(SHOE_ENDED, table=table, seq=seq, key=f"{shoe}:{SHOE_ENDED}", ts=ts) | {
        "shoe": shoe, "rounds": rounds, "reason": reason,
    }


def betting_open(announcement: Mapping[str, Any], *, table: str, seq: int,
                 ts: float) -> dict[str, Any]:
    """From today's announcement (``Machine.open_round``): ``shoe``, ``round``, ``key`` (the
    round's key) and ``open_bets``; ``type`` becomes ``kind``."""
    shoe, round_no = announcement["shoe"], announcement["round"]
    out = envelope(BETTING_OPEN, table=table, seq=seq,
                   key=f"{shoe}:{round_no}:{BETTING_OPEN}", ts=ts) | {
        "shoe": shoe, "round": round_no, "round_key": announcement["key"],
        "open_bets": list(announcement.get("open_bets", [])),
    }
    # Table modes (docs/modes.md): the station's countdown, and a VIP round skipped at once.
    if "closes_at" in announcement:
        out["closes_at"] = iso_ts(announcement["closes_at"])
        out["betting_s"] = announcement["betting_s"]
    if announcement.get("skipped"):
        out["skipped"] = True
    # The bet guard (station.game.betguard): each open bet's return for the cards left, and the
    # bets it closed in this shoe.
    if "rtp" in announcement:
        out["rtp"] = dict(announcement["rtp"])
    if "closed_by_guard" in announcement:
        out["closed_by_guard"] = list(announcement["closed_by_guard"])
    return out


def betting_closed(*, table: str, seq: int, ts: float, shoe: str,
                   round_no: int, skipped: bool = False) -> dict[str, Any]:
    """``skipped``: a VIP player skipped the round (seed 003 飞牌): no bet on it stands."""
    out = envelope(BETTING_CLOSED, table=table, seq=seq,
                   key=f"{shoe}:{round_no}:{BETTING_CLOSED}", ts=ts) | {
        "shoe": shoe, "round": round_no, "round_key": f"{shoe}:{round_no}",
    }
    if skipped:
        out["skipped"] = True
    return out


def card(*, table: str, seq: int, ts: float, shoe: str, round_no: int, hand: str,
         position: int, code: str | None) -> dict[str, Any]:
    """One card as dealt: ``hand`` player or banker, ``position`` 1-3 within that hand.
    ``code`` None: dealt face down on a squeeze or VIP table; its value follows in ``reveal``."""
    if hand not in HANDS:
        raise ValueError(f"hand must be one of {HANDS}, got {hand!r}")
    if not 1 <= position <= 3:  # a hand holds at most 3 cards
        raise ValueError(f"position is 1-3, got {position}")
    return envelope(CARD, table=table, seq=seq,
                    key=f"{shoe}:{round_no}:{hand}:{position}", ts=ts) | {
        "shoe": shoe, "round": round_no, "hand": hand, "position": position, "card": code,
    } | ({"face_down": True} if code is None else {})


def reveal(*, table: str, seq: int, ts: float, shoe: str, round_no: int, hand: str,
           cards: list[tuple[int, str]], by: str) -> dict[str, Any]:
    """Face-down cards of ``hand`` revealed (squeeze, VIP): ``cards`` as (position, code);
    ``by`` who revealed them (a player's client, the dealer, or ``timer``)."""
    if hand not in HANDS:
        raise ValueError(f"hand must be one of {HANDS}, got {hand!r}")
    last = cards[-1][0]
    return envelope(REVEAL, table=table, seq=seq,
                    key=f"{shoe}:{round_no}:{REVEAL}:{hand}:{last}", ts=ts) | {
        "shoe": shoe, "round": round_no, "round_key": f"{shoe}:{round_no}", "hand": hand,
        "cards": [{"position": p, "card": c} for p, c in cards], "by": by,
    }


def alert(announcement: Mapping[str, Any], *, table: str, seq: int,
          ts: float) -> dict[str, Any]:
    """Something the pit supervisor must act on that does not pause the table: ``alert`` is
    ``dealer_requested`` (a VIP player asked for another dealer), ``new_shoe_late`` (the
    new shoe a VIP player asked for is not started in time) or ``bet_positive`` (the bet
    guard: ``bet``'s return ``rtp`` is over the table's limit); ``detail`` the sentence."""
    out = envelope(ALERT, table=table, seq=seq, key=f"{table}:{ALERT}:{seq}", ts=ts) | {
        "alert": announcement["alert"], "detail": announcement["detail"],
        "by": announcement["by"], "shoe": announcement.get("shoe"),
        "round": announcement.get("round"),
    }
    if "bet" in announcement:
        out["bet"] = announcement["bet"]
        out["rtp"] = announcement["rtp"]
    if "files" in announcement:  # install_modified: the files that differ
        out["files"] = list(announcement["files"])
    return out


def round_result(record: Mapping[str, Any], *, table: str, seq: int,
                 ts: float) -> dict[str, Any]:
    """Today's round record (docs/messages.md), complete or void, with the envelope added;
    its ``key`` (``<shoe>:<round>``) stays the idempotency key."""
    out = dict(record)
    out.update(envelope(ROUND, table=table, seq=seq, key=record["key"], ts=ts))
    return out


def pause(*, table: str, seq: int, ts: float, reason: str, shoe: str | None,
          round_no: int | None, raised_by: str | None = None, code: str | None = None,
          note: str | None = None) -> dict[str, Any]:
    """A pause the dealer raised (docs/rules.md) also says who (``raised_by``, as the journal
    names actors), its ``code`` and, when one was written, its ``note``."""
    out = envelope(PAUSE, table=table, seq=seq, key=f"{table}:{PAUSE}:{seq}", ts=ts) | {
        "reason": reason, "shoe": shoe, "round": round_no,
    }
    if raised_by is not None:
        out["raised_by"] = raised_by
        out["code"] = code
        if note is not None:
            out["note"] = note
    return out


def resume(*, table: str, seq: int, ts: float, by: str, shoe: str | None,
           round_no: int | None, action: str | None = None) -> dict[str, Any]:
    """``by``: who resumed (``supervisor:ann``, or an upstream command's signer);
    ``action``: ``void`` when a void with no round to void ended the pause, else absent (a
    resume keeps its bytes)."""
    out = envelope(RESUME, table=table, seq=seq, key=f"{table}:{RESUME}:{seq}", ts=ts) | {
        "by": by, "shoe": shoe, "round": round_no,
    }
    if action is not None:
        out["action"] = action
    return out


def command_refused(*, table: str, seq: int, ts: float, command_id: str | None,
                    action: str | None, reason: str, detail: str) -> dict[str, Any]:
    """An inbound command was refused: ``reason`` is one word (commands.REASONS),
    ``detail`` the sentence; ``command_id``/``action`` are null when unreadable."""
    return envelope(COMMAND_REFUSED, table=table, seq=seq,
                    key=f"{table}:{COMMAND_REFUSED}:{seq}", ts=ts) | {
        "command_id": command_id, "action": action, "reason": reason, "detail": detail,
    }


def journal_head(journal_id: bytes, seq: int, head: bytes) -> dict[str, Any]:
    """A status's ``journal``: the journal (the hex of its ``H(0)``), a record's seq and its
    chain hash, so whoever keeps statuses can tell a rewritten history (docs/upstream.md)."""
    return {"id": journal_id.hex(), "seq": seq, "head": head.hex()}


def status(*, table: str, seq: int, ts: float, phase: str, shoe: str | None,
           round_no: int | None, paused: str | None, journal: Mapping[str, Any],
           clock: str = "unknown", online: bool = True) -> dict[str, Any]:
    """The retained table status. ``paused`` is the pause reason, null when not paused;
    ``journal`` the head as it was when the record that caused it was built (its seq - 1:
    that record's own hash covers this message); ``clock`` the clock check's last journaled
    state: ``synchronised``, ``unsynchronised`` or ``unknown`` (not checked, or cannot tell)."""
    return envelope(STATUS, table=table, seq=seq, key=f"{table}:{STATUS}:{seq}", ts=ts) | {
        "phase": phase, "shoe": shoe, "round": round_no, "paused": paused, "online": online,
        "journal": dict(journal), "clock": clock,
    }


def dealer(announcement: Mapping[str, Any], *, table: str, seq: int,
           ts: float) -> dict[str, Any]:
    """A dealer signed in, out, or changed (``station.table.dealers.Change.message``): ``dealer``
    (signed in now, null after a sign-out), ``previous``, ``action`` (``sign_in``,
    ``sign_out``, ``change``), ``how`` (``badge``, ``display``, ``upstream``) and
    ``request_closed`` (it closed an open request for another dealer)."""
    return envelope(DEALER, table=table, seq=seq, key=f"{table}:{DEALER}:{seq}", ts=ts) | {
        "dealer": announcement["dealer"], "previous": announcement["previous"],
        "action": announcement["action"], "how": announcement["how"],
        "request_closed": bool(announcement.get("request_closed", False)),
    }


def config_changed(announcement: Mapping[str, Any], *, table: str, seq: int,
                   ts: float) -> dict[str, Any]:
    """The station started with another config or paytable than its journal's last
    (``station.table.station.Station._on_config``): ``old`` and ``new`` each hold the ``config``
    and ``paytable`` files' SHA-256 (hex, null where not known or no paytable), ``keys`` the
    dotted config keys whose values changed (never a value), ``previous_journal`` the
    journal a change of rules moved aside, null when the same journal goes on."""
    a = announcement
    return envelope(CONFIG_CHANGED, table=table, seq=seq, key=f"{table}:{CONFIG_CHANGED}:{seq}",
                    ts=ts) | {
        "old": dict(a["old"]), "new": dict(a["new"]), "keys": list(a["keys"]),
        "previous_journal": a["previous_journal"],
    }


def shoe_report(report: Mapping[str, Any], *, table: str, seq: int,
                ts: float) -> dict[str, Any]:
    """A shoe's integrity report (station.table.integrity.shoe_report, docs/integrity.md), keyed
    ``<shoe>:shoe_report``; its ``type`` becomes ``kind``."""
    body = {k: v for k, v in report.items() if k not in ("type", "key")}
    return envelope(SHOE_REPORT, table=table, seq=seq, key=f"{report['shoe']}:{SHOE_REPORT}",
                    ts=ts) | body


def presence(*, table: str, ts: float, online: bool,
             journal: Mapping[str, Any]) -> dict[str, Any]:
    """The publisher's own retained status at connect (online) and as its last will
    (offline): not from the journal, so no ``seq``; the next journaled status replaces it.
    ``journal``: the last committed head when it was built."""
    state = "online" if online else "offline"
    return {"v": VERSION, "kind": STATUS, "table": table,
            "key": f"{table}:{STATUS}:{state}:{iso_ts(ts)}", "ts": iso_ts(ts), "online": online,
            "journal": dict(journal), STATION_VERSION: __version__}
