"""The bet guard (issue 25): every open bet's exact return for the cards left in the shoe,
published with betting open, and a bet closed for the rest of the shoe once it favours the
player. Pure: the station calls it inside ``Station.apply``, at the betting opening, so a
replay reproduces every figure and every closure (docs/paytables.md, "Bet guard").

``off`` does nothing (a recording made before the guard replays byte for byte); ``observe``
adds ``rtp`` to ``betting_open`` and raises a ``bet_positive`` alert the first time in a
shoe that a bet's return is strictly over the limit; ``close`` also closes that bet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

from station.game.analysis.tree import ROUND_CARDS
from station.game.limits import GUARD_MODES

if TYPE_CHECKING:  # the analyzer brings numpy: imported when a guard is made, not before
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
        from station.game.analysis.composition import CompositionAnalyzer  # noqa: PLC0415

        self.limit = limit_of(max_rtp)
        self.analyzer = CompositionAnalyzer(paytable)
        self._alerted: set[str] = set()
        self._closed: list[str] = []

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
        exact = self.analyzer.rtp_ratios(left)
        top, bottom = self.limit.numerator, self.limit.denominator
        alerts = []
        for key in open_bets:
            rtp = exact[key]
            # rtp > limit, exactly, in integers (denominators are positive).
            if rtp[0] * bottom > top * rtp[1] and key not in self._alerted:
                self._alerted.add(key)
                alerts.append({"bet": key, "rtp": published(rtp)})
                if self.mode == "close":
                    self._closed.append(key)
        if self.mode == "close" and alerts:
            open_bets[:] = [k for k in open_bets if k not in self._closed]
        return Opening({k: published(exact[k]) for k in open_bets}, list(self._closed),
                       alerts)
