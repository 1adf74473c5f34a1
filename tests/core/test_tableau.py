"""The tableau against a literal copy of RULES.md section 2, for every case.

The expected values below are typed from the rule page, not computed from station.game.rules, so a
slip in either shows up here.
"""

from __future__ import annotations

import pytest

from station.game.rules import banker_draws, is_natural, player_draws

# RULES.md 2.5: banker two-card total -> for player third card value 0..9, D(raw) or S(tand).
BANKER_VS_PLAYER_THIRD = {
    0: "D D D D D D D D D D",
    1: "D D D D D D D D D D",
    2: "D D D D D D D D D D",
    3: "D D D D D D D D S D",
    4: "S S D D D D D D S S",
    5: "S S S S D D D D S S",
    6: "S S S S S S D D S S",
    7: "S S S S S S S S S S",
}
# RULES.md 2.4: banker when the player stood: 0-5 draws, 6-7 stands.
BANKER_PLAYER_STOOD = {0: "D", 1: "D", 2: "D", 3: "D", 4: "D", 5: "D", 6: "S", 7: "S"}
# RULES.md 2.3: player 0-5 draws, 6-7 stands.
PLAYER = {0: "D", 1: "D", 2: "D", 3: "D", 4: "D", 5: "D", 6: "S", 7: "S"}


def player_should_draw(pt: int, bt: int) -> bool:
    return not (pt in (8, 9) or bt in (8, 9)) and PLAYER[pt] == "D"


def banker_should_draw(pt: int, bt: int, third: int | None) -> bool:
    if pt in (8, 9) or bt in (8, 9):
        return False
    if third is None:
        return BANKER_PLAYER_STOOD[bt] == "D"
    return BANKER_VS_PLAYER_THIRD[bt].split()[third] == "D"


# Player two-card total x banker two-card total x player third card (none, 0-9).
CASES = [(pt, bt, third) for pt in range(10) for bt in range(10) for third in [None, *range(10)]]


@pytest.mark.parametrize(("pt", "bt", "third"), CASES)
def test_every_total_pair_and_third_card(pt: int, bt: int, third: int | None) -> None:
    assert player_draws(pt, bt) is player_should_draw(pt, bt)
    if (third is None) == player_should_draw(pt, bt):
        return  # this (player drew, third card) combination cannot happen at the table
    assert banker_draws(pt, bt, third) is banker_should_draw(pt, bt, third)


def test_case_count_covers_the_whole_table() -> None:
    assert len(CASES) == 10 * 10 * 11


@pytest.mark.parametrize("total", [8, 9])
def test_a_natural_on_either_side_ends_the_round(total: int) -> None:
    for other in range(10):
        assert is_natural(total, other) and is_natural(other, total)
        assert not player_draws(other, total) and not player_draws(total, other)
        for third in [None, *range(10)]:
            assert not banker_draws(other, total, third)
            assert not banker_draws(total, other, third)


def test_the_draw_tables_are_the_draw_rules() -> None:
    """The machine's conditions read these tables (issue 13): every index, by the rules."""
    from station.game.rules import BANKER_DRAW, PLAYER_DRAW  # noqa: PLC0415

    assert len(PLAYER_DRAW) == 100 and len(BANKER_DRAW) == 1100
    for p in range(10):
        for b in range(10):
            assert PLAYER_DRAW[10 * p + b] == player_draws(p, b)
            assert BANKER_DRAW[11 * (10 * p + b)] == banker_draws(p, b, None)
            for v in range(10):
                assert BANKER_DRAW[11 * (10 * p + b) + 1 + v] == banker_draws(p, b, v)


def test_the_machines_draw_conditions_are_the_draw_rules() -> None:
    """The three conditions the dealing machine checks on a round's fourth and fifth cards
    (they index the tables, issue 13), for every pair of two-card totals and third card."""
    from station.game.cards import ALL_CARDS  # noqa: PLC0415
    from station.table.machine import Dealing  # noqa: PLC0415

    spade = {c.value: c for c in ALL_CARDS if c.suit == "S"}
    d = Dealing("table-1", 8, "next_round_last")
    for p in range(10):
        for b in range(10):
            d.player, d.banker = [spade[p], spade[0]], [spade[b]]
            assert d.player_must_draw(spade[0]) == player_draws(p, b)
            assert d.banker_must_draw_player_stood(spade[0]) == banker_draws(p, b, None)
            d.banker = [spade[b], spade[0]]
            for v in range(10):
                d.player = [spade[p], spade[0], spade[v]]
                assert d.banker_must_draw_after_player_third(spade[v]) == banker_draws(p, b, v)
