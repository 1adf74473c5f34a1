"""``station fleet`` against a real Mosquitto: three tables, each its own process and key,
publish signed messages the pit can verify with DIR/keys/<table>.pub; one killed with
kill -9 is reported and the others go on; SIGINT stops them all."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import socket
from collections import Counter
from pathlib import Path

import pytest

from station.services.fleet.plan import plan, write
from station.services.fleet.supervise import supervise
from station.wire.signing import load_public_key, verify
from tests.fleet.fleetkit import Fleet, fleet_config, gone
from tests.upstream.broker import Broker, Subscriber, wait_until


def _events(sub: Subscriber) -> list[dict[str, object]]:
    return [json.loads(m.payload) for m in sub.snapshot() if m.topic.endswith("/events")]


def test_fleet_publishes_signed_survives_a_kill_and_stops_on_sigint(
        tmp_path: Path, broker: Broker) -> None:
    config = fleet_config(tmp_path / "conf", broker.port)
    directory = tmp_path / "fleet"
    sub = Subscriber(broker.port, "baccarat/+/+", client_id="fleet-test")
    fleet = Fleet(config, 3, directory)
    try:
        pids = fleet.started(3)
        tables = sorted(pids)
        assert tables == ["t-01", "t-02", "t-03"]
        for table, pid in pids.items():
            assert f"table {table} pid {pid} journal {directory / table}" in "\n".join(
                fleet.snapshot())

        def each_table_sent(n: int) -> bool:
            count = Counter(str(m["table"]) for m in _events(sub))
            return all(count[t] >= n for t in tables)
        wait_until(lambda: each_table_sent(5), 90, "5 events from each table", 0.1)

        # Every message verifies with its own table's key, from DIR/keys, and no other's.
        keys = {t: load_public_key(directory / "keys" / f"{t}.pub") for t in tables}
        for m in sub.snapshot():
            message = json.loads(m.payload)
            table = str(message["table"])
            assert m.topic.startswith(f"baccarat/{table}/")
            verify(message, keys[table])
        first = _events(sub)[0]
        other = next(t for t in tables if t != first["table"])
        try:
            verify(first, keys[other])
        except Exception:  # noqa: BLE001 - any refusal is the point
            pass
        else:
            raise AssertionError("a table's message verified with another table's key")

        # kill -9 of one table: reported, not restarted, and the others go on.
        victim = "t-02"
        os.kill(pids[victim], signal.SIGKILL)
        wait_until(lambda: any(f"table {victim} pid {pids[victim]} ended by itself "
                               "(killed by SIGKILL); not restarted" in x
                               for x in fleet.snapshot()), 30, "the kill reported", 0.05)
        wait_until(lambda: gone(pids[victim]), 30, "the killed table reaped")
        after_kill = Counter(str(m["table"]) for m in _events(sub))
        wait_until(lambda: all(Counter(str(m["table"]) for m in _events(sub))[t]
                               >= after_kill[t] + 5 for t in ("t-01", "t-03")),
                   90, "the other tables still publishing", 0.1)
        assert fleet.proc.poll() is None, "the fleet ended with one table killed"
        # Not restarted: its one start line is all there is of a start.
        assert sum(1 for x in fleet.snapshot() if x.startswith(f"fleet: table {victim} ")
                   and " journal " in x) == 1

        # SIGINT: every table stops cleanly, the fleet exits 0, no process left.
        code = fleet.stop(signal.SIGINT)
        out = fleet.snapshot()
        assert code == 0, out
        for table in ("t-01", "t-03"):
            assert f"fleet: table {table} pid {pids[table]} stopped (exit code 0)" in out
        assert out[-1] == "fleet: all 3 table(s) stopped"
        wait_until(lambda: all(gone(p) for p in pids.values()), 10, "every table's pid gone")
    finally:
        fleet.close()
        sub.close()



def test_tables_that_all_end_by_themselves_end_the_fleet_with_0(
        tmp_path: Path, broker: Broker) -> None:
    """A table that has played `simulation.shoes` stops with 0; the fleet reports each and
    exits 0 once none is left."""
    config = fleet_config(tmp_path / "conf", broker.port)
    text = config.read_text().replace("table: {id: t,", "table: {id: t, decks: 1,")
    text = text.replace("reader: {type: simulated}", "reader: {type: simulated, dedupe_ms: 0}")
    text = text.replace("card_s: 0.2", "card_s: 0.01").replace("supervisor: resume",
                                                              "supervisor: resume\n  shoes: 1")
    config.write_text(text)
    fleet = Fleet(config, 2, tmp_path / "fleet")
    try:
        pids = fleet.started(2)
        assert fleet.proc.wait(120) == 0, fleet.snapshot()
        out = fleet.snapshot()
        for table, pid in pids.items():
            assert (f"fleet: table {table} pid {pid} ended by itself (exit code 0); not "
                    "restarted; its log: ") in "\n".join(out)
        assert out[-1] == "fleet: every table ended by itself; 0 of 2 with an error"
    finally:
        fleet.close()


def test_sigterm_stops_every_table(tmp_path: Path, broker: Broker) -> None:
    """Sent as soon as the tables are started: each still starting waits for its handlers
    and stops cleanly (exit 0), never killed half-started."""
    config = fleet_config(tmp_path / "conf", broker.port)
    fleet = Fleet(config, 2, tmp_path / "fleet")
    try:
        pids = fleet.started(2)
        assert fleet.stop(signal.SIGTERM) == 0, fleet.snapshot()
        out = fleet.snapshot()
        assert "fleet: SIGTERM: stopping 2 table(s)" in out
        for table, pid in pids.items():
            assert f"fleet: table {table} pid {pid} stopped (exit code 0)" in out
        wait_until(lambda: all(gone(p) for p in pids.values()), 10, "every table's pid gone")
    finally:
        fleet.close()


def test_the_tables_never_speak_to_the_fleets_service_manager(
        tmp_path: Path, broker: Broker) -> None:
    """The fleet run as a systemd service: a table's READY=1 (with its own MAINPID) would
    make systemd take the table for the fleet, so the tables do not get NOTIFY_SOCKET."""
    config = fleet_config(tmp_path / "conf", broker.port)
    notify = tmp_path / "notify"
    manager = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    manager.bind(str(notify))
    manager.setblocking(False)
    fleet = Fleet(config, 2, tmp_path / "fleet", env={"NOTIFY_SOCKET": str(notify)})
    try:
        pids = fleet.started(2)
        logs = [tmp_path / "fleet" / table / "station.log" for table in pids]
        # Each loop is running: past the point where a table would say READY=1.
        wait_until(lambda: all("INFO station.table:" in log.read_text() for log in logs), 60,
                   "every table dealing")
        assert fleet.stop(signal.SIGINT) == 0, fleet.snapshot()
        with pytest.raises(BlockingIOError):
            manager.recv(4096)
    finally:
        fleet.close()
        manager.close()


def test_a_table_that_cannot_be_started_stops_the_fleet(tmp_path: Path, broker: Broker) -> None:
    """A start that fails (here its folder gone; on a full machine, no process to fork):
    reported, the tables started are stopped cleanly, and the fleet exits 1."""
    config = fleet_config(tmp_path / "conf", broker.port)
    fleet = plan(config, 2, tmp_path / "fleet")
    write(fleet)
    shutil.rmtree(tmp_path / "fleet" / "t-02")
    out = io.StringIO()
    assert supervise(fleet, out) == 1
    lines = out.getvalue().splitlines()
    assert any(x.startswith("fleet: table t-02 could not be started (No such file or "
                            "directory); stopping the fleet") for x in lines), lines
    assert any(x.startswith("fleet: table t-01 pid ") and x.endswith(" stopped (exit code 0)")
               for x in lines), lines
    assert lines[-1] == "fleet: all 1 table(s) stopped"
