"""``station analyze`` reproduces published exact figures (8 decks unless said otherwise).

Counts are "combinations" as the sources print them: ordered ways to draw six cards from the
shoe, 4,998,398,275,503,360 in all for 8 decks, which is exactly our integer weighting.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from station.game.analysis import BetAnalysis, analyze
from station.settings.paytable import load_paytable

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"
D8 = 4_998_398_275_503_360  # 416 * 415 * 414 * 413 * 412 * 411


@cache
def bets(name: str, variants: tuple[str, ...] = (), decks: int = 8) -> dict[str, BetAnalysis]:
    table = load_paytable(PAYTABLES / f"{name}.yaml", variants)
    return {b.key: b for b in analyze(table, decks).bets}


def pct(x: Fraction) -> float:
    return round(float(x) * 100, 4)


def test_issue_3_figures() -> None:
    """Issue 3: Banker 0.458597, Player 0.446247, Tie 0.095156; edges 1.0579% (the 98.94%
    of seed 000), 1.2351%, 14.3596% at 8 to 1."""
    b = bets("seed000")
    assert round(float(b["banker"].win), 6) == 0.458597
    assert round(float(b["player"].win), 6) == 0.446247
    assert round(float(b["tie"].win), 6) == 0.095156
    assert pct(b["banker"].house_edge) == 1.0579
    assert pct(b["player"].house_edge) == 1.2351
    assert pct(b["tie"].house_edge) == 14.3596
    assert round(float(b["banker"].rtp) * 100, 2) == 98.94  # seed 000: "98.94%"


def test_seed_002_average_return() -> None:
    """Seed 002 states 98.85%, the Banker/Player average (RULES.md 5)."""
    b = bets("seed000", ("tie_9_to_1",))
    average = (b["banker"].rtp + b["player"].rtp) / 2
    assert round(float(average) * 100, 2) == 98.85


def test_exact_combination_counts() -> None:
    """casinoexploit.com "Probabilities in 8-deck Baccarat" (combinations per outcome)."""
    b = bets("seed000")
    assert b["player"].win == Fraction(2_230_518_282_592_256, D8)
    assert b["banker"].win == Fraction(2_292_252_566_437_888, D8)
    assert b["tie"].win == Fraction(475_627_426_473_216, D8)


def test_six_deck_counts() -> None:
    """casinoexploit.com "Probabilities in 6-deck Baccarat"."""
    b = bets("seed000", (), 6)
    d6 = 312 * 311 * 310 * 309 * 308 * 307
    assert b["banker"].win == Fraction(403_095_751_234_560, d6)
    assert b["player"].win == Fraction(392_220_492_728_832, d6)
    assert b["tie"].win == Fraction(83_552_962_932_288, d6)


def test_tie_nine_to_one() -> None:
    """Wizard of Odds, baccarat: the tie at 9 to 1 has a 4.84% house edge."""
    assert pct(bets("seed000", ("tie_9_to_1",))["tie"].house_edge) == 4.8440


def test_no_commission_banker_six_pays_half() -> None:
    """excelpunks.com, "Baccarat vs. non-commission baccarat - why does a Banker win on 6 pay
    half?": Banker wins with 6 in 269,232,304,455,680 ways; house edge 0.014581045."""
    banker = bets("seed000", ("no_commission",))["banker"]
    assert banker.win_by_payout[Fraction(1, 2)] == Fraction(269_232_304_455_680, D8)
    assert round(float(banker.house_edge), 9) == 0.014581045


def test_dragon_bonus_return_tables() -> None:
    """Wizard of Odds, baccarat side bets appendix 5, "Dragon Bonus" (8 decks): every line
    of both return tables; house edges 2.6517% (Player) and 9.3731% (Banker)."""
    player = bets("seed000")["player_dragon_bonus"]
    assert player.win_by_payout == {
        Fraction(30): Fraction(18_409_431_764_992, D8),
        Fraction(10): Fraction(34_097_645_543_424, D8),
        Fraction(6): Fraction(89_590_261_473_280, D8),
        Fraction(4): Fraction(141_238_897_317_888, D8),
        Fraction(2): Fraction(166_169_165_987_840, D8),
        # win by 4 and a natural win both pay 1
        Fraction(1): Fraction(186_780_352_174_080 + 812_685_054_124_032, D8),
    }
    assert player.push == Fraction(89_325_908_267_520, D8)
    assert pct(player.house_edge) == 2.6517
    banker = bets("seed000")["banker_dragon_bonus"]
    assert banker.win_by_payout[Fraction(30)] == Fraction(15_390_342_909_952, D8)
    assert banker.win_by_payout[Fraction(1)] == Fraction(
        201_147_167_287_296 + 812_685_054_124_032, D8
    )
    assert pct(banker.house_edge) == 9.3731


