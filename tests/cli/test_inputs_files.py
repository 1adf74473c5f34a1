"""Issue 7: every input file the station reads is refused clearly, never a traceback.

One test per defect of the issue, through ``station.cli.main`` as a user meets it: exit 2,
one line ``station CMD: error: FILE...`` naming the file and the line or key.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from station.cli import main
from station.errors import ConfigError
from station.game.limits import short
from station.live.config import load_faults, parse_config
from tests.conftest import REPO

SHOES = REPO / "tests" / "shoes"
PAYTABLES = REPO / "config" / "paytables"
CLEAN = REPO / "tests" / "recordings" / "clean_short_shoe.jsonl"


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the CLI, expect a refusal, return its one error line."""
    started = time.process_time()  # CPU, never wall time: a loaded machine makes it wait
    code = main(list(argv))
    err = capsys.readouterr().err
    assert time.process_time() - started < 2, argv
    assert code == 2, err
    assert "Traceback" not in err
    lines = [x for x in err.splitlines() if x]
    assert len(lines) == 1 and lines[0].startswith(f"station {argv[0]}: error: "), err
    assert len(lines[0]) < 600, "an error message printed a value in full"
    return lines[0]


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# -- undecodable files -----------------------------------------------------------------------


def test_non_utf8_config_fault_script_and_recording(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"table:\n  id: \xff\xfe\n")
    line = refused(capsys, "run", "-c", str(bad))
    assert f"{bad}: not UTF-8 text (byte 13); save it as UTF-8" in line
    line = refused(capsys, "simulate", "--shoe-file", str(SHOES / "short.txt"),
                   "--faults", str(bad))
    assert f"{bad}: not UTF-8 text (byte 13)" in line
    rec = tmp_path / "rec.jsonl"
    rec.write_bytes(CLEAN.read_bytes() + b'{"t": 1767225700.0, "e": "card", "code": "\xff"}\n')
    line = refused(capsys, "replay", str(rec))
    assert f"{rec}, line " in line and "not UTF-8 text" in line


def test_a_byte_order_mark_is_accepted_in_a_shoe_file_and_a_config(tmp_path: Path) -> None:
    shoe = tmp_path / "bom.txt"
    shoe.write_bytes(b"\xef\xbb\xbf" + (SHOES / "short.txt").read_bytes())
    assert main(["simulate", "--shoe-file", str(shoe)]) == 0
    cfg = tmp_path / "c.yaml"
    cfg.write_bytes(b"\xef\xbb\xbftable: {decks: 6}\n")
    assert main(["simulate", "-c", str(cfg), "--shoe-file", str(SHOES / "short.txt")]) == 0


# -- recordings ----------------------------------------------------------------------------


def with_line(tmp_path: Path, line: str, header: str | None = None) -> Path:
    lines = CLEAN.read_text(encoding="utf-8").splitlines()
    if header is not None:
        lines[0] = header
    rec = tmp_path / "rec.jsonl"
    rec.write_text("\n".join([*lines[:3], line, *lines[3:]]) + "\n", encoding="utf-8")
    return rec


HEADER = ('{"format": "dealer-station-recording", "version": 1, "rules": {"table": "table-1", '
          '"decks": 8, "dedupe_ms": 150, "cut_card_between_rounds": "next_round_last"}}')


@pytest.mark.parametrize(("line", "words"), [
    ("[" * 100_000, "nested"),
    ('{"t": ' + "1" * 400 + ', "e": "cut", "src": "s"}', "400 digits"),
    ('{"t": 1e400, "e": "cut", "src": "s"}', "timestamp"),
    ('{"t": 1767225700.0, "e": "card", "code": ["AS"], "src": "s"}', "'code'"),
    ('{"t": "1767225700", "e": "cut", "src": "s"}', "timestamp"),
    ("[1, 2]", "expected a JSON object"),
])
def test_a_bad_event_line_is_refused_by_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             line: str, words: str) -> None:
    rec = with_line(tmp_path, line)
    message = refused(capsys, "replay", str(rec))
    assert f"{rec}, line 4: bad event (" in message and words in message


