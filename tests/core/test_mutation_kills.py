"""Checks that a mutation run showed missing (issue 7, "Tests that could not fail").

Each test here names the change to the code it is there to catch. Expected values are written
out by hand from RULES.md and docs/roads.md, never printed by the code under test.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from drivers.events import CardRead, Command, InputEvent
from station.errors import ConfigError
from station.game.analysis import analyze
from station.game.analysis.first_two import first_four_classes
from station.game.bets.registry import reads
from station.game.cards import parse_card
from station.game.limits import PAYOUT_MAX
from station.game.outcome import Winner, decide
from station.game.results import complete_record
from station.game.roads import RecordError, Scoreboard, round_from_record
from station.game.roads.bead import bead_cell
from station.game.roads.layout import draw
from station.game.roads.scoreboard import roads_json
from station.game.settlement import Settler, settle
from station.settings.paytable import load_paytable
from station.table.outputs import Prompt, Published
from station.table.station import Station
from station.table.tablerules import TableRules
from tests.conftest import mixed_paytable
from tests.tablekit import Table

R, U = "red", "blue"  # U for blUe, so B stays Banker in the sequences


# -- Pair flags of the published record ------------------------------------------------------
# A pair is the first two cards of one hand (RULES.md 5). Each round below has matching ranks
# somewhere else: a hand's third card against its first or second, or one hand's cards against
# the other's. A flag that compares any other two cards than [0] and [1] of its own hand is
# wrong on at least one of them.
# name: (player cards, banker cards, player_pair, banker_pair, perfect_pair)
PAIR_ROUNDS: dict[str, tuple[str, str, bool, bool, bool]] = {
    # Player 2+3 = 5 draws 2 (7); Banker K+4 = 4 draws on a 2 and gets a 4 (8). Third cards
    # match a first (2S/2D) and a second (4C/4S) card: no pair anywhere.
    "third_cards_match": ("2S 3H 2D", "KD 4C 4S", False, False, False),
    # Player 2+3 = 5 draws K (5); Banker 2+3 = 5 stands on a 0 (5-5). Player's first card has
    # the rank of Banker's first, second of second: no hand is a pair.
    "hands_mirror_each_other": ("2S 3H KD", "2D 3C", False, False, False),
    # The same with the Banker's cards crossed: its first card has the rank of the Player's
    # second and its second the rank of the Player's first.
    "hands_crossed": ("2S 3H KD", "3D 2C", False, False, False),
    # Player 2+2 = 4 draws A (5); Banker K+3 = 3 draws a 3 (6): the Banker's second and third
    # cards are both 3s, only the Player starts with a pair.
    "player_pair_only": ("2S 2H AD", "KD 3C 3S", True, False, False),
    # Player 2+5 = 7 stands; Banker 3+3 = 6 stands: only the Banker starts a pair, and no
    # Player card shares its rank.
    "banker_pair_only": ("2S 5H", "3D 3C", False, True, False),
    # Player 9+9 = 8 and Banker 9+9 = 8, naturals: both pairs, the Banker's of one suit.
    "both_pairs_banker_perfect": ("9H 9S", "9D 9D", True, True, True),
    # Player 4S 4S natural 8 against Banker K+7: a perfect pair on the Player's side only.
    "player_perfect": ("4S 4S", "KD 7C", True, False, True),
}


def _cards(codes: str) -> tuple[Any, ...]:
    return tuple(parse_card(c) for c in codes.split())


def _deal_order(player: str, banker: str) -> list[str]:
    """Player, Banker, Player, Banker, then the third cards (RULES.md 2)."""
    p, b = player.split(), banker.split()
    return [p[0], b[0], p[1], b[1], *p[2:], *b[2:]]


def _publish(player: str, banker: str) -> dict[str, Any]:
    """Deal one round through a real Station and return its published record."""
    station = Station(TableRules(dedupe_ms=0))
    now = 1_800_000_000.0
    events: list[InputEvent] = [Command("new_shoe", "dealer:t", now)]
    codes = ["AS", "KD"]  # burn: an ace shows, one more face down
    events += [CardRead(c, "scanner", now + i + 1) for i, c in enumerate(codes)]
    events += [Command("open_betting", "dealer:t", now + 10), Command("close_betting",
                                                                       "dealer:t", now + 11)]
    events += [CardRead(c, "scanner", now + 20 + i) for i, c in enumerate(_deal_order(player,
                                                                                      banker))]
    records = [o.record for e in events for o in station.apply(e) if isinstance(o, Published)]
    assert len(records) == 1, f"{player} / {banker} did not publish one round: {records}"
    return records[0]


@pytest.mark.parametrize("name", list(PAIR_ROUNDS))
def test_published_pair_flags_read_the_first_two_cards_of_their_own_hand(name: str) -> None:
    """Kills: ``banker[0].rank == banker[1].rank`` reading another card (``banker[2]``,
    ``player[1]``, ...) in ``outcome.decide``, and the same for the player and suits."""
    player, banker, p_pair, b_pair, perfect = PAIR_ROUNDS[name]
    outcome = decide(_cards(player), _cards(banker))
    assert (outcome.player_pair, outcome.banker_pair, outcome.perfect_pair) == (
        p_pair, b_pair, perfect)
    record = _publish(player, banker)
    assert (record["player"], record["banker"]) == (player.split(), banker.split())
    assert (record["player_pair"], record["banker_pair"], record["perfect_pair"]) == (
        p_pair, b_pair, perfect)
    assert complete_record("s", 1, outcome)["banker_pair"] is b_pair


# -- Derived roads: a hand-worked shoe --------------------------------------------------------
# Worked by hand from the rules in docs/roads.md (0-based columns c, rows r, offset k = 1, 2, 3):
#   - nothing before (c = k, r = 1);
#   - a new column (r = 0): red if L[c-1] == L[c-1-k], else blue;
#   - going down (r >= 1): blue if L[c-k] == r (that column ends one row above), else red.
# The shoe: T BB PPP T B P BBBB PP T B PPP BB; the ties add no entry, so the big road's logical
# column lengths are L = 2 3 1 1 4 2 1 3 2.
SHOE = "TBBPPPTBPBBBBPPTBPPPBB"
LENGTHS = (2, 3, 1, 1, 4, 2, 1, 3, 2)
# Big eye boy (k = 1), entry by entry:
#   c1: r1 L0=2!=1 R, r2 L0=2==2 U; c2: L1=3!=L0=2 U; c3: L2=1!=L1=3 U;
#   c4: L3=1==L2=1 R, r1 L3=1==1 U, r2 R, r3 R; c5: L4=4!=L3=1 U, r1 L4=4 R;
#   c6: L5=2!=L4=4 U; c7: L6=1!=L5=2 U, r1 L6=1==1 U, r2 R; c8: L7=3!=L6=1 U, r1 L7=3 R.
BIG_EYE_BOY = [[R], [U, U, U], [R], [U], [R, R], [U], [R], [U, U, U], [R], [U], [R]]
# Small road (k = 2):
#   c3: L2=1!=L0=2 U; c4: L3=1!=L1=3 U, r1 L2=1==1 U, r2 R, r3 R; c5: L4=4!=L2=1 U,
#   r1 L3=1==1 U; c6: L5=2!=L3=1 U; c7: L6=1!=L4=4 U, r1 L5=2 R, r2 L5=2==2 U;
#   c8: L7=3!=L5=2 U, r1 L6=1==1 U.
SMALL_ROAD = [[U, U, U], [R, R], [U, U, U, U], [R], [U, U, U]]
# Cockroach pig (k = 3):
#   c4: L3=1!=L0=2 U, r1 L1=3 R, r2 L1=3 R, r3 L1=3==3 U; c5: L4=4!=L1=3 U, r1 L2=1==1 U;
#   c6: L5=2!=L2=1 U; c7: L6=1==L3=1 R, r1 L4=4 R, r2 L4=4 R; c8: L7=3!=L4=4 U, r1 L5=2 R.
COCKROACH_PIG = [[U], [R, R], [U, U, U, U], [R, R, R], [U], [R]]
# Ask road after the shoe. Banker continues column 8 in row 2: k=1 L7=3 R, k=2 L6=1 R,
# k=3 L5=2==2 U. Player starts column 9: k=1 L8=2!=L7=3 U, k=2 L8=2!=L6=1 U, k=3 L8=2==L5=2 R.
ASK = {
    "banker": {"big_eye_boy": R, "small_road": R, "cockroach_pig": U},
    "player": {"big_eye_boy": U, "small_road": U, "cockroach_pig": R},
}


def test_hand_worked_derived_roads() -> None:
    """Kills an offset mutant in ``roads.derived.mark`` (``column - 1 - offset`` reading one
    column too far or too near, ``column - offset`` off by one, a start cell moved): the three
    roads differ in offset only, and this shoe has columns of 1 to 4 entries, so every
    comparison in it distinguishes neighbouring columns."""
    roads = Scoreboard.from_records(SHOE).snapshot()
    assert roads.lengths == LENGTHS
    assert [list(c) for c in roads.derived["big_eye_boy"]] == BIG_EYE_BOY
    assert [list(c) for c in roads.derived["small_road"]] == SMALL_ROAD
    assert [list(c) for c in roads.derived["cockroach_pig"]] == COCKROACH_PIG
    assert {side: dict(marks) for side, marks in roads.ask.items()} == ASK


def test_hand_worked_derived_roads_recomputed_from_scratch() -> None:
    """The batch construction (``compute_roads``) must give the same hand-worked roads, not
    merely agree with the incremental one."""
    roads = Scoreboard.from_records(SHOE).recompute()
    assert [list(c) for c in roads.derived["big_eye_boy"]] == BIG_EYE_BOY
    assert [list(c) for c in roads.derived["small_road"]] == SMALL_ROAD
    assert [list(c) for c in roads.derived["cockroach_pig"]] == COCKROACH_PIG


@pytest.mark.parametrize(
    ("prefix", "name", "expected"),
    [
        # The first marks of each road, entry by entry, from the same shoe.
        ("TBBPP", "big_eye_boy", [[R]]),  # (c1, r1): L0 = 2 has row 1 -> red
        ("TBBPPP", "big_eye_boy", [[R], [U]]),  # (c1, r2): L0 = 2 ends one row above
        ("TBBPPPTB", "small_road", []),  # c2 is small road's start column, row 0: no mark
        ("TBBPPPTBP", "small_road", [[U]]),  # c3 new: L2 = 1, L0 = 2
        ("TBBPPPTBPB", "cockroach_pig", [[U]]),  # c4 new: L3 = 1, L0 = 2
        ("TBBPPPTBPBB", "cockroach_pig", [[U], [R]]),  # (c4, r1): L1 = 3 has row 1
    ],
)
def test_derived_roads_start_where_the_rules_say(
    prefix: str, name: str, expected: list[list[str]]
) -> None:
    roads = Scoreboard.from_records(prefix).snapshot()
    assert [list(c) for c in roads.derived[name]] == expected


# -- Outcome and settlement survivors ---------------------------------------------------------
def test_a_nine_nine_start_is_a_natural_eight() -> None:
    """9 + 9 = 18 counts 8 (RULES.md 1): a natural. Kills the two-card totals of
    ``outcome.decide`` taken mod anything but 10, and a dropped Banker natural flag."""
    outcome = decide(_cards("9H 9S"), _cards("KD 8C"))
    assert (outcome.natural, outcome.player_natural, outcome.banker_natural) == (True, True, True)
    outcome = decide(_cards("KD 8C"), _cards("9D 9C"))
    assert (outcome.natural, outcome.player_natural, outcome.banker_natural) == (True, True, True)
    record = _publish("9H 9S", "KD 8C")
    assert (record["natural"], record["player_natural"], record["banker_natural"]) == (
        True, True, True)


def test_the_settler_of_a_paytable_without_card_bets(tmp_path: Path) -> None:
    """Kills the fast path of ``Settler.settle`` for a paytable whose bets all read values."""
    path = tmp_path / "main.yaml"
    path.write_text(
        "name: main\nbets:\n"
        "  - {key: player, label: P, kind: main, side: player, pays: {win: 1}, push: [tie],"
        " cutoff_round: null}\n"
        "  - {key: tie, label: T, kind: tie, pays: {win: 8}, push: [], cutoff_round: null}\n",
        encoding="utf-8",
    )
    settler = Settler(load_paytable(path))
    outcome = decide(_cards("4S 5H"), _cards("3D 4C"))  # player 9 natural beats 7
    expected = {"player": {"outcome": "win", "pays": 1}, "tie": {"outcome": "lose", "pays": 0}}
    first: dict[str, Any] = settler.settle(outcome)
    assert first == expected
    with pytest.raises(TypeError):  # entries are shared between records, so read-only
        first["player"]["outcome"] = "changed"
    first["player"] = {"outcome": "changed", "pays": 1}  # each record owns its mapping
    assert settler.settle(outcome) == expected


# -- Bets survivors: payouts a paytable may leave out, and what each bet reads -----------------
PARTIAL = """name: partial
bets:
  - {key: p6, label: P, kind: main, side: player, pays: {win: 1, win_with_6: 0.5}, push: [tie],
     cutoff_round: null}
  - {key: cha, label: C, kind: wins_by_one, side: player, totals: [7], pays: {four_cards: 10},
     push: [], cutoff_round: null}
  - {key: f7, label: F, kind: both_hands_total, total: 7, pays: {two_cards: 40}, push: [],
     cutoff_round: null}
  - {key: pp, label: PP, kind: perfect_pair, pays: {win: 25, both_hands: 250}, push: [],
     cutoff_round: null}
