"""Wire ``station run`` from its config: journal (recovered), drivers, upstream, display.

Everything that can be wrong with the set-up is found here, before the loop starts, and
raised as a ``StationError`` naming the file, the key and the fix (exit 2).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from drivers.base import EventSource
from drivers.events import Command, ConfigChanged
from station.errors import ConfigError, StationError
from station.journal import Journal, JournalError
from station.journal.files import companions
from station.journal.keptrecording import KeptRecording
from station.journal.outbox import Outbox
from station.journal.prune import Retention
from station.journal.recovery import recover
from station.kinds.displays import DisplayContext
from station.kinds.outlets import OutletContext
from station.kinds.readers import DeviceHooks
from station.kinds.registry import BUTTONS, LIVE, RAW_BYTES, RAW_VIDEO, SIGNED, kind
from station.live.config import StationConfig
from station.live.daemon import Daemon
from station.settings.configprint import ConfigPrint, print_of
from station.table.station import RESTART
from station.upstream.sinks import AppendLog
from station.wire.feed import Feed
from station.wire.recording import header_line
from station.wire.signing import Signer, load_signer

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Assembled:
    daemon: Daemon
    recovered_events: int
    session: str
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        for close in reversed(self.closers):
            with contextlib.suppress(Exception):
                close()


def build_daemon(config: StationConfig, *,
                 outbox: Callable[[Outbox], Outbox] | None = None) -> Assembled:
    """The daemon of ``config``, its station rebuilt from the journal. Raises StationError.
    ``outbox``: wraps the journal's outbox for the publisher (the metrics time deliveries)."""
    closers: list[Callable[[], None]] = []
    try:
        return _build(config, closers, outbox)
    except BaseException:
        for close in reversed(closers):
            with contextlib.suppress(Exception):
                close()
        raise


def _build(config: StationConfig, closers: list[Callable[[], None]],
           wrap: Callable[[Outbox], Outbox] | None = None) -> Assembled:
    reader_kind = kind("reader", config.reader.type)
    if LIVE in reader_kind.traits and BUTTONS not in kind("display", config.display.type).traits:
        # A live table needs the dealer's NEW SHOE / OPEN / CLOSE BETTING controls, which
        # only the web display gives.
        raise ConfigError(
            f"{config.path}: reader.type {config.reader.type}: a live table needs the dealer's "
            "buttons (NEW SHOE, OPEN and CLOSE BETTING), which come with the web display; set "
            "display.type: web, or check the scanner with `station monitor`")
    now = _print(config)
    journal, (carried_seq, carried_events_seq), previous = _open_journal(config, now)
    closers.append(journal.close)
    header = journal.header
    session = header.session
    recorder = _kept_recording(config, journal) if config.recording_dir is not None else None
    raw_base: Path | None = None
    if recorder is not None:
        closers.append(recorder.close)
        # Raw traffic is new at each start: its files are named by the start.
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        raw_base = recorder.path.with_name(
            f"{_recording_stem(config, journal)}.{stamp}-{secrets.token_hex(3)}.jsonl")
    # The journal's one recording is brought up to date while recovery reads the journal.
    try:
        rec = recover(journal, recorder.sync if recorder is not None else None)
        if recorder is not None:
            recorder.done()
    except OSError as exc:
        raise _recording_error(config, exc) from exc
    station = rec.station
    signer = _signer(config)
    # Message numbers only ever increase for a table, across a change of journal too, and
    # the events topic's prev_seq links across it.
    feed = Feed(config.rules.table, config.rules.decks, signer,
                max(rec.last_message_seq, carried_seq),
                rec.last_events_seq if rec.last_events_seq is not None else carried_events_seq,
                head=journal.head)

    sources = _sources(config, raw_base, closers, session, rec.shoe_position)
    results = _results(config, "path", config.results_path)
    closers.append(results.close)
    announcements = None
    if config.announcements_path is not None:
        if (config.announcements_path != "-" and
                Path(config.announcements_path).resolve() == Path(config.results_path).resolve()):
            raise ConfigError(
                f"{config.path}: results.announcements_path: the same file as results.path; "
                "give announcements a file of their own, or null")
        announcements = _results(config, "announcements_path", config.announcements_path)
        closers.append(announcements.close)
    daemon = Daemon(station, sources, journal, feed, results=results,
                    announcements=announcements, recorder=recorder)
    box: Outbox = journal if wrap is None else wrap(journal)
    publish = kind("upstream", config.upstream.type).build
    assert publish is not None  # every outlet kind builds one
    daemon.outlet = publish(OutletContext(config, box, signer, daemon.upstream_command,
                                          rec.command_ids, journal.head))
    show = kind("display", config.display.type).build
    if show is not None:  # after the outlet: the web display asks it whether it is connected
        daemon.display = show(DisplayContext(config, daemon, tuple(s.name for s in sources),
                                             closers, rec.shoe_rounds))
    if rec.events:
        # Journaled like any input, so a replay shows the restart and what it paused.
        daemon.submit(Command(RESTART, "station", time.time()))
    change = _config_change(now, rec.config if previous is None else previous[1],
                            previous, bool(rec.events) or previous is not None)
    if change is not None:
        log.warning("config: changed since the journal's last (%s)",
                    ", ".join(change.keys) or "the files only")
        daemon.submit(change)
    log.info("journal %s: %d events recovered; session %s", config.journal_path, rec.events,
             session)
    if config.journal_retention is not None:
        # At start (a journal is moved aside only at a start, above) and hourly after.
        retention = Retention(Path(config.journal_path), config.rules.table,
                              config.journal_retention,
                              Path(config.recording_dir) if config.recording_dir else None)
        # Its first survey once READY=1 is out: no card waits for it (issue 35).
        daemon.after_ready.append(retention.start)
        closers.append(retention.stop)
    return Assembled(daemon, rec.events, session, closers)


