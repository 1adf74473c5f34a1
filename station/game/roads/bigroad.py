"""Big road (大路): logical columns of same-winner runs (RULES.md 8, seed 003).

A logical column is the whole run, however the display later folds it (see ``layout``): the
derived roads are read from these columns, never from the drawn grid.

Ties never start a column. A tie adds to the tie count of the newest entry (drawn as a green
slash, a number when more than one); a tie between a Banker and a Player therefore leaves the
column change after it untouched. Ties before the first decision have no entry to mark yet:
they are counted in ``leading_ties`` and added to the first entry's count when it arrives, so
``"TTB"`` gives one Banker entry with ``ties == 2`` (a display can still tell them apart by
``leading_ties``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from station.game.roads.model import Result, Side


@dataclass(frozen=True, slots=True)
class BigEntry:
    """One circle of the big road and the ties marked on it."""

    winner: Side
    ties: int = 0


BigColumns = tuple[tuple[BigEntry, ...], ...]


class BigRoad:
    """The big road built one round at a time; every ``add`` is O(1).

    Not thread-safe: one owner (the display loop or the CLI) adds rounds.
    """

    __slots__ = ("leading_ties", "lengths", "ties", "winners")

    def __init__(self) -> None:
        self.winners: list[Side] = []
        """Winner of each logical column."""
        self.lengths: list[int] = []
        """Entries in each logical column: all the derived roads need."""
        self.ties: list[list[int]] = []
        """Tie count of each entry, column by column."""
        self.leading_ties = 0
        """Ties seen before the first decision (also counted on the first entry)."""

    def add(self, result: Result) -> tuple[int, int] | None:
        """Add one round; return the (column, row) of the new entry, ``None`` for a tie."""
        if result == "tie":
            if self.ties:
                self.ties[-1][-1] += 1
            else:
                self.leading_ties += 1
            return None
        if self.winners and self.winners[-1] == result:
            column = len(self.lengths) - 1
            self.lengths[column] += 1
            self.ties[column].append(0)
            return column, self.lengths[column] - 1
        self.winners.append(result)
        self.lengths.append(1)
        # The first entry takes the ties dealt before it (module docstring).
        self.ties.append([0 if len(self.winners) > 1 else self.leading_ties])
        return len(self.lengths) - 1, 0

    def columns(self) -> BigColumns:
        """The logical columns as immutable entries."""
        return tuple(
            tuple(BigEntry(winner, n) for n in column)
            for winner, column in zip(self.winners, self.ties, strict=True)
        )


def big_road(results: Iterable[Result]) -> tuple[BigColumns, int]:
    """Recompute the big road of a whole shoe: (logical columns, leading ties).

    Written as one pass over runs rather than through ``BigRoad`` so the property tests compare
    two independent constructions.
    """
    columns: list[list[BigEntry]] = []
    leading = 0
    for result in results:
        if result == "tie":
            if columns:
                last = columns[-1][-1]
                columns[-1][-1] = BigEntry(last.winner, last.ties + 1)
            else:
                leading += 1
        elif columns and columns[-1][0].winner == result:
            columns[-1].append(BigEntry(result))
        else:
            columns.append([BigEntry(result, 0 if columns else leading)])
    return tuple(tuple(column) for column in columns), leading
