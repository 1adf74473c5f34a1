"""``upstream.type: mqtt``: drain the outbox to a broker, and take commands from it.

Session: MQTT 5 with ``clean_start=False`` and a session expiry (``session_expiry_s``).
Version 5 rather than 3.1.1 because the broker then forgets a station that is gone for good
after the expiry instead of keeping its session forever, a PUBACK carries a reason code (a
message the broker refused is not taken for delivered), and commands sent during a short
outage are queued by the broker and delivered on reconnect (where the freshness window
still judges them).

Delivery: one thread of ours (``upstream-mqtt``) owns the connection and reads the outbox in
id order, publishing QoS 1 with at most ``max_inflight`` unacknowledged (fewer if the broker's
Receive Maximum says so); paho's network thread reports each PUBACK, and a row is marked
delivered only when it and every row before it are acknowledged, so what stays in the outbox
is always a suffix. The outbox is the only queue: each connection gets a fresh paho client,
and after a lost connection the drain starts again from the outbox's first undelivered row
(what was in flight goes again, in order), so paho never holds messages of its own across
an outage. While the broker is away the backlog stays in the outbox (one log line per
outage, ``backlog()`` for the figure) and we reconnect with a capped backoff. The caller's
``notify()`` never blocks.

Topics: ``<prefix>/<table>/events`` (every message), ``<prefix>/<table>/status`` (retained;
the last will is a signed ``online: false`` status), ``<prefix>/<table>/commands`` (in), and
with ``upstream.mirror`` ``<prefix>/<table>/journal``: the journal's committed records
(station.upstream.mirror), sent on the same connection after the outbox's rows, with at most
half the window, so the game server's messages always have room.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from station.errors import ConfigError, StationError
from station.journal.outbox import Outbox, OutboxRow
from station.upstream.mirror import PART_BYTES, JournalMirror, MirrorItem
from station.upstream.mqttlink import MqttLink
from station.upstream.mqttsetup import apply_tls, credentials_file, read_credentials
from station.upstream.outage import Backoff, Outage
from station.wire.chain import header_hash
from station.wire.commands import Accepted, CommandVerifier, Refused
from station.wire.messages import STATUS_TOPIC, journal_head, presence
from station.wire.signing import Signer

log = logging.getLogger(__name__)

QOS = 1
POLL_S = 0.5  # look at the outbox at least this often even without notify()
# A broker acknowledges a QoS 1 message before it has forwarded it, and keeps it in memory:
# killed in that moment it loses messages it acknowledged (seen with Mosquitto: the kill
# resets the subscriber's connection and its unread data goes). So after a lost connection
# the rows acknowledged in the last seconds before it are sent once more, ahead of the
# rest; consumers de-duplicate by key anyway.
RESEND_AFTER_LOSS_S = 2.0
RESEND_MAX = 2000

CONNACK_TIMEOUT_S = 10.0
MIRROR_TAKE = 8  # journal records read and signed per turn of the drain loop, at most
REFUSED_RETRY_S = 5.0

CommandHandler = Callable[[Accepted | Refused], None]


def _no_journal() -> tuple[bytes, int, bytes]:
    empty = header_hash(b"")
    return empty, 0, empty


@dataclass(frozen=True, slots=True)
class UpstreamState:
    connected: bool
    backlog: int  # rows not yet acknowledged by the broker
    in_flight: int
    delivered: int  # rows marked delivered since start


class _Connection:
    """What paho's callbacks report about one connection (each connection has its own)."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.answered = threading.Event()  # CONNACK (either way) or the socket closed
        self.up = False
        self.refusal: str | None = None
        self.lost = threading.Event()
        self.lost_reason = ""
        self.receive_max: int | None = None
        self.max_packet: int | None = None  # the broker's Maximum Packet Size, if it says


