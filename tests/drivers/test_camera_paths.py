"""The two ways a frame reaches the decoder give the same events: OpenCV decoding each frame
into BGR (the old path, kept for every source that is not Motion-JPEG), and the compressed
Motion-JPEG frame of which only the gray pixels are decoded (``drivers/camera/jpeg.py``, the
path for Motion-JPEG files, streams and cameras)."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.camera.capture import open_capture, parse_source
from drivers.camera.health import HealthMonitor, thumbnail
from drivers.camera.jpeg import decode_luma
from drivers.codes import CodeFormat
from drivers.events import CardRead, CutCardSeen, DeviceLost, InputEvent
from drivers.sim_camera import Degradation, ShoeVideo, code_frame, frames, write_video
from station.settings.shoefile import read_shoe_file
from tests.conftest import REPO
from tests.drivers.camerakit import CUT_CODE, codes_of, run_to_end
from tests.drivers.mjpegkit import packets_of
from tests.sampling import examples

SHORT = read_shoe_file(REPO / "tests" / "shoes" / "short.txt")
CODES = [CUT_CODE if t == "CUT" else t for t in SHORT]
START = 1_764_547_200.0

VIDEOS: dict[str, dict[str, object]] = {
    "code128": {"codes": CODES, "frames_per_card": 3, "gap_frames": 5, "lead_frames": 2},
    "datamatrix": {"codes": CODES, "symbology": "datamatrix", "frames_per_card": 3,
                   "gap_frames": 5},
    "qr": {"codes": CODES[:12], "symbology": "qr", "frames_per_card": 3, "gap_frames": 5},
    "720p": {"codes": CODES[:12], "size": (1280, 720), "frames_per_card": 3, "gap_frames": 5},
    "realistic": {"codes": CODES[:12], "degrade": "realistic", "frames_per_card": 4,
                  "gap_frames": 5, "seed": 7},
    "frozen": {"codes": ["AS", "KD", "QH", "2C"], "frames_per_card": 3, "gap_frames": 2,
               "frozen": (2, 75)},
    "black": {"codes": ["AS", "KD", "QH", "2C"], "frames_per_card": 3, "gap_frames": 2,
              "black": (2, 75)},
    "unknown": {"codes": ["AS", "XX", "KD"], "frames_per_card": 6, "gap_frames": 3},
}


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Path, ShoeVideo]]:
    root = tmp_path_factory.mktemp("paths")
    made: dict[str, tuple[Path, ShoeVideo]] = {}

    def get(name: str) -> tuple[Path, ShoeVideo]:
        if name not in made:
            v = ShoeVideo(**VIDEOS[name])  # type: ignore[arg-type]
            path = root / f"{name}.avi"
            write_video(path, v)
            made[name] = (path, v)
        return made[name]
    return get


def both_paths(path: Path, **kwargs: Any) -> tuple[list[InputEvent], list[InputEvent]]:
    old = run_to_end(path, direct_jpeg=False, start_ts=START, **kwargs)
    new = run_to_end(path, direct_jpeg=True, start_ts=START, **kwargs)
    return old, new


@pytest.mark.parametrize("name", list(VIDEOS))
def test_the_same_video_gives_the_same_events_on_both_paths(
        name: str, video: Callable[[str], tuple[Path, ShoeVideo]]) -> None:
    path, v = video(name)
    for decoder in ("zxing", "pyzbar") if v.symbology != "datamatrix" else ("zxing",):
        raw_old: list[tuple[str, float]] = []
        raw_new: list[tuple[str, float]] = []
        old = run_to_end(path, direct_jpeg=False, start_ts=START, roi=v.region,
                         decoder=decoder, codes=CodeFormat(cut_codes=[CUT_CODE]),
                         on_raw=lambda p, c, t: raw_old.append((p, t)))  # noqa: B023
        new = run_to_end(path, direct_jpeg=True, start_ts=START, roi=v.region,
                         decoder=decoder, codes=CodeFormat(cut_codes=[CUT_CODE]),
                         on_raw=lambda p, c, t: raw_new.append((p, t)))  # noqa: B023
        assert new == old, f"{name}/{decoder}"
        assert raw_new == raw_old, f"{name}/{decoder}: the frames decoded differ"
        expected = [c for c in v.codes if c != "XX"]
        got = [c for c in codes_of(new) if not c.startswith("?unknown")]
        assert got == [c if c != CUT_CODE else "CUT" for c in expected], name
    if name in ("frozen", "black"):
        assert any(isinstance(e, DeviceLost) and name in e.reason for e in new)


def test_the_whole_frame_and_a_damaged_file_give_the_same_events_on_both_paths(
        video: Callable[[str], tuple[Path, ShoeVideo]], tmp_path: Path) -> None:
    path, v = video("frozen")
    old, new = both_paths(path)  # no region of interest: the whole frame is decoded
    assert new == old and codes_of(new) == ["AS", "KD", "QH", "2C"]
    cut = tmp_path / "cut.avi"
    data = path.read_bytes()
    cut.write_bytes(data[:len(data) * 6 // 10])
    old, new = both_paths(cut, roi=v.region)
    # The cut leaves the last frame half there: FFmpeg shows what it has of it, libjpeg
    # refuses it and the frame is skipped, so the frame count in the reason may differ by it.
    assert new[:-1] == old[:-1] and codes_of(new) == codes_of(old)
    for events in (old, new):
        assert isinstance(events[-1], DeviceLost)
        assert "video ended at frame" in events[-1].reason


def test_a_motion_jpeg_source_is_read_directly_and_any_other_codec_as_before(
        video: Callable[[str], tuple[Path, ShoeVideo]], tmp_path: Path) -> None:
    path, _ = video("code128")
    for direct in (True, False):
        cap = open_capture(parse_source(str(path)), clock=time.time, start_ts=0.0,
                           direct=direct)
        try:
            got = cap.read()
            assert got is not None and cap.direct is direct
            assert got[0].ndim == (2 if direct else 3)
            assert (cap.packet is not None) is direct
        finally:
            cap.close()
    # A lossless FFV1 video (what OpenCV's wheel writes besides Motion-JPEG): OpenCV decodes.
    ffv1 = tmp_path / "ffv1.mkv"
    small = ShoeVideo(["AS", "KD"], frames_per_card=3, gap_frames=5)
    writer = cv2.VideoWriter(str(ffv1), cv2.CAP_FFMPEG, cv2.VideoWriter.fourcc(*"FFV1"), 30.0,
                             small.size)
    assert writer.isOpened()
    for frame in frames(small):
        writer.write(frame)
    writer.release()
    cap = open_capture(parse_source(str(ffv1)), clock=time.time, start_ts=0.0)
    try:
        assert not cap.direct
    finally:
        cap.close()
    assert codes_of(run_to_end(ffv1, roi=small.region, start_ts=START)) == ["AS", "KD"]


def test_a_direct_recording_holds_the_frames_exactly_as_the_source_sent_them(
        video: Callable[[str], tuple[Path, ShoeVideo]], tmp_path: Path) -> None:
    path, v = video("realistic")
    rec = tmp_path / "recorded.avi"
    events = run_to_end(path, roi=v.region, record_to=rec, start_ts=START)
    assert packets_of(str(rec), limit=10_000) == packets_of(str(path), limit=10_000)
    assert run_to_end(rec, roi=v.region, start_ts=START) == events
    # And the recording of the old path still replays to the same reads.
    old_rec = tmp_path / "old.avi"
    old = run_to_end(path, roi=v.region, record_to=old_rec, start_ts=START, direct_jpeg=False)
    assert codes_of(run_to_end(old_rec, roi=v.region, start_ts=START)) == codes_of(old)


def jpeg_of(image: np.ndarray, quality: int = 85) -> np.ndarray:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return np.asarray(data, dtype=np.uint8).reshape(-1)


def without_huffman_tables(data: bytes) -> bytes:
    """The frame as many USB cameras send it: no DHT segment (the standard tables implied)."""
    out, i = bytearray(data[:2]), 2
    while data[i + 1] != 0xDA:  # up to the start of scan
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if data[i + 1] != 0xC4:
            out += data[i:i + 2 + length]
        i += 2 + length
    return bytes(out + data[i:])


def test_the_gray_pixels_are_the_luma_of_the_frame_and_camera_frames_decode() -> None:
    # A card on the table as the camera sees it (random noise would be a worst case no
    # camera sends: its colours clip in the BGR path).
    image = code_frame("QH", "code128", Degradation.realistic(np.random.default_rng(3)),
                       (320, 240), np.random.default_rng(3))
    packet = jpeg_of(image)
    gray = decode_luma(packet)
    assert gray is not None and gray.shape == (240, 320)
    bgr = cv2.imdecode(packet, cv2.IMREAD_COLOR)
    assert bgr is not None
    # The same weighted sum as OpenCV's BGR-to-gray, up to the rounding of the colour path.
    diff = np.abs(gray.astype(int) - cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(int))
    assert int(diff.max()) <= 8 and float(diff.mean()) < 1.5
    bare = np.frombuffer(without_huffman_tables(packet.tobytes()), np.uint8)
    assert len(bare) < len(packet)
    assert np.array_equal(decode_luma(bare), gray)  # type: ignore[arg-type]


def test_health_judges_a_bgr_frame_and_its_gray_alike() -> None:
    rng = np.random.default_rng(5)
    frame = rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
    gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    assert np.array_equal(thumbnail(frame), thumbnail(gray))
    # Dark blue: lit by the mean of its channels, dark by its luma: black either way.
    blue = np.zeros((480, 640, 3), np.uint8)
    blue[:, :, 0] = 60
    for image in (blue, np.asarray(cv2.cvtColor(blue, cv2.COLOR_BGR2GRAY), dtype=np.uint8)):
        health = HealthMonitor(black_s=0.5)
        verdicts = [health.check(t / 10, image) for t in range(10)]
        assert verdicts[-1].problem is not None and "image black" in verdicts[-1].problem


@pytest.fixture(scope="module")
def real_packet(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("packet") / "v.avi"
    write_video(path, ShoeVideo(["AS"], frames_per_card=1, gap_frames=0, lead_frames=0))
    return packets_of(str(path), limit=1)[0]


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=2048))
def test_any_bytes_decode_to_gray_or_to_nothing_never_raise(data: bytes) -> None:
    got = decode_luma(np.frombuffer(data, np.uint8))
    assert got is None or (got.ndim == 2 and got.dtype == np.uint8)


@pytest.mark.parametrize("seed", range(40))
def test_a_damaged_frame_decodes_to_gray_or_to_nothing(seed: int, real_packet: bytes) -> None:
    rng = random.Random(seed)
    data = bytearray(real_packet)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(data))
        kind = rng.randrange(3)
        if kind == 0:
            for j in range(i, min(len(data), i + rng.randint(1, 32))):
                data[j] = rng.randrange(256)
        elif kind == 1:
            del data[i:]
        else:
            del data[i:i + rng.randint(1, 512)]
        if len(data) < 2:
            data = bytearray(b"\xff\xd8")
    got = decode_luma(np.frombuffer(bytes(data), np.uint8))
    assert got is None or (got.ndim == 2 and got.dtype == np.uint8)


def test_opencv_does_not_print_its_own_warnings_for_a_file_that_is_not_a_video(
        tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a video\n")
    done = subprocess.run([sys.executable, "-m", "station.cli", "replay", "--video", str(notes)],
                          capture_output=True, text=True, timeout=60, check=False, cwd=REPO)
    assert done.returncode == 2, done.stderr
    assert "not a video OpenCV can read" in done.stderr
    assert "[ WARN" not in done.stderr and "cap.cpp" not in done.stderr, done.stderr


def test_every_card_is_still_read_through_a_stream_on_the_direct_path(
        video: Callable[[str], tuple[Path, ShoeVideo]]) -> None:
    """An HTTP Motion-JPEG camera is read directly too (its frames are JPEG packets)."""
    from drivers.camera import CameraReader  # noqa: PLC0415
    from tests.drivers.camerakit import Collected  # noqa: PLC0415
    from tests.drivers.mjpegkit import MjpegStream  # noqa: PLC0415

    path, v = video("unknown")
    with MjpegStream(packets_of(str(path)), fps=60) as stream:
        reader = CameraReader(stream.url, roi=v.region)
        got = Collected()
        reader.start(got.post, got.end)
        try:
            got.wait_for(lambda ev: sum(isinstance(e, CardRead | CutCardSeen)
                                        for e in ev) >= 3)
            assert reader.direct
        finally:
            reader.stop()
    assert codes_of(got.events)[:3] == ["AS", "?unknown:XX", "KD"]


def test_a_frame_that_does_not_decode_is_skipped_and_the_rest_is_read(
        video: Callable[[str], tuple[Path, ShoeVideo]], tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    path, v = video("frozen")
    packets = packets_of(str(path), limit=10_000)
    # Two frames arrive as garbage (not even a JPEG any more): one before the first card, and
    # the first of KD's three (the other two still agree on it).
    for i in (1, 8):
        packets[i] = b"\0" * 64 + packets[i][64:]
    damaged = tmp_path / "damaged.avi"
    writer = cv2.VideoWriter(str(damaged), cv2.CAP_FFMPEG, cv2.VideoWriter.fourcc(*"MJPG"),
                             v.fps, v.size, [cv2.VIDEOWRITER_PROP_RAW_VIDEO, 1])
    assert writer.isOpened()
    for packet in packets:
        writer.write(np.frombuffer(packet, np.uint8).reshape(1, -1))
    writer.release()
    events = run_to_end(damaged, roi=v.region, start_ts=START)
    assert codes_of(events) == ["AS", "KD", "QH", "2C"]
    # The frozen stretch is reported as in the whole file, and the file was read to its end.
    lost = [e for e in events if isinstance(e, DeviceLost)]
    assert len(lost) == 1 and lost[0].reason.startswith("image frozen"), events
    assert [r.message for r in caplog.records if "does not decode" in r.message] == [
        f"{damaged}: a Motion-JPEG frame that does not decode was skipped (damaged in "
        f"transfer?)"]
