"""The pit's picture of the floor: every trusted table's folded state (station.client), what
the tiles add to it (last seen, lag, the shoe's results, the cards of the round in play),
the alerts, and the commands sent with their answers.

No I/O: the service feeds it each payload with the time it arrived, and passes a
``Recorder`` (the journal) for what must be written. It is used from one thread (the
service's event loop).
"""

from __future__ import annotations

import re
from collections import OrderedDict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Protocol

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from station.client import (
    Applied,
    BadSignature,
    Finding,
    Floor,
    Gap,
    RewrittenHistory,
    SchemaFailure,
    TableState,
    UnknownTable,
    Unreadable,
)
from station.services.pit.alerts import SHUFFLE_WAITING, SIGN_IN_FAILURES, Alert, AlertBook
from station.services.pit.archivealerts import CLEARS, read_alert
from station.services.pit.views import TableLog
from station.wire.ratelimit import Budget

ACTIONS_KEPT: Final = 20  # per table, for its page
PENDING_MAX: Final = 1000  # commands waiting for their answer
UNTRUSTED_BURST: Final = 20
UNTRUSTED_PER_S: Final = 1.0
_NAMED: Final = re.compile(r"\[([^\[\]]{1,128})\]")
SHUFFLE_CHECK: Final = "shuffle_check"  # the status's phase while the check is due


class Recorder(Protocol):
    """What the model has journaled (station.services.pit.journal.PitJournal)."""

    def seen(self, at: str, table: str, kind: str, *, seq: int | None, key: str,
             body: str) -> None: ...

    def alert(self, alert_id: int, table: str, kind: str, *, detail: str, by: str | None,
              raised_at: str) -> None: ...

    def alert_detail(self, alert_id: int, detail: str) -> None: ...

    def cleared(self, alert_id: int, at: str) -> None: ...

    def answered(self, cid: str, state: str, detail: str | None, at: str) -> None: ...


@dataclass(slots=True)
class Action:
    """A command the pit sent, and what the table answered."""

    id: str
    table: str
    action: str
    by: str  # the pit boss
    at: str
    reason: str | None = None
    note: str | None = None
    state: str = "sent"  # sent, applied or refused
    detail: str | None = None

    def json(self) -> dict[str, Any]:
        return {"id": self.id, "table": self.table, "action": self.action, "by": self.by,
                "state": self.state, "detail": self.detail}


@dataclass(slots=True)
class Extra:
    """What a tile shows beyond the client library's state."""

    last_seen: str | None = None
    lag_s: float | None = None
    # The shoe's results and roads, the round's cards, the phase a pause came from: the
    # table page's (station.services.pit.views).
    log: TableLog = field(default_factory=TableLog)
    actions: deque[Action] = field(default_factory=lambda: deque(maxlen=ACTIONS_KEPT))


def epoch_of(ts: object) -> float | None:
    if not isinstance(ts, str) or len(ts) > 40:
        return None
    try:
        when = datetime.fromisoformat(ts)
    except ValueError:
        return None
    return when.timestamp() if when.tzinfo is not None else None


def named_ids(m: Mapping[str, Any]) -> list[str]:
    """The command ids a message says it acted on: ``[<id>]`` in ``by``, ``voided_by``,
    ``raised_by`` or a shuffle's ``confirmed_by`` (docs/upstream.md)."""
    texts = [m.get("by"), m.get("voided_by"), m.get("raised_by")]
    shuffle = m.get("shuffle")
    if isinstance(shuffle, dict):
        texts.append(shuffle.get("confirmed_by"))
    return [i for t in texts if isinstance(t, str) for i in _NAMED.findall(t)]


ARCHIVE_SUFFIX: Final = "/archive"  # <prefix>/<table>/archive: the archive's alerts


