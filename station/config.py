"""The station's configuration: YAML, validated at start, unknown keys refused.

Every error names the file, the key and the fix, because the person reading it is an
operations engineer at a table that will not open until it is right. Units are in key names
(``dedupe_ms``, ``card_s``). Secrets never live here (see docs/configuration.md).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from drivers.codes import CodeFormat
from drivers.framing import FRAMINGS
from drivers.simulated import FAULT_KINDS, SUPERVISOR_POLICIES, Fault, Pace, Player
from station import dealers
from station.cards import DECK_SIZE
from station.errors import ConfigError
from station.limits import (
    DECKS_MAX,
    DECKS_MIN,
    DEDUPE_MS_MAX,
    ROUND_MAX,
    SEED_MAX,
    SHOES_MAX,
    mode_value_problem,
    repeat_cards_problem,
    repeat_history_problem,
    repeat_threshold_problem,
    seconds_problem,
    short,
    table_id_problem,
    whole_problem,
)
from station.paytable import Paytable, load_paytable
from station.procedures import procedure_value, procedure_value_problem
from station.station import CUT_POLICIES, MODE_KEYS, TableRules
from station.textfile import describe_path
from station.upstream.settings import TYPES as UPSTREAM_TYPES
from station.upstream.settings import TlsSettings, UpstreamSettings
from station.yamlload import load_yaml

READER_TYPES = ("simulated", "serial", "camera")
# drivers.camera.DECODERS, spelled out so loading a config never imports OpenCV.
CAMERA_DECODERS = ("zxing", "pyzbar")
AGREE_FRAMES_MAX = 30
ROI_MAX = 16384  # pixels: wider than any camera a shoe has
# drivers.cut_card.PINS, spelled out so loading a config never imports pyserial (a test keeps
# the two the same).
CUT_CARD_PINS = ("cts", "dsr", "cd", "ri")
MAX_PATH_CHARS = 4096


@dataclass(frozen=True, slots=True)
class SimulationConfig:
    seed: int | None = None
    shoes: int | None = None
    supervisor: str = "resume"
    pace: Pace = field(default_factory=Pace)
    faults: tuple[Fault, ...] = ()
    # Badges the simulated dealer scans (station.dealers): the first at the start, then the
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


@dataclass(frozen=True, slots=True)
class CutCardSettings:
    """``cut_card:``: how the station learns the cut card came out. ``reader_code``: the
    scanner reads it (``reader.cut_code``; the simulated shoe deals it); ``modem_pin``: a
    contact on a USB-serial adapter's status pin; ``none``: no sensor."""

    type: str = "reader_code"
    port: str | None = None
    pin: str = "cts"
    debounce_ms: int = 20


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


@dataclass(frozen=True, slots=True)
class StationConfig:
    path: Path
    rules: TableRules
    paytable: Paytable | None
    reader_type: str
    simulation: SimulationConfig
    display_type: str
    results_path: str
    announcements_path: str | None
    recording_dir: str | None
    reader: ReaderSettings = field(default_factory=ReaderSettings)
    cut_card: CutCardSettings = field(default_factory=CutCardSettings)
    journal_path: str = "var/journal.sqlite3"
    upstream: UpstreamSettings = field(default_factory=UpstreamSettings)
    recording_raw: bool = False  # each device's raw traffic, beside the recording
    metrics_port: int | None = None  # the Prometheus endpoint on 127.0.0.1; None: off
    display: DisplaySettings = field(default_factory=DisplaySettings)


