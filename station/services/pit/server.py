"""The pit's HTTP server (aiohttp on the service's loop): the floor and table pages, the
JSON API and its Server-Sent Events (docs/pit.md).

Bounded as the dealer page is (docs/operations.md, "Ceilings under abuse"): the connections
through station.web.site's keeper, request bodies of at most MAX_BODY bytes that must arrive
within BODY_TIMEOUT_S, at most MAX_STREAMS pages on /api/events each dropped when it leaves
more than MAX_QUEUED_BYTES untaken or takes nothing for WRITE_TIMEOUT_S, refused PINs held
to a budget per source (and each account to its own lockout, station.web.accounts), and the
Host header checked against DNS rebinding.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import orjson
from aiohttp import web

from station.errors import InputFileError
from station.services.pit import views
from station.services.pit.commands import (
    ACK_KEYS,
    ACTIONS,
    BODY_KEYS,
    DEALER_KEYS,
    KIND_ACK_KEYS,
    body_problem,
    command_problem,
    dealer_problem,
    kind_problem,
)
from station.services.pit.service import PitService, now_iso
from station.services.pit.settings import LANGUAGES
from station.services.pit.statsroute import (
    RETRY_S,
    BadQuery,
    Busy,
    StatsGate,
    csv_text,
    file_name,
    period,
    with_words,
)
from station.table.roles import ACKNOWLEDGE, DEALER_CHANGE
from station.web import secretpool
from station.web.accounts import WRONG, Accounts, Verdict
from station.web.backlog import Backlog, Dropped
from station.web.server import connection_cap
from station.web.site import GuardedSite, Keeper, guarded
from station.web.tls import strict_transport
from station.wire.ratelimit import Budget, retry_after_s

STATIC: Final = Path(__file__).resolve().parent / "static"
MAX_BODY: Final = 4096
BODY_TIMEOUT_S: Final = 5.0
IDLE_TIMEOUT_S: Final = 10.0
MAX_STREAMS: Final = 64
MAX_QUEUED_BYTES: Final = 1024 * 1024  # a floor of 220 tiles is ~100 KiB per frame
WRITE_TIMEOUT_S: Final = 5.0
# A quiet stream still says it is alive this often: a named event (a comment would be
# invisible to the page), so a page whose stream went silent (a network lost without a
# close) knows and reconnects (pit.js, STALE_MS).
HEARTBEAT_S: Final = 5.0
REFUSALS_BURST: Final = 10
REFUSALS_PER_S: Final = 1.0
_TYPES: Final = {".html": "text/html", ".js": "text/javascript", ".css": "text/css",
                 ".svg": "image/svg+xml", ".wav": "audio/wav", ".mp3": "audio/mpeg",
                 ".ogg": "audio/ogg", ".png": "image/png", ".json": "application/json"}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def problem(status: int, error: str, fix: str, headers: dict[str, str] | None = None
            ) -> web.Response:
    return web.Response(status=status, body=orjson.dumps({"error": error, "fix": fix}),
                        content_type="application/json", headers=headers)


def answer(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=orjson.dumps(body), content_type="application/json",
                        headers={"Cache-Control": "no-store"})


class PitServer:
    def __init__(self, service: PitService, accounts: Accounts,
                 tls: ssl.SSLContext | None = None) -> None:
        """``tls``: the context of ``pit.tls`` (station.web.tls.server_context), or None to
        serve plain HTTP (loopback, or ``allow_plain_http``)."""
        self.service = service
        self.accounts = accounts
        pit = service.config.pit
        self.host, self.port = pit.host, pit.port
        self.access = pit.access
        self.tls = tls
        self.keeper = Keeper(cap=connection_cap(), idle_s=IDLE_TIMEOUT_S)
        self.budget = Budget(burst=REFUSALS_BURST, rate_per_s=REFUSALS_PER_S)
        self.streams = 0
        self.stats = StatsGate(Path(pit.journal))
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Listen, or raise OSError (the port taken, the address not ours)."""
        runner = web.AppRunner(self.app(), handle_signals=False, access_log=None,
                               shutdown_timeout=1.0, keepalive_timeout=IDLE_TIMEOUT_S)
        await runner.setup()
        site = GuardedSite(runner, self.host, self.port, self.keeper, tls=self.tls)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._guard])
        if self.tls is not None:
            app.on_response_prepare.append(strict_transport)
        r = app.router
        r.add_get("/", self.floor_page)
        r.add_get("/tables/{table}", self.table_page)
        r.add_get("/stats", self.stats_page)
        r.add_get("/static/{name}", self.static)
        r.add_get("/api/tables", self.tables)
        r.add_get("/api/tables/{table}", self.table)
        r.add_get("/api/alerts", self.alerts)
        r.add_get("/api/events", self.events)
        r.add_get("/api/stats", self.stats_json)
        r.add_get("/api/stats.csv", self.stats_csv)
        r.add_post("/api/tables/{table}/commands/{action}", self.command)
        r.add_post("/api/tables/{table}/dealer-change", self.dealer_change)
        r.add_post("/api/alerts/ack", self.ack_kind)
        r.add_post("/api/alerts/{id}/ack", self.ack)
        return app

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        return await guarded(request, handler, keeper=self.keeper, host=self.host,
                             port=self.port, max_body=MAX_BODY, problem=problem,
                             this="this pit", sent="an action",
                             only="actions are taken only from the pit's own pages",
                             routes="docs/pit.md", access=self.access)

    # --- pages ------------------------------------------------------------------------------
    async def floor_page(self, request: web.Request) -> web.StreamResponse:
        return self._language(request) or self._file("floor.html")

    async def table_page(self, request: web.Request) -> web.StreamResponse:
        if request.match_info["table"] not in self.service.model.floor.tables:
            return problem(404, f"no table {request.match_info['table'][:64]!r}",
                           "the floor page lists the tables the pit trusts")
        return self._language(request) or self._file("table.html")

    async def stats_page(self, request: web.Request) -> web.StreamResponse:
        return self._language(request) or self._file("stats.html")

    def _language(self, request: web.Request) -> web.StreamResponse | None:
        """A page asked without ``?lang=en|zh`` is sent to the pit's ``pit.language`` (the
        page reads its language from its address, docs/pit.md, The pages)."""
        if request.query.get("lang") in LANGUAGES:
            return None
        where = request.rel_url.update_query(lang=self.service.config.pit.language)
        return web.Response(status=302, headers={"Location": str(where)})

    async def static(self, request: web.Request) -> web.StreamResponse:
        return self._file(request.match_info["name"])

    @staticmethod
    def _file(name: str) -> web.StreamResponse:
        suffix = Path(name).suffix
        path = STATIC / name
        if "/" in name or name.startswith(".") or suffix not in _TYPES or not path.is_file():
            return problem(404, f"no page file {name[:60]!r} in this installation",
                           "the pages are station/services/pit/static/; "
                           "the JSON API is /api/tables")
        return web.Response(body=path.read_bytes(), content_type=_TYPES[suffix],
                            headers={"Cache-Control": "no-store"})

    # --- reading ----------------------------------------------------------------------------
    async def tables(self, request: web.Request) -> web.StreamResponse:
        s = self.service
        return answer(views.tables_body(s.model, s.config.pit.name, now_iso(), s.link()))

    async def table(self, request: web.Request) -> web.StreamResponse:
        table = request.match_info["table"]
        if table not in self.service.model.floor.tables:
            return problem(404, f"no table {table[:64]!r}",
                           "GET /api/tables lists the tables the pit trusts")
        return answer(views.table_body(self.service.model, table))

    async def alerts(self, request: web.Request) -> web.StreamResponse:
        return answer(views.alerts_body(self.service.model))

    async def _stats(self, request: web.Request
                     ) -> tuple[dict[str, Any], str] | web.Response:
        """The statistics the query asks for and its ``by``, or the refusal: 400 naming the
        parameter, 503 while another request's are computed or the journal is unreadable."""
        try:
            start, end, by = period(request.query, datetime.now(UTC))
            return await self.stats.compute(start, end), by
        except BadQuery as exc:
            return problem(400, str(exc), "e.g. /api/stats?from=2026-01-01T08:00Z&"
                           "to=2026-01-01T16:00Z&by=table (docs/pit.md, Statistics)")
        except Busy as exc:
            return problem(503, str(exc), "ask again in a moment",
                           headers={"Retry-After": str(RETRY_S)})
        except InputFileError as exc:
            return problem(503, str(exc), "check the pit journal (pit.journal)")

    async def stats_json(self, request: web.Request) -> web.StreamResponse:
        got = await self._stats(request)
        return got if isinstance(got, web.Response) else answer(with_words(got[0]))

    async def stats_csv(self, request: web.Request) -> web.StreamResponse:
        got = await self._stats(request)
        if isinstance(got, web.Response):
            return got
        result, by = got
        return web.Response(
            body=csv_text(result, by).encode(), content_type="text/csv", charset="utf-8",
            headers={"Cache-Control": "no-store", "Content-Disposition":
                     f'attachment; filename="{file_name(result, by)}"'})

    async def events(self, request: web.Request) -> web.StreamResponse:
        if self.streams >= MAX_STREAMS:
            return problem(503, f"{MAX_STREAMS} pages already follow the pit",
                           "close a page, then reload", headers={"Retry-After": "5"})
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "Cache-Control": "no-store",
                                           "X-Accel-Buffering": "no"})
        await resp.prepare(request)
        self.streams += 1
        out = Backlog(request.transport, max_bytes=MAX_QUEUED_BYTES, max_age_s=WRITE_TIMEOUT_S)
        feed = self.service.feed
        s = self.service
        try:
            first = orjson.dumps(views.tables_body(s.model, s.config.pit.name, now_iso(), s.link()))
            cursor = feed.seq
            await self._write(resp, out, b"retry: 1000\n\nevent: tables\ndata: %s\n\n" % first)
            while True:
                changed = feed.changed()
                cursor, frames = feed.since(cursor)
                if frames:
                    await self._write(resp, out, b"".join(frames))
                    continue
                try:
                    await asyncio.wait_for(changed.wait(), HEARTBEAT_S)
                except TimeoutError:
                    await self._write(resp, out, b'event: ping\ndata: {"ts":"%s"}\n\n'
                                      % now_iso().encode())
        except (ConnectionError, TimeoutError, Dropped):
            if request.transport is not None:
                request.transport.abort()
        finally:
            self.streams -= 1
        return resp

    @staticmethod
    async def _write(resp: web.StreamResponse, out: Backlog, data: bytes) -> None:
        out.check(time.monotonic())
        out.sent(len(data), time.monotonic())
        await asyncio.wait_for(resp.write(data), WRITE_TIMEOUT_S)

    # --- acting -----------------------------------------------------------------------------
    async def _body(self, request: web.Request, allowed: frozenset[str]
                    ) -> dict[str, Any] | web.Response:
        if request.content_type != "application/json":
            return problem(400, "the body must be JSON (Content-Type: application/json)",
                           'send {"name": ..., "pin": ...}')
        try:
            raw = await asyncio.wait_for(request.read(), BODY_TIMEOUT_S)
        except TimeoutError:
            resp = problem(408, f"the body did not arrive within {BODY_TIMEOUT_S:.0f} s",
                           "send the whole request at once")
            resp.force_close()
            return resp
        except ConnectionError:
            return problem(400, "the request ended before its body", "send the whole body")
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return problem(400, "the body is not JSON", 'send {"name": ..., "pin": ...}')
        why = body_problem(body, allowed)
        if why is not None:
            return problem(400, why, 'send {"name": ..., "pin": ...} and the action\'s fields')
        assert isinstance(body, dict)
        return body

    async def _signed_in(self, request: web.Request, body: dict[str, Any], what: str,
                         action: str) -> str | web.Response:
        """The pit boss's name once the PIN is theirs and a role of theirs allows
        ``action`` (station.table.roles); else the refusal (journaled). Every failure is
        answered the same, 401 "wrong name or PIN": no such account, another's PIN, or the
        account locked (docs/pit.md, Sign-in)."""
        source = request.remote or "?"
        wait_s = self.budget.take(source, time.monotonic())
        if wait_s:
            return problem(429, f"too many refused requests from {source}",
                           f"wait {retry_after_s(wait_s)} s",
                           headers={"Retry-After": str(retry_after_s(wait_s))})
        name, pin = str(body["name"]), str(body["pin"])
        got = await secretpool.run_async(
            functools.partial(self.accounts.check, name, pin, action))
        self.service.sign_in(got, source, what)
        if got.verdict == Verdict.OK:
            self.budget.give_back(source, time.monotonic())
            return name
        if got.verdict == Verdict.NOT_ALLOWED:
            self.budget.give_back(source, time.monotonic())
            return problem(403, f"{name} may not {action.replace('_', ' ')} (roles: "
                           f"{', '.join(got.roles)})",
                           "ask a pit boss (docs/operations.md, Accounts and roles)")
        if got.verdict == Verdict.NONE:
            return problem(401, "no pit boss has an account yet",
                           "give each pit boss an account: station accounts add NAME --role "
                           "pit_boss -c PIT.yaml (pit.pins_file)")
        return problem(401, WRONG, "enter your own name and PIN")

    async def command(self, request: web.Request) -> web.StreamResponse:
        table, action = request.match_info["table"], request.match_info["action"]
        if table not in self.service.model.floor.tables:
            return problem(404, f"no table {table[:64]!r}",
                           "GET /api/tables lists the tables the pit trusts")
        if action not in ACTIONS:
            return problem(400, f"unknown action {action[:40]!r}", f"one of {', '.join(ACTIONS)}")
        body = await self._body(request, BODY_KEYS)
        if isinstance(body, web.Response):
            return body
        why = command_problem(action, body)
        if why is not None:
            return problem(400, why, "see docs/pit.md for each action's fields")
        boss = await self._signed_in(request, body, f"{action} {table}", action)
        if isinstance(boss, web.Response):
            return boss
        if self.service.model.state(table).online is False:
            # Its station is gone (its last will): say so now rather than leave a command
            # on the broker that nobody reads (docs/pit.md, JSON API).
            off = self.service.not_sent(table, action, boss, body.get("reason"),
                                        body.get("note"))
            return answer({"command": views.command_json(off)})
        act = self.service.send(table, action, boss, body.get("reason"), body.get("note"))
        if act is None:
            return problem(503, "the pit is not connected to the broker: nothing was sent",
                           "try again once the pit is connected", headers={"Retry-After": "2"})
        await self.service.answer(act)
        return answer({"command": views.command_json(act)})

    async def dealer_change(self, request: web.Request) -> web.StreamResponse:
        table = request.match_info["table"]
        if table not in self.service.model.floor.tables:
            return problem(404, f"no table {table[:64]!r}",
                           "GET /api/tables lists the tables the pit trusts")
        body = await self._body(request, DEALER_KEYS)
        if isinstance(body, web.Response):
            return body
        why = dealer_problem(body)
        if why is not None:
            return problem(400, why, 'e.g. {"dealer": "D043", "note": "VIP asked"}')
        boss = await self._signed_in(request, body, f"dealer change {table}", DEALER_CHANGE)
        if isinstance(boss, web.Response):
            return boss
        return answer({"dealer_change": self.service.dealer_change(
            table, boss, body.get("dealer"), body.get("note"))})

    async def ack(self, request: web.Request) -> web.StreamResponse:
        raw = request.match_info["id"]
        alert = self.service.model.alerts.get(int(raw)) if raw.isdigit() and len(raw) < 18 \
            else None
        if alert is None:
            return problem(404, f"no alert {raw[:20]!r}", "GET /api/alerts lists them")
        body = await self._body(request, ACK_KEYS)
        if isinstance(body, web.Response):
            return body
        boss = await self._signed_in(request, body, f"ack alert {alert.id}", ACKNOWLEDGE)
        if isinstance(boss, web.Response):
            return boss
        if alert.acked_by is not None:
            return problem(409, f"already acknowledged by {alert.acked_by}",
                           "nothing to do")
        self.service.ack(alert, boss)
        return answer({"alert": alert.json()})

    async def ack_kind(self, request: web.Request) -> web.StreamResponse:
        """Every open alert of one kind, on every table, with one name and PIN."""
        body = await self._body(request, KIND_ACK_KEYS)
        if isinstance(body, web.Response):
            return body
        why = kind_problem(body)
        if why is not None:
            return problem(400, why, 'send {"name": ..., "pin": ..., "kind": ...}')
        kind = str(body["kind"])
        boss = await self._signed_in(request, body, f"ack kind {kind}", ACKNOWLEDGE)
        if isinstance(boss, web.Response):
            return boss
        done = self.service.ack_kind(kind, boss)
        if not done:
            return problem(409, f"no open alert of kind {kind!r}: nothing acknowledged",
                           "GET /api/alerts lists the open ones")
        return answer({"kind": kind, "by": boss, "acknowledged": len(done),
                       "alerts": [views.alert_json(a) for a in done]})
