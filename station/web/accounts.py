"""Named sign-in: an account's name and PIN checked against one service's accounts file,
its roles against the action (station.table.roles), with a lockout of that account alone
(station.web.lockout) that the journal brings back after a restart (issue 31).

Every failure is the same to the one who tried (``WRONG``: "wrong name or PIN"): a name
that is no account is checked against a dummy entry at the same cost, a PIN of another
account is just wrong, and a locked account answers as a wrong PIN would. Only the
journal, the alert and the logs say which it was. Checks run on the one secret-check
thread (station.web.secretpool), in turn, so a failure is counted before the next check of
any account looks, whatever the parallelism: at most ``MAX_FAILURES`` checked guesses per
account per lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from station.errors import ConfigError
from station.table.roles import allows
from station.web import pins
from station.web.lockout import Lockout

WRONG: Final = "wrong name or PIN"  # every failure's answer, whatever the failure was


class Verdict:
    OK = "ok"
    WRONG = "wrong"  # no such account, or not its PIN
    LOCKED = "locked"  # refused without a check: the account is locked
    NOT_ALLOWED = "not_allowed"  # the right PIN, but no role of the account allows it
    NONE = "no_credentials"  # the service has no accounts file, or it cannot be read


@dataclass(frozen=True, slots=True)
class Outcome:
    verdict: str
    name: str
    roles: tuple[str, ...] = ()
    lock_s: float = 0.0  # a lock this check started (the 5th wrong in a row)
    failures: int = 0  # the account's wrong PINs in a row after this check
    detail: str = ""  # for the journal and the logs, never for the one who tried

    @property
    def ok(self) -> bool:
        return self.verdict == Verdict.OK


class Accounts:
    """One service's accounts file (re-read when it changes) and its lockout. ``default``:
    the roles of a line without ``roles=`` (a PIN file from before roles). Thread-safe;
    ``check`` blocks, so call it on the secret-check thread (``check_async`` does)."""

    def __init__(self, path: Path | None, default: tuple[str, ...], *,
                 lockout: Lockout | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.default = default
        self.lockout = lockout or Lockout()
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[str, pins.Entry] = {}
        self._stamp: tuple[float, int] | None = None
        if path is not None:
            self._reload()

    def restore(self, history: Iterable[tuple[str, str, float]]) -> None:
        """The lockout as the journal's sign-ins leave it (station.web.lockout.replay)."""
        with self._lock:
            self.lockout.replay(history)

    def _reload(self) -> None:
        assert self.path is not None
        try:
            st = self.path.stat()
            stamp: tuple[float, int] | None = (st.st_mtime, st.st_size)
        except OSError:
            stamp = None
        if stamp != self._stamp or stamp is None:
            self._entries = {e.name: e for e in pins.load(self.path)}
            self._stamp = stamp

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._entries)

    def check(self, name: str, pin: str, action: str) -> Outcome:
        """Is ``pin`` ``name``'s, and may ``name`` take ``action``? Blocks for one scrypt."""
        now = self.clock()
        with self._lock:
            if self.path is None:
                return Outcome(Verdict.NONE, name, detail="no accounts file in the config")
            try:
                self._reload()
            except ConfigError as exc:
                return Outcome(Verdict.NONE, name, detail=str(exc))
            if not self._entries:
                return Outcome(Verdict.NONE, name, detail="no account yet (`station "
                               "accounts add NAME --role ROLE`)")
            left = self.lockout.remaining_s(name, now)
            if left > 0:
                return Outcome(Verdict.LOCKED, name, failures=self.lockout.max_failures,
                               detail=f"locked for {left:.0f} s more")
            entry = self._entries.get(name)
        right = (entry or pins.DUMMY).matches(pin) and entry is not None
        with self._lock:
            if not right:
                lock = self.lockout.failed(name, self.clock())
                failures = self.lockout.max_failures if lock else self.lockout.failures(name)
                what = "not an account" if entry is None else "not its PIN"
                more = f"; locked for {lock:.0f} s" if lock else ""
                return Outcome(Verdict.WRONG, name, lock_s=lock, failures=failures,
                               detail=f"{what} ({failures} wrong in a row{more})")
            self.lockout.succeeded(name)
        assert entry is not None
        roles = entry.roles_or(self.default)
        if not allows(roles, action):
            return Outcome(Verdict.NOT_ALLOWED, name, roles,
                           detail=f"roles {', '.join(roles)} do not allow {action}")
        return Outcome(Verdict.OK, name, roles)
