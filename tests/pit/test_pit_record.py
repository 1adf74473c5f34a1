"""The pit's record says who did what (issue 30, items 1, 2, 3, 5 and 7), fed as real signed
messages through the client library's Floor into the pit's model (a real SQLite journal),
with the words in English and Chinese: a void answered by a ``resume`` message names the
void; a pause a pit boss raised is the pit boss's on the tile, the alert and in the
statistics; a table in its shuffle check is an alert and a need; an acknowledged alert is no
longer a need; the station's own actors read in words."""

# ruff: noqa: RUF001 - Chinese text uses full-width punctuation on purpose
from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from station.services.pit import views, words
from station.services.pit.model import Action
from station.services.pit.stats import compute, who_raised
from station.wire import messages
from tests.client.clientkit import TABLE, Stream, simulated_stream
from tests.pit.test_pit_alert_kinds import AT, UNSYNC, Table

PIT_BOSS = "upstream:pit/ann [pit-0123456789ab]"


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Stream:
    return simulated_stream(tmp_path_factory.mktemp("record"))


@pytest.fixture
def table(stream: Stream, tmp_path: Path) -> Iterator[Table]:
    t = Table(stream, tmp_path)
    yield t
    t.journal.close()


def pause(table: Table, by: str, code: str = "dispute") -> None:
    table.event(messages.pause(reason=f"held by the dealer: {code}", shoe=None, round_no=None,
                               raised_by=by, code=code, table=TABLE, seq=table.seq + 1,
                               ts=1_796_140_800.0))


def sent(table: Table, cid: str, action: str) -> Action:
    act = Action(cid, TABLE, action, "ann", AT)
    table.journal.action(cid, AT, TABLE, action, by="ann", reason=None, note=None,
                         payload="{}")
    table.model.sent(act)
    return act


def journaled(table: Table, cid: str) -> tuple[str, str]:
    [(state, detail)] = table.journal.rows("SELECT state, detail FROM actions WHERE id = ?",
                                           cid)
    return state, detail


def test_a_void_answered_by_a_resume_message_is_recorded_as_a_void(table: Table) -> None:
    pause(table, "dealer:D042 (web 10.0.0.5)")
    void = sent(table, "pit-00000000000a", "void")
    # A void with no round to void: the station answers with a resume saying action void.
    table.event(messages.envelope("resume", table=TABLE, seq=table.seq + 1, key="k",
                                  ts=1_796_140_800.0)
                | {"by": "upstream:pit/ann [pit-00000000000a]", "action": "void",
                   "shoe": None, "round": None})
    table.journal.commit()
    assert void.state == "applied"
    assert void.detail is not None and void.detail.startswith("voided")
    assert "resume" not in void.detail
    assert journaled(table, void.id) == ("applied", void.detail)
    said = views.command_json(void)["say"]
    assert said["en"]["detail"] == void.detail
    assert said["zh"]["detail"].startswith("已作废")
    # The table's status (its own topic) may come before the message naming the command:
    # the void is first taken for applied as the pause cleared, then named by the message.
    pause(table, "dealer:D042 (web 10.0.0.5)")
    early = sent(table, "pit-00000000000c", "void")
    table.new_status(phase="between_rounds", paused=None)
    assert early.state == "applied" and early.detail is not None
    assert early.detail.startswith("the pause cleared")
    table.event(messages.envelope("resume", table=TABLE, seq=table.seq + 1, key="k3",
                                  ts=1_796_140_800.0)
                | {"by": "upstream:pit/ann [pit-00000000000c]", "action": "void",
                   "shoe": None, "round": None})
    table.journal.commit()
    assert (early.state, early.detail) == ("applied", void.detail)
    assert journaled(table, early.id) == ("applied", void.detail)
    # A resume is recorded as one.
    pause(table, "dealer:D042 (web 10.0.0.5)")
    resume = sent(table, "pit-00000000000b", "resume")
    table.event(messages.envelope("resume", table=TABLE, seq=table.seq + 1, key="k2",
                                  ts=1_796_140_800.0)
                | {"by": "upstream:pit/ann [pit-00000000000b]", "shoe": None, "round": None})
    table.journal.commit()
    assert (resume.state, resume.detail) == ("applied", "resumed")
    assert views.command_json(resume)["say"]["zh"]["detail"] == "已恢复"


@pytest.mark.parametrize(("by", "who", "en", "zh"), [
    (PIT_BOSS, "pit_boss", "Held by the pit boss: dispute", "巡场经理暂停：争议"),
    ("supervisor:sim", "supervisor", "Held by the supervisor: dispute", "主管暂停：争议"),
    ("dealer:D042 (web 10.0.0.5)", "dealer", "Held by the dealer: dispute", "荷官暂停：争议"),
    ("technician (web 127.0.0.1)", "dealer", "Held by the dealer: dispute", "荷官暂停：争议"),
])
def test_a_pause_says_who_held_the_table(table: Table, by: str, who: str, en: str,
                                         zh: str) -> None:
    assert who_raised(by) == who
    pause(table, by)
    tile = table.tile()
    assert tile["pause"]["raised_by"] == by
    assert tile["say"]["en"]["pause"]["reason"] == en
    assert tile["say"]["zh"]["pause"]["reason"] == zh
    page = views.table_body(table.model, TABLE)
    assert page["say"]["en"]["pause"]["reason"] == en
    alert = next(a for a in table.alerts() if a["kind"] == "pause" and a["cleared_at"] is None)
    assert alert["say"]["en"]["detail"] == en and alert["say"]["zh"]["detail"] == zh


