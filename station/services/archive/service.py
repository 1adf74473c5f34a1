"""The archive's service: a persistent MQTT 5 session subscribed to ``<prefix>/+/journal``,
a worker that checks and writes what arrives, the broker acknowledged only after the write.

- **Acknowledged after the fsync.** paho runs with ``manual_ack``: a message is acknowledged
  to the broker only when what it carried is committed (or it was refused). A killed archive
  therefore loses nothing: the broker holds the session (``clean_start=False``, session
  expiry ``broker.session_expiry_s``) and sends again what was not acknowledged; the records
  already written are skipped as identical.
- **Acknowledged to the station.** For each journal whose verified end moved, at most every
  ``ACK_EVERY_S``, and at once for a journal another one followed, a signed ``archived``
  command goes to ``<prefix>/<table>/commands`` naming the journal, the last seq on disk
  and its hash.
- **Alerts.** A refused message is logged and published, signed, on
  ``<prefix>/<table>/archive`` (``kind: archive_alert``), at most once per ``ALERT_EVERY_S``
  per table and problem (the count of those not published goes with the next).
"""

from __future__ import annotations

import logging
import os
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import paho.mqtt.client as paho
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from station.client.keys import load_keys
from station.errors import ConfigError
from station.live.service.credentials import service_signer
from station.services.archive.config import ArchiveConfig
from station.services.archive.receiver import (
    DUPLICATE,
    PART,
    PROBLEMS,
    REFUSED,
    WRITTEN,
    Finding,
    Head,
    Receiver,
)
from station.services.archive.stalls import Stall, Stalls
from station.services.broker.client import connect_persistent, service_client
from station.wire.messages import iso_ts
from station.wire.sealing import CREDENTIAL_NAME as SEAL_CREDENTIAL
from station.wire.sealing import Opener, load_mirror_private
from station.wire.signing import Signer

log = logging.getLogger(__name__)

ACK_EVERY_S: Final = 2.0
ALERT_EVERY_S: Final = 30.0
BATCH: Final = 1000  # messages checked per commit at most
RECEIVE_MAX: Final = 2000
KEYS_RELOAD_S: Final = 10.0
ALERT_TOPIC: Final = "archive"
RESEND_EVERY_S: Final = 5.0  # the same gap asked for again after this, then twice as long
RESEND_MAX_S: Final = 600.0  # ... up to this
ASKED_KEPT: Final = 4096  # journals whose last resend is remembered
# Not refusals: the alert that a storage outage is over, and that records arrive late
# (docs/journal.md).
RECOVERED: Final = "recovered"
LAG: Final = "lag"


@dataclass(frozen=True, slots=True)
class _Incoming:
    generation: int  # the connection it came on: an ack goes back on that one only
    mid: int
    qos: int
    topic: str
    payload: bytes


# How long the start waits for the broker before it says READY all the same: a broker down
# at boot must not fail the unit (TimeoutStartSec=) and its restarts, since the archive
# catches up by itself once the broker is back.
READY_WAIT_S = 10.0


