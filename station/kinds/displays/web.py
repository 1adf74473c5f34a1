"""``display.type: web``: the dealer's page and the local control API (``station.web``;
aiohttp is imported only when chosen). The only display with the dealer's buttons (NEW
SHOE, OPEN and CLOSE BETTING), so a live table needs it (trait ``buttons``)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from station.game.limits import short
from station.kinds.displays import DisplayContext
from station.kinds.keys import Key
from station.settings.configmodel import DisplaySettings
from station.settings.configsection import Section

if TYPE_CHECKING:
    from station.web.display import WebDisplay

LANGUAGES = ("en", "zh")
_D = DisplaySettings()

KEYS = (
    Key("host", "text", _D.host, "the address the page and the API listen on; loopback "
        "unless the config says otherwise (the API can resume a paused table, with a PIN)"),
    Key("port", "whole number", str(_D.port), "the TCP port of the page and the API"),
    Key("language", "text", _D.language, f"the page's language: {', '.join(LANGUAGES)}"),
    Key("credentials_file", "file", "null", "the supervisors' hashed PINs for resume and void "
        "on the page, next to the config (`station pin set NAME` writes it)"),
    Key("sound", "true or false", "true", "a sound when a third card is due and when the "
        "table pauses (the page can mute it)"),
)


def parse(sec: Section, settings: DisplaySettings, chosen: bool) -> DisplaySettings:
    d = _D
    host = sec.str_("host", d.host, "an address to listen on, e.g. 127.0.0.1") or d.host
    if len(host) > 255 or any(c.isspace() or ord(c) < 32 for c in host):
        sec.fail(sec.key("host"), f"{short(host)} is not an address; e.g. 127.0.0.1")
    sound = sec.data.get("sound", d.sound)
    if not isinstance(sound, bool):
        sec.fail(sec.key("sound"), f"expected true or false, got {short(sound)}")
    creds = sec.path_("credentials_file", None, "a file next to the config, e.g. "
                      "supervisors.pins (`station pin set NAME` writes it)")
    return replace(
        settings, host=host,
        port=sec.int_("port", d.port, 1, "a TCP port, e.g. 8080", 65535) or d.port,
        language=sec.choice("language", d.language, LANGUAGES),
        credentials_file=None if creds is None else sec.path.parent / creds,
        sound=sound)


def build(ctx: DisplayContext) -> WebDisplay:
    from station.web.serve import web_display  # noqa: PLC0415 - only a web table needs aiohttp

    return web_display(ctx.config, ctx.daemon, list(ctx.devices), ctx.closers, ctx.rounds)
