"""``station roads`` through ``station.cli.main`` and through the installed console script."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import station.cli
from station.commands import COMMANDS
from station.game.cards import parse_card
from station.game.outcome import decide
from station.game.results import complete_record, void_record

ROOT = Path(__file__).resolve().parents[2]
STATION = ROOT / ".venv" / "bin" / "station"
SVG_NS = "{http://www.w3.org/2000/svg}"


def test_roads_is_a_station_command() -> None:
    assert "roads" in COMMANDS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = station.cli.main(["roads", *argv])
    out, err = capsys.readouterr()
    return code, out, err


EXPECTED_BPPTB = {
    "big_road": [
        [{"winner": "banker", "ties": 0}],
        [{"winner": "player", "ties": 0}, {"winner": "player", "ties": 1}],
        [{"winner": "banker", "ties": 0}],
    ],
    # B | P P | B: P row 2 sees column 1 end one row above (blue); B starts a column after
    # columns of 2 and 1 (blue). Small road starts at column 3 row 2: not reached.
    "big_eye_boy": [["blue", "blue"]],
    "small_road": [],
    "cockroach_pig": [],
    # Another B: row 2 of column 3, next to column 2's second P (red); for the small road,
    # column 1 ends one row above (blue). A P: column 4 after columns of 1 and 2 (blue);
    # for the small road columns 3 and 1 are both 1 long (red).
    "ask": {
        "banker": {"big_eye_boy": "red", "small_road": "blue", "cockroach_pig": None},
        "player": {"big_eye_boy": "blue", "small_road": "red", "cockroach_pig": None},
    },
    "good_roads": [],
}


def test_sequence_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--sequence", "BPPTB", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == EXPECTED_BPPTB


def test_sequence_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--sequence", "BPPTB")
    assert code == 0
    assert "Big road\nB  P  B\n.  P/ .\n" in out
    assert "Good roads: none" in out


def test_bad_sequence_letter_names_its_position(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--sequence", "BPQ")
    assert code == 2
    assert out == ""
    assert "--sequence: position 3: 'Q' is not B, P or T" in err


def test_a_source_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        station.cli.main(["roads", "--json"])
    assert exit_info.value.code == 2
    assert "one of the arguments --results --sequence is required" in capsys.readouterr().err


def rec(round_no: int, player: str, banker: str, shoe: str = "shoe-1") -> dict[str, Any]:
    p = tuple(parse_card(c) for c in player.split())
    b = tuple(parse_card(c) for c in banker.split())
    return complete_record(shoe, round_no, decide(p, b))


BANKER = ("2S 3H", "4D 4C")  # 5 v 8, Banker pair
PLAYER = ("9S KH", "2D 3C")  # 9 v 5
TIE = ("7S 7H", "2D 2C")  # 4 v 4, both pairs


def write(path: Path, records: list[dict[str, Any]], extra: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + extra, encoding="utf-8")
    return path


def test_results_file_matches_the_same_sequence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cards = (parse_card("2S"), parse_card("3H"))
    void = void_record("shoe-1", 3, player=cards, banker=cards, reason="misdeal", actor="sup")
    records = [
        rec(1, *BANKER),
        rec(2, *PLAYER),
        void,
        rec(4, *PLAYER),
        rec(5, *TIE),
        rec(6, *BANKER),
    ]
    path = write(tmp_path / "results.jsonl", records, extra="\n")
    code, out, err = run(capsys, "--results", str(path), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == EXPECTED_BPPTB


def test_results_with_several_shoes_draw_the_last_or_the_chosen_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [rec(1, *BANKER, shoe="a"), rec(2, *BANKER, shoe="a"), rec(1, *PLAYER, shoe="b")]
    path = write(tmp_path / "two.jsonl", records)
    _, out, _ = run(capsys, "--results", str(path), "--json")
    assert json.loads(out)["big_road"] == [[{"winner": "player", "ties": 0}]]
    _, out, _ = run(capsys, "--results", str(path), "--json", "--shoe", "a")
    assert json.loads(out)["big_road"] == [[{"winner": "banker", "ties": 0}] * 2]
    code, _, err = run(capsys, "--results", str(path), "--shoe", "c")
    assert code == 2
    assert "no rounds of shoe 'c'" in err


def test_a_repeated_record_is_kept_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [rec(1, *BANKER), rec(1, *BANKER), rec(2, *PLAYER)]
    _, out, _ = run(capsys, "--results", str(write(tmp_path / "r.jsonl", records)), "--json")
    assert [len(c) for c in json.loads(out)["big_road"]] == [1, 1]


@pytest.mark.parametrize(
    ("lines", "fault"),
    [
        (['{"shoe": "s", "round": 1', ""], ":1: not JSON"),
        (["[1, 2]"], ":1: expected a JSON object"),
        ([json.dumps(rec(1, *BANKER) | {"winner": "dragon"})], ":1: 'winner' is 'dragon'"),
        ([json.dumps(rec(1, *BANKER)), "", json.dumps(rec(1, *PLAYER))], ":3: round 1 of shoe"),
        ([json.dumps(rec(2, *BANKER)), json.dumps(rec(1, *PLAYER))], ":2: round 1 comes after"),
        ([json.dumps(rec(1, *BANKER) | {"round": "1"})], ":1: 'round' is '1'"),
    ],
)
def test_bad_results_file_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[str], fault: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "--results", str(path), "--json")
    assert code == 2
    assert out == ""
    assert f"station roads: error: {path}{fault}" in err


def test_results_line_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(json.dumps(rec(1, *BANKER)).encode() + b"\n\xff\xfe\n")
    code, out, err = run(capsys, "--results", str(path), "--json")
    assert (code, out) == (2, "")
    assert f"{path}:2: not UTF-8 text" in err


def test_missing_results_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--results", str(tmp_path / "none.jsonl"))
    assert code == 2
    assert "none.jsonl: cannot read: No such file or directory" in err


def test_svg_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "board.svg"
    code, out, _ = run(capsys, "--sequence", "BBPPTBPBBBBBBBBPP", "--svg", str(target))
    assert (code, out) == (0, "")
    root = ET.parse(target).getroot()
    assert root.tag == f"{SVG_NS}svg"
    assert len(root.findall(f".//{SVG_NS}g[@class='bead banker']")) == 11
    code, out, _ = run(capsys, "--sequence", "BP", "--svg", "-", "--json")
    first_line, rest = out.split("\n", 1)
    assert json.loads(first_line)["big_road"][1] == [{"winner": "player", "ties": 0}]
    assert ET.fromstring(rest).tag == f"{SVG_NS}svg"


def test_console_script(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(STATION), "roads", "--sequence", "BPPTB", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout) == EXPECTED_BPPTB
    bad = subprocess.run(
        [str(STATION), "roads", "--sequence", "BPx"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert "position 3: 'x' is not B, P or T" in bad.stderr


def test_roads_of_a_simulated_shoe(tmp_path: Path) -> None:
    """``station simulate`` output is what ``--results`` reads: the record contract holds."""
    shoe = tmp_path / "shoe.jsonl"
    subprocess.run(
        [str(STATION), "simulate", "--seed", "5", "--out", str(shoe)],
        capture_output=True,
        timeout=60,
        check=True,
    )
    records = [json.loads(line) for line in shoe.read_text(encoding="utf-8").splitlines()]
    done = subprocess.run(
        [str(STATION), "roads", "--results", str(shoe), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    roads = json.loads(done.stdout)
    decided = [r["winner"] for r in records if r["winner"] in ("banker", "player")]
    assert [e["winner"] for column in roads["big_road"] for e in column] == decided
    ties = sum(r["winner"] == "tie" for r in records)
    assert sum(e["ties"] for column in roads["big_road"] for e in column) == ties
