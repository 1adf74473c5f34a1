"""Settle every bet of a paytable on a finished round, or refund them all on a void one.

The result goes into the published record as ``bets``: for each bet key, in paytable order,
``{"outcome": "win" | "push" | "lose", "pays": X}``. ``pays`` is the "X to 1" payout of
that win (0.95, 3.5, 11, ...), so a game server credits ``stake * (1 + pays)``; on a push
``pays`` is 0 and the stake is returned; on a loss ``pays`` is 0 and the stake is kept.
docs/paytables.md states the same for the game server's developers.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from station.game.analysis.first_two import first_four_classes
from station.game.bets.first_two import FORTUNE_RANK
from station.game.bets.model import PUSH, Bet, Paytable, Settled
from station.game.bets.registry import reads, settle_bet
from station.game.cards import ALL_CARDS, Card
from station.game.entry import Entry
from station.game.outcome import RoundOutcome, ValuesKey, decide, values_cases

BetResults = dict[str, Entry]
CLASS_TABLES_KEPT: Final = 8  # class tables kept per process, one per set of card bets


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
    return dict.fromkeys((bet.key for bet in paytable.bets), _REFUND)


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
    is a two-card hand against a two-card hand with a total of 8 or 9). Of those 400
    combinations the tableau deals 205, all settled when the Settler is built.
    Bets reading the first two cards of each hand see only whether ranks and suits are equal,
    whether a rank is 4 and whether a suit is hearts, diamonds or black (the symmetry the
    exact analysis rests on, held to every kind by tests/bets/test_analysis_symmetry.py), so the
    first four cards fall into a few thousand classes. Each group's entries are settled once
    per case or class and reused; a bet reading both is settled every round.
    ``tests/bets/test_settlement_fast.py`` holds this against ``settle``.
    """

    def __init__(self, paytable: Paytable) -> None:
        self.paytable = paytable
        groups: tuple[list[Bet], list[Bet], list[Bet]] = ([], [], [])
        for bet in paytable.bets:
            r = reads(bet)
            groups[0 if r == {"values"} else 1 if r == {"first_two"} else 2].append(bet)
        self._values, self._first_two, self._live = (tuple(g) for g in groups)
        self._order = paytable.keys
        # Per case of the values (the 205 a round can end with): the whole ``bets`` mapping
        # in paytable order, its values entries set and the other bets' places held, copied
        # for each record. All built now, as the class table below: a case met for the first
        # time cost its round-ending card tens of microseconds (a fifth of the slowest 1% of
        # card reads in a 200-shoe run).
        # Filled by ``prepare`` with the class table below; until then a case is settled
        # when a round first ends with it.
        self._by_values: dict[tuple[int, int, int, int], BetResults] = {}
        self._values_full = False
        # Every class of the first four cards, settled once per process for these card bets:
        # no round pays for a class met for the first time (the slow tail of Station.apply),
        # and the table's size is fixed before the first round, however long the run. Built
        # by ``prepare`` (the daemon calls it on a thread once READY=1 is out: a tenth of a
        # second no restart should wait for), else by the first round that needs it.
        self._by_class: dict[int, tuple[Entry, ...]] | None = None if self._first_two else {}
        # Bets settled per class or per round; writing an existing key keeps its place.
        self._rest = tuple(b.key for b in (*self._first_two, *self._live))

    def settle(self, outcome: RoundOutcome) -> BetResults:
        player, banker = outcome.player, outcome.banker
        return self.settle_round(player, banker, (
            outcome.player_total, outcome.banker_total, len(player), len(banker)), outcome)

    def settle_round(self, player: Sequence[Card], banker: Sequence[Card], key: ValuesKey,
                     outcome: RoundOutcome | None = None) -> BetResults:
        """``settle`` from a round's cards and its ``values_key``: the ``RoundOutcome`` is
        built only if a bet or a case needs it (none of the shipped paytables' bets do, and
        every case is built with the Settler), so a round's last card need not build one."""
        template = self._by_values.get(key)
        if template is None:
            outcome = outcome or decide(tuple(player), tuple(banker))
            template = self._by_values[key] = self._template(outcome)
        firsts: tuple[Entry, ...] = ()
        if self._first_two:
            p0, p1, b0, b1 = player[0].index, player[1].index, banker[0].index, banker[1].index
            pair = _PAIR
            # One int (six base-144 digits), not a tuple: the cache's keys stay small.
            cls = (((((pair[p0][p1] * 144 + pair[b0][b1]) * 144 + pair[p0][b0]) * 144
                     + pair[p0][b1]) * 144 + pair[p1][b0]) * 144 + pair[p1][b1])
            # The table holds every class; settling afresh keeps a station running should a
            # deal ever fall outside it.
            table = self._by_class
            if table is None:
                table = self.prepare()
            found = table.get(cls)
            if found is None:
                outcome = outcome or decide(tuple(player), tuple(banker))
                found = self._entries(self._first_two, outcome)
            firsts = found
        live: tuple[Entry, ...] = ()
        if self._live:
            live = self._entries(self._live, outcome or decide(tuple(player), tuple(banker)))
        # A fresh mapping for every record (a dict copy, then the non-values bets written in
        # their places: paytable order, which the record promises), of entries no one can
        # change, so sharing them between records is safe.
        out = template.copy()
        if self._rest:
            out.update(zip(self._rest, firsts + live, strict=True))
        return out

    def prepare(self) -> dict[int, tuple[Entry, ...]]:
        """Build the tables now, if they are not built yet (``Station.prepare``); a round
        that comes first builds what it needs itself."""
        if not self._values_full:
            self._by_values = {key: self._template_of(entries)
                               for key, entries in _values_table(self._values).items()}
            self._values_full = True
        if self._by_class is None:
            self._by_class = _class_table(self._first_two)
        return self._by_class

    def _template(self, outcome: RoundOutcome) -> BetResults:
        return self._template_of(self._entries(self._values, outcome))

    def _template_of(self, entries: tuple[Entry, ...]) -> BetResults:
        settled = dict(zip((b.key for b in self._values), entries, strict=True))
        return {k: settled.get(k, _PENDING) for k in self._order}

    @staticmethod
    def _entries(bets: tuple[Bet, ...], outcome: RoundOutcome) -> tuple[Entry, ...]:
        return tuple(_entry(settle_bet(b, outcome)) for b in bets)

    def refund_all(self) -> BetResults:
        return refund_all(self.paytable)


