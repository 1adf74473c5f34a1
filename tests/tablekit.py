"""A small driver for tests: feed a Station events the way a table would, with a clock."""

from __future__ import annotations

from typing import Any

from drivers.events import CardRead, Command, CutCardSeen, DeviceLost, DeviceRestored, InputEvent
from station.table.outputs import Notice, Output, Prompt, Published
from station.table.station import Station
from station.table.tablerules import TableRules


class Table:
    def __init__(self, **rules: Any) -> None:
        self.station = Station(TableRules(**rules))
        self.now = 1_800_000_000.0
        self.outputs: list[Output] = []
        self.events: list[InputEvent] = []

    def send(self, event: InputEvent) -> list[Output]:
        self.events.append(event)
        out = self.station.apply(event)
        self.outputs.extend(out)
        return out

    def tick(self, dt: float) -> float:
        self.now += dt
        return self.now

    def card(self, code: str, dt: float = 2.0, source: str = "scanner") -> list[Output]:
        return self.send(CardRead(code, source, self.tick(dt)))

    def cards(self, *codes: str) -> None:
        for c in codes:
            self.card(c)

    def cmd(self, action: str, actor: str = "dealer:test") -> list[Output]:
        return self.send(Command(action, actor, self.tick(1.0)))

    def cut(self) -> list[Output]:
        return self.send(CutCardSeen("cut-sensor", self.tick(0.5)))

    def lost(self, source: str = "scanner") -> list[Output]:
        return self.send(DeviceLost(source, "port vanished", self.tick(0.1)))

    def restored(self, source: str = "scanner") -> list[Output]:
        return self.send(DeviceRestored(source, self.tick(0.1)))

    def new_shoe(self, burn: tuple[str, ...] = ("AS", "KD")) -> None:
        """Start a shoe and burn: the default burns an ace and one card face down."""
        self.cmd("new_shoe")
        self.cards(*burn)

    def round(self, *codes: str) -> None:
        self.cmd("open_betting")
        self.cmd("close_betting")
        self.cards(*codes)

    @property
    def phase(self) -> str:
        return self.station.phase.value

    @property
    def prompt(self) -> str:
        return self.station.prompt.line()

    @property
    def records(self) -> list[dict[str, Any]]:
        return [o.record for o in self.outputs if isinstance(o, Published)]

    @property
    def notices(self) -> list[str]:
        return [o.text for o in self.outputs if isinstance(o, Notice)]

    @property
    def prompts(self) -> list[str]:
        return [o.line() for o in self.outputs if isinstance(o, Prompt)]
