from __future__ import annotations

import pytest

from station.cards import ALL_CARDS, hand_total, parse_card, try_parse_card
from station.errors import CardCodeError


def test_52_distinct_cards_with_rules_values() -> None:
    assert len({c.code for c in ALL_CARDS}) == 52
    assert sorted(c.index for c in ALL_CARDS) == list(range(52))
    values = {c.rank: c.value for c in ALL_CARDS}
    # RULES.md 1: A=1, 2..9 face, 10/J/Q/K = 0.
    assert values == {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
                      "T": 0, "J": 0, "Q": 0, "K": 0}
    # RULES.md 3: for the burn, 10/J/Q/K count 10.
    burns = {c.rank: c.burn_count for c in ALL_CARDS}
    assert burns["A"] == 1 and burns["9"] == 9
    assert burns["T"] == burns["J"] == burns["Q"] == burns["K"] == 10


@pytest.mark.parametrize(("code", "expected"), [("AS", "AS"), ("10H", "TH"), ("td", "TD"),
                                                (" qh ", "QH"), ("KC", "KC")])
def test_codes_parse(code: str, expected: str) -> None:
    assert parse_card(code).code == expected


@pytest.mark.parametrize("code", ["", "A", "1S", "11H", "AX", "ZZ", "AS ", "JOKER", "ASAS"])
def test_bad_codes_name_the_code_and_the_format(code: str) -> None:
    if try_parse_card(code) is not None:
        return  # trailing blanks are tolerated
    with pytest.raises(CardCodeError, match=r"not a card code.*rank A,2-9"):
        parse_card(code)


@pytest.mark.parametrize(("codes", "total"), [(("4S", "2H", "6D"), 2), (("5S", "6H", "8D"), 9),
                                              (("7S", "3H"), 0), (("TS", "JH", "KD"), 0)])
def test_totals_from_rules_examples(codes: tuple[str, ...], total: int) -> None:
    assert hand_total([parse_card(c) for c in codes]) == total
