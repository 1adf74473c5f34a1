"""Recordings: every input event as one JSON line.

A recording starts with a header line naming the format and the table rules in force, so
``replay`` rebuilds the same station. One event per line keeps a recording greppable and a
crash costs at most the line being written, which the reader reports rather than guesses.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from drivers.events import (
    CardRead,
    ClockAlert,
    Command,
    ConfigChanged,
    CutCardSeen,
    DeviceLost,
    DeviceRestored,
    InputEvent,
    InstallModified,
    TimerExpired,
)
from station.errors import ConfigError, InputFileError
from station.game.limits import (
    MAX_LINE_BYTES,
    decks_problem,
    dedupe_ms_problem,
    guard_value_problem,
    mode_value_problem,
    repeat_cards_problem,
    repeat_history_problem,
    repeat_threshold_problem,
    short,
    table_id_problem,
)
from station.settings.paytable import Paytable, parse_paytable
from station.settings.textfile import bounded_lines, decode, describe_path, parse_json
from station.table import dealers
from station.table.procedures import PROCEDURE_KEYS, procedure_value, procedure_value_problem
from station.table.station import Station
from station.table.tablerules import CUT_POLICIES, MODE_KEYS, TableRules

FORMAT = "dealer-station-recording"
LATEST_TS = 4_102_444_800.0  # 2100-01-01: anything later is a corrupt timestamp
VERSION = 1


def event_to_json(event: InputEvent) -> dict[str, Any]:
    if isinstance(event, CardRead):
        if event.pack is None and event.symbology is None:
            return {"t": event.ts, "e": "card", "code": event.code, "src": event.source}
        # Only when the reader read them: a plain card keeps its bytes.
        line: dict[str, Any] = {"t": event.ts, "e": "card", "code": event.code,
                                "src": event.source}
        if event.pack is not None:
            line["pack"] = event.pack
        if event.symbology is not None:  # a HID-POS scanner's (drivers.hidpos)
            line["symbology"] = event.symbology
        return line
    if isinstance(event, CutCardSeen):
        return {"t": event.ts, "e": "cut", "src": event.source}
    if isinstance(event, DeviceLost):
        return {"t": event.ts, "e": "lost", "src": event.source, "reason": event.reason}
    if isinstance(event, DeviceRestored):
        return {"t": event.ts, "e": "restored", "src": event.source}
    if isinstance(event, TimerExpired):
        return {"t": event.ts, "e": "timer", "name": event.timer}
    if isinstance(event, ClockAlert):
        return {"t": event.ts, "e": "clock", "alert": event.alert, "detail": event.detail}
    if isinstance(event, InstallModified):
        return {"t": event.ts, "e": "install", "files": list(event.files),
                "detail": event.detail}
    if isinstance(event, ConfigChanged):
        return {"t": event.ts, "e": "config",
                "old": {"config": event.old_config, "paytable": event.old_paytable},
                "new": {"config": event.new_config, "paytable": event.new_paytable},
                "keys": list(event.keys), "values": dict(event.values),
                "previous_journal": event.previous_journal}
    out: dict[str, Any] = {"t": event.ts, "e": "cmd", "action": event.action,
                           "actor": event.actor}
    if event.note is not None:  # only when given: a command without one keeps its bytes
        out["note"] = event.note
    if event.code is not None:  # a dealer's pause only
        out["code"] = event.code
    return out


def event_from_json(obj: object) -> InputEvent:
    """Rebuild an event from its JSON object; raises ``ValueError`` saying what is wrong.

    Every field is type-checked: a recording is evidence, and one that does not hold exactly
    what a station writes is refused rather than guessed at.
    """
    if type(obj) is dict and obj.get("e") == "card":
        # The line nearly every event is, accepted at once when it is exactly what a station
        # writes; anything else takes the checks below, which name what is wrong.
        t, code, src = obj.get("t"), obj.get("code"), obj.get("src")
        if (type(t) is float and 0.0 <= t < LATEST_TS and type(code) is str and type(src) is str
                and len(obj) == 4):
            return CardRead(code, src, t)
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {short(obj)}")
    kind = obj.get("e")
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, int | float) or not (
        math.isfinite(t) and 0.0 <= t < LATEST_TS
    ):
        raise ValueError(f"timestamp t={short(t)} is not a time between 1970 and 2100")
    ts = float(t)
    if kind == "card":
        pack = _text(obj, "pack") if "pack" in obj else None
        symbology = _text(obj, "symbology") if "symbology" in obj else None
        return CardRead(_text(obj, "code"), _text(obj, "src"), ts, pack, symbology)
    if kind == "cut":
        return CutCardSeen(_text(obj, "src"), ts)
    if kind == "lost":
        return DeviceLost(_text(obj, "src"), _text(obj, "reason"), ts)
    if kind == "restored":
        return DeviceRestored(_text(obj, "src"), ts)
    if kind == "cmd":
        note = _text(obj, "note") if "note" in obj else None
        code = _text(obj, "code") if "code" in obj else None
        return Command(_text(obj, "action"), _text(obj, "actor"), ts, note, code)
    if kind == "timer":
        return TimerExpired(_text(obj, "name"), ts)
    if kind == "clock":
        return ClockAlert(_text(obj, "alert"), _text(obj, "detail"), ts)
    if kind == "config":
        return _config_changed(obj, ts)
    if kind == "install":
        files = obj.get("files")
        if not (isinstance(files, list) and all(isinstance(f, str) for f in files)):
            raise ValueError("an install event's files must be a list of text")
        return InstallModified(tuple(files), _text(obj, "detail"), ts)
    raise ValueError(
        f"unknown event type {short(kind)} (expected card, cut, lost, restored, cmd, timer, "
        "clock, config, install)"
    )


def _config_changed(obj: dict[str, Any], ts: float) -> ConfigChanged:
    old, new, keys, values = (obj.get(k) for k in ("old", "new", "keys", "values"))
    if not (isinstance(old, dict) and isinstance(new, dict)):
        raise ValueError("a config event needs old and new objects")
    if not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
        raise ValueError("a config event's keys must be a list of text")
    if not (isinstance(values, dict) and all(isinstance(v, str) for v in values.values())):
        raise ValueError("a config event's values must map keys to text")
    return ConfigChanged(_hash(old, "config"), _hash(old, "paytable"), _hash(new, "config"),
                         _hash(new, "paytable"), tuple(keys), tuple(sorted(values.items())),
                         _hash(obj, "previous_journal"), ts)


def _hash(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} must be text or null, got {short(value)}")
    return value


def _text(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key!r} is {short(value)}, expected a string")
    return value


def header_line(rules: TableRules, paytable: Paytable | None = None, session: str = "") -> str:
    """A recording's first line (ASCII: ``json.dumps`` escapes the rest)."""
    header: dict[str, Any] = {"format": FORMAT, "version": VERSION, "rules": rules.to_json()}
    if session:
        header["session"] = session
    if paytable is not None:
        # The paytable's own text: a replay settles with the payouts of the session even if
        # the file has been edited since.
        header["paytable"] = {"path": str(paytable.path), "variants": list(paytable.variants),
                              "text": paytable.text}
    return json.dumps(header) + "\n"


