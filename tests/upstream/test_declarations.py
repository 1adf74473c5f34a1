"""One declaration each: alert kinds (station.wire.alerts, the pit's PIT_ALERTS) and the
commands upstream may send (station.table.actions.UPSTREAM). The JSON Schemas' enums, the
emitters, the pit's lists and the docs' tables are held to them, so a new alert or command
cannot be half added."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from station.services.pit import alerts as pit_alerts
from station.services.pit import commands as pit_commands
from station.services.pit import words
from station.table.actions import PIT_ACTIONS, UPSTREAM, UPSTREAM_ACTIONS
from station.wire import commands as wire_commands
from station.wire.alerts import STATION_ALERT_NAMES, STATION_ALERTS, AlertKind, kinds_by_name
from station.wire.schema import COMMAND, load_schema

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "station" / "wire" / "schemas"
COMMAND_NAMES = [u.wire for u in UPSTREAM]


def _enums(node: Any, where: str) -> Iterator[tuple[str, list[Any]]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "enum" and isinstance(value, list):
                yield where, value
            else:
                yield from _enums(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _enums(value, f"{where}/{i}")


def _every_enum() -> list[tuple[str, list[Any]]]:
    return [found for path in sorted(SCHEMAS.glob("*.json"))
            for found in _enums(json.loads(path.read_text("utf-8")), path.name)]


# --- the schemas -------------------------------------------------------------------------------
def test_the_alert_schemas_enum_is_the_declared_station_alerts() -> None:
    assert load_schema("alert")["properties"]["alert"]["enum"] == list(STATION_ALERT_NAMES)


def test_the_command_schemas_enum_is_the_declared_upstream_actions() -> None:
    assert load_schema(COMMAND)["properties"]["action"]["enum"] == COMMAND_NAMES


# The properties that name an alert kind or a command, wherever a schema has one.
NAMED_BY = {"alert": list(STATION_ALERT_NAMES), "action": COMMAND_NAMES}


def test_every_other_enum_of_these_names_is_one_of_the_declarations() -> None:
    """An ``alert`` or ``action`` property whose enum names one of the declared, anywhere in
    the schemas, lists the whole declaration in its order, and so does any enum holding a
    declared alert kind, so no schema keeps a list of its own (``dealer.json``'s ``action``,
    sign_in and the like, is the dealer's, not a command)."""
    problems, seen = [], 0
    for where, values in _every_enum():
        prop = where.rsplit("/", 1)[-1]
        declared = NAMED_BY.get(prop)
        if declared is None or not set(values) & set(declared):  # dealer.json's action
            declared = list(STATION_ALERT_NAMES) if set(values) & set(STATION_ALERT_NAMES) \
                else None
        if declared is not None:
            seen += 1
            if values != declared:
                problems.append(f"{where}: {values} is not the declaration {declared}")
    assert not problems, "\n".join(problems)
    assert seen >= 2  # alert.json's and command.json's at least


# --- the commands ------------------------------------------------------------------------------
def test_the_pits_actions_and_the_verifiers_are_derived_from_the_one_list() -> None:
    assert pit_commands.ACTIONS == PIT_ACTIONS == tuple(u.wire for u in UPSTREAM if u.pit)
    assert set(PIT_ACTIONS) == {"resume", "void", "confirm_shuffle", "close_shoe", "pause"}
    assert wire_commands.ACTIONS == tuple(COMMAND_NAMES) == tuple(UPSTREAM_ACTIONS)


def test_no_command_name_is_declared_twice() -> None:
    assert len(set(COMMAND_NAMES)) == len(COMMAND_NAMES)
    assert len({u.action for u in UPSTREAM}) == len(UPSTREAM)


def test_docs_upstream_names_every_command() -> None:
    text = (ROOT / "docs" / "upstream.md").read_text("utf-8")
    commands = text[text.index("## Commands from upstream"):]  # not the dealer message's
    row = next(line for line in commands.splitlines()
               if line.startswith("| `action` | string | required |"))
    named = re.findall(r"`(\w+)`", row)
    assert [n for n in COMMAND_NAMES if n not in named] == []


# --- the alert kinds ---------------------------------------------------------------------------
def test_the_pits_urgency_and_words_are_the_declarations() -> None:
    declared = (*STATION_ALERTS, *pit_alerts.PIT_ALERTS)
    assert set(pit_alerts.KINDS) == {k.name for k in declared}
    assert {k.name: k.urgency for k in declared} == pit_alerts.URGENCY
    for kind in declared:
        for lang in ("en", "zh"):
            assert words.alert_kind(kind.name, lang) == kind.words[lang], (kind.name, lang)
    assert set(pit_alerts.STREAM_KINDS) <= set(pit_alerts.KINDS)


def _py(*parts: str) -> list[ast.AST]:
    files = sorted(p for part in parts for p in (ROOT / "station" / part).rglob("*.py"))
    return [ast.parse(p.read_text("utf-8")) for p in files]


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def test_every_alert_the_station_raises_is_declared() -> None:
    """The emitters sit below station.wire and write the name where they raise it: an
    announcement ``{"type": "alert", "alert": NAME}``, a ``ClockAlert(NAME, ...)`` or the bet
    guard's ``ALERT``. Each such name is a declared one."""
    from station.game.betguard import ALERT  # noqa: PLC0415 - only this test needs it

    raised = {ALERT, "clock_unsynchronised"}  # the clock's is f"clock_{state}" (live.clock)
    for tree in _py("game", "table", "live"):
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    name = _literal(value)
                    if _literal(key) == "alert" and name is not None:
                        raised.add(name)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id == "ClockAlert" and node.args):
                name = _literal(node.args[0])
                if name is not None:
                    raised.add(name)
    assert {"dealer_requested", "new_shoe_late", "cut_card_position", "clock_jump",
            "install_modified"} <= raised  # the scan sees the emitters
    assert raised - set(STATION_ALERT_NAMES) == set()
    assert set(STATION_ALERT_NAMES) - raised == set(), "declared, raised by no one"


