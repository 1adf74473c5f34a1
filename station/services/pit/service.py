"""The pit service's core on one asyncio loop: the broker's messages into the model (in
batches), the model's changes out to the pages (``tables`` at most every 200 ms, an
``alert`` as soon as one is raised, ``table`` per table changed), the tables' keys picked up
while running, and the pit bosses' actions signed, published and tracked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from station.client import Floor, load_keys, schema_validator
from station.client.keys import table_of
from station.errors import ConfigError
from station.services.pit import views
from station.services.pit.alerts import Alert
from station.services.pit.broker import PitBroker
from station.services.pit.commands import command, new_id
from station.services.pit.feed import Feed
from station.services.pit.journal import PitJournal
from station.services.pit.model import Action, PitModel
from station.services.pit.settings import KEYS_RESCAN_S, PitConfig
from station.web.accounts import Outcome
from station.wire.signing import Signer, load_public_key

log = logging.getLogger(__name__)

TABLES_EVERY_S: Final = 0.2  # the floor's SSE at most this often
ANSWER_WAIT_S: Final = 3.0  # how long a command's request waits for the table's answer


def now_iso() -> str:
    return iso_of(time.time())


def iso_of(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")


class PitService:
    def __init__(self, config: PitConfig, signer: Signer) -> None:
        self.config = config
        self.signer = signer
        keys = load_keys(config.keys_dir)
        self.journal = PitJournal(config.pit.journal)
        floor = Floor(keys, validate=schema_validator())
        archive_key = (None if config.pit.archive_key_file is None
                       else load_public_key(config.pit.archive_key_file))
        self.model = PitModel(floor, self.journal, first_alert_id=self.journal.next_alert_id(),
                              archive_key=archive_key)
        self.feed = Feed()
        self._bad_keys: dict[Path, float] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake_pending = False
        self._inbox = asyncio.Event()
        self._dirty = asyncio.Event()
        self._tiles = b""
        # The link the pages last heard of: a change of it alone is news to the floor.
        self._link_told: tuple[bool, str | None] = (True, None)
        self.broker = PitBroker(config, self._wake, self._link_changed)

    # --- life -------------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event, rescan: asyncio.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self.broker.start()
        tasks = [asyncio.create_task(self._drain()), asyncio.create_task(self._tick()),
                 asyncio.create_task(self._keys(rescan))]
        try:
            await stop.wait()
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            self.broker.stop()
            self._take_batch()

    def close(self) -> None:
        """After the pages stopped: nothing writes to the journal any more."""
        self.journal.close()

    def _link_changed(self) -> None:
        """From paho's thread: the pages hear at once that the pit lost (or has) the broker."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self.poke)

    def link(self) -> views.Link:
        """The pit's own link to the broker, for the floor's banner and its stale tiles."""
        lost = self.broker.lost_since
        return views.Link(lost is None, None if lost is None else iso_of(lost),
                          float(self.config.broker.keepalive_s),
                          lost is not None and time.time() - lost > self.config.broker.keepalive_s)

    def _wake(self) -> None:
        """From paho's thread: wake the loop once per burst."""
        loop = self._loop
        if loop is None or self._wake_pending:
            return
        self._wake_pending = True
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._inbox.set)

    async def _drain(self) -> None:
        while True:
            await self._inbox.wait()
            self._inbox.clear()
            self._wake_pending = False
            while self._take_batch():
                await asyncio.sleep(0)  # let the pages be served between batches

    def _take_batch(self) -> bool:
        batch = self.broker.take()
        if not batch:
            return False
        for topic, payload, retained, received in batch:
            at = datetime.fromtimestamp(received, UTC).isoformat(
                timespec="milliseconds").replace("+00:00", "Z")
            self.model.ingest(topic, payload, at, received, retained)
        self.journal.commit()
        self._push_alerts()
        self.poke()
        return True

    def _push_alerts(self) -> None:
        raised, _ = self.model.alerts.take()
        for alert in raised:
            self.feed.push("alert", orjson.dumps(alert.json()))

    def poke(self) -> None:
        """Something changed: the pages hear of it at once, or TABLES_EVERY_S after the
        last time they did, whichever is later."""
        self._dirty.set()

    async def _tick(self) -> None:
        last = 0.0
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            wait = last + TABLES_EVERY_S - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._dirty.clear()  # what came meanwhile goes out now too
            last = time.monotonic()
            self.publish_changes()

    def publish_changes(self) -> None:
        changed = self.model.take_changed()
        link = self.link()
        told = (link.connected, link.lost_since)
        # The broker lost or back is news to the floor even when no table moved (a quiet
        # floor's banner would stay up after the broker came back).
        if not changed and told == self._link_told:
            return
        body = views.tables_body(self.model, self.config.pit.name, now_iso(), link)
        tiles = orjson.dumps(body["tables"])
        if tiles != self._tiles or told != self._link_told:
            self._tiles, self._link_told = tiles, told
            self.feed.push("tables", orjson.dumps(body))
        for table in sorted(changed):
            self.feed.push("table", orjson.dumps({"table": table}))

    async def _keys(self, rescan: asyncio.Event) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(rescan.wait(), KEYS_RESCAN_S)
            rescan.clear()
            self.rescan_keys()

    def rescan_keys(self) -> list[str]:
        """Trust the tables whose key files appeared in keys_dir; a file that cannot be read
        is logged once (until it changes) and skipped. A table already trusted keeps its key
        (a changed key needs a restart: docs/pit.md)."""
        added: list[str] = []
        try:
            paths = sorted(self.config.keys_dir.iterdir())
        except OSError as exc:
            log.warning("pit: tables.keys_dir %s: %s", self.config.keys_dir, exc.strerror)
            return added
        for path in paths:
            table = table_of(path)
            if table is None or table in self.model.floor.tables:
                continue
            stamp = 0.0
            try:
                stamp = path.stat().st_mtime
                if self._bad_keys.get(path) == stamp:
                    continue
                key: Ed25519PublicKey = load_public_key(path)
            except (ConfigError, OSError) as exc:
                self._bad_keys[path] = stamp
                log.warning("pit: %s: not trusted (%s)", path, exc)
                continue
            if self.model.trust(table, key, now_iso()):
                added.append(table)
        if added:
            self.poke()
            log.info("pit: trusting %s (new keys in %s)", ", ".join(added),
                     self.config.keys_dir)
            self.broker.resubscribe()
        return added

    # --- actions ----------------------------------------------------------------------------
    def send(self, table: str, action: str, boss: str, reason: str | None,
             note: str | None) -> Action | None:
        """Sign, journal and publish one command; None when the broker is not reachable
        (nothing sent, nothing journaled as sent)."""
        if not self.broker.connected:
            return None
        at = now_iso()
        cid = new_id(self.config.pit.name)
        payload = self.signer.sign(command(cid, table, action, actor=boss, ts=at, reason=reason,
                                           note=note))
        self.journal.action(cid, at, table, action, by=boss, reason=reason, note=note,
                            payload=payload.decode())
        act = Action(cid, table, action, boss, at, reason, note)
        self.model.sent(act)
        self.poke()
        if not self.broker.publish(self.config.command_topic(table), payload):
            act.state, act.detail = "refused", "not sent: the broker connection was lost"
            self.model.pending.pop(cid, None)
            self.journal.answered(cid, act.state, act.detail, now_iso())
            self.journal.commit()
        elif self._loop is not None:
            self._loop.call_later(self.config.pit.answer_timeout_s, self._unanswered, act)
        return act

    def _unanswered(self, act: Action) -> None:
        """The table did not answer within pit.answer_timeout_s: said on the pages and in the
        journal. The command stays pending: an answer that comes later still fills it in."""
        if act.state != "sent":
            return
        act.state = views.UNANSWERED
        act.detail = views.no_answer_detail(self.config.pit.answer_timeout_s)
        self.journal.answered(act.id, act.state, act.detail, now_iso())
        self.journal.commit()
        self.model.changed.add(act.table)
        self.poke()

    def not_sent(self, table: str, action: str, boss: str, reason: str | None,
                 note: str | None) -> Action:
        """A command to a table that is offline: journaled as asked and answered at once,
        nothing signed or published (a station that comes back must not find a pit boss's
        stale command waiting for it)."""
        at = now_iso()
        cid = new_id(self.config.pit.name)
        self.journal.action(cid, at, table, action, by=boss, reason=reason, note=note,
                            payload="")
        act = Action(cid, table, action, boss, at, reason, note, state=views.NOT_SENT,
                     detail=views.OFFLINE_DETAIL)
        self.journal.answered(cid, act.state, act.detail, at)
        self.journal.commit()
        self.model.extra[table].actions.append(act)
        self.model.changed.add(table)
        self.poke()
        return act

    async def answer(self, act: Action) -> Action:
        deadline = time.monotonic() + ANSWER_WAIT_S
        while act.state == "sent" and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return act

    def ack(self, alert: Alert, boss: str) -> None:
        at = now_iso()
        self.model.ack(alert, boss, at)
        self.journal.ack(alert.id, boss, at)
        self.poke()

    def ack_kind(self, kind: str, boss: str) -> list[Alert]:
        """Every open alert of ``kind`` on every table acknowledged by ``boss`` (the clock on
        20 tables is one acknowledgement, not 20), journaled one row per alert; the alerts
        acknowledged, oldest first (none: nothing was open)."""
        at = now_iso()
        done = [a for a in self.model.alerts if a.kind == kind and a.open]
        for alert in done:
            self.model.ack(alert, boss, at)
        if done:
            self.journal.acks([a.id for a in done], boss, at)
            self.poke()
        return done

    def dealer_change(self, table: str, boss: str, dealer: str | None,
                      note: str | None) -> dict[str, Any]:
        at = now_iso()
        row = self.journal.dealer_change(at, table, boss, dealer, note)
        detail = "; ".join(x for x in (f"dealer {dealer}" if dealer else "", note or "") if x)
        act = Action(f"dealer-change-{row}", table, "dealer_change", boss, at, state="noted",
                     detail=detail)
        self.model.extra[table].actions.append(act)
        self.model.changed.add(table)
        self.poke()
        return {"id": row, "table": table, "by": boss, "dealer": dealer, "note": note, "at": at}

    def sign_in(self, got: Outcome, source: str, what: str) -> None:
        """Journal a sign-in's outcome; a lockout it started is journaled too (verdict
        ``lockout``) and raises or counts the account's ``sign_in_failures`` alert."""
        at = now_iso()
        self.journal.sign_in(at, got.name, source, what, got.verdict)
        if got.lock_s:
            self.journal.sign_in(at, got.name, source, f"locked {got.lock_s:.0f} s after "
                                 f"{got.failures} wrong PINs in a row", "lockout")
            self.model.sign_in_failures(self.config.pit.name, got.name, source,
                                        failures=got.failures, lock_s=got.lock_s, at=at)
            self.journal.commit()
            self._push_alerts()
            self.poke()
