from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.errors import CardCodeError
from station.game.cards import ALL_CARDS, hand_total, parse_card, try_parse_card
from tests.sampling import examples


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


# --- issue 18, defect 6: card barcodes are ASCII ---------------------------------------------
# U+017F (long s) upper-cases to S, U+212A (Kelvin) folds to k, U+0131 (dotless i) upper-cases
# to I; str.strip() removes no-break, ideographic and other Unicode spaces.
LOOK_ALIKES = ["A\u017f", "10\u017f", "\u212aH", "Q\u017f", "\u00a0AS", "AS\u00a0",
               "\u3000AS\u3000", "\u2003KD", "AS\u200b", "\uff21\uff33", "A\u0053\u0301"]


@pytest.mark.parametrize("code", LOOK_ALIKES)
def test_a_non_ascii_look_alike_is_never_a_card(code: str) -> None:
    assert try_parse_card(code) is None
    with pytest.raises(CardCodeError, match="not a card code"):
        parse_card(code)


_CARD_ALPHABET = st.sampled_from(sorted(set("A23456789TJQK10SHDCshdc tjqka \t")))
# Characters Unicode folds, upper-cases or strips into a card's ASCII, so the search finds the
# look-alikes as well as any other non-ASCII character.
FOLDS_TO_ASCII = st.sampled_from(["\u017f", "\u212a", "\u0131", "\u00a0", "\u3000",
                                  "\u2009", "\u1680", "\u202f", "\u0085"])


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.one_of(_CARD_ALPHABET, FOLDS_TO_ASCII, st.characters(min_codepoint=0x80)),
                max_size=6)
       .filter(lambda chars: any(ord(c) > 0x7F for c in chars)))
def test_no_string_with_a_non_ascii_character_parses_as_a_card(chars: list[str]) -> None:
    assert try_parse_card("".join(chars)) is None
