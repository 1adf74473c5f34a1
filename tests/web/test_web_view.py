"""The page's view of the station (station/web/view.py, words.py): pure, so tested without
a server. Every view of whole simulated shoes is checked against the station it came from."""

# ruff: noqa: RUF001 - the Chinese wording uses full-width punctuation
from __future__ import annotations

import re
from typing import Any

import orjson
import pytest

from drivers.events import Command
from drivers.simulated import Fault, Pace, SimulatedDealer, random_shoes
from station.journal.codec import decode_event, encode_event
from station.table.machine import Phase
from station.table.msg import Msg, msg
from station.table.outputs import Notice, Output, Prompt, RefusedOutside
from station.table.simulation import simulate
from station.table.station import REFUSED_OUTSIDE, Station, refused_parts
from station.table.tablerules import TableRules
from station.web.catalogue import render
from station.web.view import (
    ShoeHistory,
    Surroundings,
    actions_for,
    build_view,
    notices_of,
    procedure_actions,
    split_pause,
    without_figures,
)
from station.web.words import action_zh
from tests.tablekit import Table

AROUND = Surroundings("t1", "zh", True, "file", None, ("sim-shoe",))
FAULTS = (Fault("garbled", card=40), Fault("not_due", after_round=5), Fault("lost", card=90),
          Fault("cut", card=120), Fault("double", card=60))
ENGLISH = re.compile(r"\b(DEAL|ROUND|BURN|BETTING|SHOE|PLAYER|BANKER|draws|round|player|"
                     r"banker|supervisor|shown|VOID|WINS|TIE)\b")


def views_of_a_simulation(supervisor: str, seed: int) -> list[tuple[dict[str, Any], Station]]:
    station = Station(TableRules(decks=8))
    dealer = SimulatedDealer(random_shoes(seed, 2, 8), FAULTS, pace=Pace(),
                             supervisor=supervisor, start_ts=1_800_000_000.0)
    history = ShoeHistory()
    notices: list[str] = []
    seen: list[tuple[dict[str, Any], Station]] = []
    prompt = station.prompt

    def on_outputs(outputs: list[Output]) -> None:
        nonlocal prompt
        for o in outputs:
            if isinstance(o, Prompt):
                prompt = o
        notices.extend(notices_of(outputs))
        history.add(outputs)
        view = build_view(station, prompt, history, notices, AROUND)
        check_view(view, station)
        seen.append((view, station))

    simulate(station, dealer, on_outputs)
    return seen


def check_view(view: dict[str, Any], station: Station) -> None:
    orjson.dumps(view)  # JSON as it is
    d = station.dealing
    p = view["prompt"]
    assert p["text"] == station.prompt.text and p["detail"] == station.prompt.detail
    assert view["phase"] == station.phase.value
    assert view["paused"] == (station.phase is Phase.PAUSED)
    assert view["round"]["player"] == [c.code for c in d.player]
    assert view["round"]["banker"] == [c.code for c in d.banker]
    if d.shoe is not None and view["shoe"] is not None:
        assert view["shoe"]["drawn"] + view["shoe"]["left"] == 8 * 52
    # Less what the station would refuse now (a device still lost, issue 30), said instead.
    refused = {a for a in ("resume", "void") if station.refused_while_lost(a) is not None
               and station.phase.value == "paused"}
    assert view["actions"] == [a for a in actions_for(station.phase) if a not in refused] + \
        procedure_actions(station.phase, view["paused"])
    assert set(view["refused_now"]) == refused
    zh = p["zh"]
    if not p["paused"]:
        # Every instruction the station gives outside a pause is translated whole.
        assert not ENGLISH.search(zh["text"]), zh["text"]
        assert not ENGLISH.search(zh["detail"]), zh["detail"]
        assert p["kind"] == ("third_card" if station.phase in (Phase.PLAYER_3, Phase.BANKER_3)
                             else p["kind"])
    else:
        assert p["reason"] and p["todo"].endswith("call supervisor")
        assert not ENGLISH.search(zh["detail"]), zh["detail"]
        assert "请呼叫主管" in zh["todo"]