class Recorder:
    """Appends events to ``stream``; ``flush_each`` flushes every line at once."""

    def __init__(self, stream: IO[str], rules: TableRules, paytable: Paytable | None = None,
                 flush_each: bool = False, session: str = "") -> None:
        self._stream = stream
        self._flush_each = flush_each
        stream.write(header_line(rules, paytable, session))
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

    def station(self, prompts: bool = True) -> Station:
        """A fresh station exactly as the recorded one started (``prompts``: as Station's)."""
        return Station(self.rules, self.paytable, prompts=prompts, session=self.session)


def read_recording(path: Path) -> Recording:
    """Open a recording: its table rules, paytable, session and an iterator over events.

    Raises ``InputFileError`` naming the file and the line for anything malformed. Every line
    is checked here, before the caller opens any output, so a bad recording is refused
    whole (the iterator then reads the file again, lazily). The header's rules are checked
    with the same bounds as a config's (station.game.limits).
    """
    name = describe_path(path)
    with _open(path, name) as stream:
        lines = _lines(stream, name)
        header_no, first = next(lines, (1, b""))
        text = decode(first, name, InputFileError, ", line 1")
        try:
            header = parse_json(text)
            if not isinstance(header, dict):
                raise ValueError("not a JSON object")
            if header.get("format") != FORMAT:
                raise ValueError(f"not a {FORMAT} file")
            if header.get("version") != VERSION:
                raise ValueError(
                    f"version {short(header.get('version'))}; this station reads {VERSION}"
                )
            rules = _rules_from_json(header.get("rules"))
            session = header.get("session", "")
            if not isinstance(session, str) or SESSION_RE.fullmatch(session) is None:
                raise ValueError(f"session {short(session)} is not a session tag")
            paytable = _paytable(header.get("paytable"), name)
        except ValueError as exc:
            raise InputFileError(
                f"{name}, line 1: bad recording header ({exc}); a recording starts with the "
                "header line a station writes"
            ) from None
        _check_events(stream, name, header_no)
    return Recording(rules, paytable, session, _events(path, name))


