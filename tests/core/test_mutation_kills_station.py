"""Checks of station/table/station.py and station/table/machine.py that a mutation run showed
missing
(issue 7, "Tests that could not fail"): the dealer's display, pauses and their instructions,
devices, restarts and the cut card.

Each test names the change it is there to catch; expected texts are the ones the dealer is
meant to read, written out here, never printed by the code under test.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from drivers.events import CardRead, Command, InputEvent
from station.game.cards import parse_card
from station.settings.paytable import load_paytable
from station.table.outputs import Announced, Prompt, Published
from station.table.station import Station
from station.table.tablerules import TableRules
from tests.tablekit import Table


# -- Station: survivors of the mutation run over station/table/station.py --------------------------
def test_a_double_read_exactly_at_the_window_is_still_suppressed() -> None:
    """Kills ``<=`` -> ``<`` in the dedupe check: "within dedupe_ms" includes the edge. 250 ms
    is exact in binary, so the two timestamps are exactly 0.25 s apart."""
    t = Table(dedupe_ms=250)
    t.new_shoe()
    t.round("4S")
    t.card("4S", dt=0.25)
    assert t.notices == ["double read of '4S' from scanner within 250 ms suppressed"]
    assert t.phase == "banker_1"


def test_shoe_ids_carry_the_utc_start_and_the_session_only_when_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills a dropped or invented session tag and a local-time stamp in ``_shoe_id``.
    1_800_000_001 s after the epoch is 2027-01-15 08:00:01 UTC (16:00:01 in Macau)."""
    monkeypatch.setenv("TZ", "Asia/Macau")
    time.tzset()
    try:
        for station, expected in ((Station(TableRules()), "table-1-20270115T080001Z-1"),
                                  (Station(TableRules(), session="a1b2"),
                                   "table-1-20270115T080001Z-a1b2-1")):
            station.apply(Command("new_shoe", "dealer:t", 1_800_000_001.0))
            shoe = station.dealing.shoe
            assert shoe is not None and shoe.shoe_id == expected
    finally:
        monkeypatch.undo()
        time.tzset()


def test_void_while_a_device_is_lost_latches_the_device_pause_again() -> None:
    """Kills ``and`` -> ``or`` and a lost reason dropped from the re-latched pause; and the
    restore notice, said once, only for a device that was lost."""
    t = Table()
    t.new_shoe()
    t.round("4S", "3H")
    t.lost()
    t.cmd("resume", actor="supervisor:ann")
    assert t.notices == ["resume refused: scanner still lost; reconnect it first"]
    t.cmd("void", actor="supervisor:ann")
    assert t.records[-1]["status"] == "void" and t.notices[-1] == "voided by supervisor:ann"
    assert t.phase == "paused"
    assert t.prompt.startswith("PAUSED: scanner lost (port vanished) - check its cable")
    t.restored("camera")  # never lost: nothing to say
    assert t.notices[-1] == "voided by supervisor:ann"
    t.restored()
    assert t.notices[-1] == "scanner restored; a supervisor may resume"
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "between_rounds" and t.notices[-1] == "resumed by supervisor:ann"


def test_a_void_with_every_device_present_goes_on_between_rounds() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S", "3H")
    t.card("XX")  # not a card: pauses
    t.cmd("void", actor="supervisor:ann")
    assert t.phase == "between_rounds" and t.notices[-1] == "voided by supervisor:ann"


def test_a_refused_command_names_itself_and_the_phase_in_words() -> None:
    """Kills the two ``replace('_', ' ')`` mutants of the refusal notice."""
    t = Table()
    t.new_shoe()
    t.cmd("open_betting")
    t.cmd("new_shoe")
    assert t.notices[-1] == ("new shoe refused from dealer:test: not possible while "
                             "betting open")


