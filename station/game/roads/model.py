"""The small value types every road shares.

Winners and colours are plain strings (``Literal`` types) because they go straight into the
JSON of ``station roads --json`` and are compared on every round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Side = Literal["banker", "player"]
"""A decision: what starts or extends a big-road column."""

Result = Literal["banker", "player", "tie"]
"""What a complete round shows on the bead plate."""

Colour = Literal["red", "blue"]
"""A derived-road mark (big eye boy, small road, cockroach pig)."""

BANKER: Final = "banker"
PLAYER: Final = "player"
TIE: Final = "tie"
RED: Final = "red"
BLUE: Final = "blue"

SIDES: Final[tuple[Side, Side]] = ("banker", "player")

ROWS: Final = 6
"""Rows of every drawn road on a casino display (RULES.md 8: "the board's 6 rows")."""


@dataclass(frozen=True, slots=True)
class Round:
    """One complete round as the roads see it (void rounds never reach the roads).

    ``icon`` is the key of the highest-paying side bet that won, if the record carried bets;
    it is drawn in the bead cell (seed 003: only the icon of the highest payout per cell).
    """

    winner: Result
    banker_pair: bool = False
    player_pair: bool = False
    icon: str | None = None