# An event line exactly as a station writes it: orjson's spelling, keys in the station's
# order, a timestamp before 2100, plain printable ASCII strings. Every such line is one that
# _event accepts; whole blocks of them are checked by one match, in C.
_STR = rb'"[\x20\x21\x23-\x5b\x5d-\x7e]{0,200}"'
# JSON allows no leading zero: 0, or 1-10 digits not starting with 0 (a 10-digit one below 4).
_PLAIN_EVENT = (rb'\{"t":(?:0|[1-9][0-9]{0,8}|[1-3][0-9]{9})\.[0-9]{1,17},"e":(?:'
                rb'"card","code":S,"src":S|"cmd","action":S,"actor":S|"cut","src":S'
                rb'|"lost","src":S,"reason":S|"restored","src":S|"timer","name":S)\}\n'
                ).replace(b"S", _STR)
_PLAIN_EVENTS = re.compile(rb"(?:" + _PLAIN_EVENT + rb")*")
_BLOCK_BYTES = 1 << 20


def _check_events(stream: IO[bytes], name: str, line_no: int) -> None:
    """Check every line after the header (line ``line_no``) as ``_event`` does, with the
    same errors. Replay reads the file twice (refuse a bad recording whole, then apply it
    lazily); a block of lines a station wrote is accepted here by one match."""
    for _ in _read_events(stream, name, line_no, build=False):
        pass


def _read_events(stream: IO[bytes], name: str, line_no: int, build: bool = True
                 ) -> Iterator[InputEvent]:
    """The events after the header (line ``line_no``), read a block at a time: a block of
    lines exactly as a station writes them is read by ``_plain_events`` (and, with
    ``build=False``, only matched); any other block is read line by line, as
    ``bounded_lines`` reads lines, so every fault is named as before."""
    rest = b""
    while True:
        data = stream.read(_BLOCK_BYTES)
        if not data:
            if rest.strip():
                yield from _line_events((rest,), line_no, name)  # the last line, cut short
            return
        data = rest + data
        cut = data.rfind(b"\n") + 1
        block, rest = data[:cut], data[cut:]
        if block and _PLAIN_EVENTS.fullmatch(block) is not None:
            if build:
                yield from _plain_events(block)
        elif block:
            yield from _line_events([x + b"\n" for x in block.split(b"\n")[:-1]], line_no, name)
        line_no += block.count(b"\n")
        if len(rest) > MAX_LINE_BYTES:
            yield from _line_events((rest,), line_no, name)


