"""The station's devices named in plain words for the people who read the pages, declared
once: the device ids here, their words in each language's catalogue (``device.<id>`` in
``station/web/locale/<tag>/station.po``). Shared by the plain reasons (station.web.plain),
the notices (station.web.words) and the page's script, which gets them from the server
(``page_names``, inlined into index.html by station.web.server) instead of a copy of its own."""


from __future__ import annotations

from station.settings.languages import ALIASES, LANGUAGES
from station.table.msg import Msg, msg
from station.web.catalogue import text

# Devices named in plain words; an unknown name (a site's own) is kept as an id.
DEVICE_IDS = ("scanner", "sim-shoe", "camera", "cut-sensor", "upstream", "journal")
_DEVICE_IDS = {name: f"device.{name}" for name in DEVICE_IDS}


def device_in(name: str, tag: str) -> str:
    """``name``'s plain words in the language ``tag``; an unknown device as its id."""
    return text(f"device.{name}", tag) if name in DEVICE_IDS else name


def device_msg(name: str) -> Msg | str:
    """``name`` as a message parameter: its id's words, or an unknown device's own name."""
    return msg(_DEVICE_IDS[name]) if name in _DEVICE_IDS else name


def device(name: str, zh: bool) -> str:
    """In English or Simplified Chinese (the older callers' choice)."""
    return device_in(name, "zh-Hans" if zh else "en")


DEVICES = {name: (device_in(name, "en"), device_in(name, "zh-Hans")) for name in DEVICE_IDS}


def page_names() -> dict[str, dict[str, str]]:
    """Every device's name per language tag, for the page's script (its device strip)."""
    return {name: {tag: device_in(name, tag) for tag in (*LANGUAGES, *ALIASES)}
            for name in DEVICE_IDS}
