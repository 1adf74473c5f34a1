"""``display.type: web``: the dealer's page and the local control API (``station.web``;
aiohttp is imported only when chosen). The only display with the dealer's buttons (NEW
SHOE, OPEN and CLOSE BETTING), so a live table needs it (trait ``buttons``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from station.game.limits import short
from station.kinds.displays import DisplayContext
from station.kinds.keys import Key
from station.settings.configmodel import StationConfig
from station.settings.configsection import Section
from station.settings.languages import accepted
from station.settings.pagetls import IN_CLEAR_ON_LOOPBACK, PageAccess, parse_access

if TYPE_CHECKING:
    from station.web.display import WebDisplay



@dataclass(frozen=True, slots=True)
class WebSettings:
    """The web display's own keys: where the page and the local control API listen
    (``host``:``port``), its language and sound, and ``credentials_file`` (relative to the
    config's folder): the supervisors' hashed PINs, never the YAML."""

    host: str = "127.0.0.1"
    port: int = 8080
    language: str = "en"
    credentials_file: Path | None = None
    sound: bool = True
    access: PageAccess = IN_CLEAR_ON_LOOPBACK  # TLS, server names, plain HTTP (settings.pagetls)


_D = WebSettings()

KEYS = (
    Key("host", "text", _D.host, "the address the page and the API listen on; loopback "
        "unless the config says otherwise (the API can resume a paused table, with a PIN)"),
    Key("port", "whole number", str(_D.port), "the TCP port of the page and the API"),
    Key("language", "text", _D.language,
        "the page's language, a BCP 47 tag: " + ", ".join(accepted())
        + " (zh is zh-Hans; case does not matter)"),
    Key("credentials_file", "file", "null", "the supervisors' hashed PINs for resume and void "
        "on the page, next to the config (`station pin set NAME` writes it)"),
    Key("sound", "true or false", "true", "a sound when a third card is due and when the "
        "table pauses (the page can mute it)"),
    Key("tls", "mapping", "null", "{cert_file, key_file}: serve the page over HTTPS (TLS 1.2+, "
        "HSTS); needed on any address but loopback (docs/operations.md, Pages over TLS)"),
    Key("allow_plain_http", "true or false", "false", "serve plain HTTP beyond loopback on "
        "purpose (a warning at every start)"),
    Key("server_names", "list", "[]", "the DNS names the page answers as (Host), beside its "
        "address and localhost"),
)


def settings(config: StationConfig) -> WebSettings:
    """The chosen web display's settings, typed."""
    return config.display.kind_as(WebSettings)


def parse(sec: Section, chosen: bool) -> WebSettings:
    d = _D
    host = sec.str_("host", d.host, "an address to listen on, e.g. 127.0.0.1") or d.host
    if len(host) > 255 or any(c.isspace() or ord(c) < 32 for c in host):
        sec.fail(sec.key("host"), f"{short(host)} is not an address; e.g. 127.0.0.1")
    sound = sec.data.get("sound", d.sound)
    if not isinstance(sound, bool):
        sec.fail(sec.key("sound"), f"expected true or false, got {short(sound)}")
    creds = sec.path_("credentials_file", None, "a file next to the config, e.g. "
                      "supervisors.pins (`station pin set NAME` writes it)")
    return WebSettings(
        host=host,
        port=sec.int_("port", d.port, 1, "a TCP port, e.g. 8080", 65535) or d.port,
        language=sec.language("language", d.language),
        credentials_file=None if creds is None else sec.path.parent / creds,
        sound=sound, access=parse_access(sec, host))


def build(ctx: DisplayContext) -> WebDisplay:
    from station.web.serve import web_display  # noqa: PLC0415 - only a web table needs aiohttp

    own = settings(ctx.config)
    return web_display(ctx.config, ctx.daemon, list(ctx.devices), ctx.closers, ctx.rounds,
                       host=own.host, port=own.port, language=own.language, sound=own.sound,
                       credentials_file=own.credentials_file, access=own.access)