@pytest.mark.parametrize(("change", "words"), [
    (('"decks": 8', '"decks": 1e400'), "rules.decks: expected a whole number >= 1, got inf"),
    (('"decks": 8', '"decks": 0'), "rules.decks: expected a whole number >= 1, got 0"),
    (('"decks": 8', '"decks": -1'), "rules.decks"),
    (('"decks": 8', '"decks": 8.9'), "rules.decks: expected a whole number >= 1, got 8.9"),
    (('"decks": 8', '"decks": 9'), "rules.decks: expected a whole number <= 8, got 9"),
    (('"dedupe_ms": 150', '"dedupe_ms": -150'), "rules.dedupe_ms"),
    (('"dedupe_ms": 150', '"dedupe_ms": 5001'), "rules.dedupe_ms"),
    (('"table": "table-1"', '"table": "../../x"'), "rules.table: '../../x' is not a table id"),
    (('"table": "table-1"', '"table": "a\\u0000b"'), "rules.table"),
    (('"version": 1', '"version": 2'), "version 2; this station reads 1"),
    (('"version": 1, ', ""), "version None; this station reads 1"),
    (('"next_round_last"', '["next_round_last"]'), "unknown cut card policy"),
])
def test_a_bad_header_is_refused_with_the_config_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: tuple[str, str], words: str
) -> None:
    assert change[0] in HEADER
    rec = with_line(tmp_path, '{"t": 1767225700.0, "e": "cut", "src": "s"}',
                    header=HEADER.replace(*change))
    message = refused(capsys, "replay", str(rec))
    assert f"{rec}, line 1: bad recording header (" in message and words in message


def test_a_bad_line_is_refused_before_any_output_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = with_line(tmp_path, "{not json")
    out = tmp_path / "out.jsonl"
    out.write_text("keep me\n")
    refused(capsys, "replay", str(rec), "--out", str(out))
    assert out.read_text() == "keep me\n"


def test_an_overlong_recording_line_is_refused_without_reading_it_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = with_line(tmp_path, '{"t": 1767225700.0, "e": "cut", "src": "' + "x" * (2 << 20) + '"}')
    assert "line 4: longer than 1024 KiB" in refused(capsys, "replay", str(rec))


# -- configs -------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "words"), [
    ('table: {id: "a\\0b"}\n', "table.id: 'a\\x00b' is not a table id; use 1 to 64 letters"),
    ("table: {id: ../../x}\n", "table.id: '../../x' is not a table id"),
    ("table: {id: " + "a" * 65 + "}\n", "table.id"),
    ("table: {id: [x]}\n", "table.id: ['x'] is not a table id"),
    ("table: {paytable: " + "p" * 300 + "}\n", "table.paytable: "),
    ('table: {paytable: "x\\0y"}\n', "table.paytable: 'x\\x00y' is not a usable path"),
    ("table: {decks: 1000000000}\n", "table.decks: expected a whole number <= 8"),
    ("table: {decks: 0}\n", "table.decks: expected a whole number >= 1"),
    ("table: {decks: 8.0}\n", "table.decks: expected a whole number >= 1, got 8.0"),
    ("reader: {dedupe_ms: 5001}\n", "reader.dedupe_ms: expected a whole number <= 5000"),
    ("simulation: {pace: {card_s: .inf}}\n", "simulation.pace.card_s: expected a number of "
                                             "seconds <= 3600, got inf"),
    ("simulation: {pace: {card_s: .nan}}\n", "simulation.pace.card_s: expected a number of "
                                             "seconds >= 0, got nan"),
    ("simulation: {pace: {betting_s: 3601}}\n", "simulation.pace.betting_s"),
    ("simulation: {faults: [{kind: lost, card: 3, seconds: .inf}]}\n",
     "simulation.faults[0].seconds: expected a number of seconds <= 3600"),
    ("simulation: {shoes: 0}\n", "simulation.shoes: expected a whole number >= 1"),
    ("simulation: {shoes: 1000001}\n", "simulation.shoes: expected a whole number <= 1000000"),
    ("simulation: {seed: -1}\n", "simulation.seed: expected a whole number >= 0"),
    ("simulation: {seed: 9223372036854775808}\n", "simulation.seed: expected a whole number <="),
    ("simulation: {seed: " + "9" * 40 + "}\n", "line 1: not accepted YAML: a whole number of 40"),
    ("results: {path: null}\n", "results.path: null is not a place for results; use - for stdout"),
    ("table: {id: a}\ntable: {id: b}\n", "line 2: not accepted YAML: key 'table' is given twice"),
    ("table: &t {id: a}\nreader: *t\n", "line 2: not accepted YAML: an alias (*t) is not accepted"),
    ("a: &a {x: 1}\ntable:\n  <<: *a\n", "an alias (*a) is not accepted"),
    ("table: {decks: 2024-13-45}\n", "line 1: not accepted YAML: cannot read the value"),
    ("? [a]\n: 1\n", "line 1: not accepted YAML: a key must be plain text"),
    ("table: " + "[" * 50 + "]" * 50 + "\n", "nested more than 32 levels deep"),
    ("table:\n  id: x\n\0", "line 3: not valid YAML"),
])
def test_bad_configs_name_file_and_key(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       text: str, words: str) -> None:
    path = config(tmp_path, text)
    message = refused(capsys, "run", "-c", str(path))
    assert f"station run: error: {path}: " in message
    assert words in message, message


