"""Every command the station takes, named once: what each becomes, and who may send it.

Pure. The station applies them (``station.table.station``), the dealer's page and the local API
offer them (``station.web.view``, ``station.web.server``), the upstream verifier accepts
the wire names (``station.wire.commands``) and the pit sends those marked ``pit``
(``station.services.pit.commands``); each reads these tables rather than keeping its own
copy, and schemas/command.json's enum is held to ``UPSTREAM`` by a test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# The page's and the API's commands that are one machine trigger each: action -> trigger.
COMMAND_TRIGGERS: Final[dict[str, str]] = {
    "new_shoe": "shoe_started",
    "open_betting": "betting_opened",
    "close_betting": "betting_closed",
    "resume": "resumed",
    "void": "voided",
}
# A supervisor's (a PIN on the page; on the page only while paused).
SUPERVISOR_ACTIONS: Final = ("resume", "void")
# The table modes' (docs/modes.md): the squeezing or VIP player's, taken by station.table.modes.
MODE_ACTIONS: Final = ("reveal", "skip", "request_new_shoe", "request_dealer")
# END SHOE: the dealer's, and the pit's ``close_shoe`` from upstream.
END_SHOE: Final = "end_shoe"
# The table procedures (docs/rules.md, station.table.procedures): the dealer's own pause and the
# supervisor's confirmation of the shuffle.
PAUSE_ACTION: Final = "pause"
CONFIRM_ACTION: Final = "confirm_shuffle"
# The archive's acknowledgement (docs/upstream.md, docs/journal.md "Retention"): it holds a
# journal of this station's verified up to a record. Upstream only; no dealer's or page's.
ARCHIVED_ACTION: Final = "archived"
# The archive's request to mirror a journal again from a record it lacks (a gap it found,
# docs/journal.md): signed with the key trusted for ``archived``. Upstream only.
RESEND_ACTION: Final = "resend"


@dataclass(frozen=True, slots=True)
class UpstreamAction:
    """A command upstream may send: its name on the wire (schemas/command.json), the
    station's own action it becomes, and whether the pit's pages send it (``pit``: the pit
    offers exactly these, station.services.pit.commands)."""

    wire: str
    action: str
    pit: bool = False


# The actions a command from upstream may name (docs/upstream.md), in the order its refusal
# lists them: ``close_shoe`` is END SHOE; every other keeps its name. A refusal answers
# upstream with the name the command used (``WIRE_NAMES``).
UPSTREAM: Final[tuple[UpstreamAction, ...]] = (
    UpstreamAction("open_betting", "open_betting"),
    UpstreamAction("close_betting", "close_betting"),
    UpstreamAction("resume", "resume", pit=True),
    UpstreamAction("void", "void", pit=True),
    UpstreamAction("close_shoe", END_SHOE, pit=True),
    *(UpstreamAction(action, action) for action in MODE_ACTIONS),
    UpstreamAction(PAUSE_ACTION, PAUSE_ACTION, pit=True),
    UpstreamAction(CONFIRM_ACTION, CONFIRM_ACTION, pit=True),
    UpstreamAction(ARCHIVED_ACTION, ARCHIVED_ACTION),
    UpstreamAction(RESEND_ACTION, RESEND_ACTION),
)
UPSTREAM_ACTIONS: Final[dict[str, str]] = {u.wire: u.action for u in UPSTREAM}
WIRE_NAMES: Final[dict[str, str]] = {u.action: u.wire for u in UPSTREAM}
# What the pit's pages may send (docs/pit.md), in the order above.
PIT_ACTIONS: Final = tuple(u.wire for u in UPSTREAM if u.pit)
