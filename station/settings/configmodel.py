"""The configuration object ``station.live.config`` builds: one frozen value per section.

Data only (the parsing is in ``station.live.config`` and in each kind's module under
``station/kinds/``), so the kinds can read a config without importing its parser. A device,
outlet or display section holds only the keys its family shares, and ``kind``: the chosen
kind's own settings, a type its module declares (``station.kinds.registry``). A new kind
adds nothing here (tests/cli/test_kinds_registry.py holds every type of this module to it).
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from drivers.simulated import Fault, Pace, Player
from station.game.bets.model import Paytable
from station.settings.retention import RetentionLimits
from station.table.tablerules import TableRules

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class SimulationConfig:
    seed: int | None = None
    shoes: int | None = None
    supervisor: str = "resume"
    pace: Pace = field(default_factory=Pace)
    faults: tuple[Fault, ...] = ()
    # Badges the simulated dealer scans (station.table.dealers): the first at the start, then the
    # next every ``dealer_change_shoes`` shoes (0: never), taking turns.
    dealer_badges: tuple[str, ...] = ()
    dealer_change_shoes: int = 0
    # The players of a table in a mode (docs/modes.md): reveals, VIP skips and requests.
    players: Player = field(default_factory=Player)


class _Chosen:
    """What the section of every family shares: ``type``, the chosen kind, and ``kind``, that
    kind's own settings, of the type its module under ``station/kinds/`` declares (None for a
    kind without keys of its own). ``kind_as`` is how a kind's code reads them typed."""

    __slots__ = ()
    type: str
    kind: object

    def kind_as(self, cls: builtins.type[_T]) -> _T:
        """The chosen kind's settings as ``cls``; a ``TypeError`` when the section chose
        another kind (a kind's code asked for a section it was not chosen for)."""
        if not isinstance(self.kind, cls):
            raise TypeError(f"the {self.type} kind's settings are {type(self.kind).__name__}, "
                            f"not {cls.__name__}")
        return self.kind


@dataclass(frozen=True, slots=True)
class ReaderConfig(_Chosen):
    """``reader:``: the keys every reader kind shares (``dedupe_ms`` is a table rule: in
    ``TableRules``) and the chosen kind's own settings."""

    type: str = "simulated"
    code_format: str | None = None  # None: the station's own forms (AS, TD, 10H, QH)
    cut_code: str | None = None
    badge_prefix: str = ""  # dealers.badge_prefix: such payloads go to the station as read
    pack_prefix: str = ""  # reader.pack_prefix: pack codes go to the station as read too
    kind: object = None


@dataclass(frozen=True, slots=True)
class CutCardConfig(_Chosen):
    """``cut_card:``: how the station learns the cut card came out. ``reader_code``: the
    scanner reads it (``reader.cut_code``; the simulated shoe deals it); ``modem_pin``: a
    contact on a USB-serial adapter's status pin; ``none``: no sensor."""

    type: str = "reader_code"
    kind: object = None


@dataclass(frozen=True, slots=True)
class UpstreamConfig(_Chosen):
    """``upstream:``: where the signed messages go; the key every outlet shares, and the
    chosen outlet's own settings."""

    type: str = "file"
    signing_key_file: Path | None = None  # None: $CREDENTIALS_DIRECTORY/signing-key
    kind: object = None


@dataclass(frozen=True, slots=True)
class DisplayConfig(_Chosen):
    """``display:``: how the dealer sees the station (``console``, ``web``, ``none``)."""

    type: str = "console"
    kind: object = None


@dataclass(frozen=True, slots=True)
class StationConfig:
    path: Path
    rules: TableRules
    paytable: Paytable | None
    simulation: SimulationConfig
    results_path: str
    announcements_path: str | None
    recording_dir: str | None
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    cut_card: CutCardConfig = field(default_factory=CutCardConfig)
    journal_path: str = "var/journal.sqlite3"
    # journal.retention (station.journal.retention): None keeps every journal moved aside.
    journal_retention: RetentionLimits | None = None
    upstream: UpstreamConfig = field(default_factory=UpstreamConfig)
    recording_raw: bool = False  # each device's raw traffic, beside the recording
    metrics_port: int | None = None  # the Prometheus endpoint on 127.0.0.1; None: off
    clock_check: bool = True  # the system clock's synchronisation and jumps (service/clock)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    # The YAML as loaded, for the journal's print of it (station.settings.configprint).
    source: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
