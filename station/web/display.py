"""What the daemon calls after each event when ``display.type`` is ``web``.

``WebDisplay.show`` runs on the station's loop thread right after an event is let out: it
builds the view (``station.web.view``, pure), encodes it once and hands it to the hub. It
never waits on the server. ``WebControl`` is the page's and the API's source of ``Command``
events: posted through the daemon's queue like a device's, so they are journaled and replay
the same; the daemon's ``applied()`` tells it what its command did.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from drivers.base import EventSource
from drivers.events import InputEvent
from station.table.outputs import Notice, Output, Prompt, Published, Refused
from station.table.station import Station
from station.web.hub import Hub
from station.web.view import ShoeHistory, Surroundings, build_view, notices_of

RECENT_PROMPTS = 8

# What a command did: the notices it caused, the station's refusal of it (None: taken) and
# the view after it.
Done = Callable[[list[str], str | None, dict[str, Any]], None]


class WebDisplay:
    """Turns the station into views for the page. Call ``show`` from the loop thread only."""

    def __init__(self, station: Station, hub: Hub, around: Surroundings,
                 upstream: Callable[[], bool | None] | None = None,
                 rounds: Iterable[dict[str, Any]] = ()) -> None:
        """``rounds``: those of the shoe in play published before a restart
        (``Recovered.shoe_rounds``), so the results and roads go on from the shoe's start."""
        self.station = station
        self.hub = hub
        self.around = around
        self._upstream = upstream
        self.history = ShoeHistory()
        self.history.add(Published(r) for r in rounds)
        self.prompt: Prompt = station.prompt
        # The notices themselves, not only their lines: a refusal made before the station
        # carries its parts, which the page words in its language (view.notice_words).
        self.notices: deque[Notice] = deque(maxlen=5)
        self.last_outputs: list[Output] = []
        self.view: dict[str, Any] = {}
        # Every prompt with its number, the last few in each view: a page that was handed
        # only the latest of several quick views still knows each instruction given.
        self.prompt_seq = 0
        self.recent: deque[tuple[int, str, str]] = deque(maxlen=RECENT_PROMPTS)
        self._state = b""
        self._roads_version = -1
        # Notices counted since start, so a page shows each new one once and never an old
        # one as news; and when the pause in force began (this process's clock: after a
        # restart, since the restart), so the page counts the time paused.
        self.notice_seq = 0
        self.paused_at: float | None = None
        self.show([])

    def show(self, outputs: list[Output]) -> None:
        self.last_outputs = outputs
        for o in outputs:
            # The station's prompt, or the daemon's journal-outage pause; the daemon shows
            # the prompt in force once at start, which is no new instruction.
            if isinstance(o, Prompt) and o != self.prompt:
                self.prompt = o
                self.prompt_seq += 1
                self.recent.append((self.prompt_seq, o.text, o.detail))
        if not self.recent:
            self.recent.append((0, self.prompt.text, self.prompt.detail))
        news = [o for o in outputs if isinstance(o, Notice)]
        self.notices.extend(news)
        self.notice_seq += len(news)
        shoe = self.station.dealing.shoe
        self.history.add(outputs)
        if shoe is not None:
            self.history.new_shoe(shoe.shoe_id)
        around = self.around
        if self._upstream is not None:
            connected = self._upstream()
            if connected != around.upstream_connected:
                around = self.around = Surroundings(
                    around.table, around.language, around.sound, around.upstream_type,
                    connected, around.devices)
        self.view = build_view(self.station, self.prompt, self.history, self.notices, around)
        if not self.view["paused"]:
            self.paused_at = None
        elif self.paused_at is None:
            self.paused_at = now()
        self.view["paused_at"] = self.paused_at
        self.view["notice_seq"] = self.notice_seq
        self.view["prompt_seq"] = self.prompt_seq
        self.view["recent_prompts"] = list(self.recent)
        state = orjson.dumps(self.view)
        roads = None
        if self.history.version != self._roads_version:
            self._roads_version = self.history.version
            roads = (self.history.version, self.history.roads)
        if state != self._state or roads is not None:
            self._state = state
            self.hub.publish(state, roads)


class WebControl(EventSource):
    """Commands from the page and the API. Never started as a thread: the server posts with
    ``submit`` and hears back in ``applied`` (the station's loop thread), in order."""

    name = "web"

    def __init__(self, post: Callable[[EventSource, InputEvent], None],
                 display: WebDisplay) -> None:
        super().__init__()
        self._post_to = post
        self._display = display
        self._lock = threading.Lock()
        self._pending: deque[Done] = deque()

    def submit(self, event: InputEvent, done: Done) -> None:
        """Any thread. ``done(notices, refusal, view)`` is called on the loop thread once
        applied; ``refusal`` is the station's ``Refused`` text, None when it took it."""
        with self._lock:
            self._pending.append(done)
            self._post_to(self, event)

    def applied(self) -> None:
        with self._lock:
            done = self._pending.popleft() if self._pending else None
        if done is not None:
            outputs = self._display.last_outputs
            refused = next((o.text for o in outputs if isinstance(o, Refused)), None)
            done(notices_of(outputs), refused, self._display.view)

    def _run(self) -> None:  # never started: the server's thread is the producer
        self.stopping.wait()


def now() -> float:
    return time.time()
