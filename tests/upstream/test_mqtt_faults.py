"""Broker faults while the station keeps producing: a stop and restart, and a SIGKILL with
messages in flight. After de-duplication by key the game server has every message once, in
order, and the station was never held up."""

from __future__ import annotations

import threading
import time

from station.upstream.mqtt import MqttPublisher
from station.upstream.mqttlink import MqttLink
from station.wire.signing import Signer
from tests.upstream.broker import Broker, Subscriber, wait_until
from tests.upstream.helpers import TABLE, deduped_seqs, produce
from tests.upstream.outboxes import MemoryOutbox

TOTAL = 1500
BURST_AT = 300
BURST = 201  # replaces one message: 200 more in all


class Producer(threading.Thread):
    """The station loop: appends a message every ``pace_s`` and notifies the publisher,
    recording how long each append-and-notify took (it must never wait on the broker)."""

    def __init__(self, outbox: MemoryOutbox, signer: Signer, pub: MqttPublisher,
                 total: int, pace_s: float = 0.002) -> None:
        super().__init__(name="test-producer", daemon=True)
        self.outbox, self.signer, self.pub = outbox, signer, pub
        self.total, self.pace_s = total, pace_s
        self.worst_s = 0.0
        self.burst_done = threading.Event()

    def run(self) -> None:
        for i in range(self.total):
            t0 = time.perf_counter()
            # Once, a burst (a round's cards and result at once), so that the fault can hit
            # messages in flight.
            produce(self.outbox, self.signer, BURST if i == BURST_AT else 1)
            self.pub.notify()
            if i == BURST_AT:
                self.burst_done.set()
            else:
                self.worst_s = max(self.worst_s, time.perf_counter() - t0)
            time.sleep(self.pace_s)


def _run_fault(broker: Broker, signer: Signer, fault: str) -> None:
    sub = Subscriber(broker.port, f"baccarat/{TABLE}/#")
    broker.save()  # the subscriber's session survives even a SIGKILL
    outbox = MemoryOutbox()
    settings = MqttLink(host="127.0.0.1", port=broker.port,
                                reconnect_max_s=1)
    pub = MqttPublisher(outbox, settings, table=TABLE, signer=signer)
    pub.start()
    producer = Producer(outbox, signer, pub, TOTAL)
    try:
        producer.start()
        wait_until(producer.burst_done.is_set, 20, "the burst")
        wait_until(lambda: pub.state().in_flight > 0, 5, "messages in flight", step_s=0.0005)
        (broker.kill if fault == "kill" else broker.stop)()
        in_flight = pub.state().in_flight
        during = len(outbox.rows)
        time.sleep(1.0)  # the outage: the station keeps dealing
        assert len(outbox.rows) > during, "the producer was held up by the outage"
        stuck = outbox.backlog()
        assert stuck > 0 and not pub.connected
        broker.start()
        producer.join(30)
        wait_until(lambda: outbox.backlog() == 0, 30, "the backlog to drain")
        wait_until(lambda: len(deduped_seqs(sub.snapshot())) == TOTAL + 200, 20,
                   "every distinct message at the subscriber")
    finally:
        pub.stop()
        sub.close()
    total = TOTAL + 200
    assert deduped_seqs(sub.snapshot()) == list(range(1, total + 1))
    assert outbox.delivered_ids() == list(range(1, total + 1))
    assert in_flight > 0
    assert producer.worst_s < 0.1, f"an append waited {producer.worst_s:.3f} s"
    print(f"{fault}: {in_flight} in flight at the fault, backlog {stuck} during it, "
          f"{len(sub.snapshot()) - total} duplicate(s) received")


def test_broker_stopped_mid_stream_and_restarted(broker: Broker, signer: Signer) -> None:
    _run_fault(broker, signer, "stop")


def test_broker_killed_with_messages_in_flight(broker: Broker, signer: Signer) -> None:
    _run_fault(broker, signer, "kill")
