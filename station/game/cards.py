"""Cards, card codes and baccarat values (RULES.md section 1).

A card code is the rank ``A 2-9 T J Q K`` (``10`` accepted for ``T``) followed by the suit
``S H D C``, e.g. ``AS``, ``TD``, ``QH``. Parsing is a dict lookup on interned ``Card``
objects, because it runs on every read. A code with any character outside ASCII is never a
card, whatever it looks like.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from station.errors import CardCodeError

RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
SUITS: Final = ("S", "H", "D", "C")
RED_SUITS: Final = frozenset({"H", "D"})
DECK_SIZE: Final = len(RANKS) * len(SUITS)


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card. ``value`` is its baccarat points (10/J/Q/K count 0)."""

    rank: str
    suit: str
    value: int
    burn_count: int
    index: int  # 0..51, for array-indexed shoe counts on the hot path
    # Stored, not a property: every record and check reads it, several times a round.
    code: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", self.rank + self.suit)

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card({self.rank + self.suit})"


def _make(rank: str, suit: str) -> Card:
    pips = RANKS.index(rank) + 1
    index = SUITS.index(suit) * len(RANKS) + pips - 1
    # RULES.md 1: A=1, 2..9 face, 10/J/Q/K = 0. RULES.md 3: for the burn, 10/J/Q/K count 10.
    return Card(rank, suit, pips if pips < 10 else 0, min(pips, 10), index)


ALL_CARDS: Final[tuple[Card, ...]] = tuple(_make(r, s) for s in SUITS for r in RANKS)
_BY_CODE: Final[dict[str, Card]] = {c.code: c for c in ALL_CARDS}
_BY_CODE.update({"10" + s: _BY_CODE["T" + s] for s in SUITS})


# ASCII white space only: str.strip() alone also strips the separators 0x1C-0x1F.
_BLANKS: Final = " \t\r\n\x0b\x0c"


def _loose(code: str) -> Card | None:
    """``code`` with surrounding blanks and lower case forgiven, ASCII only: card barcodes
    are ASCII, and Unicode case and space rules would turn look-alikes into cards (``"A"``
    and U+017F upper-cases to ``"AS"``, a no-break space is stripped). Issue 18."""
    if not code.isascii():
        return None
    return _BY_CODE.get(code.strip(_BLANKS).upper())


def parse_card(code: str) -> Card:
    """Return the card for ``code``.

    Raises ``CardCodeError`` naming the code and the expected format when it is not a card.
    """
    card = _BY_CODE.get(code)
    if card is not None:
        return card
    card = _loose(code)
    if card is not None:
        return card
    raise CardCodeError(
        f"{code!r} is not a card code: expected a rank A,2-9,T(or 10),J,Q,K followed by a "
        f"suit S,H,D,C, e.g. 'AS', 'TD', 'QH'"
    )


def try_parse_card(code: str) -> Card | None:
    """Like ``parse_card`` but returns ``None`` for a code that is not a card."""
    card = _BY_CODE.get(code)
    if card is None:
        card = _loose(code)
    return card


def hand_total(cards: tuple[Card, ...] | list[Card]) -> int:
    """Baccarat total: the sum of values mod 10 (RULES.md 1)."""
    return sum(c.value for c in cards) % 10
