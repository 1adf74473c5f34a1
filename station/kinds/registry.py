"""The pluggable kinds of a station, each declared once: readers, cut-card sensors, upstream
outlets and displays.

Shaped like the bets' registry (``station.game.bets.registry``): a family is a config section
(``reader:``, ``cut_card:``, ``upstream:``, ``display:``) whose ``type`` names one of its
kinds; a kind is one ``Kind`` line below, pointing at the functions of its own module under
``station/kinds/``: the keys it reads (documented), its parser, its builder, its
``check-config`` probe and what ``station monitor`` says of its device. ``station.live.config``
reads a section through ``parse_section`` without knowing its inside, and a test checks
docs/configuration.md against these entries.

Adding a kind: write its module (its settings type, parser, builder, probe; and its driver
under ``drivers/``), add one line to its family's ``kinds`` below. The section's value holds
what the family's kinds share and the chosen kind's own settings (``config.reader.kind``,
read typed with ``kind_as``): no shared settings type changes. A test or a site plugin may
add one for a while with ``registered``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from station.kinds import cut_cards, displays, outlets, readers
from station.kinds.cut_cards import modem_pin, passive
from station.kinds.displays import console, web
from station.kinds.keys import Key
from station.kinds.outlets import file, mqtt
from station.kinds.probes import Finding
from station.kinds.readers import camera, hid, serial, simulated
from station.settings.configmodel import (
    CutCardConfig,
    DisplayConfig,
    ReaderConfig,
    StationConfig,
    UpstreamConfig,
)
from station.settings.configsection import Section

# What a kind's functions take. Parse: (section, whether this kind is the chosen one) -> the
# kind's own settings, of the type its module declares (None: not chosen, and its keys are
# not all given). Probe: (StationConfig) -> findings.
# Describe: (StationConfig, its device) -> words for a technician. Build: per family,
# (StationConfig, readers.DeviceHooks), (StationConfig), (outlets.OutletContext) or
# (displays.DisplayContext).
Parse = Callable[[Section, bool], Any]
Probe = Callable[[Any], Iterator[Finding]]
Describe = Callable[[Any, Any], str]
Build = Callable[..., Any]

# Traits the rest of the station may ask of a kind, instead of its name.
LIVE = "live"  # a reader with a device: monitor reads it, the cut-card sensor goes with it,
# and the table needs a display with buttons
CODES = "codes"  # a reader that reads codes: its code format is checked at load
BUTTONS = "buttons"  # a display with the dealer's buttons (NEW SHOE, OPEN/CLOSE BETTING)
SIGNED = "signed"  # an outlet that refuses to send unsigned messages
RAW_BYTES = "raw_bytes"  # recording.raw keeps the device's bytes (drivers' on_raw: bytes)
RAW_VIDEO = "raw_video"  # recording.raw keeps the device's frames as a video


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of one family. ``keys``: the keys of the section it reads; ``parse``:
    validates them into the kind's own settings type, declared in its module (every
    registered kind's keys are validated whichever is chosen, as a typo in a key of another
    kind is a typo all the same; ``chosen`` is for what only the chosen kind requires; the
    chosen kind's settings are the section's ``kind``); ``build``: its device, outlet or
    display (None: it has none); ``probe``: what ``check-config`` opens and says (None:
    nothing to open); ``describe``: what ``monitor`` shows of its device; ``device_allow``:
    the devices its unit must be let open beyond the shipped unit's."""

    name: str
    summary: str
    keys: tuple[Key, ...] = ()
    parse: Parse | None = None
    build: Build | None = None
    probe: Probe | None = None
    describe: Describe | None = None
    traits: frozenset[str] = frozenset()
    # The unit's DeviceAllow= lines the kind needs beyond the shipped unit's, for the config
    # (station install-service writes them as a drop-in); None: the unit's own suffice.
    device_allow: Callable[[StationConfig], tuple[str, ...]] | None = None


@dataclass(slots=True)
class Family:
    """A section whose ``type`` chooses a kind. ``settings``: the section's value (a type of
    ``station.settings.configmodel`` holding only what every kind shares, and the chosen
    kind's own settings); ``common``: the keys every kind of it shares, ``type`` first
    (``parse_common`` reads them); ``finish``: a check over the whole section with the
    chosen kind's traits."""

    section: str
    settings: Callable[..., Any]  # called with type=the chosen kind's name
    common: tuple[Key, ...]
    kinds: dict[str, Kind]
    parse_common: Callable[[Section, Any, str], Any] | None = None
    finish: Callable[[Section, Any, frozenset[str]], None] | None = None

    @property
    def default(self) -> str:
        return self.common[0].default

    def allowed(self) -> tuple[str, ...]:
        names = [k.name for k in self.common]
        for entry in self.kinds.values():
            names += [k.name for k in entry.keys if k.name not in names]
        return tuple(names)


