"""A pause's reasons are bounded and a reader's flood is reported once (issue 18, defect 1).

Before: every distinct unreadable code read while paused was appended to the pause's reasons,
and every later pause and status message, the prompt and the view repeated them all (1,111
codes made 64 KB messages). Now a pause keeps its first reason, a count and the last few;
more than ``NOISE_READS`` bad codes a second from one reader are one fault.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from drivers.events import CardRead, Command
from station.live.service.metrics import Metrics
from station.table.outputs import Notice, Prompt
from station.table.pauses import (
    DRAWN_SHOWN,
    LATER_SHOWN,
    NOISE_QUIET_S,
    NOISE_READS,
    NOISE_WINDOW_S,
    PAUSE_MESSAGE_MAX_BYTES,
    REASON_MAX_CHARS,
    REASONS_MAX_CHARS,
    VIEW_MAX_BYTES,
    NoiseWatch,
    PauseReasons,
    is_more_reason,
    more_reason,
    noise_reason,
)
from station.table.station import Station
from station.table.tablerules import TableRules
from station.web.view import ShoeHistory, Surroundings, build_view, notices_of
from station.web.words import action_zh, notice_zh, reason_zh
from station.wire.feed import Feed
from station.wire.observe import Snapshot
from station.wire.signing import Signer
from tests.tablekit import Table


def test_a_pause_keeps_its_first_reason_a_count_and_the_last_ones() -> None:
    r = PauseReasons()
    r.start("first")
    assert r.shown() == ["first"]
    for i in range(LATER_SHOWN):
        assert r.add(f"r{i}")
    assert r.shown() == ["first", "r0", "r1", "r2"]
    assert not r.add("r1") and not r.add("first")  # shown already: no change
    for i in range(3, 10):
        assert r.add(f"r{i}")
    assert r.shown() == ["first", more_reason(7), "r7", "r8", "r9"]
    assert is_more_reason(r.shown()[1]) and not is_more_reason("r7")
    assert more_reason(7) == "7 more not shown"
    r.drop_prefixed("r8")
    assert r.shown() == ["first", more_reason(7), "r7", "r9"]
    r.clear()
    assert r.shown() == []


def test_a_long_reason_is_cut() -> None:
    r = PauseReasons()
    r.start("x" * 5000)
    [shown] = r.shown()
    assert len(shown) == REASON_MAX_CHARS and shown.endswith("...")


def paused_table() -> Table:
    t = Table()
    t.new_shoe()
    t.cmd("open_betting")
    t.card("5H")  # betting is still open: paused, no card due
    return t


def test_a_thousand_distinct_bad_codes_leave_the_pause_as_long_as_four() -> None:
    """The campaign's 1,111 distinct codes (each 2 s apart: no flood), through the station,
    the prompt and the upstream feed as the daemon builds them."""
    t = paused_table()
    feed = Feed("table-1", 8, Signer(Ed25519PrivateKey.generate()))
    biggest: dict[str, int] = {}
    for i in range(1111):
        before = Snapshot.of(t.station)
        event = CardRead(f"?code-{i:04d}-" + "\\x15" * 60, "scanner", t.tick(2.0))
        out = t.send(event)
        for _topic, payload in feed.messages(before, Snapshot.of(t.station), event, out):
            kind = orjson.loads(payload)["kind"]
            biggest[kind] = max(biggest.get(kind, 0), len(payload))
    reasons = t.station.dealing.pause_reasons
    assert len(reasons) == 2 + LATER_SHOWN
    assert reasons[0].startswith("card not due: 5H")
    assert reasons[1] == more_reason(1111 - LATER_SHOWN)
    assert "?code-1110-" in reasons[-1] and "?code-1108-" in reasons[2]
    assert len("; ".join(reasons)) <= REASONS_MAX_CHARS
    assert len(t.station.prompt.text) < REASONS_MAX_CHARS + 400
    assert set(biggest) == {"pause", "status"}
    assert max(biggest.values()) <= PAUSE_MESSAGE_MAX_BYTES
    # A void publishes the reasons: bounded too.
    t.cmd("void")
    assert t.phase == "between_rounds"


def test_cards_drawn_while_paused_name_the_last_ones_past_a_limit() -> None:
    t = paused_table()
    codes = [r + s for s in "SHDC" for r in "23456789"][: DRAWN_SHOWN + 5]
    for code in codes:
        t.card(code)
    [drawn] = [r for r in t.station.dealing.pause_reasons if r.startswith("drawn while")]
    last = " ".join(codes[-DRAWN_SHOWN:])
    assert drawn == (f"drawn while paused: {len(codes)} cards (the last {DRAWN_SHOWN}: "
                     f"{last})")
    assert len(t.station.dealing.drawn_while_paused) == DRAWN_SHOWN


def test_a_few_cards_drawn_while_paused_read_as_before() -> None:
    t = paused_table()
    t.cards("6H", "7H")
    assert t.station.dealing.pause_reasons[-1] == "drawn while paused: 2 cards (6H 7H)"


def flood(t: Table, n: int, dt: float, source: str = "scanner") -> list[Any]:
    out: list[Any] = []
    for i in range(n):
        out += t.card(f"?noise:{i}", dt=dt, source=source)
    return out


def test_a_flood_of_bad_codes_is_one_fault_reported_once() -> None:
    t = paused_table()
    flood(t, NOISE_READS, dt=0.01)  # as many as a second may hold: each is judged
    shown = list(t.station.dealing.pause_reasons)
    assert shown[1] == more_reason(NOISE_READS - LATER_SHOWN)
    out = flood(t, 1, dt=0.01)  # one more within the second: the flood
    reasons = t.station.dealing.pause_reasons
    assert reasons[-1] == noise_reason("scanner")
    assert reasons[-1] == "scanner sends noise: more than 20 bad codes within 1 s"
    assert any(o for o in out if not isinstance(o, Notice))  # the prompt changed
    frozen = list(reasons)
    out = flood(t, 5000, dt=0.001)
    assert t.station.dealing.pause_reasons == frozen
    assert out == []  # nothing to show, publish or journal beside the event itself
    # Another reader is judged on its own.
    t.card("?other", dt=0.001, source="cam-2")
    assert "cam-2" in t.station.dealing.pause_reasons[-1]


def test_the_end_of_a_flood_is_a_notice_and_a_new_flood_is_reported_again() -> None:
    t = paused_table()
    flood(t, NOISE_READS + 30, dt=0.01)
    t.card("?in the flood", dt=NOISE_QUIET_S - 0.5)  # a summary a second: the flood goes on
    assert t.station.dealing.pause_reasons[-1] == noise_reason("scanner")
    out = t.card("?after", dt=NOISE_QUIET_S + 0.5)
    assert Notice(f"scanner stopped sending noise: {NOISE_READS + 31} bad codes in all") in out
    assert "'?after'" in t.station.dealing.pause_reasons[-1]  # judged as one again
    flood(t, NOISE_READS + 1, dt=0.01)
    assert t.station.dealing.pause_reasons[-1] == noise_reason("scanner")


def test_bad_codes_slower_than_the_flood_rate_are_each_a_reason() -> None:
    t = paused_table()
    flood(t, 200, dt=NOISE_WINDOW_S / (NOISE_READS - 1))
    reasons = t.station.dealing.pause_reasons
    assert noise_reason("scanner") not in reasons
    assert reasons[1] == more_reason(200 - LATER_SHOWN) and "?noise:199" in reasons[-1]


def test_a_clock_stepped_back_neither_hides_nor_invents_a_flood() -> None:
    w = NoiseWatch()
    verdicts = [w.bad("s", 100.0 - i * 0.01) for i in range(NOISE_READS + 1)]
    assert verdicts[-1] == "flood"
    w = NoiseWatch()
    assert {w.bad("s", 100.0 + i * (-5.0 if i % 2 else 5.0)) for i in range(100)} == {"read"}


def test_a_quiet_reader_is_forgotten() -> None:
    w = NoiseWatch()
    w.bad("s", 1.0)
    assert w.sources and w.ended(1.5) == [] and w.sources
    assert w.ended(1.0 + 2 * NOISE_WINDOW_S) == [] and not w.sources
    for i in range(NOISE_READS + 1):
        w.bad("s", 10.0 + i * 0.01)
    assert w.ended(10.0 + NOISE_QUIET_S) == [] and w.sources
    assert w.ended(11.0 + NOISE_QUIET_S) == [("s", NOISE_READS + 1)] and not w.sources


def test_replay_finds_the_same_flood_at_the_same_event() -> None:
    t = paused_table()
    flood(t, 60, dt=0.005)
    t.card("?late", dt=3.0)
    t.send(Command("resume", "supervisor:ann", t.tick(1.0)))
    again = Station(TableRules())
    assert [o for ev in t.events for o in again.apply(ev)] == t.outputs


def test_metrics_count_a_flood_once_and_never_the_count_of_reasons() -> None:
    t = paused_table()
    metrics = Metrics(clock=lambda: t.now)
    metrics.attach(t.station)
    for i in range(NOISE_READS + 500):
        ev = CardRead(f"?noise:{i}", "scanner", t.tick(0.01))
        metrics.observe(ev, t.send(ev), 0.0)
    value = metrics.registry.get_sample_value
    assert value("station_pauses_total", {"reason": "noise"}) == 1
    assert value("station_pauses_total", {"reason": "unreadable"}) == NOISE_READS
    assert value("station_pauses_total", {"reason": "other"}) is None
    assert value("station_reader_errors_total", {"kind": "noise"}) == 1


@pytest.mark.parametrize("face_down", [False, True])
def test_a_flood_on_a_face_down_table_names_the_reader_only(face_down: bool) -> None:
    t = Table(mode="squeeze") if face_down else Table()
    t.new_shoe()
    flood(t, NOISE_READS + 1, dt=0.01)
    assert t.station.dealing.pause_reasons[-1] == noise_reason("scanner")
    assert all("?noise" not in r for r in t.station.dealing.pause_reasons) == face_down


def test_the_flood_words_in_chinese() -> None:
    """The dealer's page in Chinese (station/web/words.py): the reason, the action, the count
    of reasons not shown and the flood's end."""
    assert reason_zh(noise_reason("scanner")) == "scanner 发送干扰信号：1秒内超过20个无效码"  # noqa: RUF001
    assert reason_zh(more_reason(12)) == "另有12条未显示"
    assert action_zh("check the reader's cable and its port settings") == (
        "检查读码器的线缆和端口设置")
    assert notice_zh("scanner stopped sending noise: 5000 bad codes in all") == (
        "scanner 已停止发送干扰信号：共5000个无效码")  # noqa: RUF001


