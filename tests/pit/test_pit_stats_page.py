"""The pit's statistics over HTTP and on its page (docs/pit.md, "Statistics"): the real pit
(``station pit``) over a real Mosquitto, its journal filled by a floor of tables whose
messages are a simulated station's signed with each table's key (tests/pit/pitfloor.py),
two of them paused by the station. ``GET /api/stats`` answers what ``station pit report``
reads from the same journal, ``GET /api/stats.csv`` is the command's very CSV; a bad
parameter is 400 naming it; one computation at a time; and the page in Chromium shows what
the API says, in English and Chinese, clipping nothing."""

from __future__ import annotations

import asyncio
import csv
import io
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from station.errors import InputFileError
from station.services.pit import report
from station.services.pit.statsroute import Busy, StatsGate
from tests.pit.pitfloor import Floors, PitFloor
from tests.pit.test_pit_pages_browser import CLIPPED, VIEWPORTS, chinese_text_problems

N = 6  # tables: t1 and t2 paused by the station, t3 offline, t4 with a forged message


@pytest.fixture(scope="module")
def floors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Floors]:
    f = Floors(tmp_path_factory.mktemp("pitstats"), sizes=(N,))
    try:
        f.calm(f.floors[N])
        f.trouble(f.floors[N])
        yield f
    finally:
        f.close()


@pytest.fixture(scope="module")
def period() -> tuple[str, str]:
    """The last 8 hours up to just after the floor was fed: in the past, so no figure
    depends on when it is asked (an open pause counts up to ``to``)."""
    end = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=1)
    while datetime.now(UTC) <= end:  # until `to` is past: the figures are then fixed
        time.sleep(0.1)
    return iso(end - timedelta(hours=8)), iso(end)


def iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def raw(floor: PitFloor, path: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(floor.pit.base + path, timeout=60) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def stamp(iso: str) -> str:
    return iso[:16].replace(":", "").replace("-", "")


def journal_rounds(floor: PitFloor) -> dict[str, int]:
    with sqlite3.connect(f"file:{floor.folder.journal}?mode=ro", uri=True) as db:
        return dict(db.execute("SELECT table_id, count(*) FROM seen WHERE kind = 'round' "
                               "GROUP BY table_id"))


def test_the_api_answers_what_the_journal_holds(floors: Floors, period: tuple[str, str]
                                                ) -> None:
    floor = floors.floors[N]
    start, end = period
    body = floor.pit.get(f"/api/stats?from={start}&to={end}")
    expected = report.load_stats(floor.folder.journal, report.when(start, "from"),
                                 report.when(end, "to"))
    assert {k: v for k, v in body.items() if k != "say"} == expected
    # Against the journal itself: every round the pit saw, per table.
    assert {t["table"]: t["rounds"] for t in body["tables"]} == journal_rounds(floor)
    by = {t["table"]: t for t in body["tables"]}
    for paused in ("t1", "t2"):  # paused by the station, still open at `to`
        assert by[paused]["pauses"] >= 1 and by[paused]["paused_s"] > 0
        assert {r["raised"] for r in by[paused]["reasons"]} == {"station"}
    assert body["say"]["zh"]["columns"]["rounds_per_hour"] == "每小时局数"


def test_the_default_period_is_the_last_eight_hours(floors: Floors) -> None:
    floor = floors.floors[N]
    body = floor.pit.get("/api/stats")
    start, end = datetime.fromisoformat(body["from"]), datetime.fromisoformat(body["to"])
    assert end - start == timedelta(hours=8)
    assert abs(datetime.now(UTC) - end) < timedelta(minutes=5)
    assert {t["table"]: t["rounds"] for t in body["tables"]} == journal_rounds(floor)
    # `to` alone: the 8 hours before it.
    body = floor.pit.get("/api/stats?to=2026-01-01T08:00Z")
    assert (body["from"], body["tables"]) == ("2026-01-01T00:00:00.000Z", [])


@pytest.mark.parametrize("by", ["table", "dealer"])
def test_the_csv_is_the_commands(floors: Floors, period: tuple[str, str], by: str) -> None:
    floor = floors.floors[N]
    start, end = period
    status, headers, body = raw(floor, f"/api/stats.csv?from={start}&to={end}&by={by}")
    assert status == 200
    assert headers["Content-Type"] == "text/csv; charset=utf-8"
    assert headers["Content-Disposition"] == (
        f'attachment; filename="pit-stats-{by}-{stamp(start)}-{stamp(end)}.csv"')
    done = subprocess.run([sys.executable, "-m", "station.cli", "pit", "report", "-c",
                           str(floor.config), "--from", start, "--to", end, "--by", by],
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert body == done.stdout
    rows = list(csv.DictReader(io.StringIO(body.decode(), newline="")))
    totals = [r for r in rows if r["reason"] == "all"]
    expected = floor.pit.get(f"/api/stats?from={start}&to={end}")[f"{by}s"]
    assert [r[by] for r in totals] == [g[by] for g in expected]


@pytest.mark.parametrize(("query", "names"), [
    ("from=yesterday&to=2026-01-02", "from 'yesterday'"),
    ("from=2026-01-01&to=soon", "to 'soon'"),
    ("from=2026-01-01&to=2026-01-02&by=shift", "by='shift'"),
    ("from=2026-01-02&to=2026-01-01", "is not before to"),
    ("from=2026-01-01&to=2026-03-01", "at most 31"),
    ("form=2026-01-01", "unknown parameter 'form'"),
    ("from=99999-01-01&to=2026-01-01", "from '99999-01-01'"),
])
def test_bad_parameters_are_400_naming_them(floors: Floors, query: str, names: str) -> None:
    floor = floors.floors[N]
    for path in ("/api/stats", "/api/stats.csv"):
        status, body = floor.pit.request("GET", f"{path}?{query}")
        assert status == 400, (path, query, body)
        assert names in body["error"] and body["fix"]


def test_requests_at_once_are_answered_one_computation_at_a_time(
        floors: Floors, period: tuple[str, str]) -> None:
    """Many requests at once: each is the statistics or a 503 saying to ask again (whether
    two overlap depends on the machine; the gate's own test below makes them overlap)."""
    floor = floors.floors[N]
    start, end = period
    answers: list[tuple[int, dict[str, str], bytes]] = []

    def ask() -> None:
        answers.append(raw(floor, f"/api/stats?from={start}&to={end}"))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(answers) == 8
    first = next(b for s, _, b in answers if s == 200)
    for status, headers, body in answers:
        if status == 503:
            assert headers["Retry-After"] == "2" and b"one at a time" in body
        else:
            assert (status, body) == (200, first)
    assert raw(floor, f"/api/stats?from={start}&to={end}")[0] == 200


def test_the_gate_computes_one_at_a_time(tmp_path: Path) -> None:
    """A second request while one is computed is refused at once, not queued; once the
    first is done the next is computed."""
    started, go = threading.Event(), threading.Event()
    running: list[int] = []

    def load(journal: Path, start: datetime, end: datetime, now: datetime) -> dict[str, Any]:
        running.append(1)
        started.set()
        assert go.wait(60)
        return {"journal": str(journal), "at_once": len(running)}

    gate = StatsGate(tmp_path / "pit.sqlite3", load)
    t0, t1 = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)

    async def main() -> None:
        first = asyncio.create_task(gate.compute(t0, t1))
        while not started.is_set():
            await asyncio.sleep(0.01)
        with pytest.raises(Busy, match="one at a time"):
            await gate.compute(t0, t1)
        go.set()
        assert (await first)["at_once"] == 1
        running.clear()
        assert (await gate.compute(t0, t1))["at_once"] == 1

    asyncio.run(main())


def test_a_journal_that_cannot_be_read_is_503(tmp_path: Path) -> None:
    gate = StatsGate(tmp_path / "none.sqlite3")
    t0, t1 = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    with pytest.raises(InputFileError, match="no pit journal there"):
        asyncio.run(gate.compute(t0, t1))
    assert not gate.busy


# --- the page ----------------------------------------------------------------------------
def open_stats(chromium: Any, floor: PitFloor, path: str, size: tuple[int, int] = (1280, 800)
               ) -> Any:
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(floor.pit.base + path)
    page.wait_for_function("window.__renders > 0", timeout=60000)
    assert errors == []
    return page


def duration(s: float) -> str:
    t = int(s)
    return f"{t // 3600}:{t % 3600 // 60:02d}:{t % 60:02d}"


def shown(col: str, v: Any) -> str:
    if v is None:
        return "-"
    if col.endswith("_s"):
        return duration(v)
    return f"{v:.1f}" if col == "rounds_per_hour" else str(v)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_shows_what_the_api_says(floors: Floors, chromium: Any,
                                          period: tuple[str, str], lang: str) -> None:
    floor = floors.floors[N]
    start, end = period
    query = f"from={start}&to={end}"
    body = floor.pit.get(f"/api/stats?{query}")
    page = open_stats(chromium, floor, f"/stats?lang={lang}&{query}")
    say = body["say"][lang]
    for by, groups in (("table", body["tables"]), ("dealer", body["dealers"])):
        heads = page.eval_on_selector_all(f"#by-{by} th", "hs => hs.map(h => h.textContent)")
        assert heads[0] == say["columns"][by] and say["columns"]["paused_s"] in heads
        keys = page.eval_on_selector_all(f"#by-{by} tr.group", "rs => rs.map(r => r.dataset.key)")
        assert keys == [g[by] or "" for g in groups]
        for g in groups:
            row = f'#by-{by} tr.group[data-key="{g[by] or ""}"]'
            cells = dict(page.eval_on_selector_all(
                f"{row} td[data-col]", "cs => cs.map(c => [c.dataset.col, c.textContent])"))
            assert cells == {c: shown(c, g[c]) for c in cells} and len(cells) == 8
            for r in g["reasons"]:
                sel = (f'#by-{by} tr.reason[data-key="{g[by] or ""}"]'
                       f'[data-reason="{r["raised"]}/{r["reason"]}"]')
                text = page.inner_text(sel)
                assert say["raised"][r["raised"]] in text and say["reasons"][r["reason"]] in text
                assert str(r["pauses"]) in text and duration(r["paused_s"]) in text
    href = page.get_attribute("#csv-dealer", "href")
    assert unquote(href or "") == f"/api/stats.csv?{query}&by=dealer"
    if lang == "zh":
        assert chinese_text_problems(page.inner_text("body")) == []
    page.context.close()


def test_the_period_chooser_and_the_floor_link(floors: Floors, chromium: Any) -> None:
    floor = floors.floors[N]
    page = open_stats(chromium, floor, "/?lang=zh".replace("/?", "/stats?"))
    assert page.get_attribute("#pick-shift", "aria-pressed") == "true"
    shift = page.evaluate("window.__stats")
    assert datetime.fromisoformat(shift["to"]) - datetime.fromisoformat(shift["from"]) \
        == timedelta(hours=8)
    page.click("#pick-today")
    page.wait_for_function("window.__renders > 1", timeout=60000)
    today = page.evaluate("window.__stats")
    assert page.get_attribute("#pick-today", "aria-pressed") == "true"
    assert datetime.fromisoformat(today["to"]) - datetime.fromisoformat(today["from"]) \
        <= timedelta(hours=24)
    page.fill("#from", "yesterday")
    page.click("#apply")
    assert page.inner_text("#problem") == "请按 2026-01-01 08:00 的格式填写起止时间"
    page.fill("#from", "2026-01-01 00:00")
    page.fill("#to", "2026-01-01 08:00")
    page.click("#apply")
    page.wait_for_function("window.__renders > 2", timeout=60000)
    assert page.get_attribute("#pick-custom", "aria-pressed") == "true"
    assert page.evaluate("window.__stats.tables") == []
    assert "from=" in page.url and "lang=zh" in page.url
    page.goto(floor.pit.base + "/?lang=zh")
    page.click("#stats-link")
    page.wait_for_function("window.__renders > 0", timeout=60000)
    assert page.url.endswith("/stats?lang=zh")
    page.context.close()


@pytest.mark.parametrize("size", VIEWPORTS)
def test_nothing_is_clipped(floors: Floors, chromium: Any, size: tuple[int, int]) -> None:
    floor = floors.floors[N]
    for lang in ("en", "zh"):
        page = open_stats(chromium, floor, f"/stats?lang={lang}", size)
        assert page.evaluate(CLIPPED) == [], (lang, size)
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
        page.context.close()