def test_the_display_names_every_card_due_and_every_result() -> None:
    """Kills the display mutants of ``Station._prompt`` / ``_deal_prompt`` / ``_result_detail``
    that the in-process tests could not see (hand names, card numbers, the burn count, the
    third-card reason, the result line). Wordings the lead is rewriting under issue 7 (betting
    open, pauses, the last round) are only checked for their phase here."""
    t = Table()
    t.cmd("new_shoe")
    t.card("AS")
    t.card("KD")
    t.round("4S", "3H", "5D", "2C")  # player 9 natural beats 5
    # Player 7+8 = 5 draws 6 (1); banker 8+8 = 6 draws on a 6 and gets a 3: 1-9. Both two-card
    # sums pass 10, so a total not taken mod 10 shows.
    t.round("7S", "8D", "8H", "8C", "6S", "3H")
    t.round("3S", "7D", "4H", "8C", "2S")  # player 7 stands; banker 7+8 = 5 draws a 2: 7-7
    t.cmd("open_betting")
    t.cmd("close_betting")
    t.card("ZZ")
    t.cmd("void", actor="supervisor:x")
    shown = [(p.phase, p.text, p.detail, p.paused) for p in t.outputs if isinstance(p, Prompt)]

    def deal(n: int) -> list[tuple[str, str, str, bool]]:
        return [("player_1", "DEAL PLAYER CARD 1", f"ROUND {n}", False),
                ("banker_1", "DEAL BANKER CARD 1", f"ROUND {n}", False),
                ("player_2", "DEAL PLAYER CARD 2", f"ROUND {n}", False),
                ("banker_2", "DEAL BANKER CARD 2", f"ROUND {n}", False)]

    assert [s[0] for s in shown] == [
        "burn_indicator", "burning",
        "between_rounds", "betting_open", *["player_1", "banker_1", "player_2", "banker_2"],
        "between_rounds", "betting_open", "player_1", "banker_1", "player_2", "banker_2",
        "player_3", "banker_3",
        "between_rounds", "betting_open", "player_1", "banker_1", "player_2", "banker_2",
        "banker_3",
        "between_rounds", "betting_open", "player_1", "paused", "between_rounds",
    ]
    assert [s[3] for s in shown] == [s[0] == "paused" for s in shown]
    assert shown[:3] == [
        ("burn_indicator", "BURN: draw and show the first card", "", False),
        ("burning", "BURN 1 MORE FACE DOWN", "AS shown", False),
        ("between_rounds", "ROUND 1: OPEN BETTING", "", False),
    ]
    assert shown[4:8] == deal(1)
    assert shown[8] == ("between_rounds", "ROUND 2: OPEN BETTING",
                        "round 1: PLAYER 9 BANKER 5, PLAYER WINS", False)
    assert shown[10:14] == deal(2)
    assert shown[14] == ("player_3", "DEAL PLAYER THIRD CARD", "ROUND 2: player 5 draws", False)
    assert shown[15][1] == "DEAL BANKER THIRD CARD"
    assert shown[15][2].startswith("ROUND 2: banker 6 draws on player third card 6")
    assert shown[16] == ("between_rounds", "ROUND 3: OPEN BETTING",
                         "round 2: PLAYER 1 BANKER 9, BANKER WINS", False)
    assert shown[18:22] == deal(3)
    assert shown[22] == ("banker_3", "DEAL BANKER THIRD CARD",
                         "ROUND 3: player stood, banker 5 draws", False)
    assert shown[23] == ("between_rounds", "ROUND 4: OPEN BETTING",
                         "round 3: PLAYER 7 BANKER 7, TIE", False)
    assert shown[25] == deal(4)[0]
    assert shown[27] == ("between_rounds", "ROUND 5: OPEN BETTING", "round 4 VOID", False)


def test_the_burn_prompt_counts_down_from_the_shown_card() -> None:
    t = Table()
    t.cmd("new_shoe")
    t.card("4H")
    assert t.station.prompt == Prompt("burning", "BURN 4 MORE FACE DOWN", "4H shown")
    t.cards("2C", "2D")
    assert t.station.prompt == Prompt("burning", "BURN 2 MORE FACE DOWN", "4H shown")


def test_betting_open_is_announced_with_the_open_bets_when_a_paytable_is_set() -> None:
    """Kills the dropped or emptied ``Announced`` outputs of ``Station.apply`` and a paytable
    not kept by the station. Seed 000: every bet is open in round 1."""
    table = load_paytable(Path(__file__).resolve().parents[2] / "config" / "paytables"
                          / "seed000.yaml")
    station = Station(TableRules(), table)
    assert station.paytable is table
    t = 1_800_000_001.0
    start: list[InputEvent] = [Command("new_shoe", "d", t), CardRead("AS", "s", t + 1),
                               CardRead("KD", "s", t + 2)]
    for event in start:
        assert not [o for o in station.apply(event) if isinstance(o, Announced)], event
    out = station.apply(Command("open_betting", "d", t + 3))
    (announced,) = [o for o in out if isinstance(o, Announced)]
    shoe = "table-1-20270115T080001Z-1"
    assert announced.message == {"type": "betting_open", "shoe": shoe, "round": 1,
                                 "key": f"{shoe}:1", "open_bets": list(table.keys)}