class PitModel:
    def __init__(self, floor: Floor, recorder: Recorder, *, first_alert_id: int = 1,
                 archive_key: Ed25519PublicKey | None = None) -> None:
        self.floor = floor
        self.archive_key = archive_key  # pit.archive_key_file's: the archive's alerts
        self.recorder = recorder
        self.alerts = AlertBook(first_alert_id)
        self.extra: dict[str, Extra] = {t: Extra() for t in floor.tables}
        self.pending: OrderedDict[str, Action] = OrderedDict()
        # Resumes and voids taken for applied because the pause cleared: a refusal that
        # comes after still corrects them.
        self.inferred: OrderedDict[str, Action] = OrderedDict()
        self.changed: set[str] = set()  # tables whose tile or page changed since the last take
        self.messages = 0
        self.problems = 0
        # New alerts about tables the pit does not trust, per kind: 20 at once, then one a
        # second; past that they are counted in the newest.
        self.untrusted = Budget(burst=UNTRUSTED_BURST, rate_per_s=UNTRUSTED_PER_S)

    # --- tables -----------------------------------------------------------------------------
    def tables(self) -> list[str]:
        return sorted(self.floor.tables)

    def state(self, table: str) -> TableState:
        return self.floor.state(table)

    def trust(self, table: str, key: Any, at: str) -> bool:
        """A key found after the start; True when the table is new. Its messages are
        taken from now on, and its unknown_table alerts are over."""
        if table in self.floor.tables:
            return False
        self.floor.add(table, key)
        self.extra[table] = Extra()
        self._clear(table, "unknown_table", at)
        self.changed.add(table)
        return True

    # --- the stream -------------------------------------------------------------------------
    def ingest(self, topic: str, payload: bytes, at: str, received: float,
               retained: bool = False) -> None:
        """One payload as it came off the broker at ``at`` (ISO) / ``received`` (epoch s)."""
        self.messages += 1
        if topic.endswith(ARCHIVE_SUFFIX) and self.archive_key is not None:
            self._archive(topic, payload, at, received)
            return
        for finding in self.floor.feed(topic, payload):
            self._finding(finding, topic, payload, at, received=received, retained=retained)

    def _finding(self, f: Finding, topic: str, payload: bytes, at: str, *, received: float,
                 retained: bool) -> None:
        match f:
            case Applied():
                self._applied(f, payload, at, received, retained)
            case Gap():
                self._problem(f.table, "gap", f.detail, at, received)
            case BadSignature():
                what = f"message {f.key}" if f.key else "a message with no key"
                self._problem(f.table, "bad_signature", f"{what}: {f.detail}", at, received)
            case UnknownTable():
                self._problem(f.table, "unknown_table", f.detail, at, received)
            case SchemaFailure():
                self._problem(f.table, "schema", f"{f.key or 'a message'}: {f.detail}", at,
                              received)
            case RewrittenHistory():
                # The message was applied (the client library folds it all the same); the
                # alert only says its history is suspect, like a bad signature's, and no
                # tile's field comes from it.
                self._problem(f.table, "rewritten_history", f"{f.key}: {f.detail}", at,
                              received)
            case Unreadable():
                parts = topic.split("/")
                table = parts[-2] if len(parts) >= 2 else topic
                self._problem(table, "schema", f"on {topic[:200]!r}: {f.detail}", at, received)

    def _archive(self, topic: str, payload: bytes, at: str, received: float) -> None:
        """An alert of the archive's (station.services.pit.archivealerts): raised on its
        table; one that does not verify is the table's ``schema`` problem, like any."""
        assert self.archive_key is not None
        parts = topic.split("/")
        table = parts[-2] if len(parts) >= 2 else topic
        got = read_alert(table, payload, self.archive_key)
        if isinstance(got, str):
            self._problem(table, "schema", f"on {topic[:200]!r}: {got}", at, received)
            return
        if table not in self.floor.tables:
            self._problem(table, "unknown_table", f"no public key for table {table!r}: not "
                          "trusted", at, received)
            return
        for kind in CLEARS.get(got.kind, ()):
            self._clear(table, kind, at)
        self._raise(table, got.kind, got.detail, f"archive {got.archive}", at)

    def _problem(self, table: str, kind: str, detail: str, at: str, received: float) -> None:
        self.problems += 1
        if table not in self.floor.tables and self.untrusted.take(kind, received):
            # Names no trusted table, over the budget: whoever can publish could otherwise
            # make an alert per made-up table name. Counted in the newest such alert.
            newest = self.alerts.newest(kind)
            if newest is not None:
                self.alerts.count(newest)
                self.recorder.alert_detail(newest.id, newest.detail)
                return
        self._raise(table, kind, detail, None, at)

    def _applied(self, f: Applied, payload: bytes, at: str, received: float,
                 retained: bool) -> None:
        m = f.message
        own = payload if m.get("key") == f.key and _same(payload, f.key) else None
        body = own.decode("utf-8", "replace") if own is not None else orjson.dumps(m).decode()
        self.recorder.seen(at, f.table, f.kind, seq=f.seq, key=f.key, body=body)
        extra = self.extra.setdefault(f.table, Extra())
        extra.last_seen = at
        sent = epoch_of(m.get("ts"))
        if sent is not None and not retained and "seq" in m:
            extra.lag_s = round(max(0.0, received - sent), 3)
        self.changed.add(f.table)
        self._tile_extras(extra, m)
        self._answers(f.table, m, at)
        self._alerts_of(f.table, m, at)

    @staticmethod
    def _tile_extras(extra: Extra, m: Mapping[str, Any]) -> None:
        extra.log.add(m)

    def _alerts_of(self, table: str, m: Mapping[str, Any], at: str) -> None:
        kind = m.get("kind")
        if kind == "pause":
            self._pause(table, str(m.get("reason")), m.get("raised_by"), at)
        elif kind == "resume" or (kind == "round" and m.get("status") == "void"):
            self._clear(table, "pause", at)
        elif kind == "status":
            if m.get("online") is False:
                self._raise(table, "offline", "the table's station is offline (its last "
                            "will, or a clean stop)", None, at)
            else:
                self._clear(table, "offline", at)
            if "seq" in m:
                if m.get("paused"):
                    self._pause(table, str(m["paused"]), None, at, only_if_none=True)
                else:
                    self._clear(table, "pause", at)
                self._shuffle_check(table, m.get("phase"), at)
        elif kind == "alert":
            self._raise(table, str(m.get("alert")), str(m.get("detail")), m.get("by"), at)
        elif kind == "config_changed":
            self._raise(table, "config_changed", config_detail(m), None, at)
        elif kind == "dealer" and m.get("request_closed"):
            self._clear(table, "dealer_requested", at)

    def _shuffle_check(self, table: str, phase: object, at: str) -> None:
        """A table in the shuffle check waits for a supervisor's confirmation (the pit
        boss's CONFIRM SHUFFLE): nothing else moves it on, so it is an alert from the status
        that says so to the first that says another phase (a pause during the check keeps
        it: the check is still due after the resume)."""
        if phase == SHUFFLE_CHECK:
            if not self.alerts.uncleared(table, SHUFFLE_WAITING):
                self._raise(table, SHUFFLE_WAITING, "the shuffle check waits for a "
                            "supervisor's confirmation (CONFIRM SHUFFLE)", None, at)
        elif phase != "paused":
            self._clear(table, SHUFFLE_WAITING, at)

    def _pause(self, table: str, reason: str, by: object, at: str,
               only_if_none: bool = False) -> None:
        by_ = by if isinstance(by, str) else None
        open_ = self.alerts.open_for(table, "pause")
        if open_ is None:
            self._raise(table, "pause", reason, by_, at)
        elif not only_if_none and (open_.detail != reason or (by_ and open_.by != by_)):
            self.alerts.update(open_, reason, by_ or open_.by)
            self.recorder.alert_detail(open_.id, open_.detail)

    def _raise(self, table: str, kind: str, detail: str, by: str | None, at: str) -> Alert:
        before = len(self.alerts.raised)
        alert = self.alerts.raise_(table, kind, detail, by, at)
        if len(self.alerts.raised) > before:
            self.recorder.alert(alert.id, alert.table, alert.kind, detail=alert.detail,
                                by=alert.by, raised_at=at)
        else:
            self.recorder.alert_detail(alert.id, alert.detail)
        if table in self.floor.tables:
            self.changed.add(table)
        return alert

    def _clear(self, table: str, kind: str, at: str) -> None:
        for alert in self.alerts.clear(table, kind, at):
            self.recorder.cleared(alert.id, at)
            self.changed.add(table)

    def sign_in_failures(self, pit: str, name: str, source: str, *, failures: int,
                         lock_s: float, at: str) -> Alert:
        """An account locked out: one open alert per account, its count and addresses
        growing with each lockout while it is open (docs/pit.md, sign_in_failures)."""
        head = f"{name}: "
        open_ = next((a for a in reversed(list(self.alerts)) if a.kind == SIGN_IN_FAILURES
                      and a.open and a.detail.startswith(head)), None)
        if open_ is None:
            return self._raise(pit, SIGN_IN_FAILURES, f"{head}{failures} wrong PINs in a row "
                               f"from {source}; locked {lock_s:.0f} s", None, at)
        parts = open_.detail.removeprefix(head).split(" wrong PINs in a row from ", 1)
        total = int(parts[0]) + failures if parts[0].isdigit() else failures
        sources = parts[1].rsplit("; locked ", 1)[0].split(", ") if len(parts) == 2 else []
        if source not in sources:
            sources = [*sources, source][-5:]
        self.alerts.update(open_, f"{head}{total} wrong PINs in a row from "
                           f"{', '.join(sources)}; locked {lock_s:.0f} s", None)
        self.recorder.alert_detail(open_.id, open_.detail)
        return open_

    def ack(self, alert: Alert, by: str, at: str) -> None:
        self.alerts.ack(alert, by, at)
        if alert.table in self.floor.tables:
            self.changed.add(alert.table)

    # --- commands ---------------------------------------------------------------------------
    def sent(self, action: Action) -> None:
        self.pending[action.id] = action
        while len(self.pending) > PENDING_MAX:
            self.pending.popitem(last=False)  # its answer still goes to the journal's row
        self.extra.setdefault(action.table, Extra()).actions.append(action)
        self.changed.add(action.table)

    def _answers(self, table: str, m: Mapping[str, Any], at: str) -> None:
        if not self.pending and not self.inferred:
            return
        kind = m.get("kind")
        if kind == "command_refused":
            cid = m.get("command_id")
            if isinstance(cid, str):
                detail = f"{m.get('reason')}: {m.get('detail')}"
                guessed = self.inferred.pop(cid, None)
                if guessed is not None and guessed.table == table:
                    # Taken for applied when the pause cleared, but someone else cleared it.
                    self.pending[cid] = guessed
                self._answer(cid, table, "refused", detail, at)
            return
        for cid in named_ids(m):
            guessed = self.inferred.pop(cid, None)
            if guessed is not None and guessed.table == table:
                # Taken for applied when the table's status (on its own topic, which may
                # come first) cleared the pause: the message naming it says what was done.
                self.pending[cid] = guessed
            self._answer(cid, table, "applied", _what(m), at)
        if kind == "status" and "seq" in m and m.get("paused") is None \
                and self.alerts.uncleared(table, "pause"):
            # A void between rounds (a card not due set aside, no round in play) leaves no
            # message naming the command: only the pause cleared in the table's status.
            for a in [a for a in self.pending.values()
                      if a.table == table and a.action in ("resume", "void")]:
                self._answer(a.id, table, "applied", "the pause cleared (no message of the "
                             "table names the command)", at)
                self.inferred[a.id] = a
                while len(self.inferred) > PENDING_MAX:
                    self.inferred.popitem(last=False)
        if kind == "shoe_ended" and m.get("reason") == "upstream":
            # No id on a shoe_ended: the oldest close_shoe of this table waiting is its cause.
            cid = next((a.id for a in self.pending.values()
                        if a.table == table and a.action == "close_shoe"), None)
            if cid is not None:
                self._answer(cid, table, "applied", f"shoe ended after {m.get('rounds')} "
                             "rounds", at)

    def _answer(self, cid: str, table: str, state: str, detail: str | None, at: str) -> None:
        action = self.pending.get(cid)
        if action is None or action.table != table:
            return
        del self.pending[cid]
        action.state, action.detail = state, detail
        self.recorder.answered(cid, state, detail, at)
        self.changed.add(table)

    def take_changed(self) -> set[str]:
        changed, self.changed = self.changed, set()
        return changed


