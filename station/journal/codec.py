"""What a journal stores as bytes: the header and each event's body.

The header keeps, verbatim, the header line a JSON Lines recording would start with (built by
``station.wire.recording.Recorder`` itself, so the two cannot drift), plus the journal's own format
name, the station version and the creation time. ``export`` writes that line back out.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from drivers.events import InputEvent
from station import __version__
from station.errors import ConfigError
from station.settings.paytable import Paytable, parse_paytable
from station.table.tablerules import TableRules
from station.wire import recording

FORMAT = "dealer-station-journal"
VERSION = 1


@dataclass(frozen=True, slots=True)
class JournalHeader:
    """Written once, when the journal is created; what replay needs to rebuild the station."""

    rules: TableRules
    paytable: Paytable | None
    session: str
    recording_header: dict[str, Any]  # the recording's header line, as a JSON object
    station_version: str
    created: str  # ISO 8601, UTC
    # The print of the config it was created under
    # (station.settings.configprint.ConfigPrint.to_json):
    # file hashes and key digests; None in a journal made before they were recorded.
    config: dict[str, Any] | None = None


def new_header(rules: TableRules, paytable: Paytable | None, session: str,
               now: datetime | None = None,
               config: dict[str, Any] | None = None) -> tuple[JournalHeader, bytes]:
    """A header for a new journal and its stored bytes (canonical JSON); ``config``: the
    print of the config it is created under, kept when given."""
    line = io.StringIO()
    recording.Recorder(line, rules, paytable, session=session)
    rec: dict[str, Any] = json.loads(line.getvalue())
    created = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    obj = {"format": FORMAT, "version": VERSION, "recording": rec,
           "station_version": __version__, "created": created}
    if config is not None:
        obj["config"] = config
    header = JournalHeader(rules, paytable, session, rec, __version__, created, config)
    return header, orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


def parse_header(data: bytes) -> JournalHeader:
    """Rebuild a stored header; raises ``ValueError`` saying what is wrong with it."""
    try:
        obj: Any = orjson.loads(data)
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} header")
        if obj.get("version") != VERSION:
            raise ValueError(f"header version {obj.get('version')!r}; this station reads "
                             f"{VERSION}")
        rec = obj["recording"]
        if rec.get("format") != recording.FORMAT or rec.get("version") != recording.VERSION:
            raise ValueError("the embedded recording header is not one this station writes")
        rules = recording._rules_from_json(rec["rules"])
        paytable = None
        if "paytable" in rec:
            pt = rec["paytable"]
            paytable = parse_paytable(str(pt["text"]), Path(str(pt["path"])),
                                      [str(v) for v in pt["variants"]])
        config = obj.get("config")
        return JournalHeader(rules, paytable, str(rec.get("session", "")), rec,
                             str(obj["station_version"]), str(obj["created"]),
                             config if isinstance(config, dict) else None)
    except ConfigError as exc:
        raise ValueError(f"the recorded paytable is invalid: {exc}") from exc
    except (KeyError, TypeError, AttributeError, orjson.JSONDecodeError) as exc:
        raise ValueError(f"malformed header ({exc!r})") from exc


def encode_event(event: InputEvent) -> bytes:
    """The event's stored body: the recording's JSON object, sorted keys, no spaces, UTF-8.

    Raises ``ValueError`` if the body would not read back as the same event (a timestamp
    that is not a time, say): better refused at the append than found at the next start.
    """
    body = orjson.dumps(recording.event_to_json(event), option=orjson.OPT_SORT_KEYS)
    if decode_event(body) != event:
        raise ValueError(f"{event!r} does not survive a round trip through JSON")
    return body


def decode_event(body: bytes) -> InputEvent:
    """Rebuild an event; raises ``ValueError`` saying what is wrong with the body."""
    try:
        obj: Any = orjson.loads(body)
        if not isinstance(obj, dict):
            raise ValueError("not a JSON object")
        return recording.event_from_json(obj)
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"malformed event ({exc!r})") from exc
