"""The pit's record against real stations (issue 30): a real Mosquitto, a real ``station
fleet`` whose shoes wait for a supervisor's shuffle check, and the real ``station pit``.
Tables waiting in their shuffle check are alerts and needs, acknowledged all at once by kind
(one name and PIN, a journal row per alert) and cleared by the confirmation; a void the table
answers with a ``resume`` message is recorded as a void in the answer, the table's commands
and the pit's journal; a pit boss's pause reads as the pit boss's and counts under the pit
boss in the statistics."""

from __future__ import annotations

import functools
from pathlib import Path

from tests.fleet.fleetkit import Fleet
from tests.pit.pitkit import BOSS, BOSS_PIN, Pit, PitFolder, fleet_config
from tests.pit.test_pit_fleet import DEALING, _command, _state_is, _state_is_not, seen
from tests.upstream.broker import Broker, wait_until

TABLES = ("t-01", "t-02")
WAITING = "shuffle_check_waiting"


def test_the_pits_record_names_who_did_what(tmp_path: Path, broker: Broker) -> None:
    folder = PitFolder(tmp_path / "pit")
    # A card drawn when none is due after round 1 (between rounds: a void has no round to
    # void); cards 0.5 s apart, so a pause sent while a card is due lands in the round.
    config = fleet_config(tmp_path / "conf", broker.port, folder.public, card_s=0.5,
                          faults="[{kind: not_due, after_round: 1}]",
                          table_extra=", shuffle_check: supervisor")
    fleet = Fleet(config, len(TABLES), tmp_path / "fleet")
    try:
        fleet.started(len(TABLES))
        pit = Pit(folder.config(broker.port, tmp_path / "fleet" / "keys"), folder.port)
        try:
            shuffle_checks(pit, folder)
            void_between_rounds(pit, folder, "t-01")
            pit_bosss_pause(pit, "t-01")
            assert pit.stop() == 0
        finally:
            pit.close()
    finally:
        fleet.close()


def shuffle_checks(pit: Pit, folder: PitFolder) -> None:
    """Item 3 and 5: the waiting tables stand out; one acknowledgement by kind for all."""
    def waiting() -> bool:
        tiles = {t["table"]: t for t in pit.get("/api/tables")["tables"]}
        return all(t in tiles and tiles[t]["phase"] == "shuffle_check" for t in TABLES) and \
            len(pit.alerts(kind=WAITING, cleared_at=None)) == len(TABLES)
    wait_until(waiting, 60, "every table waiting for its shuffle check, an alert each", 0.05)
    for tile in pit.get("/api/tables")["tables"]:
        assert tile["needs"][:2] == ["shuffle_check", "alert"], tile
    alerts = pit.get("/api/alerts")["alerts"]
    assert {a["kind"] for a in alerts[:len(TABLES)]} == {WAITING}  # urgency 0: first

    # Refused: a bad kind (400), a wrong PIN (401); nothing acknowledged.
    status, body = pit.request("POST", "/api/alerts/ack",
                               {"name": BOSS, "pin": BOSS_PIN, "kind": "Shuffle check!"})
    assert status == 400 and "kind must be" in body["error"], body
    status, body = pit.request("POST", "/api/alerts/ack",
                               {"name": BOSS, "pin": "0000", "kind": WAITING})
    assert status == 401, body
    assert all(a["acked_by"] is None for a in pit.alerts(kind=WAITING))

    status, body = pit.request("POST", "/api/alerts/ack",
                               {"name": BOSS, "pin": BOSS_PIN, "kind": WAITING})
    assert status == 200, body
    assert body["acknowledged"] == len(TABLES) and body["kind"] == WAITING
    assert body["by"] == BOSS
    ids = sorted(a["id"] for a in body["alerts"])
    assert all(a["acked_by"] == BOSS for a in pit.alerts(kind=WAITING))
    assert sorted(seen(folder, "SELECT alert_id, by FROM acks")) == [(i, BOSS) for i in ids]
    assert seen(folder, "SELECT name, verdict FROM sign_ins WHERE what = ?",
                f"ack kind {WAITING}") == [(BOSS, "wrong"), (BOSS, "ok")]
    # Acknowledged: no longer an alert need; the state (waiting) still is.
    for tile in pit.get("/api/tables")["tables"]:
        assert tile["needs"] == ["shuffle_check"], tile
    # Once more: nothing open of that kind, said so (409), nothing journaled.
    status, body = pit.request("POST", "/api/alerts/ack",
                               {"name": BOSS, "pin": BOSS_PIN, "kind": WAITING})
    assert status == 409 and "no open alert" in body["error"], body
    assert len(seen(folder, "SELECT * FROM acks")) == len(TABLES)

    # Confirmed: the alert is cleared, the need gone.
    for table in TABLES:
        status, body = pit.act(table, "confirm_shuffle")
        assert status == 200, body
        wait_until(functools.partial(_state_is, pit, table, body["command"]["id"], "applied"),
                   60, "the confirm_shuffle applied", 0.1)
    wait_until(lambda: not pit.alerts(kind=WAITING, cleared_at=None), 30,
               "the shuffle check alerts cleared", 0.1)
    assert all(r[0] is not None for r in seen(
        folder, "SELECT cleared_at FROM alerts WHERE kind = ?", WAITING))


