"""The page's view of a table in a mode (station/web/modeview.py, view.py, words.py): pure,
so tested without a server, on whole simulated shoes of each mode and on random tables.

- The buttons follow the table: OPEN/CLOSE BETTING only where the dealer drives betting,
  REVEAL while a hand waits for it, each VIP request only when the station would take it,
  and the reason shown for one greyed out is the station's own refusal, word for word.
- Secrecy: a view is the same whatever the values of the cards still face down (a twin
  table dealt other cards in their places shows exactly the same bytes), through the
  prompts, notices, pauses, results and their Chinese.
- Every prompt, notice and refusal of the modes reads in Chinese.
"""

# ruff: noqa: RUF001 - the Chinese wording uses full-width punctuation
from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

import orjson
import pytest

from drivers.events import CardRead, Command, InputEvent, TimerExpired
from drivers.simulated import CODES, Fault, Pace, Player, SimulatedDealer, random_shoes
from station.game.cards import parse_card
from station.table.machine import Phase
from station.table.msg import Msg, msg
from station.table.outputs import Output, Prompt
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules
from station.web import modeview
from station.web.catalogue import render
from station.web.modeview import VIP_ACTIONS, mode_actions, vip_refusal
from station.web.view import ShoeHistory, Surroundings, actions_for, build_view, notices_of
from station.web.words import notice_zh
from tests.sampling import count
from tests.tablekit import Table

AROUND = Surroundings("t1", "zh", True, "file", None, ("sim-shoe",))
START = 1_800_000_000.0
ENGLISH = re.compile(r"\b(DEAL|ROUND|BURN|BETTING|SHOE|PLAYER|BANKER|REVEAL|FACE|DOWN|WAIT|"
                     r"SKIPPED|LATE|draws|round|player|banker|supervisor|shown|VOID|WINS|TIE|"
                     r"squeezes|opens|closes|server|countdown|refused|asked|skipped|revealed|"
                     r"while|table|request|dealer|shoe|betting|cards?|timer)\b")
FAST = Pace(card_s=1.0, open_betting_s=1.0, betting_s=2.0, new_shoe_s=5.0, supervisor_s=3.0,
            reveal_s=2.0)

# (rules, players) of the modes' simulated tables.
TABLES: dict[str, tuple[TableRules, Player]] = {
    "squeeze-timer": (TableRules(mode="squeeze", betting="timer", betting_s=10.0,
                                 reveal_s=20.0), Player(reveal="timer")),
    "squeeze-players": (TableRules(mode="squeeze", reveal_s=20.0), Player(reveal="player")),
    "vip": (TableRules(mode="vip", betting="timer", betting_s=10.0, max_skips=5,
                       new_shoe_after=30, new_shoe_s=60.0),
            Player(reveal="player", skip_rounds=(3, 4, 5, 6, 7, 8), new_shoe_at=40,
                   dealer_at=(2, 12))),
    "vip-deadline": (TableRules(mode="vip", open_cards_s=30.0), Player(reveal="timer")),
    "upstream": (TableRules(betting="upstream"), Player(betting="upstream")),
}


@dataclasses.dataclass
class Run:
    station: Station
    events: list[InputEvent]
    views: list[dict[str, Any]]
    notices: list[str]
    prompts: list[Prompt]


class Viewer:
    """What the daemon's web display does after each event, without a server."""

    def __init__(self, station: Station, language: str = "zh") -> None:
        self.station = station
        self.history = ShoeHistory()
        self.notices: list[str] = []
        self.prompt = station.prompt
        self.around = dataclasses.replace(AROUND, language=language)

    def show(self, outputs: Iterable[Output]) -> dict[str, Any]:
        outputs = list(outputs)
        for o in outputs:
            if isinstance(o, Prompt):
                self.prompt = o
        self.notices.extend(notices_of(outputs))
        self.history.add(outputs)
        return build_view(self.station, self.prompt, self.history, self.notices, self.around)


def run_table(name: str, seed: int, faults: tuple[Fault, ...] = ()) -> Run:
    rules, player = TABLES[name]
    station = Station(dataclasses.replace(rules, decks=8))
    dealer = SimulatedDealer(random_shoes(seed, 1, 8), faults, pace=FAST, supervisor="resume",
                             start_ts=START, player=player)
    viewer = Viewer(station)
    run = Run(station, [], [], [], [])

    def on_outputs(outputs: list[Output]) -> None:
        run.views.append(viewer.show(outputs))
        run.notices.extend(notices_of(outputs))
        run.prompts.extend(o for o in outputs if isinstance(o, Prompt))
        check_view(run.views[-1], station)

    simulate(station, dealer, on_outputs, run.events.append)
    return run