def test_the_view_stays_under_its_ceiling_with_every_part_at_its_longest() -> None:
    """Twelve voided rounds (the results the page lists), each after hundreds of the longest
    bad codes a driver sends, a pause of as many, and long notices: the Chinese view, the
    larger of the two languages, as the page is sent it."""
    t = Table()
    longest = "?too_long:" + "\\x15" * 64 + "..."  # show_bytes' most: 64 bytes as \xNN
    history, notices = ShoeHistory(), []
    prompt = t.station.prompt
    t.new_shoe()
    for round_no in range(13):
        t.round("2S")
        for i in range(150):
            t.card(f"{longest}{round_no}-{i}", dt=0.1 if i % 2 else 2.0)
        if round_no < 12:
            t.cmd("void")
    for out in (t.outputs, t.card(longest, dt=0.01), t.card(longest, dt=0.01)):
        notices.extend(notices_of(out))
        history.add(out)
        prompt = next((o for o in reversed(out) if isinstance(o, Prompt)), prompt)
    view = build_view(t.station, prompt, history, notices,
                      Surroundings("t1", "zh", True, "file", None, ("scanner",)))
    assert len(history.records) == 12 and view["paused"]
    assert len(orjson.dumps(view)) <= VIEW_MAX_BYTES, len(orjson.dumps(view))
