"""A game server written from docs/upstream.md and docs/messages.md alone, against the real
daemon and a real Mosquitto.

The station deals one short shoe (the simulated table, a paytable, a dealer signed in by
badge) with two faults nobody at the table clears: a card drawn when none is due after round
2, and an unreadable read in round 4. The "game server" subscribes to the table's topics and
sends commands as the docs describe them, signed with its own key (the ``cryptography``
package and the canonical form of upstream.md, none of the station's code): at the first
pause every kind of refusal the docs list and a resume, then the resume again (replayed); at
the second a void; then a resume while nothing is paused and a close_shoe while betting is
open. Every message must verify with the station's public key, carry every field the docs
call required with the type they give and no field they do not list; every command must be
answered; a consumer of the events topic alone must see a dropped message by ``prev_seq``.

One run serves every test of the module (about ten seconds: the betting window is held open
for 1.5 s a round so that a command sent on seeing it lands in it).
"""

from __future__ import annotations

import base64
import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tests.conftest import REPO
from tests.contract import docs
from tests.stationkit import FAST, finish, start, table_config, wait_for, write_key
from tests.upstream.broker import MOSQUITTO, Broker, Subscriber

TABLE = "t7"
TOPICS = f"baccarat/{TABLE}"
PACE = FAST | {"betting_s": 1.5}  # a window a close_shoe sent on seeing it surely lands in
FAULTS = [{"kind": "not_due", "after_round": 2}, {"kind": "garbled", "card": 30},
          {"kind": "cut", "card": 45}]
CONTRACT = docs.read()
UNREADABLE = "(not json)"  # the name the test gives the command that has no id to read


def iso(ts: float) -> str:
    """A command's ``ts``, as upstream.md asks: ISO 8601 with a time zone."""
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")


def command(key: Ed25519PrivateKey | None, cid: str, action: str, **fields: Any) -> bytes:
    """A command as upstream.md describes it, signed over its canonical form."""
    body: dict[str, Any] = {"v": 1, "id": cid, "table": TABLE, "action": action,
                            "actor": "ann", "ts": iso(time.time())} | fields
    if key is not None:
        body["sig"] = base64.b64encode(key.sign(docs.canonical(body))).decode("ascii")
    return json.dumps(body, separators=(",", ":")).encode()


def verify(payload: bytes, key: Ed25519PublicKey) -> dict[str, Any]:
    """upstream.md's recipe: the signature over the canonical JSON without ``sig``."""
    message: dict[str, Any] = json.loads(payload)
    sig = base64.b64decode(message["sig"], validate=True)
    key.verify(sig, docs.canonical(message))  # raises InvalidSignature
    return message


@dataclass
class Sent:
    cid: str
    action: str
    payload: bytes
    seq_before: int  # the highest seq the game server had seen when it sent it
    round: int | None = None  # the round whose betting was open (close_shoe)


@dataclass
class Run:
    received: list[tuple[str, bytes]]  # (topic, payload) as they arrived
    station_key: Ed25519PublicKey
    sent: dict[str, Sent]

    def messages(self, topic: str | None = None) -> list[dict[str, Any]]:
        """Every message (or one topic's), first delivery of each key, in arrival order."""
        seen: set[str] = set()
        out = []
        for t, payload in self.received:
            m = json.loads(payload)
            if (topic is None or t.endswith("/" + topic)) and m["key"] not in seen:
                seen.add(m["key"])
                out.append(m)
        return out


