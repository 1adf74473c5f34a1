"""The shoe's roads drawn to the shape of the page's roads panel, labels in its language.

Pure but for the catalogues its labels come from, read once (station.web.catalogue).

``station.game.roads.svg`` draws the whole scoreboard at its own shape (a report's, a file's);
fitted into the dealer page's wide, low panel it left a fifth to nearly half of it white and
its derived roads' cells at 7-10 px. This draws the same roads (``station.game.roads``: the beads,
the big road's placement with its dragon tails, the derived roads' marks) into exactly
``width`` x ``height`` pixels: six rows of the largest cell the height allows, the bead plate
and the big road side by side, the three derived roads and the ask road in a 2x2 block at
half that cell; each road shows its latest columns, as many as its share of the width holds.
Labels and beads read in the page's language (珠盘路, 大路, 大眼仔, 小路, 曱甴路, 问路;
庄/闲/和).
"""


from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Final

from station.game.roads.bead import bead_cell
from station.game.roads.layout import Cell, draw
from station.game.roads.model import ROWS, SIDES
from station.game.roads.scoreboard import Roads
from station.game.roads.svg import COLOURS, FONT, derived_mark
from station.game.roads.xmltext import escape
from station.settings.languages import tag_of
from station.web.catalogue import text as ids_text

# The panel's labels, by message id (``road.<key>``) in each language's catalogue.
LABEL_KEYS: Final = ("bead", "big", "big_eye_boy", "small_road", "cockroach_pig", "ask",
                     "banker", "player", "tie", "counts")


def names(language: str) -> dict[str, str]:
    """The panel's labels in ``language`` (``counts`` keeps its ``{n}`` and the sides')."""
    tag = tag_of(language) or "en"
    return {k: ids_text(f"road.{k}", tag) for k in LABEL_KEYS}


DERIVED: Final = ("big_eye_boy", "small_road", "cockroach_pig")
MIN_SIZE, MAX_SIZE = 60, 8000  # px: a panel outside this is drawn at the nearest bound
BEAD_SHARE = 0.22  # of the width, for the bead plate
BLOCK_SHARE = 0.34  # for the derived roads and the ask road
PAD = 4


def clamp(value: int) -> int:
    return max(MIN_SIZE, min(MAX_SIZE, value))


def panel_shape(query: Mapping[str, str]) -> tuple[int, int, str] | None:
    """``w``, ``h`` (px) and ``lang`` of a request for the page's panel, or None for the
    whole scoreboard (no ``w``/``h``, or not whole numbers: a bad size is no page's)."""
    w, h = query.get("w", ""), query.get("h", "")
    if not (w.isdigit() and h.isdigit() and len(w) <= 5 and len(h) <= 5):
        return None
    lang = query.get("lang", "en")
    return clamp(int(w)), clamp(int(h)), lang if tag_of(lang) else "en"