@pytest.mark.parametrize(("supervisor", "seed"), [("resume", 1), ("void", 2)])
def test_every_view_of_two_shoes_matches_the_station(supervisor: str, seed: int) -> None:
    views = views_of_a_simulation(supervisor, seed)
    kinds = {v["prompt"]["kind"] for v, _ in views}
    assert {"third_card", "pause", "betting", "deal", "table"} <= kinds
    assert any(v["prompt"]["detail"].count("draws on player third card") for v, _ in views)
    rounds = [v["results"] for v, _ in views if v["results"]]
    assert rounds, "no round was published"


def test_split_pause_takes_the_stations_wording_apart() -> None:
    t = Table()
    t.new_shoe()
    t.card("5H")  # between rounds: not due
    assert t.station.prompt.paused
    reason, todo = split_pause(t.station.prompt.text)
    assert reason == "card not due: 5H (no round is open)"
    assert todo == "set it aside; call supervisor"
    assert action_zh(todo) == "将此牌放在一旁；请呼叫主管"


@pytest.mark.parametrize(("phase", "actions"), [
    (Phase.NO_SHOE, ["new_shoe"]), (Phase.SHOE_CLOSED, ["new_shoe"]),
    (Phase.BETWEEN_ROUNDS, ["open_betting"]), (Phase.BETTING_OPEN, ["close_betting"]),
    (Phase.PLAYER_1, []), (Phase.BANKER_3, []), (Phase.BURNING, []),
    (Phase.PAUSED, ["resume", "void"]),
])
def test_the_buttons_are_those_the_machine_takes(phase: Phase, actions: list[str]) -> None:
    assert actions_for(phase) == actions


def test_a_button_not_offered_is_refused_by_the_station() -> None:
    t = Table()
    for step in (lambda: None, t.new_shoe, lambda: t.cmd("open_betting"),
                 lambda: t.cmd("close_betting"), lambda: t.card("2S")):
        step()
        offered = actions_for(t.station.phase)
        for action in ("new_shoe", "open_betting", "close_betting"):
            if action in offered:
                continue
            before = t.phase
            out = t.cmd(action)
            assert any("refused" in n for n in notices_of(out)), (before, action)
            assert t.phase == before


def test_history_follows_the_shoe_and_its_roads() -> None:
    t = Table()
    history = ShoeHistory()
    t.new_shoe()
    assert history.new_shoe(t.station.dealing.shoe.shoe_id)  # type: ignore[union-attr]
    v0 = history.version
    t.cmd("open_betting")
    t.cmd("close_betting")
    out = t.outputs[:]
    t.cards("2S", "3S", "4S", "5S")  # player 6 stands, banker 8: banker wins
    assert history.add(t.outputs[len(out):])
    assert history.version == v0 + 1
    assert [r["round"] for r in history.records] == [1]
    assert 'class="bead banker"' in history.svg
    assert not history.add([])
    t.cmd("end_shoe")
    t.new_shoe()
    assert history.new_shoe(t.station.dealing.shoe.shoe_id)  # type: ignore[union-attr]
    assert history.records == [] and 'class="bead' not in history.svg


_CUT = msg("round.last", why=msg("last.cut_card"))
_TAG4 = msg("round.tag", n=4, last="", skipped="")


@pytest.mark.parametrize(("said", "en", "zh"), [
    (msg("prompt.deal", hand=msg("hand.player"), n=2, down=""), "DEAL PLAYER CARD 2",
     "派闲家第2张牌"),
    (msg("prompt.third", hand=msg("hand.banker"), down=""), "DEAL BANKER THIRD CARD",
     "庄家补第三张牌"),
    (msg("prompt.burn_more", n=3), "BURN 3 MORE FACE DOWN", "再烧3张牌（牌面朝下）"),
    (msg("prompt.open_betting", n=7, last=_CUT),
     "ROUND 7: OPEN BETTING - CUT CARD OUT: this round is the last",
     "第7局：开始下注 - 切牌已出：本局为最后一局"),
    (msg("prompt.shoe_closed", after=msg("shoe.after_round", n=60)),
     "SHOE CLOSED after round 60: discard the rest, start a NEW SHOE",
     "第60局后牌靴结束：弃掉余牌，开始新牌靴"),
])
def test_prompt_words(said: Msg, en: str, zh: str) -> None:
    assert render(said, "en") == en
    assert render(said, "zh-Hans") == zh


