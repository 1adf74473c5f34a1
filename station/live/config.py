"""The station's configuration: YAML, validated at start, unknown keys refused.

Every error names the file, the key and the fix, because the person reading it is an
operations engineer at a table that will not open until it is right. Units are in key names
(``dedupe_ms``, ``card_s``). Secrets never live here. Every key is in docs/configuration.md.

The sections of the pluggable kinds (``reader``, ``cut_card``, ``upstream``, ``display``) are
read by their kinds (``station.kinds.registry.parse_section``): this module does not know
their inside. Each is the keys its family shares and the chosen kind's own settings, a type
its module declares (``config.reader.kind``, read typed with ``config.reader.kind_as``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from drivers.simulated import FAULT_KINDS, SUPERVISOR_POLICIES, Fault, Pace, Player
from station.errors import ConfigError
from station.game.analysis.groups import unvalued
from station.game.cards import DECK_SIZE
from station.game.limits import (
    DECKS_MAX,
    DECKS_MIN,
    DEDUPE_MS_MAX,
    ROUND_MAX,
    SEED_MAX,
    SHOES_MAX,
    guard_value_problem,
    mode_value_problem,
    repeat_cards_problem,
    repeat_history_problem,
    repeat_threshold_problem,
    short,
    table_id_problem,
    whole_problem,
)
from station.kinds.cut_cards.modem_pin import CUT_CARD_PINS
from station.kinds.registry import FAMILIES, parse_section
from station.settings.configmodel import (
    CutCardConfig,
    DisplayConfig,
    ReaderConfig,
    SimulationConfig,
    StationConfig,
    UpstreamConfig,
)
from station.settings.configsection import Section
from station.settings.paytable import Paytable, load_paytable
from station.settings.retention import RetentionLimits
from station.settings.textfile import describe_path
from station.settings.yamlload import load_yaml
from station.table import dealers
from station.table.procedures import procedure_value, procedure_value_problem
from station.table.tablerules import CUT_POLICIES, MODE_KEYS, TableRules

__all__ = [
    "CUT_CARD_PINS",
    "SECTIONS",
    "CutCardConfig",
    "DisplayConfig",
    "ReaderConfig",
    "SimulationConfig",
    "StationConfig",
    "UpstreamConfig",
    "default_config_path",
    "load_config",
    "load_faults",
    "parse_config",
    "parse_faults",
]

# The keys of the sections this module reads itself; the device, outlet and display sections
# (reader, cut_card, upstream, display) are their kinds' (station.kinds.registry). Every key
# is listed in docs/configuration.md, checked by tests/cli/test_config_docs.py.
SIMULATION_KEYS = ("seed", "shoes", "supervisor", "pace", "faults", "dealer_badge",
                   "relief_badge", "dealer_change_shoes", "players")
INTEGRITY_KEYS = ("repeat_cards", "repeat_threshold", "repeat_history")
# The bet guard of issue 25 (station.game.betguard); a config's default is observe.
GUARD_KEYS = ("bet_guard", "bet_guard_max_rtp")
GUARD_DEFAULTS = {"bet_guard": "observe", "bet_guard_max_rtp": 1.0}
# Table procedures (station.table.procedures, docs/rules.md): the shuffle check and the cut card's
# band under table:, the pack codes scanned at the check under reader: (the readers' common key).
TABLE_PROCEDURE_KEYS = ("shuffle_check", "shuffle_method", "penetration")
SECTIONS: dict[str, tuple[str, ...]] = {
    "table": ("id", "decks", "cut_card_between_rounds", "paytable", "paytable_variants",
              *MODE_KEYS, *GUARD_KEYS, *TABLE_PROCEDURE_KEYS),
    "simulation": SIMULATION_KEYS,
    "simulation.pace": ("card_s", "open_betting_s", "betting_s", "new_shoe_s", "supervisor_s",
                        "reveal_s"),
    "simulation.players": ("reveal", "skip_rounds", "new_shoe_at", "dealer_at"),
    "simulation.faults[]": ("kind", "card", "after_round", "seconds", "shoe"),
    "results": ("path", "announcements_path"),
    "recording": ("dir", "raw"),
    "journal": ("path", "retention"),
    "journal.retention": ("days", "shoes"),
    "metrics": ("port",),
    "clock": ("check",),
    "dealers": ("badge_prefix",),
    "integrity": INTEGRITY_KEYS,
}
TOP_KEYS = ("table", "reader", "cut_card", "simulation", "display", "results", "recording",
            "journal", "upstream", "metrics", "clock", "dealers", "integrity")


def load_config(path: Path) -> StationConfig:
    """Load and validate ``path``; raises ``ConfigError`` naming file, key and fix."""
    return parse_config(path, load_yaml(path, "config"))


def parse_config(path: Path, data: Any) -> StationConfig:
    top = Section(path, "", data, TOP_KEYS)
    table = top.sub("table", SECTIONS["table"])
    reader = top.sub("reader", FAMILIES["reader"].allowed())
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
        **_bet_guard(table),
        **_procedures(table, reader),
    )
    rules = _integrity(top.sub("integrity", INTEGRITY_KEYS), rules)
    results = top.sub("results", SECTIONS["results"])
    if "path" in results.data and results.data["path"] is None:
        results.fail(results.key("path"), "null is not a place for results; use - for stdout")
    recording = top.sub("recording", SECTIONS["recording"])
    if recording.data.get("raw") is True and recording.data.get("dir", "") is None:
        recording.fail(recording.key("raw"), "raw traffic is kept beside the recording, and "
                       "recording.dir is null; name a directory in recording.dir, or set "
                       "raw: false")
    paytable = _paytable(table)
    # The device, outlet and display sections are read by their kinds (station.kinds).
    reader_settings = parse_section("reader", top)
    cut_card = parse_section("cut_card", top)
    simulation = _simulation(
        top.sub("simulation", SIMULATION_KEYS), rules.decks,
        rules.dedupe_ms if reader.data.get("type", "simulated") == "simulated" else 0,
        rules.betting)
    display = parse_section("display", top)
    return _with_dealers(top, StationConfig(
        path=path,
        rules=rules,
        paytable=_guarded(table, rules, paytable),
        reader=reader_settings,
        cut_card=cut_card,
        simulation=simulation,
        results_path=results.path_("path", "var/results.jsonl", "a file path, or - for stdout")
        or "-",
        announcements_path=results.path_(
            "announcements_path", "var/announcements.jsonl", "a file path, - or null for none"
        ),
        recording_dir=recording.path_("dir", "var/recordings", "a directory, or null for none"),
        recording_raw=recording.bool_("raw", False, "true to keep each device's raw traffic "
                                      "(bytes, video) beside the recording"),
        journal_path=top.sub("journal", SECTIONS["journal"]).path_(
            "path", "var/journal.sqlite3", "a file for the station's journal, e.g. "
            "/var/lib/dealer-station/journal.sqlite3") or "var/journal.sqlite3",
        journal_retention=_retention(top.sub("journal", SECTIONS["journal"])),
        upstream=parse_section("upstream", top),
        metrics_port=top.sub("metrics", SECTIONS["metrics"]).int_(
            "port", None, 0, "a TCP port for the Prometheus endpoint on 127.0.0.1 (e.g. 9464; "
            "0 picks a free one), or null for none", 65535),
        clock_check=top.sub("clock", SECTIONS["clock"]).bool_(
            "check", True, "false not to check at start and every minute that the system "
            "clock is synchronised and does not jump"),
        display=display,
        source=data if isinstance(data, Mapping) else {},
    ))


RETENTION_DAYS_MAX = 36_500  # a hundred years: a bigger number is a typo
RETENTION_SHOES_MAX = 10_000_000


def _retention(journal: Section) -> RetentionLimits | None:
    """``journal.retention``: absent or null keeps every journal (nothing is ever deleted
    without it); otherwise at least ``days`` days and ``shoes`` shoes stay (docs/journal.md)."""
    if journal.data.get("retention") is None:
        return None
    sec = journal.sub("retention", SECTIONS["journal.retention"])
    if not sec.data:
        sec.fail(sec.prefix, "give days, shoes or both (e.g. {days: 90, shoes: 500}), or drop "
                 "the key to keep every journal")
    days = sec.int_("days", 0, 0, "whole days of journals to keep at least, e.g. 90",
                    RETENTION_DAYS_MAX)
    shoes = sec.int_("shoes", 0, 0, "shoes of journals to keep at least, e.g. 500",
                     RETENTION_SHOES_MAX)
    return RetentionLimits(days or 0, shoes or 0)


def _with_dealers(top: Section, config: StationConfig) -> StationConfig:
    """``dealers.badge_prefix`` (into the table rules: it decides what a scan means, so a
    recording keeps it) and the simulated dealer's badges (docs/dealers.md)."""
    sec = top.sub("dealers", SECTIONS["dealers"])
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