def panel_svg(roads: Roads, width: int, height: int, language: str = "en") -> str:
    """The roads in a ``width`` x ``height`` SVG (px) in ``language`` (a language tag)."""
    width, height = clamp(width), clamp(height)
    words = names(language)
    label = max(10, min(22, round(height * 0.08)))
    cell = max(6, (height - label - 2 * PAD) // ROWS)
    small = max(4, (height - 2 * label - 3 * PAD) // (2 * ROWS))
    block_w = width * BLOCK_SHARE
    bead_cols = max(2, int(width * BEAD_SHARE // cell))
    big_x = PAD + bead_cols * cell + 2 * PAD
    block_x = width - block_w
    big_cols = max(2, int((block_x - big_x - 2 * PAD) // cell))
    half_cols = max(2, int((block_w - 3 * PAD) / 2 // small))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    tally = {w: sum(b.winner == w for b in roads.beads) for w in ("banker", "player", "tie")}
    counts = words["counts"].format(n=len(roads.beads), **tally)
    top = PAD + label
    out.append(_label(PAD, PAD, label, f"{words['bead']}  {counts}"))
    out.extend(_bead_plate(roads, PAD, top, cell=cell, cols=bead_cols, words=words))
    out.append(_label(big_x, PAD, label, words["big"]))
    out.extend(_big_road(roads, big_x, top, cell, big_cols))
    slots = [(block_x, PAD), (block_x + block_w / 2, PAD),
             (block_x, PAD + label + ROWS * small + PAD),
             (block_x + block_w / 2, PAD + label + ROWS * small + PAD)]
    for name, (x, y) in zip(DERIVED, slots, strict=False):
        out.append(_label(x, y, label, words[name]))
        out.extend(_derived(roads, name, x, y + label, cell=small, cols=half_cols))
    ax, ay = slots[3]
    out.append(_label(ax, ay, label, words["ask"]))
    out.extend(_ask(roads, ax, ay + label, small, words))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _label(x: float, y: float, size: int, text: str) -> str:
    return (f'<text x="{x}" y="{y + size * 0.8:.1f}" font-family="{FONT}" '
            f'font-size="{size * 0.8:.1f}" font-weight="bold" fill="#333">{escape(text)}</text>')


def _grid(x: float, y: float, cols: int, cell: int) -> Iterator[str]:
    w, h = cols * cell, ROWS * cell
    yield (f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="#fff" stroke="#9e9e9e"/>')
    lines = [f"M{x + i * cell} {y}v{h}" for i in range(1, cols)]
    lines += [f"M{x} {y + j * cell}h{w}" for j in range(1, ROWS)]
    yield f'<path d="{"".join(lines)}" stroke="#e0e0e0" stroke-width="1" fill="none"/>'


def _first(width: int, cols: int) -> int:
    """The first drawn column shown: the latest ``cols`` of a road ``width`` columns wide."""
    return max(0, width - cols)


def _bead_plate(roads: Roads, x: float, y: float, *, cell: int, cols: int,
                words: dict[str, str]) -> Iterator[str]:
    yield '<g id="bead-plate">'
    yield from _grid(x, y, cols, cell)
    used = math.ceil(len(roads.beads) / ROWS)
    first = _first(used, cols)
    r = cell * 0.42
    for index, bead in enumerate(roads.beads):
        col, row = bead_cell(index)
        if col < first:
            continue
        cx, cy = x + (col - first + 0.5) * cell, y + (row + 0.5) * cell
        yield (f'<g class="bead {bead.winner}"><circle cx="{cx}" cy="{cy}" r="{r:.1f}" '
               f'fill="{COLOURS[bead.winner]}"/><text x="{cx}" y="{cy + cell * 0.19:.1f}" '
               f'text-anchor="middle" font-family="{FONT}" font-size="{cell * 0.52:.1f}" '
               f'font-weight="bold" fill="#fff">{escape(words[bead.winner])}</text></g>')
    yield "</g>"


def _big_road(roads: Roads, x: float, y: float, cell: int, cols: int) -> Iterator[str]:
    grid = draw(roads.lengths)
    first = _first(grid.width, cols)
    yield '<g id="big-road">'
    yield from _grid(x, y, cols, cell)
    r = cell * 0.36
    for column, cells in zip(roads.big_road, grid.columns, strict=True):
        for entry, (cx0, cy0) in zip(column, cells, strict=True):
            if cx0 < first:
                continue
            cx, cy = x + (cx0 - first + 0.5) * cell, y + (cy0 + 0.5) * cell
            yield (f'<g class="big {entry.winner}"><circle cx="{cx}" cy="{cy}" r="{r:.1f}" '
                   f'fill="none" stroke="{COLOURS[entry.winner]}" '
                   f'stroke-width="{cell / 8:.1f}"/>')
            if entry.ties:
                d = r * 0.9
                yield (f'<line class="tie" x1="{cx - d:.1f}" y1="{cy + d:.1f}" '
                       f'x2="{cx + d:.1f}" y2="{cy - d:.1f}" stroke="{COLOURS["tie"]}" '
                       f'stroke-width="{cell / 10:.1f}" stroke-linecap="round"/>')
            if entry.ties > 1:
                yield (f'<text x="{cx}" y="{cy + cell * 0.15:.1f}" text-anchor="middle" '
                       f'font-family="{FONT}" font-size="{cell * 0.42:.1f}" font-weight="bold" '
                       f'fill="#1b5e20">{entry.ties}</text>')
            yield "</g>"
    yield "</g>"


def _derived(roads: Roads, name: str, x: float, y: float, *, cell: int,
             cols: int) -> Iterator[str]:
    columns = roads.derived[name]
    grid = draw(len(c) for c in columns)
    first = _first(grid.width, cols)
    yield f'<g id="{name.replace("_", "-")}">'
    yield from _grid(x, y, cols, cell)
    for column, placed in zip(columns, grid.columns, strict=True):
        for colour, (cx, cy) in zip(column, placed, strict=True):
            if cx >= first:
                at: Cell = (cx, cy)
                yield derived_mark(name, x + (cx - first) * cell, y + cy * cell, colour,
                                   cell=cell, at=at)
    yield "</g>"


def _ask(roads: Roads, x: float, y: float, cell: int, words: dict[str, str]) -> Iterator[str]:
    """What each side's win would add to the three derived roads: two rows, 庄 and 闲."""
    yield '<g id="ask-road">'
    size = cell * 2
    for i, side in enumerate(SIDES):
        by = y + i * (size + PAD)
        yield (f'<circle cx="{x + size / 2}" cy="{by + size / 2}" r="{size * 0.42:.1f}" '
               f'fill="{COLOURS[side]}"/><text x="{x + size / 2}" y="{by + size * 0.68:.1f}" '
               f'text-anchor="middle" font-family="{FONT}" font-size="{size * 0.5:.1f}" '
               f'font-weight="bold" fill="#fff">{escape(words[side])}</text>')
        for j, name in enumerate(DERIVED):
            colour = roads.ask[side][name]
            mx = x + size * (1.3 + j * 1.1)
            if colour is not None:
                yield (f'<g class="ask {side} {name}">'
                       + derived_mark(name, mx, by, colour, cell=size, role="ask-mark")
                       + "</g>")
    yield "</g>"
