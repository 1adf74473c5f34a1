"""Run a fleet's members, one ``station run`` process each, until stopped.

Each member runs in a session of its own, so a Ctrl-C at the terminal reaches the fleet
only, which passes it on once to every member; a member that ends by itself is reported and
not restarted (a fleet is for testing the pit, which must see a table die and stay dead).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Final, TextIO

from station.services.fleet.plan import Member, Plan

STOP_TIMEOUT_S: Final = 60.0  # a member's own stop is bounded at 10 s; N of them share cores
POLL_S: Final = 0.5  # the wait between looks when no signal wakes the loop
_PR_SET_PDEATHSIG: Final = 1


@dataclass(slots=True)
class Child:
    member: Member
    proc: subprocess.Popen[bytes]
    code: int | None = None


def supervise(fleet: Plan, out: TextIO = sys.stdout) -> int:
    """Start every member, report each start and end on ``out``; 0 once a SIGINT or SIGTERM
    has stopped them all (or all ended by themselves with 0), else 1."""
    wake = threading.Event()
    asked: list[int] = []

    def on_stop(signum: int, frame: FrameType | None) -> None:
        asked.append(signum)
        wake.set()

    def on_child(signum: int, frame: FrameType | None) -> None:
        wake.set()

    previous = {s: signal.signal(s, h) for s, h in ((signal.SIGINT, on_stop),
                                                     (signal.SIGTERM, on_stop),
                                                     (signal.SIGCHLD, on_child))}
    children: list[Child] = []
    unstarted = False
    try:
        for member in fleet.members:
            if asked:
                break  # stopped while starting: start no more
            try:
                children.append(_start(member))
            except OSError as exc:  # no process left to fork, no memory: stop the rest
                _say(out, f"fleet: table {member.table} could not be started "
                          f"({exc.strerror or exc}); stopping the fleet")
                asked.append(signal.SIGTERM)
                unstarted = True
                break
            _say(out, f"fleet: table {member.table} pid {children[-1].proc.pid} journal "
                      f"{member.journal}")
        _say(out, f"fleet: {len(children)} table(s) running from {fleet.source}; public keys "
                  f"in {fleet.keys_dir}; each table's log in its folder; Ctrl-C stops them all")
        return max(_watch(children, asked, wake, out), 1 if unstarted else 0)
    finally:
        for child in children:  # only after an error of our own: never leave one behind
            if child.proc.poll() is None:
                with contextlib.suppress(OSError):
                    child.proc.kill()
                child.proc.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _watch(children: list[Child], asked: list[int], wake: threading.Event,
           out: TextIO) -> int:
    deadline: float | None = None
    killed = False
    while True:
        for child in children:
            if child.code is None and (code := child.proc.poll()) is not None:
                child.code = code
                _report(child, stopping=deadline is not None, out=out)
        live = [c for c in children if c.code is None]
        if not live:
            break
        if asked and deadline is None:
            name = signal.Signals(asked[0]).name
            _say(out, f"fleet: {name}: stopping {len(live)} table(s)")
            for child in live:
                with contextlib.suppress(ProcessLookupError):
                    child.proc.send_signal(asked[0])
            deadline = time.monotonic() + STOP_TIMEOUT_S
        elif deadline is not None and time.monotonic() > deadline:
            for child in live:
                _say(out, f"fleet: table {child.member.table} pid {child.proc.pid} still "
                          f"running {STOP_TIMEOUT_S:g} s after the stop: killed")
                with contextlib.suppress(ProcessLookupError):
                    child.proc.kill()
            killed = True
            deadline = float("inf")  # wait for the kills to be reaped
        wake.wait(POLL_S)
        wake.clear()
    if asked:
        _say(out, f"fleet: all {len(children)} table(s) stopped")
        return 1 if killed else 0
    failed = [c for c in children if c.code != 0]
    _say(out, f"fleet: every table ended by itself; {len(failed)} of {len(children)} with "
              "an error")
    return 1 if failed else 0


# What systemd gives a service is the fleet's, not its tables': a table telling systemd
# READY=1 with its own MAINPID would make systemd take it for the fleet.
_SERVICE_ONLY: Final = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS",
                        "LISTEN_PID", "LISTEN_FDNAMES")


def _start(member: Member) -> Child:
    env = {k: v for k, v in os.environ.items() if k not in _SERVICE_ONLY}
    with open(member.log, "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "station.cli", "run", "-c", str(member.config)],
            cwd=member.folder, env=env, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT,
            # The fleet runs no thread of its own, so preexec_fn is safe here.
            start_new_session=True,
            preexec_fn=_end_with_parent(os.getpid()))  # noqa: PLW1509
    return Child(member, proc)


def _end_with_parent(parent: int) -> Callable[[], None]:
    """In the child before exec: SIGINT and SIGTERM blocked until `station run` has its
    handlers; SIGTERM when the fleet dies, even by kill -9, so a killed fleet leaves no
    table publishing (Linux; elsewhere nothing)."""
    def arm() -> None:
        # A stop that comes while the table is starting waits for its handlers (station run
        # unblocks these once they are set), so it stops cleanly, never half-started.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the fleet died before the line above
            os._exit(1)
    return arm


def _report(child: Child, *, stopping: bool, out: TextIO) -> None:
    code = child.code
    assert code is not None
    how = f"exit code {code}"
    if code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    if stopping:
        _say(out, f"fleet: table {child.member.table} pid {child.proc.pid} stopped ({how})")
    else:
        _say(out, f"fleet: table {child.member.table} pid {child.proc.pid} ended by itself "
                  f"({how}); not restarted; its log: {child.member.log}")


def _say(out: TextIO, line: str) -> None:
    print(line, file=out, flush=True)