PIT_CALLS = {"_raise": 1, "_problem": 1, "_clear": 1, "raise_": 1, "open_for": 1,
             "uncleared": 1, "clear": 1, "newest": 0}


def test_every_alert_the_pit_raises_or_clears_is_declared() -> None:
    named = set()
    for tree in _py("services/pit"):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in PIT_CALLS:
                i = PIT_CALLS[node.func.attr]
                name = _literal(node.args[i]) if len(node.args) > i else None
                if name is not None:
                    named.add(name)
    assert {"pause", "offline", "config_changed", "rewritten_history", "schema"} <= named
    assert named - set(pit_alerts.KINDS) == set()


def _pit_md_kinds() -> dict[str, int]:
    text = (ROOT / "docs" / "pit.md").read_text("utf-8")
    head = "| kind | from | urgency | cleared by |"
    assert text.count(head) == 1, "docs/pit.md: one alert kinds table"
    rows = text[text.index(head):].split("\n\n", 1)[0].splitlines()[2:]
    out: dict[str, int] = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        for name in re.findall(r"`(\w+)`", cells[0]):
            assert name not in out, f"docs/pit.md lists {name} twice"
            out[name] = int(cells[2])
    return out


def test_docs_pit_lists_exactly_the_declared_kinds_with_their_urgency() -> None:
    assert _pit_md_kinds() == pit_alerts.URGENCY


def test_docs_upstream_names_exactly_the_station_alerts() -> None:
    text = (ROOT / "docs" / "upstream.md").read_text("utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `alert` | string |"))
    assert re.findall(r"`(\w+)` \(", row) == list(STATION_ALERT_NAMES)


# --- a kind is whole or refused ----------------------------------------------------------------
WORDS = {"en": "Something", "zh": "某事"}


@pytest.mark.parametrize(("change", "said"), [
    ({"urgency": None}, "urgency None is not one of 0, 1, 2, 3"),
    ({"urgency": 4}, "urgency 4 is not one of"),
    ({"urgency": True}, "urgency True"),
    ({"words": {"en": "Something"}}, "no words in zh"),
    ({"words": {"zh": "某事"}}, "no words in en"),
    ({"words": {"en": "", "zh": "某事"}}, "no words in en"),
    ({"words": {}}, "no words in en, zh"),
    ({"words": {**WORDS, "fr": "Quelque chose"}}, "words in fr, not a language"),
    ({"name": "Bad-Name"}, "lower_snake_case"),
    ({"raised_by": ""}, "raised_by"),
])
def test_a_kind_without_its_urgency_or_words_is_refused(change: dict[str, Any],
                                                          said: str) -> None:
    fields: dict[str, Any] = {"name": "something", "raised_by": "station.table.machine",
                              "urgency": 1, "words": WORDS, **change}
    with pytest.raises(ValueError, match=re.escape(said)):
        AlertKind(**fields)


def test_a_kind_needs_its_urgency_and_words_to_be_declared_at_all() -> None:
    with pytest.raises(TypeError):
        AlertKind("something", "station.table.machine", 1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        AlertKind("something", "station.table.machine", words=WORDS)  # type: ignore[call-arg]


def test_a_kind_declared_twice_is_refused() -> None:
    again = AlertKind("gap", "station.table.machine", 1, WORDS)
    with pytest.raises(ValueError, match="'gap' is declared twice"):
        kinds_by_name(STATION_ALERTS, pit_alerts.PIT_ALERTS, (again,))
