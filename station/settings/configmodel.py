"""The configuration object ``station.live.config`` builds: one frozen value per section.

Data only (the parsing is in ``station.live.config`` and in each kind's module under
``station/kinds/``), so the kinds can read a config without importing its parser. Each
device or outlet section holds the built-in kinds' fields, and ``own``: the settings of a
kind registered beside them (``station.kinds.registry``), by kind name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.simulated import Fault, Pace, Player
from station.game.bets.model import Paytable
from station.settings.retention import RetentionLimits
from station.settings.upstream import UpstreamSettings
from station.table.tablerules import TableRules


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


@dataclass(frozen=True, slots=True)
class ReaderSettings:
    """``reader:`` beyond the type and the dedupe window: the serial scanner's line."""

    type: str = "simulated"
    port: str | None = None  # a device path (best /dev/serial/by-id/...) or a pyserial URL
    baud: int = 9600
    framing: str = "cr"
    code_format: str | None = None  # None: the station's own forms (AS, TD, 10H, QH)
    cut_code: str | None = None
    # The camera reader: where frames come from, how they are decoded, and how sure it must be.
    source: str | int | None = None  # a camera index, a device path, a video file or a URL
    decoder: str = "zxing"
    roi: tuple[int, int, int, int] | None = None  # x, y, width, height in pixels
    agree_frames: int = 2
    badge_prefix: str = ""  # dealers.badge_prefix: such payloads go to the station as read
    pack_prefix: str = ""  # reader.pack_prefix: pack codes go to the station as read too
    # The settings of a reader kind registered beside the built-in ones, by kind name.
    own: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CutCardSettings:
    """``cut_card:``: how the station learns the cut card came out. ``reader_code``: the
    scanner reads it (``reader.cut_code``; the simulated shoe deals it); ``modem_pin``: a
    contact on a USB-serial adapter's status pin; ``none``: no sensor."""

    type: str = "reader_code"
    port: str | None = None
    pin: str = "cts"
    debounce_ms: int = 20
    own: Mapping[str, Any] = field(default_factory=dict)  # a registered kind's, by name


@dataclass(frozen=True, slots=True)
class DisplaySettings:
    """``display:``: how the dealer sees the station. ``web`` serves the dealer's page and the
    local control API (station/web) on ``host``:``port``; ``credentials_file`` (relative to
    the config's folder) holds the supervisors' hashed PINs, never the YAML."""

    type: str = "console"
    host: str = "127.0.0.1"
    port: int = 8080
    language: str = "en"
    credentials_file: Path | None = None
    sound: bool = True
    own: Mapping[str, Any] = field(default_factory=dict)  # a registered kind's, by name


@dataclass(frozen=True, slots=True)
class StationConfig:
    path: Path
    rules: TableRules
    paytable: Paytable | None
    simulation: SimulationConfig
    results_path: str
    announcements_path: str | None
    recording_dir: str | None
    reader: ReaderSettings = field(default_factory=ReaderSettings)
    cut_card: CutCardSettings = field(default_factory=CutCardSettings)
    journal_path: str = "var/journal.sqlite3"
    # journal.retention (station.journal.retention): None keeps every journal moved aside.
    journal_retention: RetentionLimits | None = None
    upstream: UpstreamSettings = field(default_factory=UpstreamSettings)
    recording_raw: bool = False  # each device's raw traffic, beside the recording
    metrics_port: int | None = None  # the Prometheus endpoint on 127.0.0.1; None: off
    clock_check: bool = True  # the system clock's synchronisation and jumps (service/clock)
    display: DisplaySettings = field(default_factory=DisplaySettings)
    # The YAML as loaded, for the journal's print of it (station.settings.configprint).
    source: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
