"""The pit's JSON: what ``/api/tables``, ``/api/tables/{table}`` and ``/api/alerts`` return
(docs/pit.md), built from the client library's table states (``station.client``), the pit's
alert records and each table's ``TableLog`` (folded from its verified messages). Pure but
for the dealer page's catalogues it shares, read once (station.web.catalogue): nothing here
reads a clock or the broker; the service hands in what it knows and when.

Each tile, table and alert carries ``say``: the words a person reads, by language (``en``,
``zh``; ``station.services.pit.words``), beside the codes and the station's own English, so one body
serves a page in either language and the page decides nothing.

The service feeds each applied message to the table's ``TableLog`` and asks for:

- ``floor_view(pit, ts, tables, alerts)``: the ``/api/tables`` body, tiles needing-first;
- ``table_view(state, seen, alerts, log)``: a table's detail;
- ``alerts_view(alerts)``: the ``/api/alerts`` body, open first, newest first;
- ``command_json(command)``: a command and its answer;

or, with its whole model (``station.services.pit.model.PitModel``, seen here only through the
``Model`` protocol so that the model may hold a ``TableLog`` per table), ``tables_body``,
``table_body`` and ``alerts_body``.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Protocol

from station.client.state import Pause, Result, TableState
from station.game.roads import Roads, Scoreboard
from station.game.roads.record import RecordError
from station.services.pit import words
from station.services.pit.alerts import OTHER_URGENCY, URGENCY
from station.services.pit.alerts import STREAM_KINDS as _STREAM_KINDS
from station.table.machine import Phase
from station.table.station import SUPERVISOR_CHOICES
from station.web.roadpanel import panel_svg

# What a tile needs someone for, in the order the floor sorts by (the first need decides):
# the table's own state (offline, paused, waiting in its shuffle check) until the table says
# otherwise, then what an acknowledgement ends (an open alert, stream trouble, a clock not
# synchronised whose alert nobody acknowledged).
NEEDS: Final = ("offline", "paused", "shuffle_check", "alert", "stream", "clock")
# What a tile still says once acknowledged, no longer a need: a clock not synchronised.
NOTES: Final = ("clock",)
CLOCK_ALERT: Final = "clock_unsynchronised"
# The alerts that say the table's stream is not to be trusted (the client library's findings).
STREAM_KINDS: Final = frozenset(_STREAM_KINDS)
# The kinds that belong to one shoe: one of another shoe means a new shoe is in play.
SHOE_KINDS: Final = frozenset({"shoe_started", "betting_open", "betting_closed", "card",
                               "reveal", "round", "shoe_ended", "shoe_report"})
RESULTS_KEPT: Final = 300  # rounds of a shoe (an 8-deck shoe has about 80)
RESULT_FIELDS: Final = ("shoe", "round", "status", "winner", "player_total", "banker_total",
                        "void_reason")
ROADS_W, ROADS_H = 1500, 250  # px: the table page's roads panel (scaled to fit, same shape)


class AlertRecord(Protocol):
    """One alert as the pit keeps it (``station.services.pit.alerts``: its ``Alert``)."""

    @property
    def id(self) -> int: ...
    @property
    def table(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def detail(self) -> str: ...
    @property
    def by(self) -> str | None: ...
    @property
    def raised_at(self) -> str: ...
    @property
    def acked_by(self) -> str | None: ...
    @property
    def acked_at(self) -> str | None: ...
    @property
    def cleared_at(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Seen:
    """What the pit itself knows of a table: when its newest message arrived (ISO) and how
    late it was (s: arrival minus the message's ``ts``, the table's upstream backlog)."""

    last_seen: str | None = None
    lag_s: float | None = None


def lag_of(received: str, sent: str) -> float | None:
    """Seconds between a message's ``ts`` and its arrival, both ISO 8601; None if unreadable."""
    try:
        return round((_when(received) - _when(sent)).total_seconds(), 3)
    except ValueError:
        return None


