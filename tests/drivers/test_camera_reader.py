"""The camera reader end to end: generated videos of real barcodes through OpenCV, the real
decoders, the agreement rule and the health checks (docs/hardware.md, "Camera reader")."""

from __future__ import annotations

import itertools
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from drivers.camera import CameraReader
from drivers.camera.decoders import make_decoder
from drivers.camera.pipeline import FramePipeline
from drivers.codes import CodeFormat
from drivers.events import CardRead, CutCardSeen, DeviceLost, DeviceRestored, InputEvent
from drivers.reconnect import Backoff
from drivers.sim_camera import ShoeVideo, card_image, write_video
from station.settings.shoefile import read_shoe_file
from tests.conftest import REPO
from tests.drivers.camerakit import CUT_CODE, Collected, codes_of, run_to_end

SHORT_SHOE = [t for t in read_shoe_file(REPO / "tests" / "shoes" / "short.txt")]
CUT_FORMAT = CodeFormat(cut_codes=[CUT_CODE])
START = 1_764_547_200.0


def shoe_codes(tokens: list[str]) -> list[str]:
    return [CUT_CODE if t == "CUT" else t for t in tokens]


@pytest.fixture(scope="module")
def videos(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., tuple[Path, ShoeVideo]]:
    """Write each video once per module (and worker); the reader tests only read them."""
    made: dict[tuple[object, ...], tuple[Path, ShoeVideo]] = {}
    root = tmp_path_factory.mktemp("videos")

    def get(codes: tuple[str, ...], **kw: object) -> tuple[Path, ShoeVideo]:
        key = (codes, *sorted(kw.items()))
        if key not in made:
            video = ShoeVideo(list(codes), **kw)  # type: ignore[arg-type]
            path = root / f"v{len(made)}.avi"
            write_video(path, video)
            made[key] = (path, video)
        return made[key]
    return get


CASES = [("code128", "zxing"), ("code128", "pyzbar"), ("datamatrix", "zxing"),
         ("qr", "zxing"), ("qr", "pyzbar")]


