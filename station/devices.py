"""The live devices a config names, built in one place for ``run``, ``monitor`` and ``replay``.

Each driver is imported only when the config chooses it: a serial table never imports OpenCV,
and a table without a modem-pin sensor never opens a second port. A driver that cannot be
imported (the ``camera`` extra not installed) is a config error with the fix, not a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from station.config import StationConfig, reader_codes
from station.errors import ConfigError

if TYPE_CHECKING:
    from drivers.base import EventSource
    from drivers.camera import CameraReader
    from drivers.serial_scanner import SerialScanner

RawBytes = Callable[[bytes, float], None]
RawPayload = Callable[[str, float, float], None]


def serial_scanner(config: StationConfig, on_raw: RawBytes | None = None) -> SerialScanner:
    from drivers.framing import FrameParser  # noqa: PLC0415 - only a serial table needs these
    from drivers.serial_scanner import SerialScanner  # noqa: PLC0415

    reader = config.reader
    assert reader.port is not None  # config refuses a serial reader without its port
    return SerialScanner(reader.port, baudrate=reader.baud, parser=FrameParser(reader.framing),
                         codes=reader_codes(reader), on_raw=on_raw)


def camera_reader(config: StationConfig, source: str | int | None = None,
                  on_raw: RawPayload | None = None, record_to: Path | None = None,
                  start_ts: float | None = None) -> CameraReader:
    """The camera of ``config`` (or ``source`` in its place: ``replay --video``)."""
    try:
        from drivers.camera import CameraReader  # noqa: PLC0415 - OpenCV only when chosen
    except ImportError as exc:
        # drivers.camera says what to install when OpenCV is missing; anything else is ours.
        why = str(exc) if "camera extra" in str(exc) else (
            f"{exc}; install the camera extra: pip install 'dealer-station[camera]'")
        raise ConfigError(f"{config.path}: reader.type camera: the camera reader cannot be "
                          f"loaded: {why}") from exc
    reader = config.reader
    chosen = reader.source if source is None else source
    if chosen is None:
        raise ConfigError(f"{config.path}: reader.source: a camera reader needs its source")
    return CameraReader(chosen, decoder=reader.decoder, roi=reader.roi,
                        agree_frames=reader.agree_frames, codes=reader_codes(reader),
                        on_raw=on_raw, record_to=record_to, start_ts=start_ts)


def cut_card_sensor(config: StationConfig) -> EventSource | None:
    """The modem-pin cut-card sensor, when the config has one."""
    cut = config.cut_card
    if cut.type != "modem_pin" or cut.port is None:
        return None
    from drivers.cut_card import CutCardSensor  # noqa: PLC0415

    return CutCardSensor(cut.port, pin=cut.pin, debounce_ms=cut.debounce_ms)


def describe(config: StationConfig, device: EventSource) -> str:
    """What a device is, for a technician: its port or source and its settings."""
    reader, cut = config.reader, config.cut_card
    if device.name == "camera":
        roi = "whole frame" if reader.roi is None else "roi " + "x".join(map(str, reader.roi))
        return (f"camera {getattr(device, 'source', reader.source)} ({reader.decoder}, {roi}, "
                f"{reader.agree_frames} frames agree)")
    if device.name == "scanner":
        return f"{reader.port} ({reader.baud} baud, {reader.framing})"
    return f"{cut.port} (cut card on {cut.pin.upper()})"


def live_devices(config: StationConfig, on_bytes: RawBytes | None = None,
                 on_payload: RawPayload | None = None, record_to: Path | None = None,
                 ) -> list[EventSource]:
    """The reader (unless simulated) and the cut-card sensor (if any) of ``config``;
    ``record_to``: the camera's frames as a video (``recording.raw``)."""
    devices: list[EventSource] = []
    if config.reader.type == "serial":
        devices.append(serial_scanner(config, on_bytes))
    elif config.reader.type == "camera":
        devices.append(camera_reader(config, on_raw=on_payload, record_to=record_to))
    sensor = cut_card_sensor(config)
    if sensor is not None:
        devices.append(sensor)
    return devices
