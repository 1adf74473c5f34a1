"""``reader.type: serial``: a barcode scanner on a serial line (``drivers.serial_scanner``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from drivers.framing import FRAMINGS
from station.kinds.keys import Key
from station.kinds.probes import Finding, serial_port
from station.kinds.readers import DeviceHooks, reader_codes
from station.settings.configmodel import StationConfig
from station.settings.configsection import Section

if TYPE_CHECKING:
    from drivers.serial_scanner import SerialScanner

KEYS = (
    Key("port", "text", "required", "the scanner's device (best /dev/serial/by-id/...) or a "
        "pyserial URL such as socket://127.0.0.1:7000"),
    Key("baud", "whole number", "9600", "the scanner's baud rate (50-4000000)", "baud"),
    Key("framing", "text", "cr", f"how the scanner ends a code: {', '.join(FRAMINGS)}"),
)


@dataclass(frozen=True, slots=True)
class SerialSettings:
    """The serial scanner's own keys (``reader.port``, ``baud``, ``framing``)."""

    port: str  # a device path (best /dev/serial/by-id/...) or a pyserial URL
    baud: int = 9600
    framing: str = "cr"


def settings(config: StationConfig) -> SerialSettings:
    """The chosen serial reader's settings, typed."""
    return config.reader.kind_as(SerialSettings)


def parse(sec: Section, chosen: bool) -> SerialSettings | None:
    port = sec.str_("port", None, "a device such as /dev/serial/by-id/usb-... or a pyserial "
                    "URL such as socket://127.0.0.1:7000")
    if chosen and port is None:
        sec.fail(sec.key("port"), "a serial reader needs its port: a device such as "
                 "/dev/serial/by-id/usb-... or a pyserial URL")
    baud = sec.int_("baud", 9600, 50, "the scanner's baud rate, e.g. 9600", 4_000_000) or 9600
    framing = sec.choice("framing", "cr", FRAMINGS)
    return None if port is None else SerialSettings(port, baud, framing)


def build(config: StationConfig, hooks: DeviceHooks) -> SerialScanner:
    from drivers.framing import FrameParser  # noqa: PLC0415 - only a serial table needs these
    from drivers.serial_scanner import SerialScanner  # noqa: PLC0415

    own = settings(config)
    return SerialScanner(own.port, baudrate=own.baud, parser=FrameParser(own.framing),
                         codes=reader_codes(config.reader), on_raw=hooks.on_bytes)


def probe(config: StationConfig) -> Iterator[Finding]:
    own = settings(config)
    yield serial_port("reader.port", own.port, own.baud, None)


def describe(config: StationConfig, device: object) -> str:
    own = settings(config)
    return f"{own.port} ({own.baud} baud, {own.framing})"
