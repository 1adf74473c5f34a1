"""``reader.type: hid``: a USB barcode scanner as a HID device, in keyboard mode read through
evdev and grabbed (``drivers.hid_scanner``), or in HID-POS mode read through hidraw
(``drivers.hidpos``). docs/hardware.md says how to find a scanner and set its mode."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from drivers.framing import FrameParser
from drivers.keyboard import EV_KEY, KEY_ENTER
from drivers.layouts import layout_names
from station.game.limits import short
from station.kinds.keys import Key
from station.kinds.probes import Finding
from station.kinds.readers import DEVICES_DROPIN, DeviceHooks, reader_codes
from station.settings.configmodel import StationConfig
from station.settings.configsection import Section

if TYPE_CHECKING:
    from drivers.base import EventSource

MODES: Final = ("keyboard", "pos")
TERMINATORS: Final = ("enter", "tab")  # drivers.hid_scanner.TERMINATORS
# The layouts shipped as data (drivers/keymaps/*.json): listing them imports no evdev.
LAYOUTS: Final = layout_names()
# What the unit must let the service open, per mode (systemd's DeviceAllow=; the kernel's
# device classes in /proc/devices). Read only: the reader never writes to the scanner.
DEVICE_ALLOW: Final = {"keyboard": "char-input r", "pos": "char-hidraw r"}
_DEVICE_FIX = ("the scanner's event node, best /dev/input/by-id/usb-...-event-kbd (keyboard "
               "mode), or its /dev/hidrawN (pos mode)")

KEYS = (
    Key("device", "text", "null", "the scanner's device: /dev/input/by-id/..."
        "-event-kbd in keyboard mode, /dev/hidrawN in pos mode; or give usb_id"),
    Key("usb_id", "text", "null", "the scanner's USB ids vvvv:pppp as lsusb shows them, "
        "instead of device: looked up at every open, so a replug is found again"),
    Key("mode", "text", "keyboard", "how the scanner is set up: keyboard (it types; the "
        "station grabs it so nothing else sees a key) or pos (HID-POS, read through hidraw)"),
    Key("layout", "text", "us", "the keyboard layout the scanner types in (keyboard mode): "
        f"{', '.join(LAYOUTS)}"),
    Key("terminator", "text", "enter", "the key that ends a code (keyboard mode): enter "
        "(Enter or keypad Enter) or tab"),
    Key("prefix", "text", "null", "text the scanner puts before every code (an AIM id such "
        "as ]C0): required on each code, and stripped"),
    Key("suffix", "text", "null", "text the scanner puts after every code, before the "
        "terminator: required on each code, and stripped"),
)


@dataclass(frozen=True, slots=True)
class HidSettings:
    """The HID scanner's own keys: which device, which mode, how it types."""

    device: str | None = None  # the event node or hidraw node, or None with usb_id
    usb_id: tuple[int, int] | None = None  # vendor, product
    mode: str = "keyboard"
    layout: str = "us"
    terminator: str = "enter"
    prefix: str = ""
    suffix: str = ""


def settings(config: StationConfig) -> HidSettings:
    """The chosen HID reader's settings, typed."""
    return config.reader.kind_as(HidSettings)


def parse(sec: Section, chosen: bool) -> HidSettings | None:
    device = sec.path_("device", None, _DEVICE_FIX)
    ids_text = sec.str_("usb_id", None, "the scanner's USB ids as lsusb shows them, e.g. "
                        "0c2e:0b61")
    ids = None
    if ids_text is not None:
        ids = _usb_id(ids_text)
        if ids is None:
            sec.fail(sec.key("usb_id"), f"{short(ids_text)} is not a USB id vvvv:pppp "
                     "(hexadecimal, as lsusb shows it), e.g. 0c2e:0b61")
    mode = sec.choice("mode", "keyboard", MODES)
    layout = sec.choice("layout", "us", LAYOUTS)
    terminator = sec.choice("terminator", "enter", TERMINATORS)
    prefix = sec.str_("prefix", None, "the text before every code, e.g. ]C0") or ""
    suffix = sec.str_("suffix", None, "the text after every code") or ""
    if chosen and (device is None) == (ids is None):
        sec.fail(sec.key("device"), f"a hid reader needs either device ({_DEVICE_FIX}) or "
                 "usb_id (vvvv:pppp), one of them")
    if device is None and ids is None:
        return None
    return HidSettings(device, ids, mode, layout, terminator, prefix, suffix)


def _usb_id(text: str) -> tuple[int, int] | None:
    """``"0c2e:0b61"`` -> (0x0c2e, 0x0b61), or None when it is not one."""
    vendor, sep, product = text.strip().partition(":")
    digits = "0123456789abcdefABCDEF"
    if not sep or not all(1 <= len(x) <= 4 and all(c in digits for c in x)
                          for x in (vendor, product)):
        return None
    return int(vendor, 16), int(product, 16)


