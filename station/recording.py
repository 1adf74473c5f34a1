"""Recordings: every input event as one JSON line, written before it is applied.

A recording starts with a header line naming the format and the table rules in force, so
``replay`` rebuilds the same station. One event per line keeps a recording greppable and a
crash costs at most the line being written, which the reader reports rather than guesses.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from drivers.events import CardRead, Command, CutCardSeen, DeviceLost, DeviceRestored, InputEvent
from station.errors import ConfigError, InputFileError
from station.paytable import Paytable, parse_paytable
from station.station import CUT_POLICIES, Station, TableRules

FORMAT = "dealer-station-recording"
LATEST_TS = 4_102_444_800.0  # 2100-01-01: anything later is a corrupt timestamp
VERSION = 1


def event_to_json(event: InputEvent) -> dict[str, Any]:
    if isinstance(event, CardRead):
        return {"t": event.ts, "e": "card", "code": event.code, "src": event.source}
    if isinstance(event, CutCardSeen):
        return {"t": event.ts, "e": "cut", "src": event.source}
    if isinstance(event, DeviceLost):
        return {"t": event.ts, "e": "lost", "src": event.source, "reason": event.reason}
    if isinstance(event, DeviceRestored):
        return {"t": event.ts, "e": "restored", "src": event.source}
    return {"t": event.ts, "e": "cmd", "action": event.action, "actor": event.actor}


def event_from_json(obj: dict[str, Any]) -> InputEvent:
    """Rebuild an event; raises ``KeyError``/``TypeError``/``ValueError`` on a malformed one."""
    kind = obj["e"]
    ts = float(obj["t"])
    if not (math.isfinite(ts) and 0.0 <= ts < LATEST_TS):
        raise ValueError(f"timestamp t={obj['t']!r} is not a time between 1970 and 2100")
    if kind == "card":
        return CardRead(str(obj["code"]), str(obj["src"]), ts)
    if kind == "cut":
        return CutCardSeen(str(obj["src"]), ts)
    if kind == "lost":
        return DeviceLost(str(obj["src"]), str(obj["reason"]), ts)
    if kind == "restored":
        return DeviceRestored(str(obj["src"]), ts)
    if kind == "cmd":
        return Command(str(obj["action"]), str(obj["actor"]), ts)
    raise ValueError(f"unknown event type {kind!r} (expected card, cut, lost, restored, cmd)")


class Recorder:
    """Appends events to ``stream``; ``flush_each`` makes every line durable at once (daemon)."""

    def __init__(self, stream: IO[str], rules: TableRules, paytable: Paytable | None = None,
                 flush_each: bool = False, session: str = "") -> None:
        self._stream = stream
        self._flush_each = flush_each
        header: dict[str, Any] = {"format": FORMAT, "version": VERSION, "rules": rules.to_json()}
        if session:
            header["session"] = session
        if paytable is not None:
            # The paytable's own text: a replay settles with the payouts of the session even
            # if the file has been edited since.
            header["paytable"] = {"path": str(paytable.path), "variants": list(paytable.variants),
                                  "text": paytable.text}
        stream.write(json.dumps(header) + "\n")
        stream.flush()

    def write(self, event: InputEvent) -> None:
        self._stream.write(orjson.dumps(event_to_json(event)).decode() + "\n")
        if self._flush_each:
            self._stream.flush()


@dataclass(frozen=True, slots=True)
class Recording:
    """What a recording's header says about the station that wrote it, and its events."""

    rules: TableRules
    paytable: Paytable | None
    session: str
    events: Iterator[InputEvent]

    def station(self) -> Station:
        """A fresh station exactly as the recorded one started."""
        return Station(self.rules, self.paytable, session=self.session)


def read_recording(path: Path) -> Recording:
    """Open a recording: its table rules, paytable, session and a lazy iterator over events.

    Raises ``InputFileError`` naming the file and the line for anything malformed; the
    iterator raises it too, at the bad line, after yielding every good event before it.
    """
    try:
        stream = path.open(encoding="utf-8")
    except OSError as exc:
        raise InputFileError(f"{path}: cannot open recording: {exc.strerror}") from exc
    first = stream.readline()
    try:
        header = json.loads(first)
        if header.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} file")
        if header.get("version") != VERSION:
            raise ValueError(f"version {header.get('version')!r}; this station reads {VERSION}")
        rules = _rules_from_json(header["rules"])
        paytable = None
        if "paytable" in header:
            pt = header["paytable"]
            paytable = parse_paytable(str(pt["text"]), Path(str(pt["path"])),
                                      [str(v) for v in pt["variants"]])
    except ConfigError as exc:
        stream.close()
        raise InputFileError(f"{path}, line 1: the recorded paytable is invalid: {exc}") from exc
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        stream.close()
        raise InputFileError(
            f"{path}, line 1: bad recording header ({exc}); a recording starts with the header "
            "line a station writes"
        ) from exc
    return Recording(rules, paytable, str(header.get("session", "")), _events(path, stream))


def _rules_from_json(obj: dict[str, Any]) -> TableRules:
    rules = TableRules(
        table=str(obj["table"]),
        decks=int(obj["decks"]),
        dedupe_ms=int(obj["dedupe_ms"]),
        cut_card_between_rounds=str(obj["cut_card_between_rounds"]),
    )
    if rules.cut_card_between_rounds not in CUT_POLICIES:
        raise ValueError(f"unknown cut card policy {rules.cut_card_between_rounds!r}")
    return rules


def _events(path: Path, stream: IO[str]) -> Iterator[InputEvent]:
    with stream:
        for line_no, line in enumerate(stream, start=2):
            if not line.strip():
                continue
            try:
                yield event_from_json(json.loads(line))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                hint = "" if line.endswith("\n") else " (the last line is cut short: a crash?)"
                raise InputFileError(f"{path}, line {line_no}: bad event ({exc}){hint}") from exc
