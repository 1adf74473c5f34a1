"""What one applied event means upstream: the messages, from the station before and after.

Pure (no I/O, no clock). The station's own outputs carry the round records and betting-open
announcements; the rest (shoe started and ended, betting closed, each card as dealt, pause,
resume, the table status) is read off the difference between two small snapshots, so the
dealing machine's hot path is untouched and the fast simulation pays nothing for upstream.
A replay of the same events gives the same messages, which recovery relies on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from drivers.events import Command, InputEvent
from station.table.outputs import Announced, Output, Published
from station.wire import messages as m
from station.wire.chain import header_hash

if TYPE_CHECKING:
    from station.table.station import Station

# A message waiting for its sequence number: the daemon numbers them in journal order.
Pending = tuple[str, dict[str, Any]]  # (kind, builder keyword arguments without seq)
# The head of a journal with an empty header and no record: what a status names when built
# with no journal at all (a test's own feed).
EMPTY_JOURNAL = m.journal_head(header_hash(b""), 0, header_hash(b""))


@dataclass(frozen=True, slots=True)
class Snapshot:
    phase: str
    shoes_started: int
    shoe: str | None
    round_no: int
    player: tuple[str | None, ...]  # None: dealt face down, not revealed yet
    banker: tuple[str | None, ...]
    reasons: tuple[str, ...]
    skipped: bool = False
    new_shoe_requested: bool = False  # a VIP player asked for a new shoe (docs/modes.md)
    end_requested_by: str | None = None  # END SHOE or close_shoe taken: "dealer", "upstream"
    raised: tuple[str, str, str | None] | None = None  # a dealer's pause: by, code, note
    shuffle: dict[str, Any] | None = None  # the shoe's checked shuffle (docs/rules.md)
    clock: str = "unknown"  # the clock check's last journaled state (Station.clock)

    @classmethod
    def of(cls, station: Station) -> Snapshot:
        d = station.dealing
        return cls(
            phase=d.state,
            shoes_started=d.shoes_started,
            shoe=d.shoe.shoe_id if d.shoe is not None else None,
            round_no=d.round_no,
            player=_shown(d.player, len(d.visible("player"))),
            banker=_shown(d.banker, len(d.visible("banker"))),
            reasons=tuple(d.pause_reasons),
            skipped=d.skipped,
            new_shoe_requested=station.modes.new_shoe_requested,
            end_requested_by=d.end_requested_by,
            raised=d.raised,
            shuffle=d.shuffle,
            clock=station.clock,
        )

    @property
    def paused(self) -> bool:
        return self.phase == "paused"

    def status_key(self) -> tuple[object, ...]:
        return (self.phase, self.shoe, self.round_no, self.reasons if self.paused else (),
                self.clock)


def _shown(cards: list[Any], visible: int) -> tuple[str | None, ...]:
    # A face-down card's value never enters a snapshot, so no message can carry it.
    return tuple(c.code if i < visible else None for i, c in enumerate(cards))


def changes(before: Snapshot, after: Snapshot, event: InputEvent, outputs: list[Output],
            decks: int) -> list[Pending]:
    """The messages ``event`` caused, in the order a game server should read them."""
    out: list[Pending] = []
    ts = event.ts
    if after.shoes_started > before.shoes_started and after.shoe is not None:
        started: dict[str, Any] = {"ts": ts, "shoe": after.shoe, "decks": decks}
        if after.shuffle is not None:
            started["shuffle"] = after.shuffle
        out.append((m.SHOE_STARTED, started))
    where = {"shoe": after.shoe, "round_no": after.round_no or None}
    if before.paused and not after.paused and isinstance(event, Command) \
            and event.action == "resume":
        out.append((m.RESUME, {"ts": ts, "by": event.actor, **where}))
    elif before.paused and not after.paused and isinstance(event, Command) \
            and event.action == "void" and not any(isinstance(o, Published) for o in outputs):
        # A void with no round to void (a pause between rounds, before a shoe, in the
        # shuffle check) goes on as a resume does: said so, naming who, so the command that
        # ended the pause is answered by a message that names it, as every other is.
        out.append((m.RESUME, {"ts": ts, "by": event.actor, **where, "action": "void"}))
    # (From between rounds: a VIP round skipped at once opens and closes in one event; its
    # opening goes first.)
    opened = [o for o in outputs if isinstance(o, Announced)
              and o.message.get("type", m.BETTING_OPEN) == m.BETTING_OPEN]
    if opened and before.phase == "between_rounds" and after.phase == "player_1":
        out.extend((m.BETTING_OPEN, {"ts": ts, "announcement": o.message}) for o in opened)
        outputs = [o for o in outputs if not any(o is x for x in opened)]
    if (before.phase in ("betting_open", "between_rounds") and after.phase == "player_1"
            and after.shoe):
        out.append((m.BETTING_CLOSED, {"ts": ts, "shoe": after.shoe,
                                       "round_no": after.round_no, "skipped": after.skipped}))
    if after.shoe and after.shoe == before.shoe and after.round_no == before.round_no:
        for hand, was, now in (("player", before.player, after.player),
                               ("banker", before.banker, after.banker)):
            for position in range(len(was) + 1, len(now) + 1):
                out.append((m.CARD, {"ts": ts, "shoe": after.shoe, "round_no": after.round_no,
                                     "hand": hand, "position": position,
                                     "code": now[position - 1]}))
    for o in outputs:
        if isinstance(o, Announced):
            # By the announcement's type: betting open, a dealer signing in or out, ...
            kind = o.message.get("type", m.BETTING_OPEN)
            out.append((kind, {"ts": ts, "announcement": o.message}))
        elif isinstance(o, Published):
            out.append((m.ROUND, {"ts": ts, "record": o.record}))
    if after.phase == "shoe_closed" and before.phase != "shoe_closed" and after.shoe:
        out.append((m.SHOE_ENDED, {"ts": ts, "shoe": after.shoe, "rounds": after.round_no,
                                   "reason": _why_ended(after, event)}))
    if after.paused and (not before.paused or after.reasons != before.reasons):
        raised = {}
        if after.raised is not None:
            raised = {"raised_by": after.raised[0], "code": after.raised[1],
                      "note": after.raised[2]}
        out.append((m.PAUSE, {"ts": ts, "reason": "; ".join(after.reasons), **where, **raised}))
    if after.status_key() != before.status_key():
        out.append((m.STATUS, {"ts": ts, "phase": after.phase, "shoe": after.shoe,
                               "round_no": after.round_no or None,
                               "paused": "; ".join(after.reasons) if after.paused else None,
                               "clock": after.clock}))
    return out


# Every shoe_ended reason (docs/upstream.md lists them; the schema takes only these).
SHOE_ENDED_REASONS = ("cut_card", "dealer", "upstream", "new_shoe_requested", "void",
                      "supervisor")


def _why_ended(after: Snapshot, event: InputEvent) -> str:
    """``shoe_ended.reason`` (docs/upstream.md): who asked for the end, if anyone did (a
    request names it even when the cut card had made the round the last), else what ended
    the shoe."""
    if after.new_shoe_requested:
        return "new_shoe_requested"
    if after.end_requested_by is not None:
        return after.end_requested_by  # "dealer" (END SHOE) or "upstream" (close_shoe)
    if isinstance(event, Command):
        # A round that ends on a reveal ends the shoe as its last card would have.
        return {"void": "void", "reveal": "cut_card"}.get(event.action, "supervisor")
    return "cut_card"  # the round the cut card made the last one ended (a card, a timer)


def build(kind: str, args: dict[str, Any], *, table: str, seq: int,
          journal: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The message for one ``Pending``, numbered ``seq``; a status names ``journal`` (the
    journal's head, ``messages.journal_head``; that of an empty journal if not given)."""
    if kind == m.STATUS:
        return m.status(table=table, seq=seq, journal=journal or EMPTY_JOURNAL, **args)
    if kind == m.BETTING_OPEN:
        return m.betting_open(args["announcement"], table=table, seq=seq, ts=args["ts"])
    if kind == m.DEALER:
        return m.dealer(args["announcement"], table=table, seq=seq, ts=args["ts"])
    if kind == m.REVEAL:
        a = args["announcement"]
        return m.reveal(table=table, seq=seq, ts=args["ts"], shoe=a["shoe"], round_no=a["round"],
                        hand=a["hand"], cards=[(p, c) for p, c in a["cards"]], by=a["by"])
    if kind == m.ALERT:
        return m.alert(args["announcement"], table=table, seq=seq, ts=args["ts"])
    if kind == m.COMMAND_REFUSED and "announcement" in args:
        a = args["announcement"]
        return m.command_refused(table=table, seq=seq, ts=args["ts"],
                                 command_id=a["command_id"], action=a["action"],
                                 reason=a["reason"], detail=a["detail"])
    if kind == m.ROUND:
        return m.round_result(args["record"], table=table, seq=seq, ts=args["ts"])
    if kind == m.SHOE_REPORT:
        return m.shoe_report(args["announcement"], table=table, seq=seq, ts=args["ts"])
    if kind == m.CONFIG_CHANGED:
        return m.config_changed(args["announcement"], table=table, seq=seq, ts=args["ts"])
    builders: dict[str, Callable[..., dict[str, Any]]] = {
        m.SHOE_STARTED: m.shoe_started, m.SHOE_ENDED: m.shoe_ended,
        m.BETTING_CLOSED: m.betting_closed, m.CARD: m.card, m.PAUSE: m.pause,
        m.RESUME: m.resume,
    }
    return builders[kind](table=table, seq=seq, **args)
