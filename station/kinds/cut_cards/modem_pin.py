"""``cut_card.type: modem_pin``: a contact on a USB-serial adapter's status pin
(``drivers.cut_card``; pyserial is imported only when chosen)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from station.kinds.keys import Key
from station.kinds.probes import Finding, serial_port
from station.settings.configmodel import StationConfig
from station.settings.configsection import Section

if TYPE_CHECKING:
    from drivers.cut_card import CutCardSensor

# drivers.cut_card.PINS, spelled out so loading a config never imports pyserial (a test keeps
# the two the same).
CUT_CARD_PINS = ("cts", "dsr", "cd", "ri")
PROBE_BAUD = 9600  # a status pin has no baud rate; the port is opened at any one

KEYS = (
    Key("port", "text", "required", "the adapter's port (best /dev/serial/by-id/...) or a "
        "pyserial URL"),
    Key("pin", "text", "cts", f"the status pin the contact is on: {', '.join(CUT_CARD_PINS)}"),
    Key("debounce_ms", "whole number", "20", "how long the pin must hold still to count "
        "(0-1000)", "ms"),
)


@dataclass(frozen=True, slots=True)
class ModemPinSettings:
    """The sensor's own keys: the adapter's port, the status pin and its debounce."""

    port: str
    pin: str = "cts"
    debounce_ms: int = 20


def settings(config: StationConfig) -> ModemPinSettings:
    """The chosen modem_pin sensor's settings, typed."""
    return config.cut_card.kind_as(ModemPinSettings)


def parse(sec: Section, chosen: bool) -> ModemPinSettings | None:
    port = sec.str_("port", None, "the adapter's port, e.g. /dev/serial/by-id/usb-...")
    if chosen and port is None:
        sec.fail(sec.key("port"), "a modem_pin sensor needs the port of its USB-serial adapter")
    pin = sec.choice("pin", "cts", CUT_CARD_PINS)
    debounce_ms = sec.int_("debounce_ms", 20, 0, "e.g. 20", 1000) or 0
    return None if port is None else ModemPinSettings(port, pin, debounce_ms)


def build(config: StationConfig) -> CutCardSensor:
    from drivers.cut_card import CutCardSensor  # noqa: PLC0415

    cut = settings(config)
    return CutCardSensor(cut.port, pin=cut.pin, debounce_ms=cut.debounce_ms)


def probe(config: StationConfig) -> Iterator[Finding]:
    cut = settings(config)
    yield serial_port("cut_card.port", cut.port, PROBE_BAUD, cut.pin)


def describe(config: StationConfig, device: object) -> str:
    cut = settings(config)
    return f"{cut.port} (cut card on {cut.pin.upper()})"
