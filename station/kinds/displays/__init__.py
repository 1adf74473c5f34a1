"""``display:``: how the dealer sees the station, one module per kind (``console`` and
``none`` in ``console``, ``web``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from station.kinds.keys import Key

if TYPE_CHECKING:
    from station.settings.configmodel import StationConfig
    from station.web.serve import Loop

COMMON = (Key("type", "text", "console", "how the dealer sees the station"),)


@dataclass(frozen=True, slots=True)
class DisplayContext:
    """What a display's builder gets: the daemon it shows, the names of the table's devices,
    where to put what must be closed after the loop, and the rounds of the shoe in play
    published before a restart (for its results and roads)."""

    config: StationConfig
    daemon: Loop
    devices: tuple[str, ...]
    closers: list[Callable[[], None]]
    rounds: Iterable[dict[str, Any]] = ()
