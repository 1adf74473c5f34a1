"""The dealer's page holds still (docs/display.md, "Layout"): in Debian's Chromium, at
1920x1080, 1366x768 and 1280x800, in both languages, through every state the station can be in,
no element is outside the viewport or over another, the buttons' boxes never change, the
instruction's type never goes under the size set for 2 m, and the Chinese page shows no Latin
letter but card ranks, ids and key letters.

The states are the station's own views, built in-process from real stations (a simulated shoe
with every fault kind, the pauses no simulation reaches set up card by card, squeeze and VIP
tables): one page load renders them all through the page's own ``render`` (its stream closed
first, so only these views show), which keeps the cost to one browser and one page.
``STATION_LAYOUT_ALL=1`` checks every view; by default every third distinct state is taken
(each pause reason kind always), about a third of the time.
"""

# ruff: noqa: RUF001 - the Chinese wording uses full-width punctuation
from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson
import pytest

from drivers.events import Command, DeviceLost, InputEvent
from drivers.sim_serial import PtyScanner
from drivers.simulated import Fault, Pace, SimulatedDealer, random_shoes
from station.table.simulation import simulate
from station.table.station import RESTART, Station
from station.table.tablerules import TableRules
from station.web.devicenames import DEVICES, device, page_names
from station.web.display import WebDisplay
from station.web.hub import Hub
from station.web.modeview import ALERTS
from station.web.view import Surroundings
from tests import webkit
from tests.tablekit import Table
from tests.web.test_web_words import scenarios

SIZES = [(1920, 1080), (1366, 768), (1280, 800)]
TABLE = "BAC-07"
DEALER = "D0042"
# Who did what, as the notices name them: supervisors' and dealers' names are ids too.
PEOPLE = ["alice", "ann", "sim", "test", "cam-2", "sim-shoe",
          "A1", "B2"]  # the last: pack ids registered at a shuffle check
ALL = os.environ.get("STATION_LAYOUT_ALL") == "1"

# What the page measures about itself after each view (returned to Python).
MEASURE = """() => {
  const vw = innerWidth, vh = innerHeight, bad = [];
  const shown = (e) => {
    if (e.closest('[hidden]')) return false;
    for (let x = e; x; x = x.parentElement) {
      const cs = getComputedStyle(x);
      if (cs.display === 'none' || cs.visibility === 'hidden') return false;
    }
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const name = (e) => e.id ? '#' + e.id : e.tagName.toLowerCase() + '.' + e.className +
    (e.dataset.action ? '[' + e.dataset.action + ']' : '');
  const box = (e) => e.getBoundingClientRect();
  const over = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  const inside = (a, b) => a.left >= b.left - 0.5 && a.top >= b.top - 0.5 &&
    a.right <= b.right + 0.5 && a.bottom <= b.bottom + 0.5;
  const offline = document.body.classList.contains('offline');
  const root = offline ? document.getElementById('offline') : document.getElementById('table');
  for (const e of root.querySelectorAll('*')) {
    if (!shown(e)) continue;
    const r = box(e);
    if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) {
      bad.push('outside the viewport: ' + name(e));
    }
  }
  const regions = ['#bar', '#line', '#band', '#hands', '#controls', '#panel', '#history']
    .map((s) => document.querySelector(s));
  if (!offline) {
    for (let i = 0; i < regions.length; i++) {
      for (let j = i + 1; j < regions.length; j++) {
        if (over(box(regions[i]), box(regions[j]))) {
          bad.push('regions overlap: ' + name(regions[i]) + ' ' + name(regions[j]));
        }
      }
    }
    // What a dealer reads or presses: whole inside its region, over nothing else.
    const leaves = [...root.querySelectorAll(
      '#bar > *, #line > *, #instruction, #detail, #countdown, #reveal-by, #pause-head, ' +
      '#pause-reason, #pause-todo, #pause-choice, .hand h2, .card, #controls > *, ' +
      '#panel button, #panel input, #panel label, #dealer-when, #vip .why, #vip-message, ' +
      '#pause-message, #roads, #picker-title, #picker .reason, #picker-foot > *, ' +
      '#shuffle-packs, #shuffle-message')].filter(shown);
    for (const e of leaves) {
      const region = regions.find((r) => r.contains(e));
      if (region && !inside(box(e), box(region))) bad.push('out of its region: ' + name(e));
    }
    for (let i = 0; i < leaves.length; i++) {
      for (let j = i + 1; j < leaves.length; j++) {
        const a = leaves[i], b = leaves[j];
        if (a.contains(b) || b.contains(a)) continue;
        if (over(box(a), box(b))) bad.push('overlap: ' + name(a) + ' ' + name(b));
      }
    }
    // Text fitted to its box shows whole: never clipped.
    for (const e of root.querySelectorAll('.fit, #instruction, #pause-reason, button')) {
      if (!shown(e)) continue;
      if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) {
        bad.push('clipped: ' + name(e) + ' ' + JSON.stringify(e.textContent.slice(0, 80)));
      }
    }
  }
  const ins = document.getElementById('instruction');
  return {
    bad,
    buttons: [...document.querySelectorAll('#controls button.cmd')].map((b) => {
      const r = box(b);
      return [b.dataset.action, Math.round(r.x), Math.round(r.y), Math.round(r.width),
              Math.round(r.height)];
    }),
    font: shown(ins) ? parseFloat(getComputedStyle(ins).fontSize) : null,
    text: root.innerText,
  };
}"""

