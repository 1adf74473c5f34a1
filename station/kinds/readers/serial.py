"""``reader.type: serial``: a barcode scanner on a serial line (``drivers.serial_scanner``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from drivers.framing import FRAMINGS
from station.kinds.keys import Key
from station.kinds.probes import Finding, serial_port
from station.kinds.readers import DeviceHooks, reader_codes
from station.settings.configmodel import ReaderSettings, StationConfig
from station.settings.configsection import Section

if TYPE_CHECKING:
    from drivers.serial_scanner import SerialScanner

KEYS = (
    Key("port", "text", "required", "the scanner's device (best /dev/serial/by-id/...) or a "
        "pyserial URL such as socket://127.0.0.1:7000"),
    Key("baud", "whole number", "9600", "the scanner's baud rate (50-4000000)", "baud"),
    Key("framing", "text", "cr", f"how the scanner ends a code: {', '.join(FRAMINGS)}"),
)


def parse(sec: Section, settings: ReaderSettings, chosen: bool) -> ReaderSettings:
    port = sec.str_("port", None, "a device such as /dev/serial/by-id/usb-... or a pyserial "
                    "URL such as socket://127.0.0.1:7000")
    if chosen and port is None:
        sec.fail(sec.key("port"), "a serial reader needs its port: a device such as "
                 "/dev/serial/by-id/usb-... or a pyserial URL")
    return replace(
        settings, port=port,
        baud=sec.int_("baud", 9600, 50, "the scanner's baud rate, e.g. 9600", 4_000_000) or 9600,
        framing=sec.choice("framing", "cr", FRAMINGS))


def build(config: StationConfig, hooks: DeviceHooks) -> SerialScanner:
    from drivers.framing import FrameParser  # noqa: PLC0415 - only a serial table needs these
    from drivers.serial_scanner import SerialScanner  # noqa: PLC0415

    reader = config.reader
    assert reader.port is not None  # the parser refuses a serial reader without its port
    return SerialScanner(reader.port, baudrate=reader.baud, parser=FrameParser(reader.framing),
                         codes=reader_codes(reader), on_raw=hooks.on_bytes)


def probe(config: StationConfig) -> Iterator[Finding]:
    reader = config.reader
    assert reader.port is not None
    yield serial_port("reader.port", reader.port, reader.baud, None)


def describe(config: StationConfig, device: object) -> str:
    reader = config.reader
    return f"{reader.port} ({reader.baud} baud, {reader.framing})"
