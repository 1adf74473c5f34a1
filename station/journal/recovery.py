"""Rebuild a station from its journal at start: the same path as replay.

Every journaled event is applied again, in order, to a fresh station with the journal's own
table rules and paytable; nothing is published again (those messages are in the outbox
already, delivered or not). What the journal says about the physical table (the shoe in
play, how many cards have left it, whether the cut card is out) is handed to the simulated
table, which is a physical shoe too. The rounds of the shoe in play published before the
restart are kept for the dealer's page (its results and roads), exactly as replayed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from drivers.events import Command, ConfigChanged, InputEvent
from station.journal import Journal
from station.journal.outbox import OutboxRow
from station.settings.configprint import ConfigPrint
from station.table.outputs import Published
from station.table.station import Station
from station.wire.messages import EVENTS_TOPIC

# Accepted upstream commands are journaled with their id (``... [id]``) so a replayed id is
# still refused after a restart.
_COMMAND_ID = re.compile(r"\[([^\]]{1,128})\]$")


@dataclass(slots=True)
class Recovered:
    station: Station
    events: int = 0
    last_message_seq: int = 0  # the last upstream message's seq: numbering goes on from it
    last_events_seq: int | None = None  # the last events message's seq: the next prev_seq
    command_ids: list[tuple[str, float]] = field(default_factory=list)  # (id, sent ts)
    # The rounds (complete and void) of the last shoe that published one, in order.
    rounds: list[dict[str, Any]] = field(default_factory=list)
    # The config the journal was last written under: its header's, or its last change's
    # (None: a journal from before they were recorded).
    config: ConfigPrint | None = None

    @property
    def shoe_rounds(self) -> list[dict[str, Any]]:
        """The rounds published in the shoe in play (or the one just closed) before the
        restart: what the page's results and roads showed. Empty once a new shoe began."""
        shoe = self.station.dealing.shoe
        if shoe is None or not self.rounds or self.rounds[-1].get("shoe") != shoe.shoe_id:
            return []
        return list(self.rounds)

    @property
    def shoe_position(self) -> tuple[int, int, bool, int]:
        """(shoe number, cards drawn from it, cut card out, rounds opened) for the
        simulated table's ``continue_shoe``."""
        d = self.station.dealing
        checking = d.state == "shuffle_check" or (
            d.state == "paused" and d.paused_from is not None
            and d.paused_from.value == "shuffle_check")
        if checking:
            # NEW SHOE was pressed, the supervisor has not confirmed: the next shoe is in
            # the shoe, untouched (docs/rules.md, the shuffle check).
            return d.shoes_started + 1, 0, False, 0
        if d.shoe is None or d.state in ("no_shoe", "shoe_closed"):
            return d.shoes_started, 10**9, True, d.round_no  # that shoe is finished
        return d.shoes_started, d.shoe.drawn, d.cut_seen, d.round_no


def recover(journal: Journal, on_event: Callable[[InputEvent], None] | None = None
            ) -> Recovered:
    """Replay ``journal`` into a new station; raises ``JournalError`` on a damaged record.
    ``on_event`` sees each event first (the start's recording copies the history)."""
    header = journal.header
    station = Station(header.rules, header.paytable, session=header.session)
    out = Recovered(station, config=ConfigPrint.from_json(header.config))
    for record in journal.records():
        if on_event is not None:
            on_event(record.event)
        for o in station.apply(record.event):
            if type(o) is Published:
                _keep_round(out.rounds, o.record)
        out.events += 1
        ev = record.event
        if isinstance(ev, ConfigChanged):
            out.config = ConfigPrint.of_event(ev)
        if isinstance(ev, Command) and ev.actor.startswith("upstream:"):
            found = _COMMAND_ID.search(ev.actor)
            if found:
                out.command_ids.append((found.group(1), ev.ts))
    out.last_message_seq = last_message_seq(journal)
    out.last_events_seq = last_events_seq(journal)
    return out


def _keep_round(rounds: list[dict[str, Any]], record: dict[str, Any]) -> None:
    # Only the latest shoe's: a journal holds days of shoes, the page shows one.
    if rounds and rounds[-1].get("shoe") != record.get("shoe"):
        rounds.clear()
    rounds.append(record)


def last_message_seq(journal: Journal) -> int:
    """The ``seq`` of the newest outbox message (0 when there is none)."""
    return _seq_of(journal.last_outbox_row()) or 0


def last_events_seq(journal: Journal) -> int | None:
    """The ``seq`` of the newest outbox message on the events topic (None when there is
    none): the ``prev_seq`` of the next one, so the link holds across a restart."""
    return _seq_of(journal.last_outbox_row(EVENTS_TOPIC))


def _seq_of(row: OutboxRow | None) -> int | None:
    if row is None:
        return None
    try:
        seq = orjson.loads(row.payload).get("seq", 0)
    except (orjson.JSONDecodeError, AttributeError):
        return None
    return seq if isinstance(seq, int) and seq > 0 else None