_PROCEDURE_FIXES = {
    "shuffle_check": "none, or supervisor (a supervisor confirms each shoe's shuffle)",
    "shuffle_method": "manual or machine",
    "penetration": "[min, max] as fractions of the shoe, e.g. [0.6, 0.9], or leave it out",
    "pack_prefix": "the start of a pack or seal barcode, e.g. PACK-, or leave it out",
}


def _procedures(table: Section, reader: Section) -> dict[str, Any]:
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


def _modes(table: Section) -> dict[str, Any]:
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


def _bet_guard(table: Section) -> dict[str, Any]:
    """``table.bet_guard`` (off, observe, close; default observe) and
    ``table.bet_guard_max_rtp`` (default 1.0): the bet guard of issue 25."""
    out: dict[str, Any] = {}
    for key in GUARD_KEYS:
        value = table.data.get(key, GUARD_DEFAULTS[key])
        if key == "bet_guard" and value is False:
            value = "off"  # YAML reads a bare `off` as false
        problem = guard_value_problem(key, value)
        if problem is not None:
            table.fail(table.key(key), problem)
        out[key] = value if key == "bet_guard" else float(value)
    return out


def _guarded(table: Section, rules: TableRules, paytable: Paytable | None) -> Paytable | None:
    """``paytable``, once the bet guard (if on) is known to value every bet of it."""
    bad = unvalued(paytable) if paytable is not None and rules.bet_guard != "off" else []
    if bad:
        table.fail(table.key("bet_guard"), f"the guard cannot value bet(s) {', '.join(bad)} "
                   "of the paytable (a combined bet over pair or colour bets); set bet_guard: "
                   "off, or list those bets apart")
    return paytable


