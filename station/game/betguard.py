"""The bet guard (issue 25): every open bet's exact return for the cards left in the shoe,
published with betting open, and a bet closed for the rest of the shoe once it favours the
player. Pure: the station calls it inside ``Station.apply``, at the betting opening, so a
replay reproduces every figure and every closure (docs/paytables.md, "Bet guard").

``off`` does nothing (a recording made before the guard replays byte for byte); ``observe``
adds ``rtp`` to ``betting_open`` and raises a ``bet_positive`` alert the first time in a
shoe that a bet's return is strictly over the limit; ``close`` also closes that bet.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

from station.game.analysis.estimate import over_limit, published_of
from station.game.analysis.groups import check_valued
from station.game.analysis.tree import ROUND_CARDS
from station.game.limits import GUARD_MODES

if TYPE_CHECKING:  # the analyzer brings numpy: imported when it is built, not before
    from station.game.analysis.composition import CompositionAnalyzer
    from station.game.analysis.estimate import Valued
    from station.game.analysis.running import RunningShoe
    from station.game.bets.model import Paytable

# Published returns are rounded half to even to this many decimals (0.989421 is 98.9421%),
# the precision of ``station analyze --json``; the decision uses the exact value.
RTP_DECIMALS: Final = 6
_SCALE: Final = 10**RTP_DECIMALS
ALERT: Final = "bet_positive"
BY: Final = "bet_guard"


def limit_of(max_rtp: float) -> Fraction:
    """The limit as the decimal written in the config (1.005 is 201/200, not the binary
    double nearest to it), so the comparison is the one the operator reads."""
    return Fraction(repr(max_rtp))


def published(rtp: Fraction | tuple[int, int]) -> float:
    """A return (a ``Fraction`` or (numerator, denominator)) as published: rounded half to
    even to ``RTP_DECIMALS`` decimals, exactly (``round(rtp, RTP_DECIMALS)``, in integers:
    42 of them at every opening), then the double nearest to that decimal (JSON writes it
    shortest: 0.989421)."""
    num, den = (rtp.numerator, rtp.denominator) if isinstance(rtp, Fraction) else rtp
    q, r = divmod(num * _SCALE, den)
    if 2 * r > den or (2 * r == den and q % 2):
        q += 1
    return q / _SCALE  # true division of integers: correctly rounded


@dataclass(slots=True)
class Opening:
    """What the guard adds to one betting opening."""

    rtp: dict[str, float]  # every open bet (after closures), published
    closed: list[str]  # closed by the guard in this shoe, in the order they were closed
    alerts: list[dict[str, Any]] = field(default_factory=list)  # bet_positive, new ones


class BetGuard:
    """One table's guard; ``new_shoe`` at each shoe, ``opening`` at each betting opening."""

    def __init__(self, paytable: Paytable, mode: str, max_rtp: float) -> None:
        if mode not in GUARD_MODES[1:]:
            raise ValueError(f"bet guard mode {mode!r} is not one of {GUARD_MODES[1:]}")
        self.mode = mode
        # A bet the analysis cannot value is refused now, when the config is read; the
        # analyzer itself (numpy, tables of a few hundred milliseconds) is built by
        # ``prepare``, after READY=1, or by the first opening that needs it.
        check_valued(paytable)
        self.paytable = paytable
        self.limit = limit_of(max_rtp)
        self._bound = float(self.limit)
        self._analyzer: CompositionAnalyzer | None = None
        self._running: RunningShoe | None = None
        self._alerted: set[str] = set()
        self._closed: list[str] = []

    def prepare(self) -> CompositionAnalyzer:
        """The analyzer and the running shoe, built now if they are not yet (one thread at
        a time)."""
        if self._analyzer is None:
            from station.game.analysis.composition import (  # noqa: PLC0415
                CompositionAnalyzer,
            )

            self._analyzer = CompositionAnalyzer(self.paytable)
        if self._running is None:
            from station.game.analysis.running import RunningShoe  # noqa: PLC0415

            self._running = RunningShoe(self._analyzer)
        return self._analyzer

    @property
    def analyzer(self) -> CompositionAnalyzer:
        return self.prepare()

    def new_shoe(self) -> None:
        self._alerted = set()
        self._closed = []

    def opening(self, open_bets: list[str], drawn: list[int], decks: int) -> Opening:
        """The guard at a betting opening: ``open_bets`` are the bets the paytable's cut-offs
        leave open (the guard's closures are taken out of the list in place); ``drawn`` the
        shoe's counts of every card that has left it, by ``Card.index``.

        With fewer than six cards left nothing is valued (a round may need six): ``rtp`` is
        empty and nothing is closed at that opening."""
        if self._closed:
            open_bets[:] = [k for k in open_bets if k not in self._closed]
        left = [decks - n for n in drawn]
        if sum(left) < ROUND_CARDS:
            return Opening({}, list(self._closed))
        values = self._follow(left)
        exact: dict[str, tuple[int, int]] = {}

        def exact_of(key: str) -> tuple[int, int]:
            # An estimate too near a rounding boundary or the limit to say (station.game.
            # analysis.running): today's exact integers decide, for every bet at once.
            if not exact:
                exact.update(self.analyzer.rtp_ratios(left))
            return exact[key]

        alerts = []
        for key in open_bets:
            over = over_limit(values[key], self.limit, self._bound)
            if over is None:
                values[key] = exact_of(key)
                over = over_limit(values[key], self.limit, self._bound)
            if over and key not in self._alerted:
                self._alerted.add(key)
                alerts.append({"bet": key, "rtp": self._published(values, key, exact_of)})
                if self.mode == "close":
                    self._closed.append(key)
        if self.mode == "close" and alerts:
            open_bets[:] = [k for k in open_bets if k not in self._closed]
        return Opening({k: self._published(values, k, exact_of) for k in open_bets},
                       list(self._closed), alerts)

    @staticmethod
    def _published(values: dict[str, Valued], key: str,
                   exact_of: Callable[[str], tuple[int, int]]) -> float:
        figure = published_of(values[key])
        if figure is None:
            values[key] = ratio = exact_of(key)
            figure = published(ratio)
        return figure

    def _follow(self, left: list[int]) -> dict[str, Valued]:
        """Every bet's return for ``left``, from the running shoe brought up to it card by
        card (started afresh at a new shoe, or if a count ever went up)."""
        running = self._running
        if running is None:
            self.prepare()
            running = self._running
            assert running is not None
        was = running.left
        if was != left:
            taken = [(i, b - a) for i, (a, b) in enumerate(zip(left, was, strict=True))
                     if a != b]
            if any(n < 0 for _, n in taken):
                running.start(left)
            else:
                for index, n in taken:
                    for _ in range(n):
                        running.take(index)
        return running.rtp()
