"""The command-line contract of issue 2, through the real console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from station.cli import main
from tests.conftest import REPO
from tests.core.test_properties import check_legal

SHOES = REPO / "tests" / "shoes"
REQUIRED = {"shoe", "round", "status", "player", "banker", "player_total", "banker_total",
            "winner", "natural", "player_pair", "banker_pair", "perfect_pair"}


def station(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "station"
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, check=False)


def lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def test_shoe_file_deals_exactly_by_the_rules() -> None:
    res = station("simulate", "--shoe-file", str(SHOES / "short.txt"), "--out", "-")
    assert res.returncode == 0, res.stderr
    rounds = lines(res.stdout)
    assert all(r.keys() >= REQUIRED for r in rounds)
    got = [(r["round"], r["player"], r["banker"], r["winner"]) for r in rounds]
    assert got == [
        (1, ["4S", "5D"], ["3H", "2C"], "player"),
        (2, ["2S", "3D", "8C"], ["TH", "3C"], "tie"),
        (3, ["3S", "4H"], ["2D", "3C", "4S"], "banker"),
        (4, ["4S", "9D", "KH"], ["4S", "QD"], "banker"),  # CUT made round 4 the last
    ]
    assert rounds[3]["player_pair"] is False and rounds[3]["natural"] is False
    assert "4 rounds complete" in res.stderr


def test_cut_inside_the_burn_pauses_and_deals_nothing() -> None:
    res = station("simulate", "--shoe-file", str(SHOES / "cut_in_burn.txt"), "--out", "-")
    assert res.returncode == 0
    assert res.stdout == ""
    assert "stopped PAUSED: cut card came out during the burn" in res.stderr


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("bad_code.txt", "bad_code.txt, line 2: '1X' is not a card code"),
        ("nine_copies.txt", "nine_copies.txt, line 5: 7H appears 9 times; a 8-deck shoe"),
    ],
)
def test_bad_shoe_files_are_refused_before_dealing(tmp_path: Path, name: str,
                                                   message: str) -> None:
    out = tmp_path / "rounds.jsonl"
    res = station("simulate", "--shoe-file", str(SHOES / name), "--out", str(out))
    assert res.returncode == 2
    assert message in res.stderr
    assert not out.exists(), "nothing may be dealt from a refused shoe file"


def test_missing_shoe_file_and_bad_usage_exit_2(tmp_path: Path) -> None:
    res = station("simulate", "--shoe-file", str(tmp_path / "nope.txt"))
    assert res.returncode == 2 and "nope.txt: cannot read shoe file" in res.stderr
    res = station("simulate", "--shoes", "2", "--shoe-file", "x")
    assert res.returncode == 2 and "not allowed with argument" in res.stderr
    res = station("simulate", "--shoes", "0")
    assert res.returncode == 2 and "play at least 1 shoe" in res.stderr


def test_seeded_shoes_are_legal_and_reproducible(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (a, b):
        assert main(["simulate", "--shoes", "3", "--seed", "7", "--out", str(out)]) == 0
    assert a.read_bytes() == b.read_bytes()
    rounds = lines(a.read_text())
    assert len({r["shoe"] for r in rounds}) == 3
    assert len({r["key"] for r in rounds}) == len(rounds) > 150
    for r in rounds:
        check_legal(r)


def test_replay_reproduces_a_simulation_with_faults(tmp_path: Path) -> None:
    faults = tmp_path / "faults.yaml"
    faults.write_text(
        "- {kind: garbled, card: 20}\n"
        "- {kind: double, card: 30}\n"
        "- {kind: lost, card: 40, seconds: 8}\n"
        "- {kind: not_due, after_round: 9}\n"
        "- {kind: not_due, after_round: 12}\n"
    )
    rec, out, again = tmp_path / "rec.jsonl", tmp_path / "out.jsonl", tmp_path / "again.jsonl"
    res = station("simulate", "--shoes", "1", "--seed", "3", "--faults", str(faults),
                  "--supervisor", "resume", "--record", str(rec), "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert len(lines(out.read_text())) > 60
    res = station("replay", str(rec), "--out", str(again))
    assert res.returncode == 0, res.stderr
    assert again.read_bytes() == out.read_bytes()


def test_replay_display_matches_the_original_display(tmp_path: Path) -> None:
    rec = tmp_path / "rec.jsonl"
    first = station("simulate", "--shoes", "1", "--seed", "4", "--record", str(rec),
                    "--display")
    second = station("replay", str(rec), "--display")
    shown = [x for x in first.stderr.splitlines() if not x.startswith("simulated ")]
    replayed = [x for x in second.stderr.splitlines() if not x.startswith("replayed ")]
    assert shown == replayed and len(shown) > 400


def test_a_bad_recording_names_the_line(tmp_path: Path) -> None:
    rec = tmp_path / "rec.jsonl"
    station("simulate", "--shoe-file", str(SHOES / "short.txt"), "--record", str(rec))
    text = rec.read_text().splitlines()
    text[5] = '{"t": 1, "e": "teleport"}'
    rec.write_text("\n".join(text) + "\n")
    res = station("replay", str(rec))
    assert res.returncode == 2
    assert "rec.jsonl, line 6: bad event (unknown event type 'teleport'" in res.stderr
    rec.write_text("not json\n")
    res = station("replay", str(rec))
    assert res.returncode == 2 and "line 1: bad recording header" in res.stderr


def test_version_and_help() -> None:
    res = station("--help")
    assert res.returncode == 0
    for cmd in ("run", "simulate", "replay"):
        assert cmd in res.stdout
    assert station("--version").stdout.startswith("station ")


def test_stdout_closed_early_is_not_an_error() -> None:
    exe = Path(sys.executable).parent / "station"
    proc = subprocess.run(
        f"'{exe}' simulate --shoes 20 --out - | head -n 1", shell=True, capture_output=True,
        text=True, timeout=120, check=False, env={**os.environ},
    )
    assert len(proc.stdout.splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_records_carry_bets_and_open_bets_and_stats_report_them(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    res = station("simulate", "--shoes", "2", "--seed", "9", "--out", str(out), "--stats")
    assert res.returncode == 0, res.stderr
    rounds = lines(out.read_text())
    first = rounds[0]
    assert first["open_bets"][:3] == ["player", "banker", "tie"]
    assert set(first["bets"]) == set(first["open_bets"])  # round 1: every bet is open
    assert all(v["outcome"] in ("win", "push", "lose") for v in first["bets"].values())
    for r in rounds:
        if r["winner"] != "tie":
            assert r["bets"][r["winner"]]["outcome"] == "win"
        else:
            assert r["bets"]["banker"]["outcome"] == r["bets"]["player"]["outcome"] == "push"
    assert "exact" in res.stderr and "perfect_pair" in res.stderr


def test_no_bets_and_other_paytables(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    assert station("simulate", "--no-bets", "--out", str(out)).returncode == 0
    assert "bets" not in lines(out.read_text())[0]
    res = station("simulate", "--paytable", str(REPO / "config" / "paytables" / "seed003.yaml"),
                  "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert "tiger_pair" in lines(out.read_text())[0]["bets"]
    res = station("simulate", "--shoes", "3", "--variant", "no_commission", "--out", str(out))
    assert res.returncode == 0, res.stderr
    banker_six = [r for r in lines(out.read_text())
                  if r["winner"] == "banker" and r["banker_total"] == 6]
    assert banker_six and all(r["bets"]["banker"]["pays"] == 0.5 for r in banker_six)
    res = station("simulate", "--variant", "no_such_variant")
    assert res.returncode == 2 and "no_such_variant" in res.stderr


def test_a_recording_carries_its_paytable(tmp_path: Path) -> None:
    table = tmp_path / "table.yaml"
    table.write_text((REPO / "config" / "paytables" / "seed000.yaml").read_text())
    rec, out, again = tmp_path / "rec.jsonl", tmp_path / "out.jsonl", tmp_path / "again.jsonl"
    res = station("simulate", "--paytable", str(table), "--record", str(rec), "--out", str(out))
    assert res.returncode == 0, res.stderr
    table.write_text("name: edited\n")  # the file changes after the session
    assert station("replay", str(rec), "--out", str(again)).returncode == 0
    assert again.read_bytes() == out.read_bytes()
    assert "bets" in lines(again.read_text())[0]


def test_unwritable_outputs_are_usage_errors(tmp_path: Path) -> None:
    res = station("simulate", "--out", str(tmp_path / "no" / "x.jsonl"))
    assert res.returncode == 2 and "--out" in res.stderr and "cannot write" in res.stderr
    res = station("simulate", "--record", str(tmp_path))
    assert res.returncode == 2 and "--record" in res.stderr and "Traceback" not in res.stderr


@pytest.mark.parametrize("bad", ["1e300", "NaN", "-1e15"])
def test_a_recording_with_an_impossible_time_names_the_line(tmp_path: Path, bad: str) -> None:
    rec = tmp_path / "rec.jsonl"
    station("simulate", "--shoe-file", str(SHOES / "short.txt"), "--record", str(rec))
    text = rec.read_text().splitlines()
    first = json.loads(text[1])
    first["t"] = float(bad)
    text[1] = json.dumps(first)
    rec.write_text("\n".join(text) + "\n")
    res = station("replay", str(rec))
    assert res.returncode == 2, res.stderr
    assert "rec.jsonl, line 2: bad event (timestamp" in res.stderr


def test_a_not_due_card_behind_the_cut_card_still_comes(tmp_path: Path) -> None:
    faults = tmp_path / "f.yaml"
    faults.write_text("- {kind: not_due, after_round: 3}\n")
    res = station("simulate", "--shoe-file", str(SHOES / "short.txt"), "--faults", str(faults),
                  "--out", "-")
    assert res.returncode == 0
    assert "stopped PAUSED: card not due: 4S" in res.stderr
    assert len(lines(res.stdout)) == 3


def test_betting_open_announcements_carry_the_open_bets(tmp_path: Path) -> None:
    out, said = tmp_path / "r.jsonl", tmp_path / "a.jsonl"
    res = station("simulate", "--seed", "4", "--out", str(out), "--announcements", str(said))
    assert res.returncode == 0, res.stderr
    rounds, said_all = lines(out.read_text()), lines(said.read_text())
    # The shoe's report is announced last (docs/integrity.md); the rest open betting.
    assert said_all[-1]["type"] == "shoe_report"
    announced = said_all[:-1]
    assert [a["key"] for a in announced] == [r["key"] for r in rounds]
    assert all(a["open_bets"] == r["open_bets"] for a, r in zip(announced, rounds, strict=True))
    late = [a for a in announced if a["round"] > 60]
    assert late and all("player_pair" not in a["open_bets"] for a in late)  # seed 000: 60
    assert all("either_pair" in a["open_bets"] for a in announced if a["round"] <= 50)


# short.txt: cards 1-4 are the burn, round 1 is cards 5-8, round 2 9-13, round 3 14-18.
@pytest.mark.parametrize(("card", "rounds", "ends"),
                         [(3, 0, "stopped PAUSED: cut card"), (9, 2, "2 rounds complete"),
                          (15, 3, "3 rounds complete")])
def test_fault_script_places_the_cut_card(tmp_path: Path, card: int, rounds: int,
                                          ends: str) -> None:
    faults = tmp_path / "f.yaml"
    faults.write_text(f"- {{kind: cut, card: {card}}}\n")
    res = station("simulate", "--shoe-file", str(SHOES / "short.txt"), "--faults", str(faults),
                  "--out", "-")
    assert res.returncode == 0, res.stderr
    assert len(lines(res.stdout)) == rounds
    assert ends in res.stderr