# Latin letters the Chinese page may show: card ranks (drawn with their suit symbol), the key
# letters on the buttons, the table's and the dealer's ids, and device names not known to it.
RANK = re.compile(r"(?:10|[2-9AJQK])[♠♥♦♣]")
KEY = re.compile(r"\((?:[NOCRMP])\)")


def latin_left(text: str, ids: Iterable[str]) -> list[str]:
    for piece in sorted(set(ids), key=len, reverse=True):
        if piece:
            text = text.replace(piece, " ")
    text = KEY.sub(" ", RANK.sub(" ", text))
    return re.findall(r"[A-Za-z]+", text)


def views_of(events: Iterable[InputEvent], rules: TableRules, lang: str) -> list[dict[str, Any]]:
    """The page's view after every event, as the daemon's display builds it."""
    station = Station(rules)
    display = WebDisplay(station, Hub(), Surroundings(TABLE, lang, True, "mqtt", True,
                                                        ("scanner",)))
    out = []
    for ev in events:
        display.show(station.apply(ev))
        out.append(orjson.loads(orjson.dumps(display.view)))
    return out


def simulated_events() -> list[InputEvent]:
    """A one-deck shoe with a fault of every kind, resumed by a supervisor; a dealer signed in."""
    faults = [Fault("garbled", card=20), Fault("double", card=12), Fault("not_due", after_round=2),
              Fault("lost", card=30, seconds=3.0), Fault("cut", card=40)]
    station = Station(TableRules(decks=1))
    dealer = SimulatedDealer(random_shoes(7, 1, 1), faults, pace=Pace(), supervisor="resume",
                             start_ts=1_800_000_000.0)
    events: list[InputEvent] = [Command("sign_in", f"dealer:{DEALER} ann", 1_799_999_999.0)]
    simulate(station, dealer, lambda outputs: None, events.append)
    return events


def mode_events() -> list[tuple[TableRules, list[InputEvent]]]:
    squeeze = Table(mode="squeeze")
    squeeze.new_shoe()
    squeeze.round("2S", "3S", "4S", "5S")
    squeeze.cmd("reveal")
    squeeze.cmd("reveal")
    vip = Table(mode="vip", betting="timer", betting_s=15.0)
    vip.cmd("sign_in", f"dealer:{DEALER} ann")
    vip.new_shoe()
    vip.cmd("request_dealer", "alice (web 127.0.0.1)")
    lost = Table()
    lost.new_shoe()
    lost.round("2S")
    lost.lost("scanner")
    lost.restored("scanner")  # the banner says the scanner is back
    lost.send(DeviceLost("cam-2", "driver failed: RuntimeError: no frame in 5 s", lost.tick(1)))
    restart = Table()
    restart.new_shoe()
    restart.round("2S", "3S")
    restart.send(Command(RESTART, "station", restart.tick(1.0)))
    upstream = Table(betting="upstream")  # the game server opens and closes betting
    upstream.new_shoe()
    return [(upstream.station.rules, upstream.events),
            (squeeze.station.rules, squeeze.events), (vip.station.rules, vip.events),
            (lost.station.rules, lost.events), (restart.station.rules, restart.events)]


