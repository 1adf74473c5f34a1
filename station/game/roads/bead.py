"""Bead plate (珠盘路): one bead per round in order, filled column by column (seed 003)."""

from __future__ import annotations

from station.game.roads.layout import Cell
from station.game.roads.model import ROWS


def bead_cell(index: int, rows: int = ROWS) -> Cell:
    """Drawn (column, row) of the bead of the ``index``-th (0-based) complete round."""
    return divmod(index, rows)
