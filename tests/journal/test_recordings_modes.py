"""The recorded sessions of the table modes replay to every output they had, timers included.

Each ``modes_*.jsonl`` under tests/recordings/ was made by ``station simulate`` from a config
in a mode (tests/recordings/README.md). Replayed with no clock (the timers are events in the
recording), it must give the live run's display line for line (prompts, notices, published
rounds) and the upstream messages kept beside it; tests/journal/test_recordings.py checks its rounds
and final line like every recording's.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from drivers.events import Command, TimerExpired
from station.wire.recording import read_recording
from tests.conftest import REPO
from tests.modes_replay import expected_paths, replay

FOLDER = REPO / "tests" / "recordings"
MODES = sorted(p for p in FOLDER.glob("modes_*.jsonl") if not p.name.endswith(".results.jsonl"))


def test_each_mode_has_a_recorded_session() -> None:
    rules = {p.stem: read_recording(p).rules for p in MODES}
    assert {(r.mode, r.betting) for r in rules.values()} >= {
        ("squeeze", "timer"), ("vip", "dealer"), ("standard", "upstream")}


@pytest.mark.parametrize("recording", MODES, ids=lambda p: p.stem)
def test_a_mode_session_replays_every_output(recording: Path) -> None:
    display, _, messages = replay(recording)
    display_file, upstream_file = expected_paths(recording)
    assert display == display_file.read_text().splitlines()
    assert messages == upstream_file.read_text().splitlines()


def kinds(recording: Path) -> Counter[str]:
    return Counter(json.loads(m)["kind"] for m in replay(recording)[2])


def events(recording: Path) -> Counter[str]:
    opened = read_recording(recording)
    return Counter(f"timer:{e.timer}" if isinstance(e, TimerExpired) else
                   f"cmd:{e.action}" if isinstance(e, Command) else type(e).__name__
                   for e in opened.events)


def test_the_squeeze_session_runs_on_its_timers() -> None:
    path = FOLDER / "modes_squeeze_timer.jsonl"
    seen = events(path)
    assert seen["timer:betting_opens"] >= 10 and seen["timer:betting"] >= 10
    assert seen["timer:reveal"] >= 20
    assert seen["cmd:open_betting"] == seen["cmd:close_betting"] == seen["cmd:reveal"] == 0
    assert seen["DeviceLost"] == 1 and seen["cmd:resume"] == 1  # a pause restarts the countdowns
    messages = [json.loads(m) for m in replay(path)[2]]
    assert any(m["kind"] == "card" and m.get("face_down") for m in messages)
    assert all(m["by"] == "timer" for m in messages if m["kind"] == "reveal")
    assert all("closes_at" in m for m in messages if m["kind"] == "betting_open")


def test_the_vip_session_skips_asks_and_is_late() -> None:
    path = FOLDER / "modes_vip_dealer.jsonl"
    seen = events(path)
    assert seen["timer:open_cards"] >= 10 and seen["timer:new_shoe"] == 1
    assert seen["cmd:skip"] >= 6 and seen["cmd:request_dealer"] >= 1
    assert seen["cmd:request_new_shoe"] == 2
    display = "\n".join(replay(path)[0])
    assert "skip refused from player:sim: 5 rounds skipped in a row already" in display
    assert "request dealer refused from player:sim: a request for another dealer is open" \
        in display
    assert "NEW SHOE LATE" in display
    assert kinds(path)["alert"] == 2  # another dealer, and the late shoe


def test_the_upstream_session_is_driven_by_the_game_server() -> None:
    path = FOLDER / "modes_standard_upstream.jsonl"
    opened = read_recording(path)
    betting = [e for e in opened.events
               if getattr(e, "action", "") in ("open_betting", "close_betting")]
    assert betting and all(e.actor.endswith("]") for e in betting)  # type: ignore[union-attr]
    assert kinds(path)["betting_open"] == kinds(path)["round"] >= 10
