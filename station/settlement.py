"""Settle every bet of a paytable on a finished round, or refund them all on a void one.

The result goes into the published record as ``bets``: for each bet key, in paytable order,
``{"outcome": "win" | "push" | "lose", "pays": X}``. ``pays`` is the "X to 1" payout of
that win (0.95, 3.5, 11, ...), so a game server credits ``stake * (1 + pays)``; on a push
``pays`` is 0 and the stake is returned; on a loss ``pays`` is 0 and the stake is kept.
docs/paytables.md states the same for the game server's developers.
"""

from __future__ import annotations

from fractions import Fraction

from station.bets.model import PUSH, Paytable, Settled
from station.bets.registry import reads, settle_bet
from station.outcome import RoundOutcome

BetResults = dict[str, dict[str, object]]


def json_number(x: Fraction) -> int | float:
    """A payout as JSON wants it: ``11`` for 11, ``0.95`` for 19/20."""
    return int(x) if x.denominator == 1 else float(x)


def settle(paytable: Paytable, outcome: RoundOutcome) -> BetResults:
    """Every bet of ``paytable`` on the finished round ``outcome``, keyed by bet key.

    Bets past their cut-off are settled too: whether a bet was open is the round's
    ``open_bets`` list, not settlement's concern. Pure; never raises for a valid paytable.
    """
    out: BetResults = {}
    for bet in paytable.bets:
        out[bet.key] = _entry(settle_bet(bet, outcome))
    return out


def refund_all(paytable: Paytable) -> BetResults:
    """The ``bets`` of a voided round: every bet is a push (RULES.md 7, seed 000)."""
    return {bet.key: {"outcome": PUSH, "pays": 0} for bet in paytable.bets}


def net_result(result: object, pays: object) -> float:
    """Net result per unit staked of one entry of ``bets``: ``pays``, 0 or -1.

    Raises ``ValueError`` for an outcome that is not win, push or lose.
    """
    if result == "win":
        if isinstance(pays, bool) or not isinstance(pays, int | float):
            raise ValueError(f"a win must carry a numeric 'pays', got {pays!r}")
        return float(pays)
    if result == "push":
        return 0.0
    if result == "lose":
        return -1.0
    raise ValueError(f"unknown bet outcome {result!r}: expected win, push or lose")


class Settler:
    """``settle`` for one paytable, fast enough to run on every round of a simulation.

    Bets whose kind reads only the round's values depend on nothing but (player total,
    banker total, player cards, banker cards): naturals follow from those too (a natural
    is a two-card hand against a two-card hand with a total of 8 or 9). That is 400 cases,
    so their entries are settled once per case and reused; bets reading the first two cards'
    ranks and suits are settled each round. ``tests/test_settlement_fast.py`` holds this
    against ``settle`` on many rounds.
    """

    def __init__(self, paytable: Paytable) -> None:
        self.paytable = paytable
        self._by_values: dict[tuple[int, int, int, int], BetResults] = {}
        self._first_two = tuple(b for b in paytable.bets if reads(b) != {"values"})
        self._order = paytable.keys

    def settle(self, outcome: RoundOutcome) -> BetResults:
        key = (outcome.player_total, outcome.banker_total, len(outcome.player),
               len(outcome.banker))
        cached = self._by_values.get(key)
        if cached is None:
            cached = settle(self.paytable, outcome)
            for bet in self._first_two:
                del cached[bet.key]
            self._by_values[key] = cached
        # Fresh entry dicts for every record, so no record can change another's.
        if not self._first_two:
            return {k: dict(v) for k, v in cached.items()}
        fresh = {b.key: _entry(settle_bet(b, outcome)) for b in self._first_two}
        # Keep paytable order, which the record promises.
        return {k: dict(cached[k]) if k in cached else fresh[k] for k in self._order}

    def refund_all(self) -> BetResults:
        return refund_all(self.paytable)


def _entry(s: Settled) -> dict[str, object]:
    return {"outcome": s.result, "pays": json_number(s.pays)}