def _when(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


# --- alerts ----------------------------------------------------------------------------------

def is_open(a: AlertRecord) -> bool:
    """Still wants someone: not acknowledged, and not cleared by the table (resumed, back
    online), as the service's alert book counts it."""
    return a.acked_by is None and a.cleared_at is None


def alert_json(a: AlertRecord) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": a.id, "table": a.table, "kind": a.kind, "detail": a.detail, "by": a.by,
        "raised_at": a.raised_at, "acked_by": a.acked_by, "acked_at": a.acked_at,
        "cleared_at": a.cleared_at,
    }
    out["say"] = {lang: {"kind": words.alert_kind(a.kind, lang),
                         "detail": words.alert_detail(a.kind, a.detail, lang, a.by),
                         "by": words.actor(a.by, lang)} for lang in words.LANGUAGES}
    return out


class CommandRecord(Protocol):
    """A command the pit sent and the table's answer (``station.services.pit.model.Action``)."""

    @property
    def id(self) -> str: ...
    @property
    def table(self) -> str: ...
    @property
    def action(self) -> str: ...
    @property
    def by(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def detail(self) -> str | None: ...


# The pit's own answers for a command no table answered (docs/pit.md, JSON API): not sent
# because the table is offline, and no answer within ``pit.answer_timeout_s``.
NOT_SENT: Final = "not_sent"
UNANSWERED: Final = "unanswered"
OFFLINE_DETAIL: Final = "table offline, not sent"
_NO_ANSWER: Final = re.compile(r"no answer after (\d+(?:\.\d+)?) s")


def no_answer_detail(seconds: float) -> str:
    """The detail of a command the table did not answer within ``seconds``."""
    return f"no answer after {seconds:g} s"


def _pit_detail(state: str, detail: str | None, lang: str) -> str | None:
    """The words of the pit's own answers (the station's are words.command_detail's)."""
    if state == NOT_SENT and detail == OFFLINE_DETAIL:
        return "牌桌离线，未发送" if lang == "zh" else OFFLINE_DETAIL  # noqa: RUF001 - Chinese punctuation
    m = _NO_ANSWER.fullmatch(detail or "")
    if state == UNANSWERED and m is not None:
        return f"{m[1]} 秒内无应答" if lang == "zh" else m[0]
    return None


def command_json(c: CommandRecord) -> dict[str, Any]:
    """A command as ``POST .../commands/{action}`` answers it, with its answer's words;
    ``after_s`` is how long the pit waited for an answer that did not come (else None)."""
    m = _NO_ANSWER.fullmatch(c.detail or "") if c.state == UNANSWERED else None
    return {"id": c.id, "table": c.table, "action": c.action, "by": c.by, "state": c.state,
            "detail": c.detail, "after_s": float(m[1]) if m else None,
            "say": {lang: {"detail": _pit_detail(c.state, c.detail, lang)
                           or words.command_detail(c.detail, lang)}
                    for lang in words.LANGUAGES}}


def alerts_view(alerts: Iterable[AlertRecord]) -> dict[str, Any]:
    """``GET /api/alerts``: open ones first, by ``URGENCY`` (station.services.pit.alerts), each part
    newest first (then by id); the acknowledged and cleared ones after, newest first."""
    # ISO times of one format compare as text; the sort is stable, so open-first keeps it.
    ordered = sorted(alerts, key=lambda a: (a.raised_at, a.id), reverse=True)
    ordered.sort(key=lambda a: (not is_open(a),
                                URGENCY.get(a.kind, OTHER_URGENCY) if is_open(a) else 0))
    return {"alerts": [alert_json(a) for a in ordered]}


# --- tiles -----------------------------------------------------------------------------------

def _clock_acked(alerts: Sequence[AlertRecord]) -> bool:
    """The table's newest clock_unsynchronised alert is acknowledged: someone has seen to
    the clock (a new alert of the station's, when it goes wrong again, is a need again)."""
    newest = max((a for a in alerts if a.kind == CLOCK_ALERT), key=lambda a: a.id,
                 default=None)
    return newest is not None and newest.acked_by is not None


def needs_of(state: TableState, alerts: Sequence[AlertRecord]) -> list[str]:
    """What the table needs someone for, in ``NEEDS`` order. An acknowledged alert is no
    longer a need: the states (offline, paused, in the shuffle check) stay until the table
    leaves them."""
    unsynchronised = state.clock == "unsynchronised"
    found = {
        "offline": state.online is False,
        "paused": state.pause is not None,
        "shuffle_check": state.phase == "shuffle_check",
        "alert": any(is_open(a) for a in alerts),
        "stream": any(is_open(a) and a.kind in STREAM_KINDS for a in alerts),
        # The table's own status says its clock is not synchronised: a need until its alert
        # is acknowledged (with no alert seen, a need all the same), then a note.
        "clock": unsynchronised and not _clock_acked(alerts),
    }
    return [n for n in NEEDS if found[n]]


def notes_of(state: TableState, alerts: Sequence[AlertRecord]) -> list[str]:
    """What still stands at the table though acknowledged (``NOTES``): said, not a need."""
    return ["clock"] if state.clock == "unsynchronised" and _clock_acked(alerts) else []


def result_json(r: Result) -> dict[str, Any]:
    return {"shoe": r.shoe, "round": r.round, "status": r.status, "winner": r.winner,
            "player_total": r.player_total, "banker_total": r.banker_total,
            "void_reason": r.void_reason}


def _result_say(r: Mapping[str, Any] | None, lang: str) -> dict[str, str] | None:
    if r is None:
        return None
    return {"void_reason": words.reason(r.get("void_reason"), lang)}


def pause_json(p: Pause | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"reason": p.reason, "raised_by": p.raised_by, "code": p.code, "note": p.note,
            "since": p.ts}


def _pause_say(p: Pause | None, lang: str) -> dict[str, str] | None:
    if p is None:
        return None
    return {"reason": words.reason(p.reason, lang, p.raised_by),
            "code": words.pause_code(p.code, lang),
            "raised_by": words.actor(p.raised_by, lang)}


def offline_since(state: TableState, alerts: Sequence[AlertRecord], seen: Seen) -> str | None:
    """When the pit heard the table go offline (ISO, the pit's clock): its offline alert's
    ``raised_at``, acknowledged or not, until the table is back; else, with no such alert,
    the newest message's arrival. A last will carries the time its station connected, not
    the time it died, so the message's own ``ts`` would say too much."""
    if state.online is not False:
        return None
    raised = [a.raised_at for a in alerts if a.kind == "offline" and a.cleared_at is None]
    return min(raised) if raised else seen.last_seen


def tile(state: TableState, alerts: Sequence[AlertRecord], seen: Seen = Seen()) -> dict[str, Any]:
    """One table's TILE. ``alerts`` are this table's. While the table is offline its phase,
    round, pause and results are the last it said (the page marks them last known) and it
    has no lag (``lag_s`` null: no message is arriving late, none is arriving)."""
    last = state.results[-1] if state.results else None
    last_json = result_json(last) if last is not None else None
    needs = needs_of(state, alerts)
    offline = state.online is False
    notes = notes_of(state, alerts)
    return {
        "table": state.table, "online": state.online, "phase": state.phase,
        "shoe": state.shoe, "round": state.round, "dealer": state.dealer, "mode": state.mode,
        "last_result": last_json,
        "penetration": state.penetration if state.cut_card_out else None,
        "cut_card_out": state.cut_card_out, "lag_s": None if offline else seen.lag_s,
        "clock": state.clock, "pause": pause_json(state.pause),
        "offline_since": offline_since(state, alerts, seen),
        "open_alerts": sum(is_open(a) for a in alerts),
        "needs": needs, "notes": notes, "last_seen": seen.last_seen,
        "say": {lang: {"phase": words.phase(state.phase, lang),
                       "mode": words.mode(state.mode, lang),
                       "needs": [words.need(n, lang) for n in needs],
                       "notes": [words.note(n, lang) for n in notes],
                       "pause": _pause_say(state.pause, lang),
                       "last_result": _result_say(last_json, lang)}
                for lang in words.LANGUAGES},
    }


_NUMBERS = re.compile(r"(\d+)")


def natural_key(table: str) -> tuple[Any, ...]:
    """``t2`` before ``t10``: digits compare as numbers."""
    return tuple(int(p) if p.isdigit() else p for p in _NUMBERS.split(table))


def tile_order(t: Mapping[str, Any]) -> tuple[Any, ...]:
    """Needing-first: offline, then paused, then waiting in the shuffle check, then an open
    alert, then stream trouble, then a clock (the first need decides), then the calm ones; by
    table id within each."""
    needs = t["needs"]
    first = NEEDS.index(needs[0]) if needs else len(NEEDS)
    return (first, natural_key(t["table"]))


@dataclass(frozen=True, slots=True)
class Link:
    """The pit's own link to the broker: whether it is up, since when it is not (ISO), and
    whether that is past the keep-alive, when what the tiles say may no longer be so."""

    connected: bool = True
    lost_since: str | None = None
    stale_after_s: float = 30.0
    stale: bool = False

    def json(self) -> dict[str, Any]:
        return {"connected": self.connected, "lost_since": self.lost_since,
                "stale_after_s": self.stale_after_s, "stale": self.stale,
                "say": {lang: words.link(self.connected, lang) for lang in words.LANGUAGES}}


def floor_view(pit: str, ts: str, tables: Iterable[tuple[TableState, Seen]],
               alerts: Iterable[AlertRecord], link: Link | None = None) -> dict[str, Any]:
    """``GET /api/tables``: every trusted table's tile, needing-first, and the pit's link
    to the broker (``broker``): with it lost past the keep-alive every tile is ``stale``."""
    link = link or Link()
    by_table: dict[str, list[AlertRecord]] = {}
    for a in alerts:
        by_table.setdefault(a.table, []).append(a)
    tiles = [tile(state, by_table.get(state.table, []), seen) for state, seen in tables]
    for t in tiles:
        t["stale"] = link.stale
    return {"pit": pit, "ts": ts, "broker": link.json(),
            "tables": sorted(tiles, key=tile_order)}


# --- a table's detail -------------------------------------------------------------------------

class TableLog:
    """What a table's page shows beyond its state, folded from the table's applied messages
    in order (the service calls ``add`` with each ``Applied`` message): the shoe's results and
    its roads (the station's own ``Scoreboard``, one round at a time), the cards of the round
    in play, and the phase the open pause came from (the last journaled status's phase before
    the ``pause`` message: the status that says ``paused`` follows it). Bounded: one shoe."""

    def __init__(self) -> None:
        self.shoe: str | None = None
        self.results: deque[dict[str, Any]] = deque(maxlen=RESULTS_KEPT)
        self.board = Scoreboard()
        self.round: int | None = None
        self._cards: dict[str, dict[int, str | None]] = {"player": {}, "banker": {}}
        self.phase: str | None = None
        self.paused_from: str | None = None

    @classmethod
    def of(cls, messages: Iterable[Mapping[str, Any]]) -> TableLog:
        log = cls()
        for m in messages:
            log.add(m)
        return log

    def add(self, m: Mapping[str, Any]) -> None:
        kind, shoe = m.get("kind"), m.get("shoe")
        if kind in SHOE_KINDS and isinstance(shoe, str) and (
                kind == "shoe_started" or shoe != self.shoe):
            self.shoe, self.round = shoe, None
            self.results.clear()
            self.board = Scoreboard()
            self._cards = {"player": {}, "banker": {}}
        match kind:
            case "betting_open":
                self._round(m.get("round"))
            case "card" if m.get("hand") in self._cards:
                self._round(m.get("round"))
                self._place(m["hand"], m.get("position"), m.get("card"))
            case "reveal" if m.get("hand") in self._cards and isinstance(m.get("cards"), list):
                for c in m["cards"]:
                    if isinstance(c, Mapping):
                        self._place(m["hand"], c.get("position"), c.get("card"))
            case "round":
                self._result(m)
            case "status" if isinstance(m.get("phase"), str) and m["phase"] != "paused":
                self.phase = m["phase"]
            case "pause":
                self.paused_from = self.phase

    def _place(self, hand: str, position: object, card: object) -> None:
        # Checked, not trusted: the service folds whatever verified (the schemas may be off).
        if isinstance(position, int) and 1 <= position <= 3:
            self._cards[hand][position] = card if isinstance(card, str) else None

    def _round(self, number: object) -> None:
        if number != self.round:
            self.round = number if isinstance(number, int) else None
            self._cards = {"player": {}, "banker": {}}

    def _result(self, m: Mapping[str, Any]) -> None:
        self.results.append({k: m.get(k) for k in RESULT_FIELDS})
        if m.get("round") == self.round:
            self._cards = {"player": {}, "banker": {}}  # settled: nothing in play
        if len(self.board.beads) < RESULTS_KEPT:
            with suppress(RecordError):  # only a message the schemas were not there to refuse
                self.board.add(m)

    @property
    def cards(self) -> dict[str, list[str | None]]:
        """The round in play's cards by hand, in position order: the code, or None while a
        card lies face down (its reveal fills it in); empty once the round is settled."""
        return {h: [cards[p] for p in sorted(cards)] for h, cards in self._cards.items()}

    @property
    def roads(self) -> Roads:
        return self.board.snapshot()


def roads_json(roads: Roads) -> dict[str, Any]:
    tally = {w: sum(b.winner == w for b in roads.beads) for w in ("banker", "player", "tie")}
    return {"rounds": len(roads.beads), **tally,
            "svg": {lang: panel_svg(roads, ROADS_W, ROADS_H, lang) for lang in words.LANGUAGES},
            "width": ROADS_W, "height": ROADS_H}


def supervisor_choice(phase: str | None) -> str | None:
    """The station's own sentence for what resume and void will do after a pause from
    ``phase`` (``station.table.station``: what the dealer's page shows the supervisor)."""
    if phase is None:
        return None
    try:
        return SUPERVISOR_CHOICES.get(Phase(phase)) or None
    except ValueError:
        return None


def table_view(state: TableState, seen: Seen, alerts: Sequence[AlertRecord],
               log: TableLog) -> dict[str, Any]:
    """``GET /api/tables/{table}``: the tile and the table's round, results, roads, what
    resume and void will do (while paused) and its alerts (open first, newest first)."""
    out = tile(state, alerts, seen)
    results = list(log.results)
    choice = supervisor_choice(log.paused_from) if state.pause is not None else None
    out["results"] = results
    out["cards"] = log.cards
    out["roads"] = roads_json(log.roads)
    out["on_resume"], out["on_void"] = words.choices(choice, "en") if choice else (None, None)
    out["alerts"] = alerts_view(alerts)["alerts"]
    for lang in words.LANGUAGES:
        said = out["say"][lang]
        said["on_resume"], said["on_void"] = (words.choices(choice, lang) if choice
                                              else (None, None))
        # The void rounds' reasons, by round number (a complete round has none).
        said["void_reasons"] = {str(r["round"]): words.reason(r["void_reason"], lang)
                                for r in results if r["status"] == "void"}
    return out


# --- the service's model ---------------------------------------------------------------------

class Extra(Protocol):
    """What the service keeps of a table beside its state (``station.services.pit.model.Extra``)."""

    @property
    def last_seen(self) -> str | None: ...
    @property
    def lag_s(self) -> float | None: ...
    @property
    def log(self) -> TableLog: ...
    @property
    def actions(self) -> Iterable[CommandRecord]: ...


class Model(Protocol):
    """The service's model of the floor (``station.services.pit.model.PitModel``)."""

    @property
    def extra(self) -> Mapping[str, Extra]: ...
    @property
    def alerts(self) -> Iterable[AlertRecord]: ...

    def tables(self) -> list[str]: ...

    def state(self, table: str) -> TableState: ...


def _seen(extra: Extra) -> Seen:
    return Seen(extra.last_seen, extra.lag_s)


def tables_body(model: Model, pit: str, ts: str, link: Link | None = None) -> dict[str, Any]:
    """``GET /api/tables`` (and the ``tables`` event) from the service's model."""
    return floor_view(pit, ts, [(model.state(t), _seen(model.extra[t])) for t in model.tables()],
                      model.alerts, link)


def table_body(model: Model, table: str) -> dict[str, Any]:
    """``GET /api/tables/{table}``, with the commands the pit sent to it (newest first)."""
    extra = model.extra[table]
    body = table_view(model.state(table), _seen(extra),
                      [a for a in model.alerts if a.table == table], extra.log)
    body["commands"] = [command_json(c) for c in reversed(list(extra.actions))]
    return body


def alerts_body(model: Model) -> dict[str, Any]:
    """``GET /api/alerts``."""
    return alerts_view(model.alerts)
