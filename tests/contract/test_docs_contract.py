"""The docs' own promises agree with each other: every kind has its table and examples,
every example validates against its schema and matches the tables, the tables list what the
schemas list. The live half (the station's bytes against the docs) is test_live_contract."""

from __future__ import annotations

import json
from typing import Any

import pytest

from station.wire.messages import KINDS
from station.wire.schema import COMMAND, load_schema, validate
from tests.contract import docs

CONTRACT = docs.read()


def test_every_kind_has_one_section_with_a_table_and_an_example() -> None:
    assert set(CONTRACT.kinds) == set(KINDS)
    assert all(CONTRACT.examples[k] for k in KINDS)
    assert CONTRACT.command_examples


@pytest.mark.parametrize("kind", KINDS)
def test_the_tables_list_what_the_schema_lists(kind: str) -> None:
    schema = load_schema(kind)
    fields = CONTRACT.fields(kind)
    listed = {n for n, f in fields.items() if f.required != "absent"}
    if kind == docs.STATUS:
        listed.discard("prev_seq")
    else:
        assert fields["prev_seq"].required == "events"
    assert listed == set(schema["properties"]), kind
    for name in schema.get("required", []):
        assert fields[name].required in ("required", "events", "journaled"), (kind, name)


def _examples() -> list[tuple[str, str]]:
    return [(kind, text) for kind, texts in CONTRACT.examples.items() for text in texts]


@pytest.mark.parametrize(("kind", "text"), _examples())
def test_every_example_validates_and_matches_the_tables(kind: str, text: str) -> None:
    message = json.loads(text)
    assert message["kind"] == kind, "an example under another kind's heading"
    validate(text.encode())
    assert docs.problems(message, CONTRACT.fields(kind), kind) == []


def test_the_record_examples_match_the_record_table() -> None:
    assert len(CONTRACT.record_examples) >= 2
    for text in CONTRACT.record_examples:
        record: dict[str, Any] = json.loads(text)
        assert docs.problems(record, CONTRACT.record, "record") == []
        # The record is the round message's body: with an envelope it passes the schema.
        validate({**record, "kind": "round", "table": "table-1", "seq": 5, "prev_seq": 4,
                  "ts": "2026-01-01T00:00:03.250Z", "sig": "A" * 86 + "=="})


def test_the_command_table_and_examples_agree_with_the_schema() -> None:
    schema = load_schema(COMMAND)
    assert set(CONTRACT.command) == set(schema["properties"])
    assert {n for n, f in CONTRACT.command.items() if f.required == "required"} == set(
        schema["required"])
    for text in CONTRACT.command_examples:
        validate(text.encode(), COMMAND)
        assert docs.problems(json.loads(text), CONTRACT.command, "command") == []


def test_the_refusal_reasons_are_the_schemas() -> None:
    reasons = load_schema("command_refused")["properties"]["reason"]["enum"]
    assert sorted(CONTRACT.refusals) == sorted(reasons)


def test_the_reader_refuses_irregular_docs() -> None:
    up = docs.UPSTREAM.read_text("utf-8")
    with pytest.raises(docs.DocError, match="type"):
        docs.read(up.replace("| `decks` | int | required |", "| `decks` | integer | required |"))
    with pytest.raises(docs.DocError, match="required is"):
        docs.read(up.replace("| `decks` | int | required |", "| `decks` | int | always |"))
    with pytest.raises(docs.DocError, match="no example"):
        start = up.index("### `pause`")
        end = up.index("### `resume`")
        section = up[start:end]
        docs.read(up[:start] + section[:section.index("```json")] + up[end:])


def test_problems_names_each_way_a_message_breaks_the_tables() -> None:
    text = CONTRACT.examples["shoe_started"][0]  # the first: without a checked shuffle
    good = json.loads(text)
    fields = CONTRACT.fields("shoe_started")
    assert docs.problems(good, fields, "shoe_started") == []
    assert docs.problems(good | {"surprise": 1}, fields, "shoe_started") == [
        "shoe_started: `surprise` is not documented"]
    assert docs.problems({k: v for k, v in good.items() if k != "decks"}, fields,
                         "shoe_started") == ["shoe_started: `decks` (required) is missing"]
    assert docs.problems(good | {"decks": "8"}, fields, "shoe_started") == [
        "shoe_started: `decks` is '8', documented as int"]
    status = json.loads(CONTRACT.examples["status"][0])
    assert docs.problems(status | {"prev_seq": 9}, CONTRACT.fields("status"), "status") == [
        "status: `prev_seq` is documented as absent here"]
