"""The dealing machine through the station, one table scenario at a time."""

from __future__ import annotations

import pytest

from station.game.cards import parse_card
from tests.tablekit import Table


def test_natural_ends_the_round_after_four_cards() -> None:
    t = Table()
    t.new_shoe()
    assert t.phase == "between_rounds"
    t.round("4S", "3H", "5D", "2C")  # player 4+5 = 9, banker 3+2 = 5
    (r,) = t.records
    assert r["status"] == "complete" and r["round"] == 1
    assert (r["player"], r["banker"]) == (["4S", "5D"], ["3H", "2C"])
    assert (r["player_total"], r["banker_total"], r["winner"]) == (9, 5, "player")
    assert r["natural"] and r["player_natural"] and not r["banker_natural"]
    assert t.phase == "between_rounds" and t.prompt.startswith("ROUND 2: OPEN BETTING")


def test_player_third_card_then_banker_three_stands_on_eight() -> None:
    t = Table()
    t.new_shoe()
    t.round("2S", "TH", "3D", "3C")  # player 5 draws; banker 3
    assert t.phase == "player_3"
    assert t.prompt == "DEAL PLAYER THIRD CARD (ROUND 1: player 5 draws)"
    t.card("8C")  # RULES.md 2.5: banker 3 stands when the player's third card is 8
    (r,) = t.records
    assert r["player"] == ["2S", "3D", "8C"] and r["banker"] == ["TH", "3C"]
    assert (r["player_total"], r["banker_total"], r["winner"]) == (3, 3, "tie")


def test_banker_draws_on_player_third_card_with_reason_on_display() -> None:
    t = Table()
    t.new_shoe()
    t.round("AS", "2H", "2D", "4C", "6S")  # player 3 draws 6; banker 6 draws on 6
    assert t.phase == "banker_3"
    assert "DEAL BANKER THIRD CARD" in t.prompt
    assert "banker 6 draws on player third card 6" in t.prompt
    t.card("3H")
    (r,) = t.records
    assert r["banker"] == ["2H", "4C", "3H"] and r["banker_total"] == 9
    assert r["player_total"] == 9 and r["winner"] == "tie"


def test_player_stands_banker_draws_on_five() -> None:
    t = Table()
    t.new_shoe()
    t.round("3S", "2D", "4H", "3C")  # player 7 stands; banker 5 draws
    assert t.phase == "banker_3" and "player stood, banker 5 draws" in t.prompt
    t.card("4S")
    (r,) = t.records
    assert r["player"] == ["3S", "4H"] and r["banker"] == ["2D", "3C", "4S"]
    assert r["winner"] == "banker" and r["banker_total"] == 9 and not r["natural"]


def test_perfect_pair_needs_two_identical_cards_in_a_row() -> None:
    t = Table()
    t.new_shoe()
    # Two 4S in a row: legal in 8 decks, far enough apart in time not to be a double read.
    t.round("4S", "KH", "4S", "QD")
    (r,) = t.records
    assert r["player_pair"] and r["perfect_pair"] and not r["banker_pair"]
    assert not t.notices


def test_a_double_read_inside_the_window_is_suppressed_and_said() -> None:
    t = Table(dedupe_ms=150)
    t.new_shoe()
    t.round("4S")
    t.card("4S", dt=0.05)  # the scanner bounced
    assert t.phase == "banker_1"
    assert t.notices == ["double read of '4S' from scanner within 150 ms suppressed"]
    t.card("4S", dt=0.5)  # a genuine second 4S after the window: counted
    assert t.phase == "player_2"


def test_the_same_code_from_two_readers_is_two_cards() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.card("4S", dt=0.01, source="camera")
    assert t.phase == "player_2" and not t.notices


def test_dedupe_can_be_turned_off() -> None:
    t = Table(dedupe_ms=0)
    t.new_shoe()
    t.round("4S")
    t.card("4S", dt=0.05)
    assert t.phase == "player_2"


def test_burn_takes_indicator_value_more_cards_and_faces_count_ten() -> None:
    t = Table()
    t.cmd("new_shoe")
    t.card("KD")
    assert t.prompt == "BURN 10 MORE FACE DOWN (KD shown)"
    t.cards(*["2C", "2D", "2H", "2S", "3S", "3H", "3D", "4C", "4D"])
    assert t.phase == "burning" and t.prompt.startswith("BURN 1 MORE")
    t.card("3C")
    assert t.phase == "between_rounds"
    shoe = t.station.dealing.shoe
    assert shoe is not None and len(shoe.burned) == 11 and shoe.remaining == 416 - 11


