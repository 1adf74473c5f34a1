"""``station watch`` against a real Mosquitto: a real station publishing over MQTT, watched
line by line; a forged message or a gap ends ``--strict`` with exit 1; Ctrl-C with 0; bad
arguments with 2."""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.wire import messages as m
from station.wire.signing import Signer, public_pem
from tests.stationkit import STATION, finish, start, table_config, wait_for, write_key
from tests.upstream.broker import Broker, Subscriber

TABLE = "t7"  # stationkit's table
T0 = 1_767_225_603.0


class Watch:
    """``station watch`` as a subprocess, its stdout and stderr read as they come."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([STATION, "watch", *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.out: list[str] = []
        self.err: list[str] = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._threads = [threading.Thread(target=self._read, args=(s, into), daemon=True)
                         for s, into in ((self.proc.stdout, self.out),
                                         (self.proc.stderr, self.err))]
        for t in self._threads:
            t.start()

    @staticmethod
    def _read(stream: IO[str], into: list[str]) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))

    def subscribed(self) -> None:
        wait_for(lambda: any("watching" in e for e in self.err) or self.proc.poll() is not None,
                 30, "station watch to subscribe")
        assert self.proc.poll() is None, self.err

    def wait(self, timeout_s: float = 60) -> int:
        code = self.proc.wait(timeout_s)
        for t in self._threads:
            t.join(10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.wait()


@pytest.fixture
def key_pair(tmp_path: Path) -> tuple[Path, Path, Ed25519PrivateKey]:
    private, key = write_key(tmp_path)
    public = tmp_path / f"{TABLE}.pub.pem"
    public.write_bytes(public_pem(key.public_key()))
    return private, public, key


@pytest.fixture
def publisher(broker: Broker) -> Iterator[Subscriber]:
    sub = Subscriber(broker.port, "nothing/here", client_id="test-injector", clean=True)
    yield sub
    sub.close()


def watch_args(broker: Broker, public: Path, *extra: str) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(broker.port), "--table", TABLE,
            "--key", str(public), *extra]


def test_watch_prints_a_real_stations_stream_and_stops_on_ctrl_c(
        tmp_path: Path, broker: Broker, key_pair: tuple[Path, Path, Ed25519PrivateKey]) -> None:
    private, public, _ = key_pair
    watch = Watch(*watch_args(broker, public, "--strict"))
    try:
        watch.subscribed()
        upstream = {"type": "mqtt", "host": "127.0.0.1", "port": broker.port,
                    "prefix": "baccarat", "signing_key_file": str(private),
                    "reconnect_max_s": 1}
        config = table_config(tmp_path, seed=9, upstream=upstream)
        finish(start(config), config, timeout_s=120)
        try:
            wait_for(lambda: any("shoe ended after" in line for line in watch.out), 60,
                     "the shoe's end in the watch")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; exit {watch.proc.poll()}; last lines "
                                 f"{watch.out[-8:]}; stderr {watch.err[-8:]}") from None
        assert watch.proc.poll() is None, watch.err  # --strict found nothing wrong
        watch.proc.send_signal(signal.SIGINT)
        assert watch.wait() == 0, watch.err
    finally:
        watch.kill()
    results = [line for line in watch.out if line.endswith(("PLAYER WINS", "BANKER WINS", "TIE"))]
    assert len(results) > 20, watch.out[:20]
    assert all(line.startswith(f"{TABLE} #") for line in results)
    assert any(" round 1: PLAYER " in line for line in results)
    assert not [line for line in watch.out if "GAP" in line or "BAD" in line]


def card(signer: Signer, seq: int, prev: int | None, code: str = "9H") -> bytes:
    msg = m.card(table=TABLE, seq=seq, ts=T0 + seq, shoe=f"{TABLE}-20260101T000003Z-1",
                 round_no=seq, hand="player", position=1, code=code)
    return signer.sign(msg | {"prev_seq": prev})


@pytest.mark.parametrize("fault", ["forged", "other_key", "gap"])
def test_strict_watch_exits_1_at_a_forged_message_or_a_gap(
        broker: Broker, key_pair: tuple[Path, Path, Ed25519PrivateKey], publisher: Subscriber,
        fault: str) -> None:
    _, public, key = key_pair
    signer = Signer(key)
    watch = Watch(*watch_args(broker, public, "--strict"))
    topic = f"baccarat/{TABLE}/events"
    try:
        watch.subscribed()
        publisher.client.publish(topic, card(signer, 1, None), qos=1)
        wait_for(lambda: any(line.startswith(f"{TABLE} #1 ") for line in watch.out), 30,
                 "the genuine message")
        if fault == "forged":
            bad = card(signer, 2, 1).replace(b'"9H"', b'"KH"')  # altered after signing
        elif fault == "other_key":
            bad = card(Signer(Ed25519PrivateKey.generate()), 2, 1)
        else:
            bad = card(signer, 4, 3)  # seq 2 and 3 never sent
        publisher.client.publish(topic, bad, qos=1)
        assert watch.wait() == 1, (watch.out, watch.err)
    finally:
        watch.kill()
    want = "GAP: seq 3 never arrived" if fault == "gap" else "BAD SIGNATURE"
    assert any(want in line for line in watch.out), watch.out
    assert any("--strict" in e for e in watch.err), watch.err


def test_without_strict_a_forged_message_is_shown_and_the_watch_goes_on(
        broker: Broker, key_pair: tuple[Path, Path, Ed25519PrivateKey],
        publisher: Subscriber) -> None:
    _, public, key = key_pair
    signer = Signer(key)
    watch = Watch(*watch_args(broker, public))
    topic = f"baccarat/{TABLE}/events"
    try:
        watch.subscribed()
        publisher.client.publish(topic, card(Signer(Ed25519PrivateKey.generate()), 1, None),
                                 qos=1)
        publisher.client.publish(topic, card(signer, 1, None), qos=1)
        wait_for(lambda: len(watch.out) >= 2, 30, "both lines")
        watch.proc.send_signal(signal.SIGINT)
        assert watch.wait() == 0
    finally:
        watch.kill()
    assert "BAD SIGNATURE" in watch.out[0]
    assert watch.out[1] == f"{TABLE} #1 round 1: player card 1: 9H"


@pytest.mark.parametrize(("args", "says"), [
    (["--key", "KEY"], "no table"),
    (["--table", "t1", "--key", "nope.pem"], "nope.pem: no such file"),
    (["--table", "t1", "--key", "KEY", "--port", "70000"], "--port 70000"),
    (["--table", "t1"], "--key"),
    (["--table", "t1", "--key", "KEY", "--prefix", "a b"], "prefix"),
])
def test_bad_arguments_exit_2_saying_what_is_wrong(
        tmp_path: Path, key_pair: tuple[Path, Path, Ed25519PrivateKey],
        args: list[str], says: str) -> None:
    _, public, _ = key_pair
    done = subprocess.run([STATION, "watch", *[str(public) if a == "KEY" else a for a in args]],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path, check=False)
    assert done.returncode == 2, done
    assert says in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_watch_takes_the_broker_and_table_from_a_station_config(
        tmp_path: Path, broker: Broker, key_pair: tuple[Path, Path, Ed25519PrivateKey],
        publisher: Subscriber) -> None:
    private, public, key = key_pair
    upstream = {"type": "mqtt", "host": "127.0.0.1", "port": broker.port, "prefix": "floor/a",
                "signing_key_file": str(private)}
    config = table_config(tmp_path, seed=1, upstream=upstream)
    watch = Watch("-c", str(config), "--key", str(public), "--strict")
    try:
        watch.subscribed()
        assert any(f"floor/a/{TABLE}/events" in e for e in watch.err), watch.err
        publisher.client.publish(f"floor/a/{TABLE}/events", card(Signer(key), 1, None), qos=1)
        wait_for(lambda: len(watch.out) >= 1, 30, "the line")
        watch.proc.send_signal(signal.SIGTERM)
        assert watch.wait() == 0, watch.err
    finally:
        watch.kill()
    assert watch.out == [f"{TABLE} #1 round 1: player card 1: 9H"]
