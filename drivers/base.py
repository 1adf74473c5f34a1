"""The base of every threaded driver: ``start``/``stop`` are final, ``_run`` is the hook.

Device threads never touch the station: they hand events to ``post`` (a queue put owned by
the station's single loop). ``stop`` is idempotent and joins the thread, so a test that
forgets to stop a driver is caught by the leak check in tests/conftest.py.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, final

from drivers.events import InputEvent

log = logging.getLogger(__name__)

Post = Callable[["EventSource", InputEvent], None]
Ended = Callable[["EventSource", BaseException | None], None]
"""Called on the driver's thread when ``_run`` returns or raises without ``stop`` having
been asked: ``None`` when the source has nothing more to give (a simulated table that played
its shoes), the exception when it died. The owner must never be left waiting in silence."""


class EventSource:
    """A device (or simulated person) that produces input events on its own thread."""

    name: str = "source"

    def __init__(self) -> None:
        self._post: Post | None = None
        self._ended: Ended | None = None
        self._thread: threading.Thread | None = None
        self.stopping = threading.Event()

    @final
    def start(self, post: Post, ended: Ended | None = None) -> None:
        """Begin producing events into ``post``; ``ended`` hears if the thread ends by
        itself. Call once, from the station's thread."""
        if self._thread is not None:
            raise RuntimeError(f"{self.name} already started")
        self._post = post
        self._ended = ended
        self._thread = threading.Thread(target=self._main, name=f"driver-{self.name}",
                                        daemon=True)
        self._thread.start()

    @final
    def _main(self) -> None:
        error: BaseException | None = None
        try:
            self._run()
        except Exception as exc:  # a driver bug must reach the owner, not die with the thread
            log.exception("%s: driver thread failed", self.name)
            error = exc
        if not self.stopping.is_set() and self._ended is not None:
            self._ended(self, error)

    @final
    def stop(self, timeout_s: float = 5.0) -> None:
        """Ask the thread to finish and wait for it; safe to call twice."""
        self.stopping.set()
        self._wake()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout_s)

    def post(self, event: InputEvent) -> None:
        assert self._post is not None
        self._post(self, event)

    # --- hooks ----------------------------------------------------------------------------
    def _run(self) -> None:
        """The thread body: produce events until ``stopping`` is set."""
        raise NotImplementedError

    def _wake(self) -> None:
        """Interrupt a blocking wait so ``_run`` notices ``stopping``."""

    def station_changed(self, due: Any) -> None:
        """Called on the station's thread after every applied event with what is due now."""

    def round_changed(self, round_no: int) -> None:
        """Called on the station's thread, before ``station_changed``, with the round the
        table is at (a simulated VIP player asks by round number)."""

    def applied(self) -> None:
        """Called on the station's thread after one of this source's events was applied."""