def test_card_while_betting_is_open_pauses_and_void_refunds() -> None:
    t = Table()
    t.new_shoe()
    t.cmd("open_betting")
    t.card("9H")
    assert t.phase == "paused"
    assert t.station.prompt.text == ("PAUSED: card not due: 9H (betting is still open) - set it "
                                     "aside; call supervisor")
    assert t.station.prompt.detail == "supervisor: resume continues the round, void refunds it"
    t.cmd("void", actor="supervisor:ann")
    (r,) = t.records
    assert r["status"] == "void" and r["round"] == 1 and r["winner"] is None
    assert r["voided_by"] == "supervisor:ann" and "betting is still open" in r["void_reason"]
    assert t.phase == "between_rounds"
    t.round("4S", "3H", "5D", "2C")
    assert [x["round"] for x in t.records] == [1, 2]
    shoe = t.station.dealing.shoe
    assert shoe is not None and [c.code for c in shoe.discarded] == ["9H"]


def test_extra_card_after_the_round_names_the_third_card_not_due() -> None:
    t = Table()
    t.new_shoe()
    t.round("2S", "TH", "3D", "3C", "8C")  # player drew, banker 3 stands on 8
    t.card("5H")
    assert t.phase == "paused"
    assert "extra card to banker: banker stands" in t.prompt
    t.cmd("resume", actor="supervisor:ann")
    assert t.notices[-1] == "resumed by supervisor:ann"
    assert t.phase == "between_rounds" and len(t.records) == 1
    shoe = t.station.dealing.shoe
    assert shoe is not None and [c.code for c in shoe.discarded] == ["5H"] and not shoe.stray


def test_unreadable_code_pauses_and_a_rescan_after_resume_continues() -> None:
    # The supervisor resumes without a re-scan: the station asks for the due card again.
    t = Table()
    t.new_shoe()
    t.round("4S", "3H")
    t.card("\x15?Q")
    assert t.phase == "paused" and "unreadable code" in t.prompt
    assert "show the card face up and scan it again" in t.prompt
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "player_2"
    t.cards("5D", "2C")
    assert t.records[0]["player"] == ["4S", "5D"]


def test_following_the_unreadable_card_instruction_literally_deals_it_once() -> None:
    # The display says: show the card face up and scan it again. Doing exactly that while
    # paused identifies the card; resume deals it as the due card, and it is counted once.
    t = Table()
    t.new_shoe()
    t.round("4S", "3H")
    t.card("\x15?Q")
    t.card("5D")  # the re-scan, while still paused
    assert t.phase == "paused"
    assert "re-scanned as 5D" in t.prompt and "resume deals it as the due card" in t.prompt
    assert "scan it again" not in t.prompt
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "banker_2", t.prompt
    t.card("2C")
    r = t.records[0]
    assert r["player"] == ["4S", "5D"] and r["banker"] == ["3H", "2C"]
    shoe = t.station.dealing.shoe
    assert shoe is not None
    assert shoe.counts[parse_card("5D").index] == 1 and not shoe.stray and not shoe.discarded


def test_a_rescanned_card_is_set_aside_when_the_round_is_voided() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S", "3H")
    t.card("\x15?Q")
    t.card("5D")
    t.cmd("void", actor="supervisor:ann")
    r = t.records[0]
    assert r["status"] == "void" and r["player"] == ["4S"]
    # The reason upstream is what happened, never the dealer's instruction.
    assert r["void_reason"] == "unreadable code '\\x15?Q' from scanner: not a card"
    shoe = t.station.dealing.shoe
    assert shoe is not None and [c.code for c in shoe.discarded] == ["5D", "4S", "3H"]
    assert t.phase == "between_rounds"


def test_only_one_rescan_is_held_a_second_card_is_a_stray() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S", "3H")
    t.card("\x15?Q")
    t.card("5D")
    t.card("6D")  # a second card while paused: drawn, set aside
    assert "drawn while paused: 1 card (6D)" in t.prompt
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "banker_2"
    t.card("2C")
    assert t.records[0]["player"] == ["4S", "5D"]


