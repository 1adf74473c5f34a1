"""The camera's agreement rule, pure: a payload counts only after ``agree_frames`` consecutive
frames, once per pass, and again only after ``release_frames`` frames away."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.camera.agreement import Agreement
from tests.sampling import examples

frames = st.lists(st.lists(st.sampled_from(["AS", "KD", "XX", "QH"]), max_size=3), max_size=60)


def reference(seq: list[list[str]], agree: int, release: int) -> list[tuple[int, str]]:
    """The rule written the slow way: for each payload, find its runs of consecutive frames;
    a pass is runs separated by fewer than ``release`` absent frames; a pass is reported at
    the frame where one of its runs first reaches ``agree`` frames."""
    out: list[tuple[int, str]] = []
    for p in sorted({p for f in seq for p in f}):
        present = [p in f for f in seq]
        reported = False
        streak = absent = 0
        for i, here in enumerate(present):
            if here:
                streak, absent = streak + 1, 0
                if streak >= agree and not reported:
                    reported = True
                    out.append((i, p))
            else:
                streak, absent = 0, absent + 1
                if absent >= release:
                    reported = False
    return sorted(out)


@settings(max_examples=examples(300), deadline=None)
@given(frames, st.integers(1, 4), st.integers(1, 6))
def test_agreement_matches_the_rule(seq: list[list[str]], agree: int, release: int) -> None:
    a = Agreement(agree, release)
    got = sorted((i, p) for i, f in enumerate(seq) for p in a.update(f))
    assert got == reference(seq, agree, release)
    assert a.pending() <= 4


def test_a_payload_in_one_frame_is_never_accepted() -> None:
    a = Agreement(2, 3)
    assert [a.update(f) for f in (["AS"], [], ["AS"], [], ["KD"], ["QH"])] == [[]] * 6


def test_a_card_is_reported_once_while_it_passes_even_with_a_missed_frame() -> None:
    a = Agreement(2, 3)
    seen = [a.update(f) for f in (["AS"], ["AS"], [], ["AS"], ["AS"], ["AS"])]
    assert seen == [[], ["AS"], [], [], [], []]


def test_the_same_card_passing_again_is_reported_again() -> None:
    # Eight decks hold eight aces of spades: never de-duplicated by value.
    a = Agreement(2, 2)
    seen = [a.update(f) for f in (["AS"], ["AS"], [], [], ["AS"], ["AS"])]
    assert seen == [[], ["AS"], [], [], [], ["AS"]]


@pytest.mark.parametrize("agree, release", [(0, 1), (1, 0), (-1, 5)])
def test_bad_settings_are_refused(agree: int, release: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Agreement(agree, release)
