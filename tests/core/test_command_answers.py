"""Every command is applied or refused, and a refusal says so everywhere (issue 19).

The station refuses a command it cannot take now (a resume with nothing paused, a void
between rounds, betting from the wrong side, a reveal with nothing face down, ...): the
refusal is a ``Refused`` output (the page and ``station ctl`` answer 409 with it), and a
command from upstream is also answered upstream with a ``command_refused`` message built in
the same ``Station.apply`` as every message, so a replay of the journal gives it again. END
SHOE (``close_shoe`` upstream) closes the shoe after the round in progress, or at once
between rounds, and ``shoe_ended`` names who asked (docs/upstream.md).
"""
# ruff: noqa: RUF001 - the Chinese wording uses full-width punctuation

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.events import CardRead, Command, CutCardSeen, DeviceLost, DeviceRestored, InputEvent
from station.kinds.displays.lines import format_output
from station.table.actions import UPSTREAM_ACTIONS
from station.table.outputs import Notice, Output, Refused
from station.table.station import REFUSED_OUTSIDE, Station
from station.table.tablerules import TableRules
from station.web.catalogue import render
from station.web.words import notice_zh
from station.wire.commands import ACTIONS
from station.wire.observe import SHOE_ENDED_REASONS, Snapshot
from station.wire.schema import load_schema
from tests.conftest import REPO
from tests.modeskit import Exits

START = 1_800_000_000.0
PIT = "upstream:pit/ann [c-{n}]"  # as station.live.daemon names an upstream command's sender


class Desk:
    """A station with its upstream feed, as the daemon wires them."""

    def __init__(self, **rules: Any) -> None:
        self.station = Station(TableRules(**rules))
        self.exits = Exits(self.station)
        self.now = START
        self.n = 0

    def send(self, event: InputEvent) -> tuple[list[Output], list[dict[str, Any]]]:
        before = len(self.exits.messages)
        outputs, _ = self.exits.apply(event)
        return outputs, self.exits.messages[before:]

    def cmd(self, action: str, actor: str = "dealer:ann") -> tuple[list[Output],
                                                                   list[dict[str, Any]]]:
        self.now += 1.0
        return self.send(Command(action, actor, self.now))

    def pit(self, action: str) -> tuple[list[Output], list[dict[str, Any]]]:
        """A command from upstream, as the daemon hands it to the station."""
        self.n += 1
        return self.cmd(UPSTREAM_ACTIONS[action], PIT.format(n=self.n))

    def cards(self, *codes: str) -> list[dict[str, Any]]:
        out = []
        for code in codes:
            self.now += 2.0
            out += self.send(CardRead(code, "scanner", self.now))[1]
        return out

    def shoe(self) -> None:
        self.cmd("new_shoe")
        self.cards("AS", "KD")  # the burn: an ace shown, one card burned

    @property
    def state(self) -> str:
        return self.station.dealing.state


def refused(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m["kind"] == "command_refused"]


def test_the_station_maps_every_action_the_verifier_takes() -> None:
    assert set(UPSTREAM_ACTIONS) == set(ACTIONS)


# (how to get there, the upstream action, the detail the refusal gives)
REFUSALS = [
    ("between", "resume", "not possible while between rounds"),
    ("between", "void", "not possible while between rounds"),
    ("between", "open_betting", "this table's betting is driven by the dealer"),
    ("between", "reveal", "this table deals face up (table.mode is standard)"),
    ("between", "skip", "skip is a VIP table's request (table.mode is standard)"),
    ("none", "close_shoe", "no shoe is in play"),
    ("burn", "close_shoe", "the burn is not done; ask again once it is"),
    ("paused", "close_shoe", "the table is paused; ask again when it deals"),
    ("lost", "resume", "scanner still lost; reconnect it first"),
    ("lost", "void", "scanner still lost; reconnect it first"),
    ("closed", "close_shoe", "no shoe is in play"),
]


def _reach(t: Desk, where: str) -> None:
    if where == "none":
        return
    if where == "burn":
        t.cmd("new_shoe")
        return
    t.shoe()
    if where == "paused":
        t.cards("5H")  # no round is open: a pause
    elif where == "lost":
        t.send(DeviceLost("scanner", "port vanished", t.now + 0.5))
    elif where == "closed":
        t.cmd("end_shoe")
    assert t.state == {"between": "between_rounds", "paused": "paused", "lost": "paused",
                       "closed": "shoe_closed"}.get(where, t.state)


@pytest.mark.parametrize(("where", "action", "detail"), REFUSALS,
                         ids=[f"{a}-{w}" for w, a, _ in REFUSALS])