class GameServer:
    def __init__(self, broker: Broker, pit: Ed25519PrivateKey) -> None:
        self.pit = pit
        self.sub = Subscriber(broker.port, f"{TOPICS}/#", client_id="contract-game-server")
        self.pub = Subscriber(broker.port, f"{TOPICS}/nothing", client_id="contract-pit")
        self.sent: dict[str, Sent] = {}

    def seen(self) -> list[dict[str, Any]]:
        return [json.loads(m.payload) for m in self.sub.snapshot()
                if not m.topic.endswith("/commands")]

    def top_seq(self) -> int:
        return max((m.get("seq", 0) for m in self.seen()), default=0)

    def send(self, payload: bytes, cid: str, action: str, **extra: Any) -> None:
        self.sent[cid] = Sent(cid, action, payload, self.top_seq(), **extra)
        self.pub.client.publish(f"{TOPICS}/commands", payload, qos=1).wait_for_publish(5)

    def wait(self, what: str, check: Callable[[dict[str, Any]], bool],
             after: int = 0) -> dict[str, Any]:
        found: list[dict[str, Any]] = []

        def hit() -> bool:
            found[:] = [m for m in self.seen() if m.get("seq", 0) > after and check(m)]
            return bool(found)
        wait_for(hit, 60, what)
        return found[0]

    def close(self) -> None:
        self.sub.close()
        self.pub.close()


