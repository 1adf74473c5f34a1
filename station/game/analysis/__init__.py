"""Exact (combinatorial, not Monte Carlo) analysis of a paytable. Pure: no I/O.

``analyze(paytable, decks)`` gives every bet's win / push / lose probabilities as
``Fraction`` and its house edge and return to player.
"""

from station.game.analysis.exact import BetAnalysis, PaytableAnalysis, analyze

__all__ = ["BetAnalysis", "PaytableAnalysis", "analyze"]