def test_a_refused_upstream_command_is_answered_upstream(where: str, action: str,
                                                         detail: str) -> None:
    t = Desk()
    _reach(t, where)
    before = Snapshot.of(t.station)
    outputs, messages = t.pit(action)
    assert Snapshot.of(t.station) == before, "a refusal changes nothing"
    (refusal,) = [o for o in outputs if isinstance(o, Refused)]
    assert (refusal.detail, refusal.reason) == (detail, "not_now")
    (answer,) = refused(messages)
    assert {k: answer[k] for k in ("command_id", "action", "reason", "detail")} == {
        "command_id": f"c-{t.n}", "action": action, "reason": "not_now", "detail": detail}
    if action == "open_betting":
        return  # the dealer's own button is taken on this table
    # The same refusal from a person at the table: shown and answered there, not upstream.
    outputs, messages = t.cmd(UPSTREAM_ACTIONS[action], "supervisor:bo")
    assert [o.detail for o in outputs if isinstance(o, Refused)] == [detail]
    assert not refused(messages)


@settings(max_examples=int(os.environ.get("ANSWERS_EXAMPLES", "150")), deadline=None)
@given(st.lists(st.one_of(
    st.tuples(st.just("pit"), st.sampled_from(sorted(UPSTREAM_ACTIONS))),
    st.tuples(st.just("dealer"), st.sampled_from(["new_shoe", "open_betting",
                                                  "close_betting", "end_shoe"])),
    st.tuples(st.just("card"), st.sampled_from(["AS", "KD", "5H", "9C", "2D", "TH"])),
    st.tuples(st.just("cut"), st.just("")),
    st.tuples(st.just("lost"), st.sampled_from(["lost", "restored"])),
), max_size=60), st.sampled_from(["standard", "squeeze", "vip"]))
def test_every_upstream_command_is_applied_or_answered(steps: list[tuple[str, str]],
                                                       mode: str) -> None:
    """Whatever the table is doing: an upstream command refused by the station gets exactly
    one command_refused with its id and changes nothing; one it takes gets none."""
    t = Desk(mode=mode)
    for kind, arg in steps:
        if kind == "pit":
            before = Snapshot.of(t.station)
            outputs, messages = t.pit(arg)
            refusals = [o for o in outputs if isinstance(o, Refused)]
            answers = refused(messages)
            assert len(answers) == len(refusals) <= 1, (arg, outputs, messages)
            if answers:
                assert answers[0]["command_id"] == f"c-{t.n}"
                assert answers[0]["action"] == arg
                assert answers[0]["detail"] == refusals[0].detail
                assert Snapshot.of(t.station) == before
            elif arg in ("resume", "void"):
                # Taken: a message names the command, whatever the table was doing.
                assert any(f"[c-{t.n}]" in str(msg.get("by") or msg.get("voided_by") or "")
                           for msg in messages), (arg, before, messages)
        elif kind == "dealer":
            t.cmd(arg)
        elif kind == "card":
            t.cards(arg)
        elif kind == "cut":
            t.now += 0.5
            t.send(CutCardSeen("cut", t.now))
        elif arg == "lost":
            t.send(DeviceLost("scanner", "gone", t.now + 0.1))
        else:
            t.send(DeviceRestored("scanner", t.now + 0.1))


def test_a_command_refused_before_the_station_is_shown_as_what_it_is() -> None:
    t = Desk()
    actor = "upstream [c-9]: resume refused (stale: sent 40.0 s ago)"
    outputs, texts = t.exits.apply(Command(REFUSED_OUTSIDE, actor, START))
    assert outputs == [Notice(actor)]
    assert not t.exits.messages  # its command_refused is the daemon's, journaled with it
    assert format_output(outputs[0]) == f"note: {actor}"  # the console
    assert f"command refused: {actor}" in texts  # the table log
    assert not any("unknown command" in x or "command_refused" in x for x in texts)


# --- END SHOE and close_shoe -------------------------------------------------------------

def ended(messages: list[dict[str, Any]]) -> list[str]:
    return [m["reason"] for m in messages if m["kind"] == "shoe_ended"]


@pytest.mark.parametrize(("who", "reason"), [("pit", "upstream"), ("dealer", "dealer")])
def test_end_shoe_between_rounds_closes_at_once(who: str, reason: str) -> None:
    t = Desk()
    t.shoe()
    _, messages = t.pit("close_shoe") if who == "pit" else t.cmd("end_shoe")
    assert t.state == "shoe_closed"
    assert ended(messages) == [reason] and not refused(messages)


@pytest.mark.parametrize("when", ["betting_open", "player_1", "banker_2"])
@pytest.mark.parametrize(("who", "reason"), [("pit", "upstream"), ("dealer", "dealer")])
def test_end_shoe_in_a_round_closes_after_it(when: str, who: str, reason: str) -> None:
    t = Desk()
    t.shoe()
    t.cmd("open_betting")
    cards = ["4S", "3H", "5D", "2C"]  # player 9 banker 5: the round ends on its 4th card
    if when != "betting_open":
        t.cmd("close_betting")
    if when == "banker_2":
        t.cards(*cards[:3])
        cards = cards[3:]
    assert t.state == when
    outputs, messages = t.pit("close_shoe") if who == "pit" else t.cmd("end_shoe")
    assert not refused(messages) and not [o for o in outputs if isinstance(o, Refused)]
    assert t.state == when, "the round in progress is played"
    if when == "betting_open":
        t.cmd("close_betting")
    messages = t.cards(*cards)
    assert [m["kind"] for m in messages if m["kind"] in ("round", "shoe_ended")] == [
        "round", "shoe_ended"]
    assert ended(messages) == [reason] and t.state == "shoe_closed"