def procedure_views(lang: str) -> list[dict[str, Any]]:
    """The procedures' screens (issue 22), always taken: the shuffle check with two packs
    registered, and a dealer's pause with the cut card out (its place in the header). Each is
    marked ``picker``: measured again with the dealer's reason picker open where it is
    offered."""
    check = Table(shuffle_check="supervisor", pack_prefix="PK-")
    check.cmd("sign_in", f"dealer:{DEALER} ann")
    check.cmd("new_shoe")
    check.cards("PK-A1", "PK-B2")
    held = Table()  # a standard table: the page shows where the cut card was all the same
    held.new_shoe()
    held.round("2S", "3S", "4S", "5S")
    held.cut()
    cut_out = views_of(held.events, held.station.rules, lang)[-1]
    held.send(Command("pause", "dealer (web 127.0.0.1)", held.tick(1.0), None, "card_dropped"))
    views = [views_of(check.events, check.station.rules, lang)[-1], cut_out,
             views_of(held.events, held.station.rules, lang)[-1]]
    assert [v["phase"] for v in views] == ["shuffle_check", "between_rounds", "paused"]
    assert views[0]["shuffle_check"]["packs"] == ["A1", "B2"]
    assert views[1]["shoe"]["penetration"] is not None
    return [{**v, "picker": True} for v in views]


# What the page measures in the regions where text is longest (issue 30, item 9): every
# element shown in the header, the message line, the instruction band and the panel, whole
# inside the viewport, none with more to show than its box (scrollWidth > clientWidth).
OVERFLOW = """() => {
  const vw = innerWidth, vh = innerHeight, bad = [];
  const shown = (e) => {
    for (let x = e; x; x = x.parentElement) {
      const cs = getComputedStyle(x);
      if (x.hidden || cs.display === 'none' || cs.visibility === 'hidden') return false;
    }
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const name = (e) => e.id ? '#' + e.id : e.tagName.toLowerCase() + '.' + e.className +
    (e.dataset.action ? '[' + e.dataset.action + ']' : '') +
    (e.dataset.why ? '[' + e.dataset.why + ']' : '');
  for (const region of ['#bar', '#line', '#band', '#panel']) {
    for (const e of document.querySelectorAll(region + ', ' + region + ' *')) {
      if (!shown(e)) continue;
      const r = e.getBoundingClientRect();
      if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) {
        bad.push('outside the viewport: ' + name(e));
      }
      if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) {
        bad.push('over its box by ' + Math.max(e.scrollWidth - e.clientWidth,
          e.scrollHeight - e.clientHeight) + ' px: ' + name(e) + ' ' +
          JSON.stringify(e.textContent.slice(0, 60)) + " w" + (e.scrollWidth - e.clientWidth) +
          " h" + (e.scrollHeight - e.clientHeight));
      }
    }
  }
  const rect = (id) => { const r = document.getElementById(id).getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom].map(Math.round); };
  return { bad, clock: rect('clock'), mute: rect('mute') };
}"""