def test_apply_refuses_what_is_not_an_input_event() -> None:
    with pytest.raises(TypeError, match="not an input event: 'hello'"):
        Station(TableRules()).apply("hello")  # type: ignore[arg-type]


UNREADABLE = "unreadable code '{}' from scanner: not a card"


def test_an_unreadable_code_when_no_card_is_due_says_so_and_to_set_it_aside() -> None:
    t = Table()
    t.new_shoe()
    t.card("ZZ")
    assert t.station.prompt.text == (
        f"PAUSED: {UNREADABLE.format('ZZ')} (no card is due) - set the card aside; "
        "call supervisor")


def test_a_second_unreadable_code_while_paused_on_a_due_card_still_asks_for_a_rescan() -> None:
    """Kills the ``paused_from`` branch of ``_on_unreadable`` (a card is still due while
    paused), and two different garbled codes 50 ms apart taken for one double read."""
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.card("ZZ")
    t.card("YY", dt=0.05)
    assert t.station.prompt.text == (
        f"PAUSED: {UNREADABLE.format('ZZ')}; {UNREADABLE.format('YY')} - show the card face "
        "up and scan it again; call supervisor")
    assert not t.notices


def test_a_garbled_read_after_the_rescan_does_not_ask_for_another() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.card("ZZ")
    t.card("3H")
    assert t.notices == ["re-scan read 3H: held for the supervisor"]
    t.card("YY")
    assert t.station.prompt.text == (
        f"PAUSED: {UNREADABLE.format('ZZ')}; {UNREADABLE.format('YY')} - re-scanned as 3H: "
        "keep it face up; resume deals it as the due card, void sets it aside; "
        "call supervisor")


def test_two_different_cards_inside_the_dedupe_window_are_two_cards() -> None:
    """Kills a double-read identity that ignores what was read."""
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.card("5H", dt=0.05)
    assert t.phase == "player_2" and not t.notices


def test_a_lost_device_pauses_with_what_to_check() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.lost()
    assert t.station.prompt.text == (
        "PAUSED: scanner lost (port vanished) - check its cable and power; call supervisor")


CHECK_TABLE = "check the cards on the table against those shown"


def test_a_restart_pauses_a_burn_or_a_round_and_says_which() -> None:
    t = Table()
    t.cmd("new_shoe")
    t.card("4H")
    t.cmd("restart")
    assert t.station.prompt.text == (
        f"PAUSED: station restarted during the burn - {CHECK_TABLE}; call supervisor")
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.cmd("restart")
    assert t.station.prompt.text == (
        f"PAUSED: station restarted mid-round - {CHECK_TABLE}; call supervisor")


def test_a_restart_while_paused_mid_round_still_pauses_for_the_round() -> None:
    """Kills reading the phase instead of ``paused_from`` in ``_on_restart``."""
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.card("ZZ")
    t.cmd("restart")
    assert t.station.prompt.text == (
        f"PAUSED: {UNREADABLE.format('ZZ')}; station restarted mid-round - show the card face "
        f"up and scan it again; {CHECK_TABLE}; call supervisor")
    assert not t.notices


def test_a_restart_between_rounds_only_says_so() -> None:
    t = Table()
    t.new_shoe()
    t.cmd("restart")
    assert t.phase == "between_rounds"
    assert t.notices == ["station restarted; nothing was in progress"]


def test_table_rules_are_recorded_with_every_key() -> None:
    """``TableRules.to_json`` goes into every recording; no in-process test read it."""
    rules = TableRules(table="t-9", decks=6, dedupe_ms=80, cut_card_between_rounds="x",
                       badge_prefix="EMP#")
    assert rules.to_json() == {"table": "t-9", "decks": 6, "dedupe_ms": 80,
                               "cut_card_between_rounds": "x", "badge_prefix": "EMP#"}