def drive(game: GameServer) -> None:
    pit = game.pit
    forged = Ed25519PrivateKey.generate()
    first = game.wait("the first pause", lambda m: m["kind"] == "pause")
    game.send(b"not json", UNREADABLE, "")  # no id to read: command_id null
    game.send(command(None, "unsigned-1", "resume"), "unsigned-1", "resume")
    game.send(command(forged, "forged-1", "resume"), "forged-1", "resume")
    game.send(command(pit, "stale-1", "resume", ts=iso(time.time() - 600)), "stale-1", "resume")
    game.send(command(pit, "future-1", "resume", ts=iso(time.time() + 600)), "future-1",
              "resume")
    game.send(command(pit, "table-1", "resume", table="t8"), "table-1", "resume")
    game.send(command(pit, "unknown-1", "pay_everyone"), "unknown-1", "pay_everyone")
    game.send(command(pit, "skip-1", "skip"), "skip-1", "skip")  # a VIP request: not now
    game.send(command(pit, "open-1", "open_betting"), "open-1", "open_betting")  # dealer's
    game.send(command(pit, "resume-1", "resume"), "resume-1", "resume")
    resumed = game.wait("the resume", lambda m: m["kind"] == "resume", first["seq"])
    game.send(command(pit, "resume-1", "resume"), "resume-1/again", "resume")  # replayed
    second = game.wait("the second pause", lambda m: m["kind"] == "pause", resumed["seq"])
    game.send(command(pit, "void-1", "void", reason="misdeal seen on camera"), "void-1", "void")
    voided = game.wait("the void", lambda m: m["kind"] == "round" and m["status"] == "void",
                       second["seq"])
    after = game.wait("betting open after the void", lambda m: m["kind"] == "status"
                      and m["phase"] == "betting_open", voided["seq"])
    game.send(command(pit, "resume-idle", "resume"), "resume-idle", "resume")  # nothing paused
    betting = game.wait("the next round's betting", lambda m: m["kind"] == "status"
                        and m["phase"] == "betting_open", after["seq"])
    game.send(command(pit, "close-1", "close_shoe"), "close-1", "close_shoe",
              round=betting["round"])


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed: run scripts/setup --test (as root) or "
                    "apt-get install mosquitto")
    tmp = tmp_path_factory.mktemp("contract")
    broker = Broker(tmp / "broker")
    broker.start()
    key, private = write_key(tmp)
    pit = Ed25519PrivateKey.generate()
    (tmp / "pit.pub.pem").write_bytes(pit.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    upstream = {"type": "mqtt", "host": "127.0.0.1", "port": broker.port, "prefix": "baccarat",
                "signing_key_file": str(key), "reconnect_max_s": 1,
                "command_keys": {"pit": "pit.pub.pem"}}
    config = table_config(tmp, seed=24, upstream=upstream, supervisor="none", faults=FAULTS,
                          pace=PACE, dealer_badge="DEALER-D042")
    cfg = yaml.safe_load(config.read_text())
    cfg["table"]["paytable"] = str(REPO / "config" / "paytables" / "seed000.yaml")
    config.write_text(yaml.safe_dump(cfg))
    game = GameServer(broker, pit)
    proc = start(config)
    try:
        drive(game)
        finish(proc, config)
        # The clean stop's offline status, the last thing the station sends.
        wait_for(lambda: any(not m.get("online", True) for m in game.seen()), 30,
                 "the offline status")
        yield Run([(m.topic, m.payload) for m in game.sub.snapshot()
                   if not m.topic.endswith("/commands")],
                  private.public_key(), game.sent)
    finally:
        game.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        broker.kill()


def test_every_message_verifies_with_the_stations_key(run: Run) -> None:
    assert len(run.received) > 100
    for _, payload in run.received:
        try:
            verify(payload, run.station_key)
        except InvalidSignature:  # pragma: no cover - the failure being tested for
            pytest.fail(f"a message does not verify: {payload[:200]!r}")


def test_every_message_has_exactly_the_documented_fields(run: Run) -> None:
    found = []
    for topic, payload in run.received:
        message = json.loads(payload)
        kind = message["kind"]
        assert topic == f"{TOPICS}/{'status' if kind == docs.STATUS else 'events'}", kind
        found += docs.problems(message, CONTRACT.fields(kind), kind)
    assert sorted(set(found)) == []
    kinds = {json.loads(p)["kind"] for _, p in run.received}
    # The run covers most of the contract: everything but the table modes' own kinds.
    assert kinds >= {"shoe_started", "betting_open", "betting_closed", "card", "round", "pause",
                     "resume", "command_refused", "status", "shoe_ended", "shoe_report",
                     "dealer"}


def test_the_events_topic_alone_is_linked_and_a_dropped_message_shows(run: Run) -> None:
    # Every events message as it arrived, re-deliveries included, through upstream.md's own
    # check ("Checking for gaps").
    arrived = [json.loads(p) for t, p in run.received if t.endswith("/events")]
    assert len(arrived) > 50
    assert lost(arrived) is None
    middle = arrived[len(arrived) // 2]
    dropped = [m for m in arrived if m["key"] != middle["key"]]  # every delivery of it
    assert lost(dropped) == f"seq {middle['seq']} never arrived (nor perhaps others after " \
        f"{max(m['seq'] for m in arrived if m['seq'] < middle['seq'])})"


def lost(events: list[dict[str, Any]]) -> str | None:
    doc = docs.snippet("Checking for gaps")
    link = doc["EventsLink"]()
    try:
        for m in events:
            link.take(m)
    except doc["LostMessages"] as exc:
        return str(exc)
    return None


def test_statuses_journaled_and_presence(run: Run) -> None:
    statuses = [json.loads(p) for t, p in run.received if t.endswith("/status")]
    journaled = [m for m in statuses if "seq" in m]
    presence = [m for m in statuses if "seq" not in m]
    seqs = [m["seq"] for m in journaled]
    # Increasing, but a reconnect may send the last one again.
    assert all(a <= b for a, b in itertools.pairwise(seqs)), seqs
    phases = {m["phase"] for m in journaled}
    assert {"burning", "between_rounds", "betting_open", "player_1", "paused",
            "shoe_closed"} <= phases
    assert presence and not presence[-1]["online"]
    assert presence[-1]["key"] == f"{TABLE}:status:offline:{presence[-1]['ts']}"
    # Each names the journal's head: a journaled status the record before its own, the clean
    # stop's presence the last committed one, after every journaled status's record.
    heads = [(m["journal"]["id"], m["journal"]["seq"]) for m in journaled]
    assert all(a <= b for a, b in itertools.pairwise(heads)) and len({i for i, _ in heads}) == 1
    last = presence[-1]["journal"]
    assert last["id"] == heads[-1][0] and last["seq"] > heads[-1][1]


# --- every command answered ---------------------------------------------------------------
ANSWERED_TODAY = [UNREADABLE, "unsigned-1", "forged-1", "stale-1", "future-1", "table-1",
                  "unknown-1", "skip-1", "open-1", "resume-1", "resume-1/again", "void-1"]
# Refused today with a console line and nothing upstream: the contract-commands branch
# publishes them (issue 19).
VANISH_TODAY = ["resume-idle", "close-1"]


def answer(run: Run, sent: Sent) -> str | None:
    """How the station answered ``sent``: applied (seen in what it published after it) or
    refused (a command_refused with its id); None when there was no answer."""
    cid = None if sent.cid == UNREADABLE else sent.cid.split("/")[0]
    later = [m for m in run.messages("events") if m["seq"] > sent.seq_before]
    refusals = [m for m in later if m["kind"] == "command_refused"
                and m["command_id"] == cid and (cid is not None or m["action"] is None)]
    if sent.cid.endswith("/again"):  # the second of two with one id: only a refusal answers
        return "refused" if refusals else None
    by = f"upstream:pit/ann [{cid}]"
    if sent.action == "resume" and any(m["kind"] == "resume" and m["by"] == by for m in later):
        return "applied"
    if sent.action == "void" and any(m["kind"] == "round" and m.get("voided_by") == by
                                     for m in later):
        return "applied"
    if sent.action == "close_shoe" and any(m["kind"] == "shoe_ended"
                                           and m["rounds"] == sent.round for m in later):
        return "applied"  # the shoe closed after the round whose betting was open
    return f"refused: {refusals[0]['reason']}" if refusals else None


def test_the_run_sent_every_command(run: Run) -> None:
    assert set(run.sent) == set(ANSWERED_TODAY) | set(VANISH_TODAY)


@pytest.mark.parametrize("cid", ANSWERED_TODAY)
def test_a_command_is_answered(run: Run, cid: str) -> None:
    assert answer(run, run.sent[cid]) is not None, f"no answer to {cid}"


def test_the_commands_sent_are_as_documented(run: Run) -> None:
    signed = [json.loads(s.payload) for s in run.sent.values() if b'"sig"' in s.payload]
    assert len(signed) >= 10
    for body in signed:  # refused or not, each is made of the documented fields only
        assert docs.problems(body, CONTRACT.command, "command") == []


def test_each_refusal_has_its_documented_reason(run: Run) -> None:
    assert {m["reason"] for m in run.messages("events") if m["kind"] == "command_refused"} \
        <= set(CONTRACT.refusals)
    got = {cid: answer(run, run.sent[cid]) for cid in ANSWERED_TODAY}
    assert got == {
        UNREADABLE: "refused: malformed", "unsigned-1": "refused: unsigned",
        "forged-1": "refused: bad_signature", "stale-1": "refused: stale",
        "future-1": "refused: future", "table-1": "refused: wrong_table",
        "unknown-1": "refused: unknown_action", "skip-1": "refused: not_now",
        "open-1": "refused: not_now", "resume-1": "applied", "resume-1/again": "refused",
        "void-1": "applied"}
    (again,) = [m for m in run.messages("events") if m["kind"] == "command_refused"
                and m["command_id"] == "resume-1"]
    assert again["reason"] == "replayed"


@pytest.mark.parametrize("cid", VANISH_TODAY)
def test_a_command_the_table_cannot_take_now_is_answered(run: Run, cid: str) -> None:
    assert answer(run, run.sent[cid]) is not None, f"no answer to {cid}"


def test_a_voids_reason_is_on_the_void_record(run: Run) -> None:
    (void,) = [m for m in run.messages("events") if m["kind"] == "round"
               and m.get("voided_by") == "upstream:pit/ann [void-1]"]
    assert void["void_note"] == "misdeal seen on camera"
    assert void["void_reason"].startswith("unreadable code '\\x15")
