"""Every command from upstream is answered, through the real daemon, a real Mosquitto and a
real pty scanner (issue 19): a signed command the station cannot take now gets a
``command_refused`` with its id and the station's reason, a forged one the verifier's, and a
``close_shoe`` sent while a round is being played closes the shoe after that round, with
``shoe_ended`` naming upstream. The journal, replayed with no clock, gives the station's
answers again."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from drivers.sim_serial import PtyScanner
from station.wire.messages import iso_ts
from station.wire.schema import validate
from station.wire.signing import Signer
from tests import webkit
from tests.modes_replay import assert_journal_replays_live
from tests.stationkit import first_by_key, write_key
from tests.upstream.broker import Broker, Subscriber


def _signed(key: Ed25519PrivateKey, command_id: str, action: str) -> bytes:
    return Signer(key).sign({"v": 1, "id": command_id, "table": "t5", "action": action,
                             "actor": "ann", "ts": iso_ts(time.time())})


def _events(sub: Subscriber) -> list[dict[str, Any]]:
    return [orjson.loads(m.payload) for m in sub.snapshot() if m.topic.endswith("/events")]


def _answers(sub: Subscriber) -> dict[str, tuple[str, str]]:
    return {m["command_id"]: (m["reason"], m["detail"]) for m in _events(sub)
            if m["kind"] == "command_refused"}


def _wait(check: Any, what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_every_upstream_command_is_applied_or_answered(tmp_path: Path, broker: Broker) -> None:
    key, _ = write_key(tmp_path)
    pit, forger = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.mqtt_live_config(tmp_path, pty.path, broker.port, str(key),
                                         {"pit": pit})
        base = webkit.url_of(config)
        sub = Subscriber(broker.port, "baccarat/t5/#")
        pub = Subscriber(broker.port, "baccarat/t5/nothing", client_id="pit-system")

        def send(command_id: str, action: str, signer: Ed25519PrivateKey = pit) -> None:
            pub.client.publish("baccarat/t5/commands", _signed(signer, command_id, action),
                               qos=1).wait_for_publish(5)

        def answered(command_id: str) -> None:
            _wait(lambda: command_id in _answers(sub), f"the answer to {command_id}")

        try:
            with webkit.running(config) as proc:
                webkit.wait_reading(proc, pty.path)
                _wait(lambda: any(m.topic.endswith("/status") for m in sub.snapshot()),
                      "the station online")
                send("p-1", "close_shoe")  # no shoe yet
                answered("p-1")
                assert webkit.command(base, "new-shoe")[0] == 200
                send("p-2", "close_shoe")  # during the burn
                answered("p-2")
                pty.send(["AS", "2S"])  # the burn: an ace shown, one burned
                webkit.wait_state(base, lambda s: s["phase"] == "between_rounds",
                                  what="between rounds")
                send("p-3", "resume")  # nothing is paused
                send("p-4", "resume", forger)  # signed by a key the station does not know
                answered("p-3")
                answered("p-4")
                assert webkit.command(base, "open-betting")[0] == 200
                send("p-5", "close_shoe")  # while betting is open: after this round
                webkit.wait_state(base, lambda s: any("end of shoe asked for" in n
                                                      for n in s["notices"]),
                                  what="close_shoe taken")
                assert webkit.command(base, "close-betting")[0] == 200
                pty.send(["4H", "3C", "5H", "5C"])  # player 9, banker 8: a natural
                webkit.wait_state(base, lambda s: s["phase"] == "shoe_closed",
                                  what="the shoe closed after the round")
                send("p-6", "close_shoe")  # closed already
                answered("p-6")
        finally:
            sub.close()
            pub.close()
    messages = first_by_key(_events(sub))
    for m in messages:
        validate(orjson.dumps(m))
    assert _answers(sub) == {
        "p-1": ("not_now", "no shoe is in play"),
        "p-2": ("not_now", "the burn is not done; ask again once it is"),
        "p-3": ("not_now", "not possible while between rounds"),
        "p-4": ("bad_signature", "the signature does not verify with any configured command "
                "key"),
        "p-6": ("not_now", "no shoe is in play"),
    }
    kinds = [m["kind"] for m in messages]
    assert kinds.index("round") < kinds.index("shoe_ended")
    (ended,) = [m for m in messages if m["kind"] == "shoe_ended"]
    assert (ended["reason"], ended["rounds"]) == ("upstream", 1)
    # The journal replayed with no clock gives every message again, the station's refusals
    # included; only the verifier's refusal (journaled beside its event) is not the station's.
    assert_journal_replays_live(tmp_path / "journal.sqlite3", messages, "bad_signature")
