"""The archive's ``archived`` acknowledgement: the verifier takes exactly its three fields, the
journaled note holds the station's answer, and the station applies that answer the same way
every time (a replay needs no disk)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.events import Command
from station.table.acks import MARKS_KEPT, MAX_SEQ, Ack, ack_note, claim_problem, parse_ack
from station.table.outputs import Refused as RefusedOutput
from station.table.station import Station
from station.table.tablerules import TableRules
from station.wire.commands import Accepted, Refused, SeenIds, check_command
from tests.upstream.test_commands import NOW, POLICY, command

J, H = "a" * 64, "b" * 64
ACTOR = "upstream:archive [arc-1]"


def claim(**fields: Any) -> bytes:
    body: dict[str, Any] = {"action": "archived", "journal": J, "seq": 7, "head": H}
    body.update(fields)
    return command(**body)


def test_an_archived_command_is_accepted_with_its_claim() -> None:
    result = check_command(claim(actor="archive-1"), POLICY, NOW, SeenIds())
    assert isinstance(result, Accepted)
    assert result.claim == (J, 7, H)
    assert result.sent_by == "upstream:pit/archive-1"


@pytest.mark.parametrize(("fields", "words"), [
    ({"journal": None}, "'journal' must be"),
    ({"journal": "A" * 64}, "'journal' must be"),
    ({"journal": "a" * 63}, "'journal' must be"),
    ({"seq": None}, "'seq' must be"),
    ({"seq": -1}, "'seq' must be"),
    ({"seq": True}, "'seq' must be"),
    ({"seq": 1.5}, "'seq' must be"),
    ({"seq": "7"}, "'seq' must be"),
    ({"head": None}, "'head' must be"),
    ({"head": "g" * 64}, "'head' must be"),
    ({"note": "x"}, "'note' goes with a pause only"),
])
def test_a_bad_claim_is_malformed(fields: dict[str, Any], words: str) -> None:
    result = check_command(claim(**fields), POLICY, NOW, SeenIds())
    assert isinstance(result, Refused) and result.reason == "malformed", result
    assert words in result.detail


def test_a_seq_past_what_a_signed_message_carries_is_refused() -> None:
    # 2**53 cannot even be signed (station.wire.canonical); the check says so too.
    assert claim_problem(J, MAX_SEQ, H) is None
    assert "'seq' must be" in str(claim_problem(J, MAX_SEQ + 1, H))
    assert parse_ack(ack_note(J, MAX_SEQ + 1, H)) is None


def test_the_claims_fields_go_with_archived_only() -> None:
    result = check_command(command(action="resume", seq=3), POLICY, NOW, SeenIds())
    assert isinstance(result, Refused) and result.reason == "malformed"
    assert "only an archived or resend command names a record" in result.detail


@given(st.from_regex(r"[0-9a-f]{64}", fullmatch=True), st.integers(0, MAX_SEQ),
       st.from_regex(r"[0-9a-f]{64}", fullmatch=True),
       st.none() | st.text(min_size=1, max_size=300))
def test_the_note_reads_back_as_written(journal: str, seq: int, head: str,
                                        refusal: str | None) -> None:
    assert parse_ack(ack_note(journal, seq, head, refusal)) == Ack(journal, seq, head, refusal)


@given(st.text(max_size=300))
def test_any_other_note_is_no_acknowledgement_or_reads_as_one(note: str) -> None:
    ack = parse_ack(note)
    assert ack is None or ack_note(ack.journal, ack.seq, ack.head, ack.refusal) == note


def _apply(station: Station, note: str | None, actor: str = ACTOR) -> list[Any]:
    return station.apply(Command("archived", actor, NOW, note))


def test_the_station_takes_a_held_acknowledgement_silently_and_keeps_the_mark() -> None:
    station = Station(TableRules(), prompts=False)
    assert _apply(station, ack_note(J, 7, H)) == []
    assert _apply(station, ack_note(J, 3, "c" * 64)) == []  # an earlier one moves nothing back
    mark = station.archive_marks[J]
    assert (mark.seq, mark.head, mark.by) == (7, H, ACTOR)


def test_the_station_refuses_what_it_does_not_hold_with_the_journaled_words() -> None:
    station = Station(TableRules(), prompts=False)
    out = _apply(station, ack_note(J, 9, H, "journal aaaa (in use) has records up to seq 8"))
    refused = [o for o in out if isinstance(o, RefusedOutput)]
    assert [(r.reason, r.detail) for r in refused] == [
        ("not_now", "journal aaaa (in use) has records up to seq 8")]
    answers = [o.message for o in out if type(o).__name__ == "Announced"]
    assert answers == [{"type": "command_refused", "command_id": "arc-1", "action": "archived",
                        "reason": "not_now",
                        "detail": "journal aaaa (in use) has records up to seq 8"}]
    assert station.archive_marks == {}


def test_an_acknowledgement_from_the_table_or_unreadable_is_refused() -> None:
    station = Station(TableRules(), prompts=False)
    out = _apply(station, ack_note(J, 7, H), actor="dealer (web 127.0.0.1)")
    assert [o.reason for o in out if isinstance(o, RefusedOutput)] == ["unknown_action"]
    out = _apply(station, "journal x")
    assert [o.reason for o in out if isinstance(o, RefusedOutput)] == ["malformed"]
    assert station.archive_marks == {}


def test_the_marks_kept_are_bounded() -> None:
    station = Station(TableRules(), prompts=False)
    for i in range(MARKS_KEPT + 5):
        _apply(station, ack_note(f"{i:064x}", 1, H))
    assert len(station.archive_marks) == MARKS_KEPT
    assert f"{MARKS_KEPT + 4:064x}" in station.archive_marks
