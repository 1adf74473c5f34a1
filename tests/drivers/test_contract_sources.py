"""One contract for every card source: the same shoe gives the same cards in the same order,
and dealt through the station it publishes the same rounds.

The simulated source hands the dealer's events over directly; the serial source writes each
code as bytes into a pseudo-terminal read by the real driver and parser. With
``--scanner-url URL --scanner-shoe FILE`` the same check runs against a real scanner on a
bench (marked ``hardware``): scan the cards of FILE in order when the test says so. The USB
HID scanners likewise: the keyboard-wedge reader gets each code as the kernel's key event
records through a FIFO (tests/drivers/hidkit.py), the HID-POS reader as reports, and with
``--hid-device NODE [--hid-mode pos] [--hid-layout us] --scanner-shoe FILE`` a real one is read.
"""

from __future__ import annotations

import queue
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import serial

from drivers.base import EventSource
from drivers.codes import CodeFormat
from drivers.cut_card import CutCardSensor
from drivers.events import CardRead, CutCardSeen, InputEvent
from drivers.serial_scanner import SerialScanner
from drivers.sim_serial import PtyScanner
from drivers.simulated import CUT, SimulatedDealer, shuffled_shoe
from drivers.urlhandler.protocol_contact import CONTACTS, Contact
from station.settings.shoefile import read_shoe_file
from station.table.outputs import Published
from station.table.simulation import DUE
from station.table.station import Station
from station.table.tablerules import TableRules

CUT_CODE = "CUTCARD"
Transport = Callable[[InputEvent], InputEvent]


def deal(tokens: list[str], transport: Transport) -> tuple[list[str], list[dict[str, Any]]]:
    """Deal one shoe through a station; every card and cut card goes through ``transport``
    (the device under test). Returns the codes the station got and the rounds it published."""
    station = Station(TableRules(), prompts=False)
    dealer = SimulatedDealer(iter([tokens]))
    seen: list[str] = []
    rounds: list[dict[str, Any]] = []
    while steps := dealer.steps(DUE[station.phase]):
        for _, dealt in steps:
            event = dealt
            if isinstance(dealt, CardRead | CutCardSeen):
                event = transport(dealt)
                seen.append(event.code if isinstance(event, CardRead) else CUT)
            rounds += [o.record for o in station.apply(event) if isinstance(o, Published)]
    return seen, rounds


class Received:
    """What a driver posts, for the test's thread to take one at a time."""

    def __init__(self) -> None:
        self.events: queue.Queue[InputEvent] = queue.Queue()

    def __call__(self, source: EventSource, event: InputEvent) -> None:
        self.events.put(event)

    def next(self, timeout_s: float = 5.0) -> InputEvent:
        return self.events.get(timeout=timeout_s)


@pytest.fixture
def pty_scanner(tmp_path: Path) -> Iterator[tuple[PtyScanner, SerialScanner, Received]]:
    with PtyScanner(tmp_path / "scanner") as pty:
        driver = SerialScanner(pty.path, codes=CodeFormat(cut_codes=[CUT_CODE]))
        got = Received()
        driver.start(got)
        try:
            assert driver.connected.wait(5), "the driver never opened the pty"
            yield pty, driver, got
        finally:
            driver.stop()


def through_pty(pty: PtyScanner, got: Received, rng: random.Random) -> Transport:
    def transport(event: InputEvent) -> InputEvent:
        code = event.code if isinstance(event, CardRead) else CUT_CODE
        pty.send([code], rng=rng, max_chunk=3)
        read = got.next()
        # The device decides what was read; the dealer's virtual clock keeps the timing.
        return replace(read, ts=event.ts)
    return transport


@pytest.mark.parametrize("seed", [3, 4])
def test_a_shoe_through_the_serial_scanner_deals_as_the_simulated_one(
        seed: int, pty_scanner: tuple[PtyScanner, SerialScanner, Received]) -> None:
    pty, _, got = pty_scanner
    tokens = shuffled_shoe(random.Random(seed))
    direct_cards, direct_rounds = deal(tokens, lambda e: e)
    serial_cards, serial_rounds = deal(tokens, through_pty(pty, got, random.Random(seed)))
    assert serial_cards == direct_cards
    assert len(direct_rounds) > 60 and serial_rounds == direct_rounds
    assert got.events.empty()  # nothing invented on the way


@pytest.mark.hardware
def test_a_real_scanner_reads_the_test_shoe_in_order(request: pytest.FixtureRequest) -> None:
    url = request.config.getoption("--scanner-url")
    shoe = request.config.getoption("--scanner-shoe")
    if not url or not shoe:
        pytest.skip("needs --scanner-url URL and --scanner-shoe FILE (docs/hardware.md)")
    expected = [t for t in read_shoe_file(Path(shoe)) if t != CUT]
    driver = SerialScanner(url, codes=CodeFormat(cut_codes=[CUT_CODE]))
    got = Received()
    driver.start(got)
    try:
        assert driver.connected.wait(10), f"{url} did not open"
        print(f"\nscan the {len(expected)} cards of {shoe} in order now")
        read: list[str] = []
        while len(read) < len(expected):
            event = got.next(timeout_s=120)
            if isinstance(event, CardRead):
                read.append(event.code)
    finally:
        driver.stop()
    assert read == expected


