"""Plain-text grids of the roads, for a terminal and for docs/roads.md (no I/O here).

Big road: ``B``/``P`` with the tie mark after it (``/`` one tie, ``2``-``9`` several, ``+``
ten or more). Bead plate: ``B``/``P``/``T`` then ``b`` for a Banker pair, ``p`` for a Player
pair. Derived roads: ``R`` red, ``B`` blue. ``.`` is an empty cell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from station.game.roads.bead import bead_cell
from station.game.roads.derived import ColourColumns
from station.game.roads.layout import Cell, draw
from station.game.roads.model import ROWS
from station.game.roads.names import LABELS, TITLES
from station.game.roads.scoreboard import Roads


def grid_text(cells: Mapping[Cell, str], width: int, cell_width: int) -> str:
    """Rows of a ROWS-row grid, ``width`` drawn columns wide."""
    empty = ".".ljust(cell_width)
    lines = []
    for row in range(ROWS):
        line = " ".join(cells.get((x, row), empty).ljust(cell_width) for x in range(width))
        lines.append(line.rstrip())
    return "\n".join(lines)


def _tie_mark(ties: int) -> str:
    return "" if ties == 0 else "/" if ties == 1 else str(ties) if ties < 10 else "+"


def big_road_text(roads: Roads) -> str:
    grid = draw(roads.lengths)
    cells = {
        cell: ("B" if entry.winner == "banker" else "P") + _tie_mark(entry.ties)
        for column, placed in zip(roads.big_road, grid.columns, strict=True)
        for entry, cell in zip(column, placed, strict=True)
    }
    return grid_text(cells, grid.width, 2)


def derived_text(columns: ColourColumns) -> str:
    grid = draw(len(column) for column in columns)
    cells = {
        cell: "R" if colour == "red" else "B"
        for column, placed in zip(columns, grid.columns, strict=True)
        for colour, cell in zip(column, placed, strict=True)
    }
    return grid_text(cells, grid.width, 1)


def bead_text(roads: Roads) -> str:
    cells = {
        bead_cell(i): bead.winner[0].upper()
        + ("b" if bead.banker_pair else "")
        + ("p" if bead.player_pair else "")
        for i, bead in enumerate(roads.beads)
    }
    return grid_text(cells, -(-len(roads.beads) // ROWS), 3)


def _section(title: str, body: str) -> Iterable[str]:
    yield title
    yield body if body.strip() else "(empty)"
    yield ""


def roads_text(roads: Roads) -> str:
    """Every road, the ask road and the good roads as one block of text."""
    out: list[str] = []
    out.extend(_section("Bead plate", bead_text(roads)))
    out.extend(_section("Big road", big_road_text(roads)))
    for name, columns in roads.derived.items():
        out.extend(_section(TITLES[name], derived_text(columns)))
    for side, marks in roads.ask.items():
        shown = ", ".join(f"{TITLES[name]} {colour or '-'}" for name, colour in marks.items())
        out.append(f"Ask {side}: {shown}")
    goods = ", ".join(LABELS[key] for key in roads.good_roads) or "none"
    out.append(f"Good roads: {goods}")
    return "\n".join(out) + "\n"
