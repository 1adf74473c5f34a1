"""The pit's alerts: what needs a pit boss, raised from what the tables send and from what is
wrong with their streams, with who acknowledged each (pure: the caller journals).

Kinds (``KINDS``: the station's, declared in ``station.wire.alerts``, and the pit's own,
``PIT_ALERTS``, each with its urgency and words): ``pause`` (the table paused; cleared by its
resume or void), the station's own ``alert`` names, ``config_changed`` (the table started
with another config or paytable), ``offline`` (the last will or a clean stop; cleared when
the table is back), ``shuffle_check_waiting`` (the table waits in its shuffle check for a
supervisor's confirmation; cleared when its status says another phase), and the stream's
problems:
``bad_signature``, ``gap``, ``unknown_table``, ``schema``, ``rewritten_history`` (a status's
journal head contradicts an earlier one). ``URGENCY`` ranks them for the alert list. A
problem that repeats while its alert is open and not yet acknowledged is counted in that
alert (``detail`` ends with ``(N times)``) rather than raised again, so a flood of forged
messages is one line, not thousands.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from station.wire.alerts import STATION_ALERTS, AlertKind, kinds_by_name

# The pit's own kinds, in the shape of the station's (station.wire.alerts): what it raises from
# a table's messages and from what is wrong with the table's stream.
SHUFFLE_WAITING: Final = "shuffle_check_waiting"
SIGN_IN_FAILURES: Final = "sign_in_failures"
_STREAM: Final = "station.services.pit.model (the client library's findings)"
_ARCHIVE: Final = "station.services.pit.model (the archive's signed alerts)"
PIT_ALERTS: Final[tuple[AlertKind, ...]] = (
    AlertKind("pause", "station.services.pit.model (a pause, or a status naming one)", 0,
              {"en": "Paused", "zh": "暂停"}),
    AlertKind("offline", "station.services.pit.model (the last will or a clean stop)", 0,
              {"en": "Station offline", "zh": "工作站离线"}),
    AlertKind("bad_signature", _STREAM, 1, {"en": "Bad signature", "zh": "签名无效"}),
    AlertKind("gap", _STREAM, 1, {"en": "Messages missing", "zh": "消息缺失"}),
    AlertKind("unknown_table", _STREAM, 1, {"en": "Unknown table", "zh": "未知牌桌"}),
    AlertKind("schema", _STREAM, 1, {"en": "Invalid message", "zh": "消息格式无效"}),
    AlertKind("rewritten_history", _STREAM, 1,
              {"en": "Rewritten history", "zh": "日志历史被改写"}),
    # A table in its shuffle check, which only a supervisor's confirmation ends.
    AlertKind(SHUFFLE_WAITING, "station.services.pit.model (a status in the shuffle check)", 0,
              {"en": "Shuffle check waiting", "zh": "洗牌待确认"}),
    AlertKind("config_changed", "station.services.pit.model (a config_changed message)", 3,
              {"en": "Config changed", "zh": "配置已更改"}),
    # The archive's alerts (station.services.pit.archivealerts): the table's evidence.
    AlertKind("archive_storage", _ARCHIVE, 1,
              {"en": "Archive cannot write", "zh": "归档无法写入"}),
    AlertKind("archive_gap", _ARCHIVE, 1,
              {"en": "Archive gap, asked again", "zh": "归档缺失待补发"}),
    AlertKind("archive_refused", _ARCHIVE, 1,
              {"en": "Archive refused the mirror", "zh": "归档拒收日志镜像"}),
    AlertKind("archive_recovered", _ARCHIVE, 3,
              {"en": "Archive writing again", "zh": "归档已恢复写入"}),
    AlertKind("archive_lag", _ARCHIVE, 1, {"en": "Archive behind", "zh": "归档滞后"}),
    # Someone is guessing an account's PIN: raised when it locks, counted while open.
    AlertKind(SIGN_IN_FAILURES, "station.services.pit.server (an account locked out)", 1,
              {"en": "Sign-in failures", "zh": "登录失败"}),
)
# Every kind the pit shows: the station's and its own, one declaration each.
KINDS: Final = kinds_by_name(STATION_ALERTS, PIT_ALERTS)
STREAM_KINDS: Final = tuple(kind.name for kind in PIT_ALERTS if kind.raised_by == _STREAM)
# The alert list's order among open alerts (lower first; then newest first): each kind's
# urgency (station.wire.alerts.URGENCIES). A kind not declared (a newer station's) ranks with
# the second group.
URGENCY: Final = {kind.name: kind.urgency for kind in KINDS.values()}
OTHER_URGENCY: Final = 1
COUNTED: Final = (*STREAM_KINDS, "offline", "archive_storage", "archive_gap",
                  "archive_refused", "archive_lag")
MAX_ALERTS: Final = 2000  # kept in memory; the journal keeps them all
DETAIL_MAX: Final = 600


@dataclass(slots=True)
class Alert:
    id: int
    table: str
    kind: str
    detail: str
    by: str | None
    raised_at: str
    acked_by: str | None = None
    acked_at: str | None = None
    cleared_at: str | None = None
    count: int = 1

    @property
    def open(self) -> bool:
        """Still wants someone: neither acknowledged nor cleared by the table."""
        return self.acked_by is None and self.cleared_at is None

    def json(self) -> dict[str, Any]:
        return {"id": self.id, "table": self.table, "kind": self.kind, "detail": self.detail,
                "by": self.by, "raised_at": self.raised_at, "acked_by": self.acked_by,
                "acked_at": self.acked_at, "cleared_at": self.cleared_at}


class AlertBook:
    """Every alert kept, by id; ``raised`` lists the new ones until the caller takes them."""

    def __init__(self, first_id: int = 1) -> None:
        self._next = first_id
        self._all: OrderedDict[int, Alert] = OrderedDict()
        self.raised: list[Alert] = []  # new since the last take()
        self.changed: list[Alert] = []  # detail, ack or clear changed since the last take()

    def __iter__(self) -> Iterator[Alert]:
        return iter(self._all.values())

    def __len__(self) -> int:
        return len(self._all)

    def get(self, alert_id: int) -> Alert | None:
        return self._all.get(alert_id)

    def take(self) -> tuple[list[Alert], list[Alert]]:
        raised, changed = self.raised, self.changed
        self.raised, self.changed = [], []
        return raised, changed

    def open_for(self, table: str, kind: str) -> Alert | None:
        for alert in reversed(self._all.values()):
            if alert.table == table and alert.kind == kind and alert.open:
                return alert
        return None

    def raise_(self, table: str, kind: str, detail: str, by: str | None, at: str) -> Alert:
        """A new alert, or the count of the open one of a repeating problem."""
        if kind in COUNTED:
            same = self.open_for(table, kind)
            if same is not None:
                self.count(same)
                return same
        alert = Alert(self._next, table[:128], kind[:64], detail[:DETAIL_MAX],
                      None if by is None else by[:300], at)
        self._next += 1
        self._all[alert.id] = alert
        self.raised.append(alert)
        self._trim()
        return alert

    def count(self, alert: Alert) -> None:
        """One more of the same problem: ``detail`` ends with ``(N times)``."""
        alert.count += 1
        base = alert.detail.rsplit(" (", 1)[0] if alert.count > 2 else alert.detail
        alert.detail = f"{base} ({alert.count} times)"[:DETAIL_MAX]
        self.changed.append(alert)

    def newest(self, kind: str) -> Alert | None:
        return next((a for a in reversed(self._all.values()) if a.kind == kind), None)

    def update(self, alert: Alert, detail: str, by: str | None) -> None:
        alert.detail, alert.by = detail[:DETAIL_MAX], None if by is None else by[:300]
        self.changed.append(alert)

    def clear(self, table: str, kind: str, at: str) -> list[Alert]:
        """The table says it is over (resumed, back online): every such alert not yet
        cleared is, acknowledged or not."""
        done = [a for a in self._all.values()
                if a.table == table and a.kind == kind and a.cleared_at is None]
        for alert in done:
            alert.cleared_at = at
            self.changed.append(alert)
        return done

    def uncleared(self, table: str, kind: str) -> bool:
        return any(a.table == table and a.kind == kind and a.cleared_at is None
                   for a in reversed(self._all.values()))

    def ack(self, alert: Alert, by: str, at: str) -> None:
        alert.acked_by, alert.acked_at = by, at
        self.changed.append(alert)

    def open_count(self, table: str) -> int:
        return sum(1 for a in self._all.values() if a.table == table and a.open)

    def stream_trouble(self, table: str) -> bool:
        return any(a.table == table and a.open and a.kind in STREAM_KINDS
                   for a in self._all.values())

    def ordered(self) -> list[Alert]:
        """Open first, newest first."""
        return sorted(self._all.values(), key=lambda a: (not a.open, -a.id))

    def _trim(self) -> None:
        while len(self._all) > MAX_ALERTS:
            # The oldest that no longer wants anyone goes first; else the oldest.
            done = next((i for i, a in self._all.items() if not a.open), None)
            self._all.pop(done if done is not None else next(iter(self._all)))


def summary(book: AlertBook) -> dict[str, tuple[int, bool]]:
    """Per table: its open alerts, and whether one is about its stream (one pass)."""
    out: dict[str, tuple[int, bool]] = {}
    for a in book:
        if a.open:
            n, stream = out.get(a.table, (0, False))
            out[a.table] = (n + 1, stream or a.kind in STREAM_KINDS)
    return out
