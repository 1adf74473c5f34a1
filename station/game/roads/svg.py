"""The scoreboard as a casino display draws it, as an SVG string (no I/O here).

Bead plate (filled beads, pair dots, one side-bet icon), big road (hollow circles, green tie
slash or count), big eye boy (hollow circles), small road (solid dots), cockroach pig
(slashes), the ask road and the good roads. Every mark carries a class (``bead banker``,
``big player``, ``derived red``...) so tests and style sheets can find it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Final

from station.game.roads.bead import bead_cell
from station.game.roads.derived import ColourColumns
from station.game.roads.layout import Cell, draw
from station.game.roads.model import ROWS, SIDES, Colour, Result, Round
from station.game.roads.names import LABELS, TITLES
from station.game.roads.scoreboard import Roads
from station.game.roads.xmltext import escape, quoteattr

COLOURS: Final[dict[str, str]] = {
    "banker": "#d32f2f",
    "player": "#1565c0",
    "tie": "#2e7d32",
    "red": "#d32f2f",
    "blue": "#1565c0",
}
LETTERS: Final[dict[Result, str]] = {"banker": "B", "player": "P", "tie": "T"}
BIG = 24  # px per bead-plate and big-road cell
SMALL = 12  # px per derived-road cell
GAP = 14
LABEL = 16  # px above each panel for its title
FONT = "DejaVu Sans, Arial, sans-serif"
GRID = "#d9d9d9"


def icon_label(key: str) -> str:
    """A 1-3 character badge for a bet key: initials of words, digits kept (lucky_6 -> L6)."""
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", key) if p]
    text = "".join(p if p.isdigit() else p[0].upper() for p in parts)
    return text[:3] or "?"


def _grid(x: float, y: float, cols: int, cell: int) -> Iterator[str]:
    width, height = cols * cell, ROWS * cell
    yield (
        f'<rect x="{x}" y="{y}" width="{width}" height="{height}" fill="#fff" stroke="#9e9e9e"/>'
    )
    lines = [f"M{x + i * cell} {y}v{height}" for i in range(1, cols)]
    lines += [f"M{x} {y + j * cell}h{width}" for j in range(1, ROWS)]
    yield f'<path d="{"".join(lines)}" stroke="{GRID}" stroke-width="1" fill="none"/>'


def _label(x: float, y: float, text: str) -> str:
    return (
        f'<text x="{x}" y="{y - 4}" font-family="{FONT}" font-size="12" font-weight="bold" '
        f'fill="#424242">{escape(text)}</text>'
    )


def _bead(x: float, y: float, bead: Round, index: int) -> Iterator[str]:
    cx, cy, r = x + BIG / 2, y + BIG / 2, BIG * 0.42
    yield f'<g class="bead {bead.winner}" data-round="{index + 1}">'
    yield f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{COLOURS[bead.winner]}"/>'
    yield (
        f'<text x="{cx}" y="{cy + 4}" text-anchor="middle" font-family="{FONT}" '
        f'font-size="11" font-weight="bold" fill="#fff">{LETTERS[bead.winner]}</text>'
    )
    # Seed 003: a red dot top-left for a Banker pair, a blue dot bottom-right for a Player pair.
    if bead.banker_pair:
        yield (
            f'<circle class="pair banker" cx="{x + 4.5}" cy="{y + 4.5}" r="3.5" '
            f'fill="{COLOURS["banker"]}" stroke="#fff" stroke-width="1"/>'
        )
    if bead.player_pair:
        yield (
            f'<circle class="pair player" cx="{x + BIG - 4.5}" cy="{y + BIG - 4.5}" r="3.5" '
            f'fill="{COLOURS["player"]}" stroke="#fff" stroke-width="1"/>'
        )
    if bead.icon is not None:
        yield (
            f'<g class="icon" data-bet={quoteattr(bead.icon)}>'
            f"<title>{escape(bead.icon)}</title>"
            f'<rect x="{x + BIG - 13}" y="{y}" width="13" height="8" rx="2" fill="#f9a825" '
            f'stroke="#fff" stroke-width="0.8"/>'
            f'<text x="{x + BIG - 6.5}" y="{y + 6.3}" text-anchor="middle" font-family="{FONT}" '
            f'font-size="6" font-weight="bold" fill="#000">{escape(icon_label(bead.icon))}</text>'
            "</g>"
        )
    yield "</g>"


def _big_mark(x: float, y: float, winner: str, ties: int, at: Cell) -> Iterator[str]:
    cx, cy, r = x + BIG / 2, y + BIG / 2, BIG * 0.36
    yield f'<g class="big {winner}" data-cell="{at[0]},{at[1]}" data-ties="{ties}">'
    yield (
        f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="none" stroke="{COLOURS[winner]}" '
        f'stroke-width="3"/>'
    )
    if ties:
        d = r * 0.9
        yield (
            f'<line class="tie" x1="{cx - d}" y1="{cy + d}" x2="{cx + d}" y2="{cy - d}" '
            f'stroke="{COLOURS["tie"]}" stroke-width="2.5" stroke-linecap="round"/>'
        )
    if ties > 1:
        yield (
            f'<text class="tie-count" x="{cx}" y="{cy + 4}" text-anchor="middle" '
            f'font-family="{FONT}" font-size="11" font-weight="bold" fill="#1b5e20" '
            f'stroke="#fff" stroke-width="2.5" paint-order="stroke">{ties}</text>'
        )
    yield "</g>"


def derived_mark(
    name: str,
    x: float,
    y: float,
    colour: Colour,
    *,
    cell: int = SMALL,
    at: Cell | None = None,
    role: str = "derived",
) -> str:
    """One derived-road mark: hollow circle, solid dot or slash (seed 003's 圈, 点, 斜线)."""
    cx, cy, stroke = x + cell / 2, y + cell / 2, COLOURS[colour]
    cls = f'class="{role} {name} {colour}"'
    if at is not None:
        cls += f' data-cell="{at[0]},{at[1]}"'
    if name == "big_eye_boy":
        return (
            f'<circle {cls} cx="{cx}" cy="{cy}" r="{cell * 0.32}" fill="none" '
            f'stroke="{stroke}" stroke-width="{cell / 6:.2f}"/>'
        )
    if name == "small_road":
        return f'<circle {cls} cx="{cx}" cy="{cy}" r="{cell * 0.36}" fill="{stroke}"/>'
    d = cell * 0.32
    return (
        f'<line {cls} x1="{cx - d}" y1="{cy + d}" x2="{cx + d}" y2="{cy - d}" '
        f'stroke="{stroke}" stroke-width="{cell / 5:.2f}" stroke-linecap="round"/>'
    )


def render_svg(roads: Roads, *, title: str = "Scoreboard") -> str:
    """The whole scoreboard as a standalone SVG document."""
    lengths = roads.lengths
    big_grid = draw(lengths)
    derived_grids = {name: draw(len(c) for c in cols) for name, cols in roads.derived.items()}

    bead_cols = max(math.ceil(len(roads.beads) / ROWS), 12)
    big_cols = max(big_grid.width, 30)
    derived_cols = {name: max(grid.width, 30) for name, grid in derived_grids.items()}

    top = 34 + LABEL
    bead_x = GAP
    big_x = bead_x + bead_cols * BIG + GAP
    derived_y = top + ROWS * BIG + GAP + LABEL
    bottom_y = derived_y + ROWS * SMALL + GAP + LABEL
    derived_xs: dict[str, float] = {}
    x = GAP
    for name in roads.derived:
        derived_xs[name] = x
        x += derived_cols[name] * SMALL + GAP
    good_x = GAP + 2 * 150 + GAP
    width = max(big_x + big_cols * BIG + GAP, x, good_x + len(roads.good_roads) * 132 + GAP, 640)
    height = bottom_y + 2 * BIG + GAP

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(title)}>',
        f'<rect width="{width}" height="{height}" fill="#f5f5f0"/>',
        f'<text x="{GAP}" y="22" font-family="{FONT}" font-size="15" font-weight="bold" '
        f'fill="#212121">{escape(title)}</text>',
        _counts(roads, width - GAP),
    ]

    out.append('<g id="bead-plate">')
    out.append(_label(bead_x, top, "Bead Plate"))
    out.extend(_grid(bead_x, top, bead_cols, BIG))
    for index, bead in enumerate(roads.beads):
        col, row = bead_cell(index)
        out.extend(_bead(bead_x + col * BIG, top + row * BIG, bead, index))
    out.append("</g>")

    out.append('<g id="big-road">')
    out.append(_label(big_x, top, "Big Road"))
    out.extend(_grid(big_x, top, big_cols, BIG))
    for column, cells in zip(roads.big_road, big_grid.columns, strict=True):
        for entry, (cx, cy) in zip(column, cells, strict=True):
            px, py = big_x + cx * BIG, top + cy * BIG
            out.extend(_big_mark(px, py, entry.winner, entry.ties, (cx, cy)))
    out.append("</g>")

    for name, columns in roads.derived.items():
        ox = derived_xs[name]
        out.append(f'<g id="{name.replace("_", "-")}">')
        out.append(_label(ox, derived_y, TITLES[name]))
        out.extend(_grid(ox, derived_y, derived_cols[name], SMALL))
        out.extend(_derived_marks(name, columns, derived_grids[name].columns, ox, derived_y))
        out.append("</g>")

    out.extend(_ask(roads, GAP, bottom_y))
    out.extend(_good(roads, good_x, bottom_y))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _derived_marks(
    name: str, columns: ColourColumns, cells: list[list[Cell]], ox: float, oy: float
) -> Iterator[str]:
    for column, placed in zip(columns, cells, strict=True):
        for colour, (cx, cy) in zip(column, placed, strict=True):
            yield derived_mark(name, ox + cx * SMALL, oy + cy * SMALL, colour, at=(cx, cy))


