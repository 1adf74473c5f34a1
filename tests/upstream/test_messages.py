"""Every message kind against its JSON Schema: examples of each, messages built from a
simulated shoe's real records, and the mistakes the schemas must catch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.game.cards import parse_card
from station.game.shoe import ShoeCounts
from station.table.integrity import Pause, ShoeLog, shoe_report
from station.wire import messages as m
from station.wire.schema import COMMAND, load_schema, validate
from station.wire.signing import Signer

# A status names a journal head (docs/upstream.md); these tests have no journal.
NO_JOURNAL = m.journal_head(bytes(32), 0, bytes(32))

TABLE = "table-1"
SHOE = "table-1-20260101T000003Z-1"
TS = 1_767_225_603.25


def examples() -> list[dict[str, Any]]:
    record = {"v": 1, "key": f"{SHOE}:2", "shoe": SHOE, "round": 2, "status": "complete",
              "player": ["2S", "3D", "8C"], "banker": ["TH", "3C"], "player_total": 3,
              "banker_total": 3, "winner": "tie", "natural": False, "player_natural": False,
              "banker_natural": False, "player_pair": False, "banker_pair": False,
              "perfect_pair": False, "open_bets": ["player", "banker"],
              "bets": {"player": {"outcome": "push", "pays": 0},
                       "banker": {"outcome": "push", "pays": 0}}}
    void = dict(record, status="void", player=["2S"], banker=[], player_total=None,
                banker_total=None, winner=None, void_reason="card not due: 3S",
                voided_by="supervisor:ann")
    announcement = {"type": "betting_open", "shoe": SHOE, "round": 2, "key": f"{SHOE}:2",
                    "open_bets": ["player", "banker"]}
    linked = _linked([
        m.shoe_started(table=TABLE, seq=1, ts=TS, shoe=SHOE, decks=8),
        m.betting_open(announcement, table=TABLE, seq=2, ts=TS),
        m.betting_closed(table=TABLE, seq=3, ts=TS, shoe=SHOE, round_no=2),
        m.card(table=TABLE, seq=4, ts=TS, shoe=SHOE, round_no=2, hand="player", position=1,
               code="2S"),
        m.round_result(record, table=TABLE, seq=5, ts=TS),
        m.pause(table=TABLE, seq=6, ts=TS, reason="card not due: 3S", shoe=SHOE, round_no=3),
        m.resume(table=TABLE, seq=7, ts=TS, by="supervisor:ann", shoe=SHOE, round_no=3),
        m.round_result(void, table=TABLE, seq=8, ts=TS),
        m.command_refused(table=TABLE, seq=9, ts=TS, command_id="c-1", action="resume",
                          reason="stale", detail="sent 40.0 s ago"),
        m.status(journal=NO_JOURNAL, table=TABLE, seq=10, ts=TS, phase="paused", shoe=SHOE,
                 round_no=3, paused="card not due: 3S"),
        m.shoe_ended(table=TABLE, seq=11, ts=TS, shoe=SHOE, rounds=3, reason="cut_card"),
        m.presence(journal=NO_JOURNAL, table=TABLE, ts=TS, online=False),
        m.dealer({"type": "dealer", "action": "change", "dealer": "D043", "previous": "D042",
                  "how": "badge", "request_closed": True}, table=TABLE, seq=12, ts=TS),
        m.round_result(dict(record, dealer="D043"), table=TABLE, seq=13, ts=TS),
        m.card(table=TABLE, seq=14, ts=TS, shoe=SHOE, round_no=3, hand="banker", position=2,
               code=None),
        m.reveal(table=TABLE, seq=15, ts=TS, shoe=SHOE, round_no=3, hand="player",
                 cards=[(1, "4S"), (2, "9H")], by="player:ann [c-7]"),
        m.alert({"alert": "new_shoe_late", "detail": "the new shoe asked for is not started "
                 "after 300 s", "by": "timer", "shoe": SHOE, "round": 31},
                table=TABLE, seq=16, ts=TS),
        m.shoe_report(_report(), table=TABLE, seq=17, ts=TS),
        m.config_changed({"old": {"config": "a" * 64, "paytable": None},
                          "new": {"config": "b" * 64, "paytable": None},
                          "keys": ["upstream.host"], "previous_journal": None},
                         table=TABLE, seq=18, ts=TS),
    ])
    return [*linked, _journal()]


def _journal() -> dict[str, Any]:
    """A record of the journal's mirror (docs/upstream.md's example, before signing)."""
    jid = "8cefd08588819131fbd31e1e3ac4f82696f12e58fa8a1b3d5c0e7d2fd26d677a"
    return {"v": 1, "kind": m.JOURNAL, "table": TABLE, "seq": 1, "prev_seq": 0,
            "key": f"{TABLE}:journal:{jid}:1", "ts": m.iso_ts(TS), "journal": jid,
            "wall_ts": "1767225603.2504", "mono_ts": "1523.871",
            "body": "eyJjb2RlIjoiM1MiLCJlIjoiY2FyZCJ9", "messages": [
                {"topic": "events", "payload": "e30="}], "hash": "ab" * 32}


def _linked(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``prev_seq`` on the events topic's messages, as the daemon's feed adds it."""
    prev = None
    for msg in messages:
        if m.topic_for(msg["kind"]) == m.EVENTS_TOPIC:
            msg[m.PREV_SEQ], prev = prev, msg["seq"]
    return messages


