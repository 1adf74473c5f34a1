"""On a face-down table (squeeze, VIP) what the station says about a misread, a double read or
a re-scan names no card: any of them may be a hidden card's value (docs/modes.md)."""

from __future__ import annotations

import re

from drivers.events import CardRead, Command
from station.table.outputs import Notice, Output, Prompt
from station.table.station import Station
from station.table.tablerules import TableRules


def dealt_to_player_2(mode: str) -> tuple[Station, list[Output]]:
    station = Station(TableRules(mode=mode, dedupe_ms=150))
    out: list[Output] = []
    for event in (Command("new_shoe", "dealer", 1.0), CardRead("AS", "s", 2.0),
                  CardRead("2S", "s", 3.0), Command("open_betting", "dealer", 4.0),
                  Command("close_betting", "dealer", 5.0), CardRead("7H", "s", 6.0),
                  CardRead("7H", "s", 6.05),  # a double read of the face-down 7H
                  CardRead("\x15?9", "s", 7.0),  # a misread that holds part of 9D
                  CardRead("9D", "s", 8.0)):  # its re-scan
        out += station.apply(event)
    return station, out


def said(outputs: list[Output]) -> str:
    return "\n".join(o.line() if isinstance(o, Prompt) else o.text for o in outputs
                     if isinstance(o, Prompt | Notice)) + "\n" + "\n"


def test_a_squeeze_table_names_no_card_in_a_misread_a_double_read_or_a_re_scan() -> None:
    station, outputs = dealt_to_player_2("squeeze")
    text = said(outputs) + station.prompt.line() + "; ".join(station.dealing.pause_reasons)
    assert station.prompt.paused and "re-scanned" in station.prompt.line()
    for hidden in ("7H", "9D", "9"):
        assert not re.search(rf"(?<![A-Za-z0-9]){re.escape(hidden)}(?![A-Za-z0-9])", text), text
    assert "double read of a card" in text and "unreadable code from s" in text


def test_a_standard_table_still_names_them() -> None:
    station, outputs = dealt_to_player_2("standard")
    text = said(outputs) + station.prompt.line()
    assert "'7H'" in text and "'\\x15?9'" in text and "re-scanned as 9D" in text
