"""The SVG scoreboard: valid XML, one element per mark, and a real render in Chromium.

Run as a script (``python tests/roads/test_roads_svg.py``) to rewrite docs/roads-example.svg and
docs/roads-example.png from ``EXAMPLE``; ``test_docs_example_is_current`` keeps them in step.
"""

from __future__ import annotations

import base64
import os
import random
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from station.game.roads import Result, Roads, Round, Scoreboard
from station.game.roads.svg import icon_label, render_svg

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
NS = "{http://www.w3.org/2000/svg}"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# A shoe that shows every feature: a tie on the first hand, a dragon tail, a tail blocked by
# it, several ties on one entry, single and double jumps, and one room two halls (Banker) at
# the end.
EXAMPLE_LETTERS = (
    "T"
    + "BPP"
    + "B" * 8
    + "P"
    + "B" * 7
    + "PPTT"
    + "BPBP"
    + "BBPPBBP"
    + "BPTBPP"
    + "BBPPPPPB"
    + "TPBPBBP"
    + "BPPBPP"
)
ICONS = ["lucky_6", "tiger", "banker_dragon_bonus", "player_four_fortune", "fire_7s"]


def example_rounds() -> list[Round]:
    """``EXAMPLE_LETTERS`` with pairs and side-bet icons scattered reproducibly."""
    rng = random.Random(3)
    names: dict[str, Result] = {"B": "banker", "P": "player", "T": "tie"}
    rounds = []
    for letter in EXAMPLE_LETTERS:
        icon = rng.choice(ICONS) if rng.random() < 0.12 else None
        rounds.append(Round(names[letter], rng.random() < 0.1, rng.random() < 0.1, icon))
    return rounds


def example_svg() -> str:
    return render_svg(Scoreboard.from_records(example_rounds()).snapshot(), title="Example shoe")


def roads(letters: str) -> Roads:
    return Scoreboard.from_records(letters).snapshot()


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    return root


def by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == cls]


@pytest.mark.parametrize("letters", ["", "T", "TTT", "BPPTB", "B" * 30, "BPBPTTT" * 14])
def test_svg_is_valid_xml_with_a_size(letters: str) -> None:
    root = parse(render_svg(roads(letters)))
    width, height = float(root.get("width", "0")), float(root.get("height", "0"))
    assert width > 0
    assert height > 0
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"


def test_one_element_per_mark() -> None:
    board = Scoreboard.from_records(example_rounds())
    snap = board.snapshot()
    root = parse(render_svg(snap))
    beads = snap.beads
    for winner in ("banker", "player", "tie"):
        expected = sum(bead.winner == winner for bead in beads)
        assert len(by_class(root, f"bead {winner}")) == expected
    assert len(by_class(root, "pair banker")) == sum(b.banker_pair for b in beads)
    assert len(by_class(root, "pair player")) == sum(b.player_pair for b in beads)
    assert len(by_class(root, "icon")) == sum(b.icon is not None for b in beads)
    entries = [entry for column in snap.big_road for entry in column]
    assert len(by_class(root, "big banker")) + len(by_class(root, "big player")) == len(entries)
    assert len(by_class(root, "tie")) == sum(e.ties > 0 for e in entries)
    assert [t.text for t in by_class(root, "tie-count")] == [
        str(e.ties) for e in entries if e.ties > 1
    ]
    for name, columns in snap.derived.items():
        for colour in ("red", "blue"):
            marks = by_class(root, f"derived {name} {colour}")
            assert len(marks) == sum(column.count(colour) for column in columns)
    shapes = {
        "big_eye_boy": "circle",
        "small_road": "circle",
        "cockroach_pig": "line",
    }
    for name, tag in shapes.items():
        marks = by_class(root, f"derived {name} red") + by_class(root, f"derived {name} blue")
        assert {m.tag for m in marks} == {f"{NS}{tag}"}
    # Hollow circles for big eye boy, solid dots for the small road.
    assert {m.get("fill") for m in by_class(root, "derived big_eye_boy red")} == {"none"}
    assert "none" not in {m.get("fill") for m in by_class(root, "derived small_road red")}
    assert {g.get("data-key") for g in by_class(root, "good-road")} == set(snap.good_roads)


