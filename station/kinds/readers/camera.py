"""``reader.type: camera``: barcodes read from a camera, a stream or a video file
(``drivers.camera``, the optional ``camera`` extra: OpenCV is imported only when chosen)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from station.errors import ConfigError
from station.game.limits import short
from station.kinds.keys import Key
from station.kinds.probes import Finding
from station.kinds.readers import DeviceHooks, reader_codes
from station.settings.configmodel import StationConfig
from station.settings.configsection import Section

if TYPE_CHECKING:
    from drivers.camera import CameraReader

# drivers.camera.DECODERS, spelled out so loading a config never imports OpenCV.
CAMERA_DECODERS = ("zxing", "pyzbar")
AGREE_FRAMES_MAX = 30
ROI_MAX = 16384  # pixels: wider than any camera a shoe has
_SOURCE_FIX = ("a camera index such as 0, a device such as /dev/v4l/by-id/usb-...-video-index0, "
               "a video file, or a stream URL")
_ROI_FIX = ("[x, y, width, height] in pixels, e.g. [400, 200, 480, 240], or null for the whole "
            "frame")

KEYS = (
    Key("source", "whole number or text", "required", "a camera index (0-63), a device "
        "(best /dev/v4l/by-id/...), a video file or a stream URL"),
    Key("decoder", "text", "zxing", f"the barcode decoder: {', '.join(CAMERA_DECODERS)}"),
    Key("roi", "[x, y, width, height]", "null", "the region of the frame to decode; null: the "
        "whole frame", "pixels"),
    Key("agree_frames", "whole number", "2", "frames in a row that must read the same code "
        f"(1-{AGREE_FRAMES_MAX})", "frames"),
)


@dataclass(frozen=True, slots=True)
class CameraSettings:
    """The camera reader's own keys: where frames come from, how they are decoded, and how
    sure it must be."""

    # A camera index, a device path, a video file or a URL; None only where the config's
    # reader is another kind (``replay --video`` gives the video in its place).
    source: str | int | None = None
    decoder: str = "zxing"
    roi: tuple[int, int, int, int] | None = None  # x, y, width, height in pixels
    agree_frames: int = 2


def settings(config: StationConfig) -> CameraSettings:
    """The chosen camera reader's settings, typed."""
    return config.reader.kind_as(CameraSettings)


def parse(sec: Section, chosen: bool) -> CameraSettings:
    return CameraSettings(
        source=_source(sec, chosen),
        decoder=sec.choice("decoder", "zxing", CAMERA_DECODERS),
        roi=_roi(sec),
        agree_frames=sec.int_("agree_frames", 2, 1, "how many frames in a row must read the "
                              "same code, e.g. 2", AGREE_FRAMES_MAX) or 2)


def _source(sec: Section, chosen: bool) -> str | int | None:
    """``reader.source``: a camera index (0, 1, ...), a device path, a video file or a URL."""
    value = sec.data.get("source")
    if value is None:
        if chosen:
            sec.fail(sec.key("source"), f"a camera reader needs its source: {_SOURCE_FIX}")
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        sec.fail(sec.key("source"), f"expected {_SOURCE_FIX}, got {short(value)}")
    if isinstance(value, int):
        return sec.int_("source", None, 0,
                        "a camera index from 0 to 63, or a device, file or URL as text", 63)
    return sec.path_("source", None, _SOURCE_FIX)


def _roi(sec: Section) -> tuple[int, int, int, int] | None:
    """``reader.roi``: ``[x, y, width, height]`` in pixels of the camera's frame."""
    value = sec.data.get("roi")
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) != 4
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        sec.fail(sec.key("roi"), f"expected {_ROI_FIX}, got {short(value)}")
    x, y, w, h = value
    if min(x, y) < 0 or min(w, h) < 1 or max(x + w, y + h) > ROI_MAX:
        sec.fail(sec.key("roi"), f"{short(value)} is not a region of a frame: x and y from 0, "
                 f"width and height from 1, within {ROI_MAX} pixels; {_ROI_FIX}")
    return (x, y, w, h)


def _install_hint(config: StationConfig, exc: ImportError) -> ConfigError:
    # drivers.camera says what to install when OpenCV is missing; anything else is ours.
    why = str(exc) if "camera extra" in str(exc) else (
        f"{exc}; install the camera extra: pip install 'dealer-station[camera]'")
    return ConfigError(f"{config.path}: reader.type camera: the camera reader cannot be "
                       f"loaded: {why}")


def build(config: StationConfig, hooks: DeviceHooks) -> CameraReader:
    """The camera of ``config`` (or ``hooks.source`` in its place)."""
    return open_camera(config, settings(config), hooks)


def open_camera(config: StationConfig, own: CameraSettings, hooks: DeviceHooks
                ) -> CameraReader:
    """A camera reader of settings ``own``, the source ``hooks.source`` in their source's
    place (``replay --video``, with the camera keys of a config whatever reader it chose)."""
    try:
        from drivers.camera import CameraReader  # noqa: PLC0415 - OpenCV only when chosen
    except ImportError as exc:
        raise _install_hint(config, exc) from exc
    chosen = own.source if hooks.source is None else hooks.source
    if chosen is None:
        raise ConfigError(f"{config.path}: reader.source: a camera reader needs its source")
    return CameraReader(chosen, decoder=own.decoder, roi=own.roi,
                        agree_frames=own.agree_frames, codes=reader_codes(config.reader),
                        on_raw=hooks.on_payload, record_to=hooks.record_to,
                        start_ts=hooks.start_ts)


def probe(config: StationConfig) -> Iterator[Finding]:
    """Open the source as the reader would, read one frame, and make the decoder."""
    reader = settings(config)
    try:
        from drivers.camera.probe import probe_source  # noqa: PLC0415 - OpenCV only here
    except ImportError as exc:
        yield Finding(False, "reader.source", str(_install_hint(config, exc)))
        return
    assert reader.source is not None  # the parser refuses a camera without its source
    try:
        said = probe_source(reader.source, reader.decoder)
    except ImportError as exc:  # the decoder's library
        yield Finding(False, "reader.decoder", f"{reader.decoder}: {exc}")
    except (OSError, ValueError) as exc:
        yield Finding(False, "reader.source", f"{reader.source} cannot be read ({exc}); check "
                      "the camera's cable and its udev link (ls -l /dev/v4l/by-id/), the "
                      "stream's URL, or the file's name, and that no other program holds it")
    else:
        yield Finding(True, "reader.source", f"{reader.source}: {said}")


def describe(config: StationConfig, device: object) -> str:
    reader = settings(config)
    roi = "whole frame" if reader.roi is None else "roi " + "x".join(map(str, reader.roi))
    return (f"camera {getattr(device, 'source', reader.source)} ({reader.decoder}, {roi}, "
            f"{reader.agree_frames} frames agree)")
