"""The pit's JSON (station.services.pit.views) from real signed streams: a simulated station's
(``station simulate --messages``, tests/client/clientkit.py) and hand-built messages signed
with a table's key, fed through the client library's ``Floor`` as the service feeds them."""

# ruff: noqa: RUF001 - Chinese text uses full-width punctuation on purpose
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.client import Applied, Floor, Gap, TableState, schema_validator
from station.services.pit import views, words
from station.services.pit.alerts import Alert
from station.table.machine import Phase
from station.table.station import SUPERVISOR_CHOICES
from station.wire.signing import Signer
from tests.client.clientkit import TABLE, Stream, simulated_stream
from tests.pit.pagekit import HEAD

# What a Chinese page may show besides Chinese: ranks, ids, names, numbers, punctuation.
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Stream:
    return simulated_stream(tmp_path_factory.mktemp("pitviews"))


def fold(stream: Stream, payloads: Iterable[bytes]) -> tuple[TableState, views.TableLog]:
    floor = Floor({TABLE: stream.key.public_key()}, validate=schema_validator())
    log = views.TableLog()
    for p in payloads:
        for f in floor.feed(stream.topic(p), p):
            if isinstance(f, Applied):
                log.add(f.message)
    return floor.state(TABLE), log


def first_paused(stream: Stream) -> int:
    """The index of the first status that says the table is paused."""
    for i, p in enumerate(stream.payloads):
        m = orjson.loads(p)
        if m["kind"] == "status" and m.get("paused"):
            return i
    raise AssertionError("the simulated stream never pauses")


def pause_alert(state: TableState, **kw: Any) -> Alert:
    assert state.pause is not None
    return Alert(1, TABLE, "pause", state.pause.reason, state.pause.raised_by,
                       state.pause.ts, **kw)


def test_a_paused_table_says_what_resume_and_void_do_in_the_stations_words(
        stream: Stream) -> None:
    at = first_paused(stream)
    state, log = fold(stream, stream.payloads[: at + 1])
    v = views.table_view(state, views.Seen(), [pause_alert(state)], log)
    assert v["phase"] == "paused" and v["needs"] == ["paused", "alert"]
    assert state.pause is not None and v["pause"]["reason"] == state.pause.reason
    # The simulated fault pauses mid-round: the station's sentence for a pause from a card due.
    assert v["on_resume"] == "resume continues the round"
    assert v["on_void"] == "void refunds it"
    zh = v["say"]["zh"]
    assert (zh["on_resume"], zh["on_void"]) == ("恢复则继续本局", "作废则退还本局投注")
    # The reason as the dealer's page shows it: no raw bytes, no English on the Chinese side.
    assert "\\x" not in v["say"]["en"]["pause"]["reason"]
    assert zh["pause"]["reason"] and not LATIN_WORD.search(zh["pause"]["reason"])
    assert not LATIN_WORD.search(v["alerts"][0]["say"]["zh"]["detail"])
    # The round in progress: its cards as the card messages gave them.
    dealt = [orjson.loads(p) for p in stream.payloads[:at]]
    rnd = state.round
    for hand in ("player", "banker"):
        assert v["cards"][hand] == [m["card"] for m in dealt if m["kind"] == "card"
                                    and m["round"] == rnd and m["hand"] == hand]
    assert v["cards"]["player"]


def test_the_whole_shoe_gives_every_result_and_the_stations_roads(stream: Stream) -> None:
    state, log = fold(stream, stream.payloads)
    v = views.table_view(state, views.Seen("2026-01-01T00:10:00.000Z", 0.25), [],
                         log)
    rounds = [orjson.loads(p) for p in stream.payloads]
    rounds = [m for m in rounds if m["kind"] == "round"]
    assert [r["round"] for r in v["results"]] == [r["round"] for r in rounds]
    complete = [r for r in rounds if r["status"] == "complete"]
    assert v["roads"]["rounds"] == len(complete)
    assert v["roads"]["banker"] == sum(r["winner"] == "banker" for r in complete)
    assert "珠盘路" in v["roads"]["svg"]["zh"] and "Bead Plate" in v["roads"]["svg"]["en"]
    assert 'id="big-road"' in v["roads"]["svg"]["en"]
    # Settled and closed: nothing in progress, nothing to resume.
    assert v["cards"] == {"player": [], "banker": []}
    assert v["on_resume"] is None and v["on_void"] is None and v["pause"] is None
    assert v["lag_s"] == 0.25 and v["last_seen"] == "2026-01-01T00:10:00.000Z"
    assert v["last_result"]["round"] == rounds[-1]["round"]
    assert v["cut_card_out"] is True and v["dealer"] == "D042"


