"""Every pause stops every countdown, whatever raised it (docs/modes.md "Pauses from anywhere
stop the countdowns"): the repeated-shoe alarm too; a timer event while paused changes
nothing; the new-shoe alarm is raised once."""

from __future__ import annotations

from typing import Any

import pytest

from drivers.events import CardRead, Command, InputEvent, TimerExpired
from drivers.simulated import Player, SimulatedDealer, random_shoes
from station.table.outputs import Announced, Output, Published
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules


@pytest.mark.parametrize(("mode", "betting"), [("squeeze", "timer"), ("vip", "dealer")])
def test_the_repeated_shoe_pause_stops_the_countdowns(mode: str, betting: str) -> None:
    shoe = next(random_shoes(3, 1))
    station = Station(TableRules(mode=mode, betting=betting, reveal_s=5.0, open_cards_s=5.0))
    # The players let every deadline reveal, so deadlines are set when the alarm comes.
    dealer = SimulatedDealer(iter([shoe, list(shoe)]), supervisor="resume",
                             player=Player(reveal="timer"))
    apply = station.apply
    paused_outputs: list[Output] = []
    alarms: list[dict[str, Any]] = []

    def watched(ev: InputEvent) -> list[Output]:
        out = apply(ev)
        if station.dealing.state == "paused":
            reasons = station.dealing.pause_reasons
            if any(r.startswith("repeated shoe") for r in reasons):
                alarms.append({"deadlines": dict(station.deadlines), "reasons": list(reasons)})
                if isinstance(ev, TimerExpired):
                    paused_outputs.extend(out)
        return out

    station.apply = watched  # type: ignore[method-assign,assignment]
    end = simulate(station, dealer)
    assert alarms, "the second shoe repeats the first: the alarm must fire"
    assert all(a["deadlines"] == {} for a in alarms), alarms[0]
    # Nothing is revealed while the table is paused for the supervisor.
    assert not [o for o in paused_outputs if isinstance(o, Announced | Published)]
    # The earlier shoe is not named on a face-down table (its cards are known upstream).
    assert all("match an earlier shoe (named in the journal)" in a["reasons"][0]
               for a in alarms), alarms[0]["reasons"]
    assert end.rounds > 100 and end.final_phase.value == "shoe_closed"


def test_a_timer_event_while_paused_changes_nothing() -> None:
    station = Station(TableRules(mode="squeeze"))
    events: list[InputEvent] = [
        Command("new_shoe", "d", 1.0), CardRead("AS", "s", 2.0), CardRead("2S", "s", 3.0),
        Command("open_betting", "d", 4.0), Command("close_betting", "d", 5.0),
        *(CardRead(c, "s", 6.0 + i) for i, c in enumerate(["4H", "5C", "6D", "7S"]))]
    for ev in events:
        station.apply(ev)
    assert station.phase.value == "reveal" and "reveal" in station.deadlines
    station.apply(CardRead("8C", "s", 20.0))  # drawn before the reveal: a pause
    assert station.phase.value == "paused" and station.deadlines == {}
    out = station.apply(TimerExpired("reveal", 10_000.0))
    assert station.phase.value == "paused"
    assert [type(o).__name__ for o in out] == ["Notice"]
    station.apply(Command("resume", "supervisor", 10_001.0))
    assert station.dealing.state == "reveal"
    assert station.deadlines == {"reveal": 10_001.0 + 30.0}  # in full from the resume


def test_the_new_shoe_alarm_is_raised_once_even_across_a_pause() -> None:
    rules = TableRules(mode="vip", new_shoe_after=1, new_shoe_s=60.0)
    station = Station(rules)
    dealer = SimulatedDealer(random_shoes(1, 1), supervisor="resume")
    outs: list[Output] = []

    def ask_after_round_one(outputs: list[Output]) -> None:
        outs.extend(outputs)

    # One round, then the request closes the shoe between rounds.
    dealer_steps = dealer.steps
    asked = False

    def steps(due: Any) -> Any:
        nonlocal asked
        if station.dealing.round_no == 1 and station.phase.value == "between_rounds" \
                and not asked:
            asked = True
            return [(0.0, Command("request_new_shoe", "player:ann", dealer.now + 1))]
        if station.phase.value == "shoe_closed":
            return []
        return dealer_steps(due)

    dealer.steps = steps  # type: ignore[method-assign]
    simulate(station, dealer, ask_after_round_one)
    assert station.phase.value == "shoe_closed" and station.modes.new_shoe_late
    t = dealer.now + 10
    for ev in (CardRead("9H", "s", t), Command("resume", "supervisor", t + 1)):
        outs.extend(station.apply(ev))  # a card drawn from the closed shoe, then resumed
    assert station.phase.value == "shoe_closed" and station.deadlines == {}
    alerts = [o.message for o in outs if isinstance(o, Announced)
              and o.message.get("alert") == "new_shoe_late"]
    assert len(alerts) == 1