@pytest.mark.parametrize(
    ("code", "red", "index"),
    # index: suit S H D C in that order, then rank A..K (13 per suit).
    [("AS", False, 0), ("KS", False, 12), ("AH", True, 13), ("7D", True, 32),
     ("TC", False, 48), ("KC", False, 51)],
)
def test_card_colour_index_and_spelling(code: str, red: bool, index: int) -> None:
    card = parse_card(code)
    assert (card.is_red, card.index, str(card), repr(card)) == (red, index, code,
                                                                f"Card({code})")


def test_the_first_prompt_asks_for_a_new_shoe() -> None:
    assert Station(TableRules()).prompt == Prompt(
        "no_shoe", "NEW SHOE: shuffle, insert the cut card, press NEW SHOE")


def test_a_closed_shoe_says_so_in_its_own_phase() -> None:
    t = Table()
    t.new_shoe()
    t.cmd("end_shoe")
    assert t.station.prompt == Prompt(
        "shoe_closed", "SHOE CLOSED before any round: discard the rest, start a NEW SHOE")


CUT_OUT = "CUT CARD OUT: this round is the last"


def test_the_cut_card_is_announced_on_the_last_round_and_only_there() -> None:
    t = Table()
    t.new_shoe()
    t.cmd("open_betting")
    assert t.station.prompt.detail == ""
    t.cmd("close_betting")
    t.cards("4S", "3H", "5D", "2C")
    assert t.station.prompt == Prompt("between_rounds", "ROUND 2: OPEN BETTING",
                                      "round 1: PLAYER 9 BANKER 5, PLAYER WINS")
    t.cut()
    assert t.station.prompt.text == f"ROUND 2: OPEN BETTING - {CUT_OUT}"
    t.cmd("open_betting")
    assert t.station.prompt == Prompt(
        "betting_open",
        "ROUND 2: BETTING OPEN - do not deal; press CLOSE BETTING when bets are in", CUT_OUT)


def test_a_card_beyond_the_shoe_pauses_with_its_copy_number_and_set_it_aside() -> None:
    """A one-deck table makes the second AS foreign: dealt, and as the re-scan of a garbled
    read (``_on_card`` and ``_on_rescan``)."""
    t = Table(decks=1)
    t.new_shoe(burn=("AS", "KD"))
    t.round("AS")
    assert t.station.prompt == Prompt(
        "paused", "PAUSED: AS would be copy 2 in a 1-deck shoe: foreign card or misread - "
        "set it aside; call supervisor", "supervisor: resume continues the round, void refunds it",
        paused=True)
    t = Table(decks=1)
    t.new_shoe(burn=("AS", "KD"))
    t.round("2S")
    t.card("ZZ")
    t.card("AS")
    assert t.station.prompt.text == (
        f"PAUSED: {UNREADABLE.format('ZZ')}; AS would be copy 2 in a 1-deck shoe: foreign card "
        "or misread - show the card face up and scan it again; set it aside; call supervisor")
    assert not t.notices


def test_resume_refused_names_every_lost_device() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.lost("scanner")
    t.lost("camera")
    t.cmd("resume")
    assert t.notices == ["resume refused: camera, scanner still lost; reconnect it first"]


def test_a_clock_beyond_the_calendar_still_names_the_shoe() -> None:
    station = Station(TableRules())
    station.apply(Command("new_shoe", "dealer:t", 1e20))
    shoe = station.dealing.shoe
    assert shoe is not None and shoe.shoe_id == "table-1-badtime-1"


# -- Machine: survivors of the mutation run over station/table/machine.py --------------------------
def _paused_text(t: Table) -> str:
    return t.station.prompt.text


def test_a_cut_card_with_no_shoe_is_ignored_and_said() -> None:
    t = Table()
    t.cut()
    assert t.notices == ["cut card seen with no shoe in play: ignored"]
    t.card("4S")  # paused from no_shoe: a cut card now changes nothing and says nothing more
    t.cut()
    assert t.notices == ["cut card seen with no shoe in play: ignored"]


