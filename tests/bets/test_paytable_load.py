"""The shipped paytables: every bet of RULES.md 5, its cut-off, variants and open bets."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from station.settings.paytable import Paytable, load_paytable, open_bets

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"

# RULES.md 5, seed 000 family: key -> cut-off round (None: no cut-off).
SEED000 = {
    "player": None,
    "banker": None,
    "tie": None,
    "player_pair": 60,
    "banker_pair": 60,
    "either_pair": 50,
    "perfect_pair": 50,
    "player_natural": 50,
    "banker_natural": 50,
    "player_dragon_bonus": None,
    "banker_dragon_bonus": None,
    "lucky_6": 50,
    "two_card_lucky_6": 50,
    "three_card_lucky_6": 50,
}

# RULES.md 5, seed 003 family, cut-offs from seed 003 sections 5-12.
SEED003 = {
    "banker": None,
    "player": None,
    "tie": None,
    "player_pair": 50,
    "banker_pair": 50,
    "either_pair": 50,
    "perfect_pair": 50,
    "banker_dragon_bonus": None,
    "player_dragon_bonus": None,
    "lucky_6": 50,
    "banker_natural": None,
    "player_natural": None,
    "tiger": 50,
    "big_tiger": 40,
    "small_tiger": 40,
    "tiger_tie": 30,
    "tiger_pair": 50,
    "banker_four_fortune": None,
    "player_four_fortune": None,
    "banker_four_fortune_pair": 50,
    "player_four_fortune_pair": 50,
    "banker_black": 30,
    "player_black": 30,
    "banker_red": 30,
    "player_red": 30,
    "invincible_6": None,
    "banker_cha_shao": 30,
    "player_cha_shao": 30,
    "small_buffalo": 30,
    "big_buffalo": 30,
    "tiger_buffalo": 40,
    "wu_dalang": 30,
    "lucky_7": 30,
    "golden_8": 40,
    "fire_7s": 30,
    "heavenly_9": 40,
    "all_treasure": None,
    "double_banker": 40,
    "double_player": 40,
    "dragon_tiger": 40,
    "small_dragon": 40,
    "big_dragon": 40,
}


def load(name: str, *variants: str) -> Paytable:
    return load_paytable(PAYTABLES / f"{name}.yaml", variants)


@pytest.mark.parametrize(("name", "expected"), [("seed000", SEED000), ("seed003", SEED003)])
def test_every_bet_of_the_rule_page_with_its_cutoff(name: str, expected: dict[str, int]) -> None:
    table = load(name)
    assert {b.key: b.cutoff_round for b in table.bets} == expected
    assert table.keys == tuple(expected), "file order is the rule page's order"
    assert all(b.label.strip() for b in table.bets)


def test_paytable_carries_name_path_and_file_order() -> None:
    table = load("seed003", "no_commission")
    assert table.name == "seed003+no_commission"
    assert table.path == PAYTABLES / "seed003.yaml"
    assert table.variants == ("no_commission",)
    assert table.available_variants == ("no_commission", "tie_9_to_1")
    assert table.bet("banker").label == "庄"
    with pytest.raises(KeyError):
        table.bet("no_such_bet")


def test_payouts_are_exact_fractions() -> None:
    assert load("seed000").bet("banker").pays == {"win": Fraction(19, 20)}
    assert load("seed000").bet("player_natural").pays == {"win": Fraction(7, 2)}


@pytest.mark.parametrize("name", ["seed000", "seed003"])
def test_no_commission_variant_changes_only_the_banker(name: str) -> None:
    classic, free = load(name), load(name, "no_commission")
    assert free.bet("banker").pays == {"win": 1, "win_with_6": Fraction(1, 2)}
    assert [b for b in classic.bets if b.key != "banker"] == [
        b for b in free.bets if b.key != "banker"
    ]


@pytest.mark.parametrize("name", ["seed000", "seed003"])
def test_tie_pays_8_or_9_by_variant(name: str) -> None:
    """Seed 002 writes the tie "1 赔 9": a configurable 8:1 vs 9:1 (RULES.md 5)."""
    assert load(name).bet("tie").pays == {"win": 8}
    assert load(name, "tie_9_to_1").bet("tie").pays == {"win": 9}
    both = load(name, "no_commission", "tie_9_to_1")
    assert both.bet("tie").pays == {"win": 9}
    assert both.bet("banker").pays["win_with_6"] == Fraction(1, 2)


def test_pinned_readings_are_written_next_to_the_bet() -> None:
    """Where a rule page is loose, the paytable says how it is read (docs/paytables.md)."""
    s3 = load("seed003")
    for key in (
        "tiger_pair",
        "banker_natural",
        "fire_7s",
        "heavenly_9",
        "all_treasure",
        "banker_cha_shao",
        "banker_four_fortune_pair",
        "double_banker",
        "tiger_buffalo",
    ):
        assert s3.bet(key).note, key
    s0 = load("seed000")
    for key in ("player_natural", "banker", "player_pair", "perfect_pair", "either_pair"):
        assert s0.bet(key).note, key


def test_all_treasure_refers_to_the_four_treasures() -> None:
    refs = load("seed003").bet("all_treasure").refs
    assert [r.key for r in refs] == ["lucky_7", "golden_8", "fire_7s", "heavenly_9"]


def test_open_bets_cutoff_includes_round_n() -> None:
    """A cut-off N: accepted up to and including round N (RULES.md 5)."""
    table = load("seed003")
    assert open_bets(table, 1) == list(table.keys)
    at_30, at_31 = open_bets(table, 30), open_bets(table, 31)
    assert "tiger_tie" in at_30
    assert "tiger_tie" not in at_31
    assert "big_tiger" in open_bets(table, 40)
    assert "big_tiger" not in open_bets(table, 41)
    assert "tiger_pair" in open_bets(table, 50)
    assert open_bets(table, 51) == [k for k, c in SEED003.items() if c is None]
    assert open_bets(table, 10_000) == open_bets(table, 51)


def test_open_bets_seed000_pairs_close_after_60() -> None:
    table = load("seed000")
    assert {"player_pair", "banker_pair"} <= set(open_bets(table, 60))
    assert "either_pair" not in open_bets(table, 51)
    assert open_bets(table, 61) == [
        "player",
        "banker",
        "tie",
        "player_dragon_bonus",
        "banker_dragon_bonus",
    ]


def test_open_bets_rejects_round_zero() -> None:
    with pytest.raises(ValueError, match="start at 1"):
        open_bets(load("seed000"), 0)