"""


def _partial(tmp_path: Path) -> Any:
    path = tmp_path / "partial.yaml"
    path.write_text(PARTIAL, encoding="utf-8")
    return load_paytable(path)


@pytest.mark.parametrize(
    ("player", "banker", "expected"),
    [
        # Player 6 wins 6-5 (two cards against three): the Player's own 6 pays half.
        ("KS 6H", "KD 5C KH", {"p6": ("win", 0.5), "cha": ("lose", 0), "f7": ("lose", 0),
                               "pp": ("lose", 0)}),
        # Player 7-6 on five cards: this table pays the four-card case only.
        ("KS 7H", "KD 3C 3S", {"p6": ("win", 1), "cha": ("lose", 0), "f7": ("lose", 0),
                               "pp": ("lose", 0)}),
        ("KS 7H", "KD 6C", {"p6": ("win", 1), "cha": ("win", 10), "f7": ("lose", 0),
                            "pp": ("lose", 0)}),
        # 7-7 with three cards each: both_hands_total pays two-card 7s only here.
        ("KS 2H 5D", "KC 2D 5S", {"p6": ("push", 0), "cha": ("lose", 0), "f7": ("lose", 0),
                                  "pp": ("lose", 0)}),
        ("KS 7H", "KD 7C", {"p6": ("push", 0), "cha": ("lose", 0), "f7": ("win", 40),
                            "pp": ("lose", 0)}),
        # Two perfect pairs pay both_hands; one pays win.
        ("4D 4D", "9S 9S", {"p6": ("push", 0), "cha": ("lose", 0), "f7": ("lose", 0),
                            "pp": ("win", 250)}),
        ("4D 4D", "KS 7C", {"p6": ("win", 1), "cha": ("lose", 0), "f7": ("lose", 0),
                            "pp": ("win", 25)}),
    ],
)
def test_bets_whose_paytable_leaves_cases_out(
    tmp_path: Path, player: str, banker: str, expected: dict[str, tuple[str, float]]
) -> None:
    got = settle(_partial(tmp_path), decide(_cards(player), _cards(banker)))
    assert {k: (v["outcome"], v["pays"]) for k, v in got.items()} == expected


def test_each_bet_declares_what_it_reads() -> None:
    table = load_paytable(Path(__file__).resolve().parents[2] / "config" / "paytables"
                          / "seed003.yaml")
    assert reads(table.bet("banker")) == {"values"}
    assert reads(table.bet("tiger_pair")) == {"first_two"}
    assert reads(table.bet("all_treasure")) == {"values"}  # four value bets
    with pytest.raises(KeyError, match="no_such_bet"):
        table.bet("no_such_bet")


# -- Roads survivors: the drawn grid, the bead plate, the JSON, payout bounds ------------------
def test_a_start_cell_taken_by_a_tail_moves_right_and_cells_know_their_entry() -> None:
    """docs/roads.md: B x7 P x6 B x5 P x4 B x3 P x2 B: the sixth column's tail takes row 0 of
    drawn column 7 (1-based), so the last Banker starts in drawn column 8 (0-based 7)."""
    grid = draw([7, 6, 5, 4, 3, 2, 1])
    assert grid.columns[-2] == [(5, 0), (6, 0)]
    assert grid.columns[-1] == [(7, 0)]
    small = draw([2, 1])
    assert small.cells == {(0, 0): (0, 0), (0, 1): (0, 1), (1, 0): (1, 0)}


def test_bead_cells_fill_column_by_column() -> None:
    assert [bead_cell(i) for i in (0, 5, 6, 7)] == [(0, 0), (0, 5), (1, 0), (1, 1)]
    assert bead_cell(7, 3) == (2, 1)


def test_roads_json_is_the_documented_example() -> None:
    """docs/roads.md, "--json": the JSON of ``--sequence BPPTB``, copied from the page."""
    assert roads_json(Scoreboard.from_records("BPPTB").snapshot()) == {
        "big_road": [[{"winner": "banker", "ties": 0}],
                     [{"winner": "player", "ties": 0}, {"winner": "player", "ties": 1}],
                     [{"winner": "banker", "ties": 0}]],
        "big_eye_boy": [["blue", "blue"]],
        "small_road": [],
        "cockroach_pig": [],
        "ask": {"banker": {"big_eye_boy": "red", "small_road": "blue", "cockroach_pig": None},
                "player": {"big_eye_boy": "blue", "small_road": "red", "cockroach_pig": None}},
        "good_roads": [],
    }


def test_a_payout_at_the_limit_is_read_and_one_past_it_is_refused() -> None:
    base = complete_record("s1", 1, decide(_cards("2S 3H"), _cards("4D 4C")))
    at_limit = base | {"bets": {"small_tiger": {"outcome": "win", "pays": int(PAYOUT_MAX)}}}
    parsed = round_from_record(at_limit)
    assert parsed is not None and parsed.icon == "small_tiger"
    past = base | {"bets": {"small_tiger": {"outcome": "win", "pays": int(PAYOUT_MAX) + 1}}}
    with pytest.raises(RecordError, match=re.escape(
            "bets['small_tiger'].pays is 10001, expected a payout from 0 to 10000")):
        round_from_record(past)
    garbled = base | {"bets": {"small_tiger": {"outcome": "won", "pays": 1}}}
    with pytest.raises(RecordError, match=r"bets\['small_tiger'\]\.outcome is 'won'"):
        round_from_record(garbled)
    text = base | {"bets": {"small_tiger": {"outcome": "win", "pays": "lots"}}}
    with pytest.raises(RecordError, match=r"bets\['small_tiger'\]\.pays is 'lots'"):
        round_from_record(text)


# -- Analysis survivors: what the result carries, and its refusals -----------------------------
def test_an_analysis_names_its_paytable_decks_and_labels(tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(
        "name: two\nbets:\n"
        "  - {key: tie, label: The tie, kind: tie, pays: {win: 8}, push: [], cutoff_round: null}\n"
        "  - {key: pp, label: A pair, kind: pair, side: player, pays: {win: 11}, push: [],"
        " cutoff_round: null}\n",
        encoding="utf-8",
    )
    result = analyze(load_paytable(path), 6)
    assert (result.paytable, result.decks) == ("two", 6)
    assert [(b.key, b.label) for b in result.bets] == [("tie", "The tie"), ("pp", "A pair")]
    # 6 decks: the second card has the first's rank in 23 of the 311 cards left.
    assert result.bets[1].win == Fraction(23, 311)


def test_an_analysis_refuses_a_bet_mixing_totals_with_ranks(tmp_path: Path) -> None:
    path = tmp_path / "mixed.yaml"
    path.write_text(mixed_paytable(), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"mixes bets on totals with bets on ranks and suits, "
                                          r"which the exact analysis cannot combine; list bets "
                                          r"of one sort$"):
        analyze(load_paytable(path))


def test_an_analysis_needs_a_deck() -> None:
    with pytest.raises(ValueError, match="a shoe needs at least one deck, got 0"):
        first_four_classes(0)


def test_the_scoreboard_takes_the_outcome_winner_itself() -> None:
    """The scoreboard takes ``station.game.outcome.Winner`` members as they are. (``Winner`` is a
    ``StrEnum``, which hashes as its value, so the ``.value`` branch of ``Scoreboard.add`` is
    an equivalent mutant; this pins the behaviour either way.)"""
    board = Scoreboard()
    board.add(Winner.BANKER)
    board.add(Winner.TIE)
    board.add(Winner.PLAYER)
    assert [r.winner for r in board.beads] == ["banker", "tie", "player"]


def test_the_banker_draw_reason_lists_the_table_row_from_banker_three_on() -> None:
    """RULES.md 2.5: totals 0-2 always draw (no list); from 3 on the row is shown."""
    t = Table()
    t.new_shoe()
    t.round("2S", "AD", "3H", "2C", "5S")  # player 5 draws 5; banker 3 draws on a 5
    assert t.station.prompt == Prompt(
        "banker_3", "DEAL BANKER THIRD CARD",
        "ROUND 1: banker 3 draws on player third card 5 (draws on 0,1,2,3,4,5,6,7,9)")
    t = Table()
    t.new_shoe()
    t.round("2S", "AD", "3H", "KC", "5S")  # banker 1 always draws
    assert t.station.prompt.detail == "ROUND 1: banker 1 draws on player third card 5"


def test_a_lost_journal_asks_for_disk_space_not_a_cable() -> None:
    t = Table()
    t.new_shoe()
    t.round("4S")
    t.lost("journal")
    assert t.station.prompt.text == (
        "PAUSED: journal lost (port vanished) - free space on the station's disk; "
        "call supervisor")
