"""``station journal prune -c CONFIG [--dry-run]``: what retention lets go, and why.

Exit codes: 0 listed (and, without ``--dry-run``, deleted what was listed as delete); 1 a
journal listed as delete could not be deleted; 2 a bad config or a folder that cannot be
read. A station may run meanwhile: its lock is on the journal in use, which is never a
candidate, and each journal moved aside is checked for a lock again just before it goes.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from station.journal.prune import FactsCache, Survey, apply, survey
from station.journal.retention import Verdict
from station.live.config import load_config
from station.settings.retention import RetentionLimits


def prune(config_path: Path, *, dry_run: bool) -> int:
    """Raises ``StationError`` (exit 2) for a bad config or an unreadable folder."""
    config = load_config(config_path)
    journal = Path(config.journal_path)
    limits = config.journal_retention
    cache = FactsCache()
    found = survey(journal, config.rules.table, limits or RetentionLimits(0, 0), time.time(),
                   verify_current=True, cache=cache)
    if limits is None:
        # Listed all the same (with what the archive holds of each), and nothing goes.
        found.verdicts = [_unset(v) for v in found.verdicts]
    if found.current_problem:
        print(f"note: the journal in use cannot be read or verified, so the acknowledgements "
              f"it holds are not counted: {found.current_problem}", file=sys.stderr)
    for v in found.verdicts:
        print(f"{found.paths[v.journal.name]}: {'delete' if v.delete else 'keep'}: {v.reason}")
    for path, why in found.foreign:
        print(f"{path}: left alone: not a journal this station moved aside ({why})")
    going = sum(v.delete for v in found.verdicts)
    kept = len(found.verdicts) - going
    if dry_run or not going:
        verb = "would be deleted" if dry_run else "deleted"
        print(f"{going} journal(s) {verb}, {kept} kept" + _unset_note(limits),
              file=sys.stderr)
        return 0
    return _delete(found, cache, config.recording_dir)


def _delete(found: Survey, cache: FactsCache, recording_dir: str | None) -> int:
    done = apply(found, cache, Path(recording_dir) if recording_dir else None,
                 lambda line: print(line, file=sys.stderr))
    print(f"{done.deleted} journal(s) deleted, {done.freed} bytes freed", file=sys.stderr)
    return 1 if done.failed else 0


def _unset(v: Verdict) -> Verdict:
    why = v.reason if v.journal.problem or v.journal.in_use else v.held
    return Verdict(v.journal, False, f"journal.retention is not set, so every journal is "
                                     f"kept; {why}", v.held)


def _unset_note(limits: RetentionLimits | None) -> str:
    return ("; journal.retention is not set in the config: nothing is deleted"
            if limits is None else "")
