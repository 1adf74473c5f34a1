"""Shoe accounting (RULES.md 1 and 3): every card that leaves the shoe is counted once.

A shoe of ``decks`` decks holds each (rank, suit) exactly ``decks`` times; a card beyond that
is foreign or misread and is never counted. Counted cards are classed as burned, dealt,
stray (drawn when not due, awaiting the supervisor), held (an unreadable card identified by
its re-scan while paused, dealt when the supervisor resumes) or discarded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from station.game.cards import DECK_SIZE, Card


@dataclass(slots=True)
class ShoeCounts:
    shoe_id: str
    decks: int
    counts: list[int] = field(default_factory=lambda: [0] * DECK_SIZE)
    burned: list[Card] = field(default_factory=list)
    dealt: int = 0
    stray: list[Card] = field(default_factory=list)
    held: list[Card] = field(default_factory=list)
    discarded: list[Card] = field(default_factory=list)
    # Cards that had left the shoe when the cut card came out (station.table.procedures); None
    # while it is in.
    cut_card_at: int | None = None
    # The same count on every table, for the dealer's page only (never on a record, so a
    # standard table's outputs keep their bytes).
    cut_out_at: int | None = None

    @property
    def size(self) -> int:
        return self.decks * DECK_SIZE

    @property
    def drawn(self) -> int:
        return sum(self.counts)

    @property
    def remaining(self) -> int:
        return self.size - self.drawn

    def can_take(self, card: Card) -> bool:
        """False when one more ``card`` would exceed the shoe's composition."""
        return self.counts[card.index] < self.decks

    def take(self, card: Card) -> None:
        """Count ``card`` as drawn; the caller has checked ``can_take``."""
        self.counts[card.index] += 1
