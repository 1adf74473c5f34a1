"""Requests aiohttp cannot parse, sent with raw sockets to the real station page server and
the real pit (issue 30): each is answered 400 as before, and the log holds one line per kind
of error with a count (docs/operations.md, "Ceilings under abuse"), never aiohttp's traceback.
300 of them were 236 KB of tracebacks."""

from __future__ import annotations

import contextlib
import re
import socket
from pathlib import Path

from tests import webkit
from tests.pit.pitkit import Pit, PitFolder
from tests.upstream.broker import Broker

ROUNDS = 75  # four kinds each: 300 requests, as the issue's
BAD = b"HTTP/1.0 400 Bad Request"  # aiohttp's answer to a request it cannot parse


def malformed(port: int) -> list[bytes]:
    host = f"Host: 127.0.0.1:{port}\r\n"
    return [
        f"GET / HTTP/1.1\r\n{host}{host}\r\n".encode(),  # two Host headers
        f"GET / HTTP/1.1\r\n{host}X-Big: {'a' * 100_000}\r\n\r\n".encode(),  # a 100 KB header
        (f"GET / HTTP/1.1\r\n{host}" + "".join(f"X-{i}: {i}\r\n" for i in range(2000))
         + "\r\n").encode(),  # 2,000 headers
        f"GET /{'u' * 100_000} HTTP/1.1\r\n{host}\r\n".encode(),  # a 100 KB URL
    ]


def send_all(port: int) -> list[bytes]:
    """Each request on its own connection; the first line of each answer."""
    answers = []
    for _ in range(ROUNDS):
        for request in malformed(port):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                # Answered and closed, maybe before the whole request was sent.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    s.sendall(request)
                answer = b""
                try:
                    while b"\r\n" not in answer:
                        chunk = s.recv(4096)
                        if not chunk:
                            break
                        answer += chunk
                except ConnectionResetError:
                    pass
                answers.append(answer.split(b"\r\n", 1)[0])
    return answers


LINE = re.compile(r"answered (\d+) to a request it could not read, from ([^:]+): (\w+) ")


def assert_bounded(log: str, answers: list[bytes]) -> None:
    assert "Traceback" not in log and "Error handling request" not in log, log[-3000:]
    assert all(a in (b"", BAD) for a in answers), set(answers)
    assert answers.count(BAD) >= len(answers) // 2
    said = [line for line in log.splitlines() if LINE.search(line)]
    kinds = {LINE.search(line)[3] for line in said}  # type: ignore[index]
    # Within the minute: each kind said once, the rest counted for its next line.
    assert 1 <= len(said) == len(kinds) <= 4, said
    assert all(len(line) < 600 for line in said), said
    assert len(log.encode()) < 20_000, len(log.encode())


def test_the_station_logs_bad_requests_once_a_minute_with_a_count(tmp_path: Path) -> None:
    config = webkit.sim_config(tmp_path, card_s=0.5)
    with webkit.running(config):
        port = int(webkit.url_of(config).rsplit(":", 1)[1])
        answers = send_all(port)
        assert webkit.state(webkit.url_of(config))["table"]  # still serving
    log = (tmp_path / "station.log").read_text()
    assert_bounded(log, answers)


def test_the_pit_logs_bad_requests_once_a_minute_with_a_count(
        tmp_path: Path, broker: Broker) -> None:
    folder = PitFolder(tmp_path / "pit")
    keys = tmp_path / "keys"
    keys.mkdir()
    pit = Pit(folder.config(broker.port, keys), folder.port)
    try:
        answers = send_all(folder.port)
        assert pit.get("/api/tables") is not None  # still serving
        assert pit.stop() == 0
    finally:
        pit.close()
    assert_bounded("\n".join(pit.err), answers)
