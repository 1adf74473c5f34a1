"""Fuzz the camera's inputs: damaged video files and bad sources. Never a traceback, a hang
or a touched file; never a card that was not in the video; what is wrong is reported as
``DeviceLost`` with a reason (a file) or refused with ``ValueError`` naming it (a setting)."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.camera import CameraReader
from drivers.camera.capture import parse_source
from drivers.camera.pipeline import check_roi
from drivers.events import CardRead, CutCardSeen, DeviceLost, DeviceRestored
from drivers.sim_camera import ShoeVideo, write_video
from tests.drivers.camerakit import Collected, run_to_end
from tests.drivers.mjpegkit import MjpegStream, packets_of
from tests.sampling import examples

CODES = ["AS", "KD", "QH", "2C"]


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, ShoeVideo]:
    v = ShoeVideo(CODES, frames_per_card=3, gap_frames=2, lead_frames=1)
    path = tmp_path_factory.mktemp("fuzz") / "good.avi"
    write_video(path, v)
    return path.read_bytes(), v


def mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        kind = rng.randrange(4)
        i = rng.randrange(len(out))
        if kind == 0:  # flip bytes
            for j in range(i, min(len(out), i + rng.randint(1, 16))):
                out[j] = rng.randrange(256)
        elif kind == 1:  # cut the file short
            del out[i:]
        elif kind == 2:  # drop a piece
            del out[i:i + rng.randint(1, 4096)]
        else:  # repeat a piece
            piece = out[i:i + rng.randint(1, 4096)]
            out[i:i] = piece
        if not out:
            out = bytearray(b"\0")
    return bytes(out)


@pytest.mark.parametrize("seed", range(12))
def test_a_damaged_video_never_crashes_or_invents_a_card(
        seed: int, tmp_path: Path, video: tuple[bytes, ShoeVideo]) -> None:
    data, v = video
    path = tmp_path / "damaged.avi"
    damaged = mutate(data, random.Random(seed))
    path.write_bytes(damaged)
    events = run_to_end(path, roi=v.region, start_ts=0.0)
    assert path.read_bytes() == damaged  # read only
    for e in events:
        assert isinstance(e, CardRead | CutCardSeen | DeviceLost | DeviceRestored)
        if isinstance(e, CardRead):
            assert e.code in CODES, f"seed {seed}: {e.code} was never in the video"
        if isinstance(e, DeviceLost):
            assert e.reason and e.source == "camera"
    assert sum(isinstance(e, DeviceLost) for e in events) <= 1 + sum(
        isinstance(e, DeviceRestored) for e in events)


@settings(max_examples=examples(200), deadline=None)
@given(st.one_of(st.integers(-5, 5), st.text(max_size=30), st.booleans(),
                 st.floats(allow_nan=True), st.none()))
def test_any_source_is_parsed_or_refused_with_a_reason(source: object) -> None:
    try:
        parsed = parse_source(source)  # type: ignore[arg-type]
    except ValueError as exc:
        assert "camera" in str(exc)
        return
    assert parsed.kind in ("index", "device", "url", "file")


@settings(max_examples=examples(200), deadline=None)
@given(st.one_of(st.none(), st.tuples(*[st.integers(-3, 5000)] * 4),
                 st.lists(st.integers(0, 10), max_size=5).map(tuple),
                 st.tuples(st.floats(), st.integers(), st.integers(), st.integers())))
def test_any_roi_is_taken_or_refused_with_a_reason(roi: object) -> None:
    try:
        assert check_roi(roi) == roi  # type: ignore[arg-type]
    except ValueError as exc:
        assert "roi" in str(exc)


def test_a_video_of_random_bytes_is_reported_not_raised(tmp_path: Path) -> None:
    rng = random.Random(7)
    for n in (0, 1, 100, 20_000):
        path = tmp_path / f"random{n}.avi"
        path.write_bytes(bytes(rng.randrange(256) for _ in range(n)))
        events = run_to_end(path)
        assert len(events) == 1 and isinstance(events[0], DeviceLost), (n, events)


@pytest.mark.parametrize("seed", range(3))
def test_a_stream_of_damaged_frames_never_crashes_or_invents_a_card(
        seed: int, video: tuple[bytes, ShoeVideo], tmp_path: Path) -> None:
    """An IP camera on 127.0.0.1 whose frames arrive damaged (bytes flipped, cut short, pieces
    dropped), read directly (each frame decoded by libjpeg, gray only): damaged frames are
    skipped or decoded as they are, and nothing is posted that was not in the video."""
    path = tmp_path / "good.avi"
    path.write_bytes(video[0])
    rng = random.Random(seed)
    packets = [mutate(p, rng) if rng.random() < 0.5 else p for p in packets_of(str(path))]
    with MjpegStream(packets, fps=120) as stream:
        reader = CameraReader(stream.url, roi=video[1].region)
        got = Collected()
        reader.start(got.post, got.end)
        try:
            deadline = time.monotonic() + 20
            while stream.sent < 2 * len(packets) and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            reader.stop()
    assert got.error is None and not got.ended.is_set()
    for e in got.events:
        assert isinstance(e, CardRead | CutCardSeen | DeviceLost | DeviceRestored)
        if isinstance(e, CardRead):
            assert e.code in CODES, f"seed {seed}: {e.code} was never in the video"