class _Section:
    """Reads one mapping, remembering which keys were used so the rest can be refused."""

    def __init__(self, path: Path, prefix: str, data: Any, allowed: tuple[str, ...]) -> None:
        self.path = path
        self.prefix = prefix
        if data is None:
            data = {}
        if not isinstance(data, dict):
            self.fail(prefix or "(top level)",
                      f"must be a mapping of keys to values, got {short(data)}")
        for key in data:
            if key not in allowed:
                near = difflib.get_close_matches(str(key)[:100], allowed, n=1)
                hint = f"did you mean '{near[0]}'?" if near else f"known keys: {', '.join(allowed)}"
                self.fail(self.key(short(key)[1:-1] if isinstance(key, str) else short(key)),
                          f"unknown key ({hint})")
        self.data: dict[str, Any] = data

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def fail(self, key: str, message: str) -> NoReturn:
        raise ConfigError(f"{describe_path(self.path)}: {key}: {message}")

    def int_(self, name: str, default: int | None, minimum: int, fix: str,
             maximum: int) -> int | None:
        value = self.data.get(name, default)
        if value is None and default is None:
            return None
        problem = whole_problem(value, minimum, maximum)
        if problem is not None:
            self.fail(self.key(name), f"{problem}; {fix}")
        return value if isinstance(value, int) else None

    def float_(self, name: str, default: float, fix: str) -> float:
        value = self.data.get(name, default)
        problem = seconds_problem(value)
        if problem is not None:
            self.fail(self.key(name), f"{problem}; {fix}")
        return float(value)

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.data.get(name, default)
        if not isinstance(value, str) or value not in choices:
            self.fail(self.key(name), f"{short(value)} is not one of: {', '.join(choices)}")
        return value

    def bool_(self, name: str, default: bool, fix: str) -> bool:
        value = self.data.get(name, default)
        if not isinstance(value, bool):
            self.fail(self.key(name), f"expected true or false, got {short(value)}; {fix}")
        return value

    def str_(self, name: str, default: str | None, fix: str) -> str | None:
        value = self.data.get(name, default)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self.fail(self.key(name), f"expected a non-empty text, got {short(value)}; {fix}")
        return value

    def path_(self, name: str, default: str | None, fix: str) -> str | None:
        """A file or folder name: text without control characters, of a sane length."""
        value = self.str_(name, default, fix)
        if value is not None and (len(value) > MAX_PATH_CHARS
                                  or any(ord(c) < 32 for c in value)):
            self.fail(self.key(name), f"{short(value)} is not a usable path (control "
                      f"characters, or longer than {MAX_PATH_CHARS}); {fix}")
        return value

    def sub(self, name: str, allowed: tuple[str, ...]) -> _Section:
        return _Section(self.path, self.key(name), self.data.get(name), allowed)


def load_config(path: Path) -> StationConfig:
    """Load and validate ``path``; raises ``ConfigError`` naming file, key and fix."""
    return parse_config(path, load_yaml(path, "config"))


def parse_config(path: Path, data: Any) -> StationConfig:
    top = _Section(
        path, "", data, ("table", "reader", "cut_card", "simulation", "display", "results",
                         "recording", "journal", "upstream", "metrics", "dealers",
                         "integrity")
    )
    table = top.sub(
        "table", ("id", "decks", "cut_card_between_rounds", "paytable", "paytable_variants",
                  *MODE_KEYS, *TABLE_PROCEDURE_KEYS)
    )
    reader = top.sub("reader", ("type", "dedupe_ms", "port", "baud", "framing", "code_format",
                                "cut_code", "source", "decoder", "roi", "agree_frames",
                                "pack_prefix"))
    table_id = table.data.get("id", "table-1")
    problem = table_id_problem(table_id)
    if problem is not None:
        table.fail(table.key("id"), problem)
    rules = TableRules(
        table=table_id,
        decks=table.int_("decks", 8, DECKS_MIN, "a baccarat shoe has 8 decks", DECKS_MAX) or 8,
        dedupe_ms=reader.int_(
            "dedupe_ms", 150, 0, "the window in which a second identical read from the same "
            "reader is a double read, e.g. 150", DEDUPE_MS_MAX,
        ) or 0,
        cut_card_between_rounds=table.choice(
            "cut_card_between_rounds", "next_round_last", CUT_POLICIES
        ),
        **_modes(table),
        **_procedures(table, reader),
    )
    rules = _integrity(top.sub("integrity", INTEGRITY_KEYS), rules)
    display = top.sub("display", DISPLAY_KEYS)
    results = top.sub("results", ("path", "announcements_path"))
    if "path" in results.data and results.data["path"] is None:
        results.fail(results.key("path"), "null is not a place for results; use - for stdout")
    recording = top.sub("recording", ("dir", "raw"))
    if recording.data.get("raw") is True and recording.data.get("dir", "") is None:
        recording.fail(recording.key("raw"), "raw traffic is kept beside the recording, and "
                       "recording.dir is null; name a directory in recording.dir, or set "
                       "raw: false")
    return _with_dealers(top, StationConfig(
        path=path,
        rules=rules,
        paytable=_paytable(table),
        reader_type=reader.choice("type", "simulated", READER_TYPES),
        reader=_reader(reader),
        cut_card=_cut_card(top.sub("cut_card", ("type", "port", "pin", "debounce_ms"))),
        simulation=_simulation(top.sub(
            "simulation", SIMULATION_KEYS
        ), rules.decks,
            rules.dedupe_ms if reader.data.get("type", "simulated") == "simulated" else 0,
            rules.betting),
        display_type=display.choice("type", "console", DISPLAY_TYPES),
        results_path=results.path_("path", "var/results.jsonl", "a file path, or - for stdout")
        or "-",
        announcements_path=results.path_(
            "announcements_path", "var/announcements.jsonl", "a file path, - or null for none"
        ),
        recording_dir=recording.path_("dir", "var/recordings", "a directory, or null for none"),
        recording_raw=recording.bool_("raw", False, "true to keep each device's raw traffic "
                                      "(bytes, video) beside the recording"),
        journal_path=top.sub("journal", ("path",)).path_(
            "path", "var/journal.sqlite3", "a file for the station's journal, e.g. "
            "/var/lib/dealer-station/journal.sqlite3") or "var/journal.sqlite3",
        upstream=_upstream(top.sub("upstream", UPSTREAM_KEYS)),
        metrics_port=top.sub("metrics", ("port",)).int_(
            "port", None, 0, "a TCP port for the Prometheus endpoint on 127.0.0.1 (e.g. 9464; "
            "0 picks a free one), or null for none", 65535),
        display=_display(display),
    ))