def check_view(view: dict[str, Any], station: Station) -> None:
    orjson.dumps(view)
    rules, d = station.rules, station.dealing
    actions = view["actions"]
    assert view["mode"] == rules.mode and view["betting"]["mode"] == rules.betting
    if rules.betting != "dealer":
        assert not {"open_betting", "close_betting"} & set(actions)
    assert ("reveal" in actions) == (station.phase is Phase.REVEAL)
    closes = view["betting"]["closes_at"]
    if rules.betting == "timer" and d.state == "betting_open" and not d.skipped:
        assert closes == station.deadlines["betting"]
    else:
        assert closes is None
    assert (view["reveal"] is None) == (station.phase is not Phase.REVEAL)
    if view["reveal"] is not None:
        assert view["reveal"]["hand"] == d.to_reveal[0]
    r = view["round"]
    assert r["player"] == [c.code for c in d.visible("player")]
    assert r["player_down"] + len(r["player"]) == len(d.player)
    if rules.mode == "vip":
        for action in VIP_ACTIONS:
            req = view["vip"]["requests"][action]
            assert req["ok"] == (vip_refusal(station, action) is None) == (action in actions)
            assert not ENGLISH.search(req["zh"]), req
    else:
        assert view["vip"] is None
    zh = view["prompt"]["zh"]
    if not view["prompt"]["paused"]:
        assert not ENGLISH.search(zh["text"]), (view["prompt"]["text"], zh["text"])
        assert not ENGLISH.search(zh["detail"]), (view["prompt"]["detail"], zh["detail"])
    for alert in view["alerts"]:
        assert not ENGLISH.search(alert["zh"]), alert


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    return {name: run_table(name, seed) for seed, name in enumerate(TABLES, start=11)}


def test_every_view_of_each_mode_matches_its_station(runs: dict[str, Run]) -> None:
    """The checks run on every view (check_view); here, that each mode really played."""
    for name, run in runs.items():
        phases = {v["phase"] for v in run.views}
        assert len([v for v in run.views if v["results"]]) > 20, name
        if name.startswith(("squeeze", "vip")):
            assert "reveal" in phases, name
            assert any(v["round"]["player_down"] for v in run.views), name
    vip = runs["vip"]
    refused = [v["vip"]["requests"]["skip"]["why"] for v in vip.views]
    assert any("5 rounds skipped in a row already" in w for w in refused)
    assert any(a["alert"] == "dealer_requested" for v in vip.views for a in v["alerts"])
    assert any(v["betting"]["closes_at"] for v in runs["squeeze-timer"].views)


def test_every_notice_of_the_modes_reads_in_chinese(runs: dict[str, Run]) -> None:
    actors = {ev.actor for run in runs.values() for ev in run.events
              if isinstance(ev, Command)} | {"sim-shoe"}
    seen = {n for run in runs.values() for n in run.notices}
    assert any("skipped by" in n for n in seen) and any("refused" in n for n in seen), seen
    for notice in sorted(seen):
        zh = notice_zh(notice)
        for actor in sorted(actors, key=len, reverse=True):
            zh = zh.replace(actor, " ")
        assert not ENGLISH.search(zh), (notice, zh)


_DOWN = msg("deal.face_down")
_P, _B = msg("hand.player"), msg("hand.banker")
_AFTER31 = msg("shoe.after_round", n=31)


