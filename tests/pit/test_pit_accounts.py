"""The pit's accounts (issue 31) against a real pit process: a locked account beside a
working one, the same answer for every kind of failure, the lockout across a restart, the
sign_in_failures alert, a surveillance account refused an action, at most 5 checked guesses
for an account however many come at once, and today's PIN lines read as pit bosses."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from station.web import pins
from tests.pit.pitkit import BOSS, BOSS_PIN, OTHER, OTHER_PIN, Pit, PitFolder

WRONG = (401, {"error": "wrong name or PIN", "fix": "enter your own name and PIN"})
EVE, EVE_PIN = "eve", "5555"


def ack_kind(pit: Pit, name: str, pin: str) -> tuple[int, Any]:
    return pit.request("POST", "/api/alerts/ack", {"name": name, "pin": pin,
                                                    "kind": "sign_in_failures"})


def verdicts(folder: PitFolder) -> list[tuple[str, str]]:
    with sqlite3.connect(f"file:{folder.journal}?mode=ro", uri=True) as db:
        return [(str(n), str(v)) for n, v in
                db.execute("SELECT name, verdict FROM sign_ins ORDER BY id")]


def test_the_lockout_locks_one_account_reads_the_same_and_survives_a_restart(
        tmp_path: Path) -> None:
    folder = PitFolder(tmp_path / "pit")
    # Today's PIN lines (no roles: pit bosses) beside a surveillance account.
    entries = pins.load(folder.pins)
    pins.save(folder.pins, [*entries, pins.hash_pin(EVE, EVE_PIN, ("surveillance",))])
    keys = tmp_path / "keys"
    keys.mkdir()
    config = folder.config(1, keys)
    pit = Pit(config, folder.port)
    try:
        # A name that is no account, another's PIN, and a wrong PIN: one answer.
        assert ack_kind(pit, "zed", BOSS_PIN) == WRONG
        assert ack_kind(pit, BOSS, OTHER_PIN) == WRONG  # the first of ann's 5 in a row
        for _ in range(4):
            assert ack_kind(pit, BOSS, "0000") == WRONG
        assert ack_kind(pit, BOSS, BOSS_PIN) == WRONG  # locked: still the same answer
        # The lockout raised its alert, which the other pit boss, not locked, acknowledges.
        alerts = pit.alerts(kind="sign_in_failures")
        assert len(alerts) == 1 and alerts[0]["table"] == "pit"
        assert alerts[0]["detail"] == "ann: 5 wrong PINs in a row from 127.0.0.1; locked 60 s"
        # Surveillance reads, and may not act.
        status, body = ack_kind(pit, EVE, EVE_PIN)
        assert status == 403 and body["error"] == "eve may not acknowledge (roles: "\
            "surveillance)", body
        status, body = ack_kind(pit, OTHER, OTHER_PIN)
        assert status == 200 and body["by"] == OTHER, body
    finally:
        assert pit.stop() == 0
        pit.close()
    journal = verdicts(folder)
    assert journal[:8] == [("zed", "wrong"), *[(BOSS, "wrong")] * 5, (BOSS, "lockout"),
                           (BOSS, "locked")]
    assert (BOSS, "locked") in journal and (EVE, "not_allowed") in journal
    # After a restart the account is still locked; the other still works.
    pit = Pit(config, folder.port)
    try:
        assert ack_kind(pit, BOSS, BOSS_PIN) == WRONG
        assert verdicts(folder)[-1] == (BOSS, "locked")
        assert ack_kind(pit, OTHER, OTHER_PIN)[0] == 409  # signed in; nothing open now
    finally:
        assert pit.stop() == 0
        pit.close()


def test_at_most_5_checked_guesses_for_an_account_however_many_come_at_once(
        tmp_path: Path) -> None:
    folder = PitFolder(tmp_path / "pit")
    keys = tmp_path / "keys"
    keys.mkdir()
    pit = Pit(folder.config(1, keys), folder.port)
    try:
        codes: list[int] = []
        threads = [threading.Thread(target=lambda i=i: codes.append(
            ack_kind(pit, BOSS, f"{1000 + i}")[0])) for i in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert set(codes) <= {401, 429} and len(codes) == 40
    finally:
        assert pit.stop() == 0
        pit.close()
    checked = [v for n, v in verdicts(folder) if n == BOSS and v == "wrong"]
    assert len(checked) == 5
