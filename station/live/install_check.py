"""``station verify-install``: the installed package checked against its own ``RECORD``.

pip writes, for every file it installs from the wheel, the file's SHA-256 into the
distribution's ``RECORD`` (PEP 376/627); that is the manifest, and the station keeps no
second one. A file whose bytes no longer hash to its line is *changed*, a listed file that is
gone is *missing*, and a file inside one of the package's folders that ``RECORD`` does not
list (a planted module) is *added*. Lines without a hash are not checkable by design: the
``RECORD`` itself and the ``.pyc`` files pip compiles at install time; ``__pycache__``
folders are skipped for the same reason (Python rewrites them itself).

An editable install (``pip install -e``, a checkout) has no ``RECORD`` lines for its source
files, so nothing meaningful can be checked: that is an error with its reason, not a pass.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath

from station.errors import StationError

# pyproject.toml's [project] name: the distribution whose RECORD is checked.
DISTRIBUTION = "dealer-station"


@dataclass(frozen=True, slots=True)
class Difference:
    kind: str  # "changed", "missing", "added" or "unreadable"
    path: Path

    def line(self) -> str:
        return f"{self.kind}: {self.path}"


@dataclass(frozen=True, slots=True)
class Report:
    root: Path  # the folder RECORD's paths are relative to (site-packages)
    checked: int  # files with a hash, compared
    unhashed: int  # RECORD lines without a hash (RECORD itself, compiled .pyc)
    differences: tuple[Difference, ...]


def _digest(path: Path, algorithm: str) -> str:
    h = hashlib.new(algorithm)
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    # RECORD's form: urlsafe base64 without the padding.
    return base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode("ascii")


def _editable(dist: metadata.Distribution) -> bool:
    text = dist.read_text("direct_url.json")
    if not text:
        return False
    try:
        info = json.loads(text)
    except ValueError:
        return False
    return isinstance(info, dict) and bool((info.get("dir_info") or {}).get("editable"))


def verify(name: str = DISTRIBUTION) -> Report:
    """Compare every hashed ``RECORD`` line of ``name`` with the file on disk; raises
    ``StationError`` when there is no installed wheel to check."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise StationError(f"{name} is not installed in this Python ({sys.prefix}); "
                           "run the station that was installed from its wheel") from None
    files = dist.files or []
    # An editable install says so in direct_url.json; a checkout on sys.path is found by its
    # egg-info, whose file list carries no hash at all. Both have nothing to check against.
    if _editable(dist) or not any(f.hash is not None for f in files):
        raise StationError(f"{name} at {dist.locate_file('')} is an editable install or a "
                           "checkout (pip install -e): its source files have no RECORD "
                           "hashes, so nothing can be verified; run the station installed "
                           "from its wheel")
    root = Path(str(dist.locate_file("")))
    differences: list[Difference] = []
    listed: set[Path] = set()
    checked = unhashed = 0
    for entry in files:
        path = Path(os.path.normpath(root / entry))
        listed.add(path)
        if entry.hash is None:
            unhashed += 1
            continue
        checked += 1
        try:
            ok = _digest(path, entry.hash.mode) == entry.hash.value
        except FileNotFoundError:
            differences.append(Difference("missing", path))
            continue
        except (OSError, ValueError):  # unreadable, or a hash name hashlib does not know
            differences.append(Difference("unreadable", path))
            continue
        if not ok:
            differences.append(Difference("changed", path))
    differences.extend(Difference("added", p) for p in _added(root, files, listed))
    return Report(root, checked, unhashed, tuple(differences))


def _added(root: Path, files: list[metadata.PackagePath], listed: set[Path]) -> list[Path]:
    """Files in the distribution's own top folders (``station/``, ``drivers/``) that
    ``RECORD`` does not list. Shared folders (``bin``, outside site-packages) and the
    ``.dist-info`` are not walked: other packages write there too."""
    tops = {PurePosixPath(f).parts[0] for f in files
            if len(PurePosixPath(f).parts) > 1 and PurePosixPath(f).parts[0] != ".."
            and not PurePosixPath(f).parts[0].endswith(".dist-info")}
    found: list[Path] = []
    for top in sorted(tops):
        for folder, dirs, names in os.walk(root / top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for n in sorted(names):
                path = Path(os.path.normpath(Path(folder) / n))
                if path not in listed:
                    found.append(path)
    return found