def test_unreadable_code_when_no_card_is_due_says_set_it_aside() -> None:
    t = Table()
    t.new_shoe()
    t.card("\x15?Q")  # between rounds
    assert "no card is due" in t.prompt and "set the card aside" in t.prompt
    assert "scan it again" not in t.prompt
    t.card("5D")  # a card while paused is drawn and set aside, as any card not due
    assert "drawn while paused: 1 card (5D)" in t.prompt


@pytest.mark.parametrize("first,second", [("4S", "4s"), ("4S", "4S\r"), ("TS", "10S"),
                                          ("10H", "th ")])
def test_a_double_read_is_the_same_card_whatever_its_spelling(first: str, second: str) -> None:
    t = Table()
    t.new_shoe()
    t.round()
    t.card(first)
    t.card(second, dt=0.05)
    assert t.phase == "banker_1" and any("double read" in n for n in t.notices)


def test_a_ninth_copy_is_refused_and_never_counted() -> None:
    t = Table()
    t.new_shoe(burn=("AS", "7H"))
    t.round("7H", "7H", "7H", "7H")  # player 4 banker 4: player draws
    t.card("7H")  # player third 7 -> total 1; banker 4 draws on 7
    t.card("7H")  # banker 1
    t.round("7H", "KD")  # the 8th 7H is dealt to player
    t.card("7H")  # a 9th
    assert t.phase == "paused"
    assert "7H would be copy 9 in a 8-deck shoe: foreign card or misread" in t.prompt
    shoe = t.station.dealing.shoe
    assert shoe is not None and shoe.counts[parse_card("7H").index] == 8
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "player_2"


def test_reader_lost_pauses_and_resume_waits_for_it() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.lost()
    assert t.phase == "paused" and "scanner lost (port vanished)" in t.prompt
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "paused"
    assert t.notices[-1] == "resume refused: scanner still lost; reconnect it first"
    t.restored()
    assert t.phase == "paused", "a fault stays latched until a person clears it"
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "banker_1"


def test_cut_card_in_a_round_makes_it_the_last() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S", "3H")
    t.cut()
    assert "CUT CARD OUT: this round is the last" in t.prompt
    t.cards("5D", "2C")
    assert t.phase == "shoe_closed"
    assert t.prompt.startswith("SHOE CLOSED after round 1")
    first_shoe = t.records[0]["shoe"]
    t.new_shoe()
    t.round("4S", "3H", "5D", "2C")
    assert t.records[1]["round"] == 1 and t.records[1]["shoe"] != first_shoe


def test_cut_card_between_rounds_default_policy_next_round_is_last() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S", "3H", "5D", "2C")
    t.cut()
    assert t.phase == "between_rounds" and "CUT CARD OUT: this round is the last" in t.prompt
    t.round("4S", "3H", "5D", "2C")
    assert t.phase == "shoe_closed" and len(t.records) == 2


def test_cut_card_between_rounds_close_shoe_policy() -> None:
    t = Table(cut_card_between_rounds="close_shoe")
    t.new_shoe()
    t.round("4S", "3H", "5D", "2C")
    t.cut()
    assert t.phase == "shoe_closed" and len(t.records) == 1


def test_cut_card_while_betting_is_open_makes_this_round_last() -> None:
    t = Table()
    t.new_shoe()
    t.cmd("open_betting")
    t.cut()
    t.cmd("close_betting")
    t.cards("4S", "3H", "5D", "2C")
    assert t.phase == "shoe_closed"


@pytest.mark.parametrize("action", ["resume", "void"])
def test_cut_card_during_the_burn_pauses(action: str) -> None:
    t = Table()
    t.cmd("new_shoe")
    t.card("3S")
    t.cut()
    assert t.phase == "paused" and "cut card came out during the burn" in t.prompt
    t.cmd(action, actor="supervisor:ann")
    if action == "void":
        assert t.phase == "shoe_closed" and not t.records
        return
    assert t.phase == "burning"
    t.cards("2C", "2D", "2H")
    assert "CUT CARD OUT: this round is the last" in t.prompt
    t.round("4S", "3H", "5D", "2C")
    assert t.phase == "shoe_closed"


