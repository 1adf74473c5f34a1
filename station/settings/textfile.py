"""Read one small input file as text, or refuse it with a message naming the file (issue 7).

Every input the station reads by path (configs, fault scripts, paytables, shoe files) comes
through here, so the same four failures read the same everywhere: the path cannot be opened
(missing, a folder, a name too long, a NUL in it), the file is larger than any real one, it
is not UTF-8, or it starts with a byte order mark (accepted: editors on Windows add one).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from station.errors import StationError
from station.game.limits import MAX_FILE_BYTES, MAX_LINE_BYTES, short

BOM = b"\xef\xbb\xbf"


def describe_path(path: Path | str) -> str:
    """The path as shown in messages: in full unless it holds control characters or is
    absurdly long (a fuzzed or pasted value)."""
    text = str(path)
    if len(text) > 300 or any(ord(c) < 32 for c in text):
        return short(text)
    return text


def read_text(path: Path, what: str, error: type[StationError],
              limit: int = MAX_FILE_BYTES) -> str:
    """The text of ``path``; raises ``error`` naming the file and what is wrong.

    ``what`` names the file's role in the messages ("config", "shoe file").
    """
    name = describe_path(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise error(f"{name}: cannot read {what} ({exc.strerror or exc}); "
                    "check the path") from None
    except ValueError:  # a NUL byte in the path
        raise error(f"{name}: cannot read {what} (not a usable file name); "
                    "check the path") from None
    if len(data) > limit:
        raise error(f"{name}: cannot read {what} (larger than {limit // 1024} KiB, more than "
                    "any real one); check the path")
    return decode(data, name, error)


def decode(data: bytes, name: str, error: type[StationError], where: str = "") -> str:
    """UTF-8 ``data`` without a leading byte order mark; ``where`` (", line 3") is added to
    the message naming ``name``."""
    skip = len(BOM) if data.startswith(BOM) else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            f"{name}{where}: not UTF-8 text (byte {exc.start + skip}); save it as UTF-8"
        ) from None


MAX_INT_DIGITS = 30


def _bounded_int(digits: str) -> int:
    if len(digits) > MAX_INT_DIGITS:
        raise ValueError(f"a number of {len(digits)} digits is too long")
    return int(digits)


def parse_json(text: str) -> Any:
    """One JSON value, without the standard module's traps: orjson refuses nesting deeper
    than 1024 and reads numbers as at most a double, where ``json`` recursed until
    ``RecursionError`` or built a 400-digit integer. Raises ``ValueError`` saying what is
    wrong.

    ``NaN`` and ``Infinity`` (which ``json.dumps`` writes and orjson refuses) are read by
    the standard module instead, with whole numbers bounded, so the caller's range check can
    name the field at fault.
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc):
            raise ValueError("nested more than 1024 levels deep") from None
    try:
        return json.loads(text, parse_int=_bounded_int)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} at column {exc.colno}") from None


def bounded_lines(stream: IO[bytes], where: Callable[[int], str], what: str,
                  error: type[StationError]) -> Iterator[tuple[int, bytes]]:
    """(line number, line) for every line that is not blank. A line longer than any the
    station writes is refused (``error``: "<where(n)>: longer than ... KiB; <what>") without
    being read whole."""
    line_no = 0
    while True:
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        line_no += 1
        if len(line) > MAX_LINE_BYTES:
            raise error(f"{where(line_no)}: longer than {MAX_LINE_BYTES // 1024} KiB; {what}")
        if line.strip():
            yield line_no, line