# --- USB HID scanners -----------------------------------------------------------------------
@contextmanager
def through_hid(tmp_path: Path, mode: str) -> Iterator[Transport]:
    from drivers.hid_scanner import HidScanner  # noqa: PLC0415
    from drivers.hidpos import HidPosScanner  # noqa: PLC0415
    from drivers.layouts import load_layout  # noqa: PLC0415
    from tests.drivers.hidkit import Fifo, us_keys  # noqa: PLC0415
    from tests.drivers.test_hidpos import reports_of  # noqa: PLC0415

    fifo = Fifo(tmp_path / f"hid-{mode}")
    codes = CodeFormat(cut_codes=[CUT_CODE])
    driver: EventSource = (
        HidScanner(str(fifo.path), layout=load_layout("us"), codes=codes,
                   open_device=fifo.opener) if mode == "keyboard"
        else HidPosScanner(str(fifo.path), codes=codes))
    got = Received()
    driver.start(got)
    try:
        assert driver.connected.wait(5)  # type: ignore[attr-defined]
        fifo.connect()

        def transport(event: InputEvent) -> InputEvent:
            code = event.code if isinstance(event, CardRead) else CUT_CODE
            if mode == "keyboard":
                fifo.write(us_keys(code))
            else:
                for report in reports_of(code.encode()):
                    fifo.write_bytes(report)
            return replace(got.next(), ts=event.ts)

        yield transport
        assert got.events.empty()  # nothing invented on the way
    finally:
        driver.stop()
        fifo.close()


@pytest.mark.parametrize("mode", ["keyboard", "pos"])
def test_a_shoe_through_a_hid_scanner_deals_as_the_simulated_one(tmp_path: Path,
                                                                  mode: str) -> None:
    tokens = shuffled_shoe(random.Random(5))
    direct_cards, direct_rounds = deal(tokens, lambda e: e)
    with through_hid(tmp_path, mode) as transport:
        hid_cards, hid_rounds = deal(tokens, transport)
    assert hid_cards == direct_cards
    assert len(direct_rounds) > 60 and hid_rounds == direct_rounds


@pytest.mark.hardware
def test_a_real_hid_scanner_reads_the_test_shoe_in_order(request: pytest.FixtureRequest) -> None:
    """On a bench: the real node, the real grab (while it runs, the scanner types nowhere
    else: scan into a text editor to see), the test shoe scanned in order."""
    device = request.config.getoption("--hid-device")
    shoe = request.config.getoption("--scanner-shoe")
    if not device or not shoe:
        pytest.skip("needs --hid-device NODE and --scanner-shoe FILE (docs/hardware.md)")
    from drivers.hid_scanner import HidScanner  # noqa: PLC0415
    from drivers.hidpos import HidPosScanner  # noqa: PLC0415
    from drivers.layouts import load_layout  # noqa: PLC0415

    expected = [t for t in read_shoe_file(Path(shoe)) if t != CUT]
    codes = CodeFormat(cut_codes=[CUT_CODE])
    driver: HidScanner | HidPosScanner = (
        HidPosScanner(device, codes=codes) if request.config.getoption("--hid-mode") == "pos"
        else HidScanner(device, layout=load_layout(request.config.getoption("--hid-layout")),
                        codes=codes))
    got = Received()
    driver.start(got)
    try:
        assert driver.connected.wait(10), f"{device} did not open (and grab)"
        print(f"\nscan the {len(expected)} cards of {shoe} in order now")
        read: list[str] = []
        while len(read) < len(expected):
            event = got.next(timeout_s=120)
            if isinstance(event, CardRead):
                read.append(event.code)
    finally:
        driver.stop()
    assert read == expected


# --- the cut card through a modem-status pin ------------------------------------------------
def through_contact(contact: Contact, got: Received) -> Transport:
    """Cards go straight to the station; the cut card closes the contact on the adapter's pin
    (the real CutCardSensor reads it through pyserial) and opens it again as it leaves."""
    def transport(event: InputEvent) -> InputEvent:
        if not isinstance(event, CutCardSeen):
            return event
        contact.closed = True
        seen = got.next()
        contact.closed = False
        assert isinstance(seen, CutCardSeen), seen
        return replace(seen, ts=event.ts)
    return transport


@pytest.mark.parametrize("seed", [5, 6])
def test_a_shoe_with_the_cut_card_on_a_modem_pin_deals_as_the_simulated_one(seed: int) -> None:
    if "drivers.urlhandler" not in serial.protocol_handler_packages:
        serial.protocol_handler_packages.append("drivers.urlhandler")
    CONTACTS["contract"] = contact = Contact(pin="cd")
    sensor = CutCardSensor("contact://contract", pin="cd", debounce_ms=5)
    got = Received()
    sensor.start(got)
    try:
        # A contact closed before the sensor has read where the pin rests is no pass.
        assert sensor.connected.wait(5), "the sensor never opened the adapter"
        tokens = shuffled_shoe(random.Random(seed))
        assert CUT in tokens
        direct_cards, direct_rounds = deal(tokens, lambda e: e)
        sensed_cards, sensed_rounds = deal(tokens, through_contact(contact, got))
        assert sensed_cards == direct_cards
        assert len(direct_rounds) > 60 and sensed_rounds == direct_rounds
        time.sleep(0.05)  # a second, invented pass would have been posted by now
        assert got.events.empty()
    finally:
        sensor.stop()
        CONTACTS.pop("contract", None)


