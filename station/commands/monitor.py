"""``station monitor [-c FILE]``: what the configured reader sends, one JSON line per event.

The first thing a technician runs at a new table, like ``candump`` or ``evtest``: no station,
no journal, just the device. Lines are the recording's event format (``card``, ``cut``,
``lost``, ``restored``) plus ``error`` for a frame or payload that is not a code, with its
reason and its bytes shown safely. Flushed as they happen; SIGINT/SIGTERM stop it (exit 0).
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
                   help="also print every chunk of bytes as the scanner sends it "
                   '(e: "raw", bytes shown safely)')
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here: the serial driver is only for this command and `run`.
    from drivers.base import EventSource  # noqa: PLC0415
    from drivers.events import CardRead, InputEvent  # noqa: PLC0415
    from drivers.framing import FrameParser, show_bytes  # noqa: PLC0415
    from drivers.serial_scanner import SerialScanner  # noqa: PLC0415
    from station.config import default_config_path, load_config, reader_codes  # noqa: PLC0415
    from station.errors import ConfigError  # noqa: PLC0415
    from station.recording import event_to_json  # noqa: PLC0415

    path: Path = args.config or default_config_path()
    config = load_config(path)
    reader, cut = config.reader, config.cut_card
    devices: list[EventSource] = []
    lock = threading.Lock()

    def emit(line: dict[str, Any]) -> None:
        with lock:
            sys.stdout.write(orjson.dumps(line).decode() + "\n")
            sys.stdout.flush()

    def raw(data: bytes, ts: float) -> None:
        emit({"t": ts, "e": "raw", "src": "scanner", "bytes": show_bytes(data, 256)})

    if reader.type == "serial" and reader.port is not None:
        devices.append(SerialScanner(reader.port, baudrate=reader.baud,
                                     parser=FrameParser(reader.framing),
                                     codes=reader_codes(reader),
                                     on_raw=raw if args.raw else None))
    if cut.type == "modem_pin" and cut.port is not None:
        from drivers.cut_card import CutCardSensor  # noqa: PLC0415

        devices.append(CutCardSensor(cut.port, pin=cut.pin, debounce_ms=cut.debounce_ms))
    if not devices:
        raise ConfigError(f"{path}: reader.type is {reader.type} and cut_card.type is "
                          f"{cut.type}: there is no device to monitor; set reader.type: serial "
                          "and reader.port, or cut_card.type: modem_pin and cut_card.port")
    def show(source: EventSource, event: InputEvent) -> None:
        line: dict[str, Any] = event_to_json(event)
        if isinstance(event, CardRead) and event.code.startswith("?"):
            # The driver's form for what is not a code: ?reason:bytes (drivers.serial_scanner).
            reason, _, raw = event.code[1:].partition(":")
            line = {"t": event.ts, "e": "error", "src": event.source, "reason": reason,
                    "raw": raw}
        emit(line)

    stop = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    watching = ", ".join(
        f"{d.port} ({reader.baud} baud, {reader.framing})" if isinstance(d, SerialScanner)
        else f"{cut.port} (cut card on {cut.pin.upper()})" for d in devices)
    print(f"station monitor: {watching}; Ctrl-C stops", file=sys.stderr, flush=True)
    for d in devices:
        d.start(show)
    scanner = next((d for d in devices if isinstance(d, SerialScanner)), None)
    was_open = False
    try:
        while not stop.wait(0.05):
            # Said on stderr, so a technician (or a test) knows bytes are being read now:
            # what a scanner sends before its port is open is lost.
            if scanner is not None and scanner.connected.is_set() != was_open:
                was_open = not was_open
                print(f"station monitor: {reader.port} {'open' if was_open else 'closed'}",
                      file=sys.stderr, flush=True)
    finally:
        for d in devices:
            d.stop()
        for s, h in old.items():
            signal.signal(s, h)
    return 0