SIMULATION_KEYS = ("seed", "shoes", "supervisor", "pace", "faults", "dealer_badge",
                   "relief_badge", "dealer_change_shoes", "players")


def _with_dealers(top: _Section, config: StationConfig) -> StationConfig:
    """``dealers.badge_prefix`` (into the table rules: it decides what a scan means, so a
    recording keeps it) and the simulated dealer's badges (docs/dealers.md)."""
    sec = top.sub("dealers", ("badge_prefix",))
    prefix = sec.data.get("badge_prefix", dealers.DEFAULT_PREFIX)
    prefix = "" if prefix is None else prefix
    problem = dealers.prefix_problem(prefix)
    if problem is not None:
        sec.fail(sec.key("badge_prefix"), f"{short(prefix)} {problem}")
    sim = top.sub("simulation", SIMULATION_KEYS)
    found: list[str] = []
    for name in ("dealer_badge", "relief_badge"):
        badge = sim.str_(name, None, f"a dealer's badge code, e.g. {prefix or 'DEALER-'}D042")
        if badge is None:
            continue
        parsed = dealers.parse_badge(badge, prefix)
        if parsed is None or parsed.dealer is None:
            sim.fail(sim.key(name), f"{short(badge)} is not a badge: "
                     + (f"{prefix} then {dealers.ID_RULE}, e.g. {prefix}D042" if prefix else
                        "dealers.badge_prefix is null (no badges); set one, or drop this key"))
        found.append(badge.strip())
    every = sim.int_("dealer_change_shoes", None, 1, "a dealer change every this many shoes, "
                     "e.g. 4", SHOES_MAX)
    if every is not None and len(found) < 2:
        sim.fail(sim.key("dealer_change_shoes"), "a change needs two dealers: set "
                 "simulation.dealer_badge and simulation.relief_badge")
    if every is None and "relief_badge" in sim.data:
        sim.fail(sim.key("relief_badge"), "set simulation.dealer_change_shoes too (how many "
                 "shoes between changes)")
    if len(found) == 2 and found[0] == found[1]:
        sim.fail(sim.key("relief_badge"), "the same badge as dealer_badge; name another dealer")
    return replace(config, rules=replace(config.rules, badge_prefix=prefix),
                   reader=replace(config.reader, badge_prefix=prefix),
                   simulation=replace(config.simulation, dealer_badges=tuple(found),
                                      dealer_change_shoes=every or 0))