def config_detail(m: Mapping[str, Any]) -> str:
    """A ``config_changed`` message in one sentence naming what changed (never a value: the
    message has none), station.services.pit.words translates it."""
    keys = [k for k in m.get("keys") or [] if isinstance(k, str)]
    old, new = m.get("old"), m.get("new")
    parts = []
    if keys:
        parts.append("keys " + ", ".join(keys[:20]) + (" ..." if len(keys) > 20 else ""))
    if isinstance(old, Mapping) and isinstance(new, Mapping) \
            and old.get("paytable") != new.get("paytable"):
        parts.append("the paytable")
    if not parts:
        parts.append("the config file (no key's value)")
    said = "started with another config: " + " and ".join(parts) + " changed"
    if m.get("previous_journal"):
        said += "; a new journal"
    return said


def _what(m: Mapping[str, Any]) -> str:
    """What the table did, in the pit's words (station.services.pit.words translates them):
    the record of the floor names the deed, never only the kind of the message that said
    so (a void between rounds comes as a ``resume`` with ``action: void``)."""
    kind = m.get("kind")
    if kind == "resume":
        if m.get("action") == "void":
            return "voided: no round in play; the pause ended and the table goes on"
        return "resumed"
    if kind == "round":
        return f"round {m.get('round')} void ({m.get('void_reason')})"
    if kind == "shoe_started":
        return f"shuffle confirmed; shoe {m.get('shoe')} started"
    if kind == "pause":
        return f"paused: {m.get('reason')}"
    return str(kind)


def _same(payload: bytes, key: str) -> bool:
    # The payload is this message's when its key is in it (a held message released by a
    # later one would not be).
    return key.encode("utf-8") in payload