def _counts(roads: Roads, right: float) -> str:
    tally = {w: 0 for w in LETTERS}
    pairs = {"banker": 0, "player": 0}
    for bead in roads.beads:
        tally[bead.winner] += 1
        pairs["banker"] += bead.banker_pair
        pairs["player"] += bead.player_pair
    text = (
        f"Rounds {len(roads.beads)}   Banker {tally['banker']}   Player {tally['player']}   "
        f"Tie {tally['tie']}   B pair {pairs['banker']}   P pair {pairs['player']}"
    )
    return (
        f'<text id="counts" x="{right}" y="22" text-anchor="end" font-family="{FONT}" '
        f'font-size="12" fill="#424242">{text}</text>'
    )


def _ask(roads: Roads, x: float, y: float) -> Iterator[str]:
    yield '<g id="ask-road">'
    yield _label(x, y, "Ask Road")
    for i, side in enumerate(SIDES):
        bx = x + i * 150
        yield (
            f'<rect x="{bx}" y="{y}" width="140" height="{BIG + 8}" rx="4" fill="#fff" '
            f'stroke="#9e9e9e"/>'
        )
        yield (
            f'<circle cx="{bx + 18}" cy="{y + 4 + BIG / 2}" r="{BIG * 0.42}" '
            f'fill="{COLOURS[side]}"/>'
        )
        yield (
            f'<text x="{bx + 18}" y="{y + 8 + BIG / 2}" text-anchor="middle" font-family="{FONT}" '
            f'font-size="11" font-weight="bold" fill="#fff">{LETTERS[side]}?</text>'
        )
        for j, (name, colour) in enumerate(roads.ask[side].items()):
            mx, my = bx + 44 + j * 32, y + 4 + (BIG - 16) / 2
            yield f'<g class="ask {side} {name}">'
            if colour is None:
                yield (
                    f'<text x="{mx + 8}" y="{my + 12}" text-anchor="middle" '
                    f'font-family="{FONT}" font-size="12" fill="#9e9e9e">-</text>'
                )
            else:
                yield derived_mark(name, mx, my, colour, cell=16, role="ask-mark")
            yield "</g>"
    yield "</g>"


def _good(roads: Roads, x: float, y: float) -> Iterator[str]:
    yield '<g id="good-roads">'
    yield _label(x, y, "Good Roads")
    if not roads.good_roads:
        yield (
            f'<text x="{x}" y="{y + 20}" font-family="{FONT}" font-size="12" '
            f'fill="#9e9e9e">none</text>'
        )
    for i, key in enumerate(roads.good_roads):
        bx = x + i * 132
        yield (
            f'<g class="good-road" data-key="{key}"><rect x="{bx}" y="{y + 4}" width="126" '
            f'height="22" rx="11" fill="#fff8e1" stroke="#f9a825"/>'
            f'<text x="{bx + 63}" y="{y + 19}" text-anchor="middle" font-family="{FONT}" '
            f'font-size="11" fill="#5d4037">{escape(LABELS[key])}</text></g>'
        )
    yield "</g>"