def test_a_new_shoe_starts_the_log_again(stream: Stream) -> None:
    _, log = fold(stream, stream.payloads)
    assert log.results and log.roads.beads
    log.add({"kind": "status", "shoe": "t5-other", "phase": "no_shoe", "seq": 10**6})
    assert log.results  # a status never starts a shoe
    log.add({"kind": "shoe_started", "shoe": "t5-next", "seq": 10**6 + 1})
    assert log.shoe == "t5-next" and not log.results and not log.roads.beads


def test_every_supervisor_choice_of_the_station_splits_and_reads_in_chinese() -> None:
    for phase, sentence in SUPERVISOR_CHOICES.items():
        assert phase is not None
        assert views.supervisor_choice(phase.value) == sentence
        for lang in words.LANGUAGES:
            on_resume, on_void = words.choices(sentence, lang)
            assert on_resume and on_void
            if lang == "zh":
                assert not LATIN_WORD.search(on_resume + on_void), (phase, on_resume, on_void)
            else:
                assert on_resume.startswith("resume") and "void" in on_void
    assert views.supervisor_choice(Phase.PAUSED.value) is None
    assert views.supervisor_choice("no_such_phase") is None


class Table:
    """Hand-built messages of one table, signed with its key, numbered as the station does."""

    def __init__(self, table: str = TABLE) -> None:
        self.table = table
        self.key = Ed25519PrivateKey.generate()
        self.signer = Signer(self.key)
        self.seq = 0
        self.prev: int | None = None

    def event(self, kind: str, key: str, **fields: Any) -> bytes:
        self.seq += 1
        m = {"v": 1, "table": self.table, "kind": kind, "key": key, "seq": self.seq,
             "prev_seq": self.prev, "ts": f"2026-01-01T00:00:{self.seq:02d}.000Z", **fields}
        self.prev = self.seq
        return self.signer.sign(m)

    def status(self, phase: str, **fields: Any) -> bytes:
        self.seq += 1
        m = {"v": 1, "table": self.table, "kind": "status", "key": f"{self.table}:status:"
             f"{self.seq}", "seq": self.seq, "online": True, "phase": phase, "paused": None,
             "ts": f"2026-01-01T00:00:{self.seq:02d}.000Z", "journal": HEAD,
             "clock": "unknown", **fields}  # the journal's head and the clock: issue 24
        return self.signer.sign(m)


SHOE = "t5-20260101T000000Z-1"


def squeeze_round(t: Table) -> list[bytes]:
    r = {"shoe": SHOE, "round": 1}
    return [
        t.event("shoe_started", f"{SHOE}:shoe_started", shoe=SHOE, decks=8),
        t.status("between_rounds", shoe=SHOE, round=None),
        t.event("betting_open", f"{SHOE}:1:betting_open", round_key=f"{SHOE}:1",
                open_bets=["player", "banker"], **r),
        t.event("betting_closed", f"{SHOE}:1:betting_closed", round_key=f"{SHOE}:1", **r),
        t.event("card", f"{SHOE}:1:player:1", hand="player", position=1, card=None,
                face_down=True, **r),
        t.event("card", f"{SHOE}:1:banker:1", hand="banker", position=1, card="9D", **r),
        t.event("card", f"{SHOE}:1:player:2", hand="player", position=2, card=None,
                face_down=True, **r),
        t.status("banker_2", shoe=SHOE, round=1),
    ]


def test_face_down_cards_show_as_none_until_their_reveal() -> None:
    t = Table()
    payloads = squeeze_round(t)
    floor = Floor({TABLE: t.key.public_key()}, validate=schema_validator())
    log = views.TableLog()

    def feed(ps: list[bytes]) -> None:
        for p in ps:
            kind = orjson.loads(p)["kind"]
            found = floor.feed(f"b/{TABLE}/{'status' if kind == 'status' else 'events'}", p)
            assert all(isinstance(f, Applied) for f in found), found
            log.add(found[0].message)  # type: ignore[union-attr]

    feed(payloads)
    v = views.table_view(floor.state(TABLE), views.Seen(), [], log)
    assert v["cards"] == {"player": [None, None], "banker": ["9D"]}
    assert v["mode"] == "squeeze" and v["say"]["zh"]["mode"] == "咪牌桌"
    feed([t.event("reveal", f"{SHOE}:1:reveal:player:2", hand="player", by="upstream:c/p1",
                  round_key=f"{SHOE}:1", cards=[{"card": "9H", "position": 1},
                                                 {"card": "KD", "position": 2}],
                  shoe=SHOE, round=1)])
    v = views.table_view(floor.state(TABLE), views.Seen(), [], log)
    assert v["cards"] == {"player": ["9H", "KD"], "banker": ["9D"]}


