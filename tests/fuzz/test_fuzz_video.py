"""``station replay --video`` on damaged videos, through the fuzz harness's property: exit 0 or
2 with one clear line, never a traceback or a hang, and a refusal leaves ``--out`` untouched.

The driver itself is fuzzed far harder in tests/drivers/test_camera_fuzz.py (in process); this runs
a seeded sample through the real command line, as an operator would.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from drivers.sim_camera import ShoeVideo, write_video
from tests.drivers.test_camera_fuzz import mutate
from tests.fuzz import harness

SEEDS = range(8)
VIDEO_MEMORY = 2 << 30
VIDEO_TIME_S = 5.0  # a 70-frame video decodes in well under a second here


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, Path]:
    root = tmp_path_factory.mktemp("video-fuzz")
    video = ShoeVideo(["AS", "KD", "QH", "2C", "9S", "TD"], frames_per_card=3, gap_frames=5,
                      lead_frames=1)
    path = root / "good.avi"
    write_video(path, video)
    cfg = root / "station.yaml"
    cfg.write_text(yaml.safe_dump({"reader": {"type": "camera", "source": str(path),
                                              "roi": list(video.region)}}))
    return path.read_bytes(), cfg


def test_the_good_video_replays_under_the_same_bounds(good: tuple[bytes, Path],
                                                     tmp_path: Path) -> None:
    data, cfg = good
    subject = tmp_path / "good.avi"
    subject.write_bytes(data)
    out = tmp_path / "rounds.jsonl"
    case = harness.Case(["replay", "--video", str(subject), "-c", str(cfg), "--out", str(out)],
                        subject, [out])
    found, outcome = harness.check_outcome(case, subprocess_=True, memory=VIDEO_MEMORY,
                                           limit_s=VIDEO_TIME_S)
    assert not found and outcome.code == 0, (found, outcome.stderr)
    assert "replayed" in outcome.stderr and "1 rounds complete" in outcome.stderr


@pytest.mark.parametrize("seed", SEEDS)
def test_replay_video_of_a_damaged_file(seed: int, good: tuple[bytes, Path],
                                        tmp_path: Path) -> None:
    data, cfg = good
    subject = tmp_path / f"damaged-{seed}.avi"
    subject.write_bytes(mutate(data, random.Random(seed)))
    out = tmp_path / "rounds.jsonl"
    case = harness.Case(["replay", "--video", str(subject), "-c", str(cfg), "--out", str(out)],
                        subject, [out])
    # OpenCV and OpenBLAS map far more address space than the 256 MB the other inputs get;
    # the bound still catches a video that makes the station run away with memory.
    found, outcome = harness.check_outcome(case, subprocess_=True, memory=VIDEO_MEMORY,
                                           limit_s=VIDEO_TIME_S)
    assert not found, found
    # The video itself was read: the camera driver loaded, whatever the file held.
    assert "cannot be loaded" not in outcome.stderr, outcome.stderr
    assert "replayed" in outcome.stderr or str(subject) in outcome.stderr, outcome.stderr
