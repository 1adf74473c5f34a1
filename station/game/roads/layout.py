"""The drawn grid of a road: 6 rows, the dragon tail, a tail blocked by an earlier tail.

Kept apart from the logical columns on purpose (RULES.md 8): the derived roads read logical
columns, only the display reads these cells. The same placement serves the big road and the
three derived roads. Rules pinned down here (docs/roads.md):

- a logical column starts in row 0 of the drawn column right after the one where the previous
  logical column started; if an earlier tail lies in that row-0 cell, it starts at the next
  free row-0 cell to the right;
- it goes down while the next row exists and is empty; at the bottom row, or above a cell an
  earlier tail already fills, it turns right and stays in that row (the dragon tail).

A tail only ever runs into empty cells: an earlier tail in the same row would have filled the
cell the turning column stands on, so that column would have turned higher up.
"""

from __future__ import annotations

from collections.abc import Iterable

from station.game.roads.model import ROWS

Cell = tuple[int, int]
"""(drawn column, row), both 0-based; row 0 is the top."""


class GridLayout:
    """Places a road's entries one at a time; ``add`` is O(1) apart from skipping a row-0 tail."""

    __slots__ = ("_start", "_turned", "cells", "columns", "rows")

    def __init__(self, rows: int = ROWS) -> None:
        self.rows = rows
        self.cells: dict[Cell, tuple[int, int]] = {}
        """Drawn cell -> (logical column, index in it)."""
        self.columns: list[list[Cell]] = []
        """Drawn cell of every entry, per logical column."""
        self._start = -1
        self._turned = False

    def add(self, new_column: bool) -> Cell:
        """Place the next entry, which starts a logical column or continues the newest one."""
        if new_column or not self.columns:
            x = self._start + 1
            while (x, 0) in self.cells:
                x += 1
            self._start = x
            self._turned = False
            cell = (x, 0)
            self.columns.append([cell])
        else:
            column = self.columns[-1]
            x, y = column[-1]
            below = (x, y + 1)
            if not self._turned and y + 1 < self.rows and below not in self.cells:
                cell = below
            else:
                self._turned = True
                cell = (x + 1, y)
            column.append(cell)
        self.cells[cell] = (len(self.columns) - 1, len(self.columns[-1]) - 1)
        return cell

    @property
    def width(self) -> int:
        """Drawn columns in use (the rightmost filled column + 1)."""
        return max((x for x, _ in self.cells), default=-1) + 1


def draw(lengths: Iterable[int], rows: int = ROWS) -> GridLayout:
    """Lay out complete logical columns of the given lengths."""
    grid = GridLayout(rows)
    for length in lengths:
        grid.add(True)
        for _ in range(length - 1):
            grid.add(False)
    return grid
