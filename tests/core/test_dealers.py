"""Dealers sign in and out (docs/dealers.md): badges on the card scanner and commands from the
display, the rules for when, the dealer on every round record and the ``dealer`` message
upstream. A real ``Station`` throughout; the daemon's own tests are in test_dealers_live.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.codes import CardCode, CodeFormat, PassedCode, UnknownCode, code_event
from drivers.events import CardRead, Command, InputEvent
from drivers.simulated import Pace, SimulatedDealer, random_shoes
from station.errors import ConfigError, InputFileError
from station.live.config import parse_config
from station.table import dealers
from station.table.dealers import DealerDesk
from station.table.outputs import Announced, Notice, Output, Prompt, Published
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules
from station.web.words import dealer_zh
from station.wire import messages as m
from station.wire.observe import Snapshot, build, changes
from station.wire.recording import read_recording
from station.wire.schema import validate
from station.wire.signing import Signer
from tests.conftest import REPO
from tests.sampling import examples

SRC = "scanner"
BURN_THEN_ROUND = ["AS", "2S"]  # an ace shown: one more card burned
ROUND = ["4S", "3H", "5D", "2C"]  # player 9, banker 5: a natural, the round ends


class Table:
    """A station and a clock: events a second apart unless said otherwise."""

    def __init__(self, prefix: str = dealers.DEFAULT_PREFIX, dedupe_ms: int = 150) -> None:
        self.st = Station(TableRules(badge_prefix=prefix, dedupe_ms=dedupe_ms))
        self.t = 1_767_225_600.0

    def ev(self, event: InputEvent) -> list[Output]:
        return self.st.apply(event)

    def read(self, code: str, gap: float = 1.0) -> list[Output]:
        self.t += gap
        return self.ev(CardRead(code, SRC, self.t))

    def cmd(self, action: str, actor: str = "dealer:sim") -> list[Output]:
        self.t += 1.0
        return self.ev(Command(action, actor, self.t))

    def to(self, where: str) -> None:
        """Drive the table to ``where`` (a machine state) from no shoe."""
        path = [("cmd", "new_shoe"), ("read", "AS"), ("read", "2S"), ("cmd", "open_betting"),
                ("cmd", "close_betting"), ("read", "4S"), ("read", "3H"), ("read", "5D")]
        for kind, what in path:
            if self.st.dealing.state == where:
                return
            if kind == "cmd":
                self.cmd(what)
            else:
                self.read(what)
        assert self.st.dealing.state == where

    def play_round(self) -> list[dict[str, Any]]:
        out = self.cmd("open_betting") + self.cmd("close_betting")
        for code in ROUND:
            out += self.read(code)
        return [o.record for o in out if isinstance(o, Published)]


def notices(out: list[Output]) -> list[str]:
    return [o.text for o in out if isinstance(o, Notice)]


def announced(out: list[Output]) -> list[dict[str, Any]]:
    return [o.message for o in out if isinstance(o, Announced)]


def facts(st: Station) -> tuple[Any, ...]:
    """What a badge must never change: the machine, the pause, the shoe's counts."""
    d = st.dealing
    shoe = d.shoe
    counts = None if shoe is None else (shoe.drawn, tuple(shoe.counts), tuple(shoe.stray),
                                        tuple(shoe.held), tuple(shoe.burned))
    return (d.state, d.paused_from, tuple(d.pause_reasons), tuple(d.pause_actions),
            tuple(c.code for c in d.player), tuple(c.code for c in d.banker), counts,
            d.round_no)


# --- badges -------------------------------------------------------------------------------
def test_a_badge_signs_in_its_own_badge_signs_out_and_another_is_a_change() -> None:
    t = Table()
    out = t.read("DEALER-D042")
    assert notices(out) == ["dealer D042 signed in (badge)"]
    assert announced(out) == [{"type": "dealer", "action": "sign_in", "dealer": "D042",
                               "previous": None, "how": "badge", "request_closed": False}]
    assert t.st.dealers.dealer == "D042"
    out = t.read("DEALER-D043")
    assert notices(out) == ["dealer change: D042 out, D043 in (badge)"]
    assert announced(out)[0] | {} == {"type": "dealer", "action": "change", "dealer": "D043",
                                      "previous": "D042", "how": "badge",
                                      "request_closed": False}
    out = t.read("DEALER-D043\r\n")  # a scanner's line ending is not part of the id
    assert notices(out) == ["dealer D043 signed out (badge)"]
    assert announced(out)[0]["action"] == "sign_out"
    assert announced(out)[0]["dealer"] is None
    assert t.st.dealers.dealer is None
    assert t.st.phase.value == "no_shoe"  # never a card, never a pause