def tile_of(table: str, *, online: bool | None = True, paused: bool = False) -> TableState:
    s = TableState(table, online=online, phase="between_rounds")
    if paused:
        from station.client.state import Pause  # noqa: PLC0415

        s.pause = Pause("held by the dealer: dispute", "bob (web 10.0.0.5)", "dispute", None,
                        "2026-01-01T00:00:01.000Z")
        s.phase = "paused"
    return s


def test_tiles_come_needing_first_then_by_table_number() -> None:
    states = [tile_of("t10"), tile_of("t2"), tile_of("t9", paused=True),
              tile_of("t30", online=False), tile_of("t4"), tile_of("t7"), tile_of("t1")]
    alerts = [Alert(1, "t4", "dealer_requested", "another dealer was asked for; the dealer"
                          " goes on until the new one signs in", "upstream:vip/p1",
                          "2026-01-01T00:00:02.000Z"),
              Alert(2, "t7", "gap", Gap("t7", 4, 5).detail, None,
                          "2026-01-01T00:00:03.000Z"),
              Alert(3, "t1", "gap", "seq 9 never arrived (nor perhaps others after 8)",
                          None, "2026-01-01T00:00:01.000Z", acked_by="ann",
                          acked_at="2026-01-01T00:00:05.000Z"),
              # Resumed at the table, never acknowledged: it wants nobody any more.
              Alert(4, "t2", "pause", "held by the dealer: dispute", None,
                          "2026-01-01T00:00:01.000Z", cleared_at="2026-01-01T00:00:04.000Z")]
    body = views.floor_view("pit-1", "2026-01-01T00:00:09.000Z",
                            [(s, views.Seen()) for s in states], alerts)
    order = [t["table"] for t in body["tables"]]
    assert order == ["t30", "t9", "t4", "t7", "t1", "t2", "t10"]
    by = {t["table"]: t for t in body["tables"]}
    assert by["t30"]["needs"] == ["offline"] and by["t9"]["needs"] == ["paused"]
    assert by["t7"]["needs"] == ["alert", "stream"] and by["t1"]["needs"] == []
    assert by["t4"]["open_alerts"] == 1 and by["t1"]["open_alerts"] == 0
    assert by["t2"]["open_alerts"] == 0 and by["t2"]["needs"] == []
    assert by["t9"]["pause"]["code"] == "dispute"
    assert by["t9"]["say"]["zh"]["pause"] == {"reason": "荷官暂停：争议", "code": "争议",
                                              "raised_by": "bob，网页 10.0.0.5"}
    assert by["t30"]["say"]["zh"]["needs"] == ["离线"]
    assert body["pit"] == "pit-1" and body["ts"] == "2026-01-01T00:00:09.000Z"


def test_alerts_come_open_first_by_urgency_newest_first_with_their_words() -> None:
    alerts = [
        Alert(1, "t1", "new_shoe_late", "the new shoe asked for is not started after 300 s",
                    "timer", "2026-01-01T00:00:01.000Z"),
        Alert(2, "t2", "offline", "the station's last will", None,
                    "2026-01-01T00:00:02.000Z", acked_by="ann",
                    acked_at="2026-01-01T00:00:04.000Z"),
        Alert(3, "t3", "gap", "seq 9 never arrived (nor perhaps others after 7)", None,
                    "2026-01-01T00:00:03.000Z"),
    ]
    body = views.alerts_view(alerts)
    # A late new shoe (a table waiting for someone) before a gap (its evidence in doubt).
    assert [a["id"] for a in body["alerts"]] == [1, 3, 2]
    a = {x["id"]: x for x in body["alerts"]}
    assert a[1]["say"]["zh"]["detail"] == "所请求的新牌靴300秒后仍未开始"
    assert a[3]["say"]["zh"]["detail"] == "第9号消息未收到（第7号之后可能还有其他缺失）"
    # The pit's own wording the words do not know: left out in Chinese, the kind says it.
    assert a[2]["say"]["zh"] == {"kind": "工作站离线", "detail": "", "by": ""}
    assert a[2]["say"]["en"]["detail"] == "the station's last will"
    assert set(a[1]) >= {"id", "table", "kind", "detail", "by", "raised_at", "acked_by",
                         "acked_at", "cleared_at"}


