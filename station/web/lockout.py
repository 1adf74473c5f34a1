"""A lockout that locks the guesser's account, not the floor (issue 31).

Per account name: ``MAX_FAILURES`` wrong secrets in a row lock that name for ``LOCK_S``,
doubling with each lock that follows without a right secret between (up to ``MAX_LOCK_S``).
A name that is no account is counted the same way, so what happens to a name never says
whether it exists. Times are the wall clock's, so a lock rebuilt from the journal after a
restart (``replay``) ends when it would have. Pure but for the caller's clock; not
thread-safe (station.web.accounts holds its own lock around it).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

MAX_FAILURES: Final = 5
LOCK_S: Final = 60.0
MAX_LOCK_S: Final = 3600.0
# Names remembered at once (the oldest forgotten first): a flood of made-up names cannot
# grow memory, and each name costs the flood 5 guesses of its per-address budget to lock.
MAX_NAMES: Final = 10_000
# What a replay reads of the journal: failures older than this are forgotten.
HISTORY_S: Final = 24 * 3600.0


@dataclass(slots=True)
class _Name:
    failures: int = 0  # wrong in a row since the last lock or right secret
    locks: int = 0  # locks in a row without a right secret between
    until: float = 0.0  # locked until (wall clock)


class Lockout:
    def __init__(self, *, max_failures: int = MAX_FAILURES, lock_s: float = LOCK_S,
                 max_lock_s: float = MAX_LOCK_S, max_names: int = MAX_NAMES) -> None:
        self.max_failures = max_failures
        self.lock_s = lock_s
        self.max_lock_s = max_lock_s
        self.max_names = max_names
        self._names: OrderedDict[str, _Name] = OrderedDict()

    def remaining_s(self, name: str, now: float) -> float:
        """Seconds ``name`` stays locked (0: not locked)."""
        state = self._names.get(name)
        return max(0.0, state.until - now) if state is not None else 0.0

    def failures(self, name: str) -> int:
        state = self._names.get(name)
        return state.failures if state is not None else 0

    def failed(self, name: str, now: float) -> float:
        """One more wrong secret for ``name``: the seconds of the lock it starts, else 0."""
        state = self._names.get(name)
        if state is None:
            state = self._names[name] = _Name()
            while len(self._names) > self.max_names:
                self._names.popitem(last=False)
        self._names.move_to_end(name)
        state.failures += 1
        if state.failures < self.max_failures:
            return 0.0
        state.failures = 0
        state.locks += 1
        lock = min(self.max_lock_s, self.lock_s * 2.0 ** (state.locks - 1))
        state.until = now + lock
        return lock

    def succeeded(self, name: str) -> None:
        self._names.pop(name, None)

    def replay(self, history: Iterable[tuple[str, str, float]]) -> None:
        """Rebuild from the journal's sign-ins, oldest first: (name, verdict, when). A
        ``wrong`` counts, an ``ok`` or ``not_allowed`` (the secret was right) clears;
        anything else (a refusal while locked, a lockout's own row) was not a guess."""
        for name, verdict, at in history:
            if verdict == "wrong":
                self.failed(name, at)
            elif verdict in ("ok", "not_allowed"):
                self.succeeded(name)
