"""Log lines for journald: plain, no timestamps (the journal stamps them), the level as a
syslog priority prefix (``<3>`` error ... ``<7>`` debug) when stderr is the journal.

systemd tells a service its stream is the journal by ``JOURNAL_STREAM=<dev>:<inode>``; the
variable is inherited by children whose stderr may have been redirected, so the prefix is
used only when stderr really is that stream (sd_journal_stream_fd(3) gives the same advice).
Elsewhere (a terminal, a test) the format stays the station's usual ``LEVEL name: text``.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from types import TracebackType
from typing import IO

# syslog(3) priorities: what journalctl -p filters on and colours by.
PRIORITY = {logging.CRITICAL: 2, logging.ERROR: 3, logging.WARNING: 4, logging.INFO: 6,
            logging.DEBUG: 7}
PLAIN_FORMAT = "%(levelname)s %(name)s: %(message)s"


def priority(levelno: int) -> int:
    for level in (logging.CRITICAL, logging.ERROR, logging.WARNING, logging.INFO):
        if levelno >= level:
            return PRIORITY[level]
    return PRIORITY[logging.DEBUG]


class JournaldFormatter(logging.Formatter):
    """``<6>station.live.daemon: text``. Every line of a multi-line record (a traceback) gets the
    prefix, since journald reads each line as its own entry."""

    def __init__(self) -> None:
        super().__init__("%(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def stream_is_journal(stream: IO[str] | None = None, env: Mapping[str, str] | None = None
                      ) -> bool:
    """Whether ``stream`` (stderr) is the journal stream systemd connected."""
    value = (os.environ if env is None else env).get("JOURNAL_STREAM", "")
    dev, _, ino = value.partition(":")
    if not (dev.isdigit() and ino.isdigit()):
        return False
    try:
        st = os.fstat((stream if stream is not None else sys.stderr).fileno())
    except (OSError, ValueError, AttributeError):
        return False  # closed, or not a real file (a test's StringIO)
    return st.st_dev == int(dev) and st.st_ino == int(ino)


def say(text: str, priority_: int = PRIORITY[logging.INFO], stream: IO[str] | None = None,
        env: Mapping[str, str] | None = None) -> None:
    """A line a command prints itself, not through logging (its start and stop lines, the
    error it exits 2 with): with the syslog prefix when ``stream`` (stderr) is the journal, so
    ``journalctl -p err`` shows a config error; journald would take an unprefixed line as
    info."""
    out = stream if stream is not None else sys.stderr
    if stream_is_journal(out, env):
        text = "\n".join(f"<{priority_}>{line}" for line in text.splitlines())
    print(text, file=out, flush=True)


def how_to_stop(stream: IO[str] | None = None, env: Mapping[str, str] | None = None) -> str:
    """The start line's last words: under systemd (stderr the journal) nobody is at a
    terminal to press Ctrl-C."""
    return "systemctl stop stops it" if stream_is_journal(stream, env) else "Ctrl-C stops"


ERR = PRIORITY[logging.ERROR]


def _crashed(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    logging.getLogger("station").critical("crashed", exc_info=(kind, exc, tb))


def configure(level: int = logging.INFO, stream: IO[str] | None = None,
              env: Mapping[str, str] | None = None) -> bool:
    """Set up the root logger on ``stream`` (stderr); whether it writes for journald."""
    out = stream if stream is not None else sys.stderr
    journal = stream_is_journal(out, env)
    root = logging.getLogger()
    # As logging.basicConfig: a process that set up its logging already (a test harness
    # calling main() in-process) keeps it.
    if not root.handlers:
        handler = logging.StreamHandler(out)
        handler.setFormatter(JournaldFormatter() if journal
                             else logging.Formatter(PLAIN_FORMAT))
        root.addHandler(handler)
        root.setLevel(level)
        if journal:
            # A crash's traceback through the handler, each line at crit: printed raw, the
            # journal would file it as info, out of sight of `journalctl -p err`.
            sys.excepthook = _crashed
    # transitions logs every state change at INFO: the station's table log and recording
    # already say all of it, and journald should not get a line per card twice over.
    logging.getLogger("transitions").setLevel(logging.WARNING)
    return journal