# --- the journal --------------------------------------------------------------------------
_FRESH: tuple[int, int | None] = (0, None)  # no journal replaced: numbering starts afresh
# The journal moved aside for this one: its id (hex) and the config it was last written under.
Previous = tuple[str, ConfigPrint | None]


def _print(config: StationConfig) -> ConfigPrint:
    paytable = Path(config.paytable.path) if config.paytable is not None else None
    return print_of(config.source, Path(config.path), paytable)


def _config_change(now: ConfigPrint, last: ConfigPrint | None, previous: Previous | None,
                   used: bool) -> ConfigChanged | None:
    """The change to journal at this start, if the config or paytable differ from the
    journal's last (``last``: of the journal moved aside when ``previous`` names one). A
    journal that recorded none (older) gets one with the old hashes unknown, once; a new
    journal with no predecessor has the print in its header and needs none."""
    if not used:
        return None
    if last is not None and now.same_files(last) and not now.changed(last):
        return None
    return ConfigChanged(
        last.config if last else None, last.paytable if last else None, now.config,
        now.paytable, now.changed(last) if last else (), now.values,
        previous[0] if previous is not None else None, time.time())


def _open_journal(config: StationConfig, now: ConfigPrint
                  ) -> tuple[Journal, tuple[int, int | None], Previous | None]:
    """The journal, the last message seq and last events seq of the one it replaces
    ((0, None) if none), and that one's id and config (None if none)."""
    path = Path(config.journal_path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{config.path}: journal.path: cannot create {path.parent} "
                          f"({exc.strerror}); make it writable by the station's user") from exc
    if not path.exists():
        return _create(path, config, now), _FRESH, None
    journal = Journal.open(path)
    changed = _rules_changed(journal, config)
    if not changed and journal.last_seq < ROTATE_RECORDS:
        return journal, _FRESH, None
    try:
        probe = recover(journal)
        backlog = journal.backlog()
    except BaseException:
        journal.close()
        raise
    phase = probe.station.dealing.state
    at_boundary = phase in ("no_shoe", "shoe_closed") and not backlog
    if not changed:
        if not at_boundary:
            return journal, _FRESH, None  # long, but a shoe is in play: moved aside later
        journal.close()
        archived = _archive(path, journal.header.created)
        log.info("journal: %d records; kept as %s, a new journal starts", probe.events,
                 archived)
        return (_create(path, config, now), (probe.last_message_seq, probe.last_events_seq),
                (journal.journal_id.hex(), probe.config))
    if not at_boundary:
        journal.close()
        why = (f"{backlog} messages are not yet delivered upstream" if backlog else
               f"a shoe is in play ({phase.replace('_', ' ')})")
        raise ConfigError(
            f"{config.path}: the table's {changed} changed, but {why} under the journal "
            f"{path}: start with the previous settings until the shoe is closed and upstream "
            "has every message; the journal then moves aside by itself")
    journal.close()
    archived = _archive(path, journal.header.created)
    log.warning("journal: table %s changed at a shoe boundary; %s kept as %s, a new journal "
                "starts", changed, path, archived)
    fresh = _create(path, config, now)
    return (fresh, (probe.last_message_seq, probe.last_events_seq),
            (journal.journal_id.hex(), probe.config))


