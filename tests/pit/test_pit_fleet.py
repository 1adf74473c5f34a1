"""The pit against a real Mosquitto, a real ``station fleet`` and the real ``station pit``
process: every table shows; a pause is an alert with its reason; resume and void from the
API reach the table (its later messages name the command) and are in the pit's journal with
who; a table killed with kill -9 shows offline once the broker's keep-alive runs out."""

from __future__ import annotations

import functools
import json
import os
import signal
import sqlite3
from pathlib import Path
from typing import Any

from tests.fleet.fleetkit import Fleet
from tests.pit.pitkit import BOSS, Pit, PitFolder, fleet_config
from tests.upstream.broker import Broker, wait_until

TABLES = ("t-01", "t-02", "t-03")
# Every table pauses twice in its first shoe: a card drawn when none is due, after rounds 1
# and 3; with no simulated supervisor only the pit clears them.
FAULTS = "[{kind: not_due, after_round: 1}]"
DEALING = ("player_1", "banker_1", "player_2", "banker_2", "player_3", "banker_3")


def seen(pit_dir: PitFolder, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{pit_dir.journal}?mode=ro", uri=True) as db:
        return list(db.execute(sql, args))


def start(tmp_path: Path, broker_port: int, pit_port_broker: int | None = None
          ) -> tuple[PitFolder, Fleet, Pit, dict[str, int]]:
    folder = PitFolder(tmp_path / "pit")
    fleet_dir = tmp_path / "fleet"
    # Cards 0.5 s apart: a round is dealt for seconds, so a pause sent while the tile says
    # a card is due lands in the round (and its void voids it).
    config = fleet_config(tmp_path / "conf", broker_port, folder.public, faults=FAULTS,
                          card_s=0.5)
    fleet = Fleet(config, len(TABLES), fleet_dir)
    try:
        pids = fleet.started(len(TABLES))
        pit = Pit(folder.config(pit_port_broker or broker_port, fleet_dir / "keys"),
                  folder.port)
    except BaseException:
        fleet.close()
        raise
    return folder, fleet, pit, pids


def run_the_floor(tmp_path: Path, broker_port: int, pit_broker_port: int | None = None
                  ) -> None:
    folder, fleet, pit, pids = start(tmp_path, broker_port, pit_broker_port)
    try:
        # Every table shows, online, with its phase.
        def all_tables() -> bool:
            tiles = {t["table"]: t for t in pit.get("/api/tables")["tables"]}
            return all(t in tiles and tiles[t]["online"] is True and tiles[t]["phase"]
                       for t in TABLES)
        wait_until(all_tables, 60, "every table on the floor", 0.05)

        # The first pause: an alert with its reason, and the tile says paused.
        table = "t-01"
        wait_until(lambda: any("not due" in a["detail"] for a in
                               pit.alerts(table=table, kind="pause", cleared_at=None)),
                   90, "t-01's pause as an alert", 0.05)
        tile = pit.tile(table)
        assert tile is not None and "paused" in tile["needs"]
        assert tile["pause"] is not None and "not due" in tile["pause"]["reason"]
        assert tile["needs"][0] == "paused" or tile["needs"][0] == "offline"
        assert pit.get("/api/tables")["tables"][0]["needs"], "a table needing someone first"

        # Resume from the API: the table's later messages name the command.
        status, body = pit.act(table, "resume")
        assert status == 200, body
        resume_id = body["command"]["id"]
        assert body["command"]["by"] == BOSS
        wait_until(lambda: _command(pit, table, resume_id)["state"] == "applied", 60,
                   "the resume applied", 0.1)
        resumes = [json.loads(b) for (b,) in seen(
            folder, "SELECT body FROM seen WHERE table_id = ? AND kind = 'resume'", table)]
        assert any(m["by"] == f"upstream:pit/{BOSS} [{resume_id}]" for m in resumes)

        # A pause the pit sends during a round, then its void: the round is void, by the
        # pit boss. (Sent when the tile says a card is due; a round that ended first is
        # paused between rounds, where a void voids no round: then once more.)
        void = pause_and_void(pit, folder, table)
        assert void["void_note"] == "misdeal seen on camera 3"
        wait_until(lambda: not pit.alerts(table=table, kind="pause", cleared_at=None), 30,
                   "the pause alert cleared by the void", 0.1)

        # The pit's journal: who did what, and what came back.
        actions = seen(folder, "SELECT id, table_id, action, by, state FROM actions "
                       "ORDER BY at")
        assert (resume_id, table, "resume", BOSS, "applied") in actions
        assert (void["voided_by"][-17:-1], table, "void", BOSS, "applied") in actions
        assert seen(folder, "SELECT name, verdict FROM sign_ins WHERE what = ?",
                    f"resume {table}") == [(BOSS, "ok")]

        # A command the table refuses comes back refused, with the station's words.
        status, body = pit.act(table, "confirm_shuffle")
        assert status == 200, body
        wait_until(lambda: _command(pit, table, body["command"]["id"])["state"] == "refused",
                   60, "the confirm_shuffle refused (no shuffle check is due)", 0.1)
        assert "not_now" in _command(pit, table, body["command"]["id"])["detail"]

        # close_shoe: the round in play (or none, between rounds) is the shoe's last; the
        # table's shoe_ended says upstream. (After the void the simulated dealer may deal a
        # card no round wants, which pauses the table: resumed first, then again.)
        close_shoe(pit, table)
        ended = [json.loads(b) for (b,) in seen(
            folder, "SELECT body FROM seen WHERE table_id = ? AND kind = 'shoe_ended'", table)]
        assert [m["reason"] for m in ended] == ["upstream"]

        # kill -9: the broker's last will says offline once the keep-alive runs out.
        victim = "t-02"
        os.kill(pids[victim], signal.SIGKILL)
        wait_until(lambda: (pit.tile(victim) or {}).get("online") is False, 60,
                   "the killed table offline", 0.1)
        tile = pit.tile(victim)
        assert tile is not None and "offline" in tile["needs"]
        assert pit.alerts(table=victim, kind="offline", cleared_at=None)
        assert pit.get("/api/tables")["tables"][0]["table"] == victim  # offline comes first
        assert pit.stop() == 0
    finally:
        pit.close()
        fleet.close()


def pause_and_void(pit: Pit, folder: PitFolder, table: str) -> dict[str, Any]:
    """Pause during a round, void: the void round message (at most five tries)."""
    for _ in range(5):
        wait_until(lambda: (pit.tile(table) or {}).get("phase") in DEALING, 60,
                   f"{table} dealing", 0.02)
        status, body = pit.act(table, "pause", reason="dispute")
        assert status == 200, body
        pause_id = body["command"]["id"]
        wait_until(functools.partial(_state_is_not, pit, table, pause_id, "sent"), 60,
                   "the pause answered", 0.1)
        if _command(pit, table, pause_id)["state"] != "applied":
            continue  # refused: the table was paused already, or between two of its states
        alert = pit.alerts(table=table, kind="pause", cleared_at=None)
        assert alert and alert[0]["by"] == f"upstream:pit/{BOSS} [{pause_id}]", alert
        status, body = pit.act(table, "void", reason="misdeal seen on camera 3")
        assert status == 200, body
        void_id = body["command"]["id"]
        wait_until(functools.partial(_state_is, pit, table, void_id, "applied"), 60,
                   "the void applied", 0.1)
        rounds = [json.loads(b) for (b,) in seen(
            folder, "SELECT body FROM seen WHERE table_id = ? AND kind = 'round'", table)]
        void = [m for m in rounds if m.get("voided_by") == f"upstream:pit/{BOSS} [{void_id}]"]
        if void:
            found: dict[str, Any] = void[0]
            return found
    raise AssertionError("no pause of the pit's landed in a round in five tries")


def close_shoe(pit: Pit, table: str) -> None:
    for _ in range(5):
        if (pit.tile(table) or {}).get("pause") is not None:
            status, body = pit.act(table, "resume")
            assert status == 200, body
            wait_until(functools.partial(_state_is_not, pit, table, body["command"]["id"],
                                         "sent"), 60, "the resume answered", 0.1)
        status, body = pit.act(table, "close_shoe")
        assert status == 200, body
        cid = body["command"]["id"]
        wait_until(functools.partial(_state_is_not, pit, table, cid, "sent"), 60,
                   "the close_shoe answered", 0.1)
        if _state_is(pit, table, cid, "applied"):
            return
    raise AssertionError("close_shoe refused five times")


def _state_is(pit: Pit, table: str, cid: str, state: str) -> bool:
    return bool(_command(pit, table, cid)["state"] == state)


def _state_is_not(pit: Pit, table: str, cid: str, state: str) -> bool:
    return not _state_is(pit, table, cid, state)


def _command(pit: Pit, table: str, cid: str) -> dict[str, Any]:
    body = pit.get(f"/api/tables/{table}")
    return next(c for c in body["commands"] if c["id"] == cid)


def test_the_pit_runs_a_fleet(tmp_path: Path, broker: Broker) -> None:
    run_the_floor(tmp_path, broker.port)


def test_the_pit_runs_a_fleet_through_two_bridged_brokers(tmp_path: Path,
                                                          broker: Broker) -> None:
    """The tables on one Mosquitto, the pit on another bridged to it over loopback (as a
    studio's cluster would): the same floor, alerts and actions."""
    pit_side = Broker(tmp_path / "pit-broker")
    with pit_side.conf.open("a", encoding="utf-8") as conf:
        conf.write(f"connection tables\naddress 127.0.0.1:{broker.port}\n"
                   "topic baccarat/# both 1\n"
                   "cleansession false\n"
                   f"remote_clientid bridge-{pit_side.port}\n")
    pit_side.start()
    try:
        run_the_floor(tmp_path, broker.port, pit_side.port)
        assert "connection tables" in pit_side.conf.read_text()
    finally:
        pit_side.kill()


def test_the_pit_confirms_a_shuffle(tmp_path: Path, broker: Broker) -> None:
    """A table whose shoes wait for a supervisor's shuffle check: the pit's confirm_shuffle
    starts the shoe, and the shoe_started names the pit boss and the command."""
    folder = PitFolder(tmp_path / "pit")
    config = fleet_config(tmp_path / "conf", broker.port, folder.public,
                          table_extra=", shuffle_check: supervisor")
    fleet = Fleet(config, 1, tmp_path / "fleet")
    try:
        fleet.started(1)
        pit = Pit(folder.config(broker.port, tmp_path / "fleet" / "keys"), folder.port)
        try:
            wait_until(lambda: (pit.tile("t-01") or {}).get("phase") == "shuffle_check", 60,
                       "the table waiting for its shuffle check", 0.05)
            status, body = pit.act("t-01", "confirm_shuffle")
            assert status == 200, body
            cid = body["command"]["id"]
            wait_until(functools.partial(_state_is, pit, "t-01", cid, "applied"), 60,
                       "the confirm_shuffle applied", 0.1)
            started = [json.loads(b) for (b,) in seen(
                folder, "SELECT body FROM seen WHERE kind = 'shoe_started'")]
            assert started[-1]["shuffle"]["confirmed_by"] == f"upstream:pit/{BOSS} [{cid}]"
        finally:
            pit.close()
    finally:
        fleet.close()