def _plain_events(block: bytes) -> list[InputEvent]:
    """The events of a block that matched ``_PLAIN_EVENTS``: the match guarantees each line's
    shape, keys and types, and that no string holds a quote or a backslash (so no escape),
    so splitting a line at its quotes gives its fields, with no JSON parser and no dict per
    event (replay's reading cost halved: benchmarks/bench_speed.py). The timestamp is a JSON
    number as orjson writes it, which ``float`` reads to the same double (correctly rounded,
    as orjson reads it: tests/journal/test_recording_check.py compares the two on every event)."""
    out: list[InputEvent] = []  # a list: no generator frame between the file and replay
    add = out.append
    for line in block.decode("ascii").split("\n")[:-1]:
        # '{"t":T,"e":"KIND","k1":"V1","k2":"V2"}': V1 at 9, V2 at 13.
        f = line.split('"')
        kind, t = f[5], float(f[2][1:-1])
        if kind == "card":
            add(CardRead(f[9], f[13], t))
        elif kind == "cmd":
            add(Command(f[9], f[13], t))
        elif kind == "cut":
            add(CutCardSeen(f[9], t))
        elif kind == "lost":
            add(DeviceLost(f[9], f[13], t))
        elif kind == "restored":
            add(DeviceRestored(f[9], t))
        else:  # "timer", the last the pattern allows
            add(TimerExpired(f[9], t))
    return out


def _line_events(lines: Sequence[bytes], line_no: int, name: str) -> Iterator[InputEvent]:
    for n, line in enumerate(lines, start=line_no + 1):
        if len(line) > MAX_LINE_BYTES:
            raise InputFileError(f"{name}, line {n}: longer than {MAX_LINE_BYTES // 1024} "
                                 "KiB; not a line a station writes")
        if line.strip():
            yield _event(line, n, name)


SESSION_RE = re.compile(r"[A-Za-z0-9._-]{0,64}")


def _open(path: Path, name: str) -> IO[bytes]:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise InputFileError(f"{name}: cannot open recording: {exc.strerror or exc}") from None
    except ValueError:  # a NUL byte in the path
        raise InputFileError(f"{name}: cannot open recording (not a usable file name)") from None


def _lines(stream: IO[bytes], name: str) -> Iterator[tuple[int, bytes]]:
    return bounded_lines(stream, lambda n: f"{name}, line {n}", "not a line a station writes",
                         InputFileError)


def _event(line: bytes, line_no: int, name: str) -> InputEvent:
    try:
        # orjson reads UTF-8 bytes as the decoded text, and refuses what decode() or
        # parse_json() below would refuse or read otherwise (bad UTF-8, a byte order mark,
        # NaN): those lines, and bad events, go the long way, which says what is wrong.
        return event_from_json(orjson.loads(line))
    except ValueError:  # orjson.JSONDecodeError is one
        pass
    text = decode(line, name, InputFileError, f", line {line_no}")
    try:
        return event_from_json(parse_json(text))
    except ValueError as exc:
        hint = "" if line.endswith(b"\n") else (
            " (the last line is cut short: a crash? delete that line to replay the rest)")
        raise InputFileError(f"{name}, line {line_no}: bad event ({exc}){hint}") from None


def _paytable(pt: object, name: str) -> Paytable | None:
    if pt is None:
        return None
    if not isinstance(pt, dict):
        raise ValueError(f"paytable is {short(pt)}, expected an object")
    text, where, variants = pt.get("text"), pt.get("path"), pt.get("variants")
    if not isinstance(text, str) or not isinstance(where, str) or not isinstance(
        variants, list
    ) or not all(isinstance(v, str) for v in variants):
        raise ValueError("paytable needs 'text', 'path' and a list of 'variants'")
    if "\0" in where:
        raise ValueError("the paytable's path holds a NUL")
    try:
        return parse_paytable(text, Path(where), variants)
    except ConfigError as exc:
        raise InputFileError(f"{name}, line 1: the recorded paytable is invalid: {exc}"
                             ) from None


