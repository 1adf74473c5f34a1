"""``station monitor [-c FILE]``: what the configured devices send, one JSON line per event.

The first thing a technician runs at a new table, like ``candump`` or ``evtest``: no station,
no journal, just the device. Lines are the recording's event format (``card``, ``cut``,
``lost``, ``restored``) plus ``error`` for a frame or payload that is not a code, with its
reason and its bytes shown safely. Flushed as they happen; SIGINT/SIGTERM stop it (exit 0), and
so does the end of a video file named as a camera's source.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import orjson


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "monitor", help="print what the configured reader sends",
        description="Open the configured card reader without a station and print one JSON "
        "line per event as it happens. Ctrl-C stops.",
    )
    p.add_argument("-c", "--config", type=Path, default=None,
                   help="station YAML (default: config/station.yaml)")
    p.add_argument("--raw", action="store_true",
                   help='also print what the device sends before it means anything (e: "raw"): '
                   "a scanner's bytes, shown safely, or each payload a camera decodes with "
                   "its confidence")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here: the drivers are only for this command, `run` and `replay --video`.
    from drivers.base import EventSource  # noqa: PLC0415
    from drivers.events import CardRead, InputEvent  # noqa: PLC0415
    from drivers.framing import show_bytes  # noqa: PLC0415
    from station.errors import ConfigError  # noqa: PLC0415
    from station.live.config import default_config_path, load_config  # noqa: PLC0415
    from station.live.devices import describe, live_devices  # noqa: PLC0415
    from station.wire.recording import event_to_json  # noqa: PLC0415

    path: Path = args.config or default_config_path()
    config = load_config(path)
    lock = threading.Lock()

    def emit(line: dict[str, Any]) -> None:
        with lock:
            sys.stdout.write(orjson.dumps(line).decode() + "\n")
            sys.stdout.flush()

    def raw_bytes(data: bytes, ts: float) -> None:
        emit({"t": ts, "e": "raw", "src": "scanner", "bytes": show_bytes(data, 256)})

    def raw_payload(payload: str, confidence: float, ts: float) -> None:
        emit({"t": ts, "e": "raw", "src": "camera",
              "payload": show_bytes(payload.encode("utf-8", "replace"), 256),
              "confidence": round(confidence, 3)})

    found = live_devices(config, raw_bytes if args.raw else None,
                           raw_payload if args.raw else None)
    devices = [d for _, d in found]
    if not devices:
        raise ConfigError(f"{path}: reader.type is {config.reader.type} and cut_card.type is "
                          f"{config.cut_card.type}: there is no device to monitor; set "
                          "reader.type: serial and reader.port (or camera and reader.source, or "
                          "hid and reader.device), or cut_card.type: modem_pin and cut_card.port")

    def show(source: EventSource, event: InputEvent) -> None:
        line: dict[str, Any] = event_to_json(event)
        if isinstance(event, CardRead) and event.code.startswith("?"):
            # The drivers' form for what is not a code: ?reason:bytes (drivers.serial_scanner).
            reason, _, raw = event.code[1:].partition(":")
            line = {"t": event.ts, "e": "error", "src": event.source, "reason": reason,
                    "raw": raw}
        emit(line)

    stop = threading.Event()
    failed: list[str] = []

    def ended(source: EventSource, error: BaseException | None) -> None:
        # A video file played to its end (None), or a driver that died: either way there is
        # nothing more to watch.
        if error is not None:
            failed.append(f"{source.name}: {type(error).__name__}: {error}")
        stop.set()

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    watching = ", ".join(describe(config, family, d) for family, d in found)
    print(f"station monitor: {watching}; Ctrl-C stops", file=sys.stderr, flush=True)
    for d in devices:
        d.start(show, ended)
    reader = found[0][1] if found[0][0] == "reader" else None
    connected: threading.Event | None = getattr(reader, "connected", None)
    was_open = False
    try:
        while not stop.wait(0.05):
            # Said on stderr, so a technician (or a test) knows the device is being read now:
            # what a scanner sends before its port is open is lost.
            if connected is not None and connected.is_set() != was_open:
                was_open = not was_open
                print(f"station monitor: {describe(config, *found[0]).split(' (')[0]} "
                      f"{'open' if was_open else 'closed'}", file=sys.stderr, flush=True)
    finally:
        for d in devices:
            d.stop()
        for s, h in old.items():
            signal.signal(s, h)
    if failed:
        print(f"station monitor: {'; '.join(failed)}", file=sys.stderr)
        return 1
    return 0