def test_a_table_id_that_is_a_safe_name_is_accepted() -> None:
    for name in ("baccarat-07", "T.1_a", "9" * 64):
        assert parse_config(Path("s.yaml"), {"table": {"id": name}}).rules.table == name


def test_an_oversized_config_is_refused_unread(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = config(tmp_path, "# " + "x" * (200 * 1024) + "\n")
    assert "larger than 128 KiB" in refused(capsys, "run", "-c", str(path))


def test_a_folder_as_config_is_refused(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert f"{tmp_path}: cannot read config (Is a directory)" in refused(
        capsys, "run", "-c", str(tmp_path))


# -- fault scripts -------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "words"), [
    ("- {kind: garbled, card: 418}\n", "faults[0].card: expected a whole number <= 417"),
    ("- {kind: garbled, card: 3, shoe: 2}\n", "faults[0].shoe: expected a whole number <= 1"),
    ("- {kind: delay, card: 3, seconds: .inf}\n", "faults[0].seconds"),
    ("- {kind: garbled, card: 3}\n- {kind: garbled, card: 3, card: 4}\n",
     "line 2: not accepted YAML: key 'card' is given twice"),
    ("- &f {kind: garbled, card: 3}\n- *f\n", "an alias (*f) is not accepted"),
    ("- {kind: [garbled], card: 3}\n", "faults[0].kind: ['garbled'] is not one of"),
])
def test_bad_fault_scripts_name_file_and_key(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             text: str, words: str) -> None:
    path = tmp_path / "f.yaml"
    path.write_text(text, encoding="utf-8")
    message = refused(capsys, "simulate", "--shoe-file", str(SHOES / "short.txt"),
                      "--faults", str(path))
    assert f"{path}: " in message and words in message, message


def test_fault_positions_are_bounded_by_the_shoe_and_the_run(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_text("- {kind: cut, card: 417, shoe: 3}\n", encoding="utf-8")
    assert load_faults(path, decks=8, shoes=3)[0].card == 417
    with pytest.raises(ConfigError, match=r"faults\[0\]\.shoe"):
        load_faults(path, decks=8, shoes=2)
    with pytest.raises(ConfigError, match=r"faults\[0\]\.card: expected a whole number <= 53"):
        load_faults(path, decks=1, shoes=3)
    with pytest.raises(ConfigError, match=r"simulation\.faults\[0\]\.shoe"):
        parse_config(Path("s.yaml"), {"simulation": {"shoes": 1, "faults": [
            {"kind": "garbled", "card": 5, "shoe": 2}]}})


# -- paytables -----------------------------------------------------------------------------


def paytable(tmp_path: Path, old: str, new: str) -> Path:
    text = (PAYTABLES / "seed000.yaml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "p.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(("old", "new", "words"), [
    ("kind: main", "kind: [main]", "key 'kind': unknown bet kind ['main']"),
    ("kind: main", "kind: {a: 1}", "key 'kind': unknown bet kind {'a': 1}"),
    ("win: 0.95", "win: 18446744073709551616",
     "key 'pays.win': 18446744073709551616 is above the largest payout"),
    ("win: 0.95", "win: 10000.5", "is above the largest payout the station accepts (10000 to 1)"),
    ("name: seed000", "name: [seed000]", "key 'name': missing or not a string"),
    ("side: banker", "side: [banker]", "key 'side': ['banker'] is not a side"),
    ("push: [tie]", "push: [[tie]]", "unknown push condition ['tie']"),
])
def test_bad_paytables_are_refused_at_load(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           old: str, new: str, words: str) -> None:
    path = paytable(tmp_path, old, new)
    message = refused(capsys, "analyze", str(path))
    assert f"{path}: " in message and words in message, message


def test_the_largest_payout_is_accepted(tmp_path: Path) -> None:
    assert main(["analyze", str(paytable(tmp_path, "win: 0.95", "win: 10000"))]) == 0


def test_an_alias_bomb_is_refused_at_once_and_not_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bomb = ["name: x", 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    bomb += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 8) + "]" for i in range(1, 9)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(bomb) + "\nbets: *a8\n", encoding="utf-8")
    assert len(path.read_bytes()) < 700
    message = refused(capsys, "analyze", str(path))
    assert "line 3: not accepted YAML: an alias (*a0) is not accepted" in message


def test_a_paytable_with_a_long_value_is_refused_in_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = paytable(tmp_path, "kind: main", "kind: " + "m" * 100_000)
    message = refused(capsys, "analyze", str(path))
    assert "unknown bet kind 'mmmm" in message and "m" * 100 not in message


def test_short_cuts_every_value_to_60_characters() -> None:
    assert short("x") == "'x'"
    assert len(short("x" * 10_000)) <= 60
    assert len(short({"k": "x" * 10_000, "j": list(range(10_000))})) <= 60
    deep: list[object] = []
    for _ in range(5000):
        deep = [deep]
    assert len(short(deep)) <= 60


# -- shoe files ----------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "words"), [
    ("3S 2C CUT 2D\nCUT 2H\n", "line 2: a second CUT (the first is on line 1); a shoe has one"),
    ("AS " * 9 + "\n", "line 1: AS appears 9 times; a 8-deck shoe holds each card 8 times"),
    ("3S\n2C 1X\n", "line 2: '1X' is not a card code"),
    ("# nothing\n", "no card codes in the file"),
    ("\ufeff\ufeffAS\n", "line 1: '\\ufeffAS' is not a card code"),
])
def test_every_shoe_file_rule_is_enforced(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          text: str, words: str) -> None:
    path = tmp_path / "s.txt"
    path.write_text(text, encoding="utf-8")
    message = refused(capsys, "simulate", "--shoe-file", str(path))
    assert f"{path}" in message and words in message, message