def _create(path: Path, config: StationConfig, now: ConfigPrint) -> Journal:
    return Journal.create(path, config.rules, config.paytable, secrets.token_hex(6),
                          now.to_json())


# A journal is verified whole at every start (about 15 us a record): past this many records
# (about three days of a busy table) it is moved aside at the next start between shoes.
ROTATE_RECORDS = 50_000


def _rules_changed(journal: Journal, config: StationConfig) -> str:
    header = journal.header
    if header.rules != config.rules:
        return "rules"
    old, new = header.paytable, config.paytable
    if (old is None) != (new is None) or (
            old is not None and new is not None
            and (old.text, old.variants) != (new.text, new.variants)):
        return "paytable"
    return ""


def _archive(path: Path, created: str) -> Path:
    stamp = "".join(ch for ch in created if ch.isalnum())[:15] or "old"
    target = path.with_name(f"{path.stem}-{stamp}{path.suffix}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.stem}-{stamp}-{n}{path.suffix}")
    for old, new in zip((path, *companions(path)), (target, *companions(target)), strict=True):
        if old.exists():
            old.rename(new)
    return target


# --- upstream -----------------------------------------------------------------------------
def _signer(config: StationConfig) -> Signer | None:
    up = config.upstream
    try:
        return load_signer(up.signing_key_file)
    except ConfigError as exc:
        if SIGNED in kind("upstream", up.type).traits or up.signing_key_file is not None:
            raise ConfigError(f"{config.path}: {exc}") from exc
        log.warning("upstream: no signing key, so the %s upstream's messages are unsigned "
                    "(set upstream.signing_key_file; `station keygen DIR` makes one)", up.type)
        return None


# --- the table and the files --------------------------------------------------------------
def _sources(config: StationConfig, raw_base: Path | None, closers: list[Callable[[], None]],
             session: str, shoe_position: tuple[int, int, bool, int]) -> list[EventSource]:
    """The table's reader (its kind's device, or the simulated dealer) and, with a live
    reader, the cut-card sensor; their raw traffic kept beside the recording when
    ``recording.raw`` asks: the scanner's bytes, the camera's frames, in files of this
    start's own (``raw_base``: the recording's name and the start's time)."""
    from station.live.devices import cut_card_device  # noqa: PLC0415 - drivers only when chosen

    reader = kind("reader", config.reader.type)
    hooks = DeviceHooks(session=session, shoe_position=shoe_position)
    if config.recording_raw and raw_base is not None:
        if RAW_BYTES in reader.traits:
            from station.journal.rawtraffic import RawTraffic, raw_path  # noqa: PLC0415

            raw = RawTraffic.create(raw_path(raw_base, "scanner"), "scanner")
            closers.append(raw.close)
            hooks = replace(hooks, on_bytes=raw.write)
        elif RAW_VIDEO in reader.traits:
            from station.journal.rawtraffic import raw_path  # noqa: PLC0415

            hooks = replace(hooks, record_to=raw_path(raw_base, "camera", ".avi"))
    assert reader.build is not None  # every reader kind builds its source
    sources: list[EventSource] = [reader.build(config, hooks)]
    sensor = cut_card_device(config) if LIVE in reader.traits else None
    return sources if sensor is None else [*sources, sensor]


def _results(config: StationConfig, key: str, path: str) -> AppendLog:
    try:
        return AppendLog(path)
    except OSError as exc:
        raise ConfigError(
            f"{config.path}: results.{key}: cannot append to {path} ({exc.strerror}); make it "
            "writable by the station's user, or use -"
        ) from exc


def _recording_stem(config: StationConfig, journal: Journal) -> str:
    """One recording per journal: named by table, the journal's creation and its session."""
    created = "".join(ch for ch in journal.header.created if ch.isalnum())[:15] or "old"
    return f"{journal.header.rules.table}-{created}Z-{journal.header.session}"


def _kept_recording(config: StationConfig, journal: Journal) -> KeptRecording:
    """The journal's recording, opened to be brought up to date (never overwritten)."""
    folder = Path(config.recording_dir or ".")
    h = journal.header
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return KeptRecording(folder, _recording_stem(config, journal),
                             header_line(h.rules, h.paytable, h.session).encode())
    except OSError as exc:
        raise _recording_error(config, exc) from exc


def _recording_error(config: StationConfig, exc: OSError) -> ConfigError:
    where = exc.filename or config.recording_dir
    return ConfigError(
        f"{config.path}: recording.dir: cannot write a recording in {config.recording_dir} "
        f"({where}: {exc.strerror or exc}); make it writable by the station's user, with free "
        "space, or set it to null")


__all__ = ["Assembled", "JournalError", "StationError", "build_daemon"]
