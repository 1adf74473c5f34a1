"""Every command the station takes, named once: what each becomes, and who may send it.

Pure. The station applies them (``station.table.station``), the dealer's page and the local API
offer them (``station.web.view``, ``station.web.server``), and the upstream verifier accepts
the wire names (``station.wire.commands``); each reads these tables rather than keeping
its own copy.
"""

from __future__ import annotations

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

# The actions a command from upstream may name (docs/upstream.md), in the order its refusal
# lists them, mapped to the station's own: ``close_shoe`` is END SHOE; every other keeps its
# name. A refusal answers upstream with the name the command used (``WIRE_NAMES``).
UPSTREAM_ACTIONS: Final[dict[str, str]] = {
    "open_betting": "open_betting", "close_betting": "close_betting", "resume": "resume",
    "void": "void", "close_shoe": END_SHOE,
    **{action: action for action in MODE_ACTIONS},
    PAUSE_ACTION: PAUSE_ACTION, CONFIRM_ACTION: CONFIRM_ACTION,
    ARCHIVED_ACTION: ARCHIVED_ACTION,
}
WIRE_NAMES: Final[dict[str, str]] = {ours: wire for wire, ours in UPSTREAM_ACTIONS.items()}