@pytest.mark.parametrize(("said", "en", "zh"), [
    (msg("prompt.deal", hand=_P, n=2, down=_DOWN), "DEAL PLAYER CARD 2 FACE DOWN",
     "派闲家第2张牌（牌面朝下）"),
    (msg("prompt.third", hand=_B, down=_DOWN), "DEAL BANKER THIRD CARD FACE DOWN",
     "庄家补第三张牌（牌面朝下）"),
    (msg("prompt.reveal_cards", hand=_P), "REVEAL PLAYER CARDS: wait, do not deal",
     "闲家开牌：请等待，勿派牌"),
    (msg("prompt.reveal_third", hand=_B), "REVEAL BANKER THIRD CARD: wait, do not deal",
     "庄家开牌（第三张牌）：请等待，勿派牌"),
    (msg("prompt.betting_open", n=4, how=msg("how.timer", s=1.5)),
     "ROUND 4: BETTING OPEN - do not deal; betting closes by itself in 1.5 s",
     "第4局：下注中 - 请勿派牌；1.5秒后自动停止下注"),
    (msg("prompt.betting_open", n=4, how=msg("how.upstream")),
     "ROUND 4: BETTING OPEN - do not deal; the game server closes betting",
     "第4局：下注中 - 请勿派牌；由游戏服务器停止下注"),
    (msg("prompt.wait_upstream", n=5, last=""), "ROUND 5: WAIT - the game server opens betting",
     "第5局：请等待 - 由游戏服务器开始下注"),
    (msg("prompt.shoe_closed_player", after=_AFTER31,
         late=msg("late.within", d=msg("duration.min", min=5))),
     "SHOE CLOSED after round 31: the player asked for a new shoe - discard the rest, start a "
     "NEW SHOE (within 5 min)",
     "第31局后牌靴结束：玩家请求新牌靴 - 弃掉余牌，开始新牌靴（请在5分钟内）"),
    (msg("prompt.shoe_closed_player", after=_AFTER31, late=msg("late.alerted")),
     "SHOE CLOSED after round 31: the player asked for a new shoe - discard the rest, start a "
     "NEW SHOE (NEW SHOE LATE, supervisor alerted)",
     "第31局后牌靴结束：玩家请求新牌靴 - 弃掉余牌，开始新牌靴（新牌靴逾时，已通知主管）"),
])
def test_the_modes_prompts_in_chinese(said: Msg, en: str, zh: str) -> None:
    assert (render(said, "en"), render(said, "zh-Hans")) == (en, zh)


_SKIP3 = msg("round.tag", n=3, last="", skipped=msg("round.skipped"))
_TAG2 = msg("round.tag", n=2, last="", skipped="")


@pytest.mark.parametrize(("said", "en", "zh"), [
    (_SKIP3, "ROUND 3 - SKIPPED by the player: deal face up, no bets",
     "第3局 - 玩家飞牌：牌面朝上派牌，不接受投注"),
    (msg("detail.tagged", tag=_SKIP3, what=msg("why.player_draws", total=4)),
     "ROUND 3 - SKIPPED by the player: deal face up, no bets: player 4 draws",
     "第3局 - 玩家飞牌：牌面朝上派牌，不接受投注：闲家4点，补牌"),
    (msg("detail.tagged", tag=_TAG2, what=msg("how.squeeze", s=30.0)),
     "ROUND 2: the player squeezes, or press REVEAL; revealed by itself after 30 s",
     "第2局：玩家咪牌，或按“开牌”；30秒后自动开牌"),
    (msg("detail.tagged", tag=_TAG2, what=msg("how.vip_reveal", s=60.0)),
     "ROUND 2: the player opens the cards, or press REVEAL; the system opens them 60 s after "
     "betting closed", "第2局：由玩家开牌，或按“开牌”；停止下注60秒后系统自动开牌"),
])
def test_the_modes_details_in_chinese(said: Msg, en: str, zh: str) -> None:
    assert (render(said, "en"), render(said, "zh-Hans")) == (en, zh)


@pytest.mark.parametrize(("en", "zh"), [
    ("skip refused from alice (web 127.0.0.1): 5 rounds skipped in a row already, the most "
     "the VIP rules allow; this round is played",
     "飞牌被拒绝（alice，网页 127.0.0.1）：已连续飞牌5局，已达包桌规则上限；本局须开牌"),
    ("request new shoe refused from bob (web ::1): 12 rounds played in this shoe; a new shoe "
     "may be asked for once 30 have been played",
     "请求新牌靴被拒绝（bob，网页 ::1）：本牌靴已开12局；满30局后方可请求新牌靴"),
    ("open betting refused from dealer (web 127.0.0.1): this table's betting runs on the "
     "station's countdown", "开始下注被拒绝（荷官，网页 127.0.0.1）：本桌由工作站倒计时控制下注"),
    ("reveal refused from dealer (key) (web 127.0.0.1): no card is waiting for its reveal",
     "开牌被拒绝（荷官（按键），网页 127.0.0.1）：没有等待开牌的牌"),
    ("banker cards revealed: the squeeze's 30 s were up", "咪牌30秒已到，庄家的牌自动开牌"),
    ("end of shoe asked for by upstream:pit/ann [c-4]: round 12 is the shoe's last",
     "远程 pit/ann [c-4] 请求结束牌靴：第12局为本牌靴最后一局"),
    ("end shoe refused from upstream:pit [c-5]: the burn is not done; ask again once it is",
     "结束牌靴被拒绝（远程 pit [c-5]）：烧牌尚未完成；完成后再请求"),
    ("something the station says later", "something the station says later"),
])
def test_notice_words(en: str, zh: str) -> None:
    assert notice_zh(en) == zh


