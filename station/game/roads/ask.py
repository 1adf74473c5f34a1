"""Ask road (问路, seed 003): the next mark of each derived road for a Banker or a Player.

Computed from the big road's logical column lengths without copying them, so it is O(1)
and can be redrawn on every card.
"""

from __future__ import annotations

from collections.abc import Sequence

from station.game.roads.derived import DERIVED_ROADS, mark
from station.game.roads.model import SIDES, Colour, Side

AskRoad = dict[Side, dict[str, Colour | None]]


def ask(winners: Sequence[Side], lengths: Sequence[int]) -> AskRoad:
    """``{"banker": {road: colour | None}, "player": {...}}``.

    ``None`` where that road would still not have started after the hypothetical round.
    """
    answer: AskRoad = {}
    for side in SIDES:
        marks: dict[str, Colour | None] = {}
        if not lengths:
            # The first entry of a shoe is before every start cell.
            marks = dict.fromkeys((name for name, _ in DERIVED_ROADS), None)
        else:
            last = len(lengths) - 1
            # Same winner: the entry continues the newest column one row down; otherwise it
            # starts the next column. Ties cannot change this (they never place an entry).
            column, row = (last, lengths[last]) if winners[last] == side else (last + 1, 0)
            for name, offset in DERIVED_ROADS:
                marks[name] = mark(lengths, column, row, offset)
        answer[side] = marks
    return answer