@pytest.mark.parametrize(
    ("policy", "in_round", "notice", "closed_after"),
    [
        ("next_round_last", False, "cut card seen while paused: the next round is the last",
         False),
        ("close_shoe", False, "cut card seen while paused: the shoe closes when cleared", True),
        ("next_round_last", True, "cut card seen while paused: this round is the last", True),
        ("close_shoe", True, "cut card seen while paused: this round is the last", True),
    ],
)
def test_a_cut_card_while_paused_follows_the_phase_the_pause_came_from(
    policy: str, in_round: bool, notice: str, closed_after: bool
) -> None:
    t = Table(cut_card_between_rounds=policy)
    t.new_shoe()
    if in_round:
        t.round("4S")
    t.card("ZZ")
    t.cut()
    assert t.notices == [notice]
    t.cmd("resume", actor="supervisor:ann")
    if in_round:
        t.cards("3H", "5D", "2C")  # the round ends: it was the last
    assert (t.phase == "shoe_closed") is closed_after
    if not closed_after:
        assert t.station.prompt.text == f"ROUND 1: OPEN BETTING - {CUT_OUT}"


def test_a_reason_without_an_instruction_adds_no_instruction() -> None:
    """The cut card in a paused burn adds its reason only (``add_pause_reason``'s default)."""
    t = Table()
    t.cmd("new_shoe")
    t.card("4H")
    t.card("ZZ")
    t.cut()
    assert _paused_text(t) == (
        f"PAUSED: {UNREADABLE.format('ZZ')}; cut card came out during the burn: the shoe can "
        "give one more round - show the card face up and scan it again; call supervisor")


def test_a_followed_instruction_is_replaced_and_the_others_kept() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.card("ZZ")
    t.cmd("restart")
    t.card("3H")
    assert _paused_text(t) == (
        f"PAUSED: {UNREADABLE.format('ZZ')}; station restarted mid-round - re-scanned as 3H: "
        "keep it face up; resume deals it as the due card, void sets it aside; "
        f"{CHECK_TABLE}; call supervisor")


@pytest.mark.parametrize(
    ("setup", "why"),
    [
        ("no_shoe", "no shoe started"),
        ("closed", "the shoe is closed"),
        ("natural", "extra card: a natural, no third cards"),
        ("both_drew", "extra card: the round is over"),
        ("after_void", "no round is open"),
    ],
)
def test_a_card_not_due_says_why(setup: str, why: str) -> None:
    t = Table()
    if setup != "no_shoe":
        t.new_shoe()
    if setup == "closed":
        t.cmd("end_shoe")
    elif setup == "natural":
        t.round("4S", "3H", "5D", "2C")
    elif setup == "both_drew":
        t.round("AS", "2H", "2D", "4C", "6S", "3H")
    elif setup == "after_void":
        t.cmd("open_betting")
        t.card("9C")
        t.cmd("void", actor="supervisor:ann")
    t.card("9D")
    assert _paused_text(t) == f"PAUSED: card not due: 9D ({why}) - set it aside; call supervisor"


def test_cards_drawn_while_paused_are_one_reason_listing_them_all() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S", "3H", "5D", "2C")
    t.card("9C")
    t.card("5H")
    t.card("5H", dt=1.0)
    assert _paused_text(t) == (
        "PAUSED: card not due: 9C (extra card: a natural, no third cards); drawn while paused: "
        "2 cards (5H 5H) - set it aside; set the cards drawn while paused aside; "
        "call supervisor")


def test_a_void_publishes_every_pause_reason() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.card("ZZ")
    t.cmd("restart")
    t.cmd("void", actor="supervisor:ann")
    assert t.records[-1]["void_reason"] == (
        f"{UNREADABLE.format('ZZ')}; station restarted mid-round")


def test_a_void_while_the_journal_is_lost_still_asks_for_disk_space() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.lost("journal")
    t.cmd("void", actor="supervisor:ann")
    assert t.records[-1]["status"] == "void"
    assert t.station.prompt.text == (
        "PAUSED: journal lost (port vanished) - free space on the station's disk; "
        "call supervisor")


def test_a_shoe_closed_on_resume_does_not_close_the_next_one() -> None:
    """Kills ``close_on_resume`` left set after it closed the shoe."""
    t = Table(cut_card_between_rounds="close_shoe")
    t.new_shoe()
    t.card("ZZ")
    t.cut()
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "shoe_closed"
    t.new_shoe()
    t.card("YY")
    t.cmd("resume", actor="supervisor:ann")
    assert t.phase == "between_rounds"


