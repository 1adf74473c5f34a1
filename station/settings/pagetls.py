"""Who may reach a page server and how (``display:`` and ``pit:`` alike): its TLS keys, the
DNS names it answers as, and the one way to serve in clear beyond loopback.

A page that leaves loopback carries names, PINs and session cookies, so it is served over
TLS (``tls: {cert_file, key_file}``), or in clear only when ``allow_plain_http: true`` says
so on purpose (docs/operations.md, "Pages over TLS"). Pure values and their parsing.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from station.game.limits import short
from station.settings.configsection import Section, secret_path

ACCESS_KEYS: Final = ("tls", "allow_plain_http", "server_names")
TLS_KEYS: Final = ("cert_file", "key_file")
MAX_SERVER_NAMES: Final = 16
# A DNS name as a browser sends it in Host (lower case, no trailing dot), labels of 1-63.
_DNS: Final = re.compile(r"(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
                         r"(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*")


@dataclass(frozen=True, slots=True)
class PageTls:
    """The server's certificate chain and private key (PEM); either may be a systemd
    credential (``${CREDENTIALS_DIRECTORY}/ID``)."""

    cert_file: Path
    key_file: Path


@dataclass(frozen=True, slots=True)
class PageAccess:
    tls: PageTls | None = None
    allow_plain_http: bool = False
    server_names: tuple[str, ...] = ()

    @property
    def scheme(self) -> str:
        return "https" if self.tls is not None else "http"


IN_CLEAR_ON_LOOPBACK: Final = PageAccess()  # the default: no TLS, loopback only


def is_loopback(host: str) -> bool:
    """True when ``host`` listens on this machine only (``localhost``, 127.0.0.0/8, ::1).
    A wildcard (``0.0.0.0``, ``::``) and any other address or name reach the network."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def plain_warning(where: str, host: str) -> str | None:
    """The line logged at every start of a page served in clear beyond loopback."""
    return (f"{where}: serving plain HTTP on {host}, beyond loopback (allow_plain_http: true): "
            "names, PINs and sessions cross the network in clear; set tls: {cert_file, "
            "key_file} (docs/operations.md, Pages over TLS)")


def parse_access(sec: Section, host: str) -> PageAccess:
    """The access keys of a page server's section (``sec``, listening on ``host``).
    Refuses (ConfigError naming ``tls``) a non-loopback address served in clear unless
    ``allow_plain_http`` is true."""
    tls = _tls(sec)
    plain = sec.bool_("allow_plain_http", False, "true only to serve in clear on purpose")
    names = _names(sec)
    if tls is None and not plain and not is_loopback(host):
        sec.fail(sec.key("tls"), f"{short(host)} reaches the network, where names and PINs "
                 "must not cross in clear; set tls: {cert_file: ..., key_file: ...} "
                 "(`station ca issue` makes a lab's), or allow_plain_http: true to serve "
                 "plain HTTP on purpose")
    return PageAccess(tls=tls, allow_plain_http=plain, server_names=names)


def _tls(sec: Section) -> PageTls | None:
    raw = sec.data.get("tls")
    if raw is None or raw is False:
        return None
    if not isinstance(raw, dict):
        sec.fail(sec.key("tls"), f"expected {{cert_file: ..., key_file: ...}} or null, got "
                 f"{short(raw)}")
    t = sec.sub("tls", TLS_KEYS)
    files: list[Path] = []
    for key in TLS_KEYS:
        value = t.path_(key, None, "a PEM file next to the config, or "
                        "${CREDENTIALS_DIRECTORY}/ID")
        if value is None:
            t.fail(t.key(key), "missing: TLS needs both cert_file and key_file (PEM)")
        files.append(secret_path(t, key, value))
    return PageTls(*files)


def _names(sec: Section) -> tuple[str, ...]:
    raw = sec.data.get("server_names")
    if raw is None:
        return ()
    fix = "a list of DNS names, e.g. [pit.studio.example]"
    if not isinstance(raw, list) or len(raw) > MAX_SERVER_NAMES:
        sec.fail(sec.key("server_names"), f"expected {fix} (at most {MAX_SERVER_NAMES})")
    names: list[str] = []
    for item in raw:
        if not isinstance(item, str) or not _DNS.fullmatch(item.lower()):
            sec.fail(sec.key("server_names"), f"{short(item)} is not a DNS name; {fix}")
        names.append(item.lower())
    return tuple(dict.fromkeys(names))