def test_every_published_round_carries_the_dealer_signed_in() -> None:
    t = Table()
    t.to("between_rounds")
    assert [r["dealer"] for r in t.play_round()] == [None]
    t.read("DEALER-D042")
    assert [r["dealer"] for r in t.play_round()] == ["D042"]
    t.read("DEALER-D043")
    assert [r["dealer"] for r in t.play_round()] == ["D043"]
    # A void carries the dealer too.
    t.cmd("open_betting")
    t.read("KS")  # betting is still open: a card not due pauses
    out = t.cmd("void", "supervisor:ann")
    (void,) = [o.record for o in out if isinstance(o, Published)]
    assert void["status"] == "void"
    assert void["dealer"] == "D043"


def test_signing_while_betting_is_open_names_the_dealer_of_that_round() -> None:
    t = Table()
    t.to("between_rounds")
    t.cmd("open_betting")
    assert notices(t.read("DEALER-D044")) == ["dealer D044 signed in (badge)"]
    t.cmd("close_betting")
    out: list[Output] = []
    for code in ROUND:
        out += t.read(code)
    assert [o.record["dealer"] for o in out if isinstance(o, Published)] == ["D044"]


@pytest.mark.parametrize("where", ["burn_indicator", "burning", "player_1", "banker_1",
                                   "player_2", "banker_2", "paused"])
def test_a_badge_while_a_card_is_due_or_paused_is_refused_and_changes_nothing(
        where: str) -> None:
    t = Table()
    t.read("DEALER-D042")
    if where == "paused":
        t.to("between_rounds")
        t.read("KS")  # not due: the table pauses
    else:
        t.to(where)
    assert t.st.dealing.state == where
    before, prompt = facts(t.st), t.st.prompt
    for badge in ("DEALER-D043", "DEALER-D042"):  # another's, and the dealer's own
        out = t.read(badge)
        assert facts(t.st) == before
        assert t.st.prompt == prompt
        assert not announced(out)
        assert not any(isinstance(o, (Prompt, Published)) for o in out)
        (text,) = notices(out)
        assert text.startswith(f"badge of dealer {badge[7:]} refused: not ")
        assert "between rounds, or while betting is open" in text  # says when
    assert t.st.dealers.dealer == "D042"


def test_refusals_say_why_by_phase() -> None:
    assert "supervisor" in (dealers.refusal("paused") or "")
    assert "burn" in (dealers.refusal("burning") or "")
    assert "round is published" in (dealers.refusal("player_3") or "")
    for ok in ("no_shoe", "shoe_closed", "between_rounds", "betting_open"):
        assert dealers.refusal(ok) is None


def test_a_double_badge_read_signs_in_once() -> None:
    t = Table(dedupe_ms=150)
    t.read("DEALER-D042")
    out = t.read("DEALER-D042", gap=0.05)  # a bounce: not a sign-out
    assert notices(out) == ["double read of 'DEALER-D042' from scanner within 150 ms "
                            "suppressed"]
    assert not announced(out)
    assert t.st.dealers.dealer == "D042"
    out = t.read("DEALER-D042", gap=2.0)  # the dealer's own badge, later: signs out
    assert notices(out) == ["dealer D042 signed out (badge)"]


@pytest.mark.parametrize("code", ["DEALER-", "DEALER-D 42", "DEALER-" + "x" * 33,
                                  "DEALER-D42!", "DEALER-\x15?", "DEALER-Dé"])
def test_a_bad_badge_is_refused_with_a_notice_never_a_card_or_a_pause(code: str) -> None:
    t = Table()
    t.to("player_1")  # a card is due: an unreadable code would pause here
    before = facts(t.st)
    out = t.read(code)
    assert facts(t.st) == before
    (text,) = notices(out)
    assert "refused: a dealer id after DEALER- is 1-32 of A-Z a-z 0-9 . _ -" in text
    assert "scan a valid dealer badge" in text


def test_with_badges_off_a_badge_is_an_unreadable_code_as_before() -> None:
    t = Table(prefix="")
    t.to("player_1")
    t.read("DEALER-D042")
    assert t.st.dealing.state == "paused"
    assert t.st.dealing.pause_reasons == ["unreadable code 'DEALER-D042' from scanner: not a "
                                          "card"]


def test_a_card_code_is_a_card_whatever_the_prefix() -> None:
    t = Table(prefix="AS")  # a prefix no one should choose: a card still wins
    t.to("burn_indicator")
    t.read("AS")
    assert t.st.dealing.state == "burning"


