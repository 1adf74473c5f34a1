"""The HID-POS reader (``reader.type: hid``, ``mode: pos``) at the true boundary: scanned-data
reports, as hidraw delivers them, written into a FIFO and read by the real reader.

A hidraw ``read`` is one report; the FIFO keeps that because every report here is written
whole, 64 bytes, and the reader reads 64 at a time (drivers/hidpos.py).
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.codes import CodeFormat
from drivers.events import CardRead, CutCardSeen, DeviceLost, DeviceRestored, InputEvent
from drivers.hidpos import HidPosScanner, PosReports, find_hidraw
from drivers.reconnect import Backoff
from tests.drivers.hidkit import PRINTABLE, Fifo, Heard
from tests.sampling import LONG  # CI samples the fuzz (docs/testing.md)

CARDS = [r + s for r in "A23456789TJQK" for s in "SHDC"]


def report(data: bytes, symbology: bytes = b"]C0", more: bool = False,
           report_id: int = 0x02, length: int | None = None) -> bytes:
    """One 64-byte scanned-data report (the layout of drivers/hidpos.py)."""
    body = bytearray(64)
    body[0] = report_id
    body[1] = len(data) if length is None else length
    body[2:2 + len(data)] = data
    body[58:58 + len(symbology)] = symbology
    body[63] = 1 if more else 0
    return bytes(body)


def reports_of(code: bytes, symbology: bytes = b"]C0") -> list[bytes]:
    """A code in as many reports as it takes, 56 bytes each."""
    parts = [code[i:i + 56] for i in range(0, len(code), 56)] or [b""]
    return [report(p, symbology, more=i < len(parts) - 1) for i, p in enumerate(parts)]


class PosReader:
    def __init__(self, fifo: Fifo, **kwargs: object) -> None:
        kwargs.setdefault("codes", CodeFormat(cut_codes=["CUT"], passed_prefixes=["P"]))
        kwargs.setdefault("backoff", Backoff(0.02, 0.1))
        self.fifo = fifo
        self.heard = Heard()
        self.driver = HidPosScanner(str(fifo.path), **kwargs)  # type: ignore[arg-type]
        self.driver.start(self.heard)
        assert self.driver.connected.wait(5)
        fifo.connect()

    def send(self, reports: list[bytes]) -> None:
        for r in reports:
            self.fifo.write_bytes(r)
            # One report a read, as hidraw gives them: the next waits until this one is read
            # (a FIFO would hand two at once to a read of 128).
            deadline = time.monotonic() + 5
            while _pending(self.fifo) and time.monotonic() < deadline:
                time.sleep(0.0005)

    def events(self, n: int) -> list[InputEvent]:
        return self.heard.take(n)

    def stop(self) -> None:
        self.driver.stop()


def _pending(fifo: Fifo) -> int:
    import fcntl  # noqa: PLC0415
    import termios  # noqa: PLC0415

    buf = bytearray(4)
    fcntl.ioctl(fifo._w, termios.FIONREAD, buf)
    return int.from_bytes(buf, "little")


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Fifo]:
    f = Fifo(tmp_path / "hidraw3")
    yield f
    f.close()


@pytest.fixture
def reader(fifo: Fifo) -> Iterator[PosReader]:
    r = PosReader(fifo)
    yield r
    r.stop()


def test_every_card_reads_with_its_symbology(reader: PosReader) -> None:
    reader.send([report(c.encode(), b"]C0") for c in CARDS] + [report(b"10h", b"]E0")])
    got = reader.events(len(CARDS) + 1)
    assert [e.code for e in got if isinstance(e, CardRead)] == [*CARDS, "TH"]
    assert {e.symbology for e in got if isinstance(e, CardRead)} == {"]C0", "]E0"}


def test_every_printable_character_and_a_code_over_several_reports(reader: PosReader) -> None:
    code = ("P" + PRINTABLE[:63]).encode()  # 64 bytes: two reports, the first marked "more"
    reader.send(reports_of(code) + reports_of(("P" + PRINTABLE[63:]).encode()))
    got = reader.events(2)
    assert [e.code for e in got if isinstance(e, CardRead)] == [
        code.decode(), "P" + PRINTABLE[63:]]


def test_a_code_too_long_is_one_bad_frame_then_reads_on(reader: PosReader) -> None:
    reader.send(reports_of(b"A" * 150) + reports_of(b"QS"))
    bad, card = reader.events(2)
    assert isinstance(bad, CardRead) and bad.code.startswith("?too_long:AAA")
    assert isinstance(card, CardRead) and card.code == "QS"


def test_bad_reports_are_reported_never_read(reader: PosReader) -> None:
    reader.send([report(b"AS", report_id=0x01), report(b"AS", length=57),
                 report(b"A\x01S"), report(b"", symbology=b""), report(b"KD\r"),
                 report(b"CUT")])
    got = reader.events(6)
    codes = [e.code if isinstance(e, CardRead) else "<cut>" for e in got]
    assert [c.split(":")[0] for c in codes[:4]] == ["?not_report", "?bad_length", "?control",
                                                    "?empty"]
    assert codes[4:] == ["KD", "<cut>"]  # a suffix CR is dropped: the report frames the code
    assert isinstance(got[5], CutCardSeen)


def test_two_reports_back_to_back_and_an_unplug(reader: PosReader) -> None:
    for _ in range(3):
        reader.send([report(b"AH"), report(b"7C")])
        assert [e.code for e in reader.events(2) if isinstance(e, CardRead)] == ["AH", "7C"]
        reader.send([report(b"K", more=True)])  # half a code
        reader.fifo.unplug()
        assert isinstance(reader.heard.next(), DeviceLost)
        assert isinstance(reader.heard.next(), DeviceRestored)
        assert reader.driver.connected.wait(5)
        reader.fifo.connect()
    reader.send([report(b"S")])
    got = reader.heard.next()
    assert isinstance(got, CardRead) and got.code == "?unknown:S"  # not "KS"


def test_usb_ids_find_the_hidraw_node(tmp_path: Path) -> None:
    for name, hid_id in (("hidraw0", "0003:0000046D:0000C31C"),
                         ("hidraw2", "0003:00000C2E:00000B61")):
        d = tmp_path / name / "device"
        d.mkdir(parents=True)
        (d / "uevent").write_text(f"DRIVER=hid-generic\nHID_ID={hid_id}\nHID_NAME=Scanner\n")
    assert find_hidraw(0x0C2E, 0x0B61, tmp_path, Path("/dev")) == "/dev/hidraw2"
    assert find_hidraw(0x0C2E, 0x0B6F, tmp_path) is None


# --- fuzz ----------------------------------------------------------------------------------
_CARD = re.compile(r"(10|[A2-9TJQK])([SHDC])", re.I)


def expected(reports: list[bytes]) -> list[str]:
    """The cards a run of reports carries, decoded here from the layout as documented."""
    out, buf, dropping = [], b"", False
    for r in reports:
        if len(r) < 2 or r[0] != 2 or r[1] > 56 or r[1] + 2 > len(r):
            buf, dropping = b"", False
            continue
        if not dropping:
            buf += r[2:2 + r[1]]
            if len(buf) > 64:
                buf, dropping = b"", True
        if len(r) > 63 and r[63] & 1:
            continue
        if dropping:
            dropping = False
            continue
        text = buf.rstrip(b"\r\n\t")
        buf = b""
        try:
            s = text.decode("ascii")
        except UnicodeDecodeError:
            continue
        m = _CARD.fullmatch(s.strip(" "))
        if m and s.isprintable():
            rank = m.group(1).upper()
            out.append(("T" if rank == "10" else rank) + m.group(2).upper())
    return out


def check(reports: list[bytes]) -> None:
    parser = PosReports()
    got: list[str] = []
    codes = CodeFormat()
    from drivers.framing import Frame  # noqa: PLC0415

    for r in reports:
        items, _ = parser.feed(r)
        for item in items:
            if isinstance(item, Frame):
                c = codes.classify(item.payload)
                if hasattr(c, "code"):
                    got.append(c.code)
    assert got == expected(reports)


def random_report(rng: random.Random) -> bytes:
    roll = rng.random()
    if roll < 0.5:
        card = rng.choice([*CARDS, "10D", "xx", "AS\r", " KD "]).encode()
        r = bytearray(report(card, more=rng.random() < 0.2))
        for _ in range(rng.randrange(3)):
            r[rng.randrange(len(r))] = rng.randrange(256)
        return bytes(r)
    return bytes(rng.randrange(256) for _ in range(rng.choice((1, 2, 10, 63, 64))))


@pytest.mark.parametrize("seed", range(100 if LONG else 4))
def test_random_reports_through_the_reader_never_give_another_card(
        fifo: Fifo, seed: int) -> None:
    rng = random.Random(seed)
    reports = [random_report(rng) for _ in range(120)]
    # Through the real reader: reports padded to 64 bytes, one a read.
    padded = [r.ljust(64, b"\x00") for r in reports]
    r = PosReader(fifo, codes=CodeFormat())
    try:
        r.send(padded)
        got = r.heard.until_quiet(0.3)
    finally:
        r.stop()
    cards = [e.code for e in got if isinstance(e, CardRead) and not e.code.startswith("?")]
    assert cards == expected(padded)
    assert all(isinstance(e, CardRead) for e in got)


@settings(max_examples=5000 if LONG else 60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.binary(max_size=64),
                          st.builds(report, st.sampled_from([c.encode() for c in CARDS]),
                                    st.binary(max_size=3), st.booleans())), max_size=40))
def test_hypothesis_reports_parse_to_the_right_cards(reports: list[bytes]) -> None:
    check(reports)


def test_the_symbology_is_recorded_only_when_read_and_read_back() -> None:
    from station.wire.recording import event_from_json, event_to_json  # noqa: PLC0415

    plain = CardRead("AS", "scanner", 1.5)
    assert event_to_json(plain) == {"t": 1.5, "e": "card", "code": "AS", "src": "scanner"}
    both = CardRead("AS", "scanner", 1.5, "P1", "]C0")
    line = event_to_json(both)
    assert line == {"t": 1.5, "e": "card", "code": "AS", "src": "scanner", "pack": "P1",
                    "symbology": "]C0"}
    assert event_from_json(line) == both
    with pytest.raises(ValueError, match="'symbology' is 3, expected a string"):
        event_from_json({**line, "symbology": 3})
