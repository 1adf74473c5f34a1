"""Which ``Host`` header the web display answers (docs/display.md, "Who may reach the page").

The check is against DNS rebinding: a page on another site whose host name is made to resolve
to the station would otherwise reach the API with the visitor's browser. A host name is
accepted only when it is this station's own (the configured host, ``localhost``, a name of
its ``server_names``, the DNS names its certificate is for); an IP
literal cannot be rebound, so with a wildcard bind (``0.0.0.0``, ``::``), where the station
is reached by whatever address of it the network gives, any IP literal is accepted.
Pure: no I/O.
"""

from __future__ import annotations

import ipaddress

WILDCARDS = frozenset({"0.0.0.0", "::", "[::]", ""})


def bracketed(host: str) -> str:
    """A host as it appears in a URL: an IPv6 literal in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def split_host(header: str) -> tuple[str, str] | None:
    """``name:port`` or ``[v6]:port`` into (name, port); None if it is neither."""
    if header.startswith("["):
        end = header.find("]")
        if end < 0 or header[end + 1:end + 2] != ":":
            return None
        return header[1:end], header[end + 2:]
    name, sep, port = header.rpartition(":")
    if not sep or ":" in name:
        return None
    return name, port


def is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_allowed(header: str, bind_host: str, port: int, names: tuple[str, ...] = ()) -> bool:
    """True if a request with this ``Host`` header may be answered; ``names``: the
    ``server_names`` it answers as too (lower case)."""
    parts = split_host(header)
    if parts is None or parts[1] != str(port):
        return False
    name = parts[0].lower()
    own = {bind_host.strip("[]").lower(), "127.0.0.1", "localhost", "::1"}
    if name in own or name in names:
        return True
    return bind_host in WILDCARDS and is_ip_literal(name)


def suggestion(bind_host: str, port: int, local_ip: str | None, names: tuple[str, ...] = (),
               scheme: str = "http") -> str:
    """The address to use instead: its first server name, the configured address, or, with
    a wildcard bind, the IP address the request reached (a wildcard is not an address to
    browse to)."""
    if names:
        return f"use {scheme}://{names[0]}:{port}/"
    if bind_host not in WILDCARDS:
        return f"use {scheme}://{bracketed(bind_host)}:{port}/"
    host = bracketed(local_ip or "127.0.0.1")
    return f"use the station's address by IP, e.g. {scheme}://{host}:{port}/"
