"""What the bet guard did over a simulation (issue 25, ``station simulate --stats``). Pure.

``GuardStats`` is fed the station's announcements. Per shoe it counts the bets the guard
closed (``close``) or would have closed (``observe``): one ``bet_positive`` alert each.
With ``observe`` it also sums the *return saved*: for each such bet, from the opening of
its alert to the shoe's end, ``rtp - 1`` at every opening it was offered at. That is the
house's expected result per unit a player stakes on it at each of those rounds, had it
been closed: positive while the cards favour the player, negative once they no longer do
(a closed bet also loses the house its edge on the rest of the shoe). With ``close`` the
closed bets' returns are no longer published, so the sum is not known.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class GuardStats:
    shoes: int = 0
    closures: int = 0
    most_in_a_shoe: int = 0
    by_bet: Counter[str] = field(default_factory=Counter)
    saved: float = 0.0  # sum of rtp - 1 over the openings after each closure (observe)
    saved_rounds: int = 0  # the bet-rounds that sum is over
    closes: bool = False  # a closing guard: ``saved`` is not known
    seen_rtp: bool = False  # any betting_open carried rtp: the guard was on
    _shoe: str | None = None
    _in_shoe: set[str] = field(default_factory=set)

    def add(self, message: Mapping[str, Any]) -> None:
        kind = message.get("type")
        if kind == "betting_open":
            if message.get("shoe") != self._shoe:
                self._shoe = message.get("shoe")
                self.shoes += 1
                self._in_shoe = set()
            rtp = message.get("rtp")
            if rtp is None:
                return
            self.seen_rtp = True
            if "closed_by_guard" in message:
                self.closes = True
            for bet in self._in_shoe:
                if bet in rtp:
                    self.saved += rtp[bet] - 1
                    self.saved_rounds += 1
        elif kind == "alert" and message.get("alert") == "bet_positive":
            bet = message["bet"]
            self._in_shoe.add(bet)
            self.closures += 1
            self.by_bet[bet] += 1
            self.most_in_a_shoe = max(self.most_in_a_shoe, len(self._in_shoe))
            if not self.closes:  # the alert's own opening, whose rtp went out just before
                self.saved += message["rtp"] - 1
                self.saved_rounds += 1

    def summary(self, mode: str) -> str:
        """The lines ``simulate --stats`` prints for the guard in ``mode``."""
        if not self.seen_rtp:
            return (f"bet guard {mode}: nothing valued (set table.bet_guard, or "
                    "--bet-guard observe, to see what it would close)")
        verb = "closed" if self.closes else "would have closed"
        per = self.closures / self.shoes if self.shoes else 0.0
        lines = [f"bet guard {mode}: {verb} {self.closures} bets over {self.shoes} shoes "
                 f"({per:.2f} a shoe, at most {self.most_in_a_shoe} in one)"]
        if self.by_bet:
            top = ", ".join(f"{b} {n}" for b, n in sorted(self.by_bet.items(),
                                                         key=lambda x: (-x[1], x[0])))
            lines.append(f"  by bet: {top}")
        if self.closes:
            lines.append("  return saved: not known with close (closed bets' returns are not "
                         "published); run with observe to measure it")
        else:
            lines.append(f"  return saved: {self.saved:+.4f} units per unit staked, summed "
                         f"over {self.saved_rounds} bet-rounds after the closures "
                         f"({self.saved / max(self.shoes, 1):+.4f} a shoe)")
        return "\n".join(lines)
