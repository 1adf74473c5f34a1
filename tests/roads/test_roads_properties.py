"""Properties of the roads over any shoe (hypothesis)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from station.game.roads import Roads, Round, Scoreboard, Side, compute_roads
from station.game.roads.derived import DERIVED_ROADS
from station.game.roads.layout import draw
from station.game.roads.model import ROWS
from tests.sampling import examples

letters = st.text(alphabet="BPT", max_size=120)
rounds = st.lists(
    st.builds(
        Round,
        winner=st.sampled_from(["banker", "player", "tie"]),
        banker_pair=st.booleans(),
        player_pair=st.booleans(),
        icon=st.none() | st.sampled_from(["lucky_6", "tiger", "dragon_bonus_player"]),
    ),
    max_size=100,
)


def decisions(text: str) -> str:
    return text.replace("T", "")


@given(letters)
def test_ties_never_change_a_derived_road_or_a_good_road(text: str) -> None:
    with_ties, without = compute_roads_of(text), compute_roads_of(decisions(text))
    assert with_ties.derived == without.derived
    assert with_ties.good_roads == without.good_roads
    assert with_ties.ask == without.ask
    assert with_ties.lengths == without.lengths


@given(letters, st.lists(st.integers(min_value=0, max_value=200), max_size=10))
def test_ties_inserted_anywhere_change_no_derived_road(text: str, spots: list[int]) -> None:
    padded = text
    for spot in spots:
        cut = spot % (len(padded) + 1)
        padded = padded[:cut] + "T" + padded[cut:]
    assert compute_roads_of(padded).derived == compute_roads_of(text).derived


@given(letters)
def test_one_derived_mark_per_big_road_entry_from_the_start_cell_on(text: str) -> None:
    roads = compute_roads_of(text)
    lengths = roads.lengths
    for name, offset in DERIVED_ROADS:
        # Entries at (offset, row >= 1) and every entry of the columns right of it (0-based).
        expected = sum(lengths[offset + 1 :]) + max(0, (lengths[offset:] or (0,))[0] - 1)
        assert sum(len(column) for column in roads.derived[name]) == expected


@given(letters)
def test_big_road_counts_every_round(text: str) -> None:
    roads = compute_roads_of(text)
    assert sum(roads.lengths) == len(decisions(text))
    ties_on_entries = sum(entry.ties for column in roads.big_road for entry in column)
    if roads.big_road:
        assert ties_on_entries == text.count("T")
    else:
        assert roads.leading_ties == text.count("T")
    for column in roads.big_road:
        assert len({entry.winner for entry in column}) == 1
    winners = [column[0].winner for column in roads.big_road]
    assert all(a != b for a, b in itertools.pairwise(winners))


@settings(max_examples=examples(60))
@given(rounds)
def test_incremental_equals_recomputed_after_every_round(shoe: list[Round]) -> None:
    board = Scoreboard()
    for i, item in enumerate(shoe):
        board.add(item)
        assert board.snapshot() == compute_roads(shoe[: i + 1])
    assert board.recompute() == board.snapshot()
    snapshot = board.snapshot()
    assert board.big_grid.columns == draw(snapshot.lengths).columns
    for name, columns in snapshot.derived.items():
        assert board.derived_grids[name].columns == draw(len(c) for c in columns).columns


@given(letters)
def test_ask_road_is_what_the_next_round_adds(text: str) -> None:
    board = Scoreboard.from_records(text)
    predicted = board.ask()
    sides: tuple[tuple[Side, str], ...] = (("banker", "B"), ("player", "P"))
    for side, letter in sides:
        after = Scoreboard.from_records(text + letter)
        for name, _ in DERIVED_ROADS:
            before_marks = sum(len(c) for c in board.derived[name].columns)
            after_columns = after.derived[name].columns
            if predicted[side][name] is None:
                assert sum(len(c) for c in after_columns) == before_marks
            else:
                assert after_columns[-1][-1] == predicted[side][name]


@given(st.lists(st.integers(min_value=1, max_value=14), max_size=40))
def test_layout_is_a_path_per_column_on_six_rows(lengths: list[int]) -> None:
    grid = draw(lengths)
    cells = [cell for column in grid.columns for cell in column]
    assert len(cells) == len(set(cells)) == sum(lengths)
    assert all(0 <= row < ROWS and x >= 0 for x, row in cells)
    starts = [column[0] for column in grid.columns]
    assert all(row == 0 for _, row in starts)
    assert all(a[0] < b[0] for a, b in itertools.pairwise(starts))
    for column in grid.columns:
        turned = False
        for (x0, y0), (x1, y1) in itertools.pairwise(column):
            down, right = (x1, y1) == (x0, y0 + 1), (x1, y1) == (x0 + 1, y0)
            assert down or right
            # Once the dragon tail turns right it never goes down again.
            assert not (turned and down)
            turned = turned or right


def compute_roads_of(text: str) -> Roads:
    return compute_roads(Scoreboard.from_records(text).beads)
