"""Exactness of the analysis: integer weights that add up, probabilities that sum to 1,
closed forms for the rank-and-suit bets, and the errors it raises."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from station.errors import ConfigError
from station.game.analysis import BetAnalysis, analyze
from station.game.analysis.first_two import first_four_classes
from station.game.analysis.tree import falling, index_key, key_index, round_weights
from station.settings.paytable import Paytable, load_paytable
from tests.conftest import mixed_paytable

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"
SHIPPED = [
    (path.stem, variants)
    for path in sorted(PAYTABLES.glob("*.yaml"))
    for variants in [(), *[(v,) for v in load_paytable(path).available_variants]]
]


@cache
def table(name: str, variants: tuple[str, ...] = ()) -> Paytable:
    return load_paytable(PAYTABLES / f"{name}.yaml", variants)


@cache
def bets(name: str, decks: int = 8) -> dict[str, BetAnalysis]:
    return {b.key: b for b in analyze(table(name), decks).bets}


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_round_weights_add_up_to_all_six_card_draws(decks: int) -> None:
    assert sum(round_weights(decks)) == falling(52 * decks, 6)


@pytest.mark.parametrize("decks", [1, 8])
def test_first_four_weights_add_up_to_all_four_card_draws(decks: int) -> None:
    assert sum(w for _, w in first_four_classes(decks)) == falling(52 * decks, 4)


def test_value_keys_round_trip() -> None:
    for i in range(400):
        k = index_key(i)
        assert key_index(*k) == i


def test_only_possible_rounds_have_weight() -> None:
    """A hand of two cards totalling 8 or 9 ends the round: the other hand has two cards."""
    for i, w in enumerate(round_weights(8)):
        k = index_key(i)
        if w and k.player_cards == 2 and k.player_total >= 8:
            assert k.banker_cards == 2
        if w and k.player_cards == 2 and k.player_total <= 5:
            # the player stood on 0-5 only because the banker had a natural
            assert k.banker_cards == 2 and k.banker_total >= 8


@pytest.mark.parametrize(("name", "variants"), SHIPPED)
def test_every_bet_sums_to_one_exactly(name: str, variants: tuple[str, ...]) -> None:
    paytable = table(name, variants)
    for b in analyze(paytable).bets:
        assert b.win + b.push + b.lose == 1, b.key
        assert isinstance(b.house_edge, Fraction)
        assert b.rtp == 1 - b.house_edge
        configured = set(paytable.bet(b.key).pays.values())
        assert set(b.win_by_payout) <= configured, b.key


def test_results_in_paytable_order() -> None:
    assert tuple(b.key for b in analyze(table("seed003")).bets) == table("seed003").keys


@pytest.mark.parametrize("decks", [1, 8])
def test_pairs_closed_forms(decks: int) -> None:
    """One hand: the second card matches the first's rank (4d-1 of N-1) or card (d-1)."""
    n = 52 * decks
    b = bets("seed003", decks)
    pair = Fraction(4 * decks - 1, n - 1)
    assert b["player_pair"].win == b["banker_pair"].win == pair
    # both hands pairs: of one rank (first four all that rank) or of two ranks
    both = Fraction(
        (4 * decks - 1) * (4 * decks - 2) * (4 * decks - 3)
        + (n - 4 * decks) * (4 * decks - 1) ** 2,
        (n - 1) * (n - 2) * (n - 3),
    )
    assert b["either_pair"].win == 2 * pair - both
    tiger = b["tiger_pair"].win_by_payout
    identical = Fraction((decks - 1) * (decks - 2) * (decks - 3), (n - 1) * (n - 2) * (n - 3))
    assert tiger.get(Fraction(100), Fraction(0)) == identical
    assert tiger[Fraction(20)] == both - identical
    assert tiger[Fraction(4)] == 2 * (pair - both)


@pytest.mark.parametrize("decks", [1, 8])
def test_four_fortune_pair_closed_forms(decks: int) -> None:
    n = 52 * decks
    by = bets("seed003", decks)["player_four_fortune_pair"].win_by_payout
    suited = Fraction(decks * (decks - 1), n * (n - 1))  # one given card twice
    fours = Fraction(4 * decks * (4 * decks - 1), n * (n - 1))
    assert by.get(Fraction(30), Fraction(0)) == suited
    assert by[Fraction(15)] == fours - suited
    assert by.get(Fraction(12), Fraction(0)) == 12 * suited
    assert sum(by.values()) == Fraction(4 * decks - 1, n - 1)


@pytest.mark.parametrize("decks", [1, 8])
def test_colour_closed_form(decks: int) -> None:
    n = 52 * decks
    both = Fraction(26 * decks * (26 * decks - 1), n * (n - 1))
    b = bets("seed003", decks)
    for key in ("banker_black", "player_black", "banker_red", "player_red"):
        assert b[key].win == both


def test_all_treasure_is_the_union_of_its_bets() -> None:
    """All treasure wins at most as often as its four bets together, at least as the best."""
    b = bets("seed003")
    parts = [b[k].win for k in ("lucky_7", "golden_8", "fire_7s", "heavenly_9")]
    assert max(parts) < b["all_treasure"].win <= sum(parts)


def test_fewer_than_one_deck_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one deck"):
        analyze(table("seed000"), 0)


def test_mixing_value_and_suit_bets_in_any_of_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mixed.yaml"
    path.write_text(mixed_paytable("combo", 2), encoding="utf-8")
    with pytest.raises(ConfigError, match="bet 'combo': key 'bets'") as err:
        analyze(load_paytable(path))
    assert str(path) in str(err.value)
