"""The web server's door: it accepts connections itself, so it can count and bound them.

aiohttp's own site lets the event loop accept, which holds every idle connection until the
keep-alive timeout (an hour) and, once the process is out of descriptors, logs each failed
accept with its traceback, many times a second (issue 18). Here (docs/operations.md,
"Ceilings under abuse"):

- at most ``cap`` connections are open; one more closes the one idle longest (connected, no
  request being handled), or, with none idle, is answered 503 and closed;
- a connection idle for ``idle_s`` (no request, or a request's headers never finished) is
  closed, so a slow sender of headers holds its socket that long at most;
- an accept that fails for want of descriptors sheds the idle connections, waits
  ``retry_s`` and tries again, and is logged once per ``log_every_s`` with a count;
- a request aiohttp cannot parse (two Host headers, a header or URL over its limits, too
  many headers, not HTTP at all) is answered 400 by aiohttp as before, and logged as one line
  per kind once per ``log_every_s`` with a count, never aiohttp's traceback (``RequestLog``;
  issue 30: 300 such requests were 236 KB of tracebacks).

Runs on the server's event loop only.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
import ssl
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.log import server_logger

from station.settings.pagetls import IN_CLEAR_ON_LOOPBACK, PageAccess
from station.web.hosts import host_allowed, suggestion
from station.web.tls import HANDSHAKE_TIMEOUT_S
from station.wire.ratelimit import Every

log = logging.getLogger(__name__)

MAX_HANDSHAKES = 64  # TLS handshakes under way at once (GuardedSite._handshake)
EXHAUSTED = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
# Sent, best effort, to a connection over the cap when every other one is busy.
_FULL_BODY = (b'{"ok":false,"error":"the station has too many connections open",'
              b'"fix":"close other pages, then try again"}')
FULL_ANSWER = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
               b"Retry-After: 5\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"
               % len(_FULL_BODY)) + _FULL_BODY


class Gate(asyncio.Protocol):
    """One connection: forwards everything to aiohttp's protocol; the keeper counts it and
    the server marks it busy while a request is handled."""

    def __init__(self, keeper: Keeper, inner: asyncio.Protocol) -> None:
        self.keeper = keeper
        self.inner = inner
        self.transport: asyncio.Transport | None = None
        self.busy = 0
        self.since = time.monotonic()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.keeper.made(self)
        self.inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.keeper.lost(self)
        self.inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


class Keeper:
    """The open connections, the one idle longest first."""

    def __init__(self, *, cap: int, idle_s: float, log_every_s: float = 60.0) -> None:
        self.cap = cap
        self.idle_s = idle_s
        self.log_every_s = log_every_s
        self._open: OrderedDict[asyncio.BaseTransport, Gate] = OrderedDict()
        self.evicted = 0  # closed to make room
        self.refused = 0  # answered 503: all busy
        self.timed_out = 0  # idle too long
        self.exhausted = 0  # accepts that found no descriptor
        self._log = Every(log_every_s)

    def __len__(self) -> int:
        return len(self._open)

    def made(self, gate: Gate) -> None:
        assert gate.transport is not None
        self._open[gate.transport] = gate

    def lost(self, gate: Gate) -> None:
        if gate.transport is not None:
            self._open.pop(gate.transport, None)

    def enter(self, transport: asyncio.BaseTransport | None) -> Gate | None:
        """A request starts on ``transport``: its connection is busy until ``leave``."""
        if transport is None or (gate := self._open.get(transport)) is None:
            return None
        gate.busy += 1
        self._open.move_to_end(transport)
        return gate

    def leave(self, gate: Gate | None) -> None:
        if gate is None:
            return
        gate.busy -= 1
        gate.since = time.monotonic()
        if gate.transport is not None and gate.transport in self._open:
            self._open.move_to_end(gate.transport)

    def _close_idle(self, limit: int, older_than: float | None = None) -> int:
        closed = 0
        for gate in list(self._open.values()):
            if closed >= limit:
                break
            if gate.busy or gate.transport is None:
                continue
            if older_than is not None and gate.since > older_than:
                continue
            self._open.pop(gate.transport, None)
            gate.transport.close()
            closed += 1
        return closed

    def room(self) -> bool:
        """Room for one more connection, closing the one idle longest if need be."""
        if len(self._open) < self.cap:
            return True
        if self._close_idle(1):
            self.evicted += 1
            return True
        return False

    def sweep(self) -> None:
        """Close the connections idle for ``idle_s`` or more."""
        self.timed_out += self._close_idle(len(self._open), time.monotonic() - self.idle_s)

    def out_of_descriptors(self, exc: OSError) -> None:
        """An accept found no descriptor: free the idle ones; say so once per interval."""
        self.exhausted += 1
        shed = self._close_idle(len(self._open))
        unsaid = self._log.due("exhausted", time.monotonic())
        if unsaid is None:
            return
        more = f"; {unsaid} more since the last line" if unsaid else ""
        log.warning("display: cannot accept a connection (%s); closed %d idle connections, "
                    "%d open%s (said at most once a minute)", exc.strerror or exc, shed,
                    len(self._open), more)


# What a line about a request aiohttp could not parse keeps of its message (which may hold
# 100 KB of the request's own bytes).
REQUEST_ERROR_CHARS = 160


class RequestLog:
    """The logger a page server's aiohttp request handler logs to (its ``logger``): requests
    it cannot parse, which anyone who can reach the port may send as fast as they like, are
    one line per kind of error once per ``log_every_s``, the rest of the interval summed up
    in one line with a count when it is over (``flush``, from the site's sweep); everything
    else (a handler's own error: a bug, with its traceback) goes to aiohttp's logger as it
    would have."""

    def __init__(self, site: str, log_every_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic, max_kinds: int = 64) -> None:
        self.site = site
        self.log_every_s = log_every_s
        self.clock = clock
        self.max_kinds = max_kinds
        self.bad = 0  # requests aiohttp could not parse, logged or counted
        self._kinds: dict[str, list[float | int]] = {}  # kind -> [said at, not said since]

    def debug(self, msg: object, *args: object, exc_info: object = None, **kw: object) -> None:
        if isinstance(exc_info, HttpProcessingError):
            # aiohttp's debug line for a first request that is no HTTP method (a TLS hello, a
            # port scan): counted with the others, said as they are.
            self._bad(exc_info, args)
            return
        server_logger.debug(msg, *args, exc_info=exc_info, **kw)  # type: ignore[arg-type]

    def exception(self, msg: object, *args: object, exc_info: object = True,
                  **kw: object) -> None:
        if isinstance(exc_info, HttpProcessingError):
            self._bad(exc_info, args)
            return
        server_logger.exception(msg, *args, exc_info=exc_info, **kw)  # type: ignore[arg-type]

    def flush(self) -> None:
        """Sum up each kind whose interval is over with requests not said: one line each."""
        now = self.clock()
        for kind, entry in self._kinds.items():
            said_at, unsaid = entry
            if unsaid and now - said_at >= self.log_every_s:
                log.warning("%s: %d more requests it could not read (%s) in the last %.0f s",
                            self.site, unsaid, kind, now - said_at)
                entry[0], entry[1] = now, 0

    def _bad(self, exc: HttpProcessingError, args: tuple[object, ...]) -> None:
        self.bad += 1
        kind, now = type(exc).__name__, self.clock()
        entry = self._kinds.get(kind)
        if entry is not None and now - entry[0] < self.log_every_s:
            entry[1] += 1
            return
        if entry is None and len(self._kinds) >= self.max_kinds:
            self._kinds.clear()  # bounded; kinds are aiohttp's exception classes, a few
        more = int(entry[1]) if entry is not None else 0
        self._kinds[kind] = [now, 0]
        # One line, cut, escaped: the message may repeat the request's bytes.
        said = " ".join(str(exc.message).split())
        said = ascii(said[:REQUEST_ERROR_CHARS] + ("..." if len(said) > REQUEST_ERROR_CHARS
                                                     else ""))
        remote = args[0] if args else "?"
        log.warning("%s: answered %d to a request it could not read, from %s: %s %s%s",
                    self.site, exc.code, remote, kind, said,
                    f" ({more} more like it before this one)" if more else "")


def listening_sockets(host: str, port: int, backlog: int) -> list[socket.socket]:
    """Bound, listening, non-blocking sockets for ``host``:``port`` (every address the name
    has, as the event loop's own server would). Raises OSError."""
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                               flags=socket.AI_PASSIVE)
    socks: list[socket.socket] = []
    try:
        for family, kind, proto, _, addr in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(addr)
            sock.listen(backlog)
            sock.setblocking(False)
    except OSError:
        for sock in socks:
            sock.close()
        raise
    return socks


class GuardedSite(web.BaseSite):
    """A TCP site whose connections pass through a ``Keeper``."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, keeper: Keeper, *,
                 retry_s: float = 0.25, sweep_s: float = 1.0, backlog: int = 128,
                 tls: ssl.SSLContext | None = None) -> None:
        super().__init__(runner, backlog=backlog)
        self._tls = tls
        self._host = host
        self._port = port
        self.keeper = keeper
        self._retry_s = retry_s
        self._sweep_s = sweep_s
        self._socks: list[socket.socket] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._handshakes: set[asyncio.Task[None]] = set()
        self.request_log = RequestLog(self.name, keeper.log_every_s)

    @property
    def name(self) -> str:
        scheme = "https" if self._tls is not None else "http"
        return f"{scheme}://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        self._socks = listening_sockets(self._host, self._port, self._backlog)
        self._tasks = [asyncio.create_task(self._accept(s)) for s in self._socks]
        self._tasks.append(asyncio.create_task(self._sweep()))

    async def stop(self) -> None:
        for task in [*self._tasks, *self._handshakes]:
            task.cancel()
        for task in [*self._tasks, *self._handshakes]:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for sock in self._socks:
            sock.close()
        self._tasks, self._socks = [], []
        await super().stop()

    def _protocol(self) -> asyncio.Protocol:
        server = self._runner.server
        assert server is not None
        inner = server()
        # Both page servers' handlers log their parse errors through the site's RequestLog:
        # aiohttp takes a logger per handler (RequestHandler.logger), set before any request.
        inner.logger = self.request_log  # type: ignore[assignment]
        return Gate(self.keeper, inner)

    async def _accept(self, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, _ = await loop.sock_accept(sock)
            except OSError as exc:
                if exc.errno in EXHAUSTED:
                    self.keeper.out_of_descriptors(exc)
                    await asyncio.sleep(self._retry_s)
                    continue
                if exc.errno in (errno.ECONNABORTED, errno.EPROTO):
                    continue  # the client gave up before we took it
                raise
            if not self.keeper.room():
                self.keeper.refused += 1
                _refuse(conn)
                continue
            if self._tls is not None:
                self._handshake(conn)
                continue
            try:
                await loop.connect_accepted_socket(self._protocol, conn)
            except OSError:
                conn.close()

    def _handshake(self, conn: socket.socket) -> None:
        """Wrap ``conn`` in TLS on its own task: asyncio's connect_accepted_socket waits for
        the handshake, and a client that opens a connection and says nothing must not hold
        up the next accept. At most MAX_HANDSHAKES at once (the keeper counts a connection
        only once its handshake is over); one over is closed."""
        if len(self._handshakes) >= MAX_HANDSHAKES:
            self.keeper.refused += 1
            conn.close()
            return
        task = asyncio.create_task(self._wrap(conn))
        self._handshakes.add(task)
        task.add_done_callback(self._handshakes.discard)

    async def _wrap(self, conn: socket.socket) -> None:
        try:
            await asyncio.get_running_loop().connect_accepted_socket(
                self._protocol, conn, ssl=self._tls, ssl_handshake_timeout=HANDSHAKE_TIMEOUT_S)
        except (OSError, ssl.SSLError, TimeoutError):
            conn.close()  # not TLS, or too slow: nothing to answer in a language it speaks

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self._sweep_s)
            self.keeper.sweep()
            self.request_log.flush()


def _refuse(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.send(FULL_ANSWER)
    conn.close()



Problem = Callable[[int, str, str], web.Response]  # status, what is wrong, what to do


async def guarded(request: web.Request, handler: Callable[[web.Request],
                                                           Awaitable[web.StreamResponse]], *,
                  keeper: Keeper, host: str, port: int, max_body: int, problem: Problem,
                  this: str, sent: str, only: str, routes: str,
                  access: PageAccess = IN_CLEAR_ON_LOOPBACK) -> web.StreamResponse:
    """Every request of a page server (the dealer page's and the pit's), before its route.

    A page on another site (or a DNS name rebound to 127.0.0.1) must never drive the table:
    the Host must be this server (``this``: "this station"), and a request that acts
    (anything but GET and HEAD) comes from this server's own pages (``sent``: what such a
    request is called, "a command"; ``only``, the fix for one from elsewhere). The keeper
    counts the request against the connection's idle time; an aiohttp refusal (a body over
    ``max_body``) is answered in the server's own words, ``routes`` naming the doc of its
    routes. ``access``: the names it answers as too, and its scheme (an Origin over TLS is
    ``https://``)."""
    header = request.headers.get("Host", "")
    if not host_allowed(header, host, port, access.server_names):
        sock = request.transport.get_extra_info("sockname") if request.transport else None
        local = str(sock[0]) if isinstance(sock, tuple) and sock else None
        return problem(403, f"Host {header[:80]!r} is not {this}",
                       suggestion(host, port, local, access.server_names, access.scheme))
    if request.method not in ("GET", "HEAD"):
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{access.scheme}://{header}":
            return problem(403, f"{sent} from {origin[:80]!r} is refused", only)
    gate = keeper.enter(request.transport)
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status == 413:
            return problem(413, f"body over {max_body} bytes", "send a small JSON object")
        return problem(exc.status, exc.reason, f"see {routes} for the routes")
    finally:
        keeper.leave(gate)