def _class_of(player: tuple[Card, ...], banker: tuple[Card, ...]) -> int:
    """The class of the first four cards as ``Settler.settle`` computes it, inline there."""
    pair = _PAIR
    p0, p1, b0, b1 = player[0].index, player[1].index, banker[0].index, banker[1].index
    return (((((pair[p0][p1] * 144 + pair[b0][b1]) * 144 + pair[p0][b0]) * 144
              + pair[p0][b1]) * 144 + pair[p1][b0]) * 144 + pair[p1][b1])


def _signature(bet: Bet) -> tuple[object, ...]:
    """What settling ``bet`` depends on (not its key, label, cut-off or note): equal
    signatures settle alike, so card bets of equal signatures share one class table."""
    return (bet.kind, bet.side, bet.total, bet.totals, bet.colour, bet.push,
            tuple(bet.pays.items()), tuple(_signature(r) for r in bet.refs))


def _class_table(bets: tuple[Bet, ...]) -> dict[int, tuple[Entry, ...]]:
    """For these card bets, the entries of every class of the first four cards. About 0.1 s
    for seed 000's four card bets, paid once per process and set of card bets (the last
    ``CLASS_TABLES_KEPT`` are kept); a deal's first four cards always fall in one of these
    classes (a shoe of 4 or more decks can deal every one of them)."""
    signature = tuple(_signature(b) for b in bets)
    table = _TABLES.get(signature)
    if table is None:
        if len(_TABLES) >= CLASS_TABLES_KEPT:
            del _TABLES[next(iter(_TABLES))]  # the oldest
        table = _TABLES[signature] = _settle_classes(bets)
    return table


def _settle_classes(bets: tuple[Bet, ...]) -> dict[int, tuple[Entry, ...]]:
    """Thousands of classes settle the same few ways: each class keeps a reference to one
    shared tuple (entries are interned by ``_entry``, so equal tuples hold the same
    objects), and the table stays small."""
    shared: dict[tuple[int, ...], tuple[Entry, ...]] = {}
    table: dict[int, tuple[Entry, ...]] = {}
    for four, _ in first_four_classes(8):
        player, banker = (four[0], four[2]), (four[1], four[3])
        entries = Settler._entries(bets, decide(player, banker))
        table[_class_of(player, banker)] = shared.setdefault(tuple(map(id, entries)), entries)
    return table


_TABLES: dict[tuple[tuple[object, ...], ...], dict[int, tuple[Entry, ...]]] = {}

def _values_table(bets: tuple[Bet, ...]) -> dict[ValuesKey, tuple[Entry, ...]]:
    """For these values bets, the entries of every case of the values a round can end with;
    kept per set of values bets as the class tables are (a few milliseconds to build)."""
    signature = tuple(_signature(b) for b in bets)
    table = _VALUES.get(signature)
    if table is None:
        if len(_VALUES) >= CLASS_TABLES_KEPT:
            del _VALUES[next(iter(_VALUES))]  # the oldest
        shared: dict[tuple[int, ...], tuple[Entry, ...]] = {}
        table = _VALUES[signature] = {}
        for key, outcome in values_cases().items():
            entries = Settler._entries(bets, outcome)
            table[key] = shared.setdefault(tuple(map(id, entries)), entries)
    return table


_VALUES: dict[tuple[tuple[object, ...], ...], dict[ValuesKey, tuple[Entry, ...]]] = {}




def _pair_table() -> list[list[int]]:
    """For two cards (by index), a number that says what the first-two kinds can see of
    them: whether their ranks are equal, their suits equal, and for each whether its rank is
    4 and whether its suit is hearts, diamonds or black. Six of these over the first four
    cards name the class of the deal exactly: S and C swap freely, other ranks than 4 too."""
    def looks(card: Card) -> int:
        suit = 0 if card.suit in ("S", "C") else 1 if card.suit == "H" else 2
        return suit * 2 + (card.rank == FORTUNE_RANK)

    return [[((x.rank == y.rank) * 2 + (x.suit == y.suit)) * 36 + looks(x) * 6 + looks(y)
             for y in ALL_CARDS] for x in ALL_CARDS]


_PAIR: Final = _pair_table()


def _entry(s: Settled) -> Entry:
    """The one read-only entry for this way of ending: a paytable has a few dozen, and
    every record that ends a bet this way holds the same object."""
    entry = _ENTRIES.get(s)
    if entry is None:
        entry = _ENTRIES[s] = Entry(outcome=s.result, pays=json_number(s.pays))
    return entry


# Keyed by (result, payout): as many as the distinct payouts of the paytables loaded, so a
# handful of dozen whatever the run's length.
_ENTRIES: dict[Settled, Entry] = {}
_REFUND: Final = Entry(outcome=PUSH, pays=0)
_PENDING: Final = Entry()  # a place in a template, always written over before it is returned

