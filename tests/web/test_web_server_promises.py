"""Two promises of the web server (docs/display.md): a refused override with no PIN set is
journaled like any refused PIN, and a page that does not take its bytes is dropped while
the others keep updating."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import cast

from station.web.display import WebControl
from station.web.hub import Hub
from station.web.pins import PinChecker
from station.web.server import WRITE_TIMEOUT_S, WebServer
from tests import webkit
from tests.web.test_web_api import GARBLED, journaled_commands
from tests.webkit import command, state, table_facts, wait_state


def test_a_pin_with_none_set_is_refused_and_journaled(tmp_path: Path) -> None:
    config = webkit.sim_config(tmp_path, faults=GARBLED, credentials_file=None)
    with webkit.running(config):
        base = webkit.url_of(config)
        wait_state(base, lambda s: "re-scanned as" in s["prompt"]["text"], what="the re-scan")
        before = table_facts(state(base))
        status, answer = command(base, "resume", actor="sup", pin="1234")
        assert status == 403, answer
        assert answer["error"] == "no display.credentials_file in the config"
        assert "station pin set" in answer["fix"]
        assert table_facts(state(base)) == before
        refused = [c for c in journaled_commands(config) if c.action == "command_refused"]
        assert [c.actor for c in refused] == [
            "sup (web 127.0.0.1): resume refused (no display.credentials_file in the config)"]


def sse_request(port: int) -> bytes:
    return (f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Accept: text/event-stream\r\n\r\n").encode()


def test_a_page_that_does_not_read_is_dropped_and_the_others_go_on() -> None:
    hub = Hub()
    # No command is sent in this test: the control is never reached.
    control = cast(WebControl, None)
    port = webkit.free_port()
    server = WebServer(hub, control, PinChecker(None), "127.0.0.1", port)
    server.start()
    stop = threading.Event()
    big = b'{"pad":"' + b"x" * 65536 + b'"}'  # a large view fills a socket buffer quickly

    def publish() -> None:
        while not stop.is_set():
            hub.publish(big)
            time.sleep(0.01)

    silent = socket.socket()
    silent.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    reader = socket.socket()
    seen: list[int] = []

    def read() -> None:
        reader.settimeout(1.0)
        while not stop.is_set():
            try:
                chunk = reader.recv(1 << 20)
            except TimeoutError:
                continue
            if not chunk:
                return
            seen.append(len(chunk))

    threads = [threading.Thread(target=publish), threading.Thread(target=read)]
    try:
        silent.connect(("127.0.0.1", port))
        silent.sendall(sse_request(port))  # ... and never reads
        reader.connect(("127.0.0.1", port))
        reader.sendall(sse_request(port))
        for t in threads:
            t.start()
        deadline = time.monotonic() + 20 + WRITE_TIMEOUT_S
        while server.dropped == 0:
            assert time.monotonic() < deadline, "the silent page was never dropped"
            time.sleep(0.1)
        assert server.dropped == 1
        # The reading page is still served, and still gets the new views.
        assert server.clients == 1
        before = sum(seen)
        time.sleep(1.0)
        assert sum(seen) > before + len(big)
        assert server.dropped == 1
    finally:
        stop.set()
        for t in threads:
            if t.is_alive():
                t.join(10)
        silent.close()
        reader.close()
        server.stop()

