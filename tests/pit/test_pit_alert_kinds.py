"""What issue 24 makes visible, noticed by the pit: the station's clock and install alerts, a
changed config, a rewritten journal history and an unsynchronised clock, fed as real signed
messages through the client library's Floor into the pit's model (a real SQLite journal),
with their words in English and Chinese; and an upstream actor's Chinese words."""

# ruff: noqa: RUF001 - Chinese text uses full-width punctuation on purpose
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from station.client import Floor, load_keys, schema_validator
from station.services.pit import views, words
from station.services.pit.journal import PitJournal
from station.services.pit.model import PitModel
from station.web.words import actor_zh
from station.wire import messages
from station.wire.signing import Signer
from tests.client.clientkit import TABLE, Stream, simulated_stream

AT = "2026-12-01T16:00:00.000Z"
FIRST = 60  # messages of the real stream fed before the ones made here


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Stream:
    return simulated_stream(tmp_path_factory.mktemp("kinds"))


class Table:
    """The pit's model fed the stream's first messages, and more signed with its key, each
    numbered after them (``prev_seq`` linked) as the station would."""

    def __init__(self, stream: Stream, tmp: Path) -> None:
        self.signer = Signer(stream.key)
        self.journal = PitJournal(tmp / "pit.db")
        self.model = PitModel(Floor(load_keys(stream.keys_dir), validate=schema_validator()),
                              self.journal)
        first = [orjson.loads(p) for p in stream.payloads[:FIRST]]
        self.seq = first[-1]["seq"]
        self.prev = max(m["seq"] for m in first if m["kind"] != "status")
        self.status = next(m for m in reversed(first) if m["kind"] == "status")
        for p in stream.payloads[:FIRST]:
            self.feed(p)

    def feed(self, payload: bytes) -> None:
        kind = orjson.loads(payload)["kind"]
        self.model.ingest(f"baccarat/{TABLE}/{'status' if kind == 'status' else 'events'}",
                          payload, AT, 1_796_140_800.0)
        self.journal.commit()

    def event(self, m: dict[str, Any]) -> None:
        self.seq += 1
        m = m | {"seq": self.seq, "key": f"{TABLE}:{m['kind']}:{self.seq}",
                 "prev_seq": self.prev}
        self.prev = self.seq
        self.feed(self.signer.sign(m))

    def alert(self, name: str, by: str, detail: str, **more: Any) -> None:
        self.event(messages.alert({"alert": name, "by": by, "detail": detail, **more},
                                  table=TABLE, seq=self.seq + 1, ts=1_796_140_800.0))

    def new_status(self, **fields: Any) -> None:
        self.seq += 1
        body = {k: v for k, v in self.status.items() if k != "sig"}
        self.feed(self.signer.sign(body | {"seq": self.seq, "key": f"{TABLE}:status:{self.seq}",
                                           **fields}))

    def alerts(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = views.alerts_body(self.model)["alerts"]
        return out

    def tile(self) -> dict[str, Any]:
        return next(t for t in views.tables_body(self.model, "pit", AT)["tables"]
                    if t["table"] == TABLE)


@pytest.fixture
def table(stream: Stream, tmp_path: Path) -> Iterator[Table]:
    t = Table(stream, tmp_path)
    yield t
    t.journal.close()


INSTALL = ("2 installed file(s) differ from the wheel's RECORD (812 checked): "
           "station/table/station.py (hash); station/cli.py (missing)")
UNSYNC = ("the system clock is not synchronised (the kernel's adjtimex says so): check the "
          "time service")
JUMP = "the wall clock jumped +4.250 s against the monotonic clock since the last check"


def test_the_stations_clock_and_install_alerts_are_pit_alerts_in_both_languages(
        table: Table) -> None:
    table.alert("install_modified", "install_check", INSTALL,
                files=["station/table/station.py (hash)", "station/cli.py (missing)"])
    table.alert("clock_unsynchronised", "clock", UNSYNC)
    table.alert("clock_jump", "clock", JUMP)
    found = {a["kind"]: a for a in table.alerts()}
    assert set(found) >= {"install_modified", "clock_unsynchronised", "clock_jump"}
    for kind in ("install_modified", "clock_unsynchronised", "clock_jump"):
        a = found[kind]
        assert a["table"] == TABLE and a["cleared_at"] is None
        # Words of their own in both languages, not the fallback's.
        assert a["say"]["en"]["kind"] != words.OTHER_ALERT[0]
        assert a["say"]["zh"]["kind"] not in ("", words.OTHER_ALERT[1])
        assert a["say"]["zh"]["detail"], kind  # no Chinese page without its detail
    assert found["install_modified"]["detail"] == INSTALL
    assert found["install_modified"]["say"]["zh"]["detail"] == (
        "2个已安装文件与安装包的 RECORD 不符（共检查812个）："
        "station/table/station.py (hash); station/cli.py (missing)")
    assert found["clock_jump"]["say"]["zh"]["detail"] == "系统时钟自上次检查以来跳变 +4.250 秒"
    # Order: the doubt on the table's evidence before the clock's, each part newest first.
    kinds = [a["kind"] for a in table.alerts() if a["kind"] != "pause"]
    assert kinds.index("install_modified") < kinds.index("clock_jump") \
        < kinds.index("clock_unsynchronised")


def test_a_pause_comes_before_an_install_alert_and_a_config_change_last(table: Table) -> None:
    table.event(messages.config_changed(
        {"old": {"config": "a" * 64, "paytable": "b" * 64},
         "new": {"config": "c" * 64, "paytable": "d" * 64},
         "keys": ["table.min_bet", "upstream.prefix"], "previous_journal": "e" * 64},
        table=TABLE, seq=table.seq + 1, ts=1_796_140_800.0))
    table.alert("install_modified", "install_check", INSTALL)
    table.event(messages.envelope("pause", table=TABLE, seq=table.seq + 1, key="k",
                                  ts=1_796_140_800.0)
                | {"reason": "held by the dealer: dispute", "shoe": None, "round": None})
    kinds = [a["kind"] for a in table.alerts()
             if a["acked_by"] is None and a["cleared_at"] is None]  # the stream's own paused
    assert kinds == ["pause", "install_modified", "config_changed"], kinds


def test_a_config_change_is_an_alert_naming_the_changed_keys_in_both_languages(
        table: Table) -> None:
    table.event(messages.config_changed(
        {"old": {"config": "a" * 64, "paytable": "b" * 64},
         "new": {"config": "c" * 64, "paytable": "d" * 64},
         "keys": ["table.min_bet", "upstream.prefix"], "previous_journal": "e" * 64},
        table=TABLE, seq=table.seq + 1, ts=1_796_140_800.0))
    a = next(a for a in table.alerts() if a["kind"] == "config_changed")
    assert a["detail"] == ("started with another config: keys table.min_bet, upstream.prefix "
                           "and the paytable changed; a new journal")
    assert a["say"]["en"]["kind"] == "Config changed"
    assert a["say"]["zh"]["kind"] == "配置已更改"
    assert a["say"]["zh"]["detail"] == ("以不同配置启动：配置项 table.min_bet, upstream.prefix"
                                        "和赔率表已更改；已开始新日志")
    # Only the config file's bytes (a comment): no key named, the same journal.
    table.event(messages.config_changed(
        {"old": {"config": "a" * 64, "paytable": None},
         "new": {"config": "f" * 64, "paytable": None}, "keys": [], "previous_journal": None},
        table=TABLE, seq=table.seq + 1, ts=1_796_140_800.0))
    details = [a["detail"] for a in table.alerts() if a["kind"] == "config_changed"]
    assert "started with another config: the config file (no key's value) changed" in details


def test_a_rewritten_history_is_an_alert_that_changes_no_tile(table: Table) -> None:
    before = table.tile()
    head = table.status["journal"]
    # The same record named with another hash: the journal was rewritten under the pit.
    table.new_status(journal=head | {"head": "0" * 64})
    a = next(a for a in table.alerts() if a["kind"] == "rewritten_history")
    assert a["detail"].startswith(f"{TABLE}:status:{table.seq}: journal ")
    assert "日志" in a["say"]["zh"]["detail"] and a["say"]["zh"]["kind"] == "日志历史被改写"
    after = table.tile()
    assert "stream" in after["needs"]
    same = ("online", "phase", "shoe", "round", "dealer", "mode", "last_result", "pause")
    assert {k: after[k] for k in same} == {k: before[k] for k in same}


def test_an_unsynchronised_clock_shows_on_the_tile_until_a_status_says_it_is_back(
        table: Table) -> None:
    assert table.tile()["clock"] == table.status["clock"]
    assert "clock" not in table.tile()["needs"]
    table.new_status(clock="unsynchronised")
    tile = table.tile()
    assert tile["clock"] == "unsynchronised" and "clock" in tile["needs"]
    assert "clock not synchronised" in tile["say"]["en"]["needs"]
    assert "时钟未同步" in tile["say"]["zh"]["needs"]
    page = views.table_body(table.model, TABLE)
    assert page["clock"] == "unsynchronised" and "clock" in page["needs"]
    table.new_status(clock="synchronised")
    assert "clock" not in table.tile()["needs"]


@pytest.mark.parametrize(("actor", "zh"), [
    ("upstream:pit/ann [c-4]", "远程 pit/ann [c-4]"),
    ("upstream:gameserver [c-5]", "远程 gameserver [c-5]"),
])
def test_an_upstream_actor_reads_as_its_keys_name_not_the_game_server(actor: str,
                                                                      zh: str) -> None:
    assert actor_zh(actor) == zh and "游戏服务器" not in actor_zh(actor)
    assert words.actor(actor, "zh") == zh
    assert words.actor(actor, "en") == actor  # English unchanged