# --- secrecy: a twin table dealt other cards face down shows the same bytes ----------------
def _dealt_by(events: list[InputEvent], rules: TableRules) -> list[tuple[Station, list[int]]]:
    """After each event, the station (replayed afresh) and which events' reads are the cards
    still face down at that moment."""
    station = Station(rules)
    dealt: list[int] = []  # event index of each card in the round, in hand order
    out = []
    for i, ev in enumerate(events):
        before = len(station.dealing.player) + len(station.dealing.banker)
        round_no = station.dealing.round_no
        station.apply(ev)
        d = station.dealing
        if d.round_no != round_no:
            dealt = []
        if len(d.player) + len(d.banker) > before:
            dealt.append(i)
        hidden = []
        order = _hand_order(d.player, d.banker)
        for hand, pos, idx in zip(*order, dealt, strict=False):
            if pos >= len(d.visible(hand)):
                hidden.append(idx)
        out.append((station, hidden))
    return out


def _hand_order(player: list[Any], banker: list[Any]) -> tuple[list[str], list[int]]:
    """The hand and position of each card in the order the tableau deals them."""
    hands = ["player", "banker", "player", "banker"][: min(4, len(player) + len(banker))]
    pos = [0, 0, 1, 1][: len(hands)]
    if len(player) == 3:
        hands.append("player")
        pos.append(2)
    if len(banker) == 3:
        hands.append("banker")
        pos.append(2)
    return hands, pos


def _other(code: str, rng: random.Random, read: Counter[str]) -> str:
    """A card of another value (so the totals differ too) that the 8-deck shoe still holds."""
    value = parse_card(code).value
    other = rng.choice([c for c in CODES if parse_card(c).value != value and read[c] < 8])
    read[other] += 1
    return other


def views_along(events: list[InputEvent], rules: TableRules, upto: int) -> bytes:
    station = Station(rules)
    viewer = Viewer(station)
    view: dict[str, Any] = {}
    for ev in events[: upto + 1]:
        view = viewer.show(station.apply(ev))
    return orjson.dumps(view)


@pytest.mark.parametrize(("name", "seed"), [("squeeze-timer", 3), ("vip", 4),
                                            ("squeeze-players", 5)])
def test_a_view_is_the_same_whatever_the_face_down_cards_are(name: str, seed: int) -> None:
    faults = (Fault("double", card=30), Fault("not_due", after_round=4), Fault("lost", card=50),
              Fault("double", card=70))
    run = run_table(name, seed, faults)
    rules = run.station.rules
    rng = random.Random(seed)
    moments = [(i, hidden) for i, (_, hidden) in enumerate(_dealt_by(run.events, rules))
               if hidden]
    assert len(moments) > 50
    for i, hidden in rng.sample(moments, count(25)):
        twin = list(run.events)
        read = Counter(ev.code for ev in run.events[: i + 1] if isinstance(ev, CardRead))
        for idx in hidden:
            ev = twin[idx]
            assert isinstance(ev, CardRead)
            twin[idx] = dataclasses.replace(ev, code=_other(ev.code, rng, read))
        # A double read of a hidden card is the same card read twice: changed alike.
        for j in range(i + 1):
            ev = run.events[j]
            if isinstance(ev, CardRead) and j not in hidden:
                for idx in hidden:
                    orig = run.events[idx]
                    assert isinstance(orig, CardRead)
                    twin_read = twin[idx]
                    assert isinstance(twin_read, CardRead)
                    if ev.code == orig.code and 0 < ev.ts - orig.ts < 1.0:
                        twin[j] = dataclasses.replace(ev, code=twin_read.code)
        assert views_along(twin, rules, i) == views_along(run.events, rules, i), (i, hidden)


