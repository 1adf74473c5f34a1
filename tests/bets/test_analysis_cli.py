"""``station analyze PAYTABLE [--variant V] [--decks N] [--json] [--strict]``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from station.cli import main

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"


def test_json_is_exactly_the_documented_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(PAYTABLES / "seed000.yaml"), "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert set(doc) == {"bets", "decks"}
    assert doc["decks"] == 8
    assert list(doc["bets"])[:3] == ["player", "banker", "tie"]
    for figures in doc["bets"].values():
        assert set(figures) == {"house_edge", "rtp", "win_probability"}
        assert figures["house_edge"] == pytest.approx(1 - figures["rtp"])
    assert round(doc["bets"]["banker"]["house_edge"], 6) == 0.010579  # a fraction, not 1.06
    assert round(doc["bets"]["banker"]["win_probability"], 6) == 0.458597
    assert err == ""  # every seed 000 bet returns 70-100%


def test_table_is_sorted_by_return(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(PAYTABLES / "seed000.yaml"), "--variant", "no_commission"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("seed000+no_commission (")
    returns = [float(line.split("%")[0]) for line in lines[2:]]
    assert returns == sorted(returns, reverse=True)
    assert len(returns) == 14
    assert lines[2].split()[-2:] == ["player", "闲"]
    assert "98.5419%" in next(line for line in lines if line.endswith("banker 庄"))


def test_implausible_returns_are_warned_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 003 as written has four bets returning under 70% (docs/paytables.md)."""
    path = PAYTABLES / "seed003.yaml"
    assert main(["analyze", str(path)]) == 0
    err = capsys.readouterr().err
    flagged = sorted(line.split("'")[1] for line in err.splitlines())
    assert flagged == [
        "banker_four_fortune",
        "invincible_6",
        "player_four_fortune",
        "tiger_buffalo",
    ]
    assert str(path) in err
    assert main(["analyze", str(path), "--strict", "--json"]) == 1


def test_a_typo_in_a_payout_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text(
        "name: typo\nbets:\n  - {key: tie, label: 和, kind: tie, pays: {win: 80}, push: [],"
        " cutoff_round: null}\n",
        encoding="utf-8",
    )
    assert main(["analyze", str(path), "--strict"]) == 1
    assert "bet 'tie' returns 770.76%" in capsys.readouterr().err


def test_decks_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(PAYTABLES / "seed000.yaml"), "--json", "--decks", "6"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["decks"] == 6
    assert round(doc["bets"]["banker"]["house_edge"], 6) == 0.010558
    with pytest.raises(SystemExit) as exit_:
        main(["analyze", str(PAYTABLES / "seed000.yaml"), "--decks", "0"])
    assert exit_.value.code == 2


def test_bad_paytable_exits_2_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyze", str(tmp_path / "missing.yaml")]) == 2
    assert "cannot read the paytable" in capsys.readouterr().err
    assert main(["analyze", str(PAYTABLES / "seed000.yaml"), "--variant", "nope"]) == 2
    assert "variant 'nope'" in capsys.readouterr().err


# --- --remaining (issue 25) -----------------------------------------------------------------
def _remaining_json(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> Any:
    assert main(["analyze", str(PAYTABLES / "seed000.yaml"), "--remaining", str(path),
                 "--json", *extra]) == 0
    doc = json.loads(capsys.readouterr().out)
    return doc


def test_remaining_as_cards_out_and_as_cards_left_agree(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The two forms of FILE for the same shoe give the same figures; an empty list of cards
    out is a full shoe, today's figures."""
    out = tmp_path / "out.txt"
    out.write_text("# burned and dealt\nAS AS 5D\nKH CUT 9C\n")
    left = {f"{r}{s}": 8 for r in "A23456789TJQK" for s in "SHDC"}
    left.update({"AS": 6, "5D": 7, "KH": 7, "9C": 7})
    lf = tmp_path / "left.json"
    lf.write_text(json.dumps(left))
    by_out = _remaining_json(capsys, out)
    by_left = _remaining_json(capsys, lf)
    assert by_out["bets"] == by_left["bets"]
    assert by_out["cards_left"] == by_left["cards_left"] == 411
    assert by_out["decks"] == 8 and by_left["decks"] is None
    empty = tmp_path / "none.txt"
    empty.write_text("# nothing has left the shoe\n")
    assert main(["analyze", str(PAYTABLES / "seed000.yaml"), "--json"]) == 0
    today = json.loads(capsys.readouterr().out)
    assert _remaining_json(capsys, empty)["bets"] == today["bets"]


def test_remaining_table_names_the_cards_left(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lf = tmp_path / "left.json"
    lf.write_text('{"AS": 3, "4D": 4, "KS": 2, "9H": 1}')  # absent codes count 0
    assert main(["analyze", str(PAYTABLES / "seed000.yaml"), "--remaining", str(lf)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(f"10 cards left ({lf}: cards remaining), exact")
    assert out[2].split()[-2] == "perfect_pair"  # 4 of 10 cards are the same card


@pytest.mark.parametrize("text, why", [
    ('{"AS": 9}', "AS: 9 is not a count of cards; give a whole number from 0 to 8"),
    ('{"AS": true}', "AS: True is not a count"),
    ('{"AS": 2.5}', "AS: 2.5 is not a count"),
    ('{"ZZ": 3}', "key 'ZZ' is not a card code"),
    ('{"TD": 3, "10D": 3}', "'10D' and 'TD' are the same card"),
    ('{"AS": 5}', "5 cards left; a round may need 6"),
    ("[1, 2]", "not a JSON object"),
    ('{"AS": 3', "not JSON"),
    ("AS XX", "line 1: 'XX' is not a card code"),
    ("AS " * 9, "AS appears 9 times; a 8-deck shoe"),
])
def test_bad_remaining_files_exit_2_naming_file_and_fault(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, why: str) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text(text)
    assert main(["analyze", str(PAYTABLES / "seed000.yaml"), "--remaining", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"station analyze: error: {bad}") and why in err, err