# --- commands -----------------------------------------------------------------------------
def test_sign_in_and_out_from_the_display_and_upstream() -> None:
    t = Table()
    out = t.cmd("sign_in", dealers.actor_for("D042", "dealer (web 127.0.0.1)"))
    assert notices(out) == ["dealer D042 signed in (display)"]
    out = t.cmd("sign_in", "dealer:D043 upstream:pit/ann [c-9]")
    assert announced(out) == [{"type": "dealer", "action": "change", "dealer": "D043",
                               "previous": "D042", "how": "upstream", "request_closed": False}]
    out = t.cmd("sign_in", "dealer:D043")
    assert notices(out) == ["sign in refused from dealer:D043: D043 is signed in already"]
    out = t.cmd("sign_out", "technician (web 127.0.0.1)")
    assert announced(out)[0]["action"] == "sign_out"
    assert announced(out)[0]["previous"] == "D043"
    out = t.cmd("sign_out", "technician (web 127.0.0.1)")
    assert notices(out) == ["sign out refused from technician (web 127.0.0.1): no dealer is "
                            "signed in"]
    out = t.cmd("sign_in", "dealer (web 127.0.0.1)")  # no id in the actor
    assert notices(out)[0].startswith("sign in refused from dealer (web 127.0.0.1): no "
                                      "dealer id")
    assert not announced(out)


def test_commands_mid_round_are_refused_like_badges() -> None:
    t = Table()
    t.to("banker_2")
    before = facts(t.st)
    for action, actor in (("sign_in", "dealer:D042"), ("sign_out", "dealer")):
        out = t.cmd(action, actor)
        (text,) = notices(out)
        assert "refused" in text and "not while a card is due" in text
        assert facts(t.st) == before


def test_actor_parsing() -> None:
    assert dealers.dealer_of("dealer:D042") == "D042"
    assert dealers.dealer_of("dealer:D042 dealer (web ::1)") == "D042"
    assert dealers.dealer_of("dealer:D0 42") == "D0"
    assert dealers.dealer_of("dealer:") is None
    assert dealers.dealer_of("dealer:D!42") is None
    assert dealers.dealer_of("supervisor:ann") is None
    assert dealers.how_of("dealer:D1 upstream:pit [x]") == "upstream"
    assert dealers.how_of("upstream:pit [x]") == "upstream"
    assert dealers.how_of("dealer:D1 dealer (web 127.0.0.1)") == "display"


# --- the VIP request for another dealer ---------------------------------------------------
def test_a_request_for_another_dealer_stays_open_until_a_different_dealer_signs_in() -> None:
    desk = DealerDesk()
    desk.badge("D042")
    assert desk.request_change() is None
    assert desk.request_change() == "a request for another dealer is open already"
    assert desk.change_requested
    # The current dealer goes on: signing out and back in does not answer the request.
    assert desk.badge("D042").action == "sign_out"
    again = desk.badge("D042")
    assert (again.action, again.request_closed, desk.change_requested) == ("sign_in", False,
                                                                           True)
    change = desk.badge("D043")
    assert (change.action, change.request_closed) == ("change", True)
    assert not desk.change_requested
    assert change.notice() == ("dealer change: D042 out, D043 in (badge); the request for "
                               "another dealer is closed")


def test_the_request_closes_through_the_station_and_goes_upstream() -> None:
    t = Table()
    t.read("DEALER-D042")
    t.st.dealers.request_change()  # the VIP command's part (issue 11, the lead's)
    out = t.cmd("sign_in", "dealer:D050 dealer (web 127.0.0.1)")
    assert announced(out)[0]["request_closed"] is True
    assert not t.st.dealers.change_requested


