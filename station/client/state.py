"""A table's present state, folded from its verified messages in order (pure).

Only what the messages say: ``phase`` and ``paused`` come from journaled statuses (the only
messages that carry the phase), the rest from events. ``mode`` is inferred, since no message
names it: ``squeeze`` once a card comes face down or a hand is revealed, ``vip`` once a VIP
player's request shows (a skipped round, ``dealer_requested``, ``new_shoe_late``), else
``standard``. ``penetration`` is the shoe report's, once the cut card came out and the
table records it; ``cut_card_out`` is set by the cut card's alert or a shoe ended by it.
``journal`` is the newest journal head a status named (id, seq, head), kept to tell a
rewritten history (``head_problem``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

RESULTS_KEPT = 10  # last results per table
ALERTS_KEPT = 20  # last alerts per table
VIP_ALERTS = ("dealer_requested", "new_shoe_late")


@dataclass(frozen=True, slots=True)
class Result:
    shoe: str
    round: int
    status: str  # complete or void
    winner: str | None
    player_total: int | None
    banker_total: int | None
    void_reason: str | None = None


@dataclass(frozen=True, slots=True)
class Alert:
    alert: str
    detail: str
    by: str
    ts: str
    round: int | None


@dataclass(frozen=True, slots=True)
class Pause:
    reason: str
    raised_by: str | None
    code: str | None
    note: str | None
    ts: str


@dataclass(slots=True)
class TableState:
    table: str
    online: bool | None = None  # None until a status says
    phase: str | None = None
    shoe: str | None = None
    round: int | None = None
    pause: Pause | None = None
    dealer: str | None = None
    mode: str = "standard"
    cut_card_out: bool = False
    penetration: float | None = None
    last_ts: str | None = None
    results: deque[Result] = field(default_factory=lambda: deque(maxlen=RESULTS_KEPT))
    alerts: deque[Alert] = field(default_factory=lambda: deque(maxlen=ALERTS_KEPT))
    journal: tuple[str, int, str] | None = None  # the newest a journaled status named
    presence_head: tuple[str, int, str] | None = None  # the last a presence status named
    clock: str | None = None  # the clock check's state a journaled status names

    def head_problem(self, m: Mapping[str, Any]) -> str | None:
        """Why the journal head status ``m`` names contradicts what the table said before
        (the same record of the same journal with another hash, or, on a journaled status, a
        record before the one the newest journaled status named), else None.

        Journaled statuses name, in order, the head before their own record; a presence status
        names the head committed when it was sent, which may be ahead of journaled statuses
        still on their way (the online status at a connect, then the statuses of records
        committed before it), or behind (the last will names its connect's head). So only
        journaled statuses are held to going forward; every head is held to its hash."""
        j = m.get("journal")
        if m.get("kind") != "status" or not isinstance(j, Mapping):
            return None
        new = (str(j.get("id")), int(j.get("seq", 0)), str(j.get("head")))
        where = f"journal {new[0][:12]}"
        for old in (self.journal, self.presence_head):
            if old is not None and old[:2] == new[:2] and old[2] != new[2]:
                return f"{where} record {new[1]} had head {old[2][:12]}, now {new[2][:12]}"
        if "seq" not in m:
            self.presence_head = new
            return None
        old = self.journal
        if old is not None and old[0] == new[0] and new[1] < old[1]:
            return f"{where} went back from record {old[1]} to {new[1]}"
        self.journal = new
        return None

    @property
    def paused(self) -> bool:
        return self.pause is not None

    def apply(self, m: Mapping[str, Any]) -> None:
        """Fold one verified, valid message (in order) into the state."""
        kind = m.get("kind")
        self.last_ts = m.get("ts", self.last_ts)
        if "round" in m and kind not in ("status", "shoe_ended", "shoe_report"):
            self.round = m["round"] if m["round"] is not None else self.round
        match kind:
            case "status":
                self._status(m)
            case "shoe_started":
                self.shoe, self.round = m["shoe"], None
                self.cut_card_out, self.penetration = False, None
            case "betting_open" | "betting_closed":
                self.shoe = m["shoe"]
                if m.get("skipped"):
                    self.mode = "vip"
            case "card":
                if m.get("face_down") and self.mode == "standard":
                    self.mode = "squeeze"
            case "reveal":
                if self.mode == "standard":
                    self.mode = "squeeze"
            case "round":
                self._round(m)
            case "pause":
                self.pause = Pause(m["reason"], m.get("raised_by"), m.get("code"),
                                   m.get("note"), m["ts"])
            case "resume":
                self.pause = None
            case "dealer":
                self.dealer = m["dealer"]
            case "alert":
                self.alerts.append(Alert(m["alert"], m["detail"], m["by"], m["ts"],
                                         m.get("round")))
                if m["alert"] in VIP_ALERTS:
                    self.mode = "vip"
                if m["alert"] == "cut_card_position":
                    self.cut_card_out = True
            case "shoe_ended":
                if m.get("reason") == "cut_card":
                    self.cut_card_out = True
            case "shoe_report":
                if isinstance(m.get("penetration"), int | float):
                    self.penetration = float(m["penetration"])
                    self.cut_card_out = True

    def _status(self, m: Mapping[str, Any]) -> None:
        self.online = bool(m.get("online"))
        if "seq" not in m:
            return  # a presence status: no state
        self.phase, self.shoe, self.round = m["phase"], m["shoe"], m["round"]
        clock = m.get("clock")
        self.clock = clock if isinstance(clock, str) else self.clock
        reason = m.get("paused")
        if reason is None:
            self.pause = None
        elif self.pause is None or self.pause.reason != reason:
            # The status's reasons are the pause message's; keep who raised it if known.
            old = self.pause
            self.pause = Pause(reason, old.raised_by if old else None,
                               old.code if old else None, old.note if old else None, m["ts"])

    def _round(self, m: Mapping[str, Any]) -> None:
        self.results.append(Result(m["shoe"], m["round"], m["status"], m.get("winner"),
                                   m.get("player_total"), m.get("banker_total"),
                                   m.get("void_reason")))
        if m.get("dealer") is not None:
            self.dealer = m["dealer"]
        if m["status"] == "void":
            self.pause = None  # a void clears the pause it settled