class ArchiveService:
    def __init__(self, config: ArchiveConfig, *, clock: Callable[[], float] = time.time
                 ) -> None:
        self.config = config
        self._clock = clock
        self.signer: Signer = archive_signer(config)
        self._keys_loaded = time.monotonic()
        self.receiver = Receiver(config.archive.dir, self._load_keys(), archive_opener(config))
        self._inbox: queue.SimpleQueue[_Incoming | None] = queue.SimpleQueue()
        self._generation = 0
        self._connected = threading.Event()
        self._stopping = threading.Event()
        self._acked: dict[tuple[str, str], int] = {}  # (table, journal) -> seq acknowledged
        self._due: dict[tuple[str, str], Head] = {}
        self._last_ack = 0.0
        self._alerted: dict[tuple[str, str], tuple[float, int]] = {}
        self.written = 0
        self.refused = 0
        self.storage_outages = 0
        self.resends = 0
        self._stalls: Stalls[_Incoming] = Stalls()
        self._partial: dict[str, list[_Incoming]] = {}  # parts of a record not yet whole
        # resend: (table, journal) -> the seq asked for, when, and the wait before again
        self._asked: dict[tuple[str, str], tuple[int, float, float]] = {}
        self.client = self._client()

    # --- set-up ---------------------------------------------------------------------------

    def _load_keys(self) -> dict[str, Any]:
        try:
            return dict(load_keys(self.config.tables.keys_dir))
        except ConfigError as exc:
            raise ConfigError(f"{self.config.path}: tables.keys_dir: {exc}") from exc

    def _client(self) -> paho.Client:
        client = service_client(self.config.broker, self.config.client_id(), self.config.path,
                                manual_ack=True)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        return client

    # --- paho's thread ---------------------------------------------------------------------

    def _on_connect(self, client: paho.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Properties | None) -> None:
        if reason.is_failure:
            log.warning("archive: the broker refused the connection: %s", reason)
            return
        self._generation += 1
        client.subscribe(self.config.broker.topic("+", "journal"), qos=1)
        self._connected.set()
        log.info("archive: connected to %s", self.config.broker.where)

    def _on_disconnect(self, client: paho.Client, userdata: Any, flags: Any,
                       reason: ReasonCode, properties: Properties | None) -> None:
        self._connected.clear()
        self._generation += 1  # acks of the lost connection's messages must not go out
        if not self._stopping.is_set():
            log.warning("archive: lost the broker (%s); reconnecting", reason)

    def _on_message(self, client: paho.Client, userdata: Any,
                    message: paho.MQTTMessage) -> None:
        self._inbox.put(_Incoming(self._generation, message.mid, message.qos, message.topic,
                                  bytes(message.payload)))

    # --- running ---------------------------------------------------------------------------

    def run(self, stop: threading.Event, ready: Callable[[bool], None] | None = None) -> None:
        """Until ``stop`` is set: connect (retrying), take messages, acknowledge. ``ready``
        is called once the session is connected and subscribed (with True), or after
        ``READY_WAIT_S`` without an answer from the broker (False: paho goes on trying, and
        the broker keeps the session's messages for when it does)."""
        # Messages sent to us and not yet acknowledged, at most: bounds what waits in memory
        # (we acknowledge only after writing).
        connect_persistent(self.client, self.config.broker, receive_max=RECEIVE_MAX)
        if ready is not None:
            ready(self._connected.wait(READY_WAIT_S))
        try:
            while not stop.is_set():
                self.step(0.5)
            self.step(0.0)
        finally:
            self._stopping.set()
            self._send_acks(force=True)
            self.client.disconnect()
            self.client.loop_stop()
            self.receiver.close()

    def step(self, wait_s: float) -> None:
        """Take what has arrived (waiting up to ``wait_s`` for the first) and what a table in
        a storage outage held, once its retry is due; write it; then acknowledge to the
        broker exactly what is on disk (with everything before it of its table) or refused
        for good, and, when due, acknowledge to the stations."""
        batch: list[_Incoming] = []
        try:
            first = self._inbox.get(timeout=wait_s) if wait_s > 0 else \
                self._inbox.get_nowait()
            if first is not None:
                batch.append(first)
            while len(batch) < BATCH:
                more = self._inbox.get_nowait()
                if more is not None:
                    batch.append(more)
        except queue.Empty:
            pass
        now = time.monotonic()
        work: list[_Incoming] = []
        for held in self._stalls.due(now).values():
            # Those of a lost connection come again from the broker, which never had
            # their acknowledgement.
            work.extend(i for i in held if i.generation == self._generation)
        work.extend(batch)
        pending: dict[str, list[_Incoming]] = {}  # taken, acknowledged once committed
        for item in work:
            table = self._table_of(item.topic)
            if table in self._stalls:
                self._stalls.hold(table, item)
                continue
            outcome, finding = self._take(table, item)
            if outcome == PART:
                # A part is acknowledged with its record, never before it is written.
                self._partial.setdefault(table, []).append(item)
            elif outcome in (WRITTEN, DUPLICATE):
                pending.setdefault(table, []).extend(self._partial.pop(table, []))
                pending[table].append(item)
            elif finding is not None and finding.problem == "storage":
                self._stall(table, finding, now, [*pending.pop(table, []), item])
            else:
                # Refused for good: nothing to write, so nothing to wait for (a gap is
                # asked for again from the station, and the parts before it are void).
                self._ack([*self._partial.pop(table, []), item])
        heads, failed = self.receiver.commit()
        for finding in failed:
            self._stall(finding.table, finding, now, pending.pop(finding.table, []))
        for items in pending.values():
            self._ack(items)
        for table, stall in self._stalls.recovered():
            self._recovered(table, stall, now)
        self._lag(pending)
        for head in heads:
            self._due[(head.table, head.journal)] = head
        for head in self.receiver.ended:
            self._send_ack(head)
        self.receiver.ended.clear()
        self._send_acks(force=False)

    def _ack(self, items: list[_Incoming]) -> None:
        for item in items:
            if item.generation == self._generation and item.qos > 0:
                self.client.ack(item.mid, item.qos)

    def _stall(self, table: str, finding: Finding, now: float,
               items: list[_Incoming]) -> None:
        """``table``'s records could not be written: hold them (and the parts of a record
        not complete) and what follows, unacknowledged, to try again after a backoff."""
        self.receiver.forget(table)
        held = [*items, *self._partial.pop(table, [])]
        if self._stalls.failed(table, finding.detail, now, held):
            self.storage_outages += 1
            log.error("archive: table %s: cannot write (%s); its messages are held, not "
                      "acknowledged, and written when the disk takes them", table,
                      finding.detail)
            self._alert(finding, once=True)

    def _recovered(self, table: str, stall: Stall[_Incoming], now: float) -> None:
        took = now - stall.since
        detail = (f"writing again after {took:.1f} s ({stall.tries} tries); the records "
                  "held meanwhile are written")
        log.warning("archive: table %s: %s", table, detail)
        self._alert(Finding(table, RECOVERED, detail), once=True)

    def _lag(self, written: dict[str, list[_Incoming]]) -> None:
        """A table whose newest record written is older than ``archive.max_lag_s`` on the
        archive's clock: its mirror is behind (alerted as any problem, once per 30 s)."""
        wall_now = self._clock()
        limit = self.config.archive.max_lag_s
        for table in written:
            last = self.receiver.written_wall.get(table)
            if last is not None and wall_now - last[1] > limit:
                self._alert(Finding(table, LAG, f"record {last[0]} arrived "
                                    f"{wall_now - last[1]:.0f} s after it was journaled, "
                                    f"more than archive.max_lag_s ({limit:g} s)"))
        self.receiver.written_wall.clear()

    def _table_of(self, topic: str) -> str:
        prefix = self.config.broker.prefix + "/"
        rest = topic[len(prefix):] if topic.startswith(prefix) else topic
        return rest.rsplit("/", 1)[0]

    def _take(self, table: str, item: _Incoming) -> tuple[str, Finding | None]:
        """Check and queue one message: the receiver's outcome. A refusal is alerted
        (a storage failure by the caller, once per outage) and a gap asked for again."""
        if table not in self.receiver.keys and \
                time.monotonic() - self._keys_loaded > KEYS_RELOAD_S:
            self._keys_loaded = time.monotonic()
            try:
                self.receiver.keys = self._load_keys()
            except ConfigError as exc:
                log.error("archive: %s", exc)
        outcome, finding = self.receiver.take(table, item.payload)
        if outcome == WRITTEN:
            self.written += 1
        elif outcome == REFUSED and finding is not None and finding.problem != "storage":
            self.refused += 1
            self._alert(finding)
            if finding.problem == "gap" and finding.journal is not None and \
                    finding.missing is not None:
                self._resend(table, finding.journal, finding.missing)
        return outcome, finding

    # --- acknowledgements and alerts ---------------------------------------------------------

    def _send_acks(self, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self._last_ack < ACK_EVERY_S:
            return
        self._last_ack = now
        for head in list(self._due.values()):
            self._send_ack(head)

    def _send_ack(self, head: Head) -> None:
        key = (head.table, head.journal)
        if self._acked.get(key, -1) >= head.seq or head.seq < 1:
            self._due.pop(key, None)
            return
        name = self.config.archive.name
        command = self.signer.sign({
            "v": 1, "id": f"{name}:{head.journal[:16]}:{head.seq}:{secrets.token_hex(4)}",
            "table": head.table, "ts": iso_ts(self._clock()), "action": "archived",
            "actor": name, "journal": head.journal, "seq": head.seq, "head": head.head})
        info = self.client.publish(self.config.broker.topic(head.table, "commands"), command,
                                   qos=1)
        if info.rc == paho.MQTT_ERR_SUCCESS:
            self._acked[key] = head.seq
            self._due.pop(key, None)

    def _alert(self, finding: Finding, *, once: bool = False) -> None:
        """Log and publish a refusal, at most once per ``ALERT_EVERY_S`` per table and
        problem (the others counted in the next); ``once``: the caller says it once (the
        start and the end of a storage outage), so it always goes."""
        key = (finding.table, finding.problem)
        now = time.monotonic()
        last, held = self._alerted.get(key, (-ALERT_EVERY_S, 0))
        if not once and now - last < ALERT_EVERY_S:
            self._alerted[key] = (last, held + 1)
            return
        if not once:
            # The refusals in between are summed in this line and the alert's count.
            what = f"refused ({finding.problem})" if finding.problem in PROBLEMS else \
                finding.problem  # lag: not a refusal
            log.warning("archive: table %s: %s: %s%s", finding.table, what, finding.detail,
                        f" (and {held} more since the last said)" if held else "")
        self._alerted[key] = (now, 0)
        alert = self.signer.sign({
            "v": 1, "kind": "archive_alert", "table": finding.table,
            "ts": iso_ts(self._clock()), "archive": self.config.archive.name,
            "problem": finding.problem, "detail": finding.detail[:500],
            "journal": finding.journal, "seq": finding.seq, "not_published": held})
        self.client.publish(self.config.broker.topic(finding.table, ALERT_TOPIC), alert, qos=1)

    def _resend(self, table: str, journal: str, seq: int) -> None:
        """Ask the station for journal ``journal`` again from record ``seq`` (a signed
        ``resend``, its key the one the station trusts for ``archived``): the gap heals
        with no one deleting a mark. The same gap again after ``RESEND_EVERY_S``, then after
        twice as long each time, up to ``RESEND_MAX_S``."""
        key = (table, journal)
        now = time.monotonic()
        asked = self._asked.get(key)
        wait = RESEND_EVERY_S
        if asked is not None and asked[0] == seq:
            if now - asked[1] < asked[2]:
                return
            # Asked before and still missing (a station that no longer holds it refuses,
            # and alerts, each time): ask again less and less often.
            wait = min(RESEND_MAX_S, asked[2] * 2)
        self._asked.pop(key, None)
        self._asked[key] = (seq, now, wait)
        while len(self._asked) > ASKED_KEPT:
            del self._asked[next(iter(self._asked))]
        name = self.config.archive.name
        command = self.signer.sign({
            "v": 1, "id": f"{name}:{journal[:16]}:resend:{seq}:{secrets.token_hex(4)}",
            "table": table, "ts": iso_ts(self._clock()), "action": "resend", "actor": name,
            "journal": journal, "seq": seq})
        self.client.publish(self.config.broker.topic(table, "commands"), command, qos=1)
        self.resends += 1
        log.info("archive: table %s: asked for journal %s again from record %d", table,
                 journal[:16], seq)

    @property
    def connected(self) -> bool:
        return self._connected.is_set()


def archive_signer(config: ArchiveConfig) -> Signer:
    return service_signer(config.path, "archive.signing_key_file",
                          config.archive.signing_key_file, "archive", "station archive --check")


def archive_opener(config: ArchiveConfig) -> Opener | None:
    """The archive's mirror key: ``archive.mirror_key_file``, else the unit's credential
    ``mirror-key`` when systemd passed one; None without either (sealed records are then
    refused and alerted, problem ``sealed``). Raises ConfigError for a key that is named
    and cannot be used."""
    path = config.archive.mirror_key_file
    if path is None:
        folder = os.environ.get("CREDENTIALS_DIRECTORY")
        found = Path(folder) / SEAL_CREDENTIAL if folder else None
        if found is None or not found.exists():
            return None
        path = found
    try:
        return load_mirror_private(path)
    except ConfigError as exc:
        raise ConfigError(f"{config.path}: archive.mirror_key_file: {exc}") from exc


def archive_dirs_ok(root: Path) -> None:
    """Make the archive's folder; raises ConfigError when it cannot be."""
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"archive.dir {root}: cannot create it ({exc.strerror}); make it "
                          "writable by the archive's user") from exc
