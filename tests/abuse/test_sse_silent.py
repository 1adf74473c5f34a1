"""Pages that never read (issue 18, defect 3), at the socket level against a real
``station run``: a client that asks for ``/api/events`` and then reads nothing is
disconnected by the server (its end closed, not merely forgotten), never holds more than the
documented bytes queued on the station's side, and costs no memory once gone; a page that
reads stays connected and keeps getting views."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from station.web.server import MAX_QUEUED_BYTES, MAX_STREAMS
from tests import webkit
from tests.abuse.scale import pick
from tests.abuse.sockkit import closed_by_peer, connect, fds, rss_kb, server_side, wait_for

OPEN_STATES = ("01", "08")  # ESTABLISHED, CLOSE_WAIT: the server still holds its end
# The most one message adds past the check before a write (a view is a few KB; the
# campaign's largest, with a long pause reason, 645 KB before its own fix: one write).
ONE_WRITE = 64 * 1024
RSS_GROWTH_KB = 30 * 1024


def sse_request(port: int) -> bytes:
    return (f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Accept: text/event-stream\r\n\r\n").encode()


@pytest.fixture
def dealing(tmp_path: Path) -> Iterator[tuple[str, int, int]]:
    # A fast table: views come many times a second, so a silent socket fills quickly.
    config = webkit.sim_config(tmp_path, card_s=0.02, shoes=None)
    with webkit.running(config) as proc:
        base = webkit.url_of(config)
        yield base, int(base.rsplit(":", 1)[1]), proc.pid


class Reader(threading.Thread):
    """A well-behaved page: reads everything, counts the views."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.sock = connect(port, timeout_s=1.0)
        self.sock.sendall(sse_request(port))
        self.views = 0
        self.closed = False
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                chunk = self.sock.recv(1 << 16)
            except TimeoutError:
                continue
            except OSError:
                self.closed = True
                return
            if not chunk:
                self.closed = True
                return
            self.views += chunk.count(b"event: state")


def test_silent_pages_are_disconnected_and_a_reader_stays(
        dealing: tuple[str, int, int]) -> None:
    base, port, pid = dealing
    reader = Reader(port)
    reader.start()
    time.sleep(1.0)
    fds_before, rss_before = fds(pid), rss_kb(pid)
    silent: list[socket.socket] = []
    most_queued = 0
    try:
        for _ in range(pick(20, 500)):
            s = connect(port)
            s.sendall(sse_request(port))  # ... and never reads
            silent.append(s)
        mine = {s.getsockname()[1] for s in silent}

        def all_closed() -> bool:
            nonlocal most_queued
            ends = server_side(port)
            held = [ends[p] for p in mine if p in ends and ends[p][0] in OPEN_STATES]
            most_queued = max([most_queued, *(tx for _, tx in held)])
            return not held

        wait_for(all_closed, 120, "the server to close every silent page")
        assert most_queued <= MAX_QUEUED_BYTES + ONE_WRITE, most_queued
        # Each silent client sees its end: an answer cut off (or 503 past MAX_STREAMS).
        assert all(closed_by_peer(s) for s in silent)
        assert min(MAX_STREAMS, len(silent)) >= 1
    finally:
        for s in silent:
            s.close()
    views = reader.views
    wait_for(lambda: reader.views > views + 5, 30, "the reading page to get more views")
    assert not reader.closed
    assert reader.sock.getsockname()[1] in server_side(port)
    reader.stop.set()
    reader.join(5)
    reader.sock.close()
    wait_for(lambda: fds(pid) <= fds_before + 2, 30, "the station's descriptors to come back")
    assert rss_kb(pid) <= rss_before + RSS_GROWTH_KB
    assert webkit.state(base)["phase"]