def longest_views(lang: str) -> list[dict[str, Any]]:
    """The staged states where the page has most to say (issue 30, items 9 and 10): a VIP
    table whose player asked for a new shoe and another dealer (the longest header: SHOE
    ENDED EARLY: PLAYER ASKED, DEALER D050 (another dealer asked for)), a lost camera and the
    game server's link down; the same mid-deal (LAST ROUND: PLAYER ASKED) and waiting on the
    system's reveal; and the sign-in rule of a dealer who may not sign now."""
    vip = Table(mode="vip", new_shoe_after=0, open_cards_s=60.0)
    vip.cmd("sign_in", "dealer:D050 ann")
    vip.new_shoe()
    vip.round("2S", "3S", "4S", "5S")  # the hands face down: the player's reveal waits
    revealing = views_of(vip.events, vip.station.rules, lang)[-1]
    vip.cmd("request_dealer", "alice (web 127.0.0.1)")
    vip.cmd("request_new_shoe", "alice (web 127.0.0.1)")
    last = views_of(vip.events, vip.station.rules, lang)[-1]
    vip.cmd("reveal")
    vip.cmd("reveal")  # player 6, banker 8: the round, and the shoe, are over
    closed = views_of(vip.events, vip.station.rules, lang)[-1]
    assert revealing["phase"] == "reveal" and revealing["reveal"]["auto_at"] is not None
    assert last["shoe"]["last_round_why"] == "player", last["shoe"]
    assert closed["shoe_end"] == "player" and closed["dealer"]["change_requested"]
    lost = [{"name": "scanner", "ok": True, "reason": ""},
            {"name": "cam-2", "ok": False, "reason": "no frame"}]
    return [{**v, "devices": lost, "upstream": {"type": "mqtt", "connected": False}}
            for v in (revealing, last, closed)]


def states(lang: str) -> list[dict[str, Any]]:
    """Distinct states: each phase and prompt wording (digits aside), each pause reason."""
    runs = [(TableRules(decks=1), simulated_events()), *mode_events()]
    runs += [(t.station.rules, t.events) for t in scenarios()]
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    for rules, events in runs:
        for view in views_of(events, rules, lang):
            p = view["prompt"]
            key = (view["phase"], view["mode"], re.sub(r"\d+", "#", p["text"]),
                   re.sub(r"\d+", "#", p["detail"]), tuple(p.get("plain", ())),
                   bool(view["alerts"]), bool(view["notices"]))
            found.setdefault(key, view)
    views = list(found.values())
    for view in views:
        if view["vip"]:  # a VIP table with every alert on screen
            alerted = dict(view)
            alerted["alerts"] = [{"alert": k, "text": en, "zh": zh}
                                 for k, (en, zh) in ALERTS.items()]
            views.append(alerted)
            break
    if not ALL:
        views = [v for i, v in enumerate(views)
                 if v["paused"] or v["mode"] != "standard" or i % 3 == 0]
    return views + procedure_views(lang)