_MODE_FIXES = {
    "mode": "standard, squeeze (cards dealt face down, revealed one hand at a time) or vip "
            "(the private table of seed 003)",
    "betting": "dealer (buttons), timer (the station's countdown) or upstream (the game "
               "server's commands)",
    "betting_s": "the betting countdown in seconds, e.g. 15",
    "result_s": "seconds the last result shows before the countdown opens betting, e.g. 0",
    "reveal_s": "seconds a squeeze waits for each reveal before revealing by itself, e.g. 30",
    "open_cards_s": "seconds the VIP player has to open the cards after betting closes "
                    "(seed 003: 60)",
    "new_shoe_s": "seconds the dealer has to start a new shoe a VIP player asked for "
                  "(seed 003: 300)",
    "max_skips": "rounds a VIP player may skip in a row (seed 003: 5)",
    "new_shoe_after": "rounds played before a VIP player may ask for a new shoe (seed 003: 30)",
}


# Table procedures (station.procedures, docs/rules.md): the shuffle check and the cut card's
# band under table:, the pack codes scanned at the check under reader:.
TABLE_PROCEDURE_KEYS = ("shuffle_check", "shuffle_method", "penetration")
_PROCEDURE_FIXES = {
    "shuffle_check": "none, or supervisor (a supervisor confirms each shoe's shuffle)",
    "shuffle_method": "manual or machine",
    "penetration": "[min, max] as fractions of the shoe, e.g. [0.6, 0.9], or leave it out",
    "pack_prefix": "the start of a pack or seal barcode, e.g. PACK-, or leave it out",
}


def _procedures(table: _Section, reader: _Section) -> dict[str, Any]:
    """The procedure keys given (only those: the rest keep the defaults)."""
    out: dict[str, Any] = {}
    for sec, keys in ((table, TABLE_PROCEDURE_KEYS), (reader, ("pack_prefix",))):
        for key in keys:
            if key not in sec.data:
                continue
            problem = procedure_value_problem(key, sec.data[key])
            if problem is not None:
                sec.fail(sec.key(key), f"{problem}; {_PROCEDURE_FIXES[key]}")
            out[key] = procedure_value(key, sec.data[key])
    return out


def _modes(table: _Section) -> dict[str, Any]:
    """The table-mode keys (docs/modes.md): only those given; the rest keep the defaults."""
    out: dict[str, Any] = {}
    for key in MODE_KEYS:
        if key not in table.data:
            continue
        value = table.data[key]
        problem = mode_value_problem(key, value)
        if problem is not None:
            table.fail(table.key(key), f"{problem}; {_MODE_FIXES[key]}")
        out[key] = float(value) if key.endswith("_s") else value
    return out


def _paytable(table: _Section) -> Paytable | None:
    """``table.paytable``: a paytable file, relative to the config file's folder."""
    name = table.path_("paytable", None, "a paytable file such as paytables/seed000.yaml")
    variants = table.data.get("paytable_variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        table.fail(table.key("paytable_variants"),
                   f"expected a list of variant names, got {short(variants)}; "
                   "e.g. [no_commission]")
    if name is None:
        if variants:
            table.fail(table.key("paytable_variants"), "variants need table.paytable")
        return None
    path = table.path.parent / name
    try:
        found = path.is_file()
    except OSError as exc:
        table.fail(table.key("paytable"), f"{describe_path(path)} cannot be read "
                   f"({exc.strerror or exc}); name a paytable relative to this config's folder")
    if not found:
        table.fail(table.key("paytable"), f"{describe_path(path)} is not a file; name a "
                   "paytable relative to this config's folder")
    return load_paytable(path, variants)


def _rounds(sec: _Section, name: str) -> tuple[int, ...]:
    value = sec.data.get(name, [])
    if not isinstance(value, list) or len(value) > ROUND_MAX or any(
            whole_problem(v, 1, ROUND_MAX) is not None for v in value):
        sec.fail(sec.key(name), f"expected a list of round numbers 1-{ROUND_MAX}, got "
                 f"{short(value)}; e.g. [3, 4, 5]")
    return tuple(value)


def _players(sec: _Section, betting: str) -> Player:
    """``simulation.players``: what the simulated players of a table in a mode do."""
    return Player(
        reveal=sec.choice("reveal", "player", ("player", "timer")),
        betting="upstream" if betting == "upstream" else "dealer",
        skip_rounds=_rounds(sec, "skip_rounds"),
        new_shoe_at=sec.int_("new_shoe_at", 0, 0, "the round at which the VIP player asks "
                             "for a new shoe, or 0 for never", ROUND_MAX) or 0,
        dealer_at=_rounds(sec, "dealer_at"),
    )