# --- upstream -----------------------------------------------------------------------------
def test_a_dealer_change_is_a_dealer_message_upstream() -> None:
    t = Table()
    signer = Signer(Ed25519PrivateKey.generate())
    seq = 0
    sent: list[dict[str, Any]] = []

    def apply(event: InputEvent) -> None:
        nonlocal seq
        before = Snapshot.of(t.st)
        out = t.ev(event)
        for kind, args in changes(before, Snapshot.of(t.st), event, out, 8):
            seq += 1
            msg = build(kind, args, table="table-1", seq=seq)
            if kind != "status":  # the feed's link on the events topic
                msg["prev_seq"] = next((m["seq"] for m in reversed(sent)
                                        if m["kind"] != "status"), None)
            validate(signer.sign(msg))
            sent.append(msg)

    apply(CardRead("DEALER-D042", SRC, 1_767_225_601.0))
    apply(Command("sign_in", "dealer:D043 upstream:pit/ann [c-1]", 1_767_225_602.0))
    apply(Command("sign_out", "dealer", 1_767_225_603.0))
    apply(CardRead("DEALER-D042", SRC, 1_767_225_604.0))
    apply(Command("new_shoe", "dealer", 1_767_225_605.0))
    apply(CardRead("DEALER-D043", SRC, 1_767_225_606.0))  # the burn: refused, nothing sent
    dealer_msgs = [x for x in sent if x["kind"] == m.DEALER]
    assert [(x["action"], x["dealer"], x["previous"], x["how"]) for x in dealer_msgs] == [
        ("sign_in", "D042", None, "badge"), ("change", "D043", "D042", "upstream"),
        ("sign_out", None, "D043", "display"), ("sign_in", "D042", None, "badge")]
    assert [x["key"] for x in dealer_msgs] == [f"table-1:dealer:{x['seq']}" for x in dealer_msgs]
    assert dealer_msgs[0]["ts"] == "2026-01-01T00:00:01.000Z"
    assert not any(x["kind"] == m.BETTING_OPEN for x in sent)


def test_betting_open_announcements_still_go_as_betting_open() -> None:
    t = Table()
    t.to("between_rounds")
    before = Snapshot.of(t.st)
    ev = Command("open_betting", "dealer", t.t + 1)
    out = t.ev(ev)
    kinds = [k for k, _ in changes(before, Snapshot.of(t.st), ev, out, 8)]
    assert m.BETTING_OPEN in kinds and m.DEALER not in kinds


# --- the simulated table ------------------------------------------------------------------
def test_the_simulated_dealers_sign_in_and_change_every_k_shoes() -> None:
    station = Station(TableRules(dedupe_ms=1))
    dealer = SimulatedDealer(random_shoes(5, 5), supervisor="resume", pace=Pace(card_s=0.01),
                             badges=("DEALER-A1", "DEALER-B2"), change_every=2)
    seen: list[tuple[str, str | None]] = []
    by_shoe: dict[str, set[str | None]] = {}

    def on(out: list[Output]) -> None:
        for o in out:
            if isinstance(o, Announced) and o.message["type"] == "dealer":
                seen.append((o.message["action"], o.message["dealer"]))
            if isinstance(o, Published):
                by_shoe.setdefault(o.record["shoe"], set()).add(o.record["dealer"])

    end = simulate(station, dealer, on)
    assert end.rounds > 100
    assert seen == [("sign_in", "A1"), ("change", "B2"), ("change", "A1")]
    assert [sorted(v, key=str) for v in by_shoe.values()] == [["A1"], ["A1"], ["B2"], ["B2"],
                                                              ["A1"]]


# --- readers ------------------------------------------------------------------------------
def test_a_reader_passes_a_badge_to_the_station_as_read() -> None:
    codes = CodeFormat(passed_prefixes=["DEALER-"])
    assert codes.classify(" DEALER-D042\r") == PassedCode("DEALER-D042", " DEALER-D042\r")
    assert code_event(codes.classify("DEALER-D042"), b"DEALER-D042", "scanner", 1.0) == \
        CardRead("DEALER-D042", "scanner", 1.0)
    assert codes.classify("dealer-d042") == UnknownCode("dealer-d042")  # the prefix's case
    assert codes.classify("AS") == CardCode("AS", "AS")
    assert isinstance(CodeFormat().classify("DEALER-D042"), UnknownCode)  # badges off


# --- config -------------------------------------------------------------------------------
def _config(tmp_path: Path, **sections: Any) -> Any:
    return parse_config(tmp_path / "station.yaml", sections)


def test_config_badges(tmp_path: Path) -> None:
    c = _config(tmp_path)
    assert (c.rules.badge_prefix, c.reader.badge_prefix) == ("DEALER-", "DEALER-")
    assert c.simulation.dealer_badges == ()
    c = _config(tmp_path, dealers={"badge_prefix": None})
    assert c.rules.badge_prefix == ""
    c = _config(tmp_path, dealers={"badge_prefix": "EMP#"}, simulation={
        "dealer_badge": "EMP#7", "relief_badge": "EMP#8", "dealer_change_shoes": 3})
    assert c.rules.badge_prefix == "EMP#"
    assert (c.simulation.dealer_badges, c.simulation.dealer_change_shoes) == (
        ("EMP#7", "EMP#8"), 3)


