"""The ``bets`` contract for the result record: keys, order, JSON, pushes and voids."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from station.game.cards import parse_card
from station.game.outcome import decide
from station.game.settlement import json_number, net_result, refund_all, settle
from station.settings.paytable import load_paytable

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"


def test_every_bet_in_paytable_order_and_json_ready() -> None:
    table = load_paytable(PAYTABLES / "seed003.yaml")
    # Player 2+3 draws K (5); Banker 3+3 = 6 stands on a 0: Banker wins 6-5 with two cards.
    outcome = decide(
        tuple(parse_card(c) for c in ("2S", "3H", "KD")),
        tuple(parse_card(c) for c in ("3D", "3C")),
    )
    bets = settle(table, outcome)
    assert list(bets) == list(table.keys)
    assert all(set(v) == {"outcome", "pays"} for v in bets.values())
    assert json.loads(json.dumps(bets)) == bets
    assert bets["banker"] == {"outcome": "win", "pays": 0.95}
    assert bets["small_tiger"] == {"outcome": "win", "pays": 22}
    assert type(bets["small_tiger"]["pays"]) is int
    assert bets["player"] == {"outcome": "lose", "pays": 0}


def test_bets_past_their_cutoff_are_still_settled() -> None:
    """Settlement reports every bet; whether it was open is the round's open-bets list."""
    table = load_paytable(PAYTABLES / "seed000.yaml")
    outcome = decide(
        tuple(parse_card(c) for c in ("5S", "5H", "KD")),
        tuple(parse_card(c) for c in ("KC", "7D")),
    )
    assert settle(table, outcome)["player_pair"] == {"outcome": "win", "pays": 11}


def test_void_round_refunds_everything() -> None:
    table = load_paytable(PAYTABLES / "seed003.yaml", ["no_commission"])
    refunds = refund_all(table)
    assert list(refunds) == list(table.keys)
    assert all(v == {"outcome": "push", "pays": 0} for v in refunds.values())


def test_json_number() -> None:
    assert json_number(Fraction(11)) == 11
    assert type(json_number(Fraction(11))) is int
    assert json_number(Fraction(19, 20)) == 0.95
    assert json_number(Fraction(7, 2)) == 3.5


@pytest.mark.parametrize(
    ("outcome", "pays", "net"),
    [("win", 0.95, 0.95), ("win", 150, 150.0), ("push", 0, 0.0), ("lose", 0, -1.0)],
)
def test_net_result(outcome: str, pays: float, net: float) -> None:
    assert net_result(outcome, pays) == net


def test_net_result_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="unknown bet outcome"):
        net_result("won", 1)
    with pytest.raises(ValueError, match="numeric"):
        net_result("win", "11")
