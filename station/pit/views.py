"""The JSON the pit's API returns, from the service's model (pure; PIT_CONTRACT's shapes).

A minimal version written with the service; the pages' branch owns this module and its
words (station.pit.words).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from station.pit.alerts import summary
from station.roads import RecordError, compute_roads, roads_json, round_from_record

if TYPE_CHECKING:
    from station.client.state import Result
    from station.pit.model import PitModel

NEEDS_ORDER = ("offline", "paused", "alert", "stream")


def _result(r: Result | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"shoe": r.shoe, "round": r.round, "status": r.status, "winner": r.winner,
            "player_total": r.player_total, "banker_total": r.banker_total,
            "void_reason": r.void_reason}


def tile(model: PitModel, table: str,
         counts: Mapping[str, tuple[int, bool]] | None = None) -> dict[str, Any]:
    s = model.state(table)
    extra = model.extra[table]
    open_alerts, stream = (counts if counts is not None else summary(model.alerts)).get(
        table, (0, False))
    needs = [code for code, on in (("offline", s.online is False), ("paused", s.paused),
                                   ("alert", open_alerts > 0), ("stream", stream)) if on]
    pause = None if s.pause is None else {
        "reason": s.pause.reason, "raised_by": s.pause.raised_by, "code": s.pause.code,
        "note": s.pause.note, "since": s.pause.ts}
    return {"table": table, "online": s.online, "phase": s.phase, "shoe": s.shoe,
            "round": s.round, "dealer": s.dealer, "mode": s.mode,
            "last_result": _result(s.results[-1] if s.results else None),
            "penetration": s.penetration, "cut_card_out": s.cut_card_out,
            "lag_s": extra.lag_s, "pause": pause, "open_alerts": open_alerts,
            "needs": needs, "last_seen": extra.last_seen}


def tables_body(model: PitModel, pit: str, ts: str) -> dict[str, Any]:
    counts = summary(model.alerts)
    tiles = [tile(model, t, counts) for t in model.tables()]
    tiles.sort(key=lambda x: (not x["needs"], [c not in x["needs"] for c in NEEDS_ORDER],
                              x["table"]))
    return {"pit": pit, "ts": ts, "tables": tiles}


def table_body(model: PitModel, table: str) -> dict[str, Any]:
    body = tile(model, table)
    extra = model.extra[table]
    s = model.state(table)
    results = [{"shoe": r.get("shoe"), "round": r.get("round"), "status": r.get("status"),
                "winner": r.get("winner"), "player_total": r.get("player_total"),
                "banker_total": r.get("banker_total"), "void_reason": r.get("void_reason")}
               for r in extra.rounds]
    body.update({
        "results": results,
        "cards": {"player": list(extra.cards["player"]), "banker": list(extra.cards["banker"])},
        "roads": _roads(extra.rounds),
        "on_resume": None if s.pause is None else "the table deals on from where it paused",
        "on_void": None if s.pause is None else "the round in play is void; its bets are "
                                                "returned",
        "alerts": [a.json() for a in model.alerts.ordered() if a.table == table],
        "commands": [a.json() for a in reversed(extra.actions)],
    })
    return body


def alerts_body(model: PitModel) -> dict[str, Any]:
    return {"alerts": [a.json() for a in model.alerts.ordered()]}


def _roads(records: Any) -> dict[str, Any] | None:
    rounds = []
    for record in records:
        try:
            r = round_from_record(record)
        except RecordError:
            return None
        if r is not None:
            rounds.append(r)
    return roads_json(compute_roads(rounds))
