"""The keyboard-wedge reader (``reader.type: hid``, keyboard mode) at the true boundary: the
kernel's ``input_event`` records written into a FIFO, read by the real reader through
python-evdev's own ``read`` (tests/drivers/hidkit.py).

The keystrokes are as scanners type them: every printable character, shift and caps lock,
a long code, codes back to back, a key-up sent late (the kernel's auto-repeat in between),
keypad Enter and Tab as terminators; then a fuzz of random records, which must end in the
right cards (an independent decoding, below) or a bad-frame report, never another card.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.codes import CodeFormat
from drivers.events import CardRead, CutCardSeen, DeviceLost, DeviceRestored, InputEvent
from drivers.framing import FrameParser
from drivers.hid_scanner import HidScanner, find_event_node
from drivers.keyboard import KEYPAD, Layout
from drivers.layouts import layout_names, load_layout
from drivers.reconnect import Backoff
from tests.drivers.hidkit import (
    CAPS,
    ENTER,
    EV_KEY,
    EVENT,
    KPENTER,
    PRINTABLE,
    SHIFT,
    TAB,
    US,
    Fifo,
    Heard,
    key,
    record,
    tap,
    us_keys,
)
from tests.sampling import LONG  # CI samples the fuzz (docs/testing.md)

CARDS = [r + s for r in "A23456789TJQK" for s in "SHDC"]


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Fifo]:
    f = Fifo(tmp_path / "usb-Scanner-event-kbd")
    yield f
    f.close()


class Reader:
    def __init__(self, fifo: Fifo, **kwargs: Any) -> None:
        kwargs.setdefault("codes", CodeFormat(cut_codes=["CUT"], passed_prefixes=["DEALER-",
                                                                                 "P"]))
        kwargs.setdefault("layout", load_layout("us"))
        kwargs.setdefault("backoff", Backoff(0.02, 0.1))
        self.fifo = fifo
        self.heard = Heard()
        self.driver = HidScanner(str(fifo.path), open_device=fifo.opener, **kwargs)
        self.driver.start(self.heard)
        assert self.driver.connected.wait(5), "the reader did not open the FIFO"
        fifo.connect()

    def type(self, records: list[bytes]) -> None:
        self.fifo.write(records)

    def codes(self, n: int) -> list[str]:
        return [_code(e) for e in self.heard.take(n)]

    def stop(self) -> None:
        self.driver.stop()


def _code(e: InputEvent) -> str:
    if isinstance(e, CardRead):
        return e.code
    if isinstance(e, CutCardSeen):
        return "<cut>"
    return type(e).__name__


@pytest.fixture
def reader(fifo: Fifo) -> Iterator[Reader]:
    r = Reader(fifo)
    yield r
    r.stop()


def test_the_device_is_grabbed_before_anything_is_read(reader: Reader) -> None:
    reader.type(us_keys("AS"))
    assert reader.codes(1) == ["AS"]
    calls = reader.fifo.calls
    assert calls[:2] == ["open", "grab"], calls
    assert calls.index("grab") < calls.index("read")


def test_every_printable_character_is_typed_as_sent(reader: Reader) -> None:
    # Through a passed prefix, so the code reaches the station as typed: every character of
    # printable ASCII, in two codes (a frame holds 64 bytes).
    half = len(PRINTABLE) // 2
    reader.type(us_keys("P" + PRINTABLE[:half]) + us_keys("P" + PRINTABLE[half:]))
    assert reader.codes(2) == ["P" + PRINTABLE[:half], "P" + PRINTABLE[half:]]


def test_every_card_in_every_form_reads_as_the_station_s_form(reader: Reader) -> None:
    typed = [c for card in CARDS for c in (card, card.lower(), card.replace("T", "10"))]
    reader.type([r for code in typed for r in us_keys(code)])
    expect = [card for card in CARDS for _ in range(3)]
    assert reader.codes(len(expect)) == expect


def test_caps_lock_swaps_letters_only_and_shift_swaps_them_back(reader: Reader) -> None:
    on = tap(CAPS)
    # Caps on: "as" typed plain is AS; "10h" keeps its digits; shift with caps is lower case
    # (DEALER-d7 would not pass the prefix: a clear unknown, not a card).
    reader.type(on + us_keys("as") + us_keys("10h") + us_keys("DEALER-") + on + us_keys("kd"))
    assert reader.codes(4) == ["AS", "TH", "?unknown:dealer-", "KD"]


def test_a_long_code_is_one_bad_frame_and_the_next_code_reads(reader: Reader) -> None:
    reader.type(us_keys("A" * 70) + us_keys("QH"))
    bad, card = reader.codes(2)
    assert bad.startswith("?too_long:AAAA") and card == "QH"


def test_two_codes_back_to_back_in_one_read(reader: Reader) -> None:
    reader.fifo.write(us_keys("AS") + us_keys("KD") + us_keys("CUT"), chunk=1000)
    assert reader.codes(3) == ["AS", "KD", "<cut>"]


def test_a_late_key_up_and_the_kernels_auto_repeat_type_one_character(reader: Reader) -> None:
    a, s = US["A"][0], US["S"][0]
    records = key(SHIFT, 1) + key(a, 1) + key(s, 1) + key(a, 0)
    # S held past the repeat delay: the kernel repeats it (value 2) until the late key-up.
    records += [r for _ in range(5) for r in key(s, 2)] + key(SHIFT, 0) + key(s, 0)
    reader.type(records + tap(ENTER))
    assert reader.codes(1) == ["AS"]


def test_keypad_enter_ends_a_code_and_keypad_digits_type(reader: Reader) -> None:
    kp = {v: k for k, v in KEYPAD.items()}
    reader.type(us_keys("P", end=None) + tap(kp["1"]) + tap(kp["0"]) + tap(KPENTER)
                + us_keys("JC", end=KPENTER))
    assert reader.codes(2) == ["P10", "JC"]


def test_a_key_with_no_character_is_a_bad_frame_never_a_card(reader: Reader) -> None:
    f1 = 59
    reader.type(us_keys("A", end=None) + tap(f1) + us_keys("S"))
    assert reader.codes(1) == [r"?control:A\x1aS"]


def test_tab_terminator(fifo: Fifo) -> None:
    r = Reader(fifo, parser=FrameParser("tab"))
    try:
        r.type(us_keys("9D", end=TAB) + us_keys("8C", end=TAB) + us_keys("7H"))
        # Enter is no terminator here: it is a control character in the next frame.
        r.type(tap(TAB))
        assert r.codes(3) == ["9D", "8C", r"?control:7H\x0d"]
    finally:
        r.stop()


def test_an_unplug_is_lost_then_restored_and_half_a_code_is_dropped(reader: Reader) -> None:
    for _ in range(3):
        reader.type(us_keys("AH") + us_keys("K", end=None))  # K of a code cut short
        assert reader.codes(1) == ["AH"]
        reader.fifo.unplug()
        lost = reader.heard.next()
        assert isinstance(lost, DeviceLost) and "closed" in lost.reason
        assert isinstance(reader.heard.next(), DeviceRestored)
        assert reader.driver.connected.wait(5)
        reader.fifo.connect()
    reader.type(us_keys("S") + us_keys("2S"))
    assert reader.codes(2) == ["?unknown:S", "2S"]


def test_a_device_another_program_grabbed_is_lost_with_why(fifo: Fifo) -> None:
    class Busy:
        def __init__(self, path: str) -> None:
            self.dev = fifo.opener(path)
            self.fd = self.dev.fd

        def grab(self) -> None:
            raise OSError(16, "Device or resource busy")

        def read(self) -> Iterator[Any]:
            raise AssertionError("read before a grab")

        def close(self) -> None:
            self.dev.close()

    heard = Heard()
    driver = HidScanner(str(fifo.path), layout=load_layout("us"), open_device=Busy,
                        backoff=Backoff(0.02, 0.1))
    driver.start(heard)
    try:
        lost = heard.next()
        assert isinstance(lost, DeviceLost)
        assert "cannot be grabbed" in lost.reason and "another program" in lost.reason
    finally:
        driver.stop()


def test_a_missing_node_is_lost_and_found_again_when_it_appears(tmp_path: Path) -> None:
    fifo = Fifo.__new__(Fifo)  # made only once the reader is waiting for it
    path = tmp_path / "usb-Late-event-kbd"
    heard = Heard()
    calls: list[str] = []
    from tests.drivers.hidkit import FifoDevice  # noqa: PLC0415

    driver = HidScanner(str(path), layout=load_layout("us"),
                        open_device=lambda p: FifoDevice(p, calls), backoff=Backoff(0.02, 0.1))
    driver.start(heard)
    try:
        lost = heard.next()
        assert isinstance(lost, DeviceLost) and str(path) in lost.reason
        Fifo.__init__(fifo, path)
        assert isinstance(heard.next(), DeviceRestored)
        fifo.connect()
        fifo.write(us_keys("5D"))
        assert _code(heard.next()) == "5D"
    finally:
        driver.stop()
        fifo.close()


def test_usb_ids_find_the_node_that_types_enter(tmp_path: Path) -> None:
    sys_root = tmp_path / "sys"

    def node(name: str, vendor: str, product: str, keys: str) -> None:
        ids = sys_root / name / "device" / "id"
        ids.mkdir(parents=True)
        (ids / "vendor").write_text(vendor + "\n")
        (ids / "product").write_text(product + "\n")
        (sys_root / name / "device" / "capabilities").mkdir()
        (sys_root / name / "device" / "capabilities" / "key").write_text(keys + "\n")

    # The scanner's consumer-keys node (no Enter), its keyboard node, and another keyboard.
    node("event3", "0c2e", "0b61", "1 0")
    node("event4", "0c2e", "0b61", "ff 10000000")  # bit 28: KEY_ENTER
    node("event5", "046d", "c31c", "ff 10000000")
    assert find_event_node(0x0C2E, 0x0B61, sys_root, Path("/dev/input")) == "/dev/input/event4"
    assert find_event_node(0x0C2E, 0x0B62, sys_root) is None


def test_the_key_codes_are_the_kernels() -> None:
    from evdev import ecodes  # noqa: PLC0415

    import drivers.keyboard as kb  # noqa: PLC0415

    for name in ("KEY_TAB", "KEY_ENTER", "KEY_KPENTER", "KEY_LEFTSHIFT", "KEY_RIGHTSHIFT",
                 "KEY_LEFTCTRL", "KEY_RIGHTCTRL", "KEY_LEFTALT", "KEY_RIGHTALT",
                 "KEY_CAPSLOCK", "KEY_NUMLOCK", "KEY_SCROLLLOCK", "KEY_LEFTMETA",
                 "KEY_RIGHTMETA", "EV_KEY"):
        assert getattr(kb, name) == getattr(ecodes, name), name
    for code, ch in KEYPAD.items():
        names = ecodes.KEY[code]
        assert any(n.startswith("KEY_KP") for n in ([names] if isinstance(names, str)
                                                    else names)), (code, ch)
    for ch, (code, _) in US.items():
        assert load_layout("us").keys[code][0] in (ch, ch.lower()) or not ch.isalpha()
    assert EVENT.size == 24  # 64-bit: the size evdev reads


@pytest.mark.parametrize("name", layout_names())
def test_every_layout_loads_and_types_its_cards(name: str) -> None:
    layout = load_layout(name)
    from drivers.keyboard import KeyDecoder  # noqa: PLC0415

    reverse: dict[str, tuple[int, bool]] = {}
    for code, chars in layout.keys.items():
        for level, ch in enumerate(chars[:2]):
            reverse.setdefault(ch, (code, level == 1))
    for card in [*CARDS, "10H"]:
        dec = KeyDecoder(layout)
        out = b""
        for ch in card:
            code, shift = reverse[ch]
            if shift:
                out += dec.feed(EV_KEY, SHIFT, 1)
            out += dec.feed(EV_KEY, code, 1) + dec.feed(EV_KEY, code, 0)
            if shift:
                out += dec.feed(EV_KEY, SHIFT, 0)
        assert out == card.encode(), (name, card)


# --- fuzz: random records, against an independent decoding -----------------------------------
_CARD = re.compile(r"(10|[A2-9TJQK])([SHDC])", re.I)
# Key codes the fuzz presses: the US keys, shift, caps, the terminators, a few with no
# character, and random others. (Ctrl and Alt are left out: the decoding below has no
# control characters or Alt codes; the decoder's own tests cover them.)
_CODES = [*{c for c, _ in US.values()}, SHIFT, 54, CAPS, ENTER, KPENTER, TAB, 59, 1, 183]


def expected_cards(events: list[tuple[int, int, int]]) -> list[str]:
    """The cards a US keyboard's events spell, decoded here without the reader's code."""
    by_code: dict[int, list[str]] = {}
    for ch, (code, shift) in US.items():
        by_code.setdefault(code, ["", ""])[int(shift)] = ch
    down: set[int] = set()
    caps = False
    typed = ""
    for etype, code, value in events:
        if etype != EV_KEY:
            continue
        if value == 0:
            down.discard(code)
            continue
        if value != 1:
            continue
        down.add(code)
        if code in (ENTER, KPENTER):
            typed += "\r"
        elif code == CAPS:
            caps = not caps
        elif code in (SHIFT, 54, 29, 97, 56, 100, 69, 70, 125, 126):
            pass
        elif code in KEYPAD:
            typed += KEYPAD[code]
        elif code in by_code:
            plain, shifted = by_code[code]
            shift = SHIFT in down or 54 in down
            if caps and plain.isalpha():
                shift = not shift
            typed += shifted if shift else plain
        else:
            typed += "\x1a"
    frames = typed.split("\r")[:-1]  # the last, unterminated, is no frame yet
    out = []
    for f in frames:
        m = _CARD.fullmatch(f.strip(" "))
        if m and len(f) <= 64:
            rank = m.group(1).upper()
            out.append(("T" if rank == "10" else rank) + m.group(2).upper())
    return out


def run_events(fifo_dir: Path, events: list[tuple[int, int, int]]) -> list[InputEvent]:
    fifo = Fifo(fifo_dir / f"fuzz-{time.monotonic_ns()}")
    r = Reader(fifo, codes=CodeFormat())
    try:
        r.type([record(*e) for e in events] + tap(ENTER))
        # The Enter typed last ends any frame the events left open; then all has been read.
        return r.heard.until_quiet(0.3)
    finally:
        r.stop()
        fifo.close()


def check(events: list[tuple[int, int, int]], got: list[InputEvent]) -> None:
    cards = [e.code for e in got if isinstance(e, CardRead) and not e.code.startswith("?")]
    want = expected_cards([*events, (EV_KEY, ENTER, 1)])
    assert cards == want, (cards, want)
    for e in got:
        assert isinstance(e, CardRead), e
        if e.code.startswith("?"):
            assert re.fullmatch(r"\?[a-z_]+:.*", e.code), e.code


def random_events(rng: random.Random, n: int) -> list[tuple[int, int, int]]:
    out = []
    for _ in range(n):
        roll = rng.random()
        if roll < 0.8:
            code = rng.choice(_CODES)
            out.append((EV_KEY, code, rng.choice((1, 1, 1, 0, 0, 2))))
        elif roll < 0.9:
            out.append((rng.choice((0, 4, 17, 20)), rng.randrange(65536), rng.randrange(-5, 5)))
        else:  # anything a record can hold, but Ctrl and Alt (see _CODES)
            code = rng.randrange(65536)
            if code in (29, 97, 56, 100):
                code = 59
            out.append((rng.randrange(65536) if rng.random() < 0.5 else EV_KEY, code,
                        rng.randrange(-(2**31), 2**31)))
    return out


@pytest.mark.parametrize("seed", range(200 if LONG else 6))
def test_random_records_give_the_right_cards_or_bad_frames(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    events = random_events(rng, 400)
    check(events, run_events(tmp_path, events))


_event = st.one_of(
    st.tuples(st.just(EV_KEY), st.sampled_from(_CODES), st.sampled_from((0, 1, 2))),
    st.tuples(st.integers(0, 65535), st.integers(0, 65535).filter(
        lambda c: c not in (29, 97, 56, 100)), st.integers(-(2**31), 2**31 - 1)),
)


@settings(max_examples=500 if LONG else 10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_event, max_size=120))
def test_hypothesis_records_give_the_right_cards_or_bad_frames(
        tmp_path: Path, events: list[tuple[int, int, int]]) -> None:
    check(events, run_events(tmp_path, events))


def test_a_layout_is_data_the_decoder_reads() -> None:
    # A layout of one key shows the decoder reads nothing but the data it is given.
    from drivers.keyboard import KeyDecoder  # noqa: PLC0415

    dec = KeyDecoder(Layout("tiny", {30: ("x", "Y")}))
    assert dec.feed(EV_KEY, 30, 1) == b"x"
    assert dec.feed(EV_KEY, SHIFT, 1) + dec.feed(EV_KEY, 30, 1) == b"Y"
    assert dec.feed(EV_KEY, 31, 1) == b"\x1a"


def test_a_dealers_badge_goes_to_the_station_as_read_and_a_supervisors_is_no_card(
        fifo: Fifo) -> None:
    # As on the serial scanner (drivers.codes): a dealer's badge passes as read, for the
    # station to sign the dealer in; a supervisor's badge code is recognised, never a card.
    r = Reader(fifo, codes=CodeFormat(badge_codes=["SUP-0042"], passed_prefixes=["DEALER-"]))
    try:
        r.type(us_keys("DEALER-D042") + us_keys("SUP-0042") + us_keys("9S"))
        assert r.codes(2) == ["DEALER-D042", "9S"]
    finally:
        r.stop()


def test_a_flood_of_bad_codes_is_gated_as_on_the_serial_line(reader: Reader) -> None:
    reader.type([rec for _ in range(600) for rec in us_keys("XX")])
    got = [_code(e) for e in reader.heard.until_quiet(1.5)]
    assert got[:25] == ["?unknown:XX"] * 25
    # The rest counted: one summary a second (one, unless this machine took over a second
    # to read them), every frame accounted for.
    held = [re.fullmatch(r"\?noise:(\d+) bad frames \((\d+) bytes\)", c) for c in got[25:]]
    assert held and all(held) and len(held) <= 3, got[25:]
    assert got.count("?unknown:XX") + sum(int(m.group(1)) for m in held if m) == 600
