"""Golden tests of the big road: logical columns, ties, and the drawn 6-row layout."""

from __future__ import annotations

from station.game.roads import Roads, Scoreboard, roads_json
from station.game.roads.layout import draw


def roads(letters: str) -> Roads:
    return Scoreboard.from_records(letters).snapshot()


def big(letters: str) -> list[list[tuple[str, int]]]:
    """The big road as (letter, ties) per entry, column by column."""
    return [
        [(entry.winner[0].upper(), entry.ties) for entry in column]
        for column in roads(letters).big_road
    ]


def test_ties_on_the_first_hand_attach_to_the_first_entry() -> None:
    assert big("TTBP") == [[("B", 2)], [("P", 0)]]
    assert roads("TTBP").leading_ties == 2
    # Ties before and after the first entry add up on it.
    assert big("TTBTP") == [[("B", 3)], [("P", 0)]]
    assert roads("TTBTP").leading_ties == 2


def test_ties_alone_wait_for_the_first_decision() -> None:
    only_ties = roads("TTT")
    assert only_ties.big_road == ()
    assert only_ties.leading_ties == 3
    assert len(only_ties.beads) == 3


def test_several_ties_in_a_row_are_counted_on_one_entry() -> None:
    assert big("BTTTP") == [[("B", 3)], [("P", 0)]]
    assert big("BPTTTTTTTTTTT") == [[("B", 0)], [("P", 11)]]
    assert big("BTBTT") == [[("B", 1), ("B", 2)]]


def test_a_tie_between_two_winners_does_not_break_the_column_change() -> None:
    assert big("BTP") == [[("B", 1)], [("P", 0)]]
    assert big("BBTPP") == [[("B", 0), ("B", 1)], [("P", 0), ("P", 0)]]
    # The tie never starts a column, so the derived roads see B B | P P either way.
    assert roads("BBTPP").derived == roads("BBPP").derived
    assert roads("BBTPP").derived["big_eye_boy"] == (("red",),)


def test_json_of_the_big_road() -> None:
    assert roads_json(roads("TBTP"))["big_road"] == [
        [{"winner": "banker", "ties": 2}],
        [{"winner": "player", "ties": 0}],
    ]


def test_a_streak_of_eight_turns_right_along_the_bottom() -> None:
    grid = draw(roads("B" * 8).lengths)
    assert grid.columns == [[(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 5), (2, 5)]]
    # The next column still starts right of the previous column's start, above the tail.
    grid = draw(roads("B" * 8 + "PP").lengths)
    assert grid.columns[1] == [(1, 0), (1, 1)]


def test_a_tail_blocked_by_an_earlier_tail_turns_one_row_higher() -> None:
    grid = draw(roads("B" * 8 + "P" + "B" * 7 + "P" * 6).lengths)
    assert grid.columns[0][-2:] == [(1, 5), (2, 5)]
    assert grid.columns[1] == [(1, 0)]
    # (2, 5) is the first column's tail: the third column turns right at row 4.
    assert grid.columns[2] == [(2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (3, 4), (4, 4)]
    # (3, 4) is the third column's tail: the fourth turns right at row 3.
    assert grid.columns[3] == [(3, 0), (3, 1), (3, 2), (3, 3), (4, 3), (5, 3)]


def test_a_staircase_of_tails_pushes_a_column_start_to_the_right() -> None:
    letters = "B" * 7 + "P" * 6 + "B" * 5 + "P" * 4 + "B" * 3 + "P" * 2 + "B"
    grid = draw(roads(letters).lengths)
    assert [column[-1] for column in grid.columns[:6]] == [
        (1, 5),
        (2, 4),
        (3, 3),
        (4, 2),
        (5, 1),
        (6, 0),
    ]
    # The sixth column's tail sits in row 0 of drawn column 6, so the seventh starts at 7.
    assert grid.columns[6] == [(7, 0)]


def test_scoreboard_places_the_same_cells_as_draw() -> None:
    letters = "B" * 8 + "P" + "B" * 7 + "P" * 6 + "TBPBPPT"
    board = Scoreboard.from_records(letters)
    assert board.big_grid.columns == draw(board.snapshot().lengths).columns
