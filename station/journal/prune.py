"""Retention's I/O: survey the journals moved aside beside ``journal.path``, decide
(``station.journal.retention``, pure) and delete what it says, for ``station run`` (at start and
hourly, in a thread of its own) and ``station journal prune`` (docs/journal.md "Retention").

What goes with a journal: its ``-wal``, ``-shm`` and ``-head`` files, and its kept recording
(``recording.dir``: ``<table>-<created>Z-<session>.jsonl`` and the ``-2``, ``-3``... copies
that continue it). The recording holds the same events as the journal, and the journal goes
only when the archive holds it, verified. Raw device traffic is never deleted here: the
archive does not hold it.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from station.journal.aside import (
    Facts,
    is_frozen,
    moved_aside,
    not_ours,
    read_facts,
    stamp_of,
)
from station.journal.errors import JournalError
from station.journal.files import companions
from station.journal.retention import AckSeen, AsideJournal, Verdict, decide, protect
from station.journal.verify import verify_journal
from station.journal.witness import in_use
from station.settings.retention import RetentionLimits

log = logging.getLogger(__name__)

HOURLY_S = 3600.0
STOP_WAIT_S = 2.0
_Key = tuple[int, int, int]


@dataclass(slots=True)
class Survey:
    """What a retention run found: a verdict per journal moved aside (oldest first), the
    files named like one that are not this station's (and why), and the journal in use."""

    verdicts: list[Verdict]
    paths: dict[str, Path]
    foreign: list[tuple[Path, str]]
    current: Facts | None
    current_problem: str = ""


@dataclass(slots=True)
class FactsCache:
    """Facts of journals moved aside, by file: they never change, so a daemon's hourly run
    reads each once, and verifies once each that retention would delete. Keyed by inode,
    size and mtime: a file replaced under the same name is read again."""

    seen: dict[Path, tuple[_Key, Facts | str]] = field(default_factory=dict)
    verified: dict[Path, tuple[_Key, str]] = field(default_factory=dict)  # "" or the finding


def _key(path: Path) -> _Key | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def survey(journal_path: Path, table: str, limits: RetentionLimits, now: float, *,
           verify_current: bool, cache: FactsCache | None = None) -> Survey:
    """Read every journal moved aside and the journal in use (verified whole with
    ``verify_current``; a daemon verified its own at start), decide, and verify whole each
    journal the decision would delete (one that fails is kept, and said so). Raises
    ``JournalError`` only when the folder cannot be listed."""
    cache = cache if cache is not None else FactsCache()
    current: Facts | None = None
    problem = ""
    if journal_path.exists():
        try:
            current = read_facts(journal_path, verify=verify_current)
        except JournalError as exc:
            problem = str(exc)
    aside: list[AsideJournal] = []
    acks: list[AckSeen] = list(current.acks) if current is not None else []
    paths: dict[str, Path] = {}
    foreign: list[tuple[Path, str]] = []
    for path in moved_aside(journal_path):
        key = _key(path)
        if key is None:
            continue
        hit = cache.seen.get(path)
        if hit is None or hit[0] != key:
            try:
                found: Facts | str = read_facts(path, verify=False)
            except JournalError as exc:
                found = str(exc)
            cache.seen[path] = (key, found)
        else:
            found = hit[1]
        if isinstance(found, str):
            # Kept, and listed: a journal that cannot be read is evidence to investigate.
            aside.append(AsideJournal(path.name, "", 0, "", _mtime(path), 0,
                                      problem=found))
            paths[path.name] = path
            continue
        why = not_ours(journal_path, path, found.identity, table)
        if why:
            foreign.append((path, why))
            continue
        aside.append(found.journal)
        acks.extend(replace(a, source=path.name) for a in found.acks)
        paths[path.name] = path
    verdicts = decide(aside, current.journal.shoes if current is not None else 0, acks, now,
                      limits)
    verdicts = protect([_checked(v, paths[v.journal.name], cache) for v in verdicts], acks)
    return Survey(verdicts, paths, foreign, current, problem)


def _checked(v: Verdict, path: Path, cache: FactsCache) -> Verdict:
    """``v``, unless it deletes a journal a station holds now (asked afresh each run) or one
    that fails verification (a journal found damaged is evidence to investigate)."""
    if not v.delete:
        return v
    if in_use(companions(path)[2]):
        return Verdict(v.journal, False, "in use (a station holds its head file's lock)",
                       v.held)
    key = _key(path)
    hit = cache.verified.get(path)
    if hit is None or hit[0] != key:
        frozen = is_frozen(path)
        try:
            verify_journal(path, live=not frozen, frozen=frozen)
            finding = ""
        except JournalError as exc:
            finding = str(exc)
        if key is not None:
            cache.verified[path] = (key, finding)
    else:
        finding = hit[1]
    if finding:
        return Verdict(v.journal, False, f"cannot be read or verified ({finding})", v.held)
    return v


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def recordings_of(facts: Facts, recording_dir: Path | None) -> list[Path]:
    """The kept recording of a journal and the copies that continue it (station.live.assembly's
    naming), as found in ``recording_dir``."""
    if recording_dir is None:
        return []
    ident = facts.identity
    stem = re.escape(f"{ident.table}-{stamp_of(ident.created)}Z-{ident.session}")
    pattern = re.compile(f"{stem}(?:-[0-9]{{1,6}})?\\.jsonl")
    try:
        return sorted(p for p in recording_dir.iterdir()
                      if pattern.fullmatch(p.name) and p.is_file() and not p.is_symlink())
    except OSError:
        return []