def _rules_from_json(obj: object) -> TableRules:
    """The header's table rules, checked as a config's are (one definition of the bounds)."""
    if not isinstance(obj, dict):
        raise ValueError(f"rules is {short(obj)}, expected an object")
    for key, check in (("table", table_id_problem), ("decks", decks_problem),
                       ("dedupe_ms", dedupe_ms_problem)):
        problem = check(obj.get(key))
        if problem is not None:
            raise ValueError(f"rules.{key}: {problem}")
    policy = obj.get("cut_card_between_rounds")
    if not isinstance(policy, str) or policy not in CUT_POLICIES:
        raise ValueError(f"unknown cut card policy {short(policy)}")
    # A recording made before dealers had badges has no prefix: none of its codes was a badge.
    prefix = obj.get("badge_prefix", "")
    problem = dealers.prefix_problem(prefix)
    if problem is not None:
        raise ValueError(f"rules.badge_prefix: {problem}")
    return TableRules(table=obj["table"], decks=obj["decks"], dedupe_ms=obj["dedupe_ms"],
                      cut_card_between_rounds=policy, badge_prefix=prefix,
                      **_modes_from_json(obj), **_integrity_from_json(obj),
                      **_guard_from_json(obj), **_procedures_from_json(obj))


def _guard_from_json(obj: dict[str, Any]) -> dict[str, Any]:
    """The bet guard's keys, written only when not the defaults: a recording made before
    the guard has neither and replays with it off."""
    out: dict[str, Any] = {}
    for key in ("bet_guard", "bet_guard_max_rtp"):
        if key in obj:
            problem = guard_value_problem(key, obj[key])
            if problem is not None:
                raise ValueError(f"rules.{key}: {problem}")
            out[key] = obj[key] if key == "bet_guard" else float(obj[key])
    return out


def _procedures_from_json(obj: dict[str, Any]) -> dict[str, Any]:
    """The table procedures' keys a header holds (only those that are not the default)."""
    out: dict[str, Any] = {}
    for key in PROCEDURE_KEYS:
        if key in obj:
            problem = procedure_value_problem(key, obj[key])
            if problem is not None:
                raise ValueError(f"rules.{key}: {problem}")
            out[key] = procedure_value(key, obj[key])
    return out


def _modes_from_json(obj: dict[str, Any]) -> dict[str, Any]:
    """The table-mode keys a header holds (only those that are not the default)."""
    out: dict[str, Any] = {}
    for key in MODE_KEYS:
        if key not in obj:
            continue
        value = obj[key]
        problem = mode_value_problem(key, value)
        if problem is not None:
            raise ValueError(f"rules.{key}: {problem}")
        out[key] = float(value) if key.endswith("_s") else value
    return out


def _integrity_from_json(obj: dict[str, Any]) -> dict[str, Any]:
    """The optional integrity keys (written only when not the defaults), checked as the
    config's ``integrity:`` section is."""
    d = TableRules()
    cards = obj.get("repeat_cards", d.repeat_cards)
    threshold = obj.get("repeat_threshold", d.repeat_threshold)
    history = obj.get("repeat_history", d.repeat_history)
    for key, problem in (("repeat_cards", repeat_cards_problem(cards, obj["decks"])),
                         ("repeat_history", repeat_history_problem(history))):
        if problem is not None:
            raise ValueError(f"rules.{key}: {problem}")
    problem = repeat_threshold_problem(threshold, cards)
    if problem is not None:
        raise ValueError(f"rules.repeat_threshold: {problem}")
    return {"repeat_cards": cards, "repeat_threshold": threshold, "repeat_history": history}


def _events(path: Path, name: str) -> Iterator[InputEvent]:
    with _open(path, name) as stream:
        header_no, _ = next(_lines(stream, name), (1, b""))
        yield from _read_events(stream, name, header_no)
