"""Output files of the one-shot commands (simulate, replay, export): nothing is destroyed.

Every output is checked before anything is written: it may not be one of the command's inputs
(``replay R --out R`` would empty the incident's evidence before reading it) nor another
output (``--out X --record X`` would interleave two files), and at most one output may be
stdout. Each regular file is then written beside its target under a temporary name and moved
over the target only when the command succeeds, so a refusal or an error half-way leaves
every existing file as it was. A target that is not a regular file (``/dev/null``, a FIFO) is
written directly: replacing it would replace the device node.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

from station.errors import InputFileError

STDOUT = "-"


@dataclass(slots=True)
class _Target:
    option: str
    path: str
    direct: bool
    temp: Path | None = None
    stream: IO[str] | None = None


def _identity(path: str) -> tuple[str, tuple[int, int] | None]:
    """The resolved path and, for an existing file, its device and inode (hard links)."""
    try:
        st = os.stat(path)
        ino: tuple[int, int] | None = (st.st_dev, st.st_ino)
    except (OSError, ValueError):
        ino = None
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        real = path
    return real, ino


class Outputs:
    """Claim every output first (``claim``), then open them together (``with``).

    Raises ``InputFileError`` naming the option, the path and the fix. On leaving the
    ``with`` block normally the files are moved into place; on an exception they are dropped
    and the targets are untouched.
    """

    def __init__(self, inputs: Iterable[Path | str | None] = ()) -> None:
        self._inputs = {
            _identity(str(p)): str(p) for p in inputs if p is not None and str(p) != STDOUT
        }
        self._targets: list[_Target] = []

    def claim(self, option: str, path: str | Path | None) -> None:
        if path is None:
            return
        name = str(path)
        if not name:
            raise InputFileError(f"{option}: an empty file name; give a file, or - for stdout")
        if name == STDOUT:
            other = next((t.option for t in self._targets if t.path == STDOUT), None)
            if other is not None:
                raise InputFileError(f"{option} -: {other} already writes to stdout; give "
                                     "one of them a file")
            self._targets.append(_Target(option, name, direct=True))
            return
        if "\0" in name:
            raise InputFileError(f"{option}: the file name contains a NUL byte")
        real, ino = _identity(name)
        for (in_real, in_ino), shown in self._inputs.items():
            if real == in_real or (ino is not None and ino == in_ino):
                raise InputFileError(
                    f"{option} {name}: that is an input of this command ({shown}); writing it "
                    "would destroy it: choose another file"
                )
        for t in self._targets:
            if t.path != STDOUT and _identity(t.path)[0] == real:
                raise InputFileError(
                    f"{option} {name}: {t.option} writes the same file; give each output its "
                    "own file"
                )
        try:
            mode = os.stat(name).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as exc:
            raise InputFileError(f"{option} {name}: cannot write ({exc.strerror})") from exc
        if mode is not None and stat.S_ISDIR(mode):
            raise InputFileError(f"{option} {name}: is a directory; name a file")
        parent = Path(name).parent
        if mode is None and not parent.is_dir():
            raise InputFileError(
                f"{option} {name}: cannot write: the folder {parent} does not exist; create "
                "it first"
            )
        direct = mode is not None and not stat.S_ISREG(mode)
        self._targets.append(_Target(option, name, direct=direct))

    def __getitem__(self, option: str) -> IO[str] | None:
        """The open stream of ``option`` (inside the ``with`` block), or None if unclaimed."""
        for t in self._targets:
            if t.option == option:
                return t.stream
        return None

    def __enter__(self) -> Outputs:
        try:
            for t in self._targets:
                t.stream = self._open(t)
        except BaseException:
            self._drop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None:
            self._drop()
            return
        try:
            self._commit()
        except OSError as err:
            self._drop()
            raise InputFileError(f"cannot finish writing the outputs ({err})") from err

    # --- internals ------------------------------------------------------------------------
    @staticmethod
    def _open(t: _Target) -> IO[str]:
        if t.path == STDOUT:
            return sys.stdout
        try:
            if t.direct:
                return open(t.path, "w", encoding="utf-8")  # closed by _commit or _drop
            target = Path(t.path)
            t.temp = target.with_name(f".{target.name}.{os.getpid()}.part")
            return t.temp.open("x", encoding="utf-8")
        except OSError as exc:
            raise InputFileError(f"{t.option} {t.path}: cannot write ({exc.strerror})") from exc

    def _commit(self) -> None:
        for t in self._targets:
            if t.stream is None or t.path == STDOUT:
                if t.stream is not None:
                    t.stream.flush()
                continue
            t.stream.close()
            if t.temp is not None:
                os.replace(t.temp, t.path)
                t.temp = None

    def _drop(self) -> None:
        for t in self._targets:
            if t.stream is not None and t.path != STDOUT:
                t.stream.close()
            if t.temp is not None:
                t.temp.unlink(missing_ok=True)
                t.temp = None
