"""Which bets the shoe-composition analysis can value, and how (issue 25). Pure, and free
of numpy, so that a config is checked without loading the analysis itself.

Values bets are valued over the tableau tree; first-two bets over one hand's two cards
(``ONE_HAND_KINDS``) or both hands' pair structure (``PAIR_KINDS``). A new first-two kind
must be put in one of the two (tests/bets/test_analysis_composition.py holds the registry to
them); until then it is refused by name.
"""

from __future__ import annotations

from typing import Final, Literal

from station.errors import ConfigError
from station.game.bets.model import Bet, Paytable
from station.game.bets.registry import reads

Group = Literal["values", "hand", "pairs"]
ONE_HAND_KINDS: Final = frozenset({"pair", "four_fortune_pair", "colour"})
PAIR_KINDS: Final = frozenset({"either_pair", "perfect_pair", "tiger_pair"})


def group_of(bet: Bet) -> Group | None:
    """The group ``bet`` is valued in, or None when the composition analysis cannot value
    it (a first-two kind in neither group, or a combined bet over first-two bets)."""
    if reads(bet) == frozenset({"values"}):
        return "values"
    if bet.kind in ONE_HAND_KINDS:
        return "hand"
    if bet.kind in PAIR_KINDS:
        return "pairs"
    return None


def unvalued(paytable: Paytable) -> list[str]:
    """Keys of the bets of ``paytable`` the composition analysis cannot value."""
    return [b.key for b in paytable.bets if group_of(b) is None]


def check_valued(paytable: Paytable) -> None:
    """Raise ``ConfigError`` for the first bet the composition analysis cannot value, as
    ``CompositionAnalyzer`` would, without building it (or importing numpy)."""
    for bet in paytable.bets:
        if group_of(bet) is None:
            raise ConfigError(
                f"{paytable.path}: bet {bet.key!r}: kind {bet.kind!r}: the shoe-composition "
                "analysis cannot value it; set table.bet_guard: off for this paytable")
