"""The table modes through the real daemon (``station run``): the clock's deadlines become
journaled ``TimerExpired`` events, the journal replays to the same outputs with no clock, and
the game server drives betting and reveals through the MQTT upstream with signed commands
while the dealer's betting buttons are refused (docs/modes.md)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import orjson
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from drivers.events import Command, TimerExpired
from drivers.sim_serial import PtyScanner
from station.journal import read_journal
from station.wire.messages import iso_ts
from station.wire.schema import validate
from station.wire.signing import Signer
from tests import webkit
from tests.modes_replay import replay
from tests.stationkit import STATION, finish, first_by_key, start, table_config, write_key
from tests.upstream.broker import Broker, Subscriber


def mode_config(tmp: Path, table: dict[str, Any], players: dict[str, Any] | None = None,
                **pace: float) -> Path:
    key, _ = write_key(tmp)
    upstream = {"type": "file", "path": str(tmp / "upstream.jsonl"),
                "signing_key_file": str(key)}
    config = table_config(tmp, seed=21, upstream=upstream,
                          faults=[{"kind": "cut", "card": 60}])
    cfg = yaml.safe_load(config.read_text())
    cfg["table"].update(table)
    cfg["simulation"]["pace"].update(pace)
    if players:
        cfg["simulation"]["players"] = players
    config.write_text(yaml.safe_dump(cfg))
    return config


def run_and_replay(tmp: Path, config: Path) -> tuple[list[Any], list[dict[str, Any]]]:
    """Run the daemon to the end of its shoe; its journal's events and the upstream messages
    (each checked against its schema). The journal, exported and replayed with no clock,
    must give the same rounds and the same messages."""
    finish(start(config), config)
    raw = (tmp / "upstream.jsonl").read_bytes().splitlines()
    for line in raw:
        validate(line)
    messages = first_by_key([json.loads(x) for x in raw])
    events = list(read_journal(tmp / "journal.sqlite3").events)
    exported = tmp / "exported.jsonl"
    done = subprocess.run([STATION, "journal", "export", str(tmp / "journal.sqlite3"),
                           "--out", str(exported)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    replayed = subprocess.run([STATION, "replay", str(exported), "--out", "-"],
                              capture_output=True, text=True, timeout=60, check=True)
    results = (tmp / "results.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in replayed.stdout.splitlines()] == [
        json.loads(x) for x in results]
    _, _, again = replay(exported, tmp / "journal.sqlite3")
    # The same messages, byte for byte apart from the signature and the station's version
    # (each status naming the same journal head).
    ours = [{k: v for k, v in m.items() if k not in ("sig", "station_version")}
            for m in messages]
    assert [orjson.loads(m) for m in again] == [
        {k: v for k, v in m.items() if k in orjson.loads(a)} for m, a in zip(ours, again,
                                                                             strict=False)]
    assert len(again) == len(ours)
    return events, messages


def test_a_timer_table_runs_its_rounds_by_itself(tmp_path: Path) -> None:
    config = mode_config(tmp_path, {"betting": "timer", "betting_s": 0.05, "result_s": 0.02})
    events, messages = run_and_replay(tmp_path, config)
    timers = [e.timer for e in events if isinstance(e, TimerExpired)]
    rounds = [m for m in messages if m["kind"] == "round"]
    assert len(rounds) >= 8
    assert timers.count("betting_opens") == timers.count("betting") == len(rounds)
    assert not any(isinstance(e, Command) and e.action in ("open_betting", "close_betting")
                   for e in events)
    opened = [m for m in messages if m["kind"] == "betting_open"]
    assert all(m["betting_s"] == 0.05 and m["closes_at"] > m["ts"] for m in opened)


def test_a_squeeze_table_reveals_on_its_deadlines(tmp_path: Path) -> None:
    config = mode_config(tmp_path, {"mode": "squeeze", "reveal_s": 0.05},
                         {"reveal": "timer"})
    events, messages = run_and_replay(tmp_path, config)
    reveals = [m for m in messages if m["kind"] == "reveal"]
    rounds = [m for m in messages if m["kind"] == "round"]
    assert len(rounds) >= 8 and len(reveals) >= 2 * len(rounds)
    assert all(m["by"] == "timer" for m in reveals)
    timers = [e.timer for e in events if isinstance(e, TimerExpired)]
    assert timers.count("reveal") == len(reveals)
    cards = [m for m in messages if m["kind"] == "card"]
    assert cards and all(m["card"] is None and m["face_down"] for m in cards)
    # Each card's value goes upstream in its reveal, before the round's result.
    for r in rounds:
        shown = {(m["hand"], c["position"]): c["card"] for m in reveals
                 if m["round_key"] == r["key"] and m["seq"] < r["seq"] for c in m["cards"]}
        assert shown == {**{("player", i + 1): c for i, c in enumerate(r["player"])},
                         **{("banker", i + 1): c for i, c in enumerate(r["banker"])}}


# --- the game server, through MQTT --------------------------------------------------------

def signed(key: Ed25519PrivateKey, n: int, action: str) -> bytes:
    body = {"v": 1, "id": f"gs-{n}", "table": "t5", "action": action, "actor": "server",
            "ts": iso_ts(time.time())}
    return Signer(key).sign(body)


def received(sub: Subscriber) -> list[dict[str, Any]]:
    return [orjson.loads(m.payload) for m in sub.snapshot()
            if not m.topic.endswith("/commands")]


def test_the_game_server_drives_betting_and_reveals_over_mqtt(tmp_path: Path,
                                                              broker: Broker) -> None:
    key, _ = write_key(tmp_path)
    game = Ed25519PrivateKey.generate()
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.mqtt_live_config(
            tmp_path, pty.path, broker.port, str(key), {"game": game},
            {"mode": "squeeze", "betting": "upstream", "reveal_s": 600})
        base = webkit.url_of(config)
        sub = Subscriber(broker.port, "baccarat/t5/#")
        pub = Subscriber(broker.port, "baccarat/t5/nothing", client_id="game-server")
        n = 0

        def send(action: str) -> None:
            nonlocal n
            n += 1
            pub.client.publish("baccarat/t5/commands", signed(game, n, action),
                               qos=1).wait_for_publish(5)

        try:
            with webkit.running(config) as proc:
                webkit.wait_reading(proc, pty.path)
                assert webkit.command(base, "new-shoe")[0] == 200
                pty.send(["AS", "2S"])  # the burn: an ace shown, one burned
                webkit.wait_state(base, lambda s: s["phase"] == "between_rounds",
                                  what="between rounds")
                status, answer = webkit.command(base, "open-betting")
                assert status == 409, answer
                assert "opened and closed by the game server" in answer["error"]
                send("open_betting")
                webkit.wait_state(base, lambda s: s["phase"] == "betting_open", what="open")
                status, answer = webkit.command(base, "close-betting")
                assert status == 409 and "game server" in answer["error"], answer
                send("close_betting")
                webkit.wait_state(base, lambda s: s["phase"] == "player_1", what="closed")
                pty.send(["4H", "3C", "5H", "5C"])  # player 9, banker 8: a natural
                webkit.wait_state(base, lambda s: s["phase"] == "reveal", what="reveal")
                send("reveal")
                send("reveal")
                webkit.wait_state(base, lambda s: s["phase"] == "between_rounds"
                                  and s["round"]["no"] == 1, what="the result")
                deadline = time.monotonic() + 20
                while not any(m["kind"] == "round" for m in received(sub)):
                    assert time.monotonic() < deadline, "no round upstream"
                    time.sleep(0.05)
        finally:
            sub.close()
            pub.close()
    messages = first_by_key(received(sub))
    kinds = [m["kind"] for m in messages]
    assert "command_refused" not in kinds
    reveals = [m for m in messages if m["kind"] == "reveal"]
    assert [(m["hand"], m["by"]) for m in reveals] == [
        ("player", "upstream:game/server [gs-3]"), ("banker", "upstream:game/server [gs-4]")]
    (result,) = [m for m in messages if m["kind"] == "round"]
    assert (result["player"], result["banker"], result["winner"]) == (
        ["4H", "5H"], ["3C", "5C"], "player")
    commands = [e for e in read_journal(tmp_path / "journal.sqlite3").events
                if isinstance(e, Command)]
    actors = {(e.action, e.actor) for e in commands}
    assert ("open_betting", "upstream:game/server [gs-1]") in actors
    refused = [e for e in commands if e.action in ("open_betting", "close_betting")
               and not e.actor.endswith("]")]
    assert len(refused) == 2  # the dealer's, journaled and refused