def _paytable(table: Section) -> Paytable | None:
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


def _rounds(sec: Section, name: str) -> tuple[int, ...]:
    value = sec.data.get(name, [])
    if not isinstance(value, list) or len(value) > ROUND_MAX or any(
            whole_problem(v, 1, ROUND_MAX) is not None for v in value):
        sec.fail(sec.key(name), f"expected a list of round numbers 1-{ROUND_MAX}, got "
                 f"{short(value)}; e.g. [3, 4, 5]")
    return tuple(value)


def _players(sec: Section, betting: str) -> Player:
    """``simulation.players``: what the simulated players of a table in a mode do."""
    return Player(
        reveal=sec.choice("reveal", "player", ("player", "timer")),
        betting="upstream" if betting == "upstream" else "dealer",
        skip_rounds=_rounds(sec, "skip_rounds"),
        new_shoe_at=sec.int_("new_shoe_at", 0, 0, "the round at which the VIP player asks "
                             "for a new shoe, or 0 for never", ROUND_MAX) or 0,
        dealer_at=_rounds(sec, "dealer_at"),
    )


def _simulation(sec: Section, decks: int, dedupe_ms: int, betting: str = "dealer"
                ) -> SimulationConfig:
    pace = sec.sub("pace", SECTIONS["simulation.pace"])
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
        players=_players(sec.sub("players", SECTIONS["simulation.players"]), betting),
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
        sec = Section(path, f"{prefix}[{i}]", item, SECTIONS["simulation.faults[]"])
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
    beside = Path(__file__).resolve().parents[2] / "config" / "station.yaml"
    if beside.exists():
        return beside
    # Installed from a wheel: the same file, shipped as package data (station/shipped/).
    return Path(__file__).resolve().parents[1] / "shipped" / "config" / "station.yaml"


def _integrity(sec: Section, rules: TableRules) -> TableRules:
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
