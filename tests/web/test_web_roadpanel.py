"""The roads drawn to the page's panel (station/web/roadpanel.py): exactly the panel's size,
every mark inside it, the latest rounds shown however long the shoe, labels and beads in the
page's language; and the server's route for it."""

from __future__ import annotations

import random
import re
import urllib.request
from pathlib import Path

import pytest

from station.game.roads import Scoreboard
from station.game.roads.scoreboard import Roads
from station.web.roadpanel import names, panel_shape, panel_svg
from tests import webkit

SIZES = [(1240, 190), (1880, 250), (1320, 165), (300, 80)]


def roads_of(n: int, seed: int = 1) -> Roads:
    board = Scoreboard()
    rng = random.Random(seed)
    for i in range(n):
        board.add({"status": "complete", "round": i + 1, "player_total": 1, "banker_total": 2,
                   "winner": rng.choice(["banker", "player", "banker", "player", "tie"]),
                   "player_pair": False, "banker_pair": False})
    return board.snapshot()


def marks(svg: str) -> list[tuple[float, float, float]]:
    return [(float(x), float(y), float(r)) for x, y, r in
            re.findall(r'<circle[^>]*cx="([\d.]+)" cy="([\d.]+)" r="([\d.]+)"', svg)]


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("rounds", [0, 5, 80])
def test_the_panel_is_filled_and_nothing_leaves_it(width: int, height: int, rounds: int) -> None:
    svg = panel_svg(roads_of(rounds), width, height, "en")
    assert f'width="{width}" height="{height}"' in svg
    for x, y, r in marks(svg):
        assert r <= x <= width - r + 0.5 and r <= y <= height - r + 0.5, (x, y, r)
    for x in re.findall(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', svg):
        assert float(x[0]) + float(x[1]) <= width + 0.5


def test_the_latest_rounds_show_when_the_shoe_outgrows_the_panel() -> None:
    roads = roads_of(80)
    svg = panel_svg(roads, 1240, 190, "en")
    beads = re.findall(r'<g class="bead (\w+)">', svg)
    assert 0 < len(beads) < 80
    # The beads shown are the shoe's latest, in order, up to the last round's.
    assert beads == [b.winner for b in roads.beads[-len(beads):]]
    # Every big-road entry of the newest column is drawn.
    newest = roads.big_road[-1]
    big = re.findall(r'<g class="big (\w+)">', svg)
    assert big[-len(newest):] == [e.winner for e in newest]


@pytest.mark.parametrize("lang", ["en", "zh", "zh-Hant"])
def test_labels_and_beads_in_the_pages_language(lang: str) -> None:
    svg = panel_svg(roads_of(12), 1240, 190, lang)
    other = names("zh" if lang == "en" else "en")
    for key in ("bead", "big", "big_eye_boy", "small_road", "cockroach_pig", "ask"):
        assert names(lang)[key] in svg
        assert other[key] not in svg
    if lang == "zh":
        assert "珠盘路" in svg and "曱甴路" in svg and "问路" in svg
        assert re.search(r">[庄闲和]</text>", svg)
        assert not re.search(r">[BPT]</text>", svg)
    if lang == "zh-Hant":  # the studios' own words, not the Simplified ones converted
        assert "珠盤路" in svg and "問路" in svg and "珠盘路" not in svg
        assert re.search(r">[莊閒和]</text>", svg) and not re.search(r">[庄闲]</text>", svg)


def test_only_a_whole_size_asks_for_the_panel() -> None:
    assert panel_shape({}) is None
    assert panel_shape({"w": "12.5", "h": "100"}) is None
    assert panel_shape({"w": "-3", "h": "100"}) is None
    assert panel_shape({"w": "9" * 9, "h": "100"}) is None
    assert panel_shape({"w": "10", "h": "99999", "lang": "fr"}) == (60, 8000, "en")
    assert panel_shape({"w": "1240", "h": "190", "lang": "zh"}) == (1240, 190, "zh")


def test_the_route_draws_the_panel_and_keeps_the_whole_scoreboard(tmp_path: Path) -> None:
    config = webkit.sim_config(tmp_path, card_s=0.01)
    with webkit.running(config):
        base = webkit.url_of(config)
        webkit.wait_state(base, lambda s: len(s["results"]) >= 3, what="three rounds")
        with urllib.request.urlopen(base + "/api/roads.svg?w=900&h=150&lang=zh",
                                    timeout=15) as resp:
            panel = resp.read().decode()
        with urllib.request.urlopen(base + "/api/roads.svg", timeout=15) as resp:
            whole = resp.read().decode()
    assert 'width="900" height="150"' in panel and "珠盘路" in panel
    assert "Bead Plate" in whole and "珠盘路" not in whole