def test_station_alert_details_read_in_chinese() -> None:
    details = {
        "dealer_requested": "another dealer was asked for; the dealer goes on until the new "
                            "one signs in",
        "cut_card_position": "cut card after 300 cards: penetration 0.72, outside "
                             "table.penetration 0.75-0.85",
        "bet_positive": "bet player_pair returns 102.8571% for the cards left, over the limit "
                        "of 100.0000%: closed for the rest of the shoe",
        "clock_unsynchronised": "the system clock is not synchronised (the kernel's adjtimex "
                                "state): check the time service (timedatectl status)",
        "clock_jump": "the wall clock jumped +2.500 s against the monotonic clock since the "
                      "last check",
    }
    # The pit's own (station.services.pit.model), counted when they repeat
    # (station.services.pit.alerts).
    details |= {
        "offline": "the table's station is offline (its last will, or a clean stop) (3 times)",
        "bad_signature": "message t5:pause:9: the signature does not verify (2 times)",
        "unknown_table": "no public key for table 't99': not trusted",
        "schema": "t5:status:4: 'phase' is a required property",
        "gap": "seq 9 never arrived (nor perhaps others after 7) (4 times)",
    }
    for kind, detail in details.items():
        said = words.alert_detail(kind, detail, "zh")
        shown = said
        for id_ in ("player_pair", "t5:pause:9", "t5:status:4"):  # ids stay as they are
            shown = shown.replace(id_, "")
        assert said and not LATIN_WORD.search(shown), (kind, said)
        assert words.alert_kind(kind, "zh") != words.OTHER_ALERT[1]


def test_every_phase_mode_and_need_has_chinese_words() -> None:
    for phase in Phase:
        zh = words.phase(phase.value, "zh")
        assert zh and not LATIN_WORD.search(zh), phase
        assert words.phase(phase.value, "en") in words.PHASE_EN.values()
    for m in ("standard", "squeeze", "vip"):
        assert not LATIN_WORD.search(words.mode(m, "zh"))
    for n in views.NEEDS:
        assert not LATIN_WORD.search(words.need(n, "zh"))
    for kind in words.ALERT_KIND:
        assert not LATIN_WORD.search(words.alert_kind(kind, "zh"))


def test_lag_of_reads_iso_times() -> None:
    assert views.lag_of("2026-01-01T00:00:01.250Z", "2026-01-01T00:00:01.000Z") == 0.25
    assert views.lag_of("garbage", "2026-01-01T00:00:01.000Z") is None



def test_a_pause_between_rounds_says_the_stations_words_for_that_phase() -> None:
    t = Table()
    reason = "held by the dealer: dispute"
    payloads = [
        t.event("shoe_started", f"{SHOE}:shoe_started", shoe=SHOE, decks=8),
        t.status("betting_open", shoe=SHOE, round=1),
        t.status("between_rounds", shoe=SHOE, round=1),
        t.event("pause", f"{TABLE}:pause:4", reason=reason, raised_by="bob (web 10.0.0.5)",
                code="dispute", shoe=SHOE, round=1),
        t.status("paused", shoe=SHOE, round=1, paused=reason),
    ]
    floor = Floor({TABLE: t.key.public_key()}, validate=schema_validator())
    log = views.TableLog()
    for p in payloads:
        kind = orjson.loads(p)["kind"]
        for f in floor.feed(f"b/{TABLE}/{'status' if kind == 'status' else 'events'}", p):
            assert isinstance(f, Applied), f
            log.add(f.message)
    v = views.table_view(floor.state(TABLE), views.Seen(), [], log)
    said = "resume or void sets the card aside and goes on"
    assert (v["on_resume"], v["on_void"]) == (said, said)
    assert v["say"]["zh"]["on_resume"] == "恢复或作废都将此牌放在一旁并继续"
    assert v["pause"]["raised_by"] == "bob (web 10.0.0.5)" and v["needs"] == ["paused"]