@pytest.mark.parametrize(("sections", "words"), [
    ({"dealers": {"badge_prefix": "X"}}, "dealers.badge_prefix: 'X' must be 2-16"),
    ({"dealers": {"badge_prefix": "A B"}}, "without spaces"),
    ({"dealers": {"badge_prefix": 7}}, "must be text"),
    ({"dealers": {"prefix": "D-"}}, "dealers.prefix: unknown key (did you mean 'badge_prefix'"),
    ({"simulation": {"dealer_badge": "D042"}}, "simulation.dealer_badge: 'D042' is not a "
     "badge: DEALER- then 1-32"),
    ({"simulation": {"dealer_badge": "DEALER-D 42"}}, "is not a badge"),
    ({"dealers": {"badge_prefix": None}, "simulation": {"dealer_badge": "DEALER-D1"}},
     "dealers.badge_prefix is null"),
    ({"simulation": {"dealer_badge": "DEALER-A", "relief_badge": "DEALER-B"}},
     "simulation.relief_badge: set simulation.dealer_change_shoes too"),
    ({"simulation": {"dealer_badge": "DEALER-A", "dealer_change_shoes": 2}},
     "simulation.dealer_change_shoes: a change needs two dealers"),
    ({"simulation": {"dealer_badge": "DEALER-A", "relief_badge": "DEALER-A",
                     "dealer_change_shoes": 2}}, "the same badge as dealer_badge"),
    ({"simulation": {"dealer_badge": "DEALER-A", "relief_badge": "DEALER-B",
                     "dealer_change_shoes": 0}}, "simulation.dealer_change_shoes"),
])
def test_config_refuses_bad_dealer_settings(tmp_path: Path, sections: dict[str, Any],
                                            words: str) -> None:
    with pytest.raises(ConfigError, match=None) as caught:
        _config(tmp_path, **sections)
    assert words in str(caught.value), str(caught.value)
    assert "station.yaml" in str(caught.value)


# --- words --------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "dealer D042 signed in (badge)", "dealer D042 signed out (display)",
    "dealer change: D042 out, D043 in (upstream)",
    "dealer change: D042 out, D043 in (badge); the request for another dealer is closed",
    *[dealers.refusal(s) or "" for s in ("paused", "burning", "player_1")],
    "no dealer is signed in", "D042 is signed in already",
])
def test_every_dealer_sentence_has_chinese_words(text: str) -> None:
    zh = dealer_zh(text)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh), zh
    for english in ("signed", "refused", "dealer", "while", "request", "change", "badge"):
        assert english not in zh, zh


# --- fuzz ---------------------------------------------------------------------------------
PHASES = ["no_shoe", "burn_indicator", "burning", "between_rounds", "betting_open",
          "player_1", "banker_1", "player_2", "banker_2", "paused"]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(PHASES), rest=st.text(max_size=60),
       pad=st.sampled_from(["", " ", "\r", "\r\n", "\t"]), signed=st.booleans())
def test_any_code_after_the_prefix_is_a_sign_in_or_a_notice(where: str, rest: str, pad: str,
                                                            signed: bool) -> None:
    t = Table()
    if signed:
        t.read("DEALER-Z9")
    if where == "paused":
        t.to("between_rounds")
        t.read("KS")
    else:
        t.to(where)
    before, dealer = facts(t.st), t.st.dealers.dealer
    out = t.read("DEALER-" + rest + pad)
    assert facts(t.st) == before  # never a card, never a pause, the round untouched
    assert not any(isinstance(o, (Prompt, Published)) for o in out)
    said = announced(out)
    if said:
        (msg,) = said
        assert where in dealers.SIGN_STATES
        assert dealers.valid_id(rest.strip()) or rest.strip() == ""
        assert msg["dealer"] == (None if rest.strip() == dealer else rest.strip())
    else:
        assert notices(out), out
        assert t.st.dealers.dealer == dealer


# --- recordings ---------------------------------------------------------------------------
def test_a_recording_from_before_badges_replays_with_badges_off() -> None:
    old = read_recording(REPO / "tests" / "recordings" / "clean_short_shoe.jsonl")
    assert old.rules.badge_prefix == ""  # a code it holds that starts DEALER- was no badge
    new = read_recording(REPO / "tests" / "recordings" / "dealers_sign_in_change_out.jsonl")
    assert new.rules.badge_prefix == "DEALER-"


@pytest.mark.parametrize("prefix", ["X", 7, "A B", None])
def test_a_recording_header_with_a_bad_prefix_is_refused(tmp_path: Path, prefix: Any) -> None:

    rules = TableRules().to_json() | {"badge_prefix": prefix}
    path = tmp_path / "rec.jsonl"
    path.write_text(json.dumps({"format": "dealer-station-recording", "version": 1,
                                "rules": rules}) + "\n")
    with pytest.raises(InputFileError, match=r"rules\.badge_prefix"):
        read_recording(path)
