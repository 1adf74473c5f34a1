"""The camera through the command line: ``station monitor`` on a video file, and
``station replay --video`` dealing a recorded shoe through the real camera driver."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from drivers.sim_camera import ShoeVideo, write_video
from drivers.simulated import CUT, SimulatedDealer
from station.settings.shoefile import read_shoe_file
from station.table.outputs import Published
from station.table.simulation import DUE
from station.table.station import Station
from station.table.tablerules import TableRules
from tests.conftest import REPO

SHORT = read_shoe_file(REPO / "tests" / "shoes" / "short.txt")
CUT_CODE = "CUT"


@pytest.fixture(scope="module")
def shoe_video(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, ShoeVideo]:
    """The short shoe as a video, and a config whose camera reads it."""
    root = tmp_path_factory.mktemp("camera-cli")
    video = ShoeVideo([CUT_CODE if t == CUT else t for t in SHORT], frames_per_card=3,
                      gap_frames=5, lead_frames=2)
    path = root / "short.avi"
    write_video(path, video)
    cfg = root / "station.yaml"
    cfg.write_text(yaml.safe_dump({
        "table": {"id": "cam-1"},
        "reader": {"type": "camera", "source": str(path), "roi": list(video.region),
                   "cut_code": CUT_CODE},
        "cut_card": {"type": "reader_code"}}))
    return path, cfg, video


def station(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", *args], check=False,
                          capture_output=True,
                          text=True, timeout=timeout)


def direct_rounds() -> list[dict[str, Any]]:
    """The short shoe dealt straight into a station by the simulated dealer."""
    st = Station(TableRules(table="cam-1"))
    dealer = SimulatedDealer(iter([list(SHORT)]))
    rounds: list[dict[str, Any]] = []
    while steps := dealer.steps(DUE[st.phase]):
        for _, event in steps:
            rounds += [o.record for o in st.apply(event) if isinstance(o, Published)]
    return rounds


def test_monitor_prints_each_card_the_camera_reads_and_ends_with_the_file(
        shoe_video: tuple[Path, Path, ShoeVideo]) -> None:
    _, cfg, _ = shoe_video
    done = station("monitor", "-c", str(cfg))
    assert done.returncode == 0, done.stderr
    assert "camera " in done.stderr and "zxing" in done.stderr
    lines = [json.loads(x) for x in done.stdout.splitlines()]
    assert [x.get("code", "CUT") for x in lines] == list(SHORT)
    assert all(x["src"] == "camera" and x["e"] in ("card", "cut") for x in lines)


def test_monitor_raw_shows_each_decoded_payload_with_its_confidence(
        shoe_video: tuple[Path, Path, ShoeVideo]) -> None:
    _, cfg, _ = shoe_video
    done = station("monitor", "--raw", "-c", str(cfg))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(x) for x in done.stdout.splitlines()]
    raw = [x for x in lines if x["e"] == "raw"]
    # Every card is decoded in each of its frames before it counts: three raw lines a card.
    assert len(raw) >= 2 * len(SHORT)
    assert {x["payload"] for x in raw} == {CUT_CODE if t == CUT else t for t in SHORT}
    assert all(0.0 <= x["confidence"] <= 1.0 for x in raw)
    cards = [x.get("code", "CUT") for x in lines if x["e"] != "raw"]
    assert cards == list(SHORT)


def test_replay_video_deals_the_shoe_as_the_table_would(
        shoe_video: tuple[Path, Path, ShoeVideo], tmp_path: Path) -> None:
    path, cfg, _ = shoe_video
    out = tmp_path / "rounds.jsonl"
    done = station("replay", "--video", str(path), "-c", str(cfg), "--out", str(out))
    assert done.returncode == 0, done.stderr
    rounds = [json.loads(x) for x in out.read_text().splitlines()]
    expected = direct_rounds()
    assert len(rounds) == len(expected) > 0
    # The same cards, hands and results; the times are the video's own.
    keys = ("round", "player", "banker", "winner", "player_total", "banker_total", "status")
    assert [{k: r[k] for k in keys} for r in rounds] == [{k: r[k] for k in keys}
                                                         for r in expected]
    assert f"replayed {path}" in done.stderr and "rounds complete" in done.stderr


def test_replay_video_twice_gives_the_same_bytes(
        shoe_video: tuple[Path, Path, ShoeVideo], tmp_path: Path) -> None:
    path, cfg, _ = shoe_video
    outs = []
    for n in (1, 2):
        out = tmp_path / f"r{n}.jsonl"
        assert station("replay", "--video", str(path), "-c", str(cfg), "--out",
                       str(out)).returncode == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


@pytest.mark.parametrize(("args", "message"), [
    (["replay"], "name a recording (or journal) to replay, or --video FILE"),
    (["replay", "x.jsonl", "--video", "v.avi"], "not both"),
    (["replay", "x.jsonl", "-c", "station.yaml"], "-c takes the reader settings for --video"),
    (["replay", "--video", "missing.avi"], "missing.avi: no such video file"),
])
def test_replay_video_usage_errors_name_the_fix(args: list[str], message: str,
                                                tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "station.cli", *args], check=False,
                          capture_output=True,
                          text=True, timeout=30, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_replay_of_a_file_that_is_no_video_is_a_clear_error(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.avi"
    bogus.write_text("this is not a video\n")
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    done = station("replay", "--video", str(bogus), "--out", str(out))
    assert done.returncode == 2, done.stderr
    assert f"{bogus}: " in done.stderr and "name a video file of a shoe" in done.stderr
    assert "Traceback" not in done.stderr
    assert out.read_text() == "previous\n"  # a replay that fails keeps the previous output


def test_check_config_opens_the_camera_and_reads_a_frame(
        shoe_video: tuple[Path, Path, ShoeVideo], tmp_path: Path) -> None:
    """The camera is opened through its kind's probe, as the reader would open it (it used
    to be reported as "simulated (no device)" without being opened)."""
    path, cfg, video = shoe_video
    done = station("check-config", "-c", str(cfg))
    assert done.returncode == 0, done.stdout + done.stderr
    width, height = video.size
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("ok   reader.source:"))
    assert line.startswith(f"ok   reader.source: {path}: {width}x{height} frames at "), line
    assert line.endswith("fps, zxing ready"), line
    assert "simulated" not in done.stdout
    gone = tmp_path / "station.yaml"
    data = yaml.safe_load(cfg.read_text())
    data["reader"]["source"] = str(tmp_path / "gone.avi")
    gone.write_text(yaml.safe_dump(data))
    done = station("check-config", "-c", str(gone))
    assert done.returncode == 1, done.stdout + done.stderr
    assert (f"FAIL reader.source: {tmp_path / 'gone.avi'} cannot be read (no video file "
            f"{tmp_path / 'gone.avi'}); check") in done.stdout
    not_video = tmp_path / "notes.avi"
    not_video.write_text("not a video\n")
    data["reader"]["source"] = str(not_video)
    gone.write_text(yaml.safe_dump(data))
    done = station("check-config", "-c", str(gone))
    assert done.returncode == 1 and f"FAIL reader.source: {not_video} cannot be read" \
        in done.stdout, done.stdout