@pytest.fixture(scope="module")
def page_on_a_table(chromium: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("layout")
    with PtyScanner(tmp / "scanner") as pty:
        config = webkit.live_config(tmp, pty.path)
        with webkit.running(config):
            context = chromium.new_context(viewport={"width": 1920, "height": 1080})
            page = context.new_page()
            page.goto(webkit.url_of(config))
            webkit.wait_text(page, "#instruction", "NEW SHOE")
            # From here the page shows only the views handed to it: its stream closed, its
            # heartbeat watch told the station is there.
            page.evaluate("() => { source.close(); lastByte = Date.now() + 1e12; }")
            # The views' clock is the tables' (tests/tablekit.py): the page counts on it.
            page.evaluate("() => { clockOffset = 1800000000 - Date.now() / 1000; }")
            yield page
            context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_nothing_moves_overlaps_or_leaves_the_screen(page_on_a_table: Any, lang: str) -> None:
    page = page_on_a_table
    views = states(lang)
    assert len(views) > (30 if ALL else 12), len(views)
    kinds = {tuple(v["prompt"].get("plain", ())) for v in views if v["paused"]}
    assert len(kinds) >= 8, kinds  # the pause reasons' kinds are all there
    problems: list[str] = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        buttons = None
        minimum = height * page.evaluate("MIN_INSTRUCTION_VH") / 100
        for view in views:
            page.evaluate("v => render(v)", view)
            got = page.evaluate(MEASURE)
            where = f"{width}x{height} {lang} {view['phase']} {view['prompt']['text'][:60]!r}"
            problems += [f"{where}: {b}" for b in got["bad"]]
            if view["vip"] and not view["paused"]:  # the requests opened by a supervisor
                page.evaluate("() => openVip(true)")
                opened = page.evaluate(MEASURE)
                problems += [f"{where} (VIP requests open): {b}" for b in opened["bad"]]
                if opened["buttons"] != got["buttons"]:
                    problems.append(f"{where}: the buttons moved with the VIP requests open")
                if lang == "zh":
                    problems += [f"{where}: Latin {x}" for x in latin_left(
                        opened["text"], [TABLE, DEALER, *PEOPLE])]
                page.evaluate("() => openVip(false)")
            if view.get("picker") and "pause" in view["actions"]:  # the dealer's reasons
                page.evaluate("() => openPicker(true)")
                opened = page.evaluate(MEASURE)
                problems += [f"{where} (reason picker open): {b}" for b in opened["bad"]]
                if opened["buttons"] != got["buttons"]:
                    problems.append(f"{where}: the buttons moved with the reason picker open")
                if lang == "zh":
                    problems += [f"{where}: Latin {x}" for x in latin_left(
                        opened["text"], [TABLE, DEALER, *PEOPLE])]
                page.evaluate("() => openPicker(false)")
            if buttons is None:
                buttons = got["buttons"]
            elif got["buttons"] != buttons:
                problems.append(f"{where}: the buttons moved {got['buttons']} != {buttons}")
            if not view["paused"] and got["font"] is not None and got["font"] < minimum - 0.5:
                problems.append(f"{where}: instruction at {got['font']} px < {minimum}")
            if lang == "zh":
                ids = [TABLE, DEALER, *PEOPLE, *(d["name"] for d in view["devices"])]
                left = latin_left(got["text"], ids)
                if left:
                    problems.append(f"{where}: Latin on the Chinese page {left}")
        # Offline covers everything, inside the viewport too.
        page.evaluate("() => setOffline(true, 'lost')")
        got = page.evaluate(MEASURE)
        problems += [f"{width}x{height} {lang} offline: {b}" for b in got["bad"]]
        if lang == "zh":
            problems += [f"offline: Latin {x}" for x in latin_left(got["text"], [])]
        page.evaluate("() => setOffline(false)")
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} in all)"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_longest_texts_fit_their_boxes_at_every_size(page_on_a_table: Any,
                                                          lang: str) -> None:
    """Nothing in the header, the message line, the band or the panel is cut or leaves the
    screen when it has most to say; the clock and the sound button are whole and where they
    always are, in every state (issue 30, item 9)."""
    page = page_on_a_table
    views = longest_views(lang) + [v for v in states(lang) if v["mode"] == "vip"]
    problems: list[str] = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        places: set[tuple[str, tuple[int, ...]]] = set()
        for view in views:
            page.evaluate("v => render(v)", view)
            for opened in ("", "openVip(true)") if view["vip"] and not view["paused"] else ("",):
                if opened:
                    page.evaluate(f"() => {opened}")
                got = page.evaluate(OVERFLOW)
                where = (f"{width}x{height} {lang} {view['phase']} "
                         f"{view['prompt']['text'][:40]!r}{' VIP open' if opened else ''}")
                problems += [f"{where}: {b}" for b in got["bad"]]
                places |= {("clock", tuple(got["clock"][1::2])), ("mute", tuple(got["mute"]))}
                if opened:
                    page.evaluate("() => openVip(false)")
        # The sound button never moves; the clock keeps its line.
        if len([p for p in places if p[0] == "mute"]) != 1:
            problems.append(f"{width}x{height} {lang}: the sound button moved {places}")
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} in all)"


def test_the_minimum_is_the_documented_one() -> None:
    js = (webkit.ROOT / "station" / "web" / "static" / "app.js").read_text()
    doc = (webkit.ROOT / "docs" / "display.md").read_text()
    vh = re.search(r"const MIN_INSTRUCTION_VH = (\d+(?:\.\d+)?);", js)
    assert vh is not None
    assert f"at least {vh[1]}% of the screen's height" in doc


