"""Non-ASCII look-alikes are never cards, from the scanner's bytes to the dealer's prompt
(issue 18, defect 6): ``A`` and U+017F (long s) read as AS, ``10`` and U+017F as TS, and
no-break or ideographic spaces around a code were stripped."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.codes import CodeFormat
from drivers.events import CardRead
from drivers.sim_serial import PtyScanner
from tests.drivers.test_serial_driver import Heard, start
from tests.tablekit import Table

LOOK_ALIKES = {
    "A\u017f": "?unknown:A\\xc5\\xbf",
    "10\u017f": "?unknown:10\\xc5\\xbf",
    "\u212aH": "?unknown:\\xe2\\x84\\xaaH",
    "\u00a0QH": "?unknown:\\xc2\\xa0QH",
    "\u3000KD\u3000": "?unknown:\\xe3\\x80\\x80KD\\xe3\\x80\\x80",
}


def test_look_alikes_from_a_scanner_are_unknown_codes_named_by_their_bytes(
        tmp_path: Path) -> None:
    heard = Heard()
    with PtyScanner(tmp_path / "scanner") as sim:
        driver = start(sim.path, heard, codes=CodeFormat())
        try:
            sim.write(b"".join(text.encode() + b"\r" for text in LOOK_ALIKES) + b"AS\r")
            got = [e.code for e in heard.take(len(LOOK_ALIKES) + 1) if isinstance(e, CardRead)]
        finally:
            driver.stop()
    assert got == [*LOOK_ALIKES.values(), "AS"]


@pytest.mark.parametrize("code", list(LOOK_ALIKES))
def test_a_look_alike_reaching_the_station_pauses_and_is_shown_escaped(code: str) -> None:
    """Whatever source hands the station such a code (a recording, a camera), it is an
    unreadable code; the prompt shows it escaped, as it shows any other raw byte."""
    t = Table()
    t.new_shoe()
    t.round("2S")
    t.card(code)
    assert t.phase == "paused" and t.station.dealing.player[0].code == "2S"
    assert len(t.station.dealing.banker) == 0
    prompt = t.station.prompt.text
    assert f"unreadable code {code!a} from scanner: not a card" in prompt
    assert prompt.isascii()


@pytest.mark.parametrize("code", ["\u00a0DEALER-D042", "DEALER-D042\u3000", "DEALER-D\u0660\u0664"])
def test_a_badge_with_a_non_ascii_character_signs_nobody_in(code: str) -> None:
    t = Table()
    t.card(code)
    assert t.station.dealers.dealer is None
    assert t.prompt.isascii() and all(n.isascii() for n in t.notices)


def test_a_double_read_of_a_look_alike_is_named_escaped() -> None:
    t = Table()
    t.new_shoe()
    t.card("A\u017f")
    t.card("A\u017f", dt=0.01)
    assert "double read of 'A\\u017f' from scanner within 150 ms suppressed" in t.notices