def test_big_road_cells_follow_the_drawn_layout() -> None:
    root = parse(render_svg(roads("B" * 8 + "P" + "B" * 7)))
    cells = [g.get("data-cell") for g in root.iter() if g.get("class") == "big banker"]
    assert cells[:8] == ["0,0", "0,1", "0,2", "0,3", "0,4", "0,5", "1,5", "2,5"]
    assert cells[8:] == ["2,0", "2,1", "2,2", "2,3", "2,4", "3,4", "4,4"]


def test_icon_text_is_escaped() -> None:
    board = Scoreboard.from_records([Round("banker", icon='<x y="1">&')])
    root = parse(render_svg(board.snapshot(), title="a < b & c"))
    icon = by_class(root, "icon")[0]
    assert icon.get("data-bet") == '<x y="1">&'
    assert icon_label("banker_four_fortune_pair") == "BFF"
    assert icon_label("lucky_6") == "L6"
    assert icon_label("__") == "?"


def test_docs_example_is_current() -> None:
    assert (DOCS / "roads-example.svg").read_text(encoding="utf-8") == example_svg()
    assert (DOCS / "roads-example.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    if not CHROMIUM.exists():
        # A missing browser is a broken set-up, not a reason to pass: CI must render for real.
        if os.environ.get("STATION_SKIP_BROWSER") == "1":
            pytest.skip("Debian's chromium is not installed (STATION_SKIP_BROWSER=1)")
        pytest.fail("Debian's chromium is not installed: run scripts/setup --test as root, or "
                    "apt-get install chromium (STATION_SKIP_BROWSER=1 skips these tests)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser.new_page()
        finally:
            browser.close()


def load(page: Any, svg: str) -> None:
    # Inline markup, no URL: nothing can reach the network.
    page.set_content(f"<!doctype html><body style='margin:0'>{svg}</body>")


PIXEL_JS = """async ([png, points]) => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width; canvas.height = img.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  return points.map(([x, y]) => Array.from(ctx.getImageData(x, y, 1, 1).data.slice(0, 3)));
}"""


def test_svg_renders_in_chromium(page: Any) -> None:
    load(page, render_svg(roads("BPT" + "B" * 8 + "P" * 3)))
    board = page.locator("svg").bounding_box()
    assert board["width"] > 600
    assert board["height"] > 250
    big = page.locator("#big-road").bounding_box()
    assert big["width"] > 0
    assert big["height"] > 0
    assert page.locator("g.bead").count() == 14
    assert page.locator("#big-road g.big").count() == 13
    # The painted pixels: bead 1 red (Banker), bead 2 blue (Player), bead 3 green (Tie).
    centres = []
    for index in range(3):
        circle = page.locator(f"g.bead[data-round='{index + 1}'] > circle").bounding_box()
        centres.append([circle["x"] + circle["width"] / 2, circle["y"] + 3])
    png = page.locator("svg").screenshot()
    red, blue, green = page.evaluate(PIXEL_JS, [base64.b64encode(png).decode(), centres])
    assert red[0] > 150 > red[2]
    assert blue[2] > 150 > blue[0]
    assert green[1] > 100 > green[0]


def test_example_renders_every_panel(page: Any) -> None:
    load(page, example_svg())
    for panel in ("bead-plate", "big-road", "big-eye-boy", "small-road", "cockroach-pig"):
        box = page.locator(f"#{panel}").bounding_box()
        assert box["width"] > 100, panel
    assert page.locator(".derived").count() > 50


def write_docs_example() -> None:
    """Rewrite docs/roads-example.svg and its PNG rendering (2x, for crisp docs)."""
    svg = example_svg()
    (DOCS / "roads-example.svg").write_text(svg, encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        page = browser.new_page(device_scale_factor=2)
        load(page, svg)
        page.locator("svg").screenshot(path=str(DOCS / "roads-example.png"))
        browser.close()


if __name__ == "__main__":
    write_docs_example()
    sys.exit(0)
