"""The serial driver's noise gate (issue 18): bad frames one by one up to a rate, then one
summary code a window, so line noise costs the journal events by time, not by line speed."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

from drivers.codes import CodeFormat
from drivers.events import CardRead, DeviceLost
from drivers.framing import FrameParser
from drivers.noisegate import PASS_PER_WINDOW, WINDOW_S, NoiseGate, summary_code
from drivers.sim_serial import PtyScanner
from station.game.cards import try_parse_card
from tests.drivers.test_serial_driver import Heard, start

SUMMARY = re.compile(r"\?noise:(\d+) bad frames \((\d+) bytes\)")


def test_a_window_passes_its_frames_then_counts_the_rest() -> None:
    g = NoiseGate()
    admitted = [g.admit(100.0 + i * 0.001, 10) for i in range(PASS_PER_WINDOW + 7)]
    assert admitted == [True] * PASS_PER_WINDOW + [False] * 7
    assert g.close_due(100.0 + WINDOW_S / 2) is None  # the window is still open
    assert g.close_due(100.0 + WINDOW_S) == summary_code(7, 70) == "?noise:7 bad frames (70 bytes)"
    assert g.flooding


def test_a_flood_is_one_summary_a_window_until_a_window_does_not_overflow() -> None:
    g = NoiseGate()
    t = 0.0
    for _ in range(PASS_PER_WINDOW + 1):
        g.admit(t, 1)
    for second in range(1, 4):  # flooding: nothing passes, one summary closes each window
        assert g.close_due(float(second)) is not None
        assert not any(g.admit(second + i * 0.001, 1) for i in range(500))
    assert g.close_due(4.0) == summary_code(500, 500)
    assert not g.admit(4.0, 1)  # still flooding: this window is held whole
    assert g.close_due(5.0) == summary_code(1, 1) and not g.flooding  # it did not overflow
    assert g.admit(5.5, 1)  # one by one again


def test_a_quiet_reader_posts_every_bad_frame() -> None:
    g = NoiseGate()
    for i in range(100):
        assert g.close_due(i * 2.0) is None
        assert g.admit(i * 2.0, 5)


def test_a_clock_stepped_back_closes_the_window() -> None:
    g = NoiseGate()
    for _ in range(PASS_PER_WINDOW + 3):
        g.admit(1000.0, 1)
    assert g.close_due(1000.0 - 2 * WINDOW_S) == summary_code(3, 3)


def test_line_noise_over_a_pty_is_gated_and_every_frame_is_counted(tmp_path: Path) -> None:
    noise = random.Random(18).randbytes(256 * 1024)
    parsed = FrameParser("cr").feed(noise)
    heard = Heard()
    with PtyScanner(tmp_path / "scanner") as sim:
        driver = start(sim.path, heard, codes=CodeFormat())
        try:
            sim.write(noise)
            posted: list[CardRead] = []
            frames = 0
            deadline = time.monotonic() + 60
            while frames < len(parsed):
                assert time.monotonic() < deadline, f"{frames} of {len(parsed)} frames"
                _, ev = heard.next(timeout=30)
                assert isinstance(ev, CardRead)
                posted.append(ev)
                m = SUMMARY.fullmatch(ev.code)
                frames += int(m[1]) if m else 1
        finally:
            driver.stop()
    assert frames == len(parsed)
    summaries = [e for e in posted if SUMMARY.fullmatch(e.code)]
    assert summaries and len(posted) - len(summaries) <= PASS_PER_WINDOW * len(summaries)
    assert len(posted) < len(parsed) / 10
    assert all(try_parse_card(e.code) is None for e in summaries)


def test_frames_held_when_the_port_is_lost_are_posted_before_the_loss(tmp_path: Path) -> None:
    heard = Heard()
    with PtyScanner(tmp_path / "scanner") as sim:
        driver = start(sim.path, heard, codes=CodeFormat())
        try:
            sim.write(b"XX\r" * (PASS_PER_WINDOW + 15))
            got = heard.take(PASS_PER_WINDOW)
            assert all(isinstance(e, CardRead) and e.code == "?unknown:XX" for e in got)
            sim.unplug()
            summary, lost = heard.take(2)
        finally:
            driver.stop()
    assert isinstance(summary, CardRead) and summary.code == summary_code(15, 30)
    assert isinstance(lost, DeviceLost)
