"""A TEST FIXTURE standing in for the pit's server: the pit pages' static files and the JSON
station.pit.views builds from a floor (tests/pit/pagekit.py) folded in-process by the client
library. It is not the pit: no broker, no PINs (every PIN but ``0000`` is taken), no
commands sent (each is answered ``sent``). The page tests run against the real pit
(tests/pit/test_pit_pages_browser.py); this serves the pages while they are worked on:

    .venv/bin/python -m tests.pit.pagefixture --tables 20 --paused 2 --offline 1 --port 8090
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from aiohttp import web

from station.client import Applied, Floor, schema_validator
from station.pit import views
from station.pit.views import Alert, Seen, TableLog
from tests.pit.pagekit import base_shoe, plan

STATIC = Path(__file__).resolve().parents[2] / "station" / "pit" / "static"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class FixtureFloor:
    def __init__(self, n: int, paused: int, offline: int, tmp: Path) -> None:
        shoe = base_shoe(tmp)
        tables = plan(shoe, n, paused=paused, offline=offline)
        self.floor = Floor({t.id: t.key.public_key() for t, _ in tables},
                           validate=schema_validator())
        self.logs = {t.id: TableLog() for t, _ in tables}
        self.alerts: list[Alert] = []
        for i, (t, upto) in enumerate(tables, start=1):
            items = list(t.payloads(shoe, upto, now=time.time() - 40 * i))
            if paused < i <= paused + offline:
                items.append(t.last_will(now()))
            for topic, payload in items:
                for f in self.floor.feed(topic, payload):
                    if isinstance(f, Applied):
                        self.logs[t.id].add(f.message)
            s = self.floor.state(t.id)
            if s.pause is not None:
                self.raise_(t.id, "pause", s.pause.reason, s.pause.raised_by)
            if s.online is False:
                self.raise_(t.id, "offline", "the table's station is offline (its last will, "
                            "or a clean stop)", None)

    def raise_(self, table: str, kind: str, detail: str, by: str | None) -> None:
        self.alerts.append(Alert(len(self.alerts) + 1, table, kind, detail, by, now()))

    def tables_body(self) -> dict[str, Any]:
        return views.floor_view("pit-fixture", now(), [
            (self.floor.state(t), Seen(now(), 0.2)) for t in self.floor.tables], self.alerts)


def app(fx: FixtureFloor) -> web.Application:
    async def page(request: web.Request) -> web.StreamResponse:
        name = "table.html" if "table" in request.match_info else "floor.html"
        return web.FileResponse(STATIC / name)

    async def static(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / request.match_info["name"])

    async def tables(request: web.Request) -> web.StreamResponse:
        return web.json_response(fx.tables_body(), dumps=lambda o: orjson.dumps(o).decode())

    async def table(request: web.Request) -> web.StreamResponse:
        t = request.match_info["table"]
        if t not in fx.floor.tables:
            return web.json_response({"error": f"no table {t!r}"}, status=404)
        body = views.table_view(fx.floor.state(t), Seen(now(), 0.2),
                                [a for a in fx.alerts if a.table == t], fx.logs[t])
        return web.json_response(body, dumps=lambda o: orjson.dumps(o).decode())

    async def alerts(request: web.Request) -> web.StreamResponse:
        return web.json_response(views.alerts_view(fx.alerts))

    async def events(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        await resp.write(b"retry: 1000\n\nevent: tables\ndata: "
                         + orjson.dumps(fx.tables_body()) + b"\n\n")
        while True:
            await asyncio.sleep(1)
            await resp.write(b": ping\n\n")

    async def ack(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        if body.get("pin") == "0000":
            return web.json_response({"error": "wrong PIN (4 tries left)"}, status=401)
        i = int(request.match_info["id"])
        a = fx.alerts[i - 1]
        fx.alerts[i - 1] = Alert(a.id, a.table, a.kind, a.detail, a.by, a.raised_at,
                                 str(body["name"]), now())
        return web.json_response({"alert": views.alert_json(fx.alerts[i - 1])})

    async def command(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        if body.get("pin") == "0000":
            return web.json_response({"error": "wrong PIN (4 tries left)"}, status=401)
        return web.json_response({"command": {
            "id": "fixture-1", "table": request.match_info["table"],
            "action": request.match_info["action"], "by": body["name"], "state": "sent",
            "detail": None}})

    a = web.Application()
    a.router.add_get("/", page)
    a.router.add_get("/tables/{table}", page)
    a.router.add_get("/static/{name}", static)
    a.router.add_get("/api/tables", tables)
    a.router.add_get("/api/tables/{table}", table)
    a.router.add_get("/api/alerts", alerts)
    a.router.add_get("/api/events", events)
    a.router.add_post("/api/alerts/{id}/ack", ack)
    a.router.add_post("/api/tables/{table}/commands/{action}", command)
    return a


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tables", type=int, default=20)
    p.add_argument("--paused", type=int, default=2)
    p.add_argument("--offline", type=int, default=1)
    p.add_argument("--port", type=int, default=8090)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fx = FixtureFloor(args.tables, args.paused, args.offline, Path(tmp))
        web.run_app(app(fx), host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
