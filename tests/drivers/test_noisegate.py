"""The serial driver's noise gate (issue 18): bad frames one by one up to a rate, then one
summary code a window, so line noise costs the journal events by time, not by line speed."""

from __future__ import annotations

import itertools
import random
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.codes import CodeFormat
from drivers.events import CardRead, DeviceLost
from drivers.framing import FrameParser
from drivers.noisegate import PASS_PER_WINDOW, WINDOW_S, NoiseGate, summary_code
from drivers.sim_serial import PtyScanner
from station.game.cards import try_parse_card
from tests.drivers.test_serial_driver import Heard, start
from tests.sampling import examples
from tests.tablekit import Table

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
    for i in range(PASS_PER_WINDOW + 1):  # spread: frames a second apart would be quiet
        g.admit(i * 0.001, 1)
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


def test_the_first_bad_frame_after_a_quiet_second_passes_at_once() -> None:
    """Issue 30: the flag of a burst long over held the next lone frame for a summary."""
    g = NoiseGate()
    for i in range(PASS_PER_WINDOW + 5):
        g.admit(i * 0.01, 1)
    assert g.close_due(WINDOW_S) == summary_code(5, 5) and g.flooding
    assert g.close_due(WINDOW_S + 0.2) is None and g.flooding  # the flood's last frame: 0.29
    assert g.admit(60.0, 1)  # a lone misread a minute later: posted as it is
    assert g.due_in(60.0) == WINDOW_S and g.close_due(60.0 + WINDOW_S) is None


def test_a_quiet_second_ends_the_flood_without_a_frame() -> None:
    g = NoiseGate()
    for i in range(PASS_PER_WINDOW + 1):
        g.admit(i * 0.001, 1)
    assert g.close_due(WINDOW_S) == summary_code(1, 1) and g.flooding
    assert g.due_in(WINDOW_S) is None  # no window open: the reader may sleep its timeout
    g.close_due(0.03 + WINDOW_S)  # a second after the last bad frame (0.025)
    assert not g.flooding


def test_a_frame_within_a_second_of_the_flood_is_still_held() -> None:
    g = NoiseGate()
    for i in range(PASS_PER_WINDOW + 1):
        g.admit(i * 0.001, 1)
    assert g.close_due(WINDOW_S) is not None
    assert not g.admit(WINDOW_S + 0.01, 1)  # 0.985 s after the flood's last frame: held
    assert g.due_in(WINDOW_S + 0.01) == pytest.approx(WINDOW_S)
    assert g.close_due(2 * WINDOW_S + 0.02) == summary_code(1, 1) and not g.flooding


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


@settings(max_examples=examples(300), deadline=None, database=None)
@given(bursts=st.lists(st.tuples(st.integers(1, 80), st.floats(0.0, 0.04), st.floats(0.0, 3.0)),
                      max_size=12),
       wakes=st.lists(st.floats(0.01, 0.3), min_size=1, max_size=20))
def test_every_bad_frame_is_passed_or_summed_up_on_time(
        bursts: list[tuple[int, float, float]], wakes: list[float]) -> None:
    """Random frame timings, with the reader waking on its own (read timeouts) between them:
    every frame is posted or counted in a summary, never lost; each summary comes by the
    first wake-up once its window is over; a frame after a quiet window passes at once;
    no window passes more than its share one by one."""
    # Bursts of frames close together, each after a pause: floods, lone frames, and both.
    gaps = [gap for n, within, pause in bursts for gap in [pause] + [within] * (n - 1)]
    g = NoiseGate()
    t, passed, summed, last = 1000.0, 0, 0, None
    passed_at: list[float] = []
    wake = itertools.cycle(wakes)
    for gap in gaps:
        frame_at = t + gap
        # The reader's thread wakes at its timeouts, never past the window's due time.
        while True:
            due = g.due_in(t)
            # At least a millisecond, as the driver's floor: a window due in 1e-13 s is due.
            step = next(wake) if due is None else max(0.001, min(next(wake), due))
            if t + step >= frame_at:
                break
            t += step
            code = g.close_due(t)
            if code is not None:
                m = SUMMARY.fullmatch(code)
                assert m is not None
                summed += int(m[1])
            left = g.due_in(t)
            assert left is None or left > 0  # an overdue window is closed
        t = frame_at
        code = g.close_due(t)
        if code is not None:
            summed += int(SUMMARY.fullmatch(code)[1])  # type: ignore[index]
        quiet = last is None or t - last >= WINDOW_S
        ok = g.admit(t, 1)
        assert ok or not quiet, "the first bad frame after a quiet second is held"
        passed += ok
        if ok:
            passed_at.append(t)
        last = t
    code = g.close()
    if code is not None:
        summed += int(SUMMARY.fullmatch(code)[1])  # type: ignore[index]
    assert passed + summed == len(gaps)
    # Windows do not overlap, so any second spans at most two windows' shares.
    share = 2 * PASS_PER_WINDOW
    assert all(b - a >= WINDOW_S for a, b in zip(passed_at, passed_at[share:], strict=False))


def test_a_lone_misread_after_a_burst_pauses_the_round_before_the_next_card(
        tmp_path: Path) -> None:
    """Issue 30, over a real pty into the station: a burst of bad frames (a flood, resumed by
    the supervisor), then the dealer deals a card the scanner cannot read and the next one.
    The misread must pause the round with the card due, and the next card is its re-scan.
    The driver's clock is the test's, so the minutes between are no wait."""
    now = [1_800_000_000.0]
    heard = Heard()
    table = Table()
    table.now = now[0]
    table.new_shoe()
    table.round("5S", "6S", "7S", "8S")  # naturals aside: the second round is the test's
    table.cmd("open_betting")
    table.cmd("close_betting")
    now[0] = table.now
    with PtyScanner(tmp_path / "scanner") as sim:
        driver = start(sim.path, heard, codes=CodeFormat(), read_timeout_s=30.0,
                       clock=lambda: now[0])
        try:
            sim.write(b"XX\r" * (PASS_PER_WINDOW + 10))
            burst = heard.take(PASS_PER_WINDOW)
            now[0] += 2 * WINDOW_S  # the window is over: its summary comes without a frame
            summary = heard.next(timeout=10)[1]  # before the 30 s read timeout
            assert isinstance(summary, CardRead) and summary.code == summary_code(10, 20)
            for ev in [*burst, summary]:
                table.send(ev)
            assert table.station.dealing.state == "paused"
            now[0] += 60.0  # the flood is long over; the supervisor resumes
            table.now = now[0]
            table.cmd("resume", "supervisor:ann")
            assert table.station.dealing.state != "paused"
            now[0] = table.now
            sim.write(b"YY\r9S\r")
            misread, card = heard.take(2)
        finally:
            driver.stop()
    assert isinstance(misread, CardRead) and misread.code == "?unknown:YY"
    table.send(misread)
    assert table.station.dealing.state == "paused"
    assert "unreadable code '?unknown:YY'" in " ".join(table.station.dealing.pause_reasons)
    table.send(card)  # the dealer's re-scan of it while paused, not the round's next card
    assert isinstance(card, CardRead) and card.code == "9S"
    assert table.station.dealing.state == "paused"
    assert "re-scanned as 9S" in " ".join(table.station.dealing.pause_actions)
