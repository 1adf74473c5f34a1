"""A bridged pair of locked brokers behaves as one (issue 32): the studio's broker, where the
tables are, bridges their events, status and journal to the data centre's, where the archive
and the game server are, and takes their commands and alerts back. Both profiles come from
``station broker-config`` (``bridges:`` on one side, ``bridged_from:`` on the other); the
bridge is a party of its own, ``bridge-dc``, with a certificate of the studio CA."""

from __future__ import annotations

import time
from pathlib import Path

from tests.brokerkit import CA, Listener, Studio, broker_config, write_studio
from tests.upstream.broker import free_port, wait_until

P = "baccarat"
OUT = ["events", "status", "journal"]
IN = ["commands", "archive"]


def test_a_bridged_pair_keeps_every_partys_rights(tmp_path: Path) -> None:
    ca = CA(tmp_path / "ca")
    bridge_cert, bridge_key = ca.issue("bridge-dc")
    dc_port = free_port()
    brokers = []
    for name, setup in (
            ("dc", {"tables": ["t1", "t2"], "archives": ["dc1"], "game_servers": ["gs1"],
                    "bridged_from": [{"name": "dc", "out": OUT, "in": IN}]}),
            ("floor", {"tables": ["t1", "t2"], "bridges": [
                {"name": "dc", "address": "127.0.0.1", "port": dc_port,
                 "ca_file": str(ca.file), "cert_file": str(bridge_cert),
                 "key_file": str(bridge_key), "out": OUT, "in": IN}]})):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "data").mkdir()
        path, port = write_studio(folder, ca, port=dc_port if name == "dc" else None,
                                  **setup)
        done = broker_config(path, folder / "mosquitto")
        assert done.returncode == 0, done.stderr
        assert ("connection bridge-dc" in (folder / "mosquitto" / "mosquitto.conf").read_text()
                ) == (name == "floor")
        brokers.append(Studio(folder, ca, port, folder / "mosquitto" / "mosquitto.conf"))
    dc, floor = brokers
    parties: list[Listener] = []
    try:
        dc.start()
        floor.start()
        wait_until(lambda: "u'bridge-dc'" in dc.log.read_text(), 15, "the bridge to connect")
        t1, t2 = floor.party("station-t1"), floor.party("station-t2")
        archive, game = dc.party("archive-dc1"), dc.party("game-gs1")
        parties = [t1, t2, archive, game]
        for party in parties:
            party.wait()
            assert party.connected, party.connack
        t1.subscribe(f"{P}/+/commands")
        archive.subscribe(f"{P}/+/journal")
        game.subscribe(f"{P}/#")
        time.sleep(1.0)  # the bridge's own subscriptions on the floor broker
        for leaf in ("events", "journal"):
            assert t1.publish(f"{P}/t2/{leaf}", b"forged").is_failure
        for leaf in OUT:
            assert not t1.publish(f"{P}/t1/{leaf}", leaf.encode()).is_failure
        assert not game.publish(f"{P}/t1/commands", b"from the game server").is_failure
        assert game.publish(f"{P}/t1/journal", b"forged").is_failure
        wait_until(lambda: len(game.messages()) >= 2 and archive.messages() != []
                   and t1.messages() != [], 15, "the messages across the bridge")
        time.sleep(0.3)
    finally:
        for party in parties:
            party.close()
        floor.stop()
        dc.stop()
    assert sorted(game.messages()) == sorted([(f"{P}/t1/events", b"events"),
                                              (f"{P}/t1/status", b"status")])
    assert archive.messages() == [(f"{P}/t1/journal", b"journal")]
    assert t1.messages() == [(f"{P}/t1/commands", b"from the game server")]
    assert t2.messages() == []
    acl = (dc.folder / "mosquitto" / "acl").read_text()
    assert "user bridge-dc\ntopic write baccarat/+/events\n" in acl
