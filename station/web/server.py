"""The dealer's page and the local control API: an aiohttp server in its own thread.

It never blocks the station: views arrive through the ``Hub`` (latest bytes + a version), and
commands leave through ``WebControl`` into the daemon's queue. Every answer is JSON with a
clear ``error`` and ``fix`` for a 4xx; no request that is refused reaches the station, except
a refused supervisor PIN, which is journaled as ``command_refused`` with who tried what (the
first few of a source in full, the rest as one counted line per interval).
Routes and messages: docs/display.md; its ceilings under abuse: docs/operations.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import resource
import ssl
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
from aiohttp import web

from drivers.events import Command
from station.errors import ConfigError
from station.settings.languages import language as language_of
from station.settings.pagetls import IN_CLEAR_ON_LOOPBACK, PageAccess
from station.table import dealers
from station.table.actions import COMMAND_TRIGGERS, CONFIRM_ACTION, PAUSE_ACTION, SUPERVISOR_ACTIONS
from station.table.procedures import pause_problem
from station.table.roles import allows
from station.table.station import REFUSED_OUTSIDE, refused_parts
from station.web import secretpool
from station.web.backlog import Backlog, Dropped
from station.web.catalogue import all_page_words
from station.web.devicenames import page_names
from station.web.display import WebControl
from station.web.hub import Hub
from station.web.modeview import REVEAL, VIP_ACTIONS
from station.web.notices import notice_words
from station.web.pins import PinChecker, Verdict
from station.web.roadpanel import panel_shape, panel_svg
from station.web.site import GuardedSite, Keeper, guarded
from station.web.tls import strict_transport
from station.web.view import roads_svg
from station.wire.ratelimit import Budget, Every, Tally, retry_after_s

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 1024  # bytes; a command is a few dozen
# The page calls the station offline after 1.5 s without a byte: a ping every 0.25 s leaves
# room for several to be late on a loaded PC before a working station looks offline.
HEARTBEAT_S = 0.25
WRITE_TIMEOUT_S = 2.0  # a page that does not take its bytes for this long is dropped
# The ceilings under abuse (docs/operations.md, "The web server"; issue 18).
IDLE_TIMEOUT_S = 10.0  # a connection with no request (or unfinished headers) is closed
BODY_TIMEOUT_S = 5.0  # a command's body must arrive whole within this
LINGER_S = 2.0  # reading on after answering a body not read whole, then closing
MAX_CONNECTIONS = 256  # open at once; one more closes the one idle longest
RESERVE_FDS = 128  # descriptors left to the rest of the station whatever the cap
MAX_STREAMS = 64  # pages following /api/events at once
MAX_QUEUED_BYTES = 256 * 1024  # a page with more not taken (ours and the kernel's) is dropped
REFUSALS_BURST = 20  # refused commands a source may make at once ...
REFUSALS_PER_S = 2.0  # ... and then per second; over it: 429 before the station sees it
JOURNAL_FULL = 10  # refusals of a source journaled one by one per interval ...
JOURNAL_INTERVAL_S = 10.0  # ... the rest as one counted command_refused per interval
LOG_EVERY_S = 60.0  # a repeated server error is logged once a minute with a count
APPLY_TIMEOUT_S = 5.0
MIN_GAP_S = 0.016  # one frame at 60 Hz
ACTOR_MAX = 40
ROUTE_ACTIONS = {a.replace("_", "-"): a for a in COMMAND_TRIGGERS}
ROUTE_ACTIONS.update({a.replace("_", "-"): a for a in dealers.COMMANDS})  # docs/dealers.md
# The table modes (docs/display.md): the dealer's REVEAL, and the VIP player's requests, which
# a supervisor presses for the player at a studio without the player's own client.
ROUTE_ACTIONS.update({a.replace("_", "-"): a for a in (REVEAL, *VIP_ACTIONS)})
# Table procedures (docs/rules.md): the dealer's pause, the supervisor's shuffle check.
ROUTE_ACTIONS.update({"pause": PAUSE_ACTION, "confirm-shuffle": CONFIRM_ACTION})
PIN_ACTIONS = (*SUPERVISOR_ACTIONS, *VIP_ACTIONS, CONFIRM_ACTION)
BODY_KEYS = {"actor", "pin", "dealer", "reason", "note"}
_PAGES = {"/": "index.html"}
_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def problem(status: int, error: str, fix: str, headers: dict[str, str] | None = None,
            **extra: Any) -> web.Response:
    return web.Response(status=status, body=orjson.dumps({"ok": False, "error": error,
                                                          "fix": fix, **extra}),
                        content_type="application/json", headers=headers)


def answer(body: dict[str, Any], status: int = 200) -> web.Response:
    return web.Response(status=status, body=orjson.dumps(body), content_type="application/json")


def connection_cap() -> int:
    """MAX_CONNECTIONS, or fewer if the process may not open that many descriptors and
    still keep RESERVE_FDS for its journal, devices and broker."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, soft - RESERVE_FDS))