def test_a_void_with_a_paytable_refunds_every_bet_that_was_open() -> None:
    """Issue 7: "a void with a paytable is never tested". Seed 000, round 1: every bet is
    open, and every one is a push with nothing paid, in paytable order."""
    table = load_paytable(Path(__file__).resolve().parents[2] / "config" / "paytables"
                          / "seed000.yaml")
    station = Station(TableRules(), table)
    t = 1_800_000_001.0
    events: list[InputEvent] = [
        Command("new_shoe", "d", t), CardRead("AS", "s", t + 1), CardRead("KD", "s", t + 2),
        Command("open_betting", "d", t + 3), Command("close_betting", "d", t + 4),
        CardRead("4S", "s", t + 5), CardRead("ZZ", "s", t + 6),
        Command("void", "supervisor:ann", t + 7),
    ]
    records = [o.record for e in events for o in station.apply(e) if isinstance(o, Published)]
    (record,) = records
    assert record["status"] == "void"
    assert record["open_bets"] == list(table.keys)
    assert list(record["bets"]) == list(table.keys)
    assert all(v == {"outcome": "push", "pays": 0} for v in record["bets"].values())


def test_a_pause_without_an_instruction_lists_only_later_ones() -> None:
    """The cut card in the burn pauses with no instruction; a later one is listed alone
    (kills an empty instruction kept by ``_pause``)."""
    t = Table()
    t.cmd("new_shoe")
    t.card("4H")
    t.cut()
    burn_cut = "cut card came out during the burn: the shoe can give one more round"
    assert t.station.prompt.text == f"PAUSED: {burn_cut} - call supervisor"
    t.card("ZZ")
    assert t.station.prompt.text == (
        f"PAUSED: {burn_cut}; {UNREADABLE.format('ZZ')} - show the card face up and scan it "
        "again; call supervisor")


def test_each_shoe_is_numbered_and_keeps_its_burned_cards() -> None:
    station = Station(TableRules())
    t = 1_800_000_001.0
    ids = []
    for _ in range(3):
        station.apply(Command("new_shoe", "d", t))
        station.apply(CardRead("2H", "s", t + 1))
        station.apply(CardRead("9C", "s", t + 2))
        station.apply(CardRead("QD", "s", t + 3))
        shoe = station.dealing.shoe
        assert shoe is not None and [c.code for c in shoe.burned] == ["2H", "9C", "QD"]
        ids.append(shoe.shoe_id)
        station.apply(Command("end_shoe", "d", t + 4))
        t += 10
    assert ids == ["table-1-20270115T080001Z-1", "table-1-20270115T080011Z-2",
                   "table-1-20270115T080021Z-3"]


def test_a_complete_round_with_a_paytable_lists_the_bets_that_were_open() -> None:
    table = load_paytable(Path(__file__).resolve().parents[2] / "config" / "paytables"
                          / "seed000.yaml")
    station = Station(TableRules(), table)
    t = 1_800_000_001.0
    events: list[InputEvent] = [
        Command("new_shoe", "d", t), CardRead("AS", "s", t + 1), CardRead("KD", "s", t + 2),
        Command("open_betting", "d", t + 3), Command("close_betting", "d", t + 4),
        *[CardRead(c, "s", t + 5 + i) for i, c in enumerate(["4S", "3H", "5D", "2C"])],
    ]
    (record,) = [o.record for e in events for o in station.apply(e) if isinstance(o, Published)]
    assert record["status"] == "complete" and record["open_bets"] == list(table.keys)


def test_each_round_has_its_own_open_bets_list() -> None:
    """The open bets are kept per round number (issue 13), but each round's record and
    announcement get a list of their own: a consumer changing one round's list changes no
    other round's (round 1 of the next shoe included). Seed 003's cut-offs make them differ."""
    table = load_paytable(Path(__file__).resolve().parents[2] / "config" / "paytables"
                          / "seed003.yaml")
    from drivers.simulated import SimulatedDealer, random_shoes  # noqa: PLC0415
    from station.table.simulation import simulate  # noqa: PLC0415

    station = Station(TableRules(), table, prompts=False)
    records: list[dict[str, Any]] = []
    simulate(station, SimulatedDealer(random_shoes(3, 2)),
             on_outputs=lambda outs: records.extend(
                 o.record for o in outs if isinstance(o, Published)))
    lists = [r["open_bets"] for r in records]
    assert len({id(x) for x in lists}) == len(lists) > 100
    by_round = {r["round"]: list(r["open_bets"]) for r in records}
    assert by_round[1] != by_round[max(by_round)]  # cut-offs passed
    lists[0].append("changed")
    assert all("changed" not in x for x in lists[1:])