def _simulation(sec: _Section, decks: int, dedupe_ms: int, betting: str = "dealer"
                ) -> SimulationConfig:
    pace = sec.sub("pace", ("card_s", "open_betting_s", "betting_s", "new_shoe_s",
                            "supervisor_s", "reveal_s"))
    d = Pace()
    card_s = pace.float_("card_s", d.card_s, "e.g. 1.5")
    if dedupe_ms > 0 and card_s * 1000 <= dedupe_ms:
        # Two identical cards in a row would come faster than the double-read window and
        # the second would be dropped as a bounce: a dealer never draws that fast. With the
        # window off (0) there is no window to fall inside, whatever the pace.
        pace.fail(pace.key("card_s"), f"{card_s:g} s between cards is inside reader.dedupe_ms "
                  f"({dedupe_ms} ms): identical cards in a row would be taken for double "
                  "reads; deal slower, or narrow reader.dedupe_ms")
    shoes = sec.int_("shoes", None, 1, "how many shoes to play, or null for no end", SHOES_MAX)
    return SimulationConfig(
        seed=sec.int_("seed", None, 0, "any whole number, or null for a new shoe order each run",
                      SEED_MAX),
        shoes=shoes,
        supervisor=sec.choice("supervisor", "resume", SUPERVISOR_POLICIES),
        pace=Pace(
            card_s=card_s,
            open_betting_s=pace.float_("open_betting_s", d.open_betting_s, "e.g. 3"),
            betting_s=pace.float_("betting_s", d.betting_s, "e.g. 12"),
            new_shoe_s=pace.float_("new_shoe_s", d.new_shoe_s, "e.g. 45"),
            supervisor_s=pace.float_("supervisor_s", d.supervisor_s, "e.g. 20"),
            reveal_s=pace.float_("reveal_s", d.reveal_s, "seconds a player squeezes, e.g. 6"),
        ),
        players=_players(sec.sub("players", ("reveal", "skip_rounds", "new_shoe_at",
                                             "dealer_at")), betting),
        faults=parse_faults(sec.path, sec.data.get("faults"), sec.key("faults"),
                            decks=decks, shoes=shoes),
    )


def load_faults(path: Path, *, decks: int = DECKS_MAX, shoes: int | None = None
                ) -> tuple[Fault, ...]:
    """Read the fault script ``path`` for a shoe of ``decks`` decks and a run of ``shoes``
    shoes (None: no end). Raises ``ConfigError`` naming the file and the key."""
    return parse_faults(path, load_yaml(path, "fault script"), "faults", decks=decks,
                        shoes=shoes)


