"""Bet kinds: one small pure settlement function per kind, driven by the paytable.

``station.settlement`` is the public entry point; this package holds the kinds themselves
(``main``, ``totals``, ``first_two``), their data (``model``) and the list of kinds with
what each one needs (``registry``).
"""

from station.bets.model import LOSE, PUSH, WIN, Bet, Paytable, Settled, open_bets
from station.bets.registry import KINDS, KindSpec, settle_bet

__all__ = [
    "KINDS",
    "LOSE",
    "PUSH",
    "WIN",
    "Bet",
    "KindSpec",
    "Paytable",
    "Settled",
    "open_bets",
    "settle_bet",
]
