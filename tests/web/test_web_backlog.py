"""station/web/backlog.py on a real loopback TCP connection and a clock the test moves: a
peer that reads is never dropped, even for a message larger than the byte ceiling; a peer
that stops reading is dropped on the bytes it leaves queued, or on the age of the oldest
message it has not taken (issue 18, defect 3)."""

from __future__ import annotations

import asyncio
import socket
import threading
from pathlib import Path

import pytest

from station.web.backlog import Backlog, Dropped, kernel_unsent

KIB = 1024


async def _pair(rcvbuf: int | None) -> tuple[asyncio.Transport, socket.socket, socket.socket]:
    listener = socket.create_server(("127.0.0.1", 0))
    if rcvbuf is not None:  # inherited by the accepted socket: a small window fills fast
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_connection(asyncio.Protocol,
                                                *listener.getsockname()[:2])
    peer, _ = listener.accept()
    assert isinstance(transport, asyncio.Transport)
    return transport, peer, listener


def test_a_reader_is_kept_even_for_a_message_over_the_ceiling() -> None:
    async def main() -> None:
        transport, peer, listener = await _pair(None)
        big = b"x" * (600 * KIB)
        got = bytearray()
        reader = threading.Thread(target=lambda: _read(peer, len(big), got))
        reader.start()
        out = Backlog(transport, max_bytes=256 * KIB, max_age_s=2.0)
        now = 0.0
        for _ in range(5):
            out.check(now)
            out.sent(len(big), now)
            transport.write(big)
            out.check(now)  # just written, nothing taken yet: still kept
            while out.pending():
                await asyncio.sleep(0.01)
            now += 10.0  # however long between messages, all was taken
        reader.join(30)
        assert len(got) == 5 * len(big)
        transport.close()
        peer.close()
        listener.close()

    asyncio.run(main())


def _read(peer: socket.socket, size: int, got: bytearray) -> None:
    while len(got) < 5 * size:
        chunk = peer.recv(1 << 20)
        if not chunk:
            return
        got += chunk


@pytest.mark.parametrize("rule", ["bytes", "age"])
def test_a_peer_that_stops_reading_is_dropped(rule: str) -> None:
    async def main() -> str:
        transport, peer, listener = await _pair(4096)
        out = Backlog(transport, max_bytes=256 * KIB, max_age_s=2.0)
        msg = b"y" * (8 * KIB)
        now = 0.0
        try:
            for _ in range(1000):
                out.check(now)
                out.sent(len(msg), now)
                transport.write(msg)
                await asyncio.sleep(0)
                now += 0.001 if rule == "bytes" else 0.25
        except Dropped as why:
            return str(why)
        finally:
            transport.abort()
            peer.close()
            listener.close()
        raise AssertionError("never dropped")

    why = asyncio.run(main())
    assert ("bytes not taken" if rule == "bytes" else "not taken for") in why


def test_the_kernel_queue_of_what_is_not_a_socket_is_zero(tmp_path: Path) -> None:
    with (tmp_path / "f").open("wb") as f:
        assert kernel_unsent(f.fileno()) == 0