def test_detail_words() -> None:
    on = msg("why.banker_draws_on", total=4, third=7, on=msg("why.draws_on", values="2,3,4,5,6,7"))
    for said, en, zh in (
        (msg("detail.tagged", tag=_TAG4, what=on),
         "ROUND 4: banker 4 draws on player third card 7 (draws on 2,3,4,5,6,7)",
         "第4局：庄家4点，闲家第三张牌为7，庄家补牌（2,3,4,5,6,7时补）"),
        (msg("detail.tagged", tag=_TAG4, what=msg("why.player_draws", total=3)),
         "ROUND 4: player 3 draws", "第4局：闲家3点，补牌"),
        (msg("detail.result", n=3, p=9, b=5, head=msg("head.player")),
         "round 3: PLAYER 9 BANKER 5, PLAYER WINS", "第3局：闲9点 庄5点，闲赢"),
    ):
        assert (render(said, "en"), render(said, "zh-Hans")) == (en, zh)


_TAG2 = msg("round.tag", n=2, last="", skipped="")
_LATE = msg("prompt.shoe_closed_player", after=msg("shoe.after_round", n=12),
            late=msg("late.within", d=msg("duration.s", s=15)))


@pytest.mark.parametrize(("said", "en", "live", "zh", "zh_live"), [
    (msg("prompt.betting_open", n=1, how=msg("how.timer", s=15.0)),
     "ROUND 1: BETTING OPEN - do not deal; betting closes by itself in 15 s",
     "ROUND 1: BETTING OPEN - do not deal; betting closes by itself when the countdown "
     "ends",
     "第1局：下注中 - 请勿派牌；15秒后自动停止下注",
     "第1局：下注中 - 请勿派牌；倒计时结束自动停止下注"),
    (msg("detail.tagged", tag=_TAG2, what=msg("how.squeeze", s=30.0)),
     "ROUND 2: the player squeezes, or press REVEAL; revealed by itself after 30 s",
     "ROUND 2: the player squeezes, or press REVEAL; revealed by itself when the countdown "
     "ends",
     "第2局：玩家咪牌，或按“开牌”；30秒后自动开牌",
     "第2局：玩家咪牌，或按“开牌”；倒计时结束自动开牌"),
    (msg("detail.tagged", tag=_TAG2, what=msg("how.vip_reveal", s=60.0)),
     "ROUND 2: the player opens the cards, or press REVEAL; the system opens them 60 s after "
     "betting closed", "ROUND 2: the player opens the cards, or press REVEAL; the system opens "
     "them when the countdown ends",
     "第2局：由玩家开牌，或按“开牌”；停止下注60秒后系统自动开牌",
     "第2局：由玩家开牌，或按“开牌”；倒计时结束系统自动开牌"),
    (_LATE,
     "SHOE CLOSED after round 12: the player asked for a new shoe - discard the rest, start a "
     "NEW SHOE (within 15 s)", "SHOE CLOSED after round 12: the player asked for a new "
     "shoe - discard the rest, start a NEW SHOE",
     "第12局后牌靴结束：玩家请求新牌靴 - 弃掉余牌，开始新牌靴（请在15秒内）",
     "第12局后牌靴结束：玩家请求新牌靴 - 弃掉余牌，开始新牌靴"),
])
def test_one_countdown_per_timer(said: Msg, en: str, live: str, zh: str, zh_live: str) -> None:
    """Beside a live countdown the page's instruction leaves the timer's own figure out."""
    bare = without_figures(said)
    assert isinstance(bare, Msg)
    assert (render(said, "en"), render(bare, "en")) == (en, live)
    assert (render(said, "zh-Hans"), render(bare, "zh-Hans")) == (zh, zh_live)


