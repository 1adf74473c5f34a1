"""Accounts: names, PINs hashed with scrypt, and roles, in a credentials file, never in the
YAML (one file per service: the station's ``display.credentials_file``, the pit's
``pit.pins_file``).

One line per account: ``NAME scrypt$N$R$P$SALT$HASH [roles=ROLE,ROLE]`` (salt and hash in
hex). ``#`` starts a comment. ``station accounts add NAME --role ROLE`` (and the older
``station pin set NAME``) writes it (mode 0600, replaced atomically). A line without
``roles=`` is one of the PIN files written before accounts had roles: it holds the
service's own role (the station's supervisor, the pit's pit boss), so an upgrade locks
nobody out. A PIN is also what a badge reader types (a keyboard-wedge scanner), so any 4-64
printable characters. The dealer page's keypad still knows a supervisor by the PIN alone,
so two accounts of one file never share one.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from station.errors import ConfigError
from station.table.roles import SUPERVISOR, roles_problem

# scrypt cost: about 50 ms a check on the dealer PC, which the lockout makes a brute force
# of a 4-digit PIN take days instead of seconds.
N, R, P = 2**14, 8, 1
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
PIN_RE = re.compile(r"[\x21-\x7e]{4,64}")
MAX_FILE_BYTES = 64 * 1024
MAX_FAILURES = 5  # in a row, then locked out
LOCKOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    n: int
    r: int
    p: int
    salt: bytes
    digest: bytes
    roles: tuple[str, ...] | None = None  # None: a line of a PIN file of before roles

    def roles_or(self, default: tuple[str, ...]) -> tuple[str, ...]:
        return default if self.roles is None else self.roles

    def matches(self, pin: str) -> bool:
        got = hashlib.scrypt(pin.encode(), salt=self.salt, n=self.n, r=self.r, p=self.p,
                             dklen=len(self.digest), maxmem=256 * 1024 * 1024)
        return hmac.compare_digest(got, self.digest)

    def line(self) -> str:
        roles = "" if self.roles is None else f" roles={','.join(self.roles)}"
        return (f"{self.name} scrypt${self.n}${self.r}${self.p}${self.salt.hex()}$"
                f"{self.digest.hex()}{roles}")


def hash_pin(name: str, pin: str, roles: tuple[str, ...] | None = None) -> Entry:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=N, r=R, p=P, dklen=32)
    return Entry(name, N, R, P, salt, digest, roles)


# Checked against when a name has no account, so a wrong name costs the same time as a
# wrong PIN (no timing oracle): a random secret nobody knows, the cost of a real entry.
DUMMY: Final = Entry("", N, R, P, b"\0" * 16, b"\0" * 32)


def pin_problem(pin: str) -> str | None:
    if not PIN_RE.fullmatch(pin):
        return "a PIN is 4 to 64 characters without spaces (digits, or a badge's code)"
    return None


def parse(path: Path, text: str) -> list[Entry]:
    """The entries of a credentials file; raises ConfigError naming the line."""
    entries: list[Entry] = []
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        roles: tuple[str, ...] | None = None
        if len(parts) == 3 and parts[2].startswith("roles="):
            roles = tuple(parts[2].removeprefix("roles=").split(","))
            why = roles_problem(roles)
            if why is not None:
                raise ConfigError(f"{path}: line {no}: {why}; write it with `station "
                                  "accounts add NAME --role ROLE`")
            parts = parts[:2]
        fields = parts[1].split("$") if len(parts) == 2 else []
        ok = (len(parts) == 2 and NAME_RE.fullmatch(parts[0]) is not None
              and len(fields) == 6 and fields[0] == "scrypt")
        try:
            n, r, p = (int(f) for f in fields[1:4]) if ok else (0, 0, 0)
            salt, digest = (bytes.fromhex(fields[4]), bytes.fromhex(fields[5])) if ok else (b"",
                                                                                           b"")
        except ValueError:
            ok = False
        if not ok or not (2 <= n <= 2**20 and n & (n - 1) == 0 and 1 <= r <= 32
                          and 1 <= p <= 16 and len(salt) >= 8 and 16 <= len(digest) <= 64):
            raise ConfigError(f"{path}: line {no}: not an account (NAME scrypt$N$R$P$SALT$HASH "
                              "[roles=ROLE,...]); write it with `station accounts add NAME`")
        if any(e.name == parts[0] for e in entries):
            raise ConfigError(f"{path}: line {no}: {parts[0]} appears twice; keep one line")
        entries.append(Entry(parts[0], n, r, p, salt, digest, roles))
    return entries


def load(path: Path) -> list[Entry]:
    """Read ``path`` (missing: no supervisors yet). Raises ConfigError."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror}); make it readable by the "
                          "station's user") from exc
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_FILE_BYTES} bytes: not a PIN file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text: not a PIN file") from exc
    return parse(path, text)