def test_the_statistics_count_a_pit_bosss_pause_and_its_void_under_the_pit_boss() -> None:
    def row(kind: str, seq: int, t: float, **body: object) -> tuple[str, str, int, str,
                                                                     dict[str, object]]:
        ts = f"2026-01-01T00:0{t}:00.000Z"
        return ("t1", kind, seq, ts, {"kind": kind, "seq": seq, "ts": ts, **body})

    reason = "held by the dealer: dispute"
    rows = [
        row("round", 1, 1, status="complete", dealer="D042", key="t1:round:1"),
        row("pause", 2, 2, reason=reason, raised_by=PIT_BOSS, code="dispute"),
        row("round", 3, 3, status="void", dealer="D042", key="t1:round:3",
            void_reason=reason),
        row("pause", 4, 4, reason=reason, raised_by="dealer:D042 (web 10.0.0.5)",
            code="dispute"),
        row("resume", 5, 5, by="supervisor:sim"),
    ]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    got = compute(rows, start, start + timedelta(hours=1))
    [t1] = got["tables"]
    reasons = {(r["raised"], r["reason"]): r for r in t1["reasons"]}
    assert set(reasons) == {("pit_boss", "dispute"), ("dealer", "dispute")}
    assert reasons[("pit_boss", "dispute")]["pauses"] == 1
    assert reasons[("pit_boss", "dispute")]["voids"] == 1
    assert reasons[("dealer", "dispute")]["pauses"] == 1
    assert reasons[("dealer", "dispute")]["voids"] == 0
    [d042] = got["dealers"]
    assert {r["raised"] for r in d042["reasons"]} == {"pit_boss", "dealer"}
    for lang, said in (("en", "pit boss"), ("zh", "巡场经理")):
        assert words.stats_words(lang)["raised"]["pit_boss"] == said


def test_a_table_in_its_shuffle_check_is_an_alert_and_a_need_until_it_moves_on(
        table: Table) -> None:
    table.new_status(phase="shuffle_check", paused=None)
    tile = table.tile()
    assert tile["needs"][0] == "shuffle_check" and "alert" in tile["needs"]
    assert tile["say"]["en"]["needs"][0] == "shuffle check to confirm"
    assert tile["say"]["zh"]["needs"][0] == "洗牌待确认"
    [waiting] = [a for a in table.alerts() if a["kind"] == "shuffle_check_waiting"]
    assert waiting["say"]["en"]["kind"] == "Shuffle check waiting"
    assert waiting["say"]["zh"]["kind"] == "洗牌待确认"
    assert waiting["say"]["zh"]["detail"] == "洗牌检查等待主管确认（确认洗牌）"
    # Open alerts by urgency: it ranks with a pause, before an install alert.
    table.alert("install_modified", "install_check", "1 installed file(s) differ from the "
                "wheel's RECORD (3 checked): station/cli.py (missing)")
    kinds = [a["kind"] for a in table.alerts() if a["cleared_at"] is None]
    assert kinds.index("shuffle_check_waiting") < kinds.index("install_modified")
    # Another status in the check raises no second alert; a pause during it keeps it.
    table.new_status(phase="shuffle_check", paused=None)
    table.new_status(phase="paused", paused="card not due: 5H")
    assert len([a for a in table.alerts() if a["kind"] == "shuffle_check_waiting"]) == 1
    table.new_status(phase="shuffle_check", paused=None)
    [waiting] = [a for a in table.alerts() if a["kind"] == "shuffle_check_waiting"]
    assert waiting["cleared_at"] is None
    # Confirmed: the burn follows; the alert is cleared and the need gone.
    table.new_status(phase="burn_indicator", paused=None)
    [waiting] = [a for a in table.alerts() if a["kind"] == "shuffle_check_waiting"]
    assert waiting["cleared_at"] is not None
    assert "shuffle_check" not in table.tile()["needs"]
    rows = table.journal.rows("SELECT kind, cleared_at FROM alerts WHERE kind = ?",
                              "shuffle_check_waiting")
    assert len(rows) == 1 and rows[0][1] is not None


def test_an_acknowledged_alert_is_no_longer_a_need(table: Table) -> None:
    table.new_status(clock="unsynchronised")
    table.alert("clock_unsynchronised", "clock", UNSYNC)
    tile = table.tile()
    assert "clock" in tile["needs"] and "alert" in tile["needs"]
    alert = next(a for a in table.model.alerts if a.kind == "clock_unsynchronised")
    table.model.ack(alert, "ann", AT)
    tile = table.tile()
    assert tile["needs"] == [] and tile["notes"] == ["clock"]
    assert tile["say"]["en"]["notes"] == ["clock not synchronised (acknowledged)"]
    assert tile["say"]["zh"]["notes"] == ["时钟未同步（已确认）"]
    # The clock goes wrong again: the station's new alert is a need again.
    table.new_status(clock="synchronised")
    assert table.tile()["notes"] == []
    table.new_status(clock="unsynchronised")
    table.alert("clock_unsynchronised", "clock", UNSYNC)
    assert "clock" in table.tile()["needs"]


@pytest.mark.parametrize(("by", "en", "zh"), [
    ("clock", "the station's clock check", "工作站时钟检查"),
    ("install_check", "the station's install check", "工作站安装检查"),
    ("bet_guard", "the bet guard", "投注回报监控"),
    ("timer", "the station's timer", "工作站计时器"),
    ("station", "the station", "工作站"),
])
def test_the_stations_own_actors_read_in_words(table: Table, by: str, en: str,
                                               zh: str) -> None:
    table.alert("clock_jump", by, "the wall clock jumped +4.250 s against the monotonic clock "
                "since the last check")
    a = next(a for a in table.alerts() if a["kind"] == "clock_jump")
    assert a["by"] == by
    assert a["say"]["en"]["by"] == en and a["say"]["zh"]["by"] == zh
