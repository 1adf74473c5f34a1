"""The pit pages' screenshots in docs/pit/: the floor and a table's page at 1920x1080,
1366x768 and 1280x800, in English and Chinese, all calm and then with trouble (two tables
paused by the station, one offline, one whose stream carried a forged message, one paused by
a pit boss, one waiting in its shuffle check, four with an unsynchronised clock), the page of
the table the pit boss paused and of the offline one, and a table
far into its shoe, and the statistics page of the current shift, from the real pit over a
real Mosquitto (tests/pit/pitfloor.py). Look at them before committing them.

    .venv/bin/python -m tests.pit.screens [--out docs/pit]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from tests import webkit
from tests.pit.pitfloor import Floors, PitFloor

SIZES = {"1920x1080": (1920, 1080), "1366x768": (1366, 768), "1280x800": (1280, 800)}


def shot(browser: Any, floor: PitFloor, path: str, size: tuple[int, int], out: Path) -> None:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(floor.pit.base + path)
    page.wait_for_function("window.__renders > 0", timeout=30000)
    if path.startswith("/?"):
        page.wait_for_function("document.querySelectorAll('#tiles .tile').length > 0")
    page.wait_for_timeout(1500)  # the alert list and the roads image
    page.screenshot(path=str(out))
    context.close()
    print(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("docs/pit"))
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, webkit.browser() as browser:
        floors = Floors(Path(tmp))
        try:
            f20, f60 = floors.floors[20], floors.floors[60]
            for f in (f20, f60):
                f.pit.timeout_s = 300.0  # a busy machine: late answers, not failures
            floors.calm(f20)
            floors.calm(f60)
            for lang in ("en", "zh"):
                shot(browser, f20, f"/?lang={lang}", SIZES["1920x1080"],
                     args.out / f"floor-calm-{lang}-1920x1080.png")
            floors.trouble(f20)
            floors.trouble(f60)
            # A table paused by a pit boss, one waiting in its shuffle check, four with an
            # unsynchronised clock (issue 30).
            boss, _, _ = floors.pit_stops(f20)
            floors.pit_stops(f60)
            for lang in ("en", "zh"):
                shot(browser, f60, f"/?lang={lang}", SIZES["1920x1080"],
                     args.out / f"floor-60-{lang}-1920x1080.png")
                for name in ("1366x768", "1280x800"):
                    shot(browser, f20, f"/?lang={lang}", SIZES[name],
                         args.out / f"floor-20-{lang}-{name}.png")
                for name, size in SIZES.items():
                    shot(browser, f20, f"/tables/t1?lang={lang}", size,
                         args.out / f"table-paused-{lang}-{name}.png")
                    # t3 is offline (its last will): since when, its actions disabled.
                    shot(browser, f20, f"/tables/t3?lang={lang}", size,
                         args.out / f"table-offline-{lang}-{name}.png")
                    shot(browser, f20, f"/tables/{boss}?lang={lang}", size,
                         args.out / f"table-pit-boss-{lang}-{name}.png")
                # The shift's statistics (the pit's default period: the last 8 hours).
                for name, size in SIZES.items():
                    shot(browser, f20, f"/stats?lang={lang}", size,
                         args.out / f"stats-{lang}-{name}.png")
                # A table far into its shoe: its roads.
                shot(browser, f20, f"/tables/t10?lang={lang}", SIZES["1920x1080"],
                     args.out / f"table-roads-{lang}-1920x1080.png")
        finally:
            floors.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