@pytest.mark.hardware
def test_a_real_cut_card_sensor_sees_each_pass_once(request: pytest.FixtureRequest) -> None:
    url = request.config.getoption("--cut-card-url")
    if not url:
        pytest.skip("needs --cut-card-url URL [--cut-card-pin PIN] (docs/hardware.md)")
    pin = request.config.getoption("--cut-card-pin")
    passes = 5
    sensor = CutCardSensor(url, pin=pin)
    got = Received()
    sensor.start(got)
    try:
        assert sensor.connected.wait(10), f"{url} did not open"
        print(f"\npass the cut card through the shoe's mouth {passes} times, a second apart")
        seen = 0
        while seen < passes:
            event = got.next(timeout_s=120)
            assert isinstance(event, CutCardSeen), f"{url}: {event}"
            seen += 1
        time.sleep(2)  # a bounce counted twice would show up here
        assert got.events.empty()
    finally:
        sensor.stop()


# --- the camera: a video of the shoe through OpenCV and the real decoder ----------------------
def camera_reads(codes: list[str], tmp_path: Path, symbology: str) -> list[InputEvent]:
    """Every code written as a barcode into a video file, read back by the real CameraReader."""
    from drivers.camera import CameraReader  # noqa: PLC0415 - the camera extra, only here
    from drivers.sim_camera import ShoeVideo, write_video  # noqa: PLC0415

    # A whole shoe is 2,500 frames: at 480x360 with small modules it is written and read in
    # about 15 s here. Three empty frames between cards (and a reader that releases a code after
    # three) so two of the same card in a row are two passes.
    video = ShoeVideo(codes, symbology=symbology, size=(480, 360), module_px=2,
                      frames_per_card=3, gap_frames=3, lead_frames=2)
    path = tmp_path / "shoe.avi"
    write_video(path, video)
    reader = CameraReader(str(path), roi=video.region, codes=CodeFormat(cut_codes=[CAMERA_CUT]),
                          release_frames=3)
    got = Received()
    done = queue.Queue[BaseException | None]()
    reader.start(got, lambda source, error: done.put(error))
    try:
        assert done.get(timeout=90) is None, "the camera reader died"
    finally:
        reader.stop()
    return list(got.events.queue)


CAMERA_CUT = "CUT"  # short enough to fit the region of a 640x480 frame


def through_camera(reads: list[InputEvent]) -> Transport:
    """The dealer's cards and cut card, answered by what the camera read, in order."""
    it = iter(reads)

    def transport(event: InputEvent) -> InputEvent:
        read = next(it)
        return replace(read, ts=event.ts)
    return transport


def test_a_shoe_through_the_camera_deals_as_the_simulated_one(tmp_path: Path) -> None:
    # Code 128, as edge-printed cards carry; the other symbologies and both decoders read the
    # short shoe in tests/drivers/test_camera_reader.py.
    tokens = shuffled_shoe(random.Random(7))
    codes = [CAMERA_CUT if t == CUT else t for t in tokens]
    reads = camera_reads(codes, tmp_path, "code128")
    assert all(isinstance(e, CardRead | CutCardSeen) for e in reads), [
        e for e in reads if not isinstance(e, CardRead | CutCardSeen)]
    direct_cards, direct_rounds = deal(tokens, lambda e: e)
    camera_cards, camera_rounds = deal(tokens, through_camera(reads))
    assert camera_cards == direct_cards
    assert len(direct_rounds) > 60 and camera_rounds == direct_rounds
    assert len(reads) == len(tokens)  # nothing invented, nothing left over


@pytest.mark.hardware
def test_a_real_camera_reads_the_test_shoe_in_order(request: pytest.FixtureRequest) -> None:
    source = request.config.getoption("--camera")
    shoe = request.config.getoption("--scanner-shoe")
    if not source or not shoe:
        pytest.skip("needs --camera SOURCE and --scanner-shoe FILE (docs/hardware.md)")
    from drivers.camera import CameraReader  # noqa: PLC0415

    roi_text = request.config.getoption("--camera-roi")
    roi = tuple(int(v) for v in roi_text.split(",")) if roi_text else None
    expected = [t for t in read_shoe_file(Path(shoe)) if t != CUT]
    reader = CameraReader(int(source) if source.isdigit() else source,
                          roi=roi)  # type: ignore[arg-type]
    got = Received()
    reader.start(got)
    try:
        print(f"\npass the {len(expected)} cards of {shoe} under the camera in order now")
        read: list[str] = []
        while len(read) < len(expected):
            event = got.next(timeout_s=120)
            assert isinstance(event, CardRead), f"{source}: {event}"
            read.append(event.code)
    finally:
        reader.stop()
    assert read == expected
