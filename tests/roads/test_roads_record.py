"""Result records and B/P/T letters as the roads read them, side-bet icons included."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from station.game.cards import parse_card
from station.game.outcome import Winner, decide
from station.game.results import complete_record, void_record
from station.game.roads import (
    RecordError,
    Round,
    Scoreboard,
    round_from_record,
    rounds_from_sequence,
)
from station.game.settlement import settle
from station.settings.paytable import load_paytable

ROOT = Path(__file__).resolve().parents[2]


def record(player: str, banker: str, round_no: int = 1, shoe: str = "s1") -> dict[str, Any]:
    """A real record: the cards decide the winner and the pairs."""
    p = tuple(parse_card(c) for c in player.split())
    b = tuple(parse_card(c) for c in banker.split())
    return complete_record(shoe, round_no, decide(p, b))


def test_complete_record_gives_winner_and_pairs() -> None:
    # Player 2S 3H = 5; Banker 4D 4C = 8, a Banker pair.
    assert round_from_record(record("2S 3H", "4D 4C")) == Round("banker", banker_pair=True)
    # Player 7S 7H = 4 pair; Banker 2D 2C = 4 pair: a tie with both pairs.
    assert round_from_record(record("7S 7H", "2D 2C")) == Round("tie", True, True)


def test_void_record_is_skipped() -> None:
    cards = (parse_card("2S"), parse_card("3H"))
    void = void_record("s1", 4, player=cards, banker=cards, reason="misdeal", actor="sup")
    assert round_from_record(void) is None
    board = Scoreboard()
    assert board.add(void) is None
    assert board.beads == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"status": "pending"}, "'status' is 'pending'"),
        ({"winner": "dragon"}, "'winner' is 'dragon'"),
        ({"winner": None}, "'winner' is None"),
        ({"banker_pair": "yes"}, "'banker_pair' is 'yes'"),
        ({"bets": []}, "'bets' is []"),
        ({"bets": {"lucky_6": 12}}, "bets['lucky_6'] is 12"),
        ({"bets": {"lucky_6": {"outcome": "won", "pays": 12}}}, "outcome is 'won'"),
        ({"bets": {"lucky_6": {"outcome": "win", "pays": True}}}, "pays is True"),
        ({"bets": {"lucky_6": {"outcome": "win", "pays": "a lot"}}}, "pays is 'a lot'"),
    ],
)
def test_bad_records_name_the_key(change: dict[str, Any], message: str) -> None:
    bad = record("2S 3H", "4D 4C") | change
    with pytest.raises(RecordError, match=re.escape(message)):
        round_from_record(bad)


def bets(**outcomes: tuple[str, Any]) -> dict[str, dict[str, Any]]:
    return {key: {"outcome": outcome, "pays": pays} for key, (outcome, pays) in outcomes.items()}


def test_icon_is_the_highest_paying_winning_side_bet() -> None:
    base = record("2S 3H", "4D 4C")
    won = base | {
        "bets": bets(
            banker=("win", 0.95),
            banker_pair=("win", 11),
            either_pair=("win", 5),
            big_tiger=("lose", 0),
            tiger_tie=("push", 0),
        )
    }
    assert round_from_record(won) == Round("banker", banker_pair=True, icon="banker_pair")


def test_main_bets_never_become_an_icon() -> None:
    tie_only = record("7S 7H", "2D 2C") | {"bets": bets(tie=("win", 8), player=("push", 0))}
    parsed = round_from_record(tie_only)
    assert parsed is not None
    assert parsed.icon is None


def test_equal_payouts_pick_the_first_key_alphabetically() -> None:
    one = record("2S 3H", "4D 4C") | {"bets": bets(tiger=("win", 12), lucky_6=("win", 12))}
    other = record("2S 3H", "4D 4C") | {"bets": bets(lucky_6=("win", 12), tiger=("win", 12))}
    assert round_from_record(one) == round_from_record(other)
    parsed = round_from_record(one)
    assert parsed is not None
    assert parsed.icon == "lucky_6"


def test_payout_may_be_an_exact_fraction_string() -> None:
    rec = record("2S 3H", "4D 4C") | {
        "bets": bets(dragon_bonus=("win", "19/2"), lucky_6=("win", 9))
    }
    parsed = round_from_record(rec)
    assert parsed is not None
    assert parsed.icon == "dragon_bonus"


def test_sequence_letters() -> None:
    assert rounds_from_sequence("bP t") == [Round("banker"), Round("player"), Round("tie")]
    assert rounds_from_sequence("") == []
    with pytest.raises(RecordError, match=r"^position 4: 'X' is not B, P or T$"):
        rounds_from_sequence("BPTXB")


def test_scoreboard_takes_every_form_of_a_round() -> None:
    board = Scoreboard()
    board.add("B")
    board.add("player")
    board.add(Winner.TIE)
    board.add(Round("banker", icon="lucky_6"))
    board.add(record("2S 3H", "4D 4C"))
    assert [bead.winner for bead in board.beads] == ["banker", "player", "tie", "banker", "banker"]
    with pytest.raises(RecordError, match="'X'"):
        board.add("X")


def test_icon_from_a_real_settlement() -> None:
    """The ``bets`` that station.game.settlement publishes, read by the roads as they are."""
    paytable = load_paytable(ROOT / "config" / "paytables" / "seed003.yaml")
    # Banker 3H 3D: a two-card 6 and a pair; Player 2S 3C = 5. Small tiger (22) pays most.
    player = (parse_card("2S"), parse_card("3C"))
    banker = (parse_card("3H"), parse_card("3D"))
    outcome = decide(player, banker)
    rec = complete_record("s1", 1, outcome) | {"bets": settle(paytable, outcome)}
    assert round_from_record(rec) == Round("banker", banker_pair=True, icon="small_tiger")


def test_bets_without_an_icon_on_the_seed_003_board_never_show() -> None:
    # Seed 003's icon table has no tiger pair or all treasure icon: the next best one shows.
    both_pairs = record("4S 4H", "9D 9C") | {
        "bets": bets(tiger_pair=("win", 20), all_treasure=("win", 5), banker_pair=("win", 11),
                     player_pair=("win", 11))
    }
    parsed = round_from_record(both_pairs)
    assert parsed is not None and parsed.icon == "banker_pair"
