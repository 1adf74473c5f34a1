"""The cut-card contact on a modem-status pin, through the real driver and pyserial."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from typing import Any

import pytest
import serial
from hypothesis import example, given
from hypothesis import strategies as st

from drivers.base import EventSource
from drivers.cut_card import PINS, CutCardSensor, Debouncer
from drivers.events import CutCardSeen, DeviceLost, DeviceRestored, InputEvent
from drivers.urlhandler.protocol_contact import CONTACTS, Contact
from station.live.config import CUT_CARD_PINS

if "drivers.urlhandler" not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append("drivers.urlhandler")


class Got:
    def __init__(self) -> None:
        self.q: queue.Queue[InputEvent] = queue.Queue()

    def __call__(self, source: EventSource, event: InputEvent) -> None:
        self.q.put(event)

    def next(self, timeout_s: float = 2.0) -> InputEvent:
        return self.q.get(timeout=timeout_s)


@pytest.fixture
def contact() -> Iterator[Contact]:
    CONTACTS["shoe"] = c = Contact(pin="dsr")
    yield c
    CONTACTS.pop("shoe", None)


def started(pin: str = "dsr", debounce_ms: int = 20) -> tuple[CutCardSensor, Got]:
    sensor = CutCardSensor("contact://shoe", pin=pin, debounce_ms=debounce_ms)
    got = Got()
    sensor.start(got)
    time.sleep(0.05)  # the sensor reads where the pin rests first
    return sensor, got


def test_a_bouncing_contact_gives_one_cut_card_per_pass(contact: Contact) -> None:
    sensor, got = started()
    try:
        for _ in range(5):  # a bounce: faster than the debounce window
            contact.closed = True
            time.sleep(0.003)
            contact.closed = False
            time.sleep(0.003)
        contact.closed = True  # the card is in the mouth
        event = got.next()
        assert isinstance(event, CutCardSeen) and event.source == "cut-sensor"
        time.sleep(0.1)
        contact.closed = False  # it has passed: opening is no new card
        time.sleep(0.1)
        assert got.q.empty()
    finally:
        sensor.stop()


def test_another_pin_or_a_contact_closed_at_start_is_no_card(contact: Contact) -> None:
    contact.closed = True
    sensor, got = started()  # closed before the sensor looked: where it rests
    try:
        time.sleep(0.1)
        contact.pin = "cts"  # wired to another pin than configured
        contact.closed = False
        time.sleep(0.05)
        contact.closed = True
        time.sleep(0.1)
        assert got.q.empty()
    finally:
        sensor.stop()


def test_a_pulled_adapter_is_lost_then_restored(contact: Contact) -> None:
    sensor, got = started()
    try:
        contact.plugged = False
        lost = got.next()
        assert isinstance(lost, DeviceLost) and lost.source == "cut-sensor"
        contact.plugged = True
        assert isinstance(got.next(timeout_s=5), DeviceRestored)
        contact.closed = True
        assert isinstance(got.next(), CutCardSeen)  # and it watches again
    finally:
        sensor.stop()


def test_a_bad_pin_is_refused() -> None:
    with pytest.raises(ValueError, match="pin must be one of cts, dsr, cd, ri"):
        CutCardSensor("contact://shoe", pin="rts")


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 50)), max_size=60))
@example([(True, 7), (False, 0), (True, 14)])  # 21 closed samples in a row: one close
def test_the_debouncer_reports_each_settled_close_once(steps: list[tuple[bool, int]]) -> None:
    # Sampled every ms; a level must be read for 20 ms (21 samples) before it counts.
    d = Debouncer(0.0195)
    runs: list[list[Any]] = []
    for level, ms in steps:
        if ms == 0:
            continue  # no sample read: the level never showed, so it splits no run
        if runs and runs[-1][0] == level:
            runs[-1][1] += ms
        else:
            runs.append([level, ms])
    t_ms, closes, expected, settled = 0, 0, 0, False
    for level, ms in runs:
        for _ in range(ms):
            t_ms += 1
            closes += d.feed(level, t_ms / 1000)
        if ms >= 21 and level != settled:
            settled = level
            expected += level
    assert closes == expected


def test_the_config_knows_the_same_pins_as_the_driver() -> None:
    assert CUT_CARD_PINS == PINS
