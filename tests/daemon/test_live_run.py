"""``station run`` with live devices: a serial scanner over a pty and a camera reading a video
file, driven through the web display's API, with ``recording.raw`` keeping what they sent."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import yaml

from drivers.sim_camera import ShoeVideo, write_video
from drivers.sim_serial import PtyScanner
from station.journal.rawtraffic import read_raw
from tests import webkit


def recordings(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "rec").glob("*.jsonl"))


def raw_config(tmp_path: Path, reader: dict[str, Any]) -> Path:
    cfg = webkit.base_config(tmp_path)
    cfg["reader"] = {**reader, "dedupe_ms": 1}
    cfg["recording"] = {"dir": str(tmp_path / "rec"), "raw": True}
    path = tmp_path / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_a_serial_table_keeps_the_scanners_bytes_exactly_as_they_came(tmp_path: Path) -> None:
    with PtyScanner(tmp_path / "scanner") as pty:
        config = raw_config(tmp_path, {"type": "serial", "port": pty.path, "framing": "cr"})
        with webkit.running(config) as proc:
            base = webkit.url_of(config)
            assert webkit.command(base, "new-shoe")[0] == 200
            webkit.wait_reading(proc, pty.path)  # pyserial empties the input at the open
            sent = b"5S\rKD\rQ"  # the last code is cut in two by the line
            pty.write(sent)
            pty.write(b"D\r\xff\r")
            webkit.wait_state(base, lambda s: s["paused"], what="the bad frame's pause")
    [rec] = [p for p in recordings(tmp_path) if not p.name.endswith(".raw.jsonl")]
    # Raw traffic is this start's own, named by the journal's recording and the start.
    [raw] = rec.parent.glob(f"{rec.stem}.*.scanner.raw.jsonl")
    chunks = list(read_raw(raw))
    assert b"".join(c for _, _, c in chunks) == sent + b"D\r\xff\r"
    assert all(src == "scanner" and t > 1e9 for t, src, _ in chunks)
    events = [json.loads(x) for x in rec.read_text().splitlines()[1:]]
    assert [e.get("code") for e in events if e["e"] == "card"] == ["5S", "KD", "QD",
                                                                   "?not_utf8:\\xff"]


def test_a_camera_table_keeps_its_frames_and_they_replay_to_the_same_cards(
        tmp_path: Path) -> None:
    codes = ["AS", "KD", "QH", "2C", "9S", "TD"]
    video = ShoeVideo(codes, frames_per_card=3, gap_frames=5, lead_frames=2)
    source = tmp_path / "table.avi"
    write_video(source, video)
    config = raw_config(tmp_path, {"type": "camera", "source": str(source),
                                   "roi": list(video.region)})
    # Not webkit.start: a loaded machine can play the short video to its end before the page
    # first answers, and the station then stops by itself (CI saw it), which is this test's
    # ending too.
    proc = webkit.launch(config)
    try:
        base = webkit.url_of(config)
        # The dealer's buttons come from the page, if it is up in time; the camera reads the
        # video meanwhile (cards before NEW SHOE pause the table: the run's result is what the
        # recording says, and the frames kept must read to the same cards either way).
        deadline = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                webkit.command(base, "new-shoe")
                break
            except OSError:
                time.sleep(0.05)
        proc.wait(60)  # the video ends: the only source has nothing more to give
    finally:
        log = webkit.stop(proc, config)
    assert proc.returncode == 0, log[-2000:]
    [rec] = [p for p in recordings(tmp_path)]
    [frames] = rec.parent.glob(f"{rec.stem}.*.camera.avi")
    assert frames.stat().st_size > 10_000
    events = [json.loads(x) for x in rec.read_text().splitlines()[1:]]
    live = [e["code"] for e in events if e["e"] == "card"]
    again = monitor_cards(frames, config, tmp_path)
    assert live and again == live  # the kept frames read to the same cards


def monitor_cards(video: Path, config: Path, tmp_path: Path) -> list[str]:
    """The cards ``station monitor`` reads from ``video`` with the table's reader settings."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    cfg = yaml.safe_load(config.read_text())
    cfg["reader"]["source"] = str(video)
    mon = tmp_path / "monitor.yaml"
    mon.write_text(yaml.safe_dump(cfg))
    done = subprocess.run([sys.executable, "-m", "station.cli", "monitor", "-c", str(mon)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return [json.loads(x)["code"] for x in done.stdout.splitlines()
            if json.loads(x)["e"] == "card"]


def test_a_hid_pos_table_reads_its_reports_and_keeps_them(tmp_path: Path) -> None:
    """``reader.type: hid`` in HID-POS mode, a FIFO where the hidraw node would be (issue 36):
    the daemon reads the reports, records each card with its symbology, and ``recording.raw``
    keeps the reports as they came."""
    import errno  # noqa: PLC0415
    import os  # noqa: PLC0415

    from tests.drivers.test_hidpos import report  # noqa: PLC0415

    node = tmp_path / "hidraw4"
    os.mkfifo(node)
    config = raw_config(tmp_path, {"type": "hid", "mode": "pos", "device": str(node)})
    sent = [report(b"5S", b"]C0"), report(b"KD", b"]E0"), report(b"QD", b""), report(b"XX")]
    with webkit.running(config) as proc:
        base = webkit.url_of(config)
        assert webkit.command(base, "new-shoe")[0] == 200
        deadline = time.monotonic() + 20
        while True:  # a FIFO opens for writing once the station has it open for reading
            try:
                w = os.open(node, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as exc:
                if exc.errno != errno.ENXIO or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        try:
            for r in sent:
                os.write(w, r)
                time.sleep(0.05)  # one report a read, as hidraw gives them
            webkit.wait_state(base, lambda s: s["paused"], what="the unknown code's pause")
        finally:
            os.close(w)
        assert proc.poll() is None
    [rec] = [p for p in recordings(tmp_path) if not p.name.endswith(".raw.jsonl")]
    [raw] = rec.parent.glob(f"{rec.stem}.*.scanner.raw.jsonl")
    assert b"".join(c for _, _, c in read_raw(raw)) == b"".join(sent)
    events = [json.loads(x) for x in rec.read_text().splitlines()[1:]]
    cards = [(e["code"], e.get("symbology")) for e in events if e["e"] == "card"]
    assert cards == [("5S", "]C0"), ("KD", "]E0"), ("QD", None), ("?unknown:XX", None)]
