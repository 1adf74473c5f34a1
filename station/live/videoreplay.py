"""``station replay --video FILE``: a recorded video of a shoe, through the real camera driver.

The video holds only what the camera saw: cards, the cut card, and a camera that froze or went
dark. The dealer's buttons are not in it, so an automatic dealer presses them as the station
asks (NEW SHOE, OPEN BETTING, CLOSE BETTING) just before the next card the camera reports;
nobody clears a pause, so a replay that pauses stays paused and says why, exactly as the
table would have without its supervisor. Everything is applied on this thread in the order the
driver posted it, so the result does not depend on how fast the video decodes.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from drivers.base import EventSource
from drivers.events import CardRead, Command, DeviceLost, InputEvent
from drivers.simulated import Due
from station.errors import InputFileError
from station.live.config import StationConfig
from station.live.devices import camera_reader
from station.table.simulation import DUE
from station.table.station import Station

AUTO_DEALER = "replay"  # the actor of the buttons the replay presses
_BUTTONS = {Due.NEW_SHOE: "new_shoe", Due.OPEN_BETTING: "open_betting",
            Due.CLOSE_BETTING: "close_betting"}
_END = object()
IDLE_TIMEOUT_S = 60.0  # a driver that says nothing for this long has hung: stop, say so


def video_events(config: StationConfig, video: Path, station: Station
                 ) -> Iterator[InputEvent]:
    """Every event to apply to ``station``, in order: the camera's, each preceded by the
    dealer's buttons the station asks for at that moment. The caller applies each one before
    asking for the next (the buttons depend on the phase)."""
    try:
        found = video.is_file()
        # The video's own clock: its first frame is taken as the file's modification time, so
        # the same file replays to the same bytes, shoe ids and times included.
        start_ts = video.stat().st_mtime if found else 0.0
    except OSError as exc:
        raise InputFileError(f"cannot read video {video}: {exc.strerror or exc}") from exc
    if not found:
        raise InputFileError(f"{video}: no such video file; name a recorded video of a shoe "
                             "(recording.raw keeps one beside each recording)")
    posted: queue.SimpleQueue[object] = queue.SimpleQueue()

    def post(source: EventSource, event: InputEvent) -> None:
        posted.put(event)

    def ended(source: EventSource, error: BaseException | None) -> None:
        posted.put(error if error is not None else _END)

    camera = camera_reader(config, source=str(video), start_ts=start_ts)
    camera.start(post, ended)
    unopened: DeviceLost | None = None  # the first thing the camera said, if it was "lost"
    dealt = False
    try:
        while True:
            try:
                item = posted.get(timeout=IDLE_TIMEOUT_S)
            except queue.Empty:
                raise InputFileError(f"{video}: the camera driver gave nothing for "
                                     f"{IDLE_TIMEOUT_S:g} s; is it a video OpenCV can "
                                     "read?") from None
            if item is _END:
                if unopened is not None and not dealt:
                    # Lost before a single frame and then the end: the file is no video.
                    raise InputFileError(f"{unopened.reason}; name a video file of "
                                         "a shoe (.avi as recording.raw writes, or .mp4)")
                if unopened is not None:
                    yield unopened
                return
            if isinstance(item, BaseException):
                raise InputFileError(f"{video}: the camera driver failed: "
                                     f"{type(item).__name__}: {item}")
            event = cast(InputEvent, item)
            if not dealt and unopened is None and isinstance(event, DeviceLost):
                unopened = event  # held until we know whether any frame follows
                continue
            if unopened is not None:
                yield unopened
                unopened = None
            dealt = True
            while (isinstance(event, CardRead)
                   and (action := _BUTTONS.get(DUE[station.phase])) is not None):
                before = station.phase
                yield Command(action, AUTO_DEALER, event.ts)
                if station.phase == before:
                    break  # refused (the station says why): press once, never loop
            yield event
    finally:
        camera.stop()
