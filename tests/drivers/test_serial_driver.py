"""The serial scanner driver over a real pseudo-terminal (issue 9): the real driver, the real
parser and pyserial, with ``drivers.sim_serial.PtyScanner`` playing the scanner.

Cards written while the scanner is unplugged are simply not read (the bytes never arrive):
the station is paused meanwhile by ``DeviceLost``, and the dealer re-scans.
"""

from __future__ import annotations

import queue
import random
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.base import EventSource
from drivers.codes import CodeFormat
from drivers.events import CardRead, CutCardSeen, DeviceLost, DeviceRestored, InputEvent
from drivers.framing import FRAMINGS, FrameParser
from drivers.reconnect import Backoff
from drivers.serial_scanner import SerialScanner
from drivers.sim_serial import PtyScanner
from drivers.simulated import CUT, shuffled_shoe
from station.game.cards import try_parse_card


class Heard:
    """What a driver posted, with the monotonic time it was posted."""

    def __init__(self) -> None:
        self.q: queue.Queue[tuple[float, InputEvent]] = queue.Queue()

    def __call__(self, source: EventSource, event: InputEvent) -> None:
        self.q.put((time.perf_counter(), event))

    def next(self, timeout: float = 5.0) -> tuple[float, InputEvent]:
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"nothing posted within {timeout} s") from None

    def take(self, n: int, timeout: float = 10.0) -> list[InputEvent]:
        return [self.next(timeout)[1] for _ in range(n)]

    def quiet(self, seconds: float = 0.2) -> None:
        time.sleep(seconds)
        extra = [e for _, e in list(self.q.queue)]
        assert not extra, f"unexpected events: {extra}"


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PtyScanner]:
    with PtyScanner(tmp_path / "usb-Scanner-if00") as s:
        yield s


def start(port: str, heard: Heard, wait: bool = True, **kwargs: object) -> SerialScanner:
    kwargs.setdefault("backoff", Backoff(0.02, 0.25))
    kwargs.setdefault("codes", CodeFormat(cut_codes=[CUT]))
    driver = SerialScanner(port, **kwargs)  # type: ignore[arg-type]
    driver.start(heard)
    if wait and not driver.connected.wait(5):
        driver.stop()
        raise AssertionError("the driver did not open the port")
    return driver


def expected_events(shoe: list[str]) -> list[tuple[str, str]]:
    return [("cut", "") if c == CUT else ("card", c) for c in shoe]


def kinds(events: list[InputEvent]) -> list[tuple[str, str]]:
    out = []
    for e in events:
        if isinstance(e, CardRead):
            out.append(("card", e.code))
        elif isinstance(e, CutCardSeen):
            out.append(("cut", ""))
        else:
            out.append((type(e).__name__, ""))
    return out


def test_a_whole_shoe_in_random_chunks_arrives_in_order(sim: PtyScanner) -> None:
    rng = random.Random(3)
    shoe = shuffled_shoe(rng)
    heard = Heard()
    driver = start(sim.path, heard)
    try:
        sim.send(shoe, rng=rng, max_chunk=9, pause_s=0.0005)
        assert kinds(heard.take(len(shoe))) == expected_events(shoe)
        heard.quiet()
    finally:
        driver.stop()


@pytest.mark.parametrize("framing", FRAMINGS)
def test_every_framing_over_the_pty(sim: PtyScanner, framing: str) -> None:
    rng = random.Random(framing)
    shoe = [*shuffled_shoe(rng)[:60], CUT]
    heard = Heard()
    driver = start(sim.path, heard, parser=FrameParser(framing, prefix="]C0"))
    try:
        sim.send(shoe, framing=framing, rng=rng, prefix="]C0")
        assert kinds(heard.take(len(shoe))) == expected_events(shoe)
    finally:
        driver.stop()