def test_a_shoe_file_is_checked_against_the_configs_decks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.txt"
    path.write_text((SHOES / "short.txt").read_text() + "\n3S\n", encoding="utf-8")
    assert main(["simulate", "--shoe-file", str(path)]) == 0
    capsys.readouterr()
    cfg = config(tmp_path, "table: {decks: 1}\n")
    assert "appears 2 times; a 1-deck shoe holds each card 1 times" in refused(
        capsys, "simulate", "-c", str(cfg), "--shoe-file", str(path))


# -- results files (roads) -----------------------------------------------------------------


RECORD = ('{"shoe": "s", "round": %s, "status": "complete", "winner": "banker", '
          '"banker_pair": false, "player_pair": false, "bets": {"lucky_6": '
          '{"outcome": "win", "pays": %s}}}')


@pytest.mark.parametrize(("number", "pays", "words"), [
    ("0", "12", ":1: 'round' is 0, expected a round from 1 to 10000"),
    ("1", '"1e999999999"', ":1: bets['lucky_6'].pays is '1e999999999', expected a number"),
    ("1", "1e308", ":1: bets['lucky_6'].pays is 1e+308, expected a payout from 0 to 10000"),
    ("1", '"99999/1"', ":1: bets['lucky_6'].pays is '99999/1', expected a payout from 0"),
    ("1", '"99999999999999/1"', ":1: bets['lucky_6'].pays is '99999999999999/1', expected a n"),
    ("1", '"1/0"', ":1: bets['lucky_6'].pays is '1/0', expected a number"),
    ("1", "NaN", ":1: bets['lucky_6'].pays is nan, expected a number"),
    ("1" * 400, "12", ":1: not JSON: a number of 400 digits is too long"),
    ("[" * 5000, "12", ":1: not JSON: nested"),
])
def test_bad_results_are_refused_quickly(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         number: str, pays: str, words: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(RECORD % (number, pays) + "\n", encoding="utf-8")
    message = refused(capsys, "roads", "--results", str(path))
    assert f"{path}{words}" in message, message


@pytest.mark.parametrize("winner", ["[]", "{}", '["banker"]'])
def test_a_winner_that_is_not_text_is_refused(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              winner: str) -> None:
    """Found by the long fuzz run (hypothesis: ``{"round": 1, "status": "complete",
    "winner": []}`` raised ``TypeError: unhashable type``)."""
    path = tmp_path / "r.jsonl"
    path.write_text('{"round": 1, "status": "complete", "winner": ' + winner + "}\n",
                    encoding="utf-8")
    assert f"{path}:1: 'winner' is " in refused(capsys, "roads", "--results", str(path))


def test_roads_accepts_a_payout_written_as_a_fraction(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(RECORD % ("1", '"19/20"') + "\n", encoding="utf-8")
    assert main(["roads", "--results", str(path)]) == 0


def test_roads_svg_is_never_written_over_its_input(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(RECORD % ("1", "12") + "\n", encoding="utf-8")
    before = path.read_text()
    assert "is an input of this command" in refused(
        capsys, "roads", "--results", str(path), "--svg", str(path))
    assert path.read_text() == before
    assert main(["roads", "--sequence", "BPB", "--svg", "a\0b"]) == 2
    assert "contains a NUL byte" in capsys.readouterr().err


def test_analyze_decks_are_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["analyze", str(PAYTABLES / "seed000.yaml"), "--decks", "9"])
    assert exit_.value.code == 2
    assert "9: a shoe has 1 to 8 decks" in capsys.readouterr().err
