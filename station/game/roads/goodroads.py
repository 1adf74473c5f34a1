"""The ten good roads (好路) of seed 003, read from the big road's logical columns.

Ties are ignored (seed 003: "出现和局不影响判断好路"): the big road's columns already are.

The seed's definitions leave open where a pattern must be and how long it must be. Pinned
down here (docs/roads.md draws each):

- a pattern must end at the newest column, judged as it stands now: a hint says what the road
  shows at this moment, so it goes away when the road stops following it and can come back;
- ``single_jump`` needs four single columns (B P B P): the two-column unit twice, as the
  seed's "two or more" patterns are;
- ``banker_sticky`` is (Banker column of 2+, single Player) twice, ending on the single
  Player, as seed 003's example "长庄转闲转两庄再转闲" ends; ``player_sticky`` is its mirror
  (the seed's "两闲转庄转长闲再转两庄" ends on two Bankers, which would make both sides sticky,
  i.e. a double jump; we read it as a slip for the mirror);
- ``separated_*_sticky`` is (single, any run of the other side, 2+, any run of the other side)
  twice, ending on the second 2+ column: seed 003's "1庄转2个或2个以上庄 ... 至少两次".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from station.game.roads.model import Side

_ANY = None
_OPEN = 10**9  # no upper bound on a column's length

Rule = tuple[Side | None, int, int]
"""(winner or None for either, minimum length, maximum length) of one column."""


def _mirror(rules: tuple[Rule, ...]) -> tuple[Rule, ...]:
    swap: dict[Side | None, Side | None] = {"banker": "player", "player": "banker", None: None}
    return tuple((swap[winner], low, high) for winner, low, high in rules)


_LONG: Final[tuple[Rule, ...]] = (("banker", 4, _OPEN),)
_ROOMS: Final[tuple[Rule, ...]] = (("banker", 1, 1), ("player", 2, 2)) * 2
_STICKY: Final[tuple[Rule, ...]] = (("banker", 2, _OPEN), ("player", 1, 1)) * 2
_SEPARATED: Final[tuple[Rule, ...]] = (
    ("banker", 1, 1),
    ("player", 1, _OPEN),
    ("banker", 2, _OPEN),
    ("player", 1, _OPEN),
    ("banker", 1, 1),
    ("player", 1, _OPEN),
    ("banker", 2, _OPEN),
)

PATTERNS: Final[dict[str, tuple[Rule, ...]]] = {
    "long_banker": _LONG,
    "long_player": _mirror(_LONG),
    "double_jump": ((_ANY, 2, _OPEN),) * 2,
    "single_jump": ((_ANY, 1, 1),) * 4,
    "one_room_two_halls_banker": _ROOMS,
    "one_room_two_halls_player": _mirror(_ROOMS),
    "banker_sticky": _STICKY,
    "player_sticky": _mirror(_STICKY),
    "separated_banker_sticky": _SEPARATED,
    "separated_player_sticky": _mirror(_SEPARATED),
}
"""Each good road as the newest columns it needs, oldest first, in the order they are listed."""


def good_roads(winners: Sequence[Side], lengths: Sequence[int]) -> list[str]:
    """Keys of the patterns the newest big-road columns show, in ``PATTERNS`` order.

    Reads at most seven columns, so it costs the same at any point of the shoe.
    """
    found = []
    total = len(lengths)
    for key, rules in PATTERNS.items():
        first = total - len(rules)
        if first < 0:
            continue
        for i, (winner, low, high) in enumerate(rules, start=first):
            if (winner is not None and winners[i] != winner) or not low <= lengths[i] <= high:
                break
        else:
            found.append(key)
    return found
