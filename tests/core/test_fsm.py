"""``LeanMachine`` behaves exactly as the library's ``Machine`` on the same table.

The station's machine drops the library's per-trigger logging and bookkeeping (station.table.fsm);
these tests run the same events through a station on each and demand the same outputs and the
same state after every event, and pin the library behaviours the lean methods keep: table
order, conditions, internal transitions, enter/exit and final callbacks, invalid triggers.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test
from transitions import Machine, MachineError

from station.table.fsm import LeanMachine
from station.table.machine import TRANSITIONS, Dealing
from station.table.outputs import Published
from station.table.station import Station
from tests.core.test_properties import RandomTable
from tests.sampling import examples


class PlainDealing(Dealing):
    """The library's machine on the whole table, the squeeze rows included on a face-up
    table too (where the station's machine leaves them out)."""

    machine_cls = Machine

    @staticmethod
    def transitions_for(face_down: bool) -> list[dict[str, Any]]:
        return TRANSITIONS


def _facts(station: Station) -> tuple[Any, ...]:
    d = station.dealing
    return (d.state, d.round_no, d.round_open, d.last_round, d.cut_seen, d.burn_left,
            d.paused_from, list(d.pause_reasons), list(d.pause_actions), d.close_on_resume,
            [c.code for c in d.player], [c.code for c in d.banker], station.prompt)


class TwinTable(RandomTable):
    """The random table, dealt to a lean station and to one on the library's Machine."""

    def __init__(self) -> None:
        super().__init__()
        rules = self.station.rules
        self.twin = Station(rules)
        self.twin.dealing = PlainDealing(rules.table, rules.decks,
                                         rules.cut_card_between_rounds)
        assert type(self.station.dealing.machine) is LeanMachine
        assert len(self.twin.dealing.machine.get_transitions("card_read")) == len(
            self.station.dealing.machine.get_transitions("card_read")) + 3

    def send(self, event: Any) -> None:
        expected = self.twin.apply(event)
        got = self.station.apply(event)
        self.records.extend(o.record for o in got if isinstance(o, Published))
        assert got == expected, event
        assert _facts(self.station) == _facts(self.twin), event


def test_the_lean_machine_deals_any_event_sequence_as_the_library_machine() -> None:
    run_state_machine_as_test(
        TwinTable,
        settings=settings(max_examples=examples(60), stateful_step_count=60, deadline=None)
    )


class _Model:
    def __init__(self) -> None:
        self.log: list[str] = []
        self.ok = True

    def cond(self, x: int) -> bool:
        self.log.append(f"cond {x}")
        return self.ok

    def prep(self, x: int) -> None:
        self.log.append(f"prep {x}")

    def before(self, x: int) -> None:
        self.log.append(f"before {x}")

    def after(self, x: int) -> None:
        self.log.append(f"after {x}")

    def enter_b(self, x: int) -> None:
        self.log.append(f"enter b {x}")

    def exit_a(self, x: int) -> None:
        self.log.append(f"exit a {x}")

    def final(self, x: int) -> None:
        self.log.append(f"final {x}")


def _run(cls: type[Machine], steps: list[tuple[str, bool]]) -> list[Any]:
    model = _Model()
    cls(model=model, states=[{"name": "a", "on_exit": "exit_a"},
                             {"name": "b", "on_enter": "enter_b"},
                             {"name": "c", "final": True}],
        initial="a", auto_transitions=False, on_final="final",
        transitions=[
            {"trigger": "go", "source": "a", "dest": "b", "conditions": "cond",
             "prepare": "prep", "before": "before", "after": "after"},
            {"trigger": "go", "source": "a", "dest": None, "prepare": "prep",
             "before": "before"},
            {"trigger": "go", "source": "b", "dest": "c", "unless": "cond", "after": "after"},
            {"trigger": "go", "source": "b", "dest": "a"},
            {"trigger": "stop", "source": "b", "dest": "a"},
        ])
    seen: list[Any] = []
    for n, (trigger, ok) in enumerate(steps):
        model.ok = ok
        try:
            seen.append(getattr(model, trigger)(n))
        except MachineError as exc:
            seen.append(exc.value)
        seen.append(model.state)  # type: ignore[attr-defined]
    return [*seen, *model.log]


@pytest.mark.parametrize("steps", [
    [("go", True), ("go", True), ("go", False), ("stop", True)],
    [("go", False), ("stop", True), ("go", True), ("stop", True), ("go", True)],
    [("go", True), ("go", False), ("go", True), ("stop", True)],
])
def test_the_lean_machine_keeps_the_library_semantics(steps: list[tuple[str, bool]]) -> None:
    expected = _run(Machine, steps)
    assert _run(LeanMachine, steps) == expected


def test_the_semantics_compared_include_every_hook_and_a_refused_trigger() -> None:
    seen = _run(Machine, [("stop", True), ("go", True), ("go", False)])
    assert seen[:2] == ["Can't trigger event stop from state a!", "a"]
    assert {"prep 1", "cond 1", "exit a 1", "before 1", "enter b 1", "after 1", "cond 2",
            "after 2", "final 2"} <= set(seen)


@pytest.mark.parametrize("option", ["queued", "send_event", "before_state_change",
                                    "after_state_change", "prepare_event", "finalize_event",
                                    "on_exception"])
def test_the_lean_machine_refuses_options_whose_work_it_skips(option: str) -> None:
    value: Any = True if option in ("queued", "send_event") else "f"
    with pytest.raises(ValueError, match=option):
        LeanMachine(model=_Model(), states=["a"], initial="a", **{option: value})