# --- random tables: a button offered is taken, one not offered is refused with its reason ---
ACTIONS = ("new_shoe", "open_betting", "close_betting", "reveal", *VIP_ACTIONS)
# A seeded random walk: long enough that runs of skips reach the VIP limit, shoes pass the
# rounds a new shoe may be asked for after, and every request meets every phase.
STEPS = [*ACTIONS, "resume", "resume", "skip", "card", "card", "card", "card", "card", "card",
         "timer", "timer"]


@pytest.mark.parametrize("seed", range(24))
def test_a_button_is_offered_exactly_when_the_station_takes_it(seed: int) -> None:
    walk = random.Random(seed)
    betting = ("dealer", "timer")[seed % 2]
    steps = [walk.choice(STEPS) for _ in range(400)]
    rules = TableRules(mode="vip", betting=betting, betting_s=5.0, max_skips=2,
                       new_shoe_after=2)
    station = Station(rules)
    shoe = iter(next(random_shoes(seed, 1, 8)))
    now = START
    for step in steps:
        now += 2.0
        if step == "card":
            code = next(shoe, "5S")
            if code == "CUT":
                continue
            station.apply(CardRead(code, "scanner", now))
            continue
        if step == "timer":
            if station.deadlines:
                name = min(station.deadlines, key=station.deadlines.__getitem__)
                now = max(now, station.deadlines[name])
                station.apply(TimerExpired(name, now))
            continue
        offered = mode_actions(station, actions_for(station.phase))
        predicted = vip_refusal(station, step) if step in VIP_ACTIONS else None
        actor = "someone (web 127.0.0.1)"
        notices = notices_of(station.apply(Command(step, actor, now)))
        refused = [n for n in notices if " refused from " in n]
        assert bool(refused) == (step not in offered), (step, station.phase, notices)
        if step in VIP_ACTIONS:
            want = [] if predicted is None else [
                f"{step.replace('_', ' ')} refused from {actor}: {predicted}"]
            assert refused == want


def test_a_vip_request_that_is_not_one_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="not a VIP request"):
        vip_refusal(Station(TableRules(mode="vip")), "dance")
    assert modeview.ALERTS.keys() == {"dealer_requested", "new_shoe_late"}


# --- why the shoe ends (issue 30, item 8) ---------------------------------------------------
def test_a_vip_new_shoe_asked_for_mid_deal_says_the_player_asked_not_the_cut_card() -> None:
    """A new shoe the VIP player asks for mid-deal makes the round the last with no cut card
    out: the instruction, its Chinese and the view say the player asked for it."""
    t = Table(mode="vip", new_shoe_after=0)
    t.new_shoe()
    t.round("2S")
    t.cmd("request_new_shoe", "alice (web 127.0.0.1)")
    assert t.station.modes.new_shoe_requested and t.station.dealing.last_round
    prompt = t.station.prompt
    assert prompt.detail == "ROUND 1 - NEW SHOE asked for by the player: this round is the last"
    assert "CUT CARD" not in prompt.line()
    assert prompt.said_detail is not None
    assert render(prompt.said_detail, "zh-Hans") == "第1局 - 玩家已请求新牌靴：本局为最后一局"
    view = build_view(t.station, prompt, ShoeHistory(), [], AROUND)
    assert view["shoe"]["cut_card_out"] is False
    assert view["shoe"]["last_round_why"] == "player"
    assert view["prompt"]["zh"]["detail"] == "第1局 - 玩家已请求新牌靴：本局为最后一局"
    # The cut card coming out as well changes nothing: the player ended the shoe first.
    t.cut()
    assert t.station.prompt.detail == prompt.detail
    # On a table where only the cut card is out, the view says so.
    c = Table()
    c.new_shoe()
    c.round("2S")
    c.cut()
    cut = build_view(c.station, c.station.prompt, ShoeHistory(), [], AROUND)
    assert cut["shoe"]["last_round_why"] == "cut_card"
    assert "CUT CARD OUT: this round is the last" in c.station.prompt.detail
    fresh = Table()
    fresh.new_shoe()
    none = build_view(fresh.station, fresh.station.prompt, ShoeHistory(), [], AROUND)
    assert none["shoe"]["last_round_why"] is None