def _report() -> dict[str, Any]:
    """A real report: a shoe with a burn, a round, and a card not due set aside by a void."""
    counts = ShoeCounts(SHOE, 8)
    for code in ("3S", "2D", "KC", "9H", "2S", "3D", "8C", "TH", "3C", "3S"):
        counts.take(parse_card(code))
    counts.burned.extend(parse_card(c) for c in ("3S", "2D", "KC", "9H"))
    counts.dealt = 5
    counts.discarded.append(parse_card("3S"))
    log = ShoeLog(SHOE, TS - 600.0, rounds={"complete": 1, "void": 0},
                  pauses=[Pause(TS - 300.0, ["card not due: 3S"], "void", "supervisor:ann")])
    return shoe_report(log, counts, TS)


def test_there_is_one_schema_per_kind_with_the_same_envelope() -> None:
    files = {p.stem for p in (Path(m.__file__).parent / "schemas").glob("*.json")}
    assert files == {*m.KINDS, COMMAND}
    envelope = load_schema(m.CARD)["properties"]
    for kind in m.KINDS:
        props = load_schema(kind)["properties"]
        assert props["kind"] == {"const": kind}
        for field in ("v", "table", "seq", "ts", "sig"):
            if kind == m.JOURNAL and field == "seq":
                continue  # the journal record's seq, from 0 (its header), not the numbering
            assert props[field] == envelope[field], (kind, field)


def test_every_kind_has_a_valid_example(signer: Signer) -> None:
    built = examples()
    assert {msg["kind"] for msg in built} == set(m.KINDS)
    for msg in built:
        validate(signer.sign(msg))
    assert m.iso_ts(TS) == "2026-01-01T00:00:03.250Z"


@pytest.mark.parametrize(("index", "change", "where"), [
    (3, {"card": "1S"}, "card"),
    (3, {"hand": "dealer"}, "hand"),
    (4, {"winner": None}, "winner"),
    (7, {"void_reason": None}, "void_reason"),
    (4, {"surprise": 1}, "top level"),
    (9, {"phase": None}, "phase"),
    (0, {"ts": "2026-01-01 00:00:03"}, "ts"),
    (0, {"seq": 0}, "seq"),
    (12, {"action": "hired"}, "action"),
    (12, {"dealer": "D 42"}, "dealer"),
    (12, {"how": None}, "top level"),
    (13, {"dealer": 42}, "dealer"),
])
def test_schemas_catch_mistakes(signer: Signer, index: int, change: dict[str, Any],
                                where: str) -> None:
    msg = dict(examples()[index])
    for key, value in change.items():
        if value is None:
            msg.pop(key, None)
        else:
            msg[key] = value
    with pytest.raises(ValueError, match=where):
        validate(signer.sign(msg))


def test_unsigned_messages_are_invalid() -> None:
    with pytest.raises(ValueError, match="sig"):
        validate(examples()[0])


def test_command_schema(signer: Signer) -> None:
    cmd = {"v": 1, "id": "c-1", "table": TABLE, "action": "void", "ts": m.iso_ts(TS),
           "actor": "ann", "reason": "misdeal"}
    validate(signer.sign(cmd), COMMAND)
    with pytest.raises(ValueError, match="action"):
        validate(signer.sign(dict(cmd, action="pay")), COMMAND)


def test_messages_from_a_simulated_shoe_are_valid(tmp_path: Path, signer: Signer) -> None:
    """Today's records and announcements of a real simulation (with a fault voided) mapped
    the way the daemon will: every message validates."""
    faults = tmp_path / "faults.yaml"
    faults.write_text("- {kind: garbled, card: 20}\n- {kind: not_due, after_round: 9}\n")
    rounds, announcements = tmp_path / "rounds.jsonl", tmp_path / "ann.jsonl"
    subprocess.run([sys.executable, "-m", "station.cli", "simulate", "--seed", "3",
                    "--supervisor", "void", "--faults", str(faults), "--out", str(rounds),
                    "--announcements", str(announcements)], check=True, capture_output=True)
    records = [json.loads(line) for line in rounds.read_text().splitlines()]
    announced = [json.loads(line) for line in announcements.read_text().splitlines()]
    opened = {a["round"]: a for a in announced if a["type"] == "betting_open"}
    (report,) = [a for a in announced if a["type"] == "shoe_report"]
    assert any(r["status"] == "void" for r in records)
    seq = 0

    def nxt() -> int:
        nonlocal seq
        seq += 1
        return seq

    shoe = records[0]["shoe"]
    out = [m.shoe_started(table=TABLE, seq=nxt(), ts=TS, shoe=shoe, decks=8)]
    for r in records:
        out.append(m.betting_open(opened[r["round"]], table=TABLE, seq=nxt(), ts=TS))
        out.append(m.betting_closed(table=TABLE, seq=nxt(), ts=TS, shoe=shoe,
                                    round_no=r["round"]))
        for hand in ("player", "banker"):
            for pos, code in enumerate(r[hand], 1):
                out.append(m.card(table=TABLE, seq=nxt(), ts=TS, shoe=shoe,
                                  round_no=r["round"], hand=hand, position=pos, code=code))
        if r["status"] == "void":
            out.append(m.pause(table=TABLE, seq=nxt(), ts=TS, reason=r["void_reason"],
                               shoe=shoe, round_no=r["round"]))
        out.append(m.round_result(r, table=TABLE, seq=nxt(), ts=TS))
        out.append(m.status(journal=NO_JOURNAL, table=TABLE, seq=nxt(), ts=TS,
                            phase="between_rounds", shoe=shoe, round_no=r["round"],
                            paused=None))
    out.append(m.shoe_ended(table=TABLE, seq=nxt(), ts=TS, shoe=shoe, rounds=len(records),
                            reason="cut_card"))
    out.append(m.shoe_report(report, table=TABLE, seq=nxt(), ts=TS))
    assert report["pauses"] and report["rounds"]["void"] == 1
    keys = [msg["key"] for msg in out]
    assert len(keys) == len(set(keys)), "idempotency keys must be unique per table"
    for msg in _linked(out):
        validate(signer.sign(msg))