def save(path: Path, entries: list[Entry]) -> None:
    """Write ``entries`` to ``path`` under a temporary name, mode 0600, then move it over.

    Run as root (``station pin set`` on a PC where the service runs under its unit's own
    user), the file goes to the owner of the file it replaces, or of the folder it is written
    in: a unit's state directory belongs to the unit's user, so the service can read the PINs
    root wrote there, and nobody else can."""
    body = "# accounts: name, PIN (scrypt), roles; edit with `station accounts`\n" + "".join(
        e.line() + "\n" for e in entries)
    path.parent.mkdir(parents=True, exist_ok=True)
    owner = _owner(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        if owner is not None:
            os.fchown(fd, *owner)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _owner(path: Path) -> tuple[int, int] | None:
    """Whom a file written as root should belong to (see ``save``); None when not root."""
    if os.geteuid() != 0:
        return None
    for where in (path, path.parent):
        try:
            st = where.stat()
        except FileNotFoundError:
            continue
        return st.st_uid, st.st_gid
    return None


class Verdict:
    OK = "ok"
    WRONG = "wrong"
    LOCKED = "locked"
    NONE = "no_credentials"


class PinChecker:
    """Checks PINs against the credentials file (re-read when it changes), with a lockout
    after ``MAX_FAILURES`` wrong PINs in a row. Thread-safe; the lockout lives in memory.
    The dealer page's keypad (a PIN alone); named checks are station.web.accounts'. Run it
    on the secret-check thread (station.web.secretpool), never on another.

    One check at a time: checks run in worker threads, and two that both hashed before
    either counted its failure would each be allowed a guess (issue 18: 100 parallel wrong
    PINs got 10 guesses per lockout). Held in turn, the sixth waits, then finds the lock."""

    def __init__(self, path: Path | None, *, max_failures: int = MAX_FAILURES,
                 lockout_s: float = LOCKOUT_S) -> None:
        self.path = path
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self._lock = threading.Lock()
        self._one_at_a_time = threading.Lock()
        self._entries: list[Entry] = []
        self._stamp: tuple[float, int] | None = None
        self.failures = 0
        self.locked_until = 0.0
        if path is not None:
            self._reload()

    def _reload(self) -> None:
        assert self.path is not None
        try:
            st = self.path.stat()
            stamp: tuple[float, int] | None = (st.st_mtime, st.st_size)
        except OSError:
            stamp = None
        if stamp != self._stamp or stamp is None:
            self._entries = load(self.path)
            self._stamp = stamp

    def roles_of(self, name: str, default: tuple[str, ...] = (SUPERVISOR,)) -> tuple[str, ...]:
        """The roles of ``name``'s account as last read (a line without roles: ``default``,
        the station's supervisor, so PIN files of before roles keep working)."""
        with self._lock:
            entry = next((e for e in self._entries if e.name == name), None)
        return () if entry is None else entry.roles_or(default)

    def check(self, pin: str) -> tuple[str, str]:
        """(verdict, the supervisor's name or why not). Blocks while another check runs."""
        verdict, detail, _ = self.check_counted(pin)
        return verdict, detail

    def check_counted(self, pin: str) -> tuple[str, str, int | None]:
        """``check`` with its figure: the tries left after a wrong PIN, the seconds locked
        for a lockout (None otherwise), so a page can word the refusal from its parts."""
        with self._one_at_a_time:  # the figure of this check, before the next one runs
            verdict, detail = self._check(pin)
            with self._lock:
                if verdict == Verdict.WRONG:
                    return verdict, detail, self.max_failures - self.failures
                if verdict == Verdict.LOCKED:
                    return verdict, detail, max(0, round(self.locked_until - time.monotonic()))
            return verdict, detail, None

    def _check(self, pin: str) -> tuple[str, str]:
        now = time.monotonic()
        with self._lock:
            if self.path is None:
                return Verdict.NONE, "no display.credentials_file in the config"
            if now < self.locked_until:
                return Verdict.LOCKED, f"locked for {self.locked_until - now:.0f} s more"
            try:
                self._reload()
            except ConfigError as exc:
                return Verdict.NONE, str(exc)
            if not self._entries:
                return Verdict.NONE, "no supervisor has a PIN yet (`station pin set NAME`)"
            entries = list(self._entries)
        found = next((e.name for e in entries if e.matches(pin)), None)
        with self._lock:
            if found is not None:
                self.failures = 0
                return Verdict.OK, found
            self.failures += 1
            if self.failures >= self.max_failures:
                self.failures = 0
                self.locked_until = time.monotonic() + self.lockout_s
                return Verdict.LOCKED, (f"{self.max_failures} wrong PINs in a row: locked for "
                                        f"{self.lockout_s:.0f} s")
            return Verdict.WRONG, f"wrong PIN ({self.max_failures - self.failures} tries left)"
