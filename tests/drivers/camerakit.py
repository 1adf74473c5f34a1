"""Helpers for the camera tests: run a CameraReader to its end and collect what it posts."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drivers.base import EventSource
from drivers.camera import CameraReader
from drivers.events import CardRead, CutCardSeen, InputEvent

CUT_CODE = "CUT"  # short enough to fit the region at 640x480


class Collected:
    """The events a driver posts, and how its thread ended."""

    def __init__(self) -> None:
        self.events: list[InputEvent] = []
        self.ended = threading.Event()
        self.error: BaseException | None = None
        self._lock = threading.Lock()

    def post(self, source: EventSource, event: InputEvent) -> None:
        with self._lock:
            self.events.append(event)

    def end(self, source: EventSource, error: BaseException | None) -> None:
        self.error = error
        self.ended.set()

    def snapshot(self) -> list[InputEvent]:
        with self._lock:
            return list(self.events)

    def wait_for(self, check: Callable[[list[InputEvent]], bool], timeout_s: float = 20) -> None:
        deadline = time.monotonic() + timeout_s
        while not check(self.snapshot()):
            assert time.monotonic() < deadline, f"timed out; got {self.snapshot()}"
            time.sleep(0.01)


def run_to_end(source: str | Path, timeout_s: float = 30, **kwargs: Any) -> list[InputEvent]:
    """Read a video file through a CameraReader until it ends; its events."""
    reader = CameraReader(str(source), **kwargs)
    got = Collected()
    reader.start(got.post, got.end)
    try:
        assert got.ended.wait(timeout_s), "the reader did not finish the file"
    finally:
        reader.stop()
    assert got.error is None, f"the reader died: {got.error!r}"
    return got.events


def codes_of(events: list[InputEvent]) -> list[str]:
    """Cards and cut cards in the order posted (the cut card as CUT)."""
    return [e.code if isinstance(e, CardRead) else "CUT" for e in events
            if isinstance(e, CardRead | CutCardSeen)]
