"""Shared fixtures. Leaked driver threads fail the test that leaked them."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.sampling import examples
from tests.upstream.broker import MOSQUITTO, Broker

# No test may depend on the machine's speed: hypothesis's per-example deadline (200 ms) fails
# a property on a loaded 2-core CI machine however right the code is (a test that passed
# alone failed so during a full run). Tests that set their own settings inherit this. CI
# runs a quarter of hypothesis's default examples, a long run all (tests/sampling.py).
settings.register_profile("station", deadline=None, max_examples=examples(100))
settings.load_profile("station")

REPO = Path(__file__).resolve().parent.parent
# The clock check is on by default (clock.check) and this machine's clock is not the suite's
# to synchronise: every station the tests start, in this process or as a subprocess, reads a
# synchronised clock, so none gains an alert (tests/service/test_clock.py injects others).
os.environ.setdefault("STATION_CLOCK_SOURCE", "synchronised")


def mixed_paytable(key: str = "any", pays: int = 1) -> str:
    """A paytable whose ``key`` bet (any_of) mixes a bet on the values (tie) with one on the
    cards (player pair): the exact analysis refuses it, settlement settles it every round."""
    return ("name: mixed\nbets:\n"
            "  - {key: tie, label: T, kind: tie, pays: {win: 8}, push: [], cutoff_round: null}\n"
            "  - {key: pp, label: P, kind: pair, side: player, pays: {win: 11}, push: [],"
            " cutoff_round: null}\n"
            f"  - {{key: {key}, label: A, kind: any_of, bets: [tie, pp], pays: {{win: {pays}}},"
            " push: [], cutoff_round: null}\n")


@pytest.fixture(autouse=True)
def no_leaked_driver_threads() -> Iterator[None]:
    before = {t.ident for t in threading.enumerate()}
    yield
    leaked = [
        t.name for t in threading.enumerate()
        if t.ident not in before and t.name.startswith("driver-") and t.is_alive()
    ]
    assert not leaked, f"driver threads left running (call stop()): {leaked}"


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A real Mosquitto on a free loopback port, for this test only."""
    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed: run scripts/setup --test (as root) or "
                    "apt-get install mosquitto")
    b = Broker(tmp_path / "broker")
    b.start()
    try:
        yield b
    finally:
        b.kill()


def pytest_addoption(parser: pytest.Parser) -> None:
    # Hardware-in-the-loop (docs/hardware.md): the contract suite runs against a real device
    # on a bench when one is named; every test marked `hardware` is skipped otherwise.
    parser.addoption("--scanner-url", default=None,
                     help="a real shoe scanner's port or pyserial URL")
    parser.addoption("--scanner-shoe", default=None,
                     help="a shoe file listing the test cards to scan, in order")
    parser.addoption("--cut-card-url", default=None,
                     help="a real cut-card sensor's USB-serial adapter (port or pyserial URL)")
    parser.addoption("--camera", default=None,
                     help="a real camera (index, device path or stream URL) over the shoe's "
                     "mouth; with --camera-roi X,Y,W,H and --scanner-shoe")
    parser.addoption("--camera-roi", default=None,
                     help="the region of interest of --camera, as X,Y,W,H in pixels")
    parser.addoption("--cut-card-pin", default="cts", choices=("cts", "dsr", "cd", "ri"),
                     help="the modem-status pin the cut-card contact is wired to")


# The browser of the page tests (tests/web/test_web_*.py): one Debian Chromium per test module, a
# fresh context per test (tests/webkit.py launches it).
@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from tests import webkit  # noqa: PLC0415 - only the page tests need Playwright

    with webkit.browser() as b:
        yield b


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        yield context.new_page()
    finally:
        context.close()
