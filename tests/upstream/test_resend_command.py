"""The archive's ``resend`` (issue 33): the verifier takes exactly its journal and seq, the
journaled note holds the station's answer, and the station applies that answer the same way
every time: taken silently, or refused with an alert, since that gap cannot heal."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.events import Command
from station.table.acks import MAX_SEQ, Resend, parse_resend, resend_note
from station.table.outputs import Refused as RefusedOutput
from station.table.station import Station
from station.table.tablerules import TableRules
from station.wire.commands import Accepted, Refused, SeenIds, check_command
from tests.upstream.test_commands import NOW, POLICY, command

J = "a" * 64
ACTOR = "upstream:archive [arc-9]"


def ask(**fields: Any) -> bytes:
    body: dict[str, Any] = {"action": "resend", "journal": J, "seq": 12}
    body.update(fields)
    return command(**body)


def test_a_resend_is_accepted_with_its_journal_and_seq() -> None:
    result = check_command(ask(actor="archive-1"), POLICY, NOW, SeenIds())
    assert isinstance(result, Accepted)
    assert result.claim == (J, 12, "")


@pytest.mark.parametrize(("fields", "words"), [
    ({"journal": None}, "'journal' must be"),
    ({"journal": "A" * 64}, "'journal' must be"),
    ({"seq": None}, "'seq' must be"),
    ({"seq": -1}, "'seq' must be"),
    ({"seq": True}, "'seq' must be"),
    ({"seq": 1.5}, "'seq' must be"),
    ({"head": "b" * 64}, "'head' goes with archived only"),
])
def test_a_bad_resend_is_malformed(fields: dict[str, Any], words: str) -> None:
    result = check_command(ask(**fields), POLICY, NOW, SeenIds())
    assert isinstance(result, Refused) and result.reason == "malformed", result
    assert words in result.detail


@given(st.from_regex(r"[0-9a-f]{64}", fullmatch=True), st.integers(0, MAX_SEQ),
       st.none() | st.text(min_size=1, max_size=300))
def test_the_note_reads_back_as_written(journal: str, seq: int, refusal: str | None) -> None:
    assert parse_resend(resend_note(journal, seq, refusal)) == Resend(journal, seq, refusal)


@given(st.text(max_size=300))
def test_any_other_note_is_no_request_or_reads_as_one(note: str) -> None:
    asked = parse_resend(note)
    assert asked is None or resend_note(asked.journal, asked.seq, asked.refusal) == note


def _apply(station: Station, note: str | None, actor: str = ACTOR) -> list[Any]:
    return station.apply(Command("resend", actor, NOW, note))


def test_a_held_request_is_taken_silently() -> None:
    assert _apply(Station(TableRules(), prompts=False), resend_note(J, 12)) == []


def test_a_request_for_what_is_gone_is_refused_and_alerted() -> None:
    station = Station(TableRules(), prompts=False)
    out = _apply(station, resend_note(J, 12, "journal aaaa is no longer on this station"))
    refused = [o for o in out if isinstance(o, RefusedOutput)]
    assert [(r.reason, r.detail) for r in refused] == [
        ("not_now", "journal aaaa is no longer on this station")]
    answers = [o.message for o in out if type(o).__name__ == "Announced"]
    assert answers[0] == {"type": "command_refused", "command_id": "arc-9",
                          "action": "resend", "reason": "not_now",
                          "detail": "journal aaaa is no longer on this station"}
    assert answers[1]["type"] == "alert" and answers[1]["alert"] == "records_unrecoverable"
    assert "from record 12" in answers[1]["detail"]


def test_a_request_from_the_table_or_unreadable_is_refused() -> None:
    station = Station(TableRules(), prompts=False)
    out = _apply(station, resend_note(J, 12), actor="dealer (web 127.0.0.1)")
    assert [o.reason for o in out if isinstance(o, RefusedOutput)] == ["unknown_action"]
    out = _apply(station, "journal x")
    assert [o.reason for o in out if isinstance(o, RefusedOutput)] == ["malformed"]