@pytest.mark.parametrize("symbology, decoder", CASES)
def test_every_card_of_a_shoe_is_read_once_in_order(
        symbology: str, decoder: str, videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    # Five empty frames between cards: the default release_frames, so two of the same card
    # in a row are two passes (at a table there are tens of frames between two cards).
    path, video = videos(tuple(shoe_codes(SHORT_SHOE)), symbology=symbology,
                         frames_per_card=3, gap_frames=5, lead_frames=2)
    events = run_to_end(path, decoder=decoder, roi=video.region, codes=CUT_FORMAT,
                        start_ts=START)
    assert codes_of(events) == SHORT_SHOE
    assert all(isinstance(e, CardRead | CutCardSeen) for e in events), events
    times = [e.ts for e in events if isinstance(e, CardRead | CutCardSeen)]
    assert times == sorted(times) and times[0] > START  # the file's own frame time


def test_pyzbar_cannot_be_asked_for_data_matrix() -> None:
    with pytest.raises(ValueError, match="pyzbar decoder cannot read datamatrix"):
        CameraReader("x.avi", decoder="pyzbar", symbologies=("datamatrix",))


def test_a_replay_of_a_file_is_deterministic(
        videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    path, video = videos(("AS", "KD", "QH"), frames_per_card=3, gap_frames=2)
    first = run_to_end(path, roi=video.region, start_ts=START)
    assert run_to_end(path, roi=video.region, start_ts=START) == first
    assert codes_of(first) == ["AS", "KD", "QH"]


def test_a_payload_seen_in_fewer_frames_than_agree_frames_is_never_posted(
        videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    path, video = videos(("AS", "XX", "KD"), frames_per_card=1, gap_frames=3)
    raw: list[str] = []
    events = run_to_end(path, roi=video.region, on_raw=lambda p, c, t: raw.append(p))
    assert raw == ["AS", "XX", "KD"]  # each was decoded, in one frame
    assert events == []
    once = run_to_end(path, roi=video.region, agree_frames=1, start_ts=START)
    assert codes_of(once) == ["AS", "?unknown:XX", "KD"]


def test_an_unknown_payload_is_posted_once_when_agreed_not_per_frame(
        videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    path, video = videos(("AS", "XX", "KD"), frames_per_card=6, gap_frames=3)
    events = run_to_end(path, roi=video.region, start_ts=START)
    assert codes_of(events) == ["AS", "?unknown:XX", "KD"]


def test_the_same_card_twice_is_read_twice_once_it_left_the_region(
        videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    path, video = videos(("AS", "AS", "AS"), frames_per_card=3, gap_frames=3)
    assert codes_of(run_to_end(path, roi=video.region, release_frames=3)) == ["AS"] * 3
    # Away for fewer frames than release_frames: still the same pass.
    assert codes_of(run_to_end(path, roi=video.region, release_frames=4)) == ["AS"]


def test_on_raw_hears_every_decoded_payload_with_its_confidence(
        videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    path, video = videos(("AS", "KD", "QH"), frames_per_card=3, gap_frames=2)
    for decoder in ("zxing", "pyzbar"):
        raw: list[tuple[str, float, float]] = []
        run_to_end(path, decoder=decoder, roi=video.region, start_ts=START,
                   on_raw=lambda p, c, t: raw.append((p, c, t)))  # noqa: B023
        assert [p for p, _, _ in raw] == ["AS"] * 3 + ["KD"] * 3 + ["QH"] * 3
        assert all(c > 0 and t > START for _, c, t in raw)


def test_grayscale_comes_before_the_decoder_whatever_the_colour(tmp_path: Path) -> None:
    # A red-on-green card: pyzbar given the BGR frame would read one channel and miss it.
    card = card_image("QH", "code128", 3)
    frame = np.zeros((card.shape[0] + 20, card.shape[1] + 20, 3), np.uint8)
    patch = frame[10:-10, 10:-10]
    patch[card < 128] = (0, 0, 200)  # dark bars: red
    patch[card >= 128] = (0, 200, 0)  # light: green
    assert make_decoder("pyzbar").decode(np.ascontiguousarray(frame[:, :, 2])) == []
    for name in ("zxing", "pyzbar"):
        result = FramePipeline(make_decoder(name), agree_frames=1).process(frame)
        assert [r.payload for r in result.reads] == ["QH"], name
    assert cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).ndim == 2


def lost_then_restored(events: list[InputEvent]) -> list[str]:
    return [type(e).__name__ for e in events if isinstance(e, DeviceLost | DeviceRestored)]


@pytest.mark.parametrize("fault, reason", [("frozen", "image frozen"), ("black", "image black")])
def test_a_frozen_or_black_image_is_lost_then_restored_and_no_card_is_lost(
        fault: str, reason: str, videos: Callable[..., tuple[Path, ShoeVideo]],
        caplog: pytest.LogCaptureFixture) -> None:
    # 2.5 s at 30 fps: longer than the 2 s threshold.
    path, video = videos(("AS", "KD", "QH", "2C"), frames_per_card=3, gap_frames=2,
                         **{fault: (2, 75)})
    with caplog.at_level(logging.WARNING, logger="drivers.camera.reader"):
        events = run_to_end(path, roi=video.region, start_ts=START)
    # One warning for the fault, not one per frozen frame.
    assert [r.message for r in caplog.records if reason in r.message] == [
        f"camera: {next(e for e in events if isinstance(e, DeviceLost)).reason}"]
    assert lost_then_restored(events) == ["DeviceLost", "DeviceRestored"]
    lost = next(e for e in events if isinstance(e, DeviceLost))
    assert lost.reason.startswith(reason) and lost.source == "camera"
    # Reported after 2 s of it, and the cards around it each read once, in order.
    assert codes_of(events) == ["AS", "KD", "QH", "2C"]
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("DeviceLost") == 2 and kinds.index("DeviceRestored") == 3


def test_a_short_freeze_or_darkness_is_not_a_fault(
        videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    path, video = videos(("AS", "KD"), frames_per_card=3, gap_frames=2, frozen=(1, 45),
                         black=(1, 45))
    events = run_to_end(path, roi=video.region, start_ts=START)
    assert codes_of(events) == ["AS", "KD"] and lost_then_restored(events) == []


def test_a_missing_or_unreadable_file_is_a_lost_camera_and_the_end(tmp_path: Path) -> None:
    junk = tmp_path / "junk.avi"
    junk.write_bytes(os.urandom(4096))
    for path, why in ((tmp_path / "gone.avi", "no video file"), (junk, "not a video")):
        events = run_to_end(path, start_ts=START)
        assert len(events) == 1 and isinstance(events[0], DeviceLost), events
        assert why in events[0].reason


def test_a_damaged_file_is_reported_where_it_ends(
        tmp_path: Path, videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    path, video = videos(("AS", "KD", "QH", "2C"), frames_per_card=3, gap_frames=2)
    cut = tmp_path / "cut.avi"
    data = path.read_bytes()
    cut.write_bytes(data[:len(data) * 6 // 10])
    events = run_to_end(cut, roi=video.region, start_ts=START)
    assert codes_of(events)[:2] == ["AS", "KD"]
    assert isinstance(events[-1], DeviceLost) and "video ended at frame" in events[-1].reason


def test_a_region_of_interest_outside_the_frame_is_a_fault_not_silence(
        videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    path, _ = videos(("AS", "KD"), frames_per_card=3, gap_frames=2)
    events = run_to_end(path, roi=(600, 400, 100, 100), start_ts=START)
    assert len(events) == 1 and isinstance(events[0], DeviceLost)
    assert "does not fit the 640x480 frame" in events[0].reason


def test_a_camera_that_appears_is_restored_and_reads(
        tmp_path: Path, videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    """A live source that is not there (an unplugged camera) is lost once while the reader
    retries with backoff; when it appears, frames flow and it is restored."""
    path, video = videos(("AS", "KD"), frames_per_card=3, gap_frames=2)
    device = tmp_path / "camera.avi"
    reader = CameraReader(str(device), live=True, roi=video.region,
                          backoff=Backoff(0.01, 0.05))
    got = Collected()
    reader.start(got.post, got.end)
    try:
        got.wait_for(lambda ev: len(ev) >= 1)
        assert not reader.connected.is_set()
        tmp = tmp_path / "camera.tmp.avi"
        tmp.write_bytes(path.read_bytes())
        tmp.replace(device)
        got.wait_for(lambda ev: codes_of(ev)[:2] == ["AS", "KD"])
        events = got.snapshot()
        assert isinstance(events[0], DeviceLost) and "no video file" in events[0].reason
        assert isinstance(events[1], DeviceRestored)
    finally:
        reader.stop()
    assert not got.ended.is_set()  # a live camera is never "finished"


def test_an_absent_device_path_is_lost_once_however_often_it_is_retried(
        tmp_path: Path) -> None:
    reader = CameraReader(str(tmp_path / "dev" / "video9"), live=True,
                          backoff=Backoff(0.005, 0.01))
    assert CameraReader("/dev/video-none").source.live  # a /dev path is live by itself
    got = Collected()
    reader.start(got.post, got.end)
    try:
        got.wait_for(lambda ev: len(ev) >= 1)
        time.sleep(0.2)  # many retries
    finally:
        reader.stop()
    assert len(got.events) == 1 and isinstance(got.events[0], DeviceLost)


def test_frames_dropped_on_a_live_camera_are_a_fault_until_the_next_frame(
        videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    path, video = videos(("AS", "KD"), frames_per_card=3, gap_frames=2)
    ticks = itertools.count()

    def clock() -> float:  # 30 fps, with a 1.5 s stall before the 8th frame
        n = next(ticks)
        return START + n / 30 + (1.5 if n >= 8 else 0.0)

    reader = CameraReader(str(path), live=True, roi=video.region, clock=clock)
    got = Collected()
    reader.start(got.post, got.end)
    try:
        got.wait_for(lambda ev: len(ev) >= 4)
    finally:
        reader.stop()
    first = got.events[:4]
    assert isinstance(first[1], DeviceLost) and "frames dropped" in first[1].reason
    assert isinstance(first[2], DeviceRestored)
    assert codes_of(first) == ["AS", "KD"]


def test_a_recording_replays_to_the_same_reads(
        tmp_path: Path, videos: Callable[..., tuple[Path, ShoeVideo]]) -> None:
    path, video = videos(("AS", "KD", "QH", "2C"), frames_per_card=3, gap_frames=2,
                         degrade="realistic", seed=5)
    rec = tmp_path / "recorded.avi"
    live = run_to_end(path, roi=video.region, record_to=rec, start_ts=START)
    assert codes_of(live) == ["AS", "KD", "QH", "2C"]
    assert run_to_end(rec, roi=video.region, start_ts=START) == live
    with pytest.raises(ValueError, match="never overwrites"):
        CameraReader(str(path), record_to=rec)


@pytest.mark.parametrize("kwargs, message", [
    ({"decoder": "zbar"}, "unknown decoder 'zbar'"),
    ({"symbologies": ("ean13",)}, "unknown symbology 'ean13'"),
    ({"symbologies": ()}, "at least one symbology"),
    ({"roi": (0, 0, 0, 10)}, "width and height 1 or more"),
    ({"roi": (0, 0, 10)}, "four whole numbers"),
    ({"agree_frames": 0}, "at least 1"),
    ({"frozen_s": 0.0}, "frozen_s must be a positive"),
    ({"black_level": 300.0}, "black_level must be 0-255"),
    ({"record_to": Path("rec.mp4")}, "must end in .avi or .mkv"),
])
def test_bad_settings_are_refused_at_construction(kwargs: dict[str, object],
                                                  message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CameraReader("shoe.avi", **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("source, message", [("", "empty"), (-1, "0 or more"), ("  ", "empty")])
def test_bad_sources_are_refused(source: str | int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CameraReader(source)


def test_a_recording_that_cannot_be_written_is_logged_and_the_reader_reads_on(
        tmp_path: Path, videos: Callable[..., tuple[Path, ShoeVideo]],
        caplog: pytest.LogCaptureFixture) -> None:
    # docs/hardware.md, raw traffic: losing the recording must never stop the table's reader.
    path, video = videos(tuple(shoe_codes(SHORT_SHOE)), frames_per_card=3, gap_frames=5,
                         lead_frames=2)
    nowhere = tmp_path / "missing-folder" / "frames.avi"
    with caplog.at_level("WARNING"):
        events = run_to_end(path, roi=video.region, codes=CUT_FORMAT, start_ts=START,
                            record_to=nowhere)
    assert codes_of(events) == SHORT_SHOE
    assert not nowhere.exists()
    said = [r for r in caplog.records if str(nowhere) in r.getMessage()]
    assert len(said) == 1, [r.getMessage() for r in caplog.records]