def build(config: StationConfig, hooks: DeviceHooks) -> EventSource:
    own = settings(config)
    codes = reader_codes(config.reader)
    if own.mode == "pos":
        from drivers.hidpos import HidPosScanner, PosReports  # noqa: PLC0415

        return HidPosScanner(own.device, usb=own.usb_id, codes=codes, on_raw=hooks.on_bytes,
                             reports=PosReports(prefix=own.prefix, suffix=own.suffix))
    from drivers.hid_scanner import TERMINATORS as FRAMING  # noqa: PLC0415
    from drivers.hid_scanner import HidScanner  # noqa: PLC0415
    from drivers.layouts import load_layout  # noqa: PLC0415

    parser = FrameParser(FRAMING[own.terminator], prefix=own.prefix, suffix=own.suffix)
    return HidScanner(own.device, usb=own.usb_id, layout=load_layout(own.layout),
                      parser=parser, codes=codes, on_raw=hooks.on_bytes)


def device_allow(config: StationConfig) -> tuple[str, ...]:
    """The unit's ``DeviceAllow=`` lines this reader needs beyond the shipped unit's."""
    return (DEVICE_ALLOW[settings(config).mode],)


def _where(own: HidSettings) -> str:
    if own.device is not None:
        return own.device
    assert own.usb_id is not None
    return f"USB {own.usb_id[0]:04x}:{own.usb_id[1]:04x}"


def probe(config: StationConfig) -> Iterator[Finding]:
    own = settings(config)
    yield _probe_pos(own) if own.mode == "pos" else _probe_keyboard(own)
    yield from _probe_unit(own)


def _probe_keyboard(own: HidSettings, open_device: Callable[[str], Any] | None = None,
                    find: Callable[[int, int], str | None] | None = None) -> Finding:
    """Open and grab the event node as the station would, say what it is, let it go.
    ``open_device``: python-evdev's ``InputDevice`` (a test gives the kernel's answers)."""
    from drivers.hid_scanner import find_event_node  # noqa: PLC0415

    key = "reader.device" if own.device is not None else "reader.usb_id"
    if own.device is not None:
        path: str | None = own.device
    else:
        assert own.usb_id is not None
        path = (find or find_event_node)(*own.usb_id)
    hint = ("check the cable and the udev rule (ls -l /dev/input/by-id/), that the scanner is "
            "in keyboard mode, and that no other program holds it (the station itself, or "
            "station monitor)")
    if path is None:
        return Finding(False, key, f"{_where(own)}: no keyboard event node with these ids; "
                       f"{hint}")
    try:
        if open_device is None:
            import evdev  # noqa: PLC0415

            open_device = evdev.InputDevice
        dev = open_device(path)
    except (ImportError, OSError) as exc:
        return Finding(False, key, f"{path} cannot be opened ({exc}); {hint}")
    try:
        dev.grab()
        dev.ungrab()
        keys = dev.capabilities().get(EV_KEY, [])
        what = (f"{path} opened and grabbed: {dev.name!r}, USB "
                f"{dev.info.vendor:04x}:{dev.info.product:04x}")
        if KEY_ENTER not in keys:
            return Finding(False, key, f"{what}, which has no Enter key: not the scanner's "
                           "keyboard node (try the one ending in -event-kbd)")
        return Finding(True, key, f"{what}, a keyboard")
    except OSError as exc:
        return Finding(False, key, f"{path} cannot be grabbed ({exc}); {hint}")
    finally:
        dev.close()


def _probe_pos(own: HidSettings) -> Finding:
    from drivers.hidpos import find_hidraw  # noqa: PLC0415

    key = "reader.device" if own.device is not None else "reader.usb_id"
    if own.device is not None:
        path: str | None = own.device
    else:
        assert own.usb_id is not None
        path = find_hidraw(*own.usb_id)
    hint = ("check the cable and the udev rule (ls -l /dev/hidraw*), and that the scanner is "
            "in HID-POS mode")
    if path is None:
        return Finding(False, key, f"{_where(own)}: no hidraw node with these ids; {hint}")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        return Finding(False, key, f"{path} cannot be opened ({exc.strerror or exc}); {hint}")
    os.close(fd)
    name = ""
    uevent = Path("/sys/class/hidraw") / Path(path).name / "device" / "uevent"
    try:
        for line in uevent.read_text(encoding="ascii", errors="replace").splitlines():
            if line.startswith("HID_NAME="):
                name = f": {line.removeprefix('HID_NAME=')!r}"
    except OSError:
        pass
    return Finding(True, key, f"{path} opened{name}")


def _probe_unit(own: HidSettings, root: Path = Path("/")) -> Iterator[Finding]:
    """On a PC with the station's unit installed: the drop-in that lets it open the device."""
    unit = root / "etc/systemd/system/dealer-station.service"
    if not unit.is_file():
        return
    dropin = root / DEVICES_DROPIN
    allow = DEVICE_ALLOW[own.mode]
    try:
        text = dropin.read_text(encoding="utf-8")
    except OSError:
        text = ""
    if f"DeviceAllow={allow}" in text:
        yield Finding(True, "reader.mode", f"{dropin} lets the unit open it ({allow})")
    else:
        yield Finding(False, "reader.mode", f"the installed unit may not open a {own.mode} "
                      f"scanner ({dropin} has no DeviceAllow={allow}): run station "
                      "install-service again, then systemctl daemon-reload")


def describe(config: StationConfig, device: object) -> str:
    own = settings(config)
    how = ("HID-POS" if own.mode == "pos"
           else f"keyboard, layout {own.layout}, ends with {own.terminator}, grabbed")
    return f"{_where(own)} ({how})"