@pytest.mark.parametrize(
    ("action", "phase"),
    [("open_betting", "player_1"), ("close_betting", "between_rounds"), ("new_shoe", "player_1"),
     ("resume", "player_1"), ("teleport", "player_1")],
)
def test_commands_at_the_wrong_time_are_refused_with_a_notice(action: str, phase: str) -> None:
    t = Table()
    t.new_shoe()
    if phase == "player_1":
        t.cmd("open_betting")
        t.cmd("close_betting")
    t.cmd(action)
    assert t.phase == phase
    assert t.notices and ("refused" in t.notices[-1] or "unknown command" in t.notices[-1])


def test_card_with_no_shoe_pauses_and_void_returns_to_no_shoe() -> None:
    t = Table()
    t.card("AS")
    assert t.phase == "paused" and "no shoe started" in t.prompt
    t.cmd("void", actor="supervisor:ann")
    assert t.phase == "no_shoe" and not t.records


def test_supervisor_may_void_a_round_being_dealt() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S", "3H", "5D")
    t.cmd("void", actor="supervisor:bo")
    (r,) = t.records
    assert r["status"] == "void" and r["player"] == ["4S", "5D"] and r["banker"] == ["3H"]
    assert r["void_reason"] == "voided by supervisor"


def test_cards_drawn_while_paused_are_set_aside_with_the_reason() -> None:
    t = Table()
    t.new_shoe()
    t.cmd("open_betting")
    t.card("9H")
    t.card("8H")
    t.card("8H")  # two identical strays read as two
    assert "drawn while paused: 2 cards (8H 8H)" in t.prompt
    assert "set the cards drawn while paused aside" in t.prompt
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "betting_open"
    shoe = t.station.dealing.shoe
    assert shoe is not None and [c.code for c in shoe.discarded] == ["9H", "8H", "8H"]


def test_end_shoe_closes_between_rounds() -> None:
    t = Table()
    t.new_shoe()
    t.cmd("end_shoe")
    assert t.phase == "shoe_closed"


def test_every_counted_card_is_classed_once() -> None:
    t = Table()
    t.new_shoe(burn=("3S", "2C", "2D", "2H"))
    t.round("4S", "3H", "5D", "2C")
    t.card("9H")  # not due
    t.cmd("resume", actor="supervisor:ann")
    t.round("2S", "TH", "3D", "3C", "8C")
    shoe = t.station.dealing.shoe
    assert shoe is not None
    assert len(shoe.burned) + shoe.dealt + len(shoe.discarded) + len(shoe.stray) == shoe.drawn
    assert shoe.drawn == 4 + 4 + 1 + 5 and shoe.remaining == 416 - 14


def test_cut_card_seen_while_paused_in_a_round_makes_it_the_last() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S", "3H")
    t.card("??")  # unreadable: paused mid-round
    t.cut()
    assert "this round is the last" in t.notices[-1]
    t.cmd("resume", actor="supervisor:ann")
    t.cards("5D", "2C")
    assert t.phase == "shoe_closed"


def test_voiding_a_paused_last_round_closes_the_shoe() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S", "3H")
    t.cut()
    t.card("??")
    t.cmd("void", actor="supervisor:ann")
    assert t.records[-1]["status"] == "void"
    assert t.phase == "shoe_closed", "the cut card's round was voided: no round may follow"


def test_a_second_cut_card_sighting_is_only_a_notice() -> None:
    t = Table(cut_card_between_rounds="close_shoe")
    t.cmd("new_shoe")
    t.card("3S")
    t.cut()  # in the burn: paused; the supervisor lets the shoe give its one round
    t.cmd("resume", actor="supervisor:ann")
    t.cards("2C", "2D", "2H")
    t.cut()  # the sensor bounces between rounds
    assert t.notices[-1] == "cut card seen again in this shoe: ignored (sensor bounce?)"
    assert t.phase == "between_rounds" and "CUT CARD OUT: this round is the last" in t.prompt


def test_close_shoe_policy_applies_to_a_cut_card_seen_while_paused_between_rounds() -> None:
    t = Table(cut_card_between_rounds="close_shoe")
    t.new_shoe()
    t.round("4S", "3H", "5D", "2C")
    t.card("9H")  # not due: paused between rounds
    t.cut()
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "shoe_closed"


