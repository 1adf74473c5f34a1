"""Pit journals for the statistics tests: the ``seen`` table of docs/pit.md,
filled with a real station's messages (``station simulate --messages``) or with messages the
station's own builders make (station.wire.messages) for cases small enough to check by
hand."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import yaml

from station.services.pit.journal import SCHEMA
from station.wire import messages as m
from station.wire.canonical import canonical

# The pit journal's tables, as the pit service makes them (the statistics read its seen).
SEEN = SCHEMA
T0 = datetime(2026, 1, 1, tzinfo=UTC).timestamp()  # the simulation's clock starts here
REPORT = [sys.executable, "-m", "station.services.pit.report", "report"]


def at(seconds: float) -> datetime:
    """T0 + ``seconds``, as a period's bound."""
    return datetime.fromtimestamp(T0 + seconds, UTC)


def rows_of(payloads: Iterable[bytes | Mapping[str, Any]]) -> list[tuple[Any, ...]]:
    """``seen`` rows (table_id, kind, seq, at, body) of messages, ``at`` their own ``ts``."""
    out = []
    for p in payloads:
        msg = orjson.loads(p) if isinstance(p, bytes) else dict(p)
        body = p.decode() if isinstance(p, bytes) else canonical(msg).decode()
        out.append((msg["table"], msg["kind"], msg.get("seq"), msg["ts"], body))
    return out


def applied_order(rows: Sequence[tuple[Any, ...]], lag: int = 3) -> list[tuple[Any, ...]]:
    """The rows as the pit may apply them: events in order, each table's statuses ``lag``
    messages late (they come on another topic), so ``seen`` is not in seq order."""
    events = [r for r in rows if r[1] != "status"]
    statuses = [r for r in rows if r[1] == "status"]
    out: list[tuple[Any, ...]] = []
    si = 0
    for i, r in enumerate(events):
        out.append(r)
        while si < len(statuses) and (statuses[si][2] or 0) + lag <= (r[2] or 0):
            out.append(statuses[si])
            si += 1
        del i
    return out + statuses[si:]


def write_journal(path: Path, rows: Iterable[tuple[Any, ...]]) -> Path:
    with closing(sqlite3.connect(path)) as db:
        db.executescript(SEEN)
        for table_id, kind, seq, ts, body in rows:
            key = orjson.loads(body)["key"]
            db.execute("INSERT INTO seen (at, table_id, kind, seq, key, body) "
                       "VALUES (?, ?, ?, ?, ?, ?)", (ts, table_id, kind, seq, key, body))
        db.commit()
    return path


def write_pit_config(folder: Path, journal: str, name: str = "pit.yaml") -> Path:
    """A PIT.yaml naming ``journal`` in ``folder`` (by its absolute path: a relative one is
    the working directory's, as the pit takes it)."""
    path = folder / name
    path.write_text(yaml.safe_dump({"pit": {"name": "pit", "journal": str(folder / journal)}}))
    return path


def simulate(tmp: Path, *, table: str = "t7", seed: int = 3, shoes: int = 3,
             supervisor: str = "resume", faults: list[dict[str, Any]] | None = None,
             **simulation: Any) -> list[bytes]:
    """A real station's messages: ``station simulate --messages`` on a config with dealers."""
    tmp.mkdir(parents=True, exist_ok=True)
    cfg = {"table": {"id": table},
           "simulation": {"seed": seed, "shoes": shoes, "supervisor": supervisor,
                          "dealer_badge": "DEALER-D042", "relief_badge": "DEALER-D043",
                          "dealer_change_shoes": 1, **simulation},
           "display": {"type": "none"},
           "upstream": {"type": "file", "path": str(tmp / "up.jsonl")}}
    config = tmp / f"{table}.yaml"
    config.write_text(yaml.safe_dump(cfg))
    fault_file = tmp / f"{table}-faults.yaml"
    fault_file.write_text(yaml.safe_dump(faults or []))
    out = tmp / f"{table}.jsonl"
    done = subprocess.run([sys.executable, "-m", "station.cli", "simulate", "-c", str(config),
                           "--seed", str(seed), "--shoes", str(shoes), "--faults",
                           str(fault_file), "--supervisor", supervisor, "--messages", str(out)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return out.read_bytes().splitlines()


FAULTS = [{"kind": "garbled", "card": 15}, {"kind": "not_due", "after_round": 3},
          {"kind": "lost", "card": 25, "seconds": 30},
          {"kind": "not_due", "after_round": 10, "shoe": 2},
          {"kind": "garbled", "card": 40, "shoe": 3}]


class Script:
    """One table's messages, built by the station's own builders, at seconds from T0."""

    def __init__(self, table: str = "t1") -> None:
        self.table = table
        self.seq = 0
        self.events_seq: int | None = None
        self.out: list[dict[str, Any]] = []
        self.shoe = f"{table}-20260101T000000Z-1"

    def _add(self, msg: dict[str, Any]) -> dict[str, Any]:
        if msg["kind"] != "status":
            msg["prev_seq"] = self.events_seq
            self.events_seq = msg["seq"]
        self.out.append(msg)
        return msg

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def _where(self, t: float) -> dict[str, Any]:
        return {"table": self.table, "seq": self._next(), "ts": T0 + t}

    def dealer(self, t: float, dealer: str | None, previous: str | None,
               action: str = "change") -> None:
        self._add(m.dealer({"dealer": dealer, "previous": previous, "action": action,
                            "how": "badge", "request_closed": False}, **self._where(t)))

    def round(self, opened: float, result: float, n: int, dealer: str | None,
              void_reason: str | None = None, with_dealer: bool = True) -> None:
        self.open_round(opened, n)
        self.result(result, n, dealer, void_reason, with_dealer)

    def open_round(self, t: float, n: int) -> None:
        key = f"{self.shoe}:{n}"
        self._add(m.betting_open({"shoe": self.shoe, "round": n, "key": key},
                                 **self._where(t)))
        self.status(t, "player_1", None, n)

    def result(self, t: float, n: int, dealer: str | None, void_reason: str | None = None,
               with_dealer: bool = True) -> None:
        key = f"{self.shoe}:{n}"
        record: dict[str, Any] = {"v": 1, "key": key, "shoe": self.shoe, "round": n,
                                  "status": "void" if void_reason else "complete",
                                  "player": [], "banker": [], "winner": None}
        if with_dealer:
            record["dealer"] = dealer
        if void_reason:
            record["void_reason"] = void_reason
            record["voided_by"] = "supervisor:ann"
        self._add(m.round_result(record, **self._where(t)))
        self.status(t, "between_rounds", None, n)

    def pause(self, t: float, reason: str, code: str | None = None, n: int | None = None,
              status: bool = True) -> None:
        raised_by = "bob (web 10.0.0.5)" if code else None
        self._add(m.pause(reason=reason, shoe=self.shoe, round_no=n, raised_by=raised_by,
                          code=code, **self._where(t)))
        if status:
            self.status(t, "paused", reason, n)

    def resume(self, t: float, n: int | None = None) -> None:
        self._add(m.resume(by="supervisor:ann", shoe=self.shoe, round_no=n, **self._where(t)))
        self.status(t, "between_rounds", None, n)

    def status(self, t: float, phase: str, paused: str | None, n: int | None) -> None:
        # The journal head is the contract's (issue 24); the statistics do not read it.
        self._add(m.status(phase=phase, shoe=self.shoe, round_no=n, paused=paused,
                           journal=m.journal_head(bytes(32), 0, bytes(32)), **self._where(t)))

    def rows(self) -> list[tuple[Any, ...]]:
        return rows_of(self.out)
