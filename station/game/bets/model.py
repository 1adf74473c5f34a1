"""The data a bet kind works on: a configured ``Bet`` and its ``Settled`` result.

Payouts are ``Fraction`` so that settlement and the exact analysis share one exact number
(0.95 is 19/20, never 0.9499999...). Everything here is frozen and pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Final, Literal, NamedTuple

from station.game.cards import Card
from station.game.outcome import RoundOutcome, Winner

if TYPE_CHECKING:  # only for the annotation: this module does no I/O
    from pathlib import Path

Result = Literal["win", "push", "lose"]
WIN: Final = "win"
PUSH: Final = "push"
LOSE: Final = "lose"

# Conditions a paytable may list under ``push``; checked before the bet's own win test.
PUSH_CONDITIONS: Final = ("tie", "natural_tie")


@dataclass(frozen=True, slots=True)
class Bet:
    """One bet of a paytable, as validated by ``station.settings.paytable``.

    ``pays`` maps the kind's payout names to "X to 1" payouts. The parameters (``side``,
    ``total``, ``totals``, ``colour``, ``refs``) are set only for the kinds that use them.
    """

    key: str
    label: str
    kind: str
    pays: Mapping[str, Fraction]
    push: frozenset[str]
    cutoff_round: int | None
    note: str | None = None
    side: str | None = None
    total: int | None = None
    totals: tuple[int, ...] = ()
    colour: str | None = None
    refs: tuple[Bet, ...] = field(default=())


class Settled(NamedTuple):
    """How one bet ends on one round. ``pays`` is the "X to 1" payout on a win, else 0."""

    result: Result
    pays: Fraction

    @property
    def net(self) -> Fraction:
        """Net result per unit staked: the payout on a win, 0 on a push, -1 on a loss."""
        if self.result == WIN:
            return self.pays
        return Fraction(0) if self.result == PUSH else Fraction(-1)


LOST: Final = Settled(LOSE, Fraction(0))
PUSHED: Final = Settled(PUSH, Fraction(0))


def won(pays: Fraction) -> Settled:
    return Settled(WIN, pays)


def hand(outcome: RoundOutcome, side: str | None) -> tuple[Card, ...]:
    return outcome.player if side == "player" else outcome.banker


def total(outcome: RoundOutcome, side: str | None) -> int:
    return outcome.player_total if side == "player" else outcome.banker_total


def side_won(outcome: RoundOutcome, side: str | None) -> bool:
    return outcome.winner.value == side


def is_natural_tie(outcome: RoundOutcome) -> bool:
    """A tie decided on the first four cards (8-8 or 9-9), RULES.md 5 dragon bonus."""
    return outcome.natural and outcome.winner is Winner.TIE


@dataclass(frozen=True, slots=True)
class Paytable:
    """A validated paytable: ``bets`` in file order, after the chosen variants."""

    name: str
    path: Path
    bets: tuple[Bet, ...]
    title: str = ""
    source: str = ""
    variants: tuple[str, ...] = ()
    available_variants: tuple[str, ...] = ()
    text: str = field(default="", repr=False, compare=False)  # the YAML it was read from

    def bet(self, key: str) -> Bet:
        """The bet with this key; ``KeyError`` if the paytable has none."""
        for b in self.bets:
            if b.key == key:
                return b
        raise KeyError(key)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(b.key for b in self.bets)


def open_bets(paytable: Paytable, round_no: int) -> list[str]:
    """Keys of the bets accepted for round ``round_no`` (1-based) of a shoe, in file order.

    A cut-off N means the bet is accepted up to and including round N (RULES.md 5; seed 003
    section 5: not accepted "after round 50"). Raises ``ValueError`` for a round number below 1.
    """
    if round_no < 1:
        raise ValueError(f"round numbers start at 1, got {round_no}")
    return [b.key for b in paytable.bets if b.cutoff_round is None or round_no <= b.cutoff_round]
