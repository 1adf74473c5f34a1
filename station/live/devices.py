"""The live devices a config names, built through their kinds (``station.kinds.registry``)
for ``run``, ``monitor`` and ``replay``.

Each driver is imported only when the config chooses it: a serial table never imports OpenCV,
and a table without a modem-pin sensor never opens a second port. A driver that cannot be
imported (the ``camera`` extra not installed) is a config error with the fix, not a traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from station.kinds.readers import DeviceHooks, RawBytes, RawPayload
from station.kinds.registry import LIVE, kind, settings_of
from station.settings.configmodel import StationConfig

if TYPE_CHECKING:
    from drivers.base import EventSource
    from drivers.camera import CameraReader

DEVICE_FAMILIES = ("reader", "cut_card")


def _type(config: StationConfig, family: str) -> str:
    return config.reader.type if family == "reader" else config.cut_card.type


def camera_reader(config: StationConfig, source: str | int | None = None,
                  start_ts: float | None = None) -> CameraReader:
    """The camera of ``config``, or ``source`` in its place (``replay --video``: the camera
    keys of the config are read whichever reader it chose, as at load)."""
    from station.kinds.readers import camera  # noqa: PLC0415

    own = settings_of(config, "reader", "camera")
    assert isinstance(own, camera.CameraSettings)  # the camera always has settings
    return camera.open_camera(config, own, DeviceHooks(source=source, start_ts=start_ts))


def describe(config: StationConfig, family: str, device: EventSource) -> str:
    """What a device is, for a technician: its port or source and its settings."""
    entry = kind(family, _type(config, family))
    return device.name if entry.describe is None else entry.describe(config, device)


def cut_card_device(config: StationConfig) -> EventSource | None:
    """The cut-card sensor of ``config``, when its kind has a device."""
    sensor = kind("cut_card", config.cut_card.type)
    return None if sensor.build is None else sensor.build(config)


def live_devices(config: StationConfig, on_bytes: RawBytes | None = None,
                 on_payload: RawPayload | None = None) -> list[tuple[str, EventSource]]:
    """What ``station monitor`` watches: the reader (if it is a device: trait ``live``) and
    the cut-card sensor (if any) of ``config``, each with its family."""
    hooks = DeviceHooks(on_bytes=on_bytes, on_payload=on_payload)
    found: list[tuple[str, EventSource]] = []
    reader = kind("reader", config.reader.type)
    if LIVE in reader.traits and reader.build is not None:
        found.append(("reader", reader.build(config, hooks)))
    sensor = cut_card_device(config)
    if sensor is not None:
        found.append(("cut_card", sensor))
    return found
