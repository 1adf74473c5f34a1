"""Each of seed 003's ten good roads, shown and not shown (definitions in docs/roads.md)."""

from __future__ import annotations

import pytest

from station.game.roads import Scoreboard
from station.game.roads.goodroads import PATTERNS
from station.game.roads.names import LABELS


def goods(letters: str) -> tuple[str, ...]:
    return Scoreboard.from_records(letters).good_roads()


CASES: dict[str, tuple[list[str], list[str]]] = {
    # key: (sequences that show it, sequences that do not)
    "long_banker": (["BBBB", "PBBBBBB", "BBTBTB"], ["BBB", "BBBBP", "PPPP"]),
    "long_player": (["PPPP", "BPPPPP", "TPPPP"], ["PPP", "PPPPB", "BBBB"]),
    "double_jump": (
        ["BBPP", "BBPPBB", "BBBBPP", "PPPPBBB"],
        ["BBP", "BPP", "BBPPB", "BBPBB"],
    ),
    "single_jump": (["BPBP", "PBPB", "BBPBPB", "BPTBP"], ["BPB", "BBPBP", "BPBPP"]),
    "one_room_two_halls_banker": (
        ["BPPBPP", "BPPBPPBPP", "PBPPBPP", "BPPTBPP"],
        ["BPPBP", "BPPBPPP", "BBPPBPP", "BPPBPPB", "PBBPBB"],
    ),
    "one_room_two_halls_player": (
        ["PBBPBB", "BPBBPBB"],
        ["PBBPB", "PBBPBBB", "PPBBPBB", "BPPBPP"],
    ),
    "banker_sticky": (
        ["BBPBBP", "BBBBPBBP", "PBBPBBP", "BBPTBBP"],
        ["BBPBP", "BBPPBBP", "BBPBB", "BPBBP", "PPBPPB"],
    ),
    "player_sticky": (
        ["PPBPPB", "PPPPBPPB"],
        ["PPBPB", "PPBBPPB", "PPBPP", "BBPBBP"],
    ),
    "separated_banker_sticky": (
        ["BPBBPBPBB", "BPPPBBBPBPPBB", "PBPBBPBPBBB", "BPBTBPBPBB"],
        ["BPBBPBBPBB", "BPBBPBPB", "BPBBPBPBBP", "BPBPBPBB", "PBPPBPBPP"],
    ),
    "separated_player_sticky": (
        ["PBPPBPBPP", "PBBBPPPBPBBPP"],
        ["PBPPBPPBPP", "PBPPBPBP", "BPBBPBPBB"],
    ),
}


def test_every_pattern_has_cases_and_a_label() -> None:
    assert set(CASES) == set(PATTERNS) == set(LABELS)
    assert len(PATTERNS) == 10


@pytest.mark.parametrize(("key", "letters"), [(k, s) for k, (yes, _) in CASES.items() for s in yes])
def test_pattern_shown(key: str, letters: str) -> None:
    assert key in goods(letters)


@pytest.mark.parametrize(("key", "letters"), [(k, s) for k, (_, no) in CASES.items() for s in no])
def test_pattern_not_shown(key: str, letters: str) -> None:
    assert key not in goods(letters)


def test_patterns_combine_and_keep_their_order() -> None:
    # P | B B B B with a Player run of 2 before it: long Banker and double jump at once.
    assert goods("PPBBBB") == ("long_banker", "double_jump")
    assert goods("") == ()
    assert goods("TTT") == ()


def test_a_pattern_goes_away_when_the_road_stops_following_it_and_comes_back() -> None:
    assert "double_jump" in goods("BBPP")
    assert "double_jump" not in goods("BBPPB")
    assert "double_jump" in goods("BBPPBB")