def test_layout_views_are_real(tmp_path: Path) -> None:
    """The VIP view carries the dealer-requested alert from the station itself."""
    views = [v for v in states("en") if v["vip"]]
    assert any(a["alert"] == "dealer_requested" for v in views for a in v["alerts"])


def test_after_a_void_no_stale_cards_and_the_header_names_the_next_round(
        page_on_a_table: Any) -> None:
    t = Table()
    t.new_shoe()
    t.round("2S", "3S")
    t.card("@@")  # unreadable: a pause
    t.cmd("void", "alice (web 127.0.0.1)")
    view = views_of(t.events, t.station.rules, "en")[-1]
    assert view["phase"] == "between_rounds" and view["round"]["player"] == ["2S"]
    assert view["results"][-1]["status"] == "void"
    page = page_on_a_table
    page.evaluate("v => render(v)", view)
    assert page.locator("#player .card, #banker .card").count() == 0
    assert page.inner_text("#player .total") == ""
    assert page.inner_text("#round-no") == "ROUND 2"
    assert "ROUND 2: OPEN BETTING" in page.inner_text("#instruction")
    assert page.inner_text("#last-result") == "Round 1: VOID"


def test_a_closed_shoe_says_why_it_closed(page_on_a_table: Any) -> None:
    ended = Table()
    ended.new_shoe()
    ended.cmd("end_shoe")  # between rounds: the shoe closes at once, the dealer asked
    cut = Table()
    cut.new_shoe()
    cut.cut()  # the cut card out between rounds: the next round is the last
    cut.round("2S", "3S", "4S", "5S")
    page = page_on_a_table
    for table, lang, words in ((ended, "en", "SHOE ENDED EARLY: END SHOE"),
                               (ended, "zh", "牌靴提前结束：荷官结束牌靴"),
                               (cut, "en", "SHOE ENDED: CUT CARD")):
        view = views_of(table.events, table.station.rules, lang)[-1]
        assert view["phase"] == "shoe_closed", view["phase"]
        page.evaluate("v => render(v)", view)
        assert page.inner_text("#last-round") == words


def test_a_vip_new_shoe_asked_for_mid_deal_is_not_called_the_cut_card(
        page_on_a_table: Any) -> None:
    """The VIP player's new shoe makes the round in play the last with no cut card out: the
    header and the instruction say the player asked (issue 30, item 8)."""
    t = Table(mode="vip", new_shoe_after=0)
    t.new_shoe()
    t.round("2S")
    t.cmd("request_new_shoe", "alice (web 127.0.0.1)")
    page = page_on_a_table
    for lang, header, detail in (
            ("en", "LAST ROUND: PLAYER ASKED", "NEW SHOE asked for by the player"),
            ("zh", "最后一局：玩家请求新牌靴", "玩家已请求新牌靴：本局为最后一局")):
        view = views_of(t.events, t.station.rules, lang)[-1]
        assert view["shoe"]["cut_card_out"] is False
        page.evaluate("v => render(v)", view)
        assert page.inner_text("#last-round") == header
        assert detail in page.inner_text("#detail")
        assert "CUT CARD" not in page.inner_text("#table") and "切牌已出" not in page.inner_text(
            "#table")
        page.evaluate("() => $('mute').click()")  # relabelling keeps why the shoe ends
        assert page.inner_text("#last-round") == header
        page.evaluate("() => $('mute').click()")


