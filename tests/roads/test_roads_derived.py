"""Golden tests of big eye boy, small road, cockroach pig and the ask road (RULES.md 8).

Expected values were worked out by hand from seed 003's rules, not printed by the code.
"""

from __future__ import annotations

import pytest

from station.game.roads import Roads, Scoreboard
from station.game.roads.derived import mark
from station.game.roads.layout import draw

R, U = "red", "blue"  # U for blUe, so B stays Banker in the sequences


def roads(letters: str) -> Roads:
    return Scoreboard.from_records(letters).snapshot()


def road(letters: str, name: str) -> list[list[str]]:
    return [list(column) for column in roads(letters).derived[name]]


# Start cells, 1-based as in seed 003: big eye boy column 2 row 2, else column 3 row 1; small
# road column 3 row 2, else column 4 row 1; cockroach pig column 4 row 2, else column 5 row 1.
@pytest.mark.parametrize(
    ("name", "before", "row_two", "row_two_mark", "next_column", "next_column_mark"),
    [
        ("big_eye_boy", "B", "BPP", U, "BPB", R),
        ("small_road", "BPB", "BPBB", U, "BPBP", R),
        ("cockroach_pig", "BPBP", "BPBPP", U, "BPBPB", R),
    ],
)
def test_start_cells(
    name: str,
    before: str,
    row_two: str,
    row_two_mark: str,
    next_column: str,
    next_column_mark: str,
) -> None:
    # Nothing while every entry is before the start cell.
    assert road(before, name) == []
    # Row-2 case: the first mark belongs to the entry in row 2 of the start column.
    assert road(row_two, name) == [[row_two_mark]]
    # Row 2 of the start column stayed empty: the first mark is row 1 of the next column.
    assert road(next_column, name) == [[next_column_mark]]


def test_big_eye_boy_row_two_is_red_when_the_column_to_the_left_reaches_it() -> None:
    assert road("BBPP", "big_eye_boy") == [[R]]


def test_straight_drop_past_a_short_column_is_red() -> None:
    # B | P P P: the second P sees column 1 end one row above (blue); the third sees it end
    # two rows above, which seed 003 makes red ("前二行或以上都无结果").
    assert road("BPPP", "big_eye_boy") == [[U], [R]]
    assert road("BPPPP", "big_eye_boy") == [[U], [R, R]]
    # Rows 2-3 have a neighbour (red), row 4 is one below its end (blue), row 5 two (red).
    assert road("BBBPPPPP", "big_eye_boy") == [[R, R], [U], [R]]
    assert road("BPBPPP", "small_road") == [[R], [U], [R]]
    assert road("BPBPBBB", "cockroach_pig") == [[R], [U], [R]]


def test_new_column_compares_the_two_columns_before_it() -> None:
    # B | P P | B: columns 1 and 2 differ in length -> blue; then P: 2 and 3 differ -> blue.
    assert road("BPPB", "big_eye_boy") == [[U, U]]
    assert road("BPPBP", "big_eye_boy") == [[U, U, U]]
    # B B | P P | B: equal -> red.
    assert road("BBPPB", "big_eye_boy") == [[R, R]]


def test_mark_reads_only_columns_to_the_left() -> None:
    assert mark([1, 1], 1, 1, 1) == U
    assert mark([1, 1], 2, 0, 1) == R
    assert mark([1, 1], 1, 0, 1) is None
    assert mark([3, 1, 1, 1], 3, 0, 3) is None
    assert mark([3, 1, 1, 1], 4, 0, 3) == U


def test_each_derived_road_is_drawn_with_the_same_six_row_layout() -> None:
    # B then eight P: big eye boy is blue then seven reds; the reds turn right at row 6.
    board = Scoreboard.from_records("B" + "P" * 9)
    assert road("B" + "P" * 9, "big_eye_boy") == [[U], [R] * 7]
    assert board.derived_grids["big_eye_boy"].columns == [
        [(0, 0)],
        [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 5)],
    ]
    assert board.derived_grids["big_eye_boy"].columns == draw([1, 7]).columns


NONE3 = {"big_eye_boy": None, "small_road": None, "cockroach_pig": None}


def ask(letters: str) -> dict[str, dict[str, str | None]]:
    return {side: dict(marks) for side, marks in roads(letters).ask.items()}


@pytest.mark.parametrize(
    ("letters", "banker", "player"),
    [
        # Empty board, ties on the first hands, one column: no road can start next round.
        ("", NONE3, NONE3),
        ("TTB", NONE3, NONE3),
        ("B" * 8, NONE3, NONE3),
        # Row-2 start case: B | P P.
        ("BPP", {**NONE3, "big_eye_boy": U}, {**NONE3, "big_eye_boy": R}),
        # Next-column start case: B | P | B.
        (
            "BPB",
            {"big_eye_boy": U, "small_road": U, "cockroach_pig": None},
            {"big_eye_boy": R, "small_road": R, "cockroach_pig": None},
        ),
        # Straight drop: another P would be two rows below column 1's end -> red.
        ("BPPP", {**NONE3, "big_eye_boy": U}, {**NONE3, "big_eye_boy": R}),
        # A tie between two winners changes nothing: B B | P P, lengths equal -> a Banker
        # (new column) is red, a third P (column 1 ends one row above) is blue.
        ("BBTPP", {**NONE3, "big_eye_boy": R}, {**NONE3, "big_eye_boy": U}),
        ("BBPP", {**NONE3, "big_eye_boy": R}, {**NONE3, "big_eye_boy": U}),
        # The blocked-tail shoe: lengths 8, 1, 7.
        (
            "B" * 8 + "P" + "B" * 7,
            {"big_eye_boy": R, "small_road": R, "cockroach_pig": None},
            {"big_eye_boy": U, "small_road": U, "cockroach_pig": None},
        ),
    ],
)
def test_ask_road(
    letters: str, banker: dict[str, str | None], player: dict[str, str | None]
) -> None:
    assert ask(letters) == {"banker": banker, "player": player}