def test_a_commands_answer_reads_in_both_languages() -> None:
    @dataclass(frozen=True)
    class Sent:
        id: str
        table: str
        action: str
        by: str
        state: str
        detail: str | None

    refused = views.command_json(Sent("pit-1", "t1", "resume", "ann", "refused",
                                      "not_now: not possible while between rounds"))
    assert refused["say"]["en"]["detail"] == "not_now: not possible while between rounds"
    assert refused["say"]["zh"]["detail"] == "现在不可执行：两局之间时不可操作"
    stale = views.command_json(Sent("pit-2", "t1", "void", "ann", "refused",
                                    "stale: sent 40.0 s ago; commands older than 30 s are "
                                    "refused"))
    assert stale["say"]["zh"]["detail"] == "已过期"  # the station's sentence is not known
    applied = views.command_json(Sent("pit-3", "t1", "resume", "ann", "applied", "resumed"))
    assert applied["say"]["zh"]["detail"] == "已恢复"
    sent = views.command_json(Sent("pit-4", "t1", "resume", "ann", "sent", None))
    assert sent["say"]["zh"]["detail"] == "" and sent["state"] == "sent"
    assert sent["after_s"] is None
    # The pit's own answers: not sent to an offline table, no answer within its wait.
    off = views.command_json(Sent("pit-5", "t1", "resume", "ann", views.NOT_SENT,
                                  views.OFFLINE_DETAIL))
    assert off["state"] == "not_sent" and off["detail"] == "table offline, not sent"
    assert off["say"]["zh"]["detail"] == "牌桌离线，未发送"
    late = views.command_json(Sent("pit-6", "t1", "void", "ann", views.UNANSWERED,
                                   views.no_answer_detail(10.0)))
    assert late["detail"] == "no answer after 10 s" and late["after_s"] == 10.0
    assert late["say"]["zh"]["detail"] == "10 秒内无应答"


def test_an_offline_table_has_no_lag_and_says_since_when(stream: Stream) -> None:
    state, _ = fold(stream, stream.payloads[:40])
    seen = views.Seen("2026-01-01T00:20:00.000Z", 0.0)
    assert views.tile(state, [], seen)["offline_since"] is None
    state.online = False  # its last will came
    gone = Alert(7, TABLE, "offline", "the table's station is offline", None,
                 "2026-01-01T00:19:00.000Z", acked_by="ann")
    back_once = Alert(3, TABLE, "offline", "the table's station is offline", None,
                      "2026-01-01T00:01:00.000Z", cleared_at="2026-01-01T00:02:00.000Z")
    t = views.tile(state, [gone, back_once], seen)
    # Since the open offline alert (acknowledged or not); the cleared one is over.
    assert t["offline_since"] == "2026-01-01T00:19:00.000Z"
    assert t["lag_s"] is None and t["needs"][0] == "offline"
    assert t["phase"] == state.phase  # the last known, which the page marks so
    # No alert (say, not yet raised): the newest message's arrival.
    assert views.tile(state, [], seen)["offline_since"] == seen.last_seen


def test_the_table_log_takes_whatever_was_verified_without_raising() -> None:
    # The service folds what verified; with the schemas off, a signed message may still be
    # odd. The log keeps what it can read and never raises.
    log = views.TableLog()
    for m in ({"kind": "shoe_started", "shoe": "s1"},
              {"kind": "card", "shoe": "s1", "round": 1, "hand": "player", "position": "one",
               "card": "2S"},
              {"kind": "card", "shoe": "s1", "round": 1, "hand": "banker", "position": 9,
               "card": "3S"},
              {"kind": "card", "shoe": "s1", "round": 1, "hand": "player", "position": 1,
               "card": 7},
              {"kind": "reveal", "shoe": "s1", "round": 1, "hand": "player", "cards": "all"},
              {"kind": "reveal", "shoe": "s1", "round": 1, "hand": "player", "cards": [3]}):
        log.add(m)
    assert log.cards == {"player": [None], "banker": []}  # a card, its code unreadable
    for m in ({"kind": "round", "shoe": "s1", "round": 1, "status": "complete", "winner": "x"},
              {"kind": "status", "phase": 4}, {"kind": "pause"}):
        log.add(m)
    assert log.cards == {"player": [], "banker": []}  # the round's result came
    assert [r["round"] for r in log.results] == [1] and not log.roads.beads
    assert log.paused_from is None
