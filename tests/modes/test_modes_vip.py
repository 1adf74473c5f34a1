"""The VIP table (seed 003 包桌), the timers and the betting gate, through the real Station and
the upstream feed (docs/modes.md). Every promise here has a mutant in the report that fails it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from drivers.events import CardRead, Command, DeviceLost, DeviceRestored, InputEvent, TimerExpired
from station.settings.paytable import load_paytable
from station.table.outputs import Notice, Output, Published
from station.table.station import Station
from station.table.tablerules import TableRules
from station.web.catalogue import render
from station.wire.messages import iso_ts
from tests.modeskit import START, Exits

PAYTABLE = load_paytable(Path(__file__).resolve().parents[2] / "config" / "paytables" /
                         "seed003.yaml")
DEALER = "dealer:ann"
CLIENT = "upstream:vip-client [c-{n}]"
GAME_SERVER = "upstream:game-server [g-{n}]"
BURN = ["2S", "3S", "4S"]  # a 2 shown: two more burned
NATURAL = ["4H", "3C", "5H", "5C"]  # player 9, banker 8: no third card
THIRDS = ["2H", "TC", "3H", "KC", "4D", "6S"]  # player 5 draws 4, banker 0 draws 6


class Desk:
    """One station, its upstream messages, and a clock the test moves."""

    def __init__(self, mode: str = "vip", seed: int = 1, **rules: Any) -> None:
        self.station = Station(TableRules(table="t9", dedupe_ms=0, mode=mode, **rules),
                               PAYTABLE)
        self.exits = Exits(self.station)
        self.now = START
        self.n = 0
        shoe = [r + s for r in "A23456789TJQK" for s in "SHDC"] * 8
        random.Random(seed).shuffle(shoe)
        self.shoe = shoe
        self.outputs: list[Output] = []

    @property
    def d(self) -> Any:
        return self.station.dealing

    def send(self, event: InputEvent) -> list[Output]:
        out, _ = self.exits.apply(event)
        self.outputs += out
        return out

    def at(self, dt: float) -> float:
        self.now += dt
        return self.now

    def cmd(self, action: str, actor: str = DEALER, dt: float = 1.0) -> list[Output]:
        return self.send(Command(action, actor, self.at(dt)))

    def client(self, action: str, actor: str = CLIENT) -> list[Output]:
        self.n += 1
        return self.cmd(action, actor.format(n=self.n))

    def card(self, code: str | None = None) -> list[Output]:
        return self.send(CardRead(code or self.shoe.pop(), "shoe", self.at(0.5)))

    def fire(self, name: str, early: float = 0.0) -> list[Output]:
        due = self.station.deadlines[name]
        self.now = max(self.now, due - early)
        return self.send(TimerExpired(name, due - early))

    def start(self) -> None:
        self.cmd("new_shoe")
        for code in BURN:
            self.card(code)
        assert self.d.state == "between_rounds"

    def play(self, cards: list[str] | None = None) -> dict[str, Any]:
        """A round from between rounds: betting by the dealer, the cards given (or the
        shoe's), every reveal by the dealer's button; its record."""
        cards = list(cards or [])
        self.cmd("open_betting")
        self.cmd("close_betting")
        start = len(self.outputs)
        while self.d.state != "between_rounds" and self.d.state != "shoe_closed":
            if self.d.state == "reveal":
                self.cmd("reveal")
            else:
                self.card(cards.pop(0) if cards else None)
        records = [o.record for o in self.outputs[start:] if isinstance(o, Published)]
        assert len(records) == 1
        return records[0]

    def messages(self, kind: str, since: int = 0) -> list[dict[str, Any]]:
        return [m for m in self.exits.messages[since:] if m["kind"] == kind]

    def notes(self, out: list[Output]) -> list[str]:
        return [o.text for o in out if isinstance(o, Notice)]


# --- the open-cards deadline -------------------------------------------------------------

def test_the_system_opens_the_cards_60_s_after_betting_closed() -> None:
    t = Desk()
    t.start()
    t.cmd("open_betting")
    t.cmd("close_betting")
    closed = t.now
    assert t.station.deadlines == {"open_cards": closed + 60.0}
    for code in THIRDS[:4]:
        t.card(code)
    assert t.d.state == "reveal"
    seen = len(t.exits.messages)
    early = t.fire("open_cards", early=0.001)
    assert t.d.state == "reveal" and t.notes(early) == ["timer 'open_cards' is not due: ignored"]
    assert t.messages("reveal", seen) == []
    t.fire("open_cards")
    reveals = t.messages("reveal", seen)
    assert [(m["hand"], m["by"], [c["card"] for c in m["cards"]]) for m in reveals] == [
        ("player", "timer", ["2H", "3H"]), ("banker", "timer", ["TC", "KC"])]
    # Later third cards are dealt face up: their values go out as they are dealt.
    assert t.d.state == "player_3"
    assert "FACE DOWN" not in t.station.prompt.line()
    t.card("4D")
    t.card("6S")
    cards = t.messages("card", seen)
    assert [(m["hand"], m["position"], m["card"]) for m in cards] == [
        ("player", 3, "4D"), ("banker", 3, "6S")]
    assert not any(m.get("face_down") for m in cards)
    assert t.messages("round", seen)[0]["player"] == ["2H", "3H", "4D"]
    assert t.station.deadlines == {}


def test_the_deadline_during_the_deal_opens_the_cards_already_dealt() -> None:
    t = Desk()
    t.start()
    t.cmd("open_betting")
    t.cmd("close_betting")
    t.card("4H")
    seen = len(t.exits.messages)
    t.fire("open_cards")
    assert [(m["hand"], m["cards"]) for m in t.messages("reveal", seen)] == [
        ("player", [{"position": 1, "card": "4H"}])]
    for code in NATURAL[1:]:
        t.card(code)
    assert [m["card"] for m in t.messages("card", seen)] == ["3C", "5H", "5C"]


def test_a_player_opens_the_cards_before_the_deadline() -> None:
    t = Desk()
    t.start()
    t.cmd("open_betting")
    t.cmd("close_betting")
    for code in NATURAL:
        t.card(code)
    t.client("reveal")
    t.client("reveal")
    assert [m["by"] for m in t.messages("reveal")] == ["upstream:vip-client [c-1]",
                                                      "upstream:vip-client [c-2]"]
    assert t.d.state == "between_rounds" and t.station.deadlines == {}


# --- skips (飞牌) --------------------------------------------------------------------------

def test_five_skips_in_a_row_then_the_sixth_is_refused() -> None:
    t = Desk()
    t.start()
    for i in range(5):
        t.client("skip")
        assert t.d.state == "player_1" and t.d.skipped
        while t.d.state != "between_rounds":
            assert "FACE DOWN" not in t.station.prompt.line()
            t.card()
        record = t.messages("round")[-1]
        assert record["round"] == i + 1 and record["skipped"] is True
        assert record["open_bets"] == [] and record["bets"] == {}
        assert t.station.modes.skips_in_a_row == i + 1
    seen = len(t.exits.messages)
    out = t.client("skip")
    assert t.d.state == "between_rounds"
    assert t.notes(out) == [
        "skip refused from upstream:vip-client [c-6]: 5 rounds skipped in a row already, "
        "the most the VIP rules allow; this round is played"]
    refused = t.messages("command_refused", seen)
    assert [(m["command_id"], m["action"], m["reason"]) for m in refused] == [
        ("c-6", "skip", "not_now")]
    # A played round breaks the run: the next skip is taken.
    t.play()
    assert t.station.modes.skips_in_a_row == 0
    t.client("skip")
    assert t.d.skipped and t.station.modes.skips_in_a_row == 1


def test_a_skip_while_betting_is_open_corrects_the_opening() -> None:
    t = Desk()
    t.start()
    t.cmd("open_betting")
    seen = len(t.exits.messages)
    t.client("skip")
    closed = t.messages("betting_closed", seen)
    assert len(closed) == 1 and closed[0]["skipped"] is True
    out = t.client("skip")
    assert "a round can be skipped only before its cards are dealt" in t.notes(out)[0]


# --- a new shoe (更换牌靴) ------------------------------------------------------------------

def test_a_new_shoe_is_refused_before_30_rounds_with_the_count() -> None:
    t = Desk()
    t.start()
    for _ in range(29):
        t.play()
    out = t.client("request_new_shoe")
    assert t.notes(out) == [
        "request new shoe refused from upstream:vip-client [c-1]: 29 rounds played in this "
        "shoe; a new shoe may be asked for once 30 have been played"]
    assert t.messages("command_refused")[-1]["reason"] == "not_now"
    # Round 30 in progress is not played yet.
    t.cmd("open_betting")
    out = t.client("request_new_shoe")
    assert "29 rounds played" in t.notes(out)[0]
    t.cmd("close_betting")
    while t.d.state != "between_rounds":
        t.cmd("reveal") if t.d.state == "reveal" else t.card()
    assert t.d.state == "between_rounds" and t.d.round_no == 30
    seen = len(t.exits.messages)
    out = t.client("request_new_shoe")
    assert t.d.state == "shoe_closed"  # between rounds: at once
    assert [m["reason"] for m in t.messages("shoe_ended", seen)] == ["new_shoe_requested"]
    assert "the player asked for a new shoe" in t.station.prompt.line()


def test_a_new_shoe_asked_for_mid_round_ends_the_shoe_after_it() -> None:
    t = Desk()
    t.start()
    for _ in range(30):
        t.play()
    t.cmd("open_betting")
    t.cmd("close_betting")
    t.card()
    t.client("request_new_shoe")
    assert t.d.state == "banker_1" and t.d.last_round
    while t.d.state not in ("between_rounds", "shoe_closed"):
        t.cmd("reveal") if t.d.state == "reveal" else t.card()
    assert t.d.state == "shoe_closed" and t.d.round_no == 31
    assert t.messages("round")[-1]["round"] == 31


@pytest.mark.parametrize(("new_shoe_s", "said", "zh"), [
    (40.0, "within 40 s", "请在40秒内"), (300.0, "within 5 min", "请在5分钟内"),
    (90.0, "within 1 min 30 s", "请在1分30秒内"), (0.4, "within 1 s", "请在1秒内"),
])
def test_the_new_shoe_prompt_says_its_time_as_people_do(
        new_shoe_s: float, said: str, zh: str) -> None:
    """Issue 30: 40 s was "(within 0.666667 min)" in ctl status, the journal and the page."""
    t = Desk(new_shoe_s=new_shoe_s)
    t.start()
    for _ in range(30):  # the player may ask for a new shoe after 30 rounds (new_shoe_after)
        t.play()
    t.client("request_new_shoe")
    line = t.station.prompt.line()
    assert f"({said})" in line and "0." not in line.split("(within")[1]
    words = t.station.prompt.said
    assert words is not None and zh in render(words, "zh-Hans")


def test_the_new_shoe_alarm_fires_after_5_minutes_and_never_before() -> None:
    t = Desk()
    t.start()
    for _ in range(30):
        t.play()
    t.client("request_new_shoe")
    closed = t.now
    assert t.station.deadlines == {"new_shoe": closed + 300.0}
    seen = len(t.exits.messages)
    t.fire("new_shoe", early=0.5)
    assert t.messages("alert", seen) == [] and "LATE" not in t.station.prompt.line()
    assert "within 5 min" in t.station.prompt.line()
    t.fire("new_shoe")
    alerts = t.messages("alert", seen)
    assert [(a["alert"], a["by"]) for a in alerts] == [("new_shoe_late", "timer")]
    assert "NEW SHOE LATE, supervisor alerted" in t.station.prompt.line()
    assert t.station.deadlines == {}  # one alarm, not one a tick
    t.cmd("new_shoe")
    assert not t.station.modes.new_shoe_requested and "LATE" not in t.station.prompt.line()


def test_no_new_shoe_alarm_without_a_request() -> None:
    t = Desk()
    t.start()
    for _ in range(2):
        t.play()
    t.cmd("end_shoe")
    assert t.d.state == "shoe_closed" and t.station.deadlines == {}


# --- another dealer (更换荷官) --------------------------------------------------------------

def test_the_dealer_request_stays_open_until_another_dealer_signs_in() -> None:
    t = Desk()
    t.cmd("sign_in", "dealer:D1")
    t.start()
    seen = len(t.exits.messages)
    t.client("request_dealer")
    assert [a["alert"] for a in t.messages("alert", seen)] == ["dealer_requested"]
    assert t.station.dealers.change_requested
    out = t.client("request_dealer")
    assert "a request for another dealer is open already" in t.notes(out)[0]
    assert t.play()["dealer"] == "D1"  # the dealer goes on meanwhile
    t.cmd("sign_out")
    t.cmd("sign_in", "dealer:D1")  # the same dealer back is not another dealer
    assert t.station.dealers.change_requested and t.station.dealers.dealer == "D1"
    t.cmd("sign_in", "dealer:D2")
    assert not t.station.dealers.change_requested
    assert t.messages("dealer")[-1]["request_closed"] is True
    assert t.play()["dealer"] == "D2"


@pytest.mark.parametrize("action", ["skip", "request_new_shoe", "request_dealer"])
def test_vip_requests_are_refused_elsewhere(action: str) -> None:
    t = Desk(mode="squeeze")
    t.start()
    out = t.client(action)
    assert "is a VIP table's request (table.mode is squeeze)" in t.notes(out)[0]
    assert t.messages("command_refused")[-1]["reason"] == "not_now"


# --- timers -------------------------------------------------------------------------------

def test_an_early_or_unknown_timer_changes_nothing() -> None:
    t = Desk(betting="timer", betting_s=10.0)
    t.start()
    t.fire("betting_opens")
    assert t.d.state == "betting_open"
    before = (dict(t.station.deadlines), t.station.prompt, len(t.exits.messages))
    for event in (TimerExpired("betting", t.station.deadlines["betting"] - 0.001),
                  TimerExpired("nonsense", t.now + 1000), TimerExpired("reveal", t.now + 1000)):
        out = t.send(event)
        assert [type(o) for o in out] == [Notice]
    assert (dict(t.station.deadlines), t.station.prompt) == before[:2]
    assert len(t.exits.messages) == before[2]


@pytest.mark.parametrize(("mode", "rules", "timer", "seconds"), [
    ("standard", {"betting": "timer", "betting_s": 10.0}, "betting", 10.0),
    ("squeeze", {"reveal_s": 30.0}, "reveal", 30.0),
    ("vip", {}, "open_cards", 60.0),
])
def test_a_pause_stops_every_countdown_and_resume_restarts_it_in_full(
        mode: str, rules: dict[str, Any], timer: str, seconds: float) -> None:
    t = Desk(mode=mode, **rules)
    t.start()
    if timer == "betting":
        t.fire("betting_opens")
    else:
        t.cmd("open_betting")
        t.cmd("close_betting")
        for code in NATURAL:
            t.card(code)
    assert timer in t.station.deadlines
    t.send(DeviceLost("shoe", "unplugged", t.at(seconds - 1.0)))
    assert t.d.state == "paused" and t.station.deadlines == {}
    t.send(DeviceRestored("shoe", t.at(1000.0)))
    assert t.station.deadlines == {}
    t.cmd("resume", "supervisor:sue")
    assert t.station.deadlines[timer] == t.now + seconds


# --- the betting gate ---------------------------------------------------------------------

@pytest.mark.parametrize(("betting", "actor", "why"), [
    ("timer", DEALER, "this table's betting runs on the station's countdown"),
    ("timer", GAME_SERVER, "this table's betting runs on the station's countdown"),
    ("upstream", DEALER, "this table's betting is opened and closed by the game server"),
    ("dealer", GAME_SERVER, "this table's betting is driven by the dealer"),
])
def test_betting_commands_are_refused_per_table_betting(betting: str, actor: str,
                                                        why: str) -> None:
    t = Desk(mode="standard", betting=betting)
    t.start()
    seen = len(t.exits.messages)
    out = t.client("open_betting", actor)
    who = actor.format(n=t.n)
    assert t.notes(out) == [f"open betting refused from {who}: {why}"]
    assert t.d.state == "between_rounds"
    refused = t.messages("command_refused", seen)
    if "[" in actor:
        assert [(m["action"], m["reason"], m["detail"]) for m in refused] == [
            ("open_betting", "not_now", why)]
    else:
        assert refused == []


def test_the_game_server_opens_and_closes_betting_on_an_upstream_table() -> None:
    t = Desk(mode="standard", betting="upstream")
    t.start()
    assert "the game server opens betting" in t.station.prompt.line()
    t.client("open_betting", GAME_SERVER)
    assert t.d.state == "betting_open"
    out = t.cmd("close_betting")
    assert "opened and closed by the game server" in t.notes(out)[0]
    t.client("close_betting", GAME_SERVER)
    assert t.d.state == "player_1"


def test_the_countdown_opens_and_closes_betting_and_says_when() -> None:
    t = Desk(mode="standard", betting="timer", betting_s=10.0, result_s=2.0)
    t.start()
    assert t.station.deadlines == {"betting_opens": t.now + 2.0}
    t.fire("betting_opens")
    opened = t.now
    msg = t.messages("betting_open")[-1]
    assert msg["betting_s"] == 10.0 and msg["closes_at"] == iso_ts(opened + 10.0)
    assert t.station.deadlines == {"betting": opened + 10.0}
    assert "betting closes by itself in 10 s" in t.station.prompt.line()
    t.fire("betting")
    assert t.d.state == "player_1"


def test_a_pause_while_cards_wait_for_their_reveal_says_what_the_supervisor_may_do() -> None:
    t = Desk(mode="squeeze")
    t.start()
    t.play()
    t.cmd("open_betting")
    t.cmd("close_betting")
    for code in THIRDS[:4]:
        t.card(code)
    t.send(DeviceLost("shoe", "unplugged", t.at(1.0)))
    assert t.station.prompt.detail == "supervisor: resume continues the round, void refunds it"


@pytest.mark.parametrize(("actor", "upstream"), [
    ("gs [c1]", True), ("gs [c1]\n", True), ("gs [c1] ", False), ("gs []", False),
    ("dealer:ann", False), ("gs [c1]\n\n", False),
])
def test_the_upstream_actor_check_is_the_pattern(actor: str, upstream: bool) -> None:
    """Which actor is the game server, as the pattern says (its "$" also matches before a
    final newline, as a recorded actor may end): the betting gate's shortcut agrees."""
    from drivers.events import Command  # noqa: PLC0415
    from station.table.modes import upstream_id  # noqa: PLC0415

    assert (upstream_id(actor) is not None) == upstream
    t = Desk(mode="standard", betting="upstream")
    t.start()
    refusal = t.station.modes.betting_refusal(Command("open_betting", actor, t.at(1.0)))
    assert (refusal is None) == upstream