def parse_faults(path: Path, data: Any, prefix: str = "faults", *, decks: int = DECKS_MAX,
                 shoes: int | None = None) -> tuple[Fault, ...]:
    """A fault script: a list of ``{kind, card | after_round, seconds, shoe}`` mappings.

    A card past the shoe (``decks`` x 52 cards, plus one place for a cut card after the last)
    or a shoe past ``shoes`` would never happen: refused, so a typo is not silently ignored.
    """
    if data is None:
        return ()
    if not isinstance(data, list):
        raise ConfigError(f"{describe_path(path)}: {prefix}: expected a list of faults, got "
                          f"{short(data)}")
    last_card = decks * DECK_SIZE + 1
    faults = []
    for i, item in enumerate(data):
        sec = _Section(path, f"{prefix}[{i}]", item, ("kind", "card", "after_round", "seconds",
                                                       "shoe"))
        kind = sec.choice("kind", "", FAULT_KINDS)
        card = sec.int_("card", None, 1, f"the draw number in the shoe, 1 = burn indicator, "
                        f"{last_card} = after the last card of {decks} decks", last_card)
        after = sec.int_("after_round", None, 0, "the round after which it happens",
                         decks * DECK_SIZE // 4)
        if kind == "not_due" and (after is None or card is not None):
            sec.fail(sec.key("after_round"), "a not_due fault needs after_round (and no card)")
        if kind != "not_due" and (card is None or after is not None):
            sec.fail(sec.key("card"), f"a {kind} fault needs card (and no after_round)")
        default_s = {"double": 0.04, "lost": 10.0, "delay": 5.0}.get(kind, 0.0)
        last_shoe = SHOES_MAX if shoes is None else shoes
        faults.append(
            Fault(
                kind=kind,
                card=card,
                after_round=after,
                seconds=sec.float_("seconds", default_s, "e.g. 0.04 for a double read"),
                shoe=sec.int_("shoe", 1, 1, f"the shoe number, 1 = the first, at most "
                              f"{last_shoe} (the shoes played)", last_shoe) or 1,
            )
        )
    return tuple(faults)


def default_config_path() -> Path:
    """``config/station.yaml`` in the working directory, else the one beside the package."""
    local = Path("config/station.yaml")
    if local.exists():
        return local
    beside = Path(__file__).resolve().parent.parent / "config" / "station.yaml"
    if beside.exists():
        return beside
    # Installed from a wheel: the same file, shipped as package data (station/shipped/).
    return Path(__file__).resolve().parent / "shipped" / "config" / "station.yaml"


UPSTREAM_KEYS = ("type", "path", "host", "port", "prefix", "client_id", "credentials_file",
                 "tls", "signing_key_file", "keepalive_s", "session_expiry_s", "max_inflight",
                 "reconnect_max_s", "command_keys", "command_window_s", "command_skew_s")


def _upstream(sec: _Section) -> UpstreamSettings:
    """``upstream:``. Files that hold secrets (keys, credentials) are named relative to the
    config file's folder, like the paytable; their contents never live in the YAML."""
    d = UpstreamSettings()
    here = sec.path.parent

    def file_(name: str) -> Path | None:
        value = sec.path_(name, None, "a file next to the config, e.g. keys/signing.pem")
        return None if value is None else secret_path(sec, name, value)

    def whole(name: str, default: int, maximum: int) -> int:
        return sec.int_(name, default, 0, "a whole number", maximum) or 0

    tls_raw = sec.data.get("tls", False)
    tls: TlsSettings | None
    if tls_raw is True:
        tls = TlsSettings()
    elif tls_raw is False or tls_raw is None:
        tls = None
    else:
        t = sec.sub("tls", ("ca_file", "cert_file", "key_file"))
        tls = TlsSettings(*(None if (v := t.path_(k, None, "a PEM file")) is None
                            else secret_path(t, k, v)
                            for k in ("ca_file", "cert_file", "key_file")))
    keys_sec = sec.data.get("command_keys") or {}
    if not isinstance(keys_sec, dict):
        sec.fail(sec.key("command_keys"), "expected a mapping of sender name to public key "
                 "file, e.g. {pit: keys/pit.pub.pem}")
    if not all(isinstance(k, str) for k in keys_sec):
        sec.fail(sec.key("command_keys"), "each sender name must be text")
    command_keys = {}
    ks = _Section(sec.path, sec.key("command_keys"), keys_sec, tuple(keys_sec))
    for name in keys_sec:
        value = ks.path_(name, None, "a public key PEM file")
        if value is not None:
            command_keys[str(name)] = here / value
    port = sec.data.get("port")
    settings = UpstreamSettings(
        type=sec.choice("type", d.type, UPSTREAM_TYPES),  # type: ignore[arg-type]
        path=sec.path_("path", d.path, "a file, or - for stdout") or d.path,
        host=sec.str_("host", d.host, "the broker's host name or address") or d.host,
        port=None if port is None else sec.int_("port", None, 1, "a TCP port", 65535),
        prefix=sec.str_("prefix", d.prefix, "e.g. baccarat") or d.prefix,
        client_id=sec.str_("client_id", None, "1-64 characters, or null"),
        credentials_file=file_("credentials_file"),
        tls=tls,
        signing_key_file=file_("signing_key_file"),
        keepalive_s=whole("keepalive_s", d.keepalive_s, 3600),
        session_expiry_s=whole("session_expiry_s", d.session_expiry_s, 7 * 86400),
        max_inflight=whole("max_inflight", d.max_inflight, 1000),
        reconnect_max_s=whole("reconnect_max_s", d.reconnect_max_s, 3600),
        command_keys=command_keys,
        command_window_s=sec.float_("command_window_s", d.command_window_s, "e.g. 30"),
        command_skew_s=sec.float_("command_skew_s", d.command_skew_s, "e.g. 5"),
    )
    for key, problem in settings.problems():
        sec.fail(sec.key(key), problem)
    return settings


CREDENTIALS_PREFIX = "${CREDENTIALS_DIRECTORY}/"


def secret_path(sec: _Section, name: str, value: str,
                env: Mapping[str, str] | None = None) -> Path:
    """A secret file: relative to the config's folder, or ``${CREDENTIALS_DIRECTORY}/ID``,
    a credential systemd passed the unit (``LoadCredential=ID:FILE``), found at load time."""
    if not value.startswith(CREDENTIALS_PREFIX):
        return sec.path.parent / value
    cred = value.removeprefix(CREDENTIALS_PREFIX)
    if not cred or "/" in cred or cred in (".", ".."):
        sec.fail(sec.key(name), f"{short(value)}: name one credential, e.g. "
                 f"{CREDENTIALS_PREFIX}mqtt-client-key")
    folder = (os.environ if env is None else env).get("CREDENTIALS_DIRECTORY", "")
    if not folder:
        sec.fail(sec.key(name), f"{short(value)} is a systemd credential, but "
                 "CREDENTIALS_DIRECTORY is not set: run the station from its unit with "
                 f"LoadCredential={cred}:FILE, or name the file itself")
    return Path(folder) / cred


def _reader(sec: _Section) -> ReaderSettings:
    """``reader:`` for a serial scanner; the code format and cut code are checked here, so a
    bad pattern is a config error at start, not a surprise at the first card."""
    kind = sec.choice("type", "simulated", READER_TYPES)
    port = sec.str_("port", None, "a device such as /dev/serial/by-id/usb-... or a pyserial "
                    "URL such as socket://127.0.0.1:7000")
    if kind == "serial" and port is None:
        sec.fail(sec.key("port"), "a serial reader needs its port: a device such as "
                 "/dev/serial/by-id/usb-... or a pyserial URL")
    settings = ReaderSettings(
        type=kind,
        port=port,
        baud=sec.int_("baud", 9600, 50, "the scanner's baud rate, e.g. 9600", 4_000_000) or 9600,
        framing=sec.choice("framing", "cr", FRAMINGS),
        code_format=sec.str_("code_format", None, "a regular expression with groups "
                             "(?P<rank>...) and (?P<suit>...)"),
        cut_code=sec.str_("cut_code", None, "the code the scanner sends for the cut card"),
        source=_camera_source(sec, kind),
        decoder=sec.choice("decoder", "zxing", CAMERA_DECODERS),
        roi=_roi(sec),
        agree_frames=sec.int_("agree_frames", 2, 1, "how many frames in a row must read the "
                              "same code, e.g. 2", AGREE_FRAMES_MAX) or 2,
        pack_prefix=sec.data.get("pack_prefix", ""),  # checked with the table rules
    )
    if kind in ("serial", "camera"):
        try:
            reader_codes(settings)
        except ValueError as exc:
            sec.fail(sec.key("code_format" if settings.code_format else "cut_code"), str(exc))
    return settings


def _camera_source(sec: _Section, kind: str) -> str | int | None:
    """``reader.source``: a camera index (0, 1, ...), a device path, a video file or a URL."""
    value = sec.data.get("source")
    fix = ("a camera index such as 0, a device such as /dev/v4l/by-id/usb-...-video-index0, "
           "a video file, or a stream URL")
    if value is None:
        if kind == "camera":
            sec.fail(sec.key("source"), f"a camera reader needs its source: {fix}")
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        sec.fail(sec.key("source"), f"expected {fix}, got {short(value)}")
    if isinstance(value, int):
        return sec.int_("source", None, 0,
                        "a camera index from 0 to 63, or a device, file or URL as text", 63)
    return sec.path_("source", None, fix)


def _roi(sec: _Section) -> tuple[int, int, int, int] | None:
    """``reader.roi``: ``[x, y, width, height]`` in pixels of the camera's frame."""
    value = sec.data.get("roi")
    if value is None:
        return None
    fix = "[x, y, width, height] in pixels, e.g. [400, 200, 480, 240], or null for the whole frame"
    if (not isinstance(value, list) or len(value) != 4
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        sec.fail(sec.key("roi"), f"expected {fix}, got {short(value)}")
    x, y, w, h = value
    if min(x, y) < 0 or min(w, h) < 1 or max(x + w, y + h) > ROI_MAX:
        sec.fail(sec.key("roi"), f"{short(value)} is not a region of a frame: x and y from 0, "
                 f"width and height from 1, within {ROI_MAX} pixels; {fix}")
    return (x, y, w, h)


def reader_codes(settings: ReaderSettings) -> CodeFormat:
    """The scanner's code format; raises ValueError naming what is wrong. A dealer's badge
    (``dealers.badge_prefix``) goes to the station as read."""
    cut = [settings.cut_code] if settings.cut_code else []
    passed = [p for p in (settings.badge_prefix, settings.pack_prefix) if p]
    if settings.code_format is None:
        return CodeFormat(cut_codes=cut, passed_prefixes=passed)
    return CodeFormat(settings.code_format, cut_codes=cut, passed_prefixes=passed)


def _cut_card(sec: _Section) -> CutCardSettings:
    kind = sec.choice("type", "reader_code", ("reader_code", "modem_pin", "none"))
    port = sec.str_("port", None, "the adapter's port, e.g. /dev/serial/by-id/usb-...")
    if kind == "modem_pin" and port is None:
        sec.fail(sec.key("port"), "a modem_pin sensor needs the port of its USB-serial adapter")
    return CutCardSettings(
        type=kind, port=port, pin=sec.choice("pin", "cts", CUT_CARD_PINS),
        debounce_ms=sec.int_("debounce_ms", 20, 0, "e.g. 20", 1000) or 0,
    )


DISPLAY_TYPES = ("console", "web", "none")
DISPLAY_KEYS = ("type", "host", "port", "language", "credentials_file", "sound")
LANGUAGES = ("en", "zh")


def _display(sec: _Section) -> DisplaySettings:
    """``display:``. The web display listens on loopback unless told otherwise: its API can
    resume a paused table (with a PIN), so exposing it is a decision made in the config."""
    d = DisplaySettings()
    host = sec.str_("host", d.host, "an address to listen on, e.g. 127.0.0.1") or d.host
    if len(host) > 255 or any(c.isspace() or ord(c) < 32 for c in host):
        sec.fail(sec.key("host"), f"{short(host)} is not an address; e.g. 127.0.0.1")
    sound = sec.data.get("sound", d.sound)
    if not isinstance(sound, bool):
        sec.fail(sec.key("sound"), f"expected true or false, got {short(sound)}")
    creds = sec.path_("credentials_file", None, "a file next to the config, e.g. "
                      "supervisors.pins (`station pin set NAME` writes it)")
    return DisplaySettings(
        type=sec.choice("type", d.type, DISPLAY_TYPES),
        host=host,
        port=sec.int_("port", d.port, 1, "a TCP port, e.g. 8080", 65535) or d.port,
        language=sec.choice("language", d.language, LANGUAGES),
        credentials_file=None if creds is None else sec.path.parent / creds,
        sound=sound,
    )


INTEGRITY_KEYS = ("repeat_cards", "repeat_threshold", "repeat_history")


def _integrity(sec: _Section, rules: TableRules) -> TableRules:
    """``integrity:``, the repeated-shoe alarm (docs/integrity.md). Table rules: they decide
    outputs, so they are recorded with every session."""
    d = TableRules()
    values = {k: sec.data.get(k, getattr(d, k)) for k in INTEGRITY_KEYS}
    # One at a time: the threshold's bounds need a good number of cards.
    for key, check, fix in (
        ("repeat_cards", lambda v: repeat_cards_problem(v, rules.decks),
         "how many cards after the burn are compared with earlier shoes, e.g. 30"),
        ("repeat_history", repeat_history_problem,
         "how many earlier shoes each new shoe is compared with, e.g. 100"),
        ("repeat_threshold", lambda v: repeat_threshold_problem(v, values["repeat_cards"]),
         "how many of those cards, in order, make a repeated shoe, e.g. 20 of 30"),
    ):
        problem = check(values[key])
        if problem is not None:
            sec.fail(sec.key(key), f"{problem}; {fix}")
    return replace(rules, **values)