def test_a_request_names_the_end_even_after_the_cut_card() -> None:
    t = Desk()
    t.shoe()
    t.cmd("open_betting")
    t.send(CutCardSeen("cut", t.now + 0.5))
    t.cmd("close_betting")
    t.pit("close_shoe")
    assert ended(t.cards("4S", "3H", "5D", "2C")) == ["upstream"]
    t = Desk()
    t.shoe()
    t.cmd("open_betting")
    t.send(CutCardSeen("cut", t.now + 0.5))
    t.cmd("close_betting")
    assert ended(t.cards("4S", "3H", "5D", "2C")) == ["cut_card"]


def test_the_docs_refusal_example_is_what_the_station_sends() -> None:
    """docs/upstream.md's close_shoe refusal, field for field, from a station in its burn."""
    doc = (REPO / "docs" / "upstream.md").read_text()
    (text,) = re.findall(r"```json\n(\{\"action\":\"close_shoe\".*?)\n```", doc)
    example = json.loads(text)
    t = Desk()
    t.cmd("new_shoe")
    t.now = 1_767_225_603.25 - 1.0  # the examples' time
    _, messages = t.cmd("end_shoe", "upstream:pit/ann [pit-7f3b]")
    (sent,) = refused(messages)
    envelope = ("seq", "prev_seq", "key", "sig", "station_version")
    assert {k: v for k, v in sent.items() if k not in envelope} == {
        k: v for k, v in example.items() if k not in envelope}


def test_every_shoe_ended_reason_is_documented_and_in_the_schema() -> None:
    doc = (REPO / "docs" / "upstream.md").read_text()
    section = doc[doc.index("### `shoe_ended`"):]
    section = section[:section.index("\n### ")]
    documented = set(re.findall(r"^- `(\w+)`: ", section, re.M))
    assert documented == set(SHOE_ENDED_REASONS)
    assert load_schema("shoe_ended")["properties"]["reason"]["enum"] == list(SHOE_ENDED_REASONS)


def test_the_display_says_the_round_is_the_last_because_the_end_was_asked_for() -> None:
    t = Desk()
    t.shoe()
    t.cmd("open_betting")
    t.pit("close_shoe")
    prompt = t.station.prompt
    assert prompt.detail == "END SHOE asked for: this round is the last"
    assert prompt.said_detail is not None
    assert render(prompt.said_detail, "zh-Hans") == "已请求结束牌靴：本局为最后一局"
    t.cmd("close_betting")
    t.cards("4S")
    detail = t.station.prompt.detail
    assert detail == "ROUND 1 - END SHOE asked for: this round is the last"
    said = t.station.prompt.said_detail
    assert said is not None and render(said, "zh-Hans") == "第1局 - 已请求结束牌靴：本局为最后一局"
    t.send(CutCardSeen("cut", t.now + 0.5))  # the cut card too: the request still says why
    assert t.station.prompt.detail == detail


@pytest.mark.parametrize("where", ["between", "burn"])
def test_a_void_with_no_round_to_void_is_answered_by_a_resume_naming_it(where: str) -> None:
    """A pause with no round in play (a card not due between rounds, a fault in the burn):
    the void sets the card aside and the table goes on (or, in the burn, the shoe is
    abandoned). Nothing is voided, so no round record names the command: a resume with
    ``action: void`` does (docs/upstream.md), and a resume's own bytes are unchanged."""
    t = Desk()
    if where == "between":
        t.shoe()
        t.cards("5H")  # not due: paused between rounds
    else:
        t.cmd("new_shoe")
        t.send(DeviceLost("scanner", "gone", t.now + 0.1))
        t.send(DeviceRestored("scanner", t.now + 0.2))
    assert t.state == "paused"
    _, messages = t.pit("void")
    (resume,) = [m for m in messages if m["kind"] == "resume"]
    assert resume["by"] == PIT.format(n=t.n) and resume["action"] == "void"
    assert not [m for m in messages if m["kind"] == "round"]
    if where == "burn":
        assert [m["reason"] for m in messages if m["kind"] == "shoe_ended"] == ["void"]
    # A resume of the same pause says nothing of an action (its bytes as before).
    t = Desk()
    t.shoe()
    t.cards("5H")
    _, messages = t.pit("resume")
    (resume,) = [m for m in messages if m["kind"] == "resume"]
    assert "action" not in resume


def test_every_refusal_reads_in_chinese() -> None:
    """The dealer page and the pit show a refusal's detail in Chinese: none stays English."""
    for _, action, detail in REFUSALS:
        said = notice_zh(detail)
        assert said != detail and not re.search(r"[a-z]{3}", said), (action, detail, said)
