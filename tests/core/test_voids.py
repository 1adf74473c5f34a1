"""Voids with a paytable: every bet refunded, every card kept in the count, the shoe's last
round honoured. Each test here failed against a mutant of the void path (see
docs/testing.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from drivers.events import Command
from station.game.results import VOID_NOTE_MAX, printable_note
from station.settings.paytable import load_paytable
from station.table.station import Station
from station.table.tablerules import TableRules
from station.wire.recording import event_from_json, event_to_json
from station.wire.schema import validate
from tests.conftest import REPO
from tests.tablekit import Table

SEED000 = REPO / "config" / "paytables" / "seed000.yaml"


def paid_table() -> Table:
    t = Table()
    t.station = Station(TableRules(), load_paytable(SEED000))
    return t


def test_a_void_refunds_every_open_bet_with_the_open_bets_recorded() -> None:
    t = paid_table()
    t.new_shoe()
    t.round("4S", "3H")
    t.card("\x15?Q")
    t.cmd("void", actor="supervisor:ann")
    r = t.records[0]
    paytable = t.station.paytable
    assert paytable is not None
    assert r["status"] == "void" and r["open_bets"]
    assert set(r["bets"]) == {b.key for b in paytable.bets}
    assert all(v == {"outcome": "push", "pays": 0} for v in r["bets"].values())


def test_a_voided_rounds_cards_stay_in_the_shoe_count() -> None:
    t = paid_table()
    t.new_shoe()  # AS burns one more: 2 cards
    t.round("4S", "3H", "5D")
    t.cmd("void", actor="supervisor:ann")
    shoe = t.station.dealing.shoe
    assert shoe is not None
    assert shoe.drawn == 5 and shoe.remaining == 416 - 5
    assert sorted(c.code for c in shoe.discarded) == ["3H", "4S", "5D"]
    assert shoe.dealt == 0  # discarded, not dealt


def test_a_voided_last_round_closes_the_shoe() -> None:
    t = paid_table()
    t.new_shoe()
    t.round("4S", "3H")
    t.cut()  # in a round: this round is the last
    t.cmd("void", actor="supervisor:ann")
    assert t.records[-1]["status"] == "void"
    assert t.phase == "shoe_closed"


def test_a_void_between_rounds_keeps_the_promised_last_round() -> None:
    t = paid_table()
    t.new_shoe()
    t.cut()  # between rounds: the next round is the last
    t.card("9H")  # not due: pause between rounds
    t.cmd("void", actor="supervisor:ann")
    assert t.phase == "between_rounds" and "CUT CARD OUT" in t.prompt
    t.round("9C", "8D", "KC", "QD")  # naturals: the round ends on four cards
    assert t.records[-1]["status"] == "complete"
    assert t.phase == "shoe_closed"


def test_simulate_with_a_voiding_supervisor_publishes_voids_with_refunds(tmp_path: Path) -> None:
    faults = tmp_path / "f.yaml"
    faults.write_text("- {kind: garbled, card: 20}\n- {kind: lost, card: 40, seconds: 1}\n"
                      "- {kind: not_due, after_round: 5}\n")
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "station.cli", "simulate", "--shoes", "1", "--seed", "4",
         "--faults", str(faults), "--supervisor", "void", "--out", str(out)],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(x) for x in out.read_text().splitlines()]
    voids = [r for r in records if r["status"] == "void"]
    assert len(voids) == 2, proc.stderr
    for r in voids:
        assert r["voided_by"] == "supervisor:sim" and r["bets"]
        assert {v["outcome"] for v in r["bets"].values()} == {"push"}
    # Every round number of the shoe is published once, void or complete.
    assert [r["round"] for r in records] == list(range(1, len(records) + 1))


# --- void_note: what the one voiding wrote (docs/messages.md) -----------------------------
def test_a_void_with_a_note_puts_it_on_the_record_sanitized_and_bounded() -> None:
    t = paid_table()
    t.new_shoe()
    t.round("4S", "3H")
    t.card("\x15?Q")
    t.send(Command("void", "upstream:pit/ann [c-9]", t.tick(1.0),
                   "  misdeal\non camera\x15 " + "x" * 300))
    (r,) = t.records
    assert r["voided_by"] == "upstream:pit/ann [c-9]"
    note = r["void_note"]
    assert note.startswith("misdeal\\non camera\\x15 x") and note.endswith("...")
    assert len(note) == VOID_NOTE_MAX and note.isprintable()
    keys = list(r)
    assert keys[keys.index("voided_by"):][:3] == ["voided_by", "void_note", "dealer"]
    validate({**r, "kind": "round", "table": "t", "seq": 2, "prev_seq": 1,
              "ts": "2026-01-01T00:00:03.250Z", "sig": "A" * 86 + "=="})


def test_a_void_without_a_note_keeps_its_bytes_and_a_note_elsewhere_goes_nowhere() -> None:
    t = paid_table()
    t.new_shoe()
    t.round("4S", "3H")
    t.send(Command("resume", "upstream:pit [c-1]", t.tick(1.0), "not paused"))  # refused
    t.card("\x15?Q")
    t.send(Command("void", "upstream:pit [c-2]", t.tick(1.0), " \n "))  # nothing to show
    (r,) = t.records
    assert "void_note" not in r
    keys = list(r)
    assert keys[keys.index("void_reason"):][:3] == ["void_reason", "voided_by", "dealer"]
    assert printable_note("ok") == "ok" and printable_note("a\tb") == "a\\tb"


def test_a_note_survives_the_journal_and_a_recording() -> None:
    event = Command("void", "upstream:pit/ann [c-9]", 1_767_225_603.25, "misdeal\x15")
    assert event_from_json(json.loads(json.dumps(event_to_json(event)))) == event
    plain = Command("void", "supervisor:ann", 1_767_225_603.25)
    assert "note" not in event_to_json(plain)  # recordings without notes keep their bytes
