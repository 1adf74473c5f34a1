"""The station's clock check: is the system clock synchronised, and did it jump?

The station's timestamps are evidence (the journal, every upstream message, a video's
timecodes), so the daemon checks at start and every ``CHECK_EVERY_S`` that the kernel
considers the clock synchronised (NTP, chrony or systemd-timesyncd keep it so) and that the
wall clock has not moved against the monotonic clock by more than ``JUMP_S``. What it finds
becomes a ``ClockAlert`` input event, journaled like any other (docs/operations.md).

The kernel's state is read with ``adjtimex(2)`` in read-only mode (``modes`` = 0): one system
call, no subprocess. It returns ``TIME_ERROR`` (5) while the clock is unsynchronised
(``STA_UNSYNC`` set, which is the state until a time daemon has disciplined it).
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Mapping

from drivers.events import ClockAlert
from station.errors import ConfigError

CHECK_EVERY_S = 60.0
JUMP_S = 1.0
TIME_ERROR = 5  # adjtimex's return while the clock is not synchronised
# struct timex is 208 bytes on 64-bit Linux; a larger zeroed buffer leaves modes = 0 (read).
_TIMEX_BYTES = 512

SyncSource = Callable[[], bool | None]  # True synchronised, False not, None cannot tell
# Where the state is read: ``kernel`` (adjtimex, the default), or a fixed answer for a test
# suite's or a demonstration's stations on a machine whose clock is not theirs to fix
# (docs/operations.md, "The clock"). A production unit never sets it.
SOURCE_ENV = "STATION_CLOCK_SOURCE"
_FIXED: dict[str, bool | None] = {"synchronised": True, "unsynchronised": False,
                                  "unknown": None}


def kernel_synchronised() -> bool | None:
    """The kernel's view (adjtimex read-only); None where the call is not available."""
    try:
        # The process's own symbols, libc's among them: ctypes.util.find_library would run
        # ldconfig in a subprocess at the first check, just after READY (issue 35).
        libc = ctypes.CDLL(None, use_errno=True)
        buf = ctypes.create_string_buffer(_TIMEX_BYTES)
        state = int(libc.adjtimex(buf))
    except (OSError, AttributeError):
        return None
    if state < 0:
        return None
    return state != TIME_ERROR


KERNEL = "the kernel's adjtimex state"


def source_of(env: Mapping[str, str]) -> tuple[SyncSource, str]:
    """The clock source ``env`` names (``SOURCE_ENV``) and how its findings say where they
    come from; raises ConfigError for a word that is not a source."""
    name = env.get(SOURCE_ENV, "kernel")
    if name == "kernel":
        return kernel_synchronised, KERNEL
    if name not in _FIXED:
        raise ConfigError(f"{SOURCE_ENV}={name!r}: not a clock source; use kernel (the "
                          f"default), or for tests {', '.join(_FIXED)}")
    answer = _FIXED[name]
    return (lambda: answer), f"{SOURCE_ENV}={name}"


class ClockWatch:
    """Checks the clock when ``due`` says so; ``check`` returns the events to post.

    The clock's state (``clock_synchronised``, ``clock_unsynchronised``, ``clock_unknown``
    when the kernel cannot tell) is posted when it differs from ``reported``, the state last
    journaled (the daemon sets it to the recovered station's), so an unsynchronised clock is
    alerted once when it is found so (not every minute), and again only after it was
    synchronised in between. ``synchronised`` is the last finding, for the metrics."""

    def __init__(self, synced: SyncSource = kernel_synchronised, *, said_by: str = KERNEL,
                 wall: Callable[[], float] = time.time,
                 mono: Callable[[], float] = time.monotonic,
                 every_s: float = CHECK_EVERY_S, jump_s: float = JUMP_S) -> None:
        self._synced = synced
        self._said_by = said_by
        self._wall = wall
        self._mono = mono
        self._every = every_s
        self._jump = jump_s
        self._next = mono()  # the first check is at start
        self._offset: float | None = None  # wall - monotonic at the last check
        self.synchronised: bool | None = None
        self.reported = "unknown"  # Station.clock of the last state posted

    def wait(self) -> float:
        """Seconds until the next check is due (0 when it is)."""
        return max(0.0, self._next - self._mono())

    def check(self) -> list[ClockAlert]:
        """The alerts of a check if one is due, else none."""
        mono = self._mono()
        if mono < self._next:
            return []
        self._next = mono + self._every
        wall = self._wall()
        out: list[ClockAlert] = []
        offset = wall - mono
        if self._offset is not None and abs(offset - self._offset) > self._jump:
            out.append(ClockAlert(
                "clock_jump", f"the wall clock jumped {offset - self._offset:+.3f} s against "
                f"the monotonic clock since the last check", wall))
        self._offset = offset
        synced = self._synced()
        self.synchronised = synced
        state = _STATE[synced]
        if state != self.reported:
            self.reported = state
            detail = _DETAIL[synced].format(self._said_by)
            out.append(ClockAlert(f"clock_{state}", detail, wall))
        return out


_STATE = {True: "synchronised", False: "unsynchronised", None: "unknown"}
_DETAIL = {
    True: "the system clock is synchronised ({})",
    False: "the system clock is not synchronised ({}): check the time service "
           "(timedatectl status)",
    None: "the system clock's synchronisation cannot be told ({})",
}