def test_a_cr_only_scanner_is_not_delayed_by_the_read_timeout(sim: PtyScanner) -> None:
    heard = Heard()
    driver = start(sim.path, heard, read_timeout_s=1.0)
    lags = []
    try:
        for code in ["AS", "10D", "QH", "KC", "9S"] * 4:
            sim.write(code[:1].encode())  # half a code first: the read returns with it
            time.sleep(0.01)
            sim.write(code[1:].encode() + b"\r")
            last_byte = time.perf_counter()
            posted, event = heard.next()
            assert isinstance(event, CardRead) and try_parse_card(event.code) is not None
            lags.append(posted - last_byte)
    finally:
        driver.stop()
    lags.sort()
    # Well under the 1 s read timeout: a few ms even on a loaded 2-core machine.
    assert lags[len(lags) // 2] < 0.02, lags
    assert lags[-1] < 0.25, lags


def test_bad_frames_and_unknown_codes_pause_with_the_raw_bytes(sim: PtyScanner) -> None:
    heard = Heard()
    driver = start(sim.path, heard)
    try:
        sim.write(b"AS\rXX\rA\xffS\r\r" + b"K" * 70 + b"\rkd\rSUP1\r")
        got = [e.code for e in heard.take(6) if isinstance(e, CardRead)]
        assert got == ["AS", "?unknown:XX", "?not_utf8:A\\xffS", "?empty:",
                       "?too_long:" + "K" * 64 + "...", "KD"]
        assert [try_parse_card(c) is None for c in got] == [False, True, True, True, True,
                                                             False]
        sim.write(b"SUP1\r")  # an unknown code again: never dropped silently
        assert [e.code for e in heard.take(1) if isinstance(e, CardRead)] == ["?unknown:SUP1"]
    finally:
        driver.stop()


def test_unplug_and_replug_twenty_times(sim: PtyScanner) -> None:
    """Each unplug pauses (DeviceLost) within 1 s; each replug reads again within 5 s; a code
    cut in half by the unplug is dropped, never glued to the next one; nothing is invented."""
    rng = random.Random(20)
    shoe = shuffled_shoe(rng)
    cards = iter(c for c in shoe if c != CUT)
    heard = Heard()
    driver = start(sim.path, heard, read_timeout_s=0.5)
    try:
        for cycle in range(20):
            batch = [next(cards) for _ in range(3)]
            sim.send(batch, rng=rng)
            assert kinds(heard.take(3)) == expected_events(batch), cycle
            sim.write(b"Q")  # half a code, then the cable is pulled
            pulled = time.perf_counter()
            sim.unplug()
            at, lost = heard.next(timeout=1.0)
            assert isinstance(lost, DeviceLost) and lost.source == "scanner", lost
            assert at - pulled < 1.0
            time.sleep(rng.uniform(0, 0.3))
            plugged = time.perf_counter()
            sim.replug()
            at, back = heard.next(timeout=5.0)
            assert isinstance(back, DeviceRestored), back
            assert driver.connected.wait(5)
            code = next(cards)
            sim.write(b"H" if cycle % 2 else b"")  # "H" alone would make "QH" if glued
            sim.write(b"\r" + code.encode() + b"\r")
            evs = heard.take(2)
            assert kinds(evs[1:]) == [("card", code)], evs
            assert at - plugged < 5.0
            first = evs[0]
            assert isinstance(first, CardRead)
            assert first.code == ("?unknown:H" if cycle % 2 else "?empty:"), first
        heard.quiet()
    finally:
        driver.stop()


def test_a_port_missing_at_start_is_lost_until_it_appears(tmp_path: Path) -> None:
    link = tmp_path / "scanner"
    heard = Heard()
    driver = start(str(link), heard, wait=False)
    try:
        _, lost = heard.next()
        assert isinstance(lost, DeviceLost) and "cannot open" in lost.reason
        heard.quiet(0.3)  # one DeviceLost, not one per attempt
        with PtyScanner(link) as sim:
            _, back = heard.next()
            assert isinstance(back, DeviceRestored)
            assert driver.connected.wait(5)
            sim.write(b"JH\r")
            assert kinds(heard.take(1)) == [("card", "JH")]
            driver.stop()
    finally:
        driver.stop()


def test_stop_is_prompt_while_reading_and_while_waiting_to_reconnect(
        sim: PtyScanner, tmp_path: Path) -> None:
    heard = Heard()
    driver = start(sim.path, heard, read_timeout_s=5.0)
    time.sleep(0.2)
    t0 = time.perf_counter()
    driver.stop()
    # cancel_read, not the 5 s timeout (bounded well below it, so a loaded machine's wait
    # is never taken for the timeout)
    assert time.perf_counter() - t0 < 3
    gone = start(str(tmp_path / "nothing"), heard, wait=False, backoff=Backoff(5.0, 5.0))
    heard.next()
    t0 = time.perf_counter()
    gone.stop()
    assert time.perf_counter() - t0 < 3  # not the 5 s backoff


def test_socket_url_with_a_server_restarted(unused_port: int) -> None:
    """The same driver on a pyserial ``socket://`` URL (a serial-to-Ethernet adapter)."""
    heard = Heard()

    def serve(payload: bytes, ready: threading.Event, go: threading.Event) -> None:
        with socket.create_server(("127.0.0.1", unused_port)) as srv:
            ready.set()
            conn, _ = srv.accept()
            with conn:
                go.wait(5)  # pyserial discards what waits when it opens: send after that
                conn.sendall(payload)
                time.sleep(0.2)

    driver: SerialScanner | None = None
    try:
        for round_ in range(2):
            ready, go = threading.Event(), threading.Event()
            server = threading.Thread(target=serve, args=(b"AS\r10c\r", ready, go))
            server.start()
            try:
                assert ready.wait(5)
                if driver is None:
                    driver = start(f"socket://127.0.0.1:{unused_port}", heard,
                                   read_timeout_s=0.2)
                else:
                    assert isinstance(heard.next()[1], DeviceRestored), round_
                    assert driver.connected.wait(5)
                go.set()
                assert kinds(heard.take(2)) == [("card", "AS"), ("card", "TC")]
                assert isinstance(heard.next()[1], DeviceLost)  # the server hung up
            finally:
                go.set()
                server.join(5)
    finally:
        if driver is not None:
            driver.stop()


@pytest.fixture
def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
