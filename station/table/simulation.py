"""Drive a ``Station`` with a ``SimulatedDealer`` as fast as the code allows.

The dealer answers whatever the display asks for; each of its events goes to the recorder
first (append before apply, as the daemon does) and then to the station.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from drivers.events import InputEvent, TimerExpired
from drivers.simulated import Due, SimulatedDealer
from station.table.machine import Phase
from station.table.outputs import Output, Published
from station.table.station import Station

DUE: dict[Phase, Due] = {
    Phase.NO_SHOE: Due.NEW_SHOE,
    Phase.SHUFFLE_CHECK: Due.SHUFFLE_CHECK,
    Phase.SHOE_CLOSED: Due.NEW_SHOE,
    Phase.BURN_INDICATOR: Due.CARD,
    Phase.BURNING: Due.CARD,
    Phase.BETWEEN_ROUNDS: Due.OPEN_BETTING,
    Phase.BETTING_OPEN: Due.CLOSE_BETTING,
    Phase.PLAYER_1: Due.CARD,
    Phase.BANKER_1: Due.CARD,
    Phase.PLAYER_2: Due.CARD,
    Phase.BANKER_2: Due.CARD,
    Phase.PLAYER_3: Due.CARD,
    Phase.BANKER_3: Due.CARD,
    Phase.PAUSED: Due.PAUSED,
    Phase.REVEAL: Due.REVEAL,
}

# By the machine's state string: the loop reads it twice per step.
_DUE_BY_STATE: dict[str, Due] = {p.value: due for p, due in DUE.items()}
_PAUSED = Phase.PAUSED.value



@cache  # the daemon asks after every event: one table per betting mode, built once
def due_table(betting: str) -> dict[str, Due]:
    """What the display asks of the people at the table in each machine state, by the
    table's betting mode too: with the station's countdown, nobody opens or closes betting."""
    if betting != "timer":
        return _DUE_BY_STATE
    return {state: Due.WAIT if due in (Due.OPEN_BETTING, Due.CLOSE_BETTING) else due
            for state, due in _DUE_BY_STATE.items()}


def due_of(station: Station) -> Due:
    return due_table(station.rules.betting)[station.dealing.state]


# A supervisor whose action leaves the table paused this many times in a row gives up, so a
# pause no action can clear ends the simulation instead of looping.
MAX_FUTILE_SUPERVISOR_ACTIONS = 3


@dataclass(slots=True)
class SimulationEnd:
    rounds: int = 0
    voids: int = 0
    events: int = 0
    final_phase: Phase = Phase.NO_SHOE
    pause_reason: str = ""
    exhausted_mid_round: bool = False
    notes: list[str] = field(default_factory=list)


def simulate(
    station: Station,
    dealer: SimulatedDealer,
    on_outputs: Callable[[list[Output]], None] | None = None,
    record: Callable[[InputEvent], None] | None = None,
) -> SimulationEnd:
    """Run until the dealer has nothing more to do; return how it ended."""
    station.prepare()  # every table built before the first round, as in the daemon
    end = SimulationEnd()
    futile = 0
    dealing = station.dealing
    timed = station.modes.active
    deadlines = station.deadlines
    dues = due_table(station.rules.betting)

    def apply(event: InputEvent) -> None:
        if record is not None:
            record(event)
        outputs = station.apply(event)
        end.events += 1
        if outputs:
            for o in outputs:
                if type(o) is Published:
                    if o.record["status"] == "complete":
                        end.rounds += 1
                    else:
                        end.voids += 1
            if on_outputs is not None:
                on_outputs(outputs)

    def fire_due(before: float) -> None:
        # Virtual time: each deadline falls due at its own time, ahead of any later event.
        while deadlines:
            if len(deadlines) == 1:  # the usual case: one deadline at a time
                (name, at), = deadlines.items()
            else:
                name = min(deadlines, key=deadlines.__getitem__)
                at = deadlines[name]
            if at > before:
                return
            dealer.now = max(dealer.now, at)
            apply(TimerExpired(name, at))

    while True:
        state = dealing.state
        if timed:
            dealer.round_no = dealing.round_no
            steps = dealer.steps(dues[state])
            if not steps and deadlines:
                fire_due(min(deadlines.values()) if len(deadlines) > 1 else
                         next(iter(deadlines.values())))  # nobody acts: the next deadline does
                continue
        else:
            steps = dealer.steps(_DUE_BY_STATE[state])
        if not steps:
            break
        for _, event in steps:
            if timed and deadlines:
                fire_due(event.ts)
            apply(event)
        if state == _PAUSED and dealing.state == _PAUSED:
            futile += 1
            if futile >= MAX_FUTILE_SUPERVISOR_ACTIONS:
                end.notes.append("the simulated supervisor could not clear the pause")
                break
        else:
            futile = 0
    end.final_phase = station.phase
    if end.final_phase is Phase.PAUSED:
        end.pause_reason = "; ".join(station.dealing.pause_reasons)
    end.exhausted_mid_round = dealer.exhausted_mid_round
    return end
