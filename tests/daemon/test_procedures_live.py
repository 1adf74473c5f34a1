"""Table procedures through a real ``station run`` (issue 22): a pty scanner, the web API,
``station ctl`` and signed commands over a real Mosquitto. Every pause code from each source
pauses and is published with who and why; a pause while paused is refused (409, exit 1,
``command_refused``); bad codes change nothing; the shuffle check holds every card until a
supervisor's PIN confirms it; and the journal, replayed with no clock, gives every message
again."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from drivers.sim_serial import PtyScanner
from station.table.procedures import PAUSE_CODES, PAUSE_WORDS
from station.wire.messages import iso_ts
from station.wire.schema import validate
from station.wire.signing import Signer
from tests import webkit
from tests.modes_replay import assert_journal_replays_live
from tests.stationkit import first_by_key, write_key
from tests.upstream.broker import Broker, Subscriber

NOTE = "the lamp over the shoe went out"


def _events(sub: Subscriber) -> list[dict[str, Any]]:
    return [orjson.loads(m.payload) for m in sub.snapshot() if m.topic.endswith("/events")]


def _wait(check: Any, what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _ctl(base: str, *args: str, pin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STATION_PIN": pin} if pin else {
        k: v for k, v in os.environ.items() if k != "STATION_PIN"}
    return subprocess.run([sys.executable, "-m", "station.cli", "ctl", *args, "--url", base,
                           "--actor", "carol"], capture_output=True, text=True, timeout=60,
                          env=env, stdin=subprocess.DEVNULL, check=False)


def test_every_pause_code_from_every_source_and_the_shuffle_check(tmp_path: Path,
                                                                   broker: Broker) -> None:
    key, _ = write_key(tmp_path)
    pit = Ed25519PrivateKey.generate()
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.mqtt_live_config(tmp_path, pty.path, broker.port, str(key), {"pit": pit},
                                         table={"shuffle_check": "supervisor",
                                                "shuffle_method": "machine"})
        cfg = yaml.safe_load(config.read_text())
        cfg["reader"]["pack_prefix"] = "PK-"
        # Card barcodes that may name their pack (docs/rules.md): "A1/2C", or plain "2C".
        cfg["reader"]["code_format"] = (r"(?:(?P<pack>[A-Za-z0-9._-]{1,32})/)?"
                                        r"(?P<rank>10|[A2-9TJQK])(?P<suit>[SHDC])")
        config.write_text(yaml.safe_dump(cfg))
        base = webkit.url_of(config)
        sub = Subscriber(broker.port, "baccarat/t5/#")
        pub = Subscriber(broker.port, "baccarat/t5/nothing", client_id="pit-system")
        sent = 0

        def send(action: str, **fields: Any) -> str:
            nonlocal sent
            sent += 1
            cid = f"u-{sent}"
            body = {"v": 1, "id": cid, "table": "t5", "action": action, "actor": "ann",
                    "ts": iso_ts(time.time()), **fields}
            pub.client.publish("baccarat/t5/commands", Signer(pit).sign(body),
                               qos=1).wait_for_publish(5)
            return cid

        def phase(name: str) -> dict[str, Any]:
            return webkit.wait_state(base, lambda s: s["phase"] == name, what=name)

        def pauses() -> list[dict[str, Any]]:
            return [m for m in _events(sub) if m["kind"] == "pause"]

        def resume() -> None:
            status, _ = webkit.command(base, "resume", pin=webkit.PIN, actor="alice")
            assert status == 200

        try:
            with webkit.running(config) as proc:
                webkit.wait_reading(proc, pty.path)
                # --- the shuffle check ----------------------------------------------------
                assert webkit.command(base, "new-shoe")[0] == 200
                checking = phase("shuffle_check")
                assert checking["prompt"]["text"].startswith("SHUFFLE CHECK")
                pty.send(["PK-A1", "PK-B2"])
                webkit.wait_state(base, lambda s: any("pack B2 registered" in n
                                                      for n in s["notices"]), what="packs")
                status, answer = webkit.command(base, "confirm-shuffle", pin="0000",
                                                actor="mallory")
                assert status == 403 and "wrong PIN" in answer["error"]
                assert webkit.state(base)["phase"] == "shuffle_check"
                pty.send(["AS"])  # a card drawn before the confirmation: a pause, named
                paused = phase("paused")
                assert "the shuffle is not confirmed yet" in paused["prompt"]["text"]
                resume()
                phase("shuffle_check")  # still due
                assert _ctl(base, "confirm-shuffle", pin=webkit.PIN).returncode == 0
                phase("burn_indicator")
                pty.send(["2S", "7D", "8D"])  # a 2 shown, two burned
                phase("between_rounds")
                # --- every code from the API, from ctl, from upstream ------------------------
                for i, code in enumerate(PAUSE_CODES):
                    note = {"note": NOTE} if code == "other" else {}
                    status, answer = webkit.command(base, "pause", reason=code,
                                                    actor="bob", **note)
                    assert status == 200, answer
                    phase("paused")
                    if i == 0:  # paused already: refused from each source, with the reason
                        status, answer = webkit.command(base, "pause", reason="dispute")
                        assert status == 409 and "paused already" in answer["error"]
                        done = _ctl(base, "pause", "--reason", "dispute")
                        assert done.returncode == 1 and "paused already" in done.stderr
                        send("pause", reason="dispute")
                        _wait(lambda: any(m["kind"] == "command_refused"
                                          for m in _events(sub)), "the refusal upstream")
                    resume()
                    phase("between_rounds")
                    args = ["--note", NOTE] if code == "other" else []
                    done = _ctl(base, "pause", "--reason", code, *args)
                    assert done.returncode == 0, done.stderr
                    phase("paused")
                    resume()
                    phase("between_rounds")
                    send("pause", reason=code, **note)
                    phase("paused")
                    send("resume")
                    phase("between_rounds")
                # --- bad bodies change nothing ----------------------------------------------
                before = webkit.table_facts(webkit.state(base))
                for body in ({}, {"reason": "card_lost"}, {"reason": "other"},
                             {"reason": "dispute", "note": ""}, {"reason": 5}):
                    status, answer = webkit.command(base, "pause", **body)
                    assert status == 400 and answer["fix"], (body, answer)
                status, _ = webkit.command(base, "open-betting", reason="dispute")
                assert status == 400
                assert _ctl(base, "pause", "--reason", "other").returncode == 2
                assert _ctl(base, "pause", "--reason", "nope").returncode == 2
                assert _ctl(base, "resume", "--note", "x").returncode == 2
                bad = send("pause", reason="card_lost")
                _wait(lambda: any(m.get("command_id") == bad for m in _events(sub)),
                      "the bad code's refusal")
                assert webkit.table_facts(webkit.state(base)) == before
                # --- mid-round: a dealer's pause voided refunds the round --------------------
                assert webkit.command(base, "open-betting")[0] == 200
                assert webkit.command(base, "close-betting")[0] == 200
                pty.send(["4H", "3C"])
                phase("player_2")
                assert webkit.command(base, "pause", reason="misdeal")[0] == 200
                phase("paused")
                status, _ = webkit.command(base, "void", pin=webkit.PIN, actor="alice")
                assert status == 200
                phase("between_rounds")
                _wait(lambda: any(m["kind"] == "round" for m in _events(sub)), "the void")
                # --- cards of this shoe's packs only ---------------------------------------
                assert webkit.command(base, "open-betting")[0] == 200
                assert webkit.command(base, "close-betting")[0] == 200
                pty.send(["A1/6C", "B2/6D"])  # registered packs: dealt
                phase("player_2")
                pty.send(["ZZ/9D"])  # a pack nobody registered: a pause on first sight
                stranger = phase("paused")
                assert ("card from another pack: 9D of pack ZZ (not registered at the shuffle "
                        "check)") in stranger["prompt"]["text"]
        finally:
            sub.close()
            pub.close()
    messages = first_by_key(_events(sub))
    for m in messages:
        validate(orjson.dumps(m))
    (started,) = [m for m in messages if m["kind"] == "shoe_started"]
    assert started["shuffle"]["confirmed_by"].startswith("alice (web ")
    assert (started["shuffle"]["method"], started["shuffle"]["packs"]) == ("machine",
                                                                          ["A1", "B2"])
    raised = [(m["raised_by"], m["code"], m.get("note")) for m in messages
              if m["kind"] == "pause" and "raised_by" in m]
    expected: list[tuple[str, str, str | None]] = []
    for n, code in enumerate(PAUSE_CODES):
        written = NOTE if code == "other" else None
        expected += [("bob (web 127.0.0.1)", code, written),
                     ("carol (web 127.0.0.1)", code, written),
                     (f"upstream:pit/ann [u-{2 * n + 2}]", code, written)]
    expected.append(("dealer (web 127.0.0.1)", "misdeal", None))
    assert raised == expected
    for m in messages:
        if m["kind"] == "pause" and "raised_by" in m:
            assert m["reason"].startswith(f"held by the dealer: {PAUSE_WORDS[m['code']][0]}")
    refused = {m["command_id"]: (m["reason"], m["detail"]) for m in messages
               if m["kind"] == "command_refused"}
    assert refused["u-1"] == ("not_now", "the table is paused already; a supervisor resumes "
                              "or voids")
    assert refused[bad][0] == "malformed" and "unknown reason 'card_lost'" in refused[bad][1]
    (void,) = [m for m in messages if m["kind"] == "round"]
    assert void["status"] == "void" and void["void_reason"] == "held by the dealer: misdeal"
    # The journal replayed with no clock gives every message again (the verifier's refusal,
    # journaled beside its event, is not the station's).
    assert_journal_replays_live(tmp_path / "journal.sqlite3", messages, "malformed")