def delete_journal(path: Path, recording_dir: Path | None, facts: Facts | None) -> list[Path]:
    """Delete a journal moved aside, its companions and its kept recording; the files
    deleted. Raises ``OSError`` when the journal itself cannot be deleted (nothing else is
    then touched)."""
    path.unlink()
    gone = [path]
    for extra in (*companions(path), *(recordings_of(facts, recording_dir)
                                       if facts is not None else [])):
        with contextlib.suppress(FileNotFoundError):
            extra.unlink()
            gone.append(extra)
    return gone


def facts_of(survey_: Survey, cache: FactsCache, name: str) -> Facts | None:
    hit = cache.seen.get(survey_.paths[name])
    return hit[1] if hit is not None and not isinstance(hit[1], str) else None


@dataclass(frozen=True, slots=True)
class Outcome:
    deleted: int  # journals deleted
    freed: int  # bytes
    failed: int  # journals listed as delete that were not (the run stopped there)


def apply(survey_: Survey, cache: FactsCache, recording_dir: Path | None,
          say: Callable[[str], None]) -> Outcome:
    """Delete what the survey says may go, oldest first; stop at the first that cannot be
    deleted (a journal newer than it may hold the acknowledgement that lets it go). ``say``
    gets one line per deletion or failure."""
    deleted = freed = 0
    for v in survey_.verdicts:
        if not v.delete:
            continue
        path = survey_.paths[v.journal.name]
        facts = facts_of(survey_, cache, v.journal.name)
        if not path.exists() and facts is not None:
            # Another retention run (the station's own, or a prune) got there first.
            say(f"{path}: already deleted meanwhile")
            continue
        # Checked again just before: the file must be the one that was read and verified.
        if facts is None or cache.seen[path][0] != _key(path) or in_use(companions(path)[2]):
            say(f"{path}: not deleted: it changed or a station took it since it was read; "
                "stopping here, the newer journals may hold its acknowledgement")
            return Outcome(deleted, freed, 1)
        sizes = _sizes(path, recording_dir, facts)
        try:
            gone = delete_journal(path, recording_dir, facts)
        except OSError as exc:
            say(f"{path}: cannot be deleted ({exc.strerror or exc}); stopping here, the "
                "newer journals may hold its acknowledgement")
            return Outcome(deleted, freed, 1)
        cache.seen.pop(path, None)
        cache.verified.pop(path, None)
        deleted += 1
        freed += sum(sizes.get(p, 0) for p in gone)
        say(f"deleted {', '.join(str(p) for p in gone)}: {v.reason}")
    return Outcome(deleted, freed, 0)


def _sizes(path: Path, recording_dir: Path | None, facts: Facts) -> dict[Path, int]:
    out = {}
    for p in (path, *companions(path), *recordings_of(facts, recording_dir)):
        with contextlib.suppress(OSError):
            out[p] = p.stat().st_size
    return out


class Retention:
    """``station run``'s retention: a run at start (which is when a journal is moved aside)
    and one every hour after, in a thread of its own so the table's loop never waits on it.
    Never the journal in use: only files named as journals moved aside are candidates."""

    def __init__(self, journal_path: Path, table: str, limits: RetentionLimits,
                 recording_dir: Path | None, *, interval_s: float = HOURLY_S,
                 clock: Callable[[], float] = time.time) -> None:
        self.journal_path = journal_path
        self.table = table
        self.limits = limits
        self.recording_dir = recording_dir
        self.interval_s = interval_s
        self._clock = clock
        self._cache = FactsCache()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.runs = 0

    def run_once(self) -> Outcome:
        try:
            found = survey(self.journal_path, self.table, self.limits, self._clock(),
                           verify_current=False, cache=self._cache)
        except JournalError as exc:
            log.error("journal retention: %s", exc)
            return Outcome(0, 0, 0)
        done = apply(found, self._cache, self.recording_dir,
                     lambda line: log.warning("journal retention: %s", line))
        self.runs += 1
        kept = sum(not v.delete for v in found.verdicts)
        log.info("journal retention: %d journal(s) deleted (%d bytes), %d moved aside kept",
                 done.deleted, done.freed, kept)
        return done

    def start(self) -> None:
        if self._stop.is_set():
            return  # stopped before it was started (a station stopped as it started)
        self._thread = threading.Thread(target=self._loop, name="journal-retention",
                                        daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while True:
            try:
                self.run_once()
            except Exception:  # a bug here must not stop the table; it is logged whole
                log.exception("journal retention: the run failed")
            if self._stop.wait(self.interval_s):
                return

    def stop(self) -> None:
        """Ask the thread to stop and wait briefly: a run in progress only reads, or deletes
        files one by one, so a stop never waits out a long verification (the service's stop
        is bounded: station.live.service.runner); the daemon thread ends with the process."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(STOP_WAIT_S)
            self._thread = None
