"""Big eye boy, small road and cockroach pig (RULES.md 8, seed 003).

Each is read from the big road's *logical* column lengths, one mark per big-road entry from
its start cell on, and is itself kept as logical columns of same-colour runs (drawn later by
``layout`` like the big road). ``offset`` is how many columns to the left a road compares:
1 for big eye boy (大眼仔), 2 for small road (小路), 3 for cockroach pig (小强路).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from station.game.roads.model import BLUE, RED, Colour

DERIVED_ROADS: Final[tuple[tuple[str, int], ...]] = (
    ("big_eye_boy", 1),
    ("small_road", 2),
    ("cockroach_pig", 3),
)
"""JSON name and offset of each derived road, in display order."""

ColourColumns = tuple[tuple[Colour, ...], ...]


def mark(lengths: Sequence[int], column: int, row: int, offset: int) -> Colour | None:
    """The mark a big-road entry at (column, row) adds, or ``None`` before the start cell.

    ``lengths`` are the logical column lengths; only columns left of ``column`` are read, so
    the ask road can pass the current lengths for a hypothetical entry.
    """
    # Start cell: column offset+1 row 2, else column offset+2 row 1 (1-based, seed 003);
    # 0-based that is every entry from (offset, 1) on.
    if column < offset or (column == offset and row == 0):
        return None
    if row == 0:
        # A new column: red when the two columns before it, the previous one and the one
        # `offset` further left, are equal in length ("齐整"), else blue.
        return RED if lengths[column - 1] == lengths[column - 1 - offset] else BLUE
    compared = lengths[column - offset]
    # Continuing down: blue only when the compared column ends exactly one row above. It is
    # red both when it has an entry in this row and when it ends two or more rows above:
    # seed 003 "如前一列的前二行或以上都无结果，则于大眼路画红圈".  # noqa: RUF003
    return BLUE if compared == row else RED


class DerivedRoad:
    """One derived road built entry by entry; ``add`` is O(1)."""

    __slots__ = ("columns", "offset")

    def __init__(self, offset: int) -> None:
        self.offset = offset
        self.columns: list[list[Colour]] = []

    def add(self, lengths: Sequence[int], column: int, row: int) -> Colour | None:
        """Add the mark of the big-road entry just placed at (column, row), if any."""
        colour = mark(lengths, column, row, self.offset)
        if colour is not None:
            if self.columns and self.columns[-1][0] == colour:
                self.columns[-1].append(colour)
            else:
                self.columns.append([colour])
        return colour

    def snapshot(self) -> ColourColumns:
        return tuple(tuple(column) for column in self.columns)


def derived_road(lengths: Sequence[int], offset: int) -> ColourColumns:
    """Recompute a derived road from complete big-road column lengths."""
    marks = [
        colour
        for column, length in enumerate(lengths)
        for row in range(length)
        if (colour := mark(lengths, column, row, offset)) is not None
    ]
    return group_runs(marks)


def group_runs(marks: Sequence[Colour]) -> ColourColumns:
    """Same-colour runs as logical columns."""
    columns: list[list[Colour]] = []
    for colour in marks:
        if columns and columns[-1][0] == colour:
            columns[-1].append(colour)
        else:
            columns.append([colour])
    return tuple(tuple(column) for column in columns)
