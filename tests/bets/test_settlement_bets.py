"""Hand-picked rounds for every bet of both rule pages (RULES.md 5, seeds 000 and 003).

Every round is checked against the tableau before use, so each case is a round a dealer can
actually deal. ``test_every_bet_is_covered`` fails when a paytable gains a bet without a
winning and a losing case here.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from station.game.cards import parse_card
from station.game.outcome import RoundOutcome, decide
from station.game.rules import banker_draws, player_draws
from station.game.settlement import settle
from station.settings.paytable import Paytable, load_paytable

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"


@cache
def table(name: str, variants: tuple[str, ...] = ()) -> Paytable:
    return load_paytable(PAYTABLES / f"{name}.yaml", variants)


def deal(player: str, banker: str) -> RoundOutcome:
    """The outcome of a round given as card codes, after checking every draw."""
    p = tuple(parse_card(c) for c in player.split())
    b = tuple(parse_card(c) for c in banker.split())
    pt2 = (p[0].value + p[1].value) % 10
    bt2 = (b[0].value + b[1].value) % 10
    assert (len(p) == 3) == player_draws(pt2, bt2), f"player draw wrong in {player} / {banker}"
    p3 = p[2].value if len(p) == 3 else None
    assert (len(b) == 3) == banker_draws(pt2, bt2, p3), f"banker draw wrong in {player} / {banker}"
    return decide(p, b)


# name: (player cards, banker cards) in deal order per hand.
ROUNDS = {
    "p9_natural_vs_7": ("4S 5H", "3D 4C"),
    "natural_tie_8": ("3S 5H", "KD 8C"),
    "p9_natural_vs_b8_natural": ("9S KH", "4D 4C"),
    "tie_6": ("KS 6H", "2D 4C"),
    "b6_two_cards": ("2S 3H KD", "3D 3C"),
    "b6_three_cards": ("2S 2H AD", "KD 3C 3S"),
    "p9_by_9": ("KS QH 9D", "KD JC KH"),
    "p7_by_4": ("KS QH 7D", "KD 3C KH"),
    "p7_by_3": ("KS QH 7D", "KD 4C KH"),
    "b8_three_cards": ("2S 3H KD", "KD 3C 5S"),
    "b4_two_cards": ("KS 3H KD", "KD 4C"),
    "p4_three_cards": ("KS 4H KD", "KC 3D KH"),
    "b7_by_1_four_cards": ("KS 6H", "KD 7C"),
    "b7_by_1_five_cards": ("KS 6H", "KD 3C 4S"),
    "p7_by_1_four_cards": ("KS 7H", "KD 6C"),
    "p7_by_1_five_cards": ("KS 7H", "KD 3C 3S"),
    "p7_by_1_six_cards": ("KS QH 7D", "KD 3C 3S"),
    "p6_two_cards": ("KS 6H", "KD 5C KH"),
    "p6_three_cards": ("KS 2H 4D", "KD 5C KH"),
    "p1_by_1": ("KS AH KD", "KC QD KH"),
    "p8_three_cards": ("KS 3H 5D", "KC 7D"),
    "tie_7_two_cards": ("KS 7H", "KD 7C"),
    "tie_7_three_cards": ("KS 2H 5D", "KC 2D 5S"),
    "tie_7_mixed_cards": ("KS 7H", "KD 2C 5S"),
    "tie_9_three_cards": ("KS 2H 7D", "KC 2D 7S"),
    "identical_4d_pairs": ("4D 4D", "4D 4D"),
    "identical_4h_pairs": ("4H 4H", "4H 4H"),
    "pairs_of_9_two_suits": ("9H 9H", "9S 9S"),
    "p_diamond_pair_9": ("9D 9D", "KS 7C"),
    "p_pair_9_mixed_suits": ("9H 9S", "KS 7C"),
    "p_pair_4_mixed_suits": ("4S 4D", "KS 7C"),
    "black_vs_red_then_red_card": ("KS QC 9D", "KD JH KH"),
    "b9_by_9": ("KS QH KD", "KC QD 9S"),
    "b7_by_7": ("KS QH KD", "KC QD 7S"),
    "b6_by_6": ("KS QH KD", "KC QD 6S"),
    "b9_natural_vs_7": ("KS 7C", "4D 5H"),
}

WIN, PUSH, LOSE = "win", "push", "lose"
# (paytable, variants, round, bet, outcome, pays on a win)
CASES: list[tuple[str, tuple[str, ...], str, str, str, float]] = [
    # -- Player / Banker / Tie (RULES.md 4, 5) -------------------------------------------
    ("seed000", (), "p9_natural_vs_7", "player", WIN, 1),
    ("seed000", (), "b6_two_cards", "player", LOSE, 0),
    ("seed000", (), "tie_6", "player", PUSH, 0),
    ("seed000", (), "b6_two_cards", "banker", WIN, 0.95),
    ("seed000", (), "p9_natural_vs_7", "banker", LOSE, 0),
    ("seed000", (), "tie_6", "banker", PUSH, 0),
    ("seed000", ("no_commission",), "b6_two_cards", "banker", WIN, 0.5),
    ("seed000", ("no_commission",), "b6_three_cards", "banker", WIN, 0.5),
    ("seed000", ("no_commission",), "b7_by_1_four_cards", "banker", WIN, 1),
    ("seed000", ("no_commission",), "tie_6", "banker", PUSH, 0),
    ("seed000", (), "tie_6", "tie", WIN, 8),
    ("seed000", ("tie_9_to_1",), "tie_6", "tie", WIN, 9),
    ("seed000", (), "b6_two_cards", "tie", LOSE, 0),
    ("seed003", (), "b7_by_1_four_cards", "banker", WIN, 0.95),
    ("seed003", ("no_commission",), "b6_three_cards", "banker", WIN, 0.5),
    ("seed003", ("no_commission",), "b8_three_cards", "banker", WIN, 1),
    ("seed003", (), "tie_7_two_cards", "banker", PUSH, 0),
    ("seed003", (), "p1_by_1", "banker", LOSE, 0),
    ("seed003", (), "p1_by_1", "player", WIN, 1),
    ("seed003", (), "natural_tie_8", "player", PUSH, 0),
    ("seed003", (), "b4_two_cards", "player", LOSE, 0),
    ("seed003", (), "natural_tie_8", "tie", WIN, 8),
    ("seed003", ("tie_9_to_1",), "natural_tie_8", "tie", WIN, 9),
    ("seed003", (), "p1_by_1", "tie", LOSE, 0),
    ("seed003", ("no_commission", "tie_9_to_1"), "tie_6", "tie", WIN, 9),
    ("seed003", ("no_commission", "tie_9_to_1"), "b6_two_cards", "banker", WIN, 0.5),
    # -- Pairs: same rank, K-Q is no pair; paid once when both hands pair ----------------
    ("seed000", (), "b6_three_cards", "player_pair", WIN, 11),
    ("seed000", (), "p9_by_9", "player_pair", LOSE, 0),
    ("seed000", (), "b6_two_cards", "banker_pair", WIN, 11),
    ("seed000", (), "b6_three_cards", "banker_pair", LOSE, 0),
    ("seed000", (), "b6_two_cards", "either_pair", WIN, 5),
    ("seed000", (), "pairs_of_9_two_suits", "either_pair", WIN, 5),
    ("seed000", (), "p9_by_9", "either_pair", LOSE, 0),
    ("seed000", (), "identical_4d_pairs", "perfect_pair", WIN, 25),
    ("seed000", (), "p_diamond_pair_9", "perfect_pair", WIN, 25),
    ("seed000", (), "p_pair_9_mixed_suits", "perfect_pair", LOSE, 0),
    ("seed003", (), "p_pair_9_mixed_suits", "player_pair", WIN, 11),
    ("seed003", (), "p_pair_9_mixed_suits", "banker_pair", LOSE, 0),
    ("seed003", (), "p9_natural_vs_b8_natural", "banker_pair", WIN, 11),
    ("seed003", (), "p9_natural_vs_b8_natural", "player_pair", LOSE, 0),
    ("seed003", (), "identical_4h_pairs", "either_pair", WIN, 5),
    ("seed003", (), "tie_6", "either_pair", LOSE, 0),
    ("seed003", (), "pairs_of_9_two_suits", "perfect_pair", WIN, 25),
    ("seed003", (), "p_pair_4_mixed_suits", "perfect_pair", LOSE, 0),
    # -- Naturals: 000 "2赔7" whoever wins, natural tie wins; 003 natural tie pushes ------
    ("seed000", (), "p9_natural_vs_7", "player_natural", WIN, 3.5),
    ("seed000", (), "natural_tie_8", "player_natural", WIN, 3.5),
    ("seed000", (), "p9_by_9", "player_natural", LOSE, 0),
    ("seed000", (), "p9_natural_vs_b8_natural", "banker_natural", WIN, 3.5),
    ("seed000", (), "natural_tie_8", "banker_natural", WIN, 3.5),
    ("seed000", (), "p9_natural_vs_7", "banker_natural", LOSE, 0),
    ("seed003", (), "p9_natural_vs_b8_natural", "player_natural", WIN, 4),
    ("seed003", (), "natural_tie_8", "player_natural", PUSH, 0),
    ("seed003", (), "p9_natural_vs_7", "banker_natural", LOSE, 0),
    ("seed003", (), "p9_natural_vs_b8_natural", "banker_natural", WIN, 4),
    ("seed003", (), "natural_tie_8", "banker_natural", PUSH, 0),
    ("seed003", (), "tie_6", "player_natural", LOSE, 0),
    # -- Dragon bonus: natural win 1, natural tie pushes, margins 9..4, else loses --------
    ("seed000", (), "p9_by_9", "player_dragon_bonus", WIN, 30),
    ("seed000", (), "p7_by_4", "player_dragon_bonus", WIN, 1),
    ("seed000", (), "p7_by_3", "player_dragon_bonus", LOSE, 0),
    ("seed000", (), "p9_natural_vs_7", "player_dragon_bonus", WIN, 1),
    ("seed000", (), "natural_tie_8", "player_dragon_bonus", PUSH, 0),
    ("seed000", (), "tie_6", "player_dragon_bonus", LOSE, 0),
    ("seed000", (), "b9_by_9", "banker_dragon_bonus", WIN, 30),
    ("seed000", (), "b7_by_7", "banker_dragon_bonus", WIN, 6),
    ("seed000", (), "b6_by_6", "banker_dragon_bonus", WIN, 4),
    ("seed000", (), "b9_natural_vs_7", "banker_dragon_bonus", WIN, 1),
    ("seed000", (), "natural_tie_8", "banker_dragon_bonus", PUSH, 0),
    ("seed000", (), "b8_three_cards", "banker_dragon_bonus", LOSE, 0),
    ("seed000", (), "p9_by_9", "banker_dragon_bonus", LOSE, 0),
    ("seed003", (), "p9_by_9", "player_dragon_bonus", WIN, 30),
    ("seed003", (), "natural_tie_8", "player_dragon_bonus", PUSH, 0),
    ("seed003", (), "p7_by_3", "player_dragon_bonus", LOSE, 0),
    ("seed003", (), "b4_two_cards", "banker_dragon_bonus", LOSE, 0),
    ("seed003", (), "p9_natural_vs_b8_natural", "banker_dragon_bonus", LOSE, 0),
    ("seed003", (), "natural_tie_8", "banker_dragon_bonus", PUSH, 0),
    ("seed003", (), "b7_by_7", "banker_dragon_bonus", WIN, 5),
    ("seed003", (), "b6_by_6", "banker_dragon_bonus", WIN, 3),
    ("seed003", (), "b9_natural_vs_7", "banker_dragon_bonus", WIN, 1),
    ("seed003", (), "b9_by_9", "banker_dragon_bonus", WIN, 30),
    # -- Lucky 6 and tigers: Banker wins with 6; two / three cards of the Banker hand -----
    ("seed000", (), "b6_two_cards", "lucky_6", WIN, 12),
    ("seed000", (), "b6_three_cards", "lucky_6", WIN, 20),
    ("seed000", (), "tie_6", "lucky_6", LOSE, 0),
    ("seed000", (), "b6_two_cards", "two_card_lucky_6", WIN, 22),
    ("seed000", (), "b6_three_cards", "two_card_lucky_6", LOSE, 0),
    ("seed000", (), "b6_three_cards", "three_card_lucky_6", WIN, 50),
    ("seed000", (), "b6_two_cards", "three_card_lucky_6", LOSE, 0),
    ("seed003", (), "b6_three_cards", "lucky_6", WIN, 18),
    ("seed003", (), "p6_two_cards", "lucky_6", LOSE, 0),
    ("seed003", (), "b6_two_cards", "tiger", WIN, 12),
    ("seed003", (), "b6_three_cards", "tiger", WIN, 18),
    ("seed003", (), "tie_6", "tiger", LOSE, 0),
    ("seed003", (), "b6_three_cards", "big_tiger", WIN, 50),
    ("seed003", (), "b6_two_cards", "big_tiger", LOSE, 0),
    ("seed003", (), "b6_two_cards", "small_tiger", WIN, 22),
    ("seed003", (), "b6_three_cards", "small_tiger", LOSE, 0),
    ("seed003", (), "tie_6", "tiger_tie", WIN, 40),
    ("seed003", (), "tie_7_two_cards", "tiger_tie", LOSE, 0),
    # -- Tiger pair: identical (all four cards one rank and suit) 100, two pairs 20, one 4 -
    ("seed003", (), "identical_4d_pairs", "tiger_pair", WIN, 100),
    ("seed003", (), "identical_4h_pairs", "tiger_pair", WIN, 100),
    ("seed003", (), "pairs_of_9_two_suits", "tiger_pair", WIN, 20),
    ("seed003", (), "b6_two_cards", "tiger_pair", WIN, 4),
    ("seed003", (), "b6_three_cards", "tiger_pair", WIN, 4),
    ("seed003", (), "p9_by_9", "tiger_pair", LOSE, 0),
    # -- 4-fortune: a side wins with 4; 4-fortune pair, highest case only ----------------
    ("seed003", (), "b4_two_cards", "banker_four_fortune", WIN, 20),
    ("seed003", (), "p4_three_cards", "banker_four_fortune", LOSE, 0),
    ("seed003", (), "p4_three_cards", "player_four_fortune", WIN, 35),
    ("seed003", (), "b4_two_cards", "player_four_fortune", LOSE, 0),
    ("seed003", (), "identical_4d_pairs", "player_four_fortune_pair", WIN, 30),
    ("seed003", (), "identical_4d_pairs", "banker_four_fortune_pair", WIN, 30),
    ("seed003", (), "identical_4h_pairs", "banker_four_fortune_pair", WIN, 15),
    ("seed003", (), "p9_natural_vs_b8_natural", "banker_four_fortune_pair", WIN, 15),
    ("seed003", (), "p_pair_4_mixed_suits", "player_four_fortune_pair", WIN, 15),
    ("seed003", (), "p_diamond_pair_9", "player_four_fortune_pair", WIN, 12),
    ("seed003", (), "p_pair_9_mixed_suits", "player_four_fortune_pair", WIN, 9),
    ("seed003", (), "pairs_of_9_two_suits", "banker_four_fortune_pair", WIN, 9),
    ("seed003", (), "p_diamond_pair_9", "banker_four_fortune_pair", LOSE, 0),
    ("seed003", (), "p9_by_9", "player_four_fortune_pair", LOSE, 0),
    # -- Red / black: the first two cards of the hand; a third card does not count -------
    ("seed003", (), "black_vs_red_then_red_card", "player_black", WIN, 2),
    ("seed003", (), "black_vs_red_then_red_card", "banker_red", WIN, 2),
    ("seed003", (), "black_vs_red_then_red_card", "player_red", LOSE, 0),
    ("seed003", (), "black_vs_red_then_red_card", "banker_black", LOSE, 0),
    ("seed003", (), "p9_by_9", "player_black", LOSE, 0),
    ("seed003", (), "p9_by_9", "player_red", LOSE, 0),
    ("seed003", (), "p9_by_9", "banker_red", LOSE, 0),
    ("seed003", (), "tie_7_two_cards", "banker_black", LOSE, 0),
    ("seed003", (), "pairs_of_9_two_suits", "banker_black", WIN, 2),
    ("seed003", (), "pairs_of_9_two_suits", "player_red", WIN, 2),
    # -- Invincible 6 and tiger-buffalo: a win with 6; only invincible 6 takes a 6-6 tie ---
    ("seed003", (), "tie_6", "invincible_6", WIN, 4),
    ("seed003", (), "b6_two_cards", "invincible_6", WIN, 4),
    ("seed003", (), "p6_three_cards", "invincible_6", WIN, 4),
    ("seed003", (), "b7_by_1_four_cards", "invincible_6", LOSE, 0),
    ("seed003", (), "tie_6", "tiger_buffalo", LOSE, 0),
    ("seed003", (), "b6_three_cards", "tiger_buffalo", WIN, 4),
    ("seed003", (), "p6_two_cards", "tiger_buffalo", WIN, 4),
    ("seed003", (), "b7_by_1_four_cards", "tiger_buffalo", LOSE, 0),
    # -- Cha-shao and dragon-tiger: win by one point, paid by cards on the table ---------
    ("seed003", (), "b7_by_1_four_cards", "banker_cha_shao", WIN, 10),
    ("seed003", (), "b7_by_1_five_cards", "banker_cha_shao", WIN, 15),
    ("seed003", (), "b6_two_cards", "banker_cha_shao", LOSE, 0),
    ("seed003", (), "b8_three_cards", "banker_cha_shao", LOSE, 0),
    ("seed003", (), "p9_natural_vs_b8_natural", "player_cha_shao", WIN, 10),
    ("seed003", (), "p7_by_1_six_cards", "player_cha_shao", WIN, 50),
    ("seed003", (), "p7_by_1_five_cards", "player_cha_shao", WIN, 15),
    ("seed003", (), "b7_by_1_four_cards", "player_cha_shao", LOSE, 0),
    ("seed003", (), "p7_by_1_four_cards", "dragon_tiger", WIN, 30),
    ("seed003", (), "p7_by_1_five_cards", "dragon_tiger", WIN, 40),
    ("seed003", (), "p7_by_1_six_cards", "dragon_tiger", WIN, 100),
    ("seed003", (), "p8_three_cards", "dragon_tiger", LOSE, 0),
    ("seed003", (), "b7_by_1_four_cards", "dragon_tiger", LOSE, 0),
    # -- Buffalo, Wu Dalang, dragons: the Player wins with a given total -----------------
    ("seed003", (), "p6_two_cards", "small_buffalo", WIN, 20),
    ("seed003", (), "p6_three_cards", "small_buffalo", LOSE, 0),
    ("seed003", (), "p6_three_cards", "big_buffalo", WIN, 35),
    ("seed003", (), "p6_two_cards", "big_buffalo", LOSE, 0),
    ("seed003", (), "p1_by_1", "wu_dalang", WIN, 150),
    ("seed003", (), "p9_by_9", "wu_dalang", LOSE, 0),
    ("seed003", (), "p7_by_1_four_cards", "small_dragon", WIN, 15),
    ("seed003", (), "p7_by_1_six_cards", "small_dragon", LOSE, 0),
    ("seed003", (), "p7_by_1_six_cards", "big_dragon", WIN, 30),
    ("seed003", (), "tie_7_three_cards", "big_dragon", LOSE, 0),
    # -- Treasures ---------------------------------------------------------------------
    ("seed003", (), "b7_by_1_five_cards", "lucky_7", WIN, 35),
    ("seed003", (), "b7_by_1_four_cards", "lucky_7", LOSE, 0),
    ("seed003", (), "p8_three_cards", "golden_8", WIN, 20),
    ("seed003", (), "b8_three_cards", "golden_8", LOSE, 0),
    ("seed003", (), "tie_7_two_cards", "fire_7s", WIN, 40),
    ("seed003", (), "tie_7_three_cards", "fire_7s", WIN, 150),
    ("seed003", (), "tie_7_mixed_cards", "fire_7s", LOSE, 0),
    ("seed003", (), "p9_by_9", "heavenly_9", WIN, 8),
    ("seed003", (), "tie_9_three_cards", "heavenly_9", WIN, 60),
    ("seed003", (), "p9_natural_vs_7", "heavenly_9", LOSE, 0),
    ("seed003", (), "b7_by_1_five_cards", "all_treasure", WIN, 5),
    ("seed003", (), "p8_three_cards", "all_treasure", WIN, 5),
    ("seed003", (), "tie_7_two_cards", "all_treasure", WIN, 5),
    ("seed003", (), "tie_9_three_cards", "all_treasure", WIN, 5),
    ("seed003", (), "tie_7_mixed_cards", "all_treasure", LOSE, 0),
    ("seed003", (), "b6_two_cards", "all_treasure", LOSE, 0),
    # -- Double: 2 with a three-card 8 or 9, else 1; a tie loses ("和局不退款") -----------
    ("seed003", (), "b8_three_cards", "double_banker", WIN, 2),
    ("seed003", (), "b6_two_cards", "double_banker", WIN, 1),
    ("seed003", (), "natural_tie_8", "double_banker", LOSE, 0),
    ("seed003", (), "tie_6", "double_banker", LOSE, 0),
    ("seed003", (), "p9_by_9", "double_player", WIN, 2),
    ("seed003", (), "p9_natural_vs_7", "double_player", WIN, 1),
    ("seed003", (), "tie_6", "double_player", LOSE, 0),
    ("seed003", (), "b6_two_cards", "double_player", LOSE, 0),
]


@pytest.mark.parametrize(
    ("name", "variants", "round_name", "bet", "result", "pays"),
    CASES,
    ids=[f"{c[0]}{'+' + '+'.join(c[1]) if c[1] else ''}-{c[3]}-{c[2]}" for c in CASES],
)
def test_settles_as_the_rule_page_says(
    name: str, variants: tuple[str, ...], round_name: str, bet: str, result: str, pays: float
) -> None:
    outcome = deal(*ROUNDS[round_name])
    got = settle(table(name, variants), outcome)[bet]
    assert got == {"outcome": result, "pays": pays}


@pytest.mark.parametrize("name", ["seed000", "seed003"])
def test_every_bet_is_covered(name: str) -> None:
    """Each bet has at least one winning and one losing hand-picked round."""
    keys = set(table(name).keys)
    wins = {c[3] for c in CASES if c[0] == name and c[4] == WIN}
    losses = {c[3] for c in CASES if c[0] == name and c[4] == LOSE}
    assert keys - wins == set()
    assert keys - losses == set()


def test_every_pinned_push_rule_is_exercised() -> None:
    """Every bet with a push rule has a hand-picked push."""
    for name in ("seed000", "seed003"):
        with_push = {b.key for b in table(name).bets if b.push}
        pushed = {c[3] for c in CASES if c[0] == name and c[4] == PUSH}
        assert with_push - pushed == set(), name
