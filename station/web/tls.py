"""The page servers' TLS: the standard library's ``ssl`` context aiohttp's connections are
wrapped in, and the headers a page served over it carries (docs/operations.md, "Pages over
TLS").
"""

from __future__ import annotations

import ssl
from typing import Final

from aiohttp import web

from station.errors import ConfigError
from station.settings.pagetls import PageTls

# A year, the figure browsers' preload lists ask for; no includeSubDomains: the studio's other
# hosts are not ours to promise for.
HSTS: Final = "max-age=31536000"
HANDSHAKE_TIMEOUT_S: Final = 10.0  # a client that opens a connection and says nothing


def server_context(tls: PageTls, key: str) -> ssl.SSLContext:
    """A server context of TLS 1.2 or later with ``tls``'s chain and key. Raises ConfigError
    naming ``key`` (``pit.tls``) and the file when either cannot be read or they differ."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.options |= ssl.OP_NO_COMPRESSION | ssl.OP_CIPHER_SERVER_PREFERENCE
    for name, path in (("cert_file", tls.cert_file), ("key_file", tls.key_file)):
        if not path.is_file():
            raise ConfigError(f"{key}.{name}: {path} does not exist; `station ca issue` makes "
                              "a lab's certificate and key, or name the studio's PEM files")
    try:
        ctx.load_cert_chain(tls.cert_file, tls.key_file)
    except OSError as exc:
        raise ConfigError(f"{key}.cert_file/key_file: {exc.strerror or exc} ({tls.cert_file}); "
                          "make them readable by the service's user") from exc
    except ssl.SSLError as exc:
        raise ConfigError(f"{key}: {tls.cert_file} and {tls.key_file} are not a PEM "
                          f"certificate chain and its private key ({exc.reason or exc}); "
                          "give the server's certificate (then its CA's) and the key it was "
                          "issued for") from exc
    return ctx


async def strict_transport(request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare``: every answer over TLS tells the browser to keep to it."""
    response.headers["Strict-Transport-Security"] = HSTS
