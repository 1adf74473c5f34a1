"""Writing what ``station journal export`` makes (a recording, video timecodes): never over
the journal or its own files, never a partial file. Shared by ``station.commands.journal``
and ``station.commands.timecodes``."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, TypeVar

EXIT_CORRUPT = 1  # the journal fails verification: nothing is written
T = TypeVar("T")


def write_output(journal: Path, out: Path, force: bool, what: str, *,
                 write: Callable[[IO[str]], T], option: str) -> T:
    """Run ``write`` on a file beside ``out`` and rename it over ``out`` once complete: a
    failure never leaves a partial file. Never the journal or its own files; an existing
    ``out`` only with ``force``. Raises ``JournalError`` naming ``option``."""
    from station.journal import JournalError  # noqa: PLC0415

    check_output(journal, out, force, option)
    # Written beside the target, then renamed over it: a failure never leaves a partial file.
    tmp = out.with_name(f".{out.name}.partial-{os.getpid()}")
    try:
        with tmp.open("x", encoding="utf-8") as f:
            result = write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, out)
        return result
    except OSError as exc:
        raise JournalError(f"{out}: cannot write {what} ({exc.strerror or exc}); check "
                           "the directory exists, is writable and has space") from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def check_output(journal: Path, out: Path, force: bool, option: str) -> None:
    """Raise ``JournalError`` if ``out`` may not be written: the journal or its own files,
    an existing file without ``force``, a directory."""
    from station.journal import JournalError  # noqa: PLC0415
    from station.journal.files import companions  # noqa: PLC0415

    own = {journal.resolve(), *(p.resolve() for p in companions(journal))}
    if out.resolve() in own or _same_file(out, journal):
        raise JournalError(f"{out}: refusing to write over the journal or its own files; "
                           f"choose another {option}")
    if out.exists() and not force:
        raise JournalError(f"{out}: exists; choose another {option}, or add --force to "
                           "replace it")
    if out.is_dir():
        raise JournalError(f"{out}: is a directory; name a file with {option}")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