def test_the_stations_notices_show_once_for_a_few_seconds(page_on_a_table: Any) -> None:
    """A refused badge (once shown nowhere) shows in the message line, in the page's
    language; it goes after a few seconds; a page that connects shows no old notice."""
    t = Table(badge_prefix="DEALER-")
    t.new_shoe()
    t.cmd("open_betting")
    t.cmd("close_betting")
    t.card("2S")
    t.card("DEALER-D042")  # a badge while a card is due: refused, the table goes on
    page = page_on_a_table
    for lang, words in (("en", "badge of dealer D042 refused"),
                        ("zh", "荷官 D042 的工牌被拒绝")):
        views = views_of(t.events, t.station.rules, lang)
        assert words in " ".join(views[-1].get("notices_zh", views[-1]["notices"]))
        page.evaluate("() => { noticeSeq = null; }")  # as a page that just connected
        page.evaluate("v => render(v)", views[-2])
        page.evaluate("v => render(v)", views[-1])
        assert words in page.inner_text("#message")
        page.evaluate("() => { noticeUntil = Date.now() - 1; tick(); }")  # the seconds up
        assert page.inner_text("#message") == ""
        # Connecting after it: the notice is old news, not shown.
        page.evaluate("() => { noticeSeq = null; }")
        page.evaluate("v => render(v)", views[-1])
        assert page.inner_text("#message") == ""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_last_result_the_vip_detail_and_why_are_read_at_their_sizes(
        page_on_a_table: Any, lang: str) -> None:
    """The last result at 3.4% of the height on one line where the message line has room; a
    VIP reveal's reason at 3% at least, in English as in Chinese; the VIP requests' reasons at
    1.6% at least (issue 30, item 10; docs/display.md)."""
    page = page_on_a_table
    vip = longest_views(lang)
    played = Table()
    played.new_shoe()
    played.round("2S", "3S", "4S", "5S")  # a natural: the longest result
    result = views_of(played.events, played.station.rules, lang)[-1]
    result["notices"] = []
    problems: list[str] = []
    size = "(e) => parseFloat(getComputedStyle(document.querySelector(e)).fontSize)"
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        vh = height / 100
        page.evaluate("() => { noticeSeq = null; $('message').textContent = ''; }")
        page.evaluate("v => render(v)", result)
        got = page.evaluate(f"() => [({size})('#last-result'),"
                            " $('last-result').getBoundingClientRect().height,"
                            " $('last-result').textContent]")
        where = f"{width}x{height} {lang}"
        if abs(got[0] - 3.4 * vh) > 0.5:
            problems.append(f"{where}: last result at {got[0] / vh:.2f}% {got[2]!r}")
        if got[1] > 1.3 * got[0]:
            problems.append(f"{where}: last result wraps ({got[1]} px high) {got[2]!r}")
        for view in vip[:2]:  # a VIP reveal, and the same the last of the shoe
            page.evaluate("v => render(v)", view)
            detail = page.evaluate(f"() => ({size})('#detail')")
            if detail < 3 * vh - 0.5:
                problems.append(f"{where} {view['prompt']['detail'][:40]!r}: detail at "
                                f"{detail / vh:.2f}%")
        page.evaluate("v => render(v)", vip[0])
        page.evaluate("() => openVip(true)")
        whys = page.evaluate("() => [...document.querySelectorAll('#vip .why')]"
                             ".filter((w) => w.textContent)"
                             ".map((w) => parseFloat(getComputedStyle(w).fontSize))")
        page.evaluate("() => openVip(false)")
        assert whys, "no VIP request greyed out in the staged view"
        problems += [f"{where}: a VIP why at {w / vh:.2f}%" for w in whys if w < 1.6 * vh - 0.5]
    assert not problems, "\n".join(problems)


def test_a_lost_device_reads_as_the_one_declaration_names_it(page_on_a_table: Any) -> None:
    """The device strip names a lost device from station.web.devicenames (inlined by the
    server; app.js keeps no copy): its id in capitals in English, its Chinese name in
    Chinese, a site's own device by its id."""
    t = Table()
    t.new_shoe()
    for name in (*DEVICES, "cam-2"):
        t.lost(name)
    page = page_on_a_table
    for lang in ("en", "zh"):
        view = views_of(t.events, t.station.rules, lang)[-1]
        lost = [d["name"] for d in view["devices"] if not d["ok"]]
        assert set(lost) == {*DEVICES, "cam-2"}
        page.evaluate("v => render(v)", view)
        shown = page.locator("#devices .dev.bad").evaluate_all(
            "es => es.map(e => [e.dataset.device, e.textContent])")
        said = {n: f"{device(n, True)}断开" if lang == "zh" else f"{n.upper()} LOST"
                for n in lost}
        assert shown == [[n, said[n]] for n in lost], lang
    assert page.evaluate("DEVICE_NAMES") == page_names()