FAMILIES: dict[str, Family] = {
    "reader": Family("reader", ReaderConfig, readers.COMMON, {
        "simulated": Kind("simulated", "the simulated dealer deals; no device",
                          build=simulated.build, probe=simulated.probe),
        "serial": Kind("serial", "a barcode scanner on a serial line", serial.KEYS,
                       serial.parse, serial.build, serial.probe, serial.describe,
                       frozenset({LIVE, CODES, RAW_BYTES})),
        "camera": Kind("camera", "barcodes read from a camera, a stream or a video file",
                       camera.KEYS, camera.parse, camera.build, camera.probe, camera.describe,
                       frozenset({LIVE, CODES, RAW_VIDEO})),
        "hid": Kind("hid", "a USB barcode scanner as a HID device: keyboard mode (grabbed "
                    "through evdev) or HID-POS (hidraw)", hid.KEYS, hid.parse, hid.build,
                    hid.probe, hid.describe, frozenset({LIVE, CODES, RAW_BYTES}),
                    hid.device_allow),
    }, readers.parse_common, readers.finish),
    "cut_card": Family("cut_card", CutCardConfig, cut_cards.COMMON, {
        "reader_code": Kind("reader_code", "the card reader reads the cut card "
                            "(reader.cut_code); the simulated shoe deals it",
                            probe=passive.probe),
        "modem_pin": Kind("modem_pin", "a contact on a USB-serial adapter's status pin",
                          modem_pin.KEYS, modem_pin.parse, modem_pin.build, modem_pin.probe,
                          modem_pin.describe),
        "none": Kind("none", "no sensor", probe=passive.probe),
    }),
    "upstream": Family("upstream", UpstreamConfig, outlets.COMMON, {
        "file": Kind("file", "JSON Lines in a file, or on stdout", file.KEYS, file.parse,
                     file.build, file.probe),
        "mqtt": Kind("mqtt", "an MQTT 5 broker; commands from the game server too",
                     mqtt.KEYS, mqtt.parse, mqtt.build, mqtt.probe,
                     traits=frozenset({SIGNED})),
    }, outlets.parse_common),
    "display": Family("display", DisplayConfig, displays.COMMON, {
        "console": Kind("console", "the dealer's prompts as timestamped lines on stdout "
                         "(stderr when results go to stdout)", build=console.build),
        "web": Kind("web", "the dealer's page and the local control API", web.KEYS,
                    web.parse, web.build, traits=frozenset({BUTTONS})),
        "none": Kind("none", "no display (a service: the table log goes to the journal)"),
    }),
}


def kind(family: str, name: str) -> Kind:
    """The registered kind ``name`` of ``family`` (a loaded config names only these)."""
    return FAMILIES[family].kinds[name]


def settings_of(config: StationConfig, family: str, name: str) -> Any:
    """The settings of kind ``name`` in ``config``'s ``family`` section, whether or not the
    section chose it: every kind's keys are checked at load, so a tool may read another
    kind's (``station watch`` the broker of a table whose outlet is a file, ``station pin``
    the web display's PIN file). None: the kind has no keys, or not all it needs."""
    section = getattr(config, family)
    if section.type == name:
        return section.kind
    entry = kind(family, name)
    data = config.source.get(FAMILIES[family].section) or {}
    # Read again from the YAML as loaded; its keys were refused or taken at load already.
    return None if entry.parse is None else entry.parse(
        Section(config.path, FAMILIES[family].section, data, tuple(data)), False)


def parse_section(family: str, parent: Section) -> Any:
    """The ``family`` section of ``parent``, read: unknown keys refused, the type one of the
    registered kinds, each kind's keys validated by the kind; the chosen kind's settings
    kept as the section's ``kind``."""
    fam = FAMILIES[family]
    sec = parent.sub(fam.section, fam.allowed())
    chosen = sec.choice("type", fam.default, tuple(fam.kinds))
    settings = fam.settings(type=chosen)
    if fam.parse_common is not None:
        settings = fam.parse_common(sec, settings, chosen)
    for entry in fam.kinds.values():
        if entry.parse is not None:
            own = entry.parse(sec, entry.name == chosen)
            if entry.name == chosen:
                settings = replace(settings, kind=own)
    if fam.finish is not None:
        fam.finish(sec, settings, fam.kinds[chosen].traits)
    return settings


@contextmanager
def registered(family: str, entry: Kind) -> Iterator[Kind]:
    """``entry`` is a kind of ``family`` for the ``with`` block (tests, site plugins)."""
    kinds = FAMILIES[family].kinds
    if entry.name in kinds:
        raise ValueError(f"{family} kind {entry.name!r} is already registered")
    kinds[entry.name] = entry
    try:
        yield entry
    finally:
        del kinds[entry.name]


def doc_rows(family: str) -> list[str]:
    """The rows of docs/configuration.md for ``family``'s section, from its entries: the
    shared keys, then each kind's, marked with the kind (tests/cli/test_config_docs.py holds
    the document to these)."""
    fam = FAMILIES[family]
    kinds = "; ".join(f"`{k.name}`: {k.summary}" for k in fam.kinds.values())
    first, *rest = fam.common
    rows = [replace(first, meaning=f"{first.meaning}: {kinds}").row(fam.section)]
    rows += [k.row(fam.section) for k in rest]
    for entry in fam.kinds.values():
        rows += [replace(k, meaning=f"(`{entry.name}`) {k.meaning}").row(fam.section)
                 for k in entry.keys]
    return rows