def _view(t: Table) -> dict[str, Any]:
    history = ShoeHistory()
    history.add(t.outputs)
    return build_view(t.station, t.station.prompt, history, [], AROUND)


def test_the_procedures_in_the_view() -> None:
    """HOLD is offered in every phase but a pause; CONFIRM SHUFFLE while the check is due,
    with the packs registered so far; where the cut card was, on a standard table too,
    though on none of its records (docs/display.md)."""
    t = Table(shuffle_check="supervisor", pack_prefix="PK-")
    assert _view(t)["actions"] == ["new_shoe", "pause"] and _view(t)["shuffle_check"] is None
    t.cmd("new_shoe")
    t.cards("PK-A1", "PK-B2")
    view = _view(t)
    assert view["actions"] == ["confirm_shuffle", "pause"]
    assert view["shuffle_check"] == {"packs": ["A1", "B2"]}
    t.card("AS")  # drawn before the confirmation: a pause, still in the check
    view = _view(t)
    assert view["actions"] == ["resume", "void"]
    assert view["shuffle_check"] == {"packs": ["A1", "B2"]}
    t.cmd("resume")
    t.cmd("confirm_shuffle")
    assert _view(t)["shuffle_check"] is None and "confirm_shuffle" not in _view(t)["actions"]
    standard = Table()
    standard.new_shoe()  # 2 burned
    standard.round("2S", "3S", "4S", "5S")
    assert _view(standard)["shoe"]["cut_card_at"] is None
    standard.cut()
    shoe = _view(standard)["shoe"]
    assert (shoe["cut_card_at"], shoe["penetration"]) == (6, round(6 / 416, 4))
    standard.round("6S", "7S", "8S", "9S")
    records = [o.record for o in standard.outputs if hasattr(o, "record")]
    assert records and not any("cut_card_at" in r for r in records)


# --- a refusal made before the station, in the page's words (issue 30, item 11) -------------
@pytest.mark.parametrize(("reason", "figure", "en", "zh"), [
    ("wrong_pin", 4, "CONFIRM SHUFFLE refused: wrong PIN, 4 tries left",
     "确认洗牌被拒绝：密码错误，还可尝试 4 次"),
    ("wrong_pin", 1, "CONFIRM SHUFFLE refused: wrong PIN, 1 try left",
     "确认洗牌被拒绝：密码错误，还可尝试 1 次"),
    ("locked_out", 60, "CONFIRM SHUFFLE refused: PINs locked for 60 s",
     "确认洗牌被拒绝：密码已锁定 60 秒"),
    ("no_pins", None, "CONFIRM SHUFFLE refused: no supervisor PIN is set on this station",
     "确认洗牌被拒绝：本工作站尚未设置主管密码"),
])
def test_a_refused_pin_is_worded_from_its_parts_through_the_journal(
        reason: str, figure: int | None, en: str, zh: str) -> None:
    """The server journals the refusal's parts with its line; the station, live or replayed
    from the journal's bytes, hands them on, and the view words them: no command code, no
    journal line, in the page's language."""
    line = f"supervisor (web 127.0.0.1): confirm_shuffle refused (whatever the pins said {reason})"
    ev = decode_event(encode_event(Command(REFUSED_OUTSIDE, line, 1_800_000_000.0,
                                           code=refused_parts("confirm_shuffle", reason, figure))))
    for lang, said in (("en", en), ("zh", zh)):
        t = Table()
        outputs = t.send(ev)
        notices = [o for o in outputs if isinstance(o, Notice)]
        assert [type(n) for n in notices] == [RefusedOutside]
        view = build_view(t.station, t.station.prompt, ShoeHistory(), notices,
                          Surroundings("t1", lang, True, "file", None, ()))
        assert view["notices"] == [line]  # the journal's and the API's line, as it was
        assert view["notices_page"] == [said]
        assert "confirm_shuffle" not in said
    # A journal written before the parts were carried: the line, as before.
    old = Table()
    old.send(Command(REFUSED_OUTSIDE, line, 1_800_000_000.0))
    assert old.notices == [line]
