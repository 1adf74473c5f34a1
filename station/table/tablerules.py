"""The table rules: the parts of the configuration that decide outputs.

Recorded with every session (``to_json``) and kept in the journal's header, so a replay runs
under the rules the table ran under. Their own module, so the station, its modes, the
config, the journal and the recording all read them without importing one another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from station.table.dealers import DEFAULT_PREFIX
from station.table.integrity import REPEAT_CARDS, REPEAT_HISTORY, REPEAT_THRESHOLD
from station.table.procedures import PROCEDURE_KEYS, Procedures

CUT_POLICIES = ("next_round_last", "close_shoe")


@dataclass(frozen=True, slots=True)
class TableRules:
    """The parts of the configuration that decide outputs; recorded with every session."""

    table: str = "table-1"
    decks: int = 8
    dedupe_ms: int = 150
    cut_card_between_rounds: str = "next_round_last"
    # A scanned code starting with this is a dealer's badge (station.table.dealers); "" for none.
    badge_prefix: str = DEFAULT_PREFIX
    # The table modes (docs/modes.md). Written to a recording only when not the default, so
    # a standard table's recordings are what they always were.
    mode: str = "standard"
    betting: str = "dealer"
    betting_s: float = 15.0  # the station's betting countdown (betting: timer)
    result_s: float = 0.0  # betting: timer; the result shows this long before betting opens
    reveal_s: float = 30.0  # squeeze: each reveal's deadline
    open_cards_s: float = 60.0  # VIP: after betting closes, the system opens the cards
    new_shoe_s: float = 300.0  # VIP: a requested new shoe is late after this
    max_skips: int = 5  # VIP: rounds skipped in a row at most
    new_shoe_after: int = 30  # VIP: rounds played before a new shoe may be asked for
    # Shoe integrity (station.table.integrity): the repeated-shoe alarm's N, threshold and H.
    repeat_cards: int = REPEAT_CARDS
    repeat_threshold: int = REPEAT_THRESHOLD
    repeat_history: int = REPEAT_HISTORY
    # The bet guard (station.game.betguard). "off" here, so a recording made before the guard
    # (its rules have no such key) replays byte for byte; a config's default is "observe".
    bet_guard: str = "off"
    bet_guard_max_rtp: float = 1.0
    # Table procedures (station.table.procedures, docs/rules.md): the supervisor's shuffle check,
    # the shuffle's method, the cut card's band, and the pack codes scanned during the check.
    shuffle_check: str = "none"
    shuffle_method: str = "manual"
    penetration: tuple[float, float] | None = None
    pack_prefix: str = ""

    @property
    def procedures(self) -> Procedures:
        return Procedures(shuffle_check=self.shuffle_check == "supervisor",
                          method=self.shuffle_method, penetration=self.penetration)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "table": self.table,
            "decks": self.decks,
            "dedupe_ms": self.dedupe_ms,
            "cut_card_between_rounds": self.cut_card_between_rounds,
            "badge_prefix": self.badge_prefix,
        }
        for key in OPTIONAL_KEYS:
            value = getattr(self, key)
            if value != getattr(_DEFAULT_RULES, key):
                out[key] = value
        return out


# Written to a recording only when not the default (a recording made before them stays
# byte-identical): the table modes' keys and shoe integrity's.
MODE_KEYS = ("mode", "betting", "betting_s", "result_s", "reveal_s", "open_cards_s",
             "new_shoe_s", "max_skips", "new_shoe_after")
OPTIONAL_KEYS = (*MODE_KEYS, "repeat_cards", "repeat_threshold", "repeat_history",
                 "bet_guard", "bet_guard_max_rtp", *PROCEDURE_KEYS)
_DEFAULT_RULES = TableRules()