def void_between_rounds(pit: Pit, folder: PitFolder, table: str) -> None:
    """Item 1: the table answers a void with no round with a resume (action void): the
    pit's record says void, never resume."""
    wait_until(lambda: any("not due" in a["detail"] for a in
                           pit.alerts(table=table, kind="pause", cleared_at=None)),
               120, f"{table}'s pause between rounds", 0.05)
    status, body = pit.act(table, "void", reason="card set aside")
    assert status == 200, body
    cid = body["command"]["id"]
    wait_until(functools.partial(_state_is, pit, table, cid, "applied"), 60,
               "the void applied", 0.1)
    resume = [m for (m,) in seen(folder, "SELECT body FROM seen WHERE kind = 'resume'")
              if cid in m]
    assert resume and '"action":"void"' in resume[0]
    # The message naming the command may come after the status that cleared the pause.
    wait_until(lambda: _command(pit, table, cid)["detail"].startswith("voided"), 30,
               "the void named as a void", 0.1)
    command = _command(pit, table, cid)
    assert "resume" not in command["detail"] and command["say"]["zh"]["detail"].startswith("已作废")
    [(action, state, detail)] = seen(folder, "SELECT action, state, detail FROM actions "
                                     "WHERE id = ?", cid)
    assert (action, state, detail) == ("void", "applied", command["detail"])


def pit_bosss_pause(pit: Pit, table: str) -> None:
    """Item 2: the pit boss's pause reads as the pit boss's, and counts under the pit boss."""
    for _ in range(5):
        wait_until(lambda: (pit.tile(table) or {}).get("phase") in DEALING, 60,
                   f"{table} dealing", 0.02)
        status, body = pit.act(table, "pause", reason="dispute")
        assert status == 200, body
        cid = body["command"]["id"]
        wait_until(functools.partial(_state_is_not, pit, table, cid, "sent"), 60,
                   "the pause answered", 0.1)
        if _command(pit, table, cid)["state"] == "applied":
            break
    else:
        raise AssertionError("the pit's pause refused five times")
    tile = pit.tile(table)
    assert tile is not None and tile["pause"]["raised_by"] == f"upstream:pit/{BOSS} [{cid}]"
    assert tile["pause"]["reason"] == "held by the dealer: dispute"  # the station's words
    assert tile["say"]["en"]["pause"]["reason"] == "Held by the pit boss: dispute"
    assert tile["say"]["zh"]["pause"]["reason"] == "巡场经理暂停：争议"  # noqa: RUF001
    status, body = pit.act(table, "resume")
    assert status == 200, body
    rid = body["command"]["id"]
    wait_until(functools.partial(_state_is, pit, table, rid, "applied"), 60,
               "the resume applied", 0.1)
    assert _command(pit, table, rid)["detail"] == "resumed"
    stats = pit.get("/api/stats")
    row = next(t for t in stats["tables"] if t["table"] == table)
    reasons = {(r["raised"], r["reason"]): r for r in row["reasons"]}
    assert reasons[("pit_boss", "dispute")]["pauses"] == 1, reasons
    assert ("dealer", "dispute") not in reasons
    assert stats["say"]["zh"]["raised"]["pit_boss"] == "巡场经理"
