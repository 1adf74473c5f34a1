"""Bet kinds: one small pure settlement function per kind, driven by the paytable.

``station.game.settlement`` is the public entry point; this package holds the kinds themselves
(``main``, ``totals``, ``first_two``), their data (``model``) and the list of kinds with
what each one needs (``registry``).
"""

from station.game.bets.model import LOSE, PUSH, WIN, Bet, Paytable, Settled, open_bets
from station.game.bets.registry import KINDS, KindSpec, settle_bet

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