class MqttPublisher:
    """Publishes an outbox to a broker and hands verified commands to ``on_command``.

    ``on_command`` runs on paho's network thread: it must only hand the result over (to the
    station loop's queue), never block. ``notify``, ``backlog``, ``state`` and ``stop`` may
    be called from any thread.
    """

    def __init__(
        self,
        outbox: Outbox,
        settings: MqttLink,
        *,
        table: str,
        signer: Signer,
        verifier: CommandVerifier | None = None,
        on_command: CommandHandler | None = None,
        environ: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.time,
        head: Callable[[], tuple[bytes, int, bytes]] | None = None,
        mirror: JournalMirror | None = None,
    ) -> None:
        """``head``: the journal's committed head (``Journal.head``), named by the presence
        statuses; without it (a publisher tested alone), that of an empty journal."""
        if (verifier is None) != (on_command is None):
            raise ValueError("verifier and on_command go together")
        self._outbox = outbox
        self._settings = settings
        self._table = table
        self._signer = signer
        self._verifier = verifier
        self._on_command = on_command
        self._clock = clock
        self._head = head if head is not None else _no_journal
        base = settings.base_topic(table)
        self.events_topic = f"{base}/events"
        self.status_topic = f"{base}/{STATUS_TOPIC}"
        self.commands_topic = f"{base}/commands"
        self.journal_topic = f"{base}/journal"
        self._mirror = mirror
        # Owned by the drain thread: the mirror's items in flight (token -> item, parts not
        # yet acknowledged), in order, and which token each message id belongs to.
        self._mirror_flight: OrderedDict[int, tuple[MirrorItem, set[int]]] = OrderedDict()
        self._mirror_of_mid: dict[int, int] = {}
        self._mirror_token = 0
        self._mirror_hold_until = 0.0
        self._mirror_bytes = PART_BYTES
        self._mirror_rewind: bool | None = None  # a rewind due (resend recent?) before a take
        self._credentials = self._find_credentials(environ)
        self._check_tls()

        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._stop_deadline = 0.0
        self._connected = threading.Event()
        self._acks: queue.SimpleQueue[tuple[int, int, bool, str]] = queue.SimpleQueue()
        self._outage = Outage(log, f"MQTT broker {settings.host}:{settings.effective_port}")
        self._outbox_outage = Outage(log, "the outbox (journal)")
        self._mirror_outage = Outage(log, "the journal's mirror")
        self._thread: threading.Thread | None = None
        # Owned by the drain thread:
        self._in_flight: OrderedDict[int, OutboxRow] = OrderedDict()  # row id -> row
        self._row_of_mid: dict[int, int] = {}
        self._acked: set[int] = set()
        self._resend: set[int] = set()  # rows in flight again although already delivered
        self._last_sent = 0
        self._hold_until = 0.0
        self._window = settings.max_inflight
        self._recent: deque[tuple[float, OutboxRow]] = deque(maxlen=RESEND_MAX)
        self._last_status: bytes | None = None
        self._in_flight_count = 0  # for state(), from any thread
        self.delivered = 0

    def _presence(self, *, online: bool) -> dict[str, Any]:
        # The last will names the head committed when it was registered (at connect).
        return presence(table=self._table, ts=self._clock(), online=online,
                        journal=journal_head(*self._head()))

    # --- setup ----------------------------------------------------------------------------

    def _find_credentials(self, environ: Mapping[str, str] | None) -> tuple[str, str] | None:
        path = credentials_file(self._settings.credentials_file, environ)
        return read_credentials(path) if path is not None else None

    def _check_tls(self) -> None:
        tls = self._settings.tls
        if tls is None:
            return
        for key, path in (("ca_file", tls.ca_file), ("cert_file", tls.cert_file),
                          ("key_file", tls.key_file)):
            if path is not None and not path.is_file():
                raise ConfigError(f"upstream.tls.{key} {path}: no such file")

    def _client(self, conn: _Connection) -> paho.Client:
        s = self._settings
        client = paho.Client(
            CallbackAPIVersion.VERSION2,
            client_id=s.client_id_for(self._table),
            protocol=MQTTProtocolVersion.MQTTv5,
            reconnect_on_failure=False,  # we reconnect, with a fresh client
        )
        if self._credentials is not None:
            client.username_pw_set(*self._credentials)
        apply_tls(client, s.tls, "upstream.tls")
        # Our window is the limit; paho's must never queue (and so reorder) on its own.
        client.max_inflight_messages_set(0)
        client.max_queued_messages_set(0)
        will = self._signer.sign(self._presence(online=False))
        client.will_set(self.status_topic, will, qos=QOS, retain=True)

        def on_connect(client: paho.Client, userdata: Any, flags: Any, reason: ReasonCode,
                       properties: Properties | None) -> None:
            if reason.is_failure:
                conn.refusal = str(reason)
            else:
                receive_max = getattr(properties, "ReceiveMaximum", None)
                conn.receive_max = receive_max if isinstance(receive_max, int) else None
                max_packet = getattr(properties, "MaximumPacketSize", None)
                conn.max_packet = max_packet if isinstance(max_packet, int) else None
                conn.up = True
                if self._on_command is not None:
                    client.subscribe(self.commands_topic, qos=QOS)
            conn.answered.set()
            self._wake.set()

        def on_disconnect(client: paho.Client, userdata: Any, flags: Any, reason: ReasonCode,
                          properties: Properties | None) -> None:
            conn.lost_reason = str(reason)
            conn.lost.set()
            conn.answered.set()
            self._connected.clear()
            self._wake.set()

        def on_publish(client: paho.Client, userdata: Any, mid: int, reason: ReasonCode,
                       properties: Properties | None) -> None:
            self._acks.put((conn.number, mid, not reason.is_failure, str(reason)))
            self._wake.set()

        client.on_connect = on_connect
        client.on_disconnect = on_disconnect
        client.on_publish = on_publish
        client.on_message = self._on_message
        return client

    # --- the public side --------------------------------------------------------------------

    def start(self) -> None:
        """Start connecting and draining in the background; returns at once (the broker may
        be down: the backlog then waits)."""
        self._thread = threading.Thread(target=self._run, name="upstream-mqtt", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """New rows are in the outbox. Never blocks."""
        self._wake.set()

    def backlog(self) -> int:
        return self._outbox.backlog()

    def resend(self, path: Path, journal_id: bytes, seq: int) -> str | None:
        """The archive's ``resend``: mirror the journal at ``path`` again from ``seq``
        (station.upstream.outlet.Resender). Any thread; never blocks."""
        if self._mirror is None:
            return "this station does not mirror its journal (upstream.mirror is false)"
        self._mirror.resend(path, journal_id, seq)
        self._wake.set()
        return None

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def state(self) -> UpstreamState:
        return UpstreamState(self.connected, self._outbox.backlog(), self._in_flight_count,
                             self.delivered)

    def stop(self, timeout_s: float = 5.0) -> None:
        """Deliver what is waiting (up to ``timeout_s``), publish the offline status,
        disconnect. Rows not acknowledged by then stay in the outbox for the next start."""
        self._stop_deadline = time.monotonic() + timeout_s
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout_s + 6.0)  # + a connect attempt under way
            self._thread = None
        if self._mirror is not None and self._thread is None:
            self._mirror.close()

    # --- paho's network thread -------------------------------------------------------------

    def _on_message(self, client: paho.Client, userdata: Any,
                    message: paho.MQTTMessage) -> None:
        if message.topic != self.commands_topic or self._verifier is None:
            return
        assert self._on_command is not None
        result = self._verifier.verify(bytes(message.payload), self._clock())
        try:
            self._on_command(result)
        except Exception:
            # The handler is the daemon's; its bug must not take the network thread down.
            log.exception("upstream: the command handler failed on %r", result)

    def _safe_backlog(self) -> int:
        try:
            return self._outbox.backlog()
        except Exception:
            log.exception("upstream: cannot count the outbox backlog")
            return -1

    # --- our thread: connections -----------------------------------------------------------

    def _run(self) -> None:
        backoff = Backoff(0.5, float(self._settings.reconnect_max_s))
        number = 0
        lost_before = False
        while not self._stopping.is_set():
            number += 1
            conn = _Connection(number)
            client = self._connect(conn)
            if client is None:
                self._stopping.wait(backoff.next())
                continue
            backoff.reset()
            try:
                self._session(client, conn, resend_recent=lost_before)
                self._outbox_outage.recovered(-1)
            except StationError as exc:
                # The outbox (the journal) cannot be read or marked, e.g. a full disk: the
                # rows are still there. Said once per outage; reconnect after a pause.
                self._outbox_outage.failed(str(exc), -1)
                self._stopping.wait(backoff.next())
            except Exception:
                log.exception("upstream: draining the outbox failed; starting over")
            finally:
                self._connected.clear()
                lost_before = not self._stopping.is_set()
                if lost_before:
                    client.disconnect()
                client.loop_stop()

    def _connect(self, conn: _Connection) -> paho.Client | None:
        s = self._settings
        client = self._client(conn)
        props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        props.SessionExpiryInterval = s.session_expiry_s
        try:
            client.connect(s.host, s.effective_port, keepalive=s.keepalive_s,
                           clean_start=False, properties=props)
        except (OSError, ValueError) as exc:
            self._outage.failed(f"cannot connect: {exc}", self._safe_backlog())
            return None
        client.loop_start()
        conn.answered.wait(CONNACK_TIMEOUT_S)
        if not conn.up or conn.lost.is_set():
            why = conn.refusal or conn.lost_reason or "no answer to CONNECT"
            self._outage.failed(f"connection refused: {why}", self._safe_backlog())
            client.disconnect()
            client.loop_stop()
            return None
        return client

    def _session(self, client: paho.Client, conn: _Connection, resend_recent: bool) -> None:
        """Drain until the connection is lost or we stop."""
        self._window = min(self._settings.max_inflight, conn.receive_max or 65535)
        # Start from the outbox's first undelivered row: what was in flight goes again.
        self._in_flight.clear()
        self._row_of_mid.clear()
        self._acked.clear()
        self._resend.clear()
        self._last_sent = 0
        self._mirror_flight.clear()
        self._mirror_of_mid.clear()
        if self._mirror is not None:
            # A PUBLISH packet is its payload plus the fixed header (5 bytes at most), the
            # topic (2 + its length), the packet id (2) and the properties' length (1).
            packet = len(self.journal_topic.encode()) + 10
            self._mirror_bytes = min(PART_BYTES, (conn.max_packet or PART_BYTES) - packet)
            # Before the first take of this connection (a journal it cannot read then must
            # not stop the session: the outbox goes on).
            self._mirror_rewind = resend_recent
        self._outage.recovered(self._safe_backlog())
        resent = self._queue_recent(client) if resend_recent else set()
        # Back online: the last station status (it says online) unless it just went again,
        # else a presence message; either replaces the offline will the broker may hold.
        # After the resent rows, so that first arrivals stay in seq order. After a restart
        # the last status is the journal's newest: a late subscriber gets the table's phase,
        # pause, shoe and round at once, not a bare presence (issue 33).
        if self._last_status is None:
            self._last_status = self._journaled_status()
        if self._last_status is None:
            client.publish(self.status_topic, self._signer.sign(
                self._presence(online=True)), qos=QOS,
                retain=True)
        elif self._last_status not in resent:
            client.publish(self.status_topic, self._last_status, qos=QOS, retain=True)
        self._connected.set()
        while not conn.lost.is_set():
            self._take_acks(conn)
            if self._stopping.is_set():
                # A clean stop delivers what is waiting, within the deadline: a shoe's last
                # round must not wait in the outbox for the next start.
                late = time.monotonic() >= self._stop_deadline
                if not late:
                    self._fill(client)
                if late or (not self._in_flight and not self._safe_backlog()
                            and not self._mirror_waiting()):
                    self._say_offline(client)
                    return
            else:
                self._fill(client)
            self._wake.wait(POLL_S)
            self._wake.clear()

    def _journaled_status(self) -> bytes | None:
        """The newest status the journal holds that went out with everything before it
        (Journal.settled_status: sent first, it keeps the topic's order; the rows not yet
        delivered follow as ever), or None: none yet, or an outbox that cannot say (a
        test's; a journal it cannot read now)."""
        settled = getattr(self._outbox, "settled_status", None)
        if settled is None:
            return None
        try:
            row = settled()
        except StationError as exc:
            log.warning("upstream: cannot read the last status from the journal (%s); a "
                        "presence status goes instead", exc)
            return None
        return None if row is None else bytes(row.payload)

    def _say_offline(self, client: paho.Client) -> None:
        offline = self._signer.sign(self._presence(online=False))
        info = client.publish(self.status_topic, offline, qos=QOS, retain=True)
        # RuntimeError: the connection went meanwhile, and the broker sends the will instead.
        with contextlib.suppress(RuntimeError):
            info.wait_for_publish(max(0.1, min(1.0, self._stop_deadline - time.monotonic())))
        client.disconnect()

    def _queue_recent(self, client: paho.Client) -> set[bytes]:
        """Send the rows acknowledged just before the lost connection again, first (see
        RESEND_AFTER_LOSS_S); they are delivered already, so their acks mark nothing.
        Returns their payloads."""
        since = time.monotonic() - RESEND_AFTER_LOSS_S - CONNACK_TIMEOUT_S
        rows = [row for acked_at, row in self._recent if acked_at >= since]
        for row in rows:
            self._publish(client, row)
            self._in_flight[row.id] = row
            self._resend.add(row.id)
        if rows:
            log.info("upstream: sending %d message(s) acknowledged just before the lost "
                     "connection again", len(rows))
        return {row.payload for row in rows}

    # --- our thread: the drain ---------------------------------------------------------------

    def _take_acks(self, conn: _Connection) -> None:
        while True:
            try:
                number, mid, ok, reason = self._acks.get_nowait()
            except queue.Empty:
                break
            if number != conn.number:
                continue  # from a connection that is gone; its rows are sent again
            token = self._mirror_of_mid.pop(mid, None)
            if token is not None:
                self._mirror_acked(token, mid, ok, reason)
                continue
            row_id = self._row_of_mid.pop(mid, None)
            if row_id is None:
                continue  # one of our presence messages
            if ok:
                self._acked.add(row_id)
            else:
                # The broker refused it (an MQTT 5 reason code, usually an ACL: an
                # operator's fix). It is not delivered; it goes again after the others.
                log.error("upstream: the broker refused message %d: %s; retrying in %.0f s",
                          row_id, reason, REFUSED_RETRY_S)
                self._last_sent = min(self._last_sent, row_id - 1)
                self._hold_until = time.monotonic() + REFUSED_RETRY_S
        done: list[OutboxRow] = []
        while self._in_flight:
            first = next(iter(self._in_flight))
            if first not in self._acked:
                break
            done.append(self._in_flight.popitem(last=False)[1])
            self._acked.discard(first)
        self._in_flight_count = len(self._in_flight)
        fresh = [row for row in done if row.id not in self._resend]
        self._resend.difference_update(row.id for row in done)
        if not fresh:
            return
        self._outbox.mark_delivered([row.id for row in fresh])
        self.delivered += len(fresh)
        now = time.monotonic()
        self._recent.extend((now, row) for row in fresh)
        while self._recent and self._recent[0][0] < now - RESEND_AFTER_LOSS_S:
            self._recent.popleft()
        for row in fresh:
            if row.topic == STATUS_TOPIC:
                self._last_status = row.payload

    def _fill(self, client: paho.Client) -> None:
        self._fill_outbox(client)
        # The mirror only while no outbox row is in flight, a few records at a time: its
        # reading and signing run on this thread, and must not hold up the PUBACK of the game
        # server's next message (benchmarks/bench_mirror.py measures what is left).
        if self._mirror is not None and not self._in_flight:
            self._fill_mirror(client, self._mirror)

    def _fill_outbox(self, client: paho.Client) -> None:
        free = self._window - len(self._in_flight) - len(self._mirror_of_mid)
        if free <= 0 or time.monotonic() < self._hold_until:
            return
        for row in self._outbox.pending(len(self._in_flight) + free):
            if row.id <= self._last_sent:
                continue
            if not self._publish(client, row):
                break
            self._in_flight[row.id] = row
            self._last_sent = row.id
            free -= 1
            if free == 0:
                break
        self._in_flight_count = len(self._in_flight)

    # --- our thread: the journal's mirror ------------------------------------------------------

    def _mirror_waiting(self) -> bool:
        """Whether a clean stop must still wait for the mirror."""
        if self._mirror is None:
            return False
        try:
            return bool(self._mirror_flight) or self._mirror.pending() > 0
        except StationError:
            return bool(self._mirror_flight)  # unreadable: nothing more to wait for

    def _fill_mirror(self, client: paho.Client, mirror: JournalMirror) -> None:
        # At most half the window: the outbox's messages (the game server's) keep room.
        cap = max(1, self._window // 2)
        free = min(MIRROR_TAKE, cap - len(self._mirror_of_mid),
                   self._window - len(self._in_flight) - len(self._mirror_of_mid))
        if free <= 0 or time.monotonic() < self._mirror_hold_until:
            return
        try:
            if self._mirror_rewind is not None:
                mirror.rewind(self._mirror_rewind)
                self._mirror_rewind = None
            items = mirror.take(free, self._mirror_bytes)
            self._mirror_outage.recovered(-1)
        except StationError as exc:
            # The journal cannot be read for the mirror: the outbox's messages go on; the
            # mirror tries again after a pause. Said once per outage.
            self._mirror_outage.failed(str(exc), -1)
            self._mirror_hold_until = time.monotonic() + REFUSED_RETRY_S
            return
        for item in items:
            self._mirror_token += 1
            mids: set[int] = set()
            for payload in item.payloads:
                info = client.publish(self.journal_topic, payload, qos=QOS)
                if info.rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS,
                                   MQTTErrorCode.MQTT_ERR_NO_CONN):
                    log.error("upstream: paho refused the mirror of journal record %d (%s); "
                              "retrying", item.seq, info.rc)
                    self._mirror_restart()
                    return
                mids.add(info.mid)
                self._mirror_of_mid[info.mid] = self._mirror_token
            self._mirror_flight[self._mirror_token] = (item, mids)

    def _mirror_acked(self, token: int, mid: int, ok: bool, reason: str) -> None:
        entry = self._mirror_flight.get(token)
        if entry is None:
            return
        if not ok:
            log.error("upstream: the broker refused the mirror of journal record %d: %s; "
                      "retrying in %.0f s", entry[0].seq, reason, REFUSED_RETRY_S)
            self._mirror_restart()
            self._mirror_hold_until = time.monotonic() + REFUSED_RETRY_S
            return
        entry[1].discard(mid)
        done: list[MirrorItem] = []
        while self._mirror_flight:
            first_item, left = next(iter(self._mirror_flight.values()))
            if left:
                break
            self._mirror_flight.popitem(last=False)
            done.append(first_item)
        if done and self._mirror is not None:
            self._mirror.acknowledged(done)

    def _mirror_restart(self) -> None:
        """Forget what is in flight and send again from the first item not acknowledged."""
        self._mirror_flight.clear()
        self._mirror_of_mid.clear()
        self._mirror_rewind = False

    def _topic_of(self, row: OutboxRow) -> str:
        return self.status_topic if row.topic == STATUS_TOPIC else self.events_topic

    def _publish(self, client: paho.Client, row: OutboxRow) -> bool:
        info = client.publish(self._topic_of(row), row.payload, qos=QOS,
                              retain=row.topic == STATUS_TOPIC)
        if info.rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_NO_CONN):
            log.error("upstream: paho refused message %d (%s); retrying", row.id, info.rc)
            return False
        self._row_of_mid[info.mid] = row.id
        return True
