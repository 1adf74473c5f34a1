"""The pit against a real Mosquitto and the real ``station pit`` process, with a table whose
messages the test signs itself: a forged message (bad signature), a gap, a message of a
table with no key, one the schemas refuse and one that is not JSON are each an alert and
never change a tile; a key added while the pit runs is trusted; acknowledgements, dealer
changes, PINs and the API's refusals; the Server-Sent Events."""

from __future__ import annotations

import http.client
import json
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from station.wire.keyfiles import write_pair
from station.wire.schema import validate
from station.wire.signing import Signer, load_private_key
from tests.pit.pagekit import HEAD
from tests.pit.pitkit import BOSS, BOSS_PIN, OTHER, OTHER_PIN, Pit, PitFolder
from tests.upstream.broker import Broker, wait_until

TABLE = "x-1"
SHOE = "x-1-20260101T000000Z-1"
TS = "2026-01-01T00:00:03.250Z"
# What a forged message would change, were it applied; the alert counts may change.
STATE = ("table", "online", "phase", "shoe", "round", "dealer", "mode", "last_result",
         "penetration", "cut_card_out", "pause", "last_seen", "lag_s")


class Table:
    """A table of the test's own: its key in the pit's keys_dir, its messages signed."""

    def __init__(self, keys: Path, port: int, table: str = TABLE) -> None:
        self.table = table
        private = keys.parent / f"{table}.pem"
        write_pair(private, keys / f"{table}.pub")
        self.signer = Signer(load_private_key(private))
        self.seq = 0
        self.last_event: int | None = None
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{table}",
                                  protocol=MQTTProtocolVersion.MQTTv5)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def message(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.seq += 1
        m: dict[str, Any] = {"v": 1, "kind": kind, "table": self.table, "seq": self.seq,
                             "ts": TS, **fields}
        if kind == "status":
            m["key"] = f"{self.table}:status:{self.seq}"
            # Every status carries the journal's head and the clock's state (issue 24).
            m.setdefault("journal", HEAD)
            m.setdefault("clock", "unknown")
        else:
            m["key"] = fields.get("key") or f"{self.table}:{kind}:{self.seq}"
            m["prev_seq"] = self.last_event
            self.last_event = self.seq
        return m

    def signed(self, m: dict[str, Any], check: bool = True) -> bytes:
        payload = self.signer.sign(m)
        if check:
            validate(payload)
        return payload

    def publish(self, payload: bytes, topic: str | None = None, status: bool = False) -> None:
        topic = topic or f"baccarat/{self.table}/{'status' if status else 'events'}"
        self.client.publish(topic, payload, qos=1, retain=status).wait_for_publish(10)

    def status(self, **fields: Any) -> None:
        state = {"phase": "between_rounds", "shoe": SHOE, "round": 3, "paused": None,
                 "online": True, **fields}
        self.publish(self.signed(self.message("status", **state)), status=True)

    def event(self, kind: str, **fields: Any) -> None:
        self.publish(self.signed(self.message(kind, **fields)))

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def floor(tmp_path: Path, broker: Broker) -> Iterator[tuple[Pit, Table, PitFolder]]:
    folder = PitFolder(tmp_path / "pit")
    keys = tmp_path / "keys"
    keys.mkdir()
    table = Table(keys, broker.port)
    pit = Pit(folder.config(broker.port, keys), folder.port)
    try:
        table.status()
        table.event("dealer", dealer="D042", previous=None, action="sign_in", how="badge",
                    request_closed=False)
        wait_until(lambda: (pit.tile(TABLE) or {}).get("dealer") == "D042", 60,
                   "the table's tile", 0.05)
        yield pit, table, folder
    finally:
        table.close()
        pit.close()


def state(tile: dict[str, Any] | None) -> dict[str, Any]:
    assert tile is not None
    return {k: tile[k] for k in STATE}


def test_forged_gap_unknown_and_invalid_messages_are_alerts_and_change_no_tile(
        floor: tuple[Pit, Table, PitFolder]) -> None:
    pit, table, folder = floor
    before = state(pit.tile(TABLE))
    assert before["online"] is True and before["phase"] == "between_rounds"

    # Forged: a pause whose reason was changed after signing.
    m = table.message("pause", reason="card not due: 3S", shoe=SHOE, round=3)
    forged = json.loads(table.signed(m))
    forged["reason"] = "FORGED"
    table.publish(json.dumps(forged).encode())
    wait_until(lambda: bool(pit.alerts(table=TABLE, kind="bad_signature")), 30,
               "the bad signature's alert", 0.05)
    # A forged status (the retained topic): the same.
    fake = json.loads(table.signed(table.message("status", phase="paused", shoe=SHOE,
                                                 round=3, paused="FORGED", online=True)))
    fake["phase"] = "no_shoe"
    table.publish(json.dumps(fake).encode(), status=True)
    wait_until(lambda: any("2 times" in a["detail"] for a in
                           pit.alerts(table=TABLE, kind="bad_signature")), 30,
               "the second forgery counted in the open alert", 0.05)
    assert state(pit.tile(TABLE)) == before

    # A table with no key: an alert, no tile.
    ghost = table.message("dealer", dealer="D001", previous=None, action="sign_in",
                          how="badge", request_closed=False)
    ghost["table"], ghost["key"] = "ghost", "ghost:dealer:1"
    table.publish(table.signed(ghost), topic="baccarat/ghost/events")
    wait_until(lambda: bool(pit.alerts(table="ghost", kind="unknown_table")), 30,
               "the unknown table's alert", 0.05)
    assert pit.tile("ghost") is None

    # Signed, but not what the schema allows; and not JSON at all.
    bad = table.message("dealer", dealer="D043", previous="D042", action="change",
                        how="badge", request_closed=False, bogus=1)
    table.publish(table.signed(bad, check=False))
    table.publish(b"\xff not json", topic=f"baccarat/{TABLE}/events")
    wait_until(lambda: len(pit.alerts(table=TABLE, kind="schema")) == 1 and any(
        "2 times" in a["detail"] for a in pit.alerts(table=TABLE, kind="schema")), 30,
        "the schema failures' alert", 0.05)
    assert state(pit.tile(TABLE)) == before

    # A gap: the next event names a previous one that never came.
    table.seq += 2
    table.last_event = table.seq - 1
    table.event("command_refused", command_id="c-1", action="resume", reason="stale",
                detail="sent 40.0 s ago; commands older than 30 s are refused")
    wait_until(lambda: bool(pit.alerts(table=TABLE, kind="gap")), 30, "the gap's alert",
               0.05)
    after = state(pit.tile(TABLE))
    # The message after the gap is the table's own and is taken; what the tile says of the
    # table is unchanged (a refused command changes nothing at the table).
    assert {k: v for k, v in after.items() if k not in ("last_seen", "lag_s")} == \
        {k: v for k, v in before.items() if k not in ("last_seen", "lag_s")}
    tile = pit.tile(TABLE)
    assert tile is not None and "stream" in tile["needs"] and tile["open_alerts"] == 3

    # Nothing forged reached the journal of what was seen.
    with sqlite3.connect(f"file:{folder.journal}?mode=ro", uri=True) as db:
        bodies = [b for (b,) in db.execute("SELECT body FROM seen")]
        kinds = [k for (k,) in db.execute("SELECT kind FROM alerts ORDER BY id")]
    assert not any("FORGED" in b or "ghost" in b or "bogus" in b for b in bodies)
    assert kinds == ["bad_signature", "unknown_table", "schema", "gap"]


def test_pause_alert_ack_dealer_change_and_refusals(
        floor: tuple[Pit, Table, PitFolder]) -> None:
    pit, table, folder = floor
    table.event("pause", reason="held by the dealer: dispute", shoe=SHOE, round=3,
                raised_by="bob (web 10.0.0.5)", code="dispute")
    wait_until(lambda: bool(pit.alerts(table=TABLE, kind="pause")), 30, "the pause alert",
               0.05)
    alert = pit.alerts(table=TABLE, kind="pause")[0]
    assert alert["detail"] == "held by the dealer: dispute"
    assert alert["by"] == "bob (web 10.0.0.5)" and alert["acked_by"] is None
    tile = pit.tile(TABLE)
    assert tile is not None and tile["pause"]["code"] == "dispute"

    # Acknowledged by a pit boss with the right PIN; not with another's, nor twice.
    path = f"/api/alerts/{alert['id']}/ack"
    assert pit.request("POST", path, {"name": BOSS, "pin": OTHER_PIN})[0] == 401
    status, body = pit.request("POST", path, {"name": BOSS, "pin": BOSS_PIN})
    assert status == 200 and body["alert"]["acked_by"] == BOSS, body
    assert pit.request("POST", path, {"name": OTHER, "pin": OTHER_PIN})[0] == 409
    assert pit.request("POST", "/api/alerts/99999/ack", {"name": BOSS, "pin": BOSS_PIN}
                       )[0] == 404
    # The resume clears it.
    table.event("resume", by="upstream:pit/ann [pit-1]", shoe=SHOE, round=3)
    wait_until(lambda: pit.alerts(table=TABLE, kind="pause")[0]["cleared_at"] is not None,
               30, "the pause alert cleared", 0.05)

    # A dealer change noted.
    status, body = pit.request("POST", f"/api/tables/{TABLE}/dealer-change",
                               {"name": BOSS, "pin": BOSS_PIN, "dealer": "D043",
                                "note": "the VIP player asked"})
    assert status == 200 and body["dealer_change"]["dealer"] == "D043", body

    # Refusals: unknown table, action, field; a bad pause; a wrong PIN, then the lockout.
    assert pit.act("nope", "resume")[0] == 404
    assert pit.act(TABLE, "explode")[0] == 400
    assert pit.act(TABLE, "resume", colour="red")[0] == 400
    assert pit.act(TABLE, "pause")[0] == 400  # a pause needs its code
    assert pit.act(TABLE, "resume", note="x")[0] == 400
    assert pit.request("POST", f"/api/tables/{TABLE}/commands/resume", [1])[0] == 400
    answers = [pit.request("POST", f"/api/tables/{TABLE}/commands/resume",
                           {"name": BOSS, "pin": "0000"}) for _ in range(5)]
    assert [code for code, _ in answers] == [401] * 5, answers
    # Even the right PIN, while locked: the same answer as every other failure (issue 31).
    assert pit.act(TABLE, "resume") == answers[0] == (401, {
        "error": "wrong name or PIN", "fix": "enter your own name and PIN"})

    with sqlite3.connect(f"file:{folder.journal}?mode=ro", uri=True) as db:
        acks = list(db.execute("SELECT alert_id, by FROM acks"))
        notes = list(db.execute("SELECT table_id, by, dealer, note FROM dealer_changes"))
        verdicts = [v for (v,) in db.execute("SELECT verdict FROM sign_ins ORDER BY id")]
    assert acks == [(alert["id"], BOSS)]
    assert notes == [(TABLE, BOSS, "D043", "the VIP player asked")]
    assert verdicts == ["wrong", "ok", "ok", "ok", "wrong", "wrong", "wrong", "wrong",
                        "wrong", "lockout", "locked"]

    # Unknown routes and the pages' files when none are installed answer 404 with words.
    status, body = pit.request("GET", "/api/tables/nope")
    assert status == 404 and "nope" in body["error"]
    status, body = pit.request("GET", "/static/../../etc/passwd")
    assert status == 404


def test_a_key_added_while_running_is_trusted(tmp_path: Path,
                                              floor: tuple[Pit, Table, PitFolder],
                                              broker: Broker) -> None:
    pit, _, _ = floor
    keys = tmp_path / "keys"
    (keys / "later").mkdir()
    late = Table(keys / "later", broker.port, "late-1")
    try:
        late.status()
        wait_until(lambda: bool(pit.alerts(table="late-1", kind="unknown_table")), 30,
                   "the keyless table's alert", 0.05)
        assert pit.tile("late-1") is None
        (keys / "later" / "late-1.pub").rename(keys / "late-1.pub")
        pit.proc.send_signal(signal.SIGHUP)  # or within the next rescan, 2 s
        # The retained status arrives again on the pit's new subscription: shown at once.
        wait_until(lambda: (pit.tile("late-1") or {}).get("online") is True, 30,
                   "the late table's tile", 0.05)
        assert all(a["cleared_at"] for a in pit.alerts(table="late-1", kind="unknown_table"))
    finally:
        late.close()


def test_the_events_stream_sends_tables_alerts_and_table_changes(
        floor: tuple[Pit, Table, PitFolder]) -> None:
    pit, table, _ = floor
    conn = http.client.HTTPConnection("127.0.0.1", pit.port, timeout=30)
    try:
        conn.request("GET", "/api/events")
        resp = conn.getresponse()
        assert resp.status == 200
        assert resp.getheader("Content-Type") == "text/event-stream"
        events: list[tuple[str, Any]] = []

        def read_until(kind: str, match: Any = None) -> Any:
            while True:
                name, data = "", ""
                while (line := resp.readline().decode().rstrip("\n")) != "":
                    if line.startswith("event: "):
                        name = line[7:]
                    elif line.startswith("data: "):
                        data = line[6:]
                if name:
                    events.append((name, json.loads(data)))
                    if name == kind and (match is None or match(events[-1][1])):
                        return events[-1][1]

        first = read_until("tables")
        assert first["pit"] == "pit" and [t["table"] for t in first["tables"]] == [TABLE]
        table.event("alert", alert="dealer_requested", detail="a VIP player asks for "
                    "another dealer", by="upstream:vip/p88 [c-9]", shoe=SHOE, round=3)
        alert = read_until("alert")
        assert alert["kind"] == "dealer_requested"
        assert alert["by"] == "upstream:vip/p88 [c-9]"
        tables = read_until("tables", lambda b: b["tables"][0]["open_alerts"] == 1)
        assert tables["tables"][0]["needs"] == ["alert"]
        read_until("table", lambda b: b == {"table": TABLE})
    finally:
        conn.close()


def test_another_sites_page_cannot_read_or_drive_the_pit(
        floor: tuple[Pit, Table, PitFolder]) -> None:
    """A page elsewhere (or a DNS name rebound to 127.0.0.1) gets nothing: the Host must be
    the pit's, and an action's Origin the pit's own pages (the dealer page's guard, shared)."""
    pit, _, _ = floor

    def ask(method: str, path: str, **headers: str) -> tuple[int, dict[str, Any]]:
        conn = http.client.HTTPConnection("127.0.0.1", pit.port, timeout=30)
        try:
            conn.request(method, path, body=b"{}" if method == "POST" else None,
                         headers={"Content-Type": "application/json", **headers})
            resp = conn.getresponse()
            return resp.status, json.loads(resp.read() or b"{}")
        finally:
            conn.close()

    status, body = ask("GET", "/api/tables", Host="evil.example:80")
    assert status == 403 and "is not this pit" in body["error"], body
    status, body = ask("POST", f"/api/tables/{TABLE}/commands/resume",
                       Host=f"127.0.0.1:{pit.port}", Origin="http://evil.example")
    assert status == 403 and body["fix"] == "actions are taken only from the pit's own pages"
    assert ask("GET", "/api/tables", Host=f"127.0.0.1:{pit.port}")[0] == 200
