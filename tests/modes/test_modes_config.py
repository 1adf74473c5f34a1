"""The table-mode config keys (docs/modes.md): each bad value refused with the file, the key
and the fix; good values reach ``TableRules`` and the simulated players; a recording header
with a bad mode key is refused the same way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.errors import ConfigError, InputFileError
from station.live.config import parse_config
from station.table.actions import MODE_ACTIONS
from station.table.modes import TIMERS
from station.table.tablerules import MODE_KEYS
from station.wire.recording import read_recording
from tests.conftest import REPO

BAD: list[tuple[str, object, str]] = [
    ("mode", "squeze", r"table\.mode: 'squeze' is not one of: standard, squeeze, vip; "
                       r"standard, squeeze \(cards dealt face down"),
    ("mode", 3, r"table\.mode: 3 is not one of"),
    ("betting", "game_server", r"table\.betting: 'game_server' is not one of: dealer, timer, "
                               r"upstream; dealer \(buttons\)"),
    ("betting_s", 0, r"table\.betting_s: .*; the betting countdown in seconds, e\.g\. 15"),
    ("betting_s", "15s", r"table\.betting_s: .*; the betting countdown in seconds"),
    ("result_s", -1, r"table\.result_s: .*; seconds the last result shows"),
    ("reveal_s", float("nan"), r"table\.reveal_s: .*; seconds a squeeze waits"),
    ("open_cards_s", float("inf"), r"table\.open_cards_s: .*\(seed 003: 60\)"),
    ("new_shoe_s", True, r"table\.new_shoe_s: .*\(seed 003: 300\)"),
    ("max_skips", 2.5, r"table\.max_skips: .*\(seed 003: 5\)"),
    ("max_skips", -1, r"table\.max_skips: .*\(seed 003: 5\)"),
    ("new_shoe_after", 10**9, r"table\.new_shoe_after: .*\(seed 003: 30\)"),
]


@pytest.mark.parametrize(("key", "value", "message"), BAD, ids=lambda x: str(x)[:20])
def test_a_bad_mode_key_names_file_key_and_fix(tmp_path: Path, key: str, value: object,
                                               message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_config(tmp_path / "station.yaml", {"table": {key: value}})
    assert str(caught.value).startswith(str(tmp_path / "station.yaml"))


def test_every_mode_key_is_covered() -> None:
    assert {k for k, _, _ in BAD} == set(MODE_KEYS)


def test_good_mode_keys_reach_the_rules_and_players(tmp_path: Path) -> None:
    table: dict[str, Any] = {"mode": "vip", "betting": "timer", "betting_s": 10,
                             "result_s": 2, "reveal_s": 20, "open_cards_s": 45,
                             "new_shoe_s": 240, "max_skips": 3, "new_shoe_after": 20}
    c = parse_config(tmp_path / "s.yaml", {"table": table, "simulation": {
        "players": {"reveal": "timer", "skip_rounds": [2, 3], "new_shoe_at": 21,
                    "dealer_at": [4]}, "pace": {"reveal_s": 4}}})
    assert {k: getattr(c.rules, k) for k in MODE_KEYS} == table
    p = c.simulation.players
    assert (p.reveal, p.skip_rounds, p.new_shoe_at, p.dealer_at) == ("timer", (2, 3), 21, (4,))
    assert c.simulation.pace.reveal_s == 4.0


@pytest.mark.parametrize(("players", "message"), [
    ({"reveal": "dealer"}, r"simulation\.players\.reveal: .*player, timer"),
    ({"skip_rounds": "2-7"}, r"simulation\.players\.skip_rounds: expected a list of round "
                             r"numbers .*e\.g\. \[3, 4, 5\]"),
    ({"dealer_at": [0]}, r"simulation\.players\.dealer_at: expected a list"),
    ({"new_shoe_at": -3}, r"simulation\.players\.new_shoe_at: "),
    ({"sip_rounds": [2]}, r"simulation\.players\.sip_rounds"),
])
def test_bad_simulated_players_are_refused(tmp_path: Path, players: dict[str, Any],
                                           message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(tmp_path / "s.yaml", {"simulation": {"players": players}})


HEADER = {"format": "dealer-station-recording", "version": 1,
          "rules": {"table": "t", "decks": 8, "dedupe_ms": 150,
                    "cut_card_between_rounds": "next_round_last", "badge_prefix": "DEALER-"}}


@pytest.mark.parametrize(("key", "value"), [("mode", "squeze"), ("betting_s", -5),
                                            ("max_skips", "5"), ("open_cards_s", None)])
def test_a_recording_header_with_a_bad_mode_key_is_refused(tmp_path: Path, key: str,
                                                           value: object) -> None:
    path = tmp_path / "r.jsonl"
    header = json.loads(json.dumps(HEADER))
    header["rules"][key] = value
    path.write_text(json.dumps(header) + "\n" + json.dumps(
        {"t": 1767225603.0, "e": "timer", "name": "betting"}) + "\n")
    with pytest.raises(InputFileError, match=rf"{key}"):
        read_recording(path)
    done = subprocess.run([sys.executable, "-m", "station.cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr and key in done.stderr


@pytest.mark.parametrize("event", [
    {"t": 1767225603.0, "e": "timer"},
    {"t": 1767225603.0, "e": "timer", "name": 5},
    {"t": "soon", "e": "timer", "name": "betting"},
])
def test_a_bad_timer_event_is_refused_by_line(tmp_path: Path, event: dict[str, Any]) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(HEADER) + "\n" + json.dumps(event) + "\n")
    with pytest.raises(InputFileError, match=r"line 2"):
        read_recording(path)


@pytest.mark.parametrize("name", ["", "nonsense", "betting"])
def test_a_timer_event_nobody_set_replays_as_ignored(tmp_path: Path, name: str) -> None:
    """Any text is a timer name in a recording (as any text is a command's action); one the
    station did not set, or one not due yet, is a notice and changes nothing."""
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(HEADER) + "\n" + json.dumps(
        {"t": 1767225603.0, "e": "timer", "name": name}) + "\n")
    opened = read_recording(path)
    station = opened.station()
    (event,) = opened.events
    out = station.apply(event)
    assert [type(o).__name__ for o in out] == ["Notice"]
    assert station.dealing.state == "no_shoe" and station.deadlines == {}


def test_the_docs_name_every_mode_key_and_timer() -> None:
    doc = (REPO / "docs" / "modes.md").read_text()
    readme = (REPO / "README.md").read_text()
    for key in MODE_KEYS:
        assert f"`table.{key}`" in doc, key
        assert f"`table.{key}`" in readme or f"/ `{key}`" in readme, key
    for name in (*TIMERS, *MODE_ACTIONS, "not_now", "new_shoe_late", "dealer_requested"):
        assert f"`{name}`" in doc, name
