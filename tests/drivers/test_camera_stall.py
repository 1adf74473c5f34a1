"""A live camera that stalls inside ``read()`` (no frame, no error) is reported, not silence:
an HTTP Motion-JPEG stream on 127.0.0.1 that stops sending with the connection open, read by
the real CameraReader through OpenCV's FFmpeg (docs/hardware.md, "Camera reader")."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.camera import CameraReader
from drivers.camera.watchdog import StallWatchdog
from drivers.events import DeviceLost, DeviceRestored, InputEvent
from drivers.reconnect import Backoff
from drivers.sim_camera import ShoeVideo, write_video
from tests.drivers.camerakit import Collected
from tests.drivers.mjpegkit import MjpegStream, packets_of

STALL_S = 0.4  # well under OpenCV's own read timeout for streams (2 s)


@pytest.fixture(scope="module")
def packets(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    path = tmp_path_factory.mktemp("stall") / "table.avi"
    write_video(path, ShoeVideo(["AS", "KD"], frames_per_card=3, gap_frames=4, lead_frames=2))
    return packets_of(str(path))


@pytest.fixture
def stream(packets: list[bytes]) -> Iterator[MjpegStream]:
    with MjpegStream(packets) as s:
        yield s


def faults(events: list[InputEvent]) -> list[InputEvent]:
    return [e for e in events if isinstance(e, DeviceLost | DeviceRestored)]


def start(url: str, got: Collected) -> CameraReader:
    reader = CameraReader(url, stall_s=STALL_S, backoff=Backoff(0.05, 0.2))
    reader.start(got.post, got.end)
    assert reader.connected.wait(20), f"no frame from the stream: {got.snapshot()}"
    return reader


def test_a_stream_that_stalls_is_lost_within_stall_s_and_restored_when_it_flows(
        stream: MjpegStream) -> None:
    got = Collected()
    reader = start(stream.url, got)
    try:
        assert faults(got.snapshot()) == []
        stream.flowing.clear()  # the camera hangs: the reader sits inside read()
        held = time.monotonic()
        got.wait_for(lambda ev: len(faults(ev)) == 1, timeout_s=10)
        noticed = time.monotonic() - held
        lost = faults(got.snapshot())[0]
        assert isinstance(lost, DeviceLost) and lost.source == "camera"
        assert lost.reason.startswith("no frame for "), lost.reason
        # Before OpenCV's 2 s read timeout, so it was the watchdog and not a failed read.
        assert noticed < 1.5, noticed
        assert not reader.connected.is_set()
        time.sleep(0.3)
        stream.flowing.set()
        got.wait_for(lambda ev: len(faults(ev)) == 2, timeout_s=10)
        assert isinstance(faults(got.snapshot())[1], DeviceRestored)
        # The same connection all along: the stall ended inside read(), no reopen.
        assert stream.connections == 1
        assert reader.connected.wait(5)
    finally:
        reader.stop()
    assert [type(e).__name__ for e in faults(got.events)] == ["DeviceLost", "DeviceRestored"]


def test_a_stream_that_stalls_for_good_is_lost_once_while_the_reader_retries(
        stream: MjpegStream) -> None:
    got = Collected()
    reader = start(stream.url, got)
    try:
        stream.flowing.clear()
        # Past OpenCV's read timeout: the read fails, the reader reopens (the server takes
        # the connection and sends nothing), all inside one reported loss.
        deadline = time.monotonic() + 4.0
        while time.monotonic() < deadline and stream.connections < 2:
            time.sleep(0.05)
        time.sleep(0.5)
        assert stream.connections >= 2, "the reader never reopened the stream"
    finally:
        stream.close()  # a reader blocked on the stream returns at once
        reader.stop()
    lost = faults(got.events)
    assert len(lost) == 1 and isinstance(lost[0], DeviceLost), got.events
    assert lost[0].reason.startswith("no frame for ")


def test_the_watchdog_reports_each_stall_once_and_only_while_armed() -> None:
    now = [100.0]
    stalls: list[float] = []
    fired = threading.Event()

    def on_stall(seconds: float) -> None:
        stalls.append(seconds)
        fired.set()

    dog = StallWatchdog(1.0, on_stall, name="test", monotonic=lambda: now[0])
    dog.start()
    try:
        now[0] += 5
        time.sleep(0.6)
        assert stalls == []  # not armed: a reader waiting to reopen has nothing new to say
        dog.arm()
        now[0] += 0.9
        time.sleep(0.6)
        assert stalls == []  # under stall_s
        now[0] += 0.2
        assert fired.wait(5)
        assert stalls == [pytest.approx(1.1)]
        now[0] += 10
        time.sleep(0.6)
        assert len(stalls) == 1  # once per stall
        dog.frame()
        fired.clear()
        now[0] += 1.5
        assert fired.wait(5) and stalls[1] == pytest.approx(1.5)  # a new stall after a frame
        dog.disarm()  # the reader gave up on that capture and reopens the source
        fired.clear()
        dog.arm()
        now[0] += 1.2
        assert fired.wait(5) and stalls[2] == pytest.approx(1.2)  # watched afresh
    finally:
        dog.stop()


@pytest.mark.parametrize("value", [0.0, -1.0, float("nan")])
def test_a_stall_limit_that_is_not_positive_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="stall_s must be a positive"):
        CameraReader("http://127.0.0.1:9/x.mjpg", stall_s=value)
    with pytest.raises(ValueError, match="stall_s must be a positive"):
        StallWatchdog(value, lambda s: None, name="x")


def test_a_video_file_is_never_watched(tmp_path: Path) -> None:
    """A file is read as fast as decoding allows; a slow disk is not a stalled camera."""
    path = tmp_path / "v.avi"
    write_video(path, ShoeVideo(["AS"], frames_per_card=3, gap_frames=2))
    ticks = itertools.count()
    reader = CameraReader(str(path), stall_s=1e-6, start_ts=0.0,
                          clock=lambda: float(next(ticks)))
    got = Collected()
    reader.start(got.post, got.end)
    try:
        assert got.ended.wait(30)
    finally:
        reader.stop()
    assert faults(got.events) == []
