"""Idle, slow and too many connections against a real ``station run`` with the web display
(issue 18, defects 2 and 7b): a slow sender of headers is closed after the idle timeout,
idle connections beyond the cap are closed while ``/api/state`` answers, running out of
descriptors leaves a bounded log and a server that answers once the flood ends, and a body
never finished gets its answer (or, from a client that left, nothing in the log)."""

from __future__ import annotations

import contextlib
import resource
import socket
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from station.web.server import BODY_TIMEOUT_S, IDLE_TIMEOUT_S, MAX_CONNECTIONS, MAX_STREAMS
from tests import webkit
from tests.abuse.scale import pick
from tests.abuse.sockkit import closed_by_peer, connect, fds, server_side, wait_for
from tests.webkit import state

# Descriptors a station has beyond its web connections (journal, logs, pipes, its loops).
OTHER_FDS = 64
OPEN_STATES = ("01", "08")  # ESTABLISHED, CLOSE_WAIT: the server still holds the socket


@pytest.fixture(autouse=True)
def _room_for_the_flood() -> None:
    """The test process holds every flood connection itself."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 4096) if hard != resource.RLIM_INFINITY else 4096
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, int]]:
    tmp = tmp_path_factory.mktemp("sockets")
    config = webkit.sim_config(tmp, card_s=0.05, shoes=None)
    with webkit.running(config) as proc:
        base = webkit.url_of(config)
        yield base, int(base.rsplit(":", 1)[1]), proc.pid


def partial_headers(port: int) -> bytes:
    return (f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ").encode()


def test_slow_headers_are_closed_after_the_idle_timeout(table: tuple[str, int, int]) -> None:
    base, port, _ = table
    socks = []
    try:
        for _ in range(pick(20, 200)):
            s = connect(port)
            s.sendall(partial_headers(port))
            socks.append(s)
        assert state(base)["phase"]  # the server answers beside them
        wait_for(lambda: all(closed_by_peer(s) for s in socks), IDLE_TIMEOUT_S + 60,
                 "the server to close every slow sender of headers")
        mine = {s.getsockname()[1] for s in socks}
        # The server's ends are closed (FIN_WAIT: they wait for ours), not held open.
        wait_for(lambda: not [p for p, (st, _) in server_side(port).items()
                              if p in mine and st in OPEN_STATES], 30,
                 "the server's ends to be closed")
    finally:
        for s in socks:
            s.close()


def test_idle_connections_beyond_the_cap_are_closed_and_state_answers(
        table: tuple[str, int, int]) -> None:
    base, port, pid = table
    before = fds(pid)
    socks = []
    try:
        for _ in range(pick(MAX_CONNECTIONS + 60, 1100)):
            socks.append(connect(port))
        # A request from outside the flood is answered while it holds its sockets ...
        assert state(base)["phase"]
        # ... and the station never holds more than the cap (and what it had).
        assert fds(pid) <= before + MAX_CONNECTIONS + OTHER_FDS
        established = [p for p, (st, _) in server_side(port).items() if st == "01"]
        assert len(established) <= MAX_CONNECTIONS + 1
        wait_for(lambda: sum(closed_by_peer(s) for s in socks) >= len(socks) - MAX_CONNECTIONS,
                 60, "the oldest idle connections to be closed")
    finally:
        for s in socks:
            s.close()
    wait_for(lambda: fds(pid) <= before + 4, IDLE_TIMEOUT_S + 60,
             "the station's descriptors to come back")


def test_pages_beyond_the_stream_cap_are_answered_503(table: tuple[str, int, int]) -> None:
    base, port, _ = table
    socks: list[socket.socket] = []
    got: list[bytes] = []

    def answered() -> bool:  # every page reads, so none is dropped for not reading
        for i, s in enumerate(socks):
            with contextlib.suppress(BlockingIOError):
                got[i] += s.recv(1 << 16)
        return b"\r\n" in got[-1]

    try:
        for _ in range(MAX_STREAMS + 5):
            s = connect(port)
            s.sendall((f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").encode())
            s.setblocking(False)
            socks.append(s)
            got.append(b"")
            wait_for(answered, 30, "an answer")
        firsts = Counter(g.split(b"\r\n", 1)[0] for g in got)
        assert firsts == {b"HTTP/1.1 200 OK": MAX_STREAMS,
                          b"HTTP/1.1 503 Service Unavailable": 5}, firsts
        assert state(base)["phase"]
    finally:
        for s in socks:
            s.close()


def test_an_aborted_slow_post_leaves_no_traceback(table: tuple[str, int, int]) -> None:
    base, port, pid = table
    head = (f"POST /api/commands/open-betting HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n").encode()
    for _ in range(pick(5, 50)):
        with contextlib.closing(connect(port)) as s:
            s.sendall(head + b'{"actor": ')
            time.sleep(0.05)  # the handler is reading the body when the client goes
    assert state(base)["phase"]  # answered after them: the handlers have run
    time.sleep(0.5)
    log = (Path(f"/proc/{pid}/cwd") / "station.log").read_text()
    assert "Traceback" not in log and "Error handling request" not in log, log[-3000:]


def test_a_body_that_never_ends_is_answered_408(table: tuple[str, int, int]) -> None:
    _, port, _ = table
    head = (f"POST /api/commands/open-betting HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n").encode()
    with contextlib.closing(connect(port, timeout_s=BODY_TIMEOUT_S + 30)) as s:
        s.sendall(head + b'{"actor": ')
        got = b""
        while chunk := s.recv(4096):
            got += chunk
    assert got.startswith(b"HTTP/1.1 408 "), got[:200]
    assert b'"fix"' in got


def test_out_of_descriptors_logs_a_bounded_few_lines_and_recovers(tmp_path: Path) -> None:
    config = webkit.sim_config(tmp_path, card_s=0.05, shoes=None)
    base = webkit.url_of(config)
    port = int(base.rsplit(":", 1)[1])
    proc = webkit.start(config)
    socks: list[socket.socket] = []
    try:
        state(base)
        time.sleep(1.0)  # the station has opened what it opens at start
        # Far fewer descriptors than the connection cap: the accept itself runs out.
        limit = fds(proc.pid) + 24
        _, hard = resource.prlimit(proc.pid, resource.RLIMIT_NOFILE)
        resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (limit, hard))
        end = time.monotonic() + 3.0
        tried = 0
        while time.monotonic() < end or tried < pick(300, 1100):
            tried += 1
            with contextlib.suppress(OSError):  # the backlog is full: the flood goes on
                socks.append(connect(port, timeout_s=0.5))
            if tried >= pick(300, 1100) * 3:
                break
        for s in socks:
            s.close()
        socks.clear()
        wait_for(lambda: _answers(base), 60, "/api/state to answer after the flood")
    finally:
        for s in socks:
            s.close()
        log = webkit.stop(proc, config)
    lines = [ln for ln in log.splitlines() if "cannot accept" in ln or "accept()" in ln]
    assert 1 <= len(lines) <= 3, lines[:10]
    assert len(log.encode()) < 20_000, log[-2000:]


def _answers(base: str) -> bool:
    try:
        return bool(state(base)["phase"])
    except OSError:
        return False