def test_cut_card_in_the_burn_while_already_paused_reaches_the_reason() -> None:
    t = Table()
    t.cmd("new_shoe")
    t.card("4S")
    t.card("??")  # paused in the burn
    t.cut()
    assert "cut card came out during the burn" in t.prompt
    t.cmd("resume", actor="supervisor:ann")
    t.cards("2C", "2D", "2H", "3C")
    assert "CUT CARD OUT: this round is the last" in t.prompt


def test_void_does_not_get_round_a_lost_reader() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.lost()
    t.cmd("void", actor="supervisor:ann")
    assert t.records[-1]["status"] == "void"
    assert t.phase == "paused" and "scanner lost" in t.prompt
    t.cmd("open_betting")
    assert t.phase == "paused"
    t.restored()
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "between_rounds"


def test_banker_third_card_reason_lists_the_rule_page_values() -> None:
    t = Table()
    t.new_shoe()
    t.round("AS", "2H", "2D", "2C", "2S")  # player 3 draws 2; banker 4 draws on 2-7
    assert t.prompt == ("DEAL BANKER THIRD CARD (ROUND 1: banker 4 draws on player third card "
                        "2 (draws on 2,3,4,5,6,7))")


def test_every_read_refreshes_the_dedupe_window() -> None:
    t = Table(dedupe_ms=150)
    t.new_shoe()
    t.round("4S")
    for _ in range(5):  # a card left under the scanner, read every 100 ms
        t.card("4S", dt=0.1)
    assert t.phase == "banker_1" and len(t.notices) == 5


def test_a_clock_stepped_back_does_not_make_a_bounce_a_card() -> None:
    t = Table(dedupe_ms=150)
    t.new_shoe()
    t.round("4S")
    t.card("4S", dt=-0.01)
    assert t.phase == "banker_1" and "double read" in t.notices[-1]


def test_dedupe_zero_is_off_even_for_equal_timestamps() -> None:
    t = Table(dedupe_ms=0)
    t.new_shoe()
    t.round("4S")
    t.card("4S", dt=0.0)
    assert t.phase == "player_2"


@pytest.mark.parametrize(
    ("deal", "why"),
    [
        (("3S", "2D", "4H", "4C"), "player stands on 7, banker stands on 6"),
        (("2S", "TH", "3D", "3C", "8C"), "extra card to banker: banker stands"),
        (("3S", "2D", "4H", "3C", "4S"), "extra card: the round is over"),
        (("4S", "3H", "5D", "2C"), "extra card: a natural, no third cards"),
    ],
)
def test_the_extra_card_reason_names_what_was_not_due(deal: tuple[str, ...], why: str) -> None:
    t = Table()
    t.new_shoe()
    t.round(*deal)
    t.card("9H")
    assert why in t.prompt


def test_shoe_closed_before_any_round_says_so() -> None:
    t = Table()
    t.cmd("new_shoe")
    t.card("3S")
    t.cut()
    t.cmd("void", actor="supervisor:ann")
    assert t.prompt.startswith("SHOE CLOSED before any round")


@pytest.mark.parametrize(
    ("setup", "paused", "reason"),
    [("burn", True, "station restarted during the burn"),
     ("betting", True, "station restarted mid-round"),
     ("dealing", True, "station restarted mid-round"),
     ("between", False, ""),
     ("no_shoe", False, "")],
)
def test_a_restart_pauses_what_was_in_progress(setup: str, paused: bool, reason: str) -> None:
    t = Table()
    if setup != "no_shoe":
        t.cmd("new_shoe")
        t.card("AS")
    if setup in ("betting", "dealing", "between"):
        t.card("KD")
    if setup in ("betting", "dealing"):
        t.cmd("open_betting")
    if setup == "dealing":
        t.cmd("close_betting")
        t.card("4S")
    before = t.phase
    t.cmd("restart", actor="station")
    assert (t.phase == "paused") is paused
    if paused:
        assert reason in t.prompt and "check the cards on the table" in t.prompt
        t.cmd("resume", actor="supervisor:ann")
        assert t.phase == before
    else:
        assert t.phase == before and "station restarted" in t.notices[-1]


def test_a_restart_forgets_lost_devices_so_resume_is_possible() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.lost()
    t.cmd("restart", actor="station")
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "banker_1"