# index.html's slot for the device names, filled by page_html.
DEVICE_SLOT = b'<script id="device-names" type="application/json">{}</script>'
# ... and for the page's labels in every language (station.web.catalogue, pages.po).
WORDS_SLOT = b'<script id="words" type="application/json">{}</script>'


def page_html() -> bytes:
    """The page with the device names inlined (station.web.devicenames), so its script keeps
    no copy of them and needs no second request before it can name a lost device."""
    body = (STATIC / "index.html").read_bytes()
    if body.count(DEVICE_SLOT) != 1:
        raise ConfigError(f"{STATIC / 'index.html'}: no single {DEVICE_SLOT.decode()} for the "
                          "device names; reinstall the station")
    # "<" escaped so no name can close the script element early.
    names = orjson.dumps(page_names()).replace(b"<", b"\\u003c")
    words = orjson.dumps(all_page_words()).replace(b"<", b"\\u003c")
    body = body.replace(WORDS_SLOT, WORDS_SLOT.replace(b"{}", words))
    return body.replace(DEVICE_SLOT, DEVICE_SLOT.replace(b"{}", names))


def _ignore(notices: list[str], refused: str | None, view: dict[str, Any]) -> None:
    """A journaled refusal needs no answer from the station."""


class WebServer:
    def __init__(self, hub: Hub, control: WebControl, pins: PinChecker, host: str,
                 port: int, *, access: PageAccess = IN_CLEAR_ON_LOOPBACK,
                 tls: ssl.SSLContext | None = None) -> None:
        """``access``: display.tls, server_names; ``tls``: its context, None in clear."""
        self.access = access
        self.tls = tls
        self.hub = hub
        self.control = control
        self.pins = pins
        self.host = host
        self.port = port
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._closing = False
        self.clients = 0
        self.dropped = 0
        self._svg: tuple[int, bytes] = (-2, b"")
        self.keeper = Keeper(cap=connection_cap(), idle_s=IDLE_TIMEOUT_S,
                             log_every_s=LOG_EVERY_S)
        self.budget = Budget(burst=REFUSALS_BURST, rate_per_s=REFUSALS_PER_S)
        self.tally = Tally(full=JOURNAL_FULL, interval_s=JOURNAL_INTERVAL_S)
        self._loop_errors = Every(LOG_EVERY_S)
        self._panel: tuple[tuple[int, int, int, str], bytes] = ((-2, 0, 0, ""), b"")

    # --- life -------------------------------------------------------------------------------
    def start(self) -> None:
        """Listen, or raise ConfigError (the port taken, the address not ours)."""
        self._thread = threading.Thread(target=self._main, name="web-display", daemon=True)
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            self._thread.join(5)
            raise ConfigError(f"display.host/display.port: cannot listen on {self.host}:"
                              f"{self.port} ({self._error}); choose a free port or an address "
                              "of this machine")

    def stop(self) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        except Exception as exc:  # noqa: BLE001 - any failure to listen goes to start()
            self._error = exc
            self._ready.set()
        finally:
            self.hub.detach()
            loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(self._loop_error)
        self.hub.attach(loop)
        app = self.app()
        # aiohttp's keep-alive timeout also closes a connection whose first request never
        # arrives; the keeper's sweep does the same for every idle connection.
        # After an answer to a body not read whole (408, 413), aiohttp reads on for a while so
        # the client sees the answer rather than a reset: 2 s of that, not its 10.
        runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=1.0,
                               keepalive_timeout=IDLE_TIMEOUT_S, lingering_time=LINGER_S)
        await runner.setup()
        summaries = asyncio.create_task(self._summaries())
        try:
            site = GuardedSite(runner, self.host, self.port, self.keeper, tls=self.tls)
            await site.start()
            self._ready.set()
            log.info("display: %s/", site.name)
            await self._stop.wait()
        finally:
            self._closing = True
            summaries.cancel()
            self.hub.wake_all()
            await runner.cleanup()

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The loop's errors, each kind logged once per LOG_EVERY_S with how many more came:
        under a flood the same one can come thousands of times a second."""
        what = str(context.get("message", "?"))
        more = self._loop_errors.due(what, time.monotonic())
        if more is None:
            return
        if more:
            context = {**context, "message": f"{what} ({more} more like it not logged)"}
        loop.default_exception_handler(context)

    async def _summaries(self) -> None:
        """Journal the refusals counted and not journaled, one line per source and interval."""
        while True:
            await asyncio.sleep(1.0)
            for source, summary in self.tally.due(time.monotonic()):
                self.control.submit(Command(REFUSED_OUTSIDE, f"{source}: {summary}"[:300],
                                            time.time()), _ignore)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._guard])
        if self.tls is not None:
            app.on_response_prepare.append(strict_transport)
        app.router.add_get("/", self.page)
        app.router.add_get("/static/{name}", self.static)
        app.router.add_get("/api/state", self.state)
        app.router.add_get("/api/events", self.events)
        app.router.add_get("/api/roads.svg", self.roads)
        app.router.add_post("/api/commands/{action}", self.command)
        return app

    # --- guards -----------------------------------------------------------------------------
    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        return await guarded(request, handler, keeper=self.keeper, host=self.host,
                             port=self.port, max_body=MAX_BODY, problem=problem,
                             this="this station", sent="a command",
                             only="commands are taken only from the station's own page",
                             routes="docs/display.md", access=self.access)

    # --- pages ------------------------------------------------------------------------------
    async def page(self, request: web.Request) -> web.StreamResponse:
        return web.Response(body=page_html(), content_type="text/html",
                            headers={"Cache-Control": "no-store"})

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in {"app.js", "app.css"}:
            return problem(404, f"no file {name[:60]!r}", "the page needs only app.js, app.css")
        return self._file(name)

    @staticmethod
    def _file(name: str) -> web.Response:
        body = (STATIC / name).read_bytes()
        return web.Response(body=body, content_type=_TYPES[Path(name).suffix],
                            headers={"Cache-Control": "no-store"})

    # --- state ------------------------------------------------------------------------------
    def _envelope(self) -> bytes:
        return self.hub.envelope()[1]

    async def state(self, request: web.Request) -> web.StreamResponse:
        return web.Response(body=self._envelope(), content_type="application/json",
                            headers={"Cache-Control": "no-store"})

    async def roads(self, request: web.Request) -> web.StreamResponse:
        version, roads = self.hub.latest_roads()
        shape = panel_shape(request.query)
        if shape is not None:
            # The page's panel: drawn to its size and language (station.web.roadpanel),
            # once per round and shape.
            key = (version, *shape)
            if self._panel[0] != key:
                body = b"" if roads is None else panel_svg(roads, *shape).encode()
                self._panel = (key, body)
            return web.Response(body=self._panel[1], content_type="image/svg+xml",
                                headers={"Cache-Control": "no-store"})
        if self._svg[0] != version:
            # Drawn here, once per round however many pages ask, never on the station's loop.
            svg = b"" if roads is None else roads_svg(roads).encode()
            self._svg = (version, svg)
        return web.Response(body=self._svg[1], content_type="image/svg+xml",
                            headers={"Cache-Control": "no-store"})

    async def events(self, request: web.Request) -> web.StreamResponse:
        """Server-Sent Events: ``state`` with the whole view at once and after every change,
        ``ping`` every HEARTBEAT_S when nothing changed. Always the latest view, never a
        queue: a page that falls behind skips to the present, and one that has not taken a
        message for WRITE_TIMEOUT_S, or leaves too many bytes queued, is disconnected."""
        if self.clients >= MAX_STREAMS:
            return problem(503, f"{MAX_STREAMS} pages already follow the station",
                           "close a page the table does not need, then reload",
                           headers={"Retry-After": "5"})
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "Cache-Control": "no-store",
                                           "X-Accel-Buffering": "no"})
        await resp.prepare(request)
        self.clients += 1
        sent = -1
        out = Backlog(request.transport, max_bytes=MAX_QUEUED_BYTES, max_age_s=WRITE_TIMEOUT_S)
        try:
            await self._write(resp, out, b"retry: 500\n\n")
            # The server's clock at once, before the first view: a betting countdown is
            # counted against it, and a view's own time may be long past (docs/display.md).
            await self._write(resp, out, b'event: ping\ndata: {"ts":%.4f}\n\n' % time.time())
            while True:
                changed = self.hub.changed()
                version, envelope = self.hub.envelope()
                if version != sent:
                    sent = version
                    await self._write(resp, out, b"event: state\ndata: " + envelope + b"\n\n")
                    # A burst of events (a fast simulation, a journal catching up) reaches a
                    # page at most once a frame, always ending on the latest view: the
                    # server's work, which shares the interpreter with the station's loop,
                    # then stays bounded however fast events come.
                    await asyncio.sleep(MIN_GAP_S)
                    continue
                if self._closing:
                    break  # the last view went out first: a page never misses the end
                try:
                    await asyncio.wait_for(changed.wait(), HEARTBEAT_S)
                except TimeoutError:
                    await self._write(resp, out, b'event: ping\ndata: {"ts":%.4f}\n\n'
                                      % time.time())
        except (ConnectionError, TimeoutError, Dropped):
            # Closed here, its queued bytes thrown away: returning alone would leave aiohttp
            # waiting, without end, to finish a response the page never reads.
            self.dropped += 1
            if request.transport is not None:
                request.transport.abort()
        except asyncio.CancelledError:
            self.dropped += 1
        finally:
            self.clients -= 1
        return resp

    @staticmethod
    async def _write(resp: web.StreamResponse, out: Backlog, data: bytes) -> None:
        out.check(time.monotonic())  # raises Dropped
        out.sent(len(data), time.monotonic())
        await asyncio.wait_for(resp.write(data), WRITE_TIMEOUT_S)

    # --- commands ---------------------------------------------------------------------------
    async def command(self, request: web.Request) -> web.StreamResponse:
        route = request.match_info["action"]
        action = ROUTE_ACTIONS.get(route)
        if action is None:
            return problem(404, f"unknown command {route[:40]!r}",
                           f"one of: {', '.join(ROUTE_ACTIONS)}")
        if request.content_type != "application/json":
            return problem(415, "the body must be JSON (Content-Type: application/json)",
                           'send {"actor": "NAME"} and, for resume, void and the VIP '
                           'requests, "pin"')
        try:
            raw = await asyncio.wait_for(request.read(), BODY_TIMEOUT_S)
        except TimeoutError:
            resp = problem(408, f"the body did not arrive within {BODY_TIMEOUT_S:.0f} s",
                           "send the whole request at once")
            resp.force_close()
            return resp
        except ConnectionError as exc:
            # The client went away mid-body: nobody is left to answer (issue 18, 7b).
            log.debug("display: a client left before its body arrived (%s)", exc)
            return problem(400, "the request ended before its body", "send the whole body")
        try:
            body = orjson.loads(raw) if raw.strip() else {}
        except orjson.JSONDecodeError:
            return problem(400, "the body is not JSON", 'send e.g. {"actor": "dealer"}')
        if not isinstance(body, dict):
            return problem(400, "the body must be a JSON object", 'e.g. {"actor": "dealer"}')
        unknown = sorted(set(body) - BODY_KEYS)
        if unknown:
            return problem(400, f"unknown field {unknown[0][:40]!r}",
                           f"fields: {', '.join(sorted(BODY_KEYS))}")
        actor = body.get("actor", "dealer")
        if (not isinstance(actor, str) or not 1 <= len(actor) <= ACTOR_MAX
                or not actor.isprintable()):
            return problem(400, "actor must be a name of 1-40 printable characters",
                           'e.g. {"actor": "dealer"}')
        who = f"{actor} (web {request.remote or '?'})"
        if action == dealers.SIGN_IN or "dealer" in body:
            dealer = body.get("dealer")
            if action != dealers.SIGN_IN:
                return problem(400, f"{action} takes no dealer", "send dealer only to sign in")
            if not isinstance(dealer, str) or not dealers.valid_id(dealer):
                return problem(400, f"dealer must be an id of {dealers.ID_RULE}",
                               'e.g. {"dealer": "D042"}')
            who = dealers.actor_for(dealer, who)  # the id travels in the Command's actor
        code = note = None
        if action == PAUSE_ACTION or "reason" in body or "note" in body:
            if action != PAUSE_ACTION:
                return problem(400, f"{action} takes no reason or note",
                               "send reason and note only to pause")
            code, note = body.get("reason"), body.get("note")
            why = pause_problem(code, note)
            if why is not None:
                return problem(400, why, 'e.g. {"reason": "card_dropped", "actor": "dealer"}')
        pin = body.get("pin")
        if action in PIN_ACTIONS:
            if not isinstance(pin, str) or not pin:
                return problem(400, f"{action} needs a supervisor's PIN", 'send "pin"')
            if len(pin) > 64:
                return problem(400, "a PIN is at most 64 characters", "check the PIN")
        # From here the request costs work (a PIN's hash, the station's journal): a source
        # whose requests keep being refused is held to its budget (docs/display.md).
        source = request.remote or "?"
        wait_s = self.budget.take(source, time.monotonic())
        if wait_s:
            self.tally.count(source, f"{action} over the refusal budget", time.monotonic())
            return problem(429, f"too many refused requests from {source}: at most "
                           f"{REFUSALS_BURST} at once, then {REFUSALS_PER_S:g} a second",
                           f"wait {retry_after_s(wait_s)} s; do what the display says",
                           headers={"Retry-After": str(retry_after_s(wait_s))},
                           retry_after_s=retry_after_s(wait_s))
        if action in PIN_ACTIONS:
            assert isinstance(pin, str)
            verdict, detail, figure = await secretpool.run_async(
                functools.partial(self.pins.check_counted, pin))
            if verdict != Verdict.OK:
                # Every refused override is journaled, with who tried and why: the first
                # few of a source in full, the rest counted (docs/display.md). Its parts go
                # with it, so the page words it in its language (station.web.plain).
                why = {Verdict.LOCKED: "locked out", Verdict.NONE: "no PINs"}.get(verdict,
                                                                                   "wrong PIN")
                reason = {Verdict.LOCKED: "locked_out", Verdict.NONE: "no_pins"}.get(
                    verdict, "wrong_pin")
                await self._refused(source, f"{who}: {action} refused ({detail})",
                                    f"{action} {why}", refused_parts(action, reason, figure))
                status = {Verdict.LOCKED: 429, Verdict.NONE: 403}.get(verdict, 403)
                fix = {Verdict.LOCKED: "wait, then enter the right PIN",
                       Verdict.NONE: "add a PIN with `station pin set NAME` and set "
                       "display.credentials_file"}.get(verdict, "enter the right PIN")
                return problem(status, detail, fix)
            roles = self.pins.roles_of(detail)
            if not allows(roles, action):
                # The right PIN of an account whose roles do not allow it (station.table.roles):
                # journaled as every refused override is, answered 403.
                await self._refused(source, f"{who}: {action} refused ({detail}: roles "
                                    f"{', '.join(roles)})", f"{action} not allowed",
                                    refused_parts(action, "wrong_pin", None))
                return problem(403, f"{detail} may not {action.replace('_', ' ')} (roles: "
                               f"{', '.join(roles)})", "ask a supervisor")
            who = f"{detail} (web {request.remote or '?'})"
        applied = await self._apply(Command(action, who, time.time(), note, code))
        if applied is None:
            self.budget.give_back(source, time.monotonic())
            return answer({"ok": None, "action": action, "queued": True,
                           "detail": "taken but not yet applied (the station is holding "
                           "events); watch the page"}, 202)
        notices, refused, view = applied
        if refused is None:
            self.budget.give_back(source, time.monotonic())
        if refused is not None:
            lang = language_of(str(view.get("language", "en")))
            zh: dict[str, Any] = ({"zh": notice_words(refused, lang.tag)}
                                  if lang.translated else {})
            return problem(409, refused, "do what the display says now", action=action,
                           state=view, **zh)
        return answer({"ok": True, "action": action, "by": who, "notices": notices,
                       "state": view})

    async def _refused(self, source: str, line: str, why: str, parts: str) -> None:
        """A refusal the server made: journaled as ``line`` with its ``parts``
        (``refused_parts``) while the source is within JOURNAL_FULL per interval (and
        answered once it is), else counted under ``why`` for the source's summary."""
        if self.tally.note(source, why, time.monotonic()):
            await self._apply(Command(REFUSED_OUTSIDE, line[:300], time.time(), code=parts))

    async def _apply(self, event: Command
                     ) -> tuple[list[str], str | None, dict[str, Any]] | None:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[tuple[list[str], str | None, dict[str, Any]]] = (
            loop.create_future())

        def resolve(notices: list[str], refused: str | None, view: dict[str, Any]) -> None:
            def set_result() -> None:
                if not done.done():
                    done.set_result((notices, refused, view))
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(set_result)

        self.control.submit(event, resolve)
        try:
            return await asyncio.wait_for(asyncio.shield(done), APPLY_TIMEOUT_S)
        except TimeoutError:
            return None
