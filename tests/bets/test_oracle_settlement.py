"""Every bet of seeds 000 and 003 settled on hand-written rounds with known results.

An oracle independent of the code under test: each round is written with its totals and
winner worked out by hand, its legality is checked against the tableau as RULES.md 2 prints it
(re-typed below, not imported from ``station.game.rules``), and each expected settlement is read off
the rule page (RULES.md 5 and the paytable notes). The rounds are then settled twice, by
``station.game.settlement.settle`` and by a real ``Station`` publishing the round, and both must
give the hand-written answer. tests/bets/test_settlement_bets.py covers the same bets with rounds
checked by ``station.game.rules`` itself; this file is what catches a wrong rule in both.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from drivers.events import CardRead, Command, InputEvent
from station.game.cards import parse_card
from station.game.outcome import decide
from station.game.settlement import settle
from station.settings.paytable import Paytable, load_paytable
from station.table.outputs import Published
from station.table.station import Station
from station.table.tablerules import TableRules

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"

# RULES.md 1: A = 1, 2-9 face value, 10/J/Q/K = 0.
VALUE = {"A": 1, **{str(n): n for n in range(2, 10)}, "T": 0, "J": 0, "Q": 0, "K": 0}
# RULES.md 2.5: the Player's third-card values on which the Banker draws, by Banker total.
BANKER_DRAWS_ON = {
    0: set(range(10)), 1: set(range(10)), 2: set(range(10)),
    3: set(range(10)) - {8},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}


def _total(codes: list[str]) -> int:
    return sum(VALUE[c[0]] for c in codes) % 10


def _legal(player: list[str], banker: list[str]) -> bool:
    """The tableau of RULES.md 2, written out again for this oracle."""
    p2, b2 = _total(player[:2]), _total(banker[:2])
    if p2 >= 8 or b2 >= 8:  # a natural: both stand
        return len(player) == 2 and len(banker) == 2
    if len(player) != (3 if p2 <= 5 else 2):
        return False
    if len(player) == 2:  # the Player stood: the Banker draws on 0-5
        return len(banker) == (3 if b2 <= 5 else 2)
    return len(banker) == (3 if VALUE[player[2][0]] in BANKER_DRAWS_ON[b2] else 2)


# name: (player cards, banker cards, player total, banker total, winner), worked by hand.
ROUNDS: dict[str, tuple[str, str, int, int, str]] = {
    "p9_natural_vs_7": ("4S 5H", "3D 4C", 9, 7, "player"),
    "natural_tie_8": ("3S 5H", "KD 8C", 8, 8, "tie"),
    "p9_natural_vs_b8_natural_pair": ("9S KH", "4D 4C", 9, 8, "player"),
    "b9_natural_vs_7": ("KS 7C", "4D 5H", 7, 9, "banker"),
    "tie_6_two_cards": ("KS 6H", "2D 4C", 6, 6, "tie"),
    # Player 5 draws K; Banker 6 stands on a 0.
    "b6_two_cards_pair": ("2S 3H KD", "3D 3C", 5, 6, "banker"),
    # Player 4 draws A; Banker 3 draws on a 1.
    "b6_three_cards_player_pair": ("2S 2H AD", "KD 3C 3S", 5, 6, "banker"),
    "b8_three_cards": ("2S 3H KD", "KD 3C 5S", 5, 8, "banker"),
    "b4_two_cards": ("KS 3H KD", "KD 4C", 3, 4, "banker"),
    "b6_by_6": ("KS QH KD", "KC QD 6S", 0, 6, "banker"),
    "b7_by_7": ("KS QH KD", "KC QD 7S", 0, 7, "banker"),
    "b9_by_9": ("KS QH KD", "KC QD 9S", 0, 9, "banker"),
    "b7_by_1_four_cards": ("KS 6H", "KD 7C", 6, 7, "banker"),
    # The Player stood on 6, so the Banker's 3 draws: a three-card 7.
    "b7_by_1_five_cards": ("KS 6H", "KD 3C 4S", 6, 7, "banker"),
    # Player 0 draws 7; Banker 3 draws on a 7.
    "b8_by_1_six_cards": ("KS QH 7D", "KD 3C 5S", 7, 8, "banker"),
    "p9_by_9_black_red": ("KS QC 9D", "KD JH KH", 9, 0, "player"),
    "p7_by_4": ("KS QH 7D", "KD 3C KH", 7, 3, "player"),
    "p7_by_3": ("KS QH 7D", "KD 4C KH", 7, 4, "player"),
    "p4_three_cards": ("KS 4H KD", "KC 3D KH", 4, 3, "player"),
    "p7_by_1_four_cards": ("KS 7H", "KD 6C", 7, 6, "player"),
    "p7_by_1_five_cards": ("KS 7H", "KD 3C 3S", 7, 6, "player"),
    "p7_by_1_six_cards": ("KS QH 7D", "KD 3C 3S", 7, 6, "player"),
    "p6_two_cards": ("KS 6H", "KD 5C KH", 6, 5, "player"),
    # Player 2 draws 4; Banker 5 draws on a 4.
    "p6_three_cards": ("KS 2H 4D", "KD 5C KH", 6, 5, "player"),
    "p1_by_1": ("KS AH KD", "KC QD KH", 1, 0, "player"),
    "p8_three_cards": ("KS 3H 5D", "KC 7D", 8, 7, "player"),
    "tie_7_two_cards": ("KS 7H", "KD 7C", 7, 7, "tie"),
    "tie_7_three_cards": ("KS 2H 5D", "KC 2D 5S", 7, 7, "tie"),
    "tie_7_two_against_three": ("KS 7H", "KD 2C 5S", 7, 7, "tie"),
    "tie_9_three_cards": ("KS 2H 7D", "KC 2D 7S", 9, 9, "tie"),
    "identical_4d_pairs": ("4D 4D", "4D 4D", 8, 8, "tie"),
    "suited_9_pairs_two_suits": ("9H 9H", "9S 9S", 8, 8, "tie"),
    "p_diamond_pair_9": ("9D 9D", "KS 7C", 8, 7, "player"),
    "b_diamond_pair_9": ("KS 7C", "9D 9D", 7, 8, "banker"),
    "p_pair_4_mixed_suits": ("4S 4D", "KS 7C", 8, 7, "player"),
    # Same suit, different ranks: no pair, so no perfect pair.
    "p_suited_no_pair": ("2S 4S", "KD 7C", 6, 7, "banker"),
    # The edges of the Banker's row in RULES.md 2.5, one round on each side of each edge.
    "b7_stands_on_6": ("KS QH 6D", "3D 4C", 6, 7, "banker"),
    "b6_draws_on_7": ("KS QH 7D", "3D 3C 2S", 7, 8, "banker"),
    "b6_stands_on_5": ("KS QH 5D", "3D 3C", 5, 6, "banker"),
    "b6_draws_on_6": ("KS QH 6D", "3D 3C 2S", 6, 8, "banker"),
    "b6_stands_on_8": ("KS QH 8D", "3D 3C", 8, 6, "player"),
    "b5_draws_on_7": ("KS QH 7D", "2D 3C AS", 7, 6, "player"),
    "b5_stands_on_8": ("KS QH 8D", "2D 3C", 8, 5, "player"),
    "b4_draws_on_7": ("KS QH 7D", "2D 2C 3S", 7, 7, "tie"),
    "b4_stands_on_8": ("KS QH 8D", "2D 2C", 8, 4, "player"),
    "b5_draws_on_4": ("KS QH 4D", "2D 3C KS", 4, 5, "banker"),
    "b5_stands_on_3": ("KS QH 3D", "2D 3C", 3, 5, "banker"),
    "b4_draws_on_2": ("KS QH 2D", "2D 2C AS", 2, 5, "banker"),
    "b4_stands_on_1": ("KS QH AD", "2D 2C", 1, 4, "banker"),
    "b3_stands_on_8": ("KS QH 8D", "AD 2C", 8, 3, "player"),
    "b3_draws_on_9": ("KS QH 9D", "AD 2C 6S", 9, 9, "tie"),
    "b5_draws_when_player_stands": ("KS 7H", "2D 3C 4S", 7, 9, "banker"),
    "p6_stands_b6_stands": ("3S 3H", "KD 6C", 6, 6, "tie"),
}

W, L, P = "win", "lose", "push"
Case = tuple[str, str, float]  # (round, outcome, pays)

# bet key -> hand-written settlements. Seed 000 (RULES.md 5, config/paytables/seed000.yaml).
SEED000: dict[str, list[Case]] = {
    "player": [("p9_natural_vs_7", W, 1), ("b6_two_cards_pair", L, 0),
               ("tie_6_two_cards", P, 0)],
    "banker": [("b6_two_cards_pair", W, 0.95), ("b7_by_1_four_cards", W, 0.95),
               ("p9_natural_vs_7", L, 0), ("tie_6_two_cards", P, 0), ("natural_tie_8", P, 0)],
    "tie": [("tie_6_two_cards", W, 8), ("natural_tie_8", W, 8), ("p9_natural_vs_7", L, 0)],
    "player_pair": [("b6_three_cards_player_pair", W, 11), ("b6_two_cards_pair", L, 0),
                    ("p9_natural_vs_b8_natural_pair", L, 0)],
    "banker_pair": [("b6_two_cards_pair", W, 11), ("p9_natural_vs_b8_natural_pair", W, 11),
                    ("b6_three_cards_player_pair", L, 0)],
    "either_pair": [("b6_two_cards_pair", W, 5), ("b6_three_cards_player_pair", W, 5),
                    ("suited_9_pairs_two_suits", W, 5), ("p9_natural_vs_7", L, 0)],
    "perfect_pair": [("identical_4d_pairs", W, 25), ("p_diamond_pair_9", W, 25),
                     ("p_pair_4_mixed_suits", L, 0), ("p9_natural_vs_b8_natural_pair", L, 0)],
    # "2赔7" = 3.5 to 1, whoever wins; no refund on this page, so a natural tie wins.
    "player_natural": [("p9_natural_vs_7", W, 3.5), ("natural_tie_8", W, 3.5),
                       ("p9_by_9_black_red", L, 0)],
    "banker_natural": [("p9_natural_vs_b8_natural_pair", W, 3.5), ("natural_tie_8", W, 3.5),
                       ("p9_natural_vs_7", L, 0)],
    # 30/10/6/4/2/1 by margin 9..4, natural win 1, natural tie pushes, anything else loses.
    "player_dragon_bonus": [("p9_by_9_black_red", W, 30), ("p7_by_4", W, 1),
                            ("p9_natural_vs_7", W, 1), ("p7_by_3", L, 0),
                            ("tie_6_two_cards", L, 0), ("natural_tie_8", P, 0)],
    "banker_dragon_bonus": [("b9_by_9", W, 30), ("b7_by_7", W, 6), ("b6_by_6", W, 4),
                            ("b9_natural_vs_7", W, 1), ("b8_three_cards", L, 0),
                            ("p9_by_9_black_red", L, 0), ("natural_tie_8", P, 0)],
    "lucky_6": [("b6_two_cards_pair", W, 12), ("b6_three_cards_player_pair", W, 20),
                ("tie_6_two_cards", L, 0), ("p6_two_cards", L, 0)],
    "two_card_lucky_6": [("b6_two_cards_pair", W, 22), ("b6_three_cards_player_pair", L, 0)],
    "three_card_lucky_6": [("b6_three_cards_player_pair", W, 50), ("b6_two_cards_pair", L, 0)],
}

# Seed 003 (RULES.md 5, config/paytables/seed003.yaml).
SEED003: dict[str, list[Case]] = {
    "banker": [("b7_by_1_four_cards", W, 0.95), ("p1_by_1", L, 0), ("tie_7_two_cards", P, 0),
               ("b7_stands_on_6", W, 0.95), ("b6_draws_on_7", W, 0.95),
               ("b6_stands_on_5", W, 0.95), ("b5_draws_on_4", W, 0.95),
               ("b5_stands_on_3", W, 0.95), ("b4_draws_on_2", W, 0.95),
               ("b4_stands_on_1", W, 0.95), ("b5_draws_when_player_stands", W, 0.95),
               ("b3_stands_on_8", L, 0), ("b3_draws_on_9", P, 0), ("p6_stands_b6_stands", P, 0)],
    "player": [("p1_by_1", W, 1), ("b4_two_cards", L, 0), ("natural_tie_8", P, 0),
               ("b3_stands_on_8", W, 1), ("b6_draws_on_7", L, 0), ("b3_draws_on_9", P, 0),
               ("b6_draws_on_6", L, 0), ("b6_stands_on_8", W, 1), ("b5_draws_on_7", W, 1),
               ("b5_stands_on_8", W, 1), ("b4_draws_on_7", P, 0), ("b4_stands_on_8", W, 1)],
    "tie": [("natural_tie_8", W, 8), ("p1_by_1", L, 0), ("b3_draws_on_9", W, 8),
            ("p6_stands_b6_stands", W, 8), ("b5_draws_on_4", L, 0)],
    "player_pair": [("p_pair_4_mixed_suits", W, 11), ("p9_natural_vs_b8_natural_pair", L, 0)],
    "banker_pair": [("p9_natural_vs_b8_natural_pair", W, 11), ("p_pair_4_mixed_suits", L, 0)],
    "either_pair": [("identical_4d_pairs", W, 5), ("tie_6_two_cards", L, 0)],
    "perfect_pair": [("suited_9_pairs_two_suits", W, 25), ("p_pair_4_mixed_suits", L, 0),
                     ("p_suited_no_pair", L, 0)],
    # 30/10/5/3/2/1 on this page.
    "banker_dragon_bonus": [("b9_by_9", W, 30), ("b7_by_7", W, 5), ("b6_by_6", W, 3),
                            ("b9_natural_vs_7", W, 1), ("b8_three_cards", L, 0),
                            ("p9_natural_vs_b8_natural_pair", L, 0), ("natural_tie_8", P, 0)],
    "player_dragon_bonus": [("p9_by_9_black_red", W, 30), ("p7_by_3", L, 0),
                            ("natural_tie_8", P, 0)],
    "lucky_6": [("b6_two_cards_pair", W, 12), ("b6_three_cards_player_pair", W, 18),
                ("p6_two_cards", L, 0)],
    # 4 to 1 whoever wins; the natural tie is refunded on this page.
    "banker_natural": [("p9_natural_vs_b8_natural_pair", W, 4), ("p9_natural_vs_7", L, 0),
                       ("natural_tie_8", P, 0)],
    "player_natural": [("p9_natural_vs_b8_natural_pair", W, 4), ("tie_6_two_cards", L, 0),
                       ("natural_tie_8", P, 0)],
    "tiger": [("b6_two_cards_pair", W, 12), ("b6_three_cards_player_pair", W, 18),
              ("tie_6_two_cards", L, 0)],
    "big_tiger": [("b6_three_cards_player_pair", W, 50), ("b6_two_cards_pair", L, 0)],
    "small_tiger": [("b6_two_cards_pair", W, 22), ("b6_three_cards_player_pair", L, 0)],
    "tiger_tie": [("tie_6_two_cards", W, 40), ("tie_7_two_cards", L, 0)],
    "tiger_pair": [("identical_4d_pairs", W, 100), ("suited_9_pairs_two_suits", W, 20),
                   ("b6_two_cards_pair", W, 4), ("p9_by_9_black_red", L, 0)],
    "banker_four_fortune": [("b4_two_cards", W, 20), ("p4_three_cards", L, 0)],
    "player_four_fortune": [("p4_three_cards", W, 35), ("b4_two_cards", L, 0)],
    "banker_four_fortune_pair": [("identical_4d_pairs", W, 30),
                                 ("p9_natural_vs_b8_natural_pair", W, 15),
                                 ("b_diamond_pair_9", W, 12), ("b6_two_cards_pair", W, 9),
                                 ("p_diamond_pair_9", L, 0)],
    "player_four_fortune_pair": [("identical_4d_pairs", W, 30), ("p_pair_4_mixed_suits", W, 15),
                                 ("p_diamond_pair_9", W, 12),
                                 ("b6_three_cards_player_pair", W, 9),
                                 ("b_diamond_pair_9", L, 0)],
    # The first two cards of the hand only: 9D is the Player's third card here.
    "banker_black": [("suited_9_pairs_two_suits", W, 2), ("p9_by_9_black_red", L, 0)],
    "player_black": [("p9_by_9_black_red", W, 2), ("suited_9_pairs_two_suits", L, 0),
                     ("p9_natural_vs_7", L, 0)],
    "banker_red": [("p9_by_9_black_red", W, 2), ("suited_9_pairs_two_suits", L, 0)],
    "player_red": [("suited_9_pairs_two_suits", W, 2), ("p9_by_9_black_red", L, 0),
                   ("p9_natural_vs_7", L, 0)],
    "invincible_6": [("tie_6_two_cards", W, 4), ("b6_two_cards_pair", W, 4),
                     ("p6_three_cards", W, 4), ("b7_by_1_four_cards", L, 0)],
    # Wins by one with 7, 8 or 9; paid by every card on the table.
    "banker_cha_shao": [("b7_by_1_four_cards", W, 10), ("b7_by_1_five_cards", W, 15),
                        ("b8_by_1_six_cards", W, 50), ("b6_two_cards_pair", L, 0),
                        ("b8_three_cards", L, 0)],
    "player_cha_shao": [("p7_by_1_four_cards", W, 10),
                        ("p9_natural_vs_b8_natural_pair", W, 10),
                        ("p7_by_1_five_cards", W, 15), ("p7_by_1_six_cards", W, 50),
                        ("b7_by_1_four_cards", L, 0)],
    "small_buffalo": [("p6_two_cards", W, 20), ("p6_three_cards", L, 0)],
    "big_buffalo": [("p6_three_cards", W, 35), ("p6_two_cards", L, 0)],
    "tiger_buffalo": [("b6_two_cards_pair", W, 4), ("p6_three_cards", W, 4),
                      ("tie_6_two_cards", L, 0)],
    "wu_dalang": [("p1_by_1", W, 150), ("p9_by_9_black_red", L, 0)],
    "lucky_7": [("b7_by_1_five_cards", W, 35), ("b7_by_1_four_cards", L, 0)],
    "golden_8": [("p8_three_cards", W, 20), ("b8_three_cards", L, 0)],
    "fire_7s": [("tie_7_two_cards", W, 40), ("tie_7_three_cards", W, 150),
                ("tie_7_two_against_three", L, 0)],
    "heavenly_9": [("p9_by_9_black_red", W, 8), ("tie_9_three_cards", W, 60),
                   ("p9_natural_vs_7", L, 0)],
    "all_treasure": [("b7_by_1_five_cards", W, 5), ("p8_three_cards", W, 5),
                     ("tie_7_two_cards", W, 5), ("p9_by_9_black_red", W, 5),
                     ("tie_7_two_against_three", L, 0), ("b6_two_cards_pair", L, 0)],
    # "和局不退款": a tie loses.
    "double_banker": [("b8_three_cards", W, 2), ("b6_two_cards_pair", W, 1),
                      ("tie_7_two_cards", L, 0), ("p9_natural_vs_7", L, 0)],
    # A three-card Player 8 against a two-card Banker: the Player's hand decides.
    "double_player": [("p9_by_9_black_red", W, 2), ("p8_three_cards", W, 2),
                      ("p9_natural_vs_7", W, 1),
                      ("tie_6_two_cards", L, 0), ("b6_two_cards_pair", L, 0)],
    "dragon_tiger": [("p7_by_1_four_cards", W, 30), ("p7_by_1_five_cards", W, 40),
                     ("p7_by_1_six_cards", W, 100), ("p8_three_cards", L, 0),
                     ("b7_by_1_four_cards", L, 0)],
    "small_dragon": [("p7_by_1_four_cards", W, 15), ("p7_by_1_six_cards", L, 0)],
    "big_dragon": [("p7_by_1_six_cards", W, 30), ("tie_7_three_cards", L, 0)],
}

# Variants: (paytable, variants, bet, round, outcome, pays). RULES.md 4: no commission pays 1,
# and half on a Banker win with 6; seed 002's tie pays 9.
VARIANT_CASES = [
    ("seed000", ("no_commission",), "banker", "b6_two_cards_pair", W, 0.5),
    ("seed000", ("no_commission",), "banker", "b6_three_cards_player_pair", W, 0.5),
    ("seed000", ("no_commission",), "banker", "b7_by_1_four_cards", W, 1),
    ("seed000", ("no_commission",), "banker", "tie_6_two_cards", P, 0),
    ("seed000", ("no_commission",), "banker", "p7_by_4", L, 0),
    ("seed000", ("tie_9_to_1",), "tie", "tie_6_two_cards", W, 9),
    ("seed003", ("no_commission",), "banker", "b6_by_6", W, 0.5),
    ("seed003", ("no_commission",), "banker", "b8_three_cards", W, 1),
    ("seed003", ("no_commission", "tie_9_to_1"), "tie", "natural_tie_8", W, 9),
]

SEEDS = {"seed000": SEED000, "seed003": SEED003}


@cache
def _table(name: str, variants: tuple[str, ...] = ()) -> Paytable:
    return load_paytable(PAYTABLES / f"{name}.yaml", variants)


def _codes(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize("name", list(ROUNDS))
def test_every_round_is_legal_and_decided_as_written(name: str) -> None:
    player, banker, pt, bt, winner = ROUNDS[name]
    assert _legal(_codes(player), _codes(banker)), f"{name} breaks the tableau"
    assert (_total(_codes(player)), _total(_codes(banker))) == (pt, bt)  # the oracle's own sum
    outcome = decide(tuple(parse_card(c) for c in _codes(player)),
                     tuple(parse_card(c) for c in _codes(banker)))
    assert (outcome.player_total, outcome.banker_total, outcome.winner.value) == (pt, bt, winner)


def _settled(name: str, variants: tuple[str, ...], round_name: str) -> dict[str, Any]:
    player, banker, *_ = ROUNDS[round_name]
    outcome = decide(tuple(parse_card(c) for c in _codes(player)),
                     tuple(parse_card(c) for c in _codes(banker)))
    return settle(_table(name, variants), outcome)


CASES = [(seed, bet, *case) for seed, bets in SEEDS.items() for bet, cases in bets.items()
         for case in cases]


@pytest.mark.parametrize(
    ("seed", "bet", "round_name", "result", "pays"),
    CASES,
    ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES],
)
def test_settles_as_written(seed: str, bet: str, round_name: str, result: str,
                            pays: float) -> None:
    assert _settled(seed, (), round_name)[bet] == {"outcome": result, "pays": pays}


@pytest.mark.parametrize(
    ("seed", "variants", "bet", "round_name", "result", "pays"),
    VARIANT_CASES,
    ids=[f"{c[0]}+{'+'.join(c[1])}-{c[2]}-{c[3]}" for c in VARIANT_CASES],
)
def test_variants_settle_as_written(seed: str, variants: tuple[str, ...], bet: str,
                                    round_name: str, result: str, pays: float) -> None:
    assert _settled(seed, variants, round_name)[bet] == {"outcome": result, "pays": pays}


@pytest.mark.parametrize("seed", list(SEEDS))
def test_every_bet_and_kind_has_a_win_a_loss_and_its_push(seed: str) -> None:
    """Fails when a paytable gains a bet (or a kind) that this oracle does not cover."""
    table = _table(seed)
    cases = SEEDS[seed]
    assert set(cases) == set(table.keys)
    for bet in table.bets:
        results = {c[1] for c in cases[bet.key]}
        wanted = {W, L} | ({P} if bet.push else set())
        assert wanted <= results, f"{seed} {bet.key} ({bet.kind}) lacks {wanted - results}"
        assert P in results or not bet.push


def _publish(table: Paytable, player: str, banker: str) -> dict[str, Any]:
    """One round dealt through a real Station with the paytable; its published record."""
    station = Station(TableRules(dedupe_ms=0), table)
    p, b = _codes(player), _codes(banker)
    order = [p[0], b[0], p[1], b[1], *p[2:], *b[2:]]  # RULES.md 2.1 and 2.6
    t = 1_800_000_000.0
    events: list[InputEvent] = [
        Command("new_shoe", "dealer:t", t),
        CardRead("AS", "scanner", t + 1),  # burn: an ace shows one more
        CardRead("KD", "scanner", t + 2),
        Command("open_betting", "dealer:t", t + 3),
        Command("close_betting", "dealer:t", t + 4),
    ]
    events += [CardRead(code, "scanner", t + 10 + i) for i, code in enumerate(order)]
    records = [o.record for e in events for o in station.apply(e) if isinstance(o, Published)]
    assert len(records) == 1 and records[0]["status"] == "complete", records
    # Every card dealt went into the round: none was refused or left over as not due.
    assert (records[0]["player"], records[0]["banker"]) == (p, b), records[0]
    assert station.phase.value == "between_rounds", station.prompt.line()
    return records[0]


@pytest.mark.parametrize("seed", list(SEEDS))
def test_published_records_carry_the_written_settlements(seed: str) -> None:
    """The machine's settlement path (the per-round cache of ``Settler``) against the same
    hand-written answers, on every round the seed's cases use."""
    table = _table(seed)
    by_round: dict[str, dict[str, tuple[str, float]]] = {}
    for bet, cases in SEEDS[seed].items():
        for round_name, result, pays in cases:
            by_round.setdefault(round_name, {})[bet] = (result, pays)
    for round_name, expected in by_round.items():
        player, banker, pt, bt, winner = ROUNDS[round_name]
        record = _publish(table, player, banker)
        assert (record["player_total"], record["banker_total"], record["winner"]) == (
            pt, bt, winner)
        got = {bet: (record["bets"][bet]["outcome"], record["bets"][bet]["pays"])
               for bet in expected}
        assert got == expected, round_name
