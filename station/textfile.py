"""Read one small input file as text, or refuse it with a message naming the file (issue 7).

Every input the station reads by path (configs, fault scripts, paytables, shoe files) comes
through here, so the same four failures read the same everywhere: the path cannot be opened
(missing, a folder, a name too long, a NUL in it), the file is larger than any real one, it
is not UTF-8, or it starts with a byte order mark (accepted: editors on Windows add one).
"""

from __future__ import annotations

from pathlib import Path

from station.errors import StationError
from station.limits import MAX_FILE_BYTES, short

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

    ``what`` names the file's role in the message ("config", "shoe file").
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
        raise error(f"{name}: the {what} is larger than {limit // 1024} KiB; "
                    f"this is not a {what} (check the path)")
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
