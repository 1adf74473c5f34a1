"""The baccarat tableau (RULES.md section 2), as pure functions.

All seeds agree on these rules. ``BANKER_DRAWS`` is the literal table of RULES.md 2.5, kept as
data so a reviewer can compare it with the rule page line by line.
"""

from __future__ import annotations

from typing import Final

NATURALS: Final = frozenset({8, 9})

# RULES.md 2.5: banker total -> the player third-card values (0 for 10/J/Q/K) on which the
# banker draws. Totals 0-2 always draw, 7 never does (8 and 9 are naturals, handled earlier).
BANKER_DRAWS: Final[dict[int, frozenset[int]]] = {
    0: frozenset(range(10)),
    1: frozenset(range(10)),
    2: frozenset(range(10)),
    3: frozenset(range(10)) - {8},
    4: frozenset({2, 3, 4, 5, 6, 7}),
    5: frozenset({4, 5, 6, 7}),
    6: frozenset({6, 7}),
    7: frozenset(),
}


def is_natural(player_total: int, banker_total: int) -> bool:
    """RULES.md 2.2: either two-card total of 8 or 9 ends the round."""
    return player_total in NATURALS or banker_total in NATURALS


def player_draws(player_total: int, banker_total: int) -> bool:
    """RULES.md 2.3: with no natural, the player draws on 0-5 and stands on 6-7."""
    return not is_natural(player_total, banker_total) and player_total <= 5


def banker_draws(player_total: int, banker_total: int, player_third: int | None) -> bool:
    """RULES.md 2.4/2.5: whether the banker draws a third card.

    ``player_third`` is the value of the player's third card, or ``None`` when the player stood.
    Totals are the two-card totals.
    """
    if is_natural(player_total, banker_total):
        return False
    if player_third is None:
        return banker_total <= 5
    return player_third in BANKER_DRAWS[banker_total]


# The two functions above as look-up tables, for the dealing machine's conditions, which run
# on every round's fourth and fifth cards: built from the functions (they stay the rules, and
# tests/core/test_tableau.py holds the tables to them), read with one index instead of three calls.
# PLAYER_DRAW[10 * player_total + banker_total]; BANKER_DRAW[11 * (10 * player_total +
# banker_total) + k], k = 0 when the player stood, else 1 + the player's third card's value.
PLAYER_DRAW: Final[tuple[bool, ...]] = tuple(
    player_draws(p, b) for p in range(10) for b in range(10))
BANKER_DRAW: Final[tuple[bool, ...]] = tuple(
    banker_draws(p, b, None if k == 0 else k - 1)
    for p in range(10) for b in range(10) for k in range(11))
