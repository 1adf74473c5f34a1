"""The retention decision (station.journal.retention), pure: journals' facts, the archive's
acknowledgements, the time and the limits in; keep or delete, with the reason, out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from station.journal.retention import (
    DAY_S,
    AckSeen,
    AsideJournal,
    Verdict,
    decide,
    protect,
)
from station.settings.retention import RetentionLimits as Limits
from tests.sampling import examples

NOW = 1_800_000_000.0


def journal(name: str, days_ago: float, *, shoes: int = 2, last: int = 100,
            in_use: bool = False, problem: str = "") -> AsideJournal:
    return AsideJournal(name, name * 64, last, "h" * 64, NOW - days_ago * DAY_S, shoes,
                        in_use, problem)


def final(j: AsideJournal, by: str = "upstream:archive [a-1]") -> AckSeen:
    return AckSeen(j.journal_id, j.last_seq, j.head, by, NOW - 3600)


def by_name(verdicts: list[Verdict]) -> dict[str, Verdict]:
    return {v.journal.name: v for v in verdicts}


def test_a_journal_goes_only_when_acknowledged_and_outside_both_limits() -> None:
    a, b, c, d = (journal("a", 40), journal("b", 30), journal("c", 20), journal("d", 1))
    acks = [final(a), final(b), final(d), AckSeen(c.journal_id, 60, c.head, "x", NOW)]
    got = by_name(decide([d, c, b, a], 0, acks, NOW, Limits(days=7, shoes=0)))
    assert [v.journal.name for v in decide([d, c, b, a], 0, acks, NOW, Limits(7, 0))] == [
        "a", "b", "c", "d"]  # oldest first
    assert got["a"].delete and got["b"].delete
    assert got["a"].reason == (
        "acknowledged up to its last record (seq 100) by upstream:archive [a-1] at "
        "2027-01-15T07:00:00Z; older than 7 days and 0 shoes (ended 40.0 days ago, 6 shoes "
        "since)")
    assert not got["c"].delete
    assert got["c"].reason.startswith("not acknowledged (the archive has up to seq 60 of 100)")
    assert not got["d"].delete
    assert got["d"].reason.startswith("within retention (ended 1.0 days ago, 0 shoes since; "
                                      "retention keeps 7 days and 0 shoes)")


def test_the_shoes_floor_counts_the_journal_in_use_and_the_newer_ones() -> None:
    old, mid, new = journal("o", 30, shoes=5), journal("m", 20, shoes=5), journal("n", 10,
                                                                                   shoes=5)
    acks = [final(old), final(mid), final(new)]
    got = by_name(decide([old, mid, new], 3, acks, NOW, Limits(days=0, shoes=10)))
    # newer than n: 3 (in use); than m: 8; than o: 13, the first at least 10.
    assert (got["n"].delete, got["m"].delete, got["o"].delete) == (False, False, True)
    assert "3 shoes since" in got["n"].reason and "8 shoes since" in got["m"].reason


def test_a_wrong_head_or_an_earlier_seq_is_no_acknowledgement_of_the_journal() -> None:
    j = journal("j", 50)
    for bad in (AckSeen(j.journal_id, j.last_seq, "0" * 64, "x", NOW),
                AckSeen(j.journal_id, j.last_seq - 1, j.head, "x", NOW),
                AckSeen("f" * 64, j.last_seq, j.head, "x", NOW)):
        (v,) = decide([j], 0, [bad], NOW, Limits(0, 0))
        assert not v.delete, bad


def test_in_use_or_unreadable_is_kept_whatever_else() -> None:
    used, broken = journal("u", 90, in_use=True), journal("b", 90, problem="record 7: edited")
    got = by_name(decide([used, broken], 0, [final(used), final(broken)], NOW, Limits(0, 0)))
    assert not got["u"].delete and got["u"].reason.startswith("in use")
    assert not got["b"].delete
    assert got["b"].reason == "cannot be read or verified (record 7: edited)"


def test_an_empty_journal_needs_its_seq_0_acknowledged() -> None:
    j = AsideJournal("e", "e" * 64, 0, "e" * 64, NOW - 90 * DAY_S, 0)
    assert not decide([j], 0, [], NOW, Limits(0, 0))[0].delete
    assert decide([j], 0, [AckSeen(j.journal_id, 0, j.journal_id, "x", NOW)], NOW,
                  Limits(0, 0))[0].delete


def test_a_journal_holding_the_only_acknowledgement_of_one_that_stays_stays_too() -> None:
    held, holder = journal("j", 50, in_use=True), journal("k", 40)
    acks = [AckSeen(held.journal_id, held.last_seq, held.head, "x", NOW, source="k"),
            AckSeen(holder.journal_id, holder.last_seq, holder.head, "x", NOW, source="")]
    verdicts = decide([held, holder], 0, acks, NOW, Limits(0, 0))
    assert [v.delete for v in verdicts] == [False, True]
    got = protect(verdicts, acks)
    assert [v.delete for v in got] == [False, False]
    assert got[1].reason.startswith("holds the acknowledgement of j, which is kept; "
                                    "acknowledged up to its last record")
    # With a second copy of the acknowledgement in the journal in use, k may go.
    again = protect(verdicts, [*acks, AckSeen(held.journal_id, held.last_seq, held.head, "y",
                                              NOW, source="")])
    assert [v.delete for v in again] == [False, True]


names = st.text("abcdefgh", min_size=1, max_size=3)
journals = st.lists(st.builds(
    lambda name, days, shoes, last, in_use, broken: journal(
        name, days, shoes=shoes, last=last, in_use=in_use, problem="bad" if broken else ""),
    names, st.floats(0, 400), st.integers(0, 30), st.integers(0, 50), st.booleans(),
    st.booleans()), max_size=8, unique_by=lambda j: j.name)


@settings(max_examples=examples(300), deadline=None)
@given(journals, st.integers(0, 40), st.data(), st.integers(0, 200), st.integers(0, 100))
def test_never_deletes_an_unacknowledged_in_use_or_unreadable_journal(
        aside: list[AsideJournal], current_shoes: int, data: st.DataObject, days: int,
        shoes: int) -> None:
    acks = []
    for j in aside:
        pick = data.draw(st.sampled_from(["none", "final", "partial", "bad_head"]))
        if pick == "final":
            acks.append(final(j))
        elif pick == "partial" and j.last_seq > 0:
            acks.append(AckSeen(j.journal_id, j.last_seq - 1, j.head, "x", NOW))
        elif pick == "bad_head":
            acks.append(AckSeen(j.journal_id, j.last_seq, "0" * 64, "x", NOW))
    # Each acknowledgement journaled in the journal in use or in one of those moved aside.
    sources = ["", *(j.name for j in aside)]
    acks = [AckSeen(a.journal, a.seq, a.head, a.by, a.ts,
                    source=data.draw(st.sampled_from(sources))) for a in acks]
    limits = Limits(days, shoes)
    verdicts = protect(decide(aside, current_shoes, acks, NOW, limits), acks)
    assert sorted(v.journal.name for v in verdicts) == sorted(j.name for j in aside)
    held = {(a.journal, a.seq, a.head) for a in acks}
    newest_first = sorted(aside, key=lambda j: (j.ended, j.name), reverse=True)
    for v in verdicts:
        j = v.journal
        if not v.delete:
            continue
        assert (j.journal_id, j.last_seq, j.head) in held
        assert not j.in_use and not j.problem
        assert NOW - j.ended > days * DAY_S
        newer = newest_first[:newest_first.index(j)]
        assert current_shoes + sum(n.shoes for n in newer) >= shoes
        assert v.reason.startswith("acknowledged up to its last record")
    # A journal that stays keeps a copy of its acknowledgement, if it had one.
    going = {v.journal.name for v in verdicts if v.delete}
    for v in verdicts:
        j = v.journal
        found = {a.source for a in acks if (a.journal, a.seq, a.head)
                 == (j.journal_id, j.last_seq, j.head)}
        if not v.delete and found and not j.problem:
            assert found - going, (j.name, found, going)