def test_lucky_6() -> None:
    """Wizard of Odds, "Lucky 6": two-card winning Banker 6 in 186,173,936,904,192 ways,
    three-card in 83,058,367,551,488; the Macau 12/20 pay table (seed 000) has a 16.68% edge
    (-0.166836)."""
    lucky = bets("seed000")["lucky_6"]
    assert lucky.win_by_payout == {
        Fraction(12): Fraction(186_173_936_904_192, D8),
        Fraction(20): Fraction(83_058_367_551_488, D8),
    }
    assert round(float(lucky.house_edge), 6) == 0.166836


def test_big_tiger() -> None:
    """advancedadvantageplay.com, "Card counting the Big Tiger baccarat side bet": 50 to 1 on
    a three-card winning Banker 6, house edge 15.2533%, hit 1.662%."""
    big = bets("seed003")["big_tiger"]
    assert pct(big.house_edge) == 15.2533
    assert round(float(big.win) * 100, 3) == 1.662


def test_treasures() -> None:
    """Wizard of Odds, "5 Treasures": Fortune 7 (Banker wins with a three-card 7) in
    112,633,011,329,024 ways; Golden 8 (Player wins with a three-card 8) in
    172,660,763,262,976."""
    b = bets("seed003")
    assert b["lucky_7"].win == Fraction(112_633_011_329_024, D8)
    assert b["golden_8"].win == Fraction(172_660_763_262_976, D8)


def test_pairs() -> None:
    """Eliot Jacobson (888casino blog), "Computer-perfect play against the baccarat pairs
    bet": 11 to 1, house edge 10.361%, hit 7.470%. Either pair at 5 to 1: 13.71%
    (wordstreetjournal.com, "Top-10 baccarat side games", table of odds and house edges)."""
    b = bets("seed000")
    for key in ("player_pair", "banker_pair"):
        assert round(float(b[key].house_edge) * 100, 3) == 10.361
        assert round(float(b[key].win) * 100, 3) == 7.470
    assert round(float(b["either_pair"].house_edge) * 100, 2) == 13.71


def test_perfect_pair_version_1() -> None:
    """Wizard of Odds, "Perfect Pairs (Version 1)": either hand, 25 to 1, paid once:
    246,848,784 of 7,379,583,120 combinations, house edge 13.03% (-0.130294)."""
    pp = bets("seed000")["perfect_pair"]
    assert pp.win == Fraction(246_848_784, 7_379_583_120)
    assert round(float(pp.house_edge), 6) == 0.130294


def test_perfect_pair_version_2(tmp_path: Path) -> None:
    """Wizard of Odds, "Perfect Pairs (Version 2)": 250 to 1 when both hands are perfect
    pairs (2,101,008 of 7,379,583,120), else 25; house edge 6.62% (-0.066235)."""
    path = tmp_path / "pp2.yaml"
    path.write_text(
        "name: pp2\nbets:\n  - {key: pp, label: PP, kind: perfect_pair, "
        "pays: {win: 25, both_hands: 250}, push: [], cutoff_round: null}\n",
        encoding="utf-8",
    )
    (pp,) = analyze(load_paytable(path)).bets
    assert pp.win_by_payout[Fraction(250)] == Fraction(2_101_008, 7_379_583_120)
    assert round(float(pp.house_edge), 6) == 0.066235


@pytest.mark.parametrize("decks", [4, 6, 8])
def test_dragon_bonus_by_decks(decks: int) -> None:
    """Wizard of Odds, "Dragon Bonus House Edge" by number of decks."""
    expected = {4: (2.70, 9.42), 6: (2.67, 9.39), 8: (2.65, 9.37)}[decks]
    b = bets("seed000", (), decks)
    got = (
        round(float(b["player_dragon_bonus"].house_edge) * 100, 2),
        round(float(b["banker_dragon_bonus"].house_edge) * 100, 2),
    )
    assert got == expected
