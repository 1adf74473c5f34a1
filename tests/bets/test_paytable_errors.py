"""Strict validation: every mistake names the file, the bet and the key, and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from station.errors import ConfigError
from station.settings.paytable import load_paytable

GOOD = """\
name: test
bets:
  - key: banker
    label: 庄
    kind: main
    side: banker
    pays: {win: 0.95}
    push: [tie]
    cutoff_round: null
  - key: lucky_6
    label: 幸运6
    kind: wins_with
    side: banker
    total: 6
    pays: {two_cards: 12, three_cards: 20}
    push: []
    cutoff_round: 50
  - key: treasure
    label: 宝
    kind: any_of
    bets: [lucky_6]
    pays: {win: 5}
    push: []
    cutoff_round: null
variants:
  free:
    bets:
      banker: {pays: {win: 1, win_with_6: 0.5}}
  tie9:
    bets:
      banker: {pays: {win: 1}}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_base_file_is_valid(tmp_path: Path) -> None:
    table = load_paytable(write(tmp_path, GOOD))
    assert table.keys == ("banker", "lucky_6", "treasure")


# (replace this, with that, words the message must contain besides the file name)
BET_ERRORS = [
    ("    cutoff_round: 50\n", "", ["bet 'lucky_6'", "key 'cutoff_round'", "missing", "null"]),
    ("    push: [tie]\n", "", ["bet 'banker'", "key 'push'", "missing"]),
    ("kind: wins_with", "kind: lucky", ["bet 'lucky_6'", "key 'kind'", "unknown bet kind", "main"]),
    (
        "three_cards: 20",
        "three_cards: -20",
        ["bet 'lucky_6'", "key 'pays.three_cards'", "positive"],
    ),
    ("three_cards: 20", "three_cards: 0", ["bet 'lucky_6'", "key 'pays.three_cards'"]),
    ("three_cards: 20", "three_cards: .nan", ["bet 'lucky_6'", "key 'pays.three_cards'"]),
    ("three_cards: 20", "three_cards: .inf", ["bet 'lucky_6'", "key 'pays.three_cards'"]),
    ("three_cards: 20", "three_cards: 1.0e+400", ["bet 'lucky_6'", "key 'pays.three_cards'"]),
    ("three_cards: 20", "three_cards: lots", ["bet 'lucky_6'", "key 'pays.three_cards'"]),
    ("three_cards: 20", "four_cards: 20", ["bet 'lucky_6'", "key 'pays.four_cards'", "two_cards"]),
    ("{win: 0.95}", "{}", ["bet 'banker'", "key 'pays'"]),
    ("{win: 0.95}", "{win_with_6: 0.5}", ["bet 'banker'", "key 'pays.win'", "missing"]),
    ("cutoff_round: 50", "cutoff_round: 0", ["bet 'lucky_6'", "key 'cutoff_round'", "N >= 1"]),
    ("cutoff_round: 50", "cutoff_round: '50'", ["bet 'lucky_6'", "key 'cutoff_round'"]),
    ("cutoff_round: 50", "cutoff_round: true", ["bet 'lucky_6'", "key 'cutoff_round'"]),
    (
        "    total: 6\n",
        "    total: 6\n    colour: red\n",
        ["bet 'lucky_6'", "key 'colour'", "remove"],
    ),
    (
        "    total: 6\n",
        "    total: 6\n    payout: 3\n",
        ["bet 'lucky_6'", "key 'payout'", "allowed"],
    ),
    ("    total: 6\n", "", ["bet 'lucky_6'", "key 'total'", "needs it"]),
    ("total: 6", "total: 10", ["bet 'lucky_6'", "key 'total'", "0..9"]),
    ("side: banker\n    total", "side: dealer\n    total", ["bet 'lucky_6'", "key 'side'"]),
    ("push: [tie]", "push: [natural]", ["bet 'banker'", "key 'push'", "natural_tie"]),
    ("push: [tie]", "push: tie", ["bet 'banker'", "key 'push'", "list"]),
    ("push: []\n    cutoff_round: 50", "push: [tie]\n    cutoff_round: 50", []),  # allowed
    ("bets: [lucky_6]", "bets: [lucky_7]", ["bet 'treasure'", "key 'bets'", "'lucky_7'"]),
    ("bets: [lucky_6]", "bets: [treasure]", ["bet 'treasure'", "key 'bets'", "itself"]),
    ("key: lucky_6", "key: banker", ["bet 'banker'", "key 'key'", "twice"]),
    ("key: lucky_6", "key: Lucky 6", ["key 'key'", "lower_snake_case"]),
    ("label: 幸运6", "label: ''", ["bet 'lucky_6'", "key 'label'"]),
    ("name: test", "name: test\ncolour: red", ["key 'colour'", "top-level"]),
    ("name: test\n", "", ["key 'name'"]),
    (
        "      banker: {pays: {win: 1, win_with_6: 0.5}}",
        "      banker: {pays: {win: -1}}",
        ["variant 'free'", "bet 'banker'", "key 'pays.win'"],
    ),
    (
        "      banker: {pays: {win: 1}}",
        "      banker: {kind: tie}",
        ["variant 'tie9'", "bet 'banker'", "key 'kind'", "cannot"],
    ),
    (
        "      banker: {pays: {win: 1}}",
        "      dealer: {pays: {win: 1}}",
        ["variant 'tie9'", "bet 'dealer'", "not a bet"],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "words"), BET_ERRORS, ids=[e[1] or e[0] for e in BET_ERRORS]
)
def test_mistakes_name_file_bet_and_key(
    tmp_path: Path, old: str, new: str, words: list[str]
) -> None:
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    if not words:
        load_paytable(path)
        return
    with pytest.raises(ConfigError) as err:
        load_paytable(path)
    message = str(err.value)
    assert str(path) in message
    for word in words:
        assert word in message, message


def test_a_key_given_twice_in_a_mapping_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("    kind: main\n", "    kind: main\n    kind: tie\n"))
    with pytest.raises(ConfigError, match="given twice") as err:
        load_paytable(path)
    assert str(path) in str(err.value)


def test_unknown_variant_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"variant 'gratis'.*free, tie9"):
        load_paytable(write(tmp_path, GOOD), ["gratis"])


def test_two_variants_setting_the_same_key_conflict(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="variant 'free' already sets it"):
        load_paytable(write(tmp_path, GOOD), ["free", "tie9"])


def test_unreadable_file_and_bad_yaml(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError, match="cannot read") as err:
        load_paytable(missing)
    assert str(missing) in str(err.value)
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_paytable(write(tmp_path, "bets: [\n"))
    with pytest.raises(ConfigError, match="top level"):
        load_paytable(write(tmp_path, "- 1\n"))


def test_the_shipped_files_round_trip_through_yaml() -> None:
    """The shipped files stay plain YAML that any tool can read."""
    folder = Path(__file__).resolve().parents[2] / "config" / "paytables"
    files = sorted(folder.glob("*.yaml"))
    assert files
    for path in files:
        assert isinstance(yaml.safe_load(path.read_text(encoding="utf-8")), dict)
        load_paytable(path)


def test_a_paytable_that_is_not_utf8_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "table.yaml"
    path.write_bytes(GOOD.encode("utf-8").replace("庄".encode(), b"\xff"))
    with pytest.raises(ConfigError, match=r"table.yaml: not UTF-8 text"):
        load_paytable(path)
