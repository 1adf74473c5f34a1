"""``transitions`` in its cheapest configuration for one model and no machine-wide callbacks.

A trigger of a plain ``transitions.Machine`` spends about a third of its time on work this
station never uses (profiled with cProfile on ``station simulate``): about twelve calls to
the library's DEBUG and INFO loggers per trigger, which are off (``station run`` sets them to
WARNING), a ``functools.partial`` and a queue check per trigger, empty machine-wide callback
lists walked several times, state enter/exit hooks with no callbacks, and a look-up of the
state by name before and after each change.

``LeanMachine`` keeps the library's dispatch and its objects (``Event``, ``Transition``,
``Condition``, ``EventData``, ``MachineError``, the model binding, the diagram) and replaces,
through the library's own extension points (``event_cls``, ``transition_cls``), only the
two per-trigger methods that hold that work (``Event.trigger``, ``Transition.execute``, each
doing inline the steps of the library methods it would call), with versions that do the same
steps without it: the transitions of the model's state are tried in table order; each runs its
``prepare`` callbacks and checks its conditions; the first whose conditions all hold runs its
``before`` callbacks, changes state (unless internal: the state's exit and the destination's
enter callbacks, if any, run as in the library) and runs its ``after`` callbacks; a trigger
the state does not take raises ``MachineError``. It refuses, at construction, the options
whose work those versions skip (machine-wide callbacks, ``queued``, ``send_event``, enum
states), so the two can never disagree; ``tests/core/test_fsm.py`` runs random event sequences
through both and compares.
"""

from __future__ import annotations

from typing import Any

from transitions import Event, EventData, Machine, Transition


class LeanTransition(Transition):
    def execute(self, event_data: EventData) -> bool:
        # Callbacks given as callables (the station binds its own) need no resolving; a name
        # is resolved on the model as the library does.
        args, kwargs = event_data.args, event_data.kwargs
        resolve = Machine.resolve_callable
        for func in self.prepare:
            (resolve(func, event_data) if isinstance(func, str) else func)(*args, **kwargs)
        for cond in self.conditions:
            func = cond.func
            if (resolve(func, event_data) if isinstance(func, str) else func)(*args, **kwargs
                                                                          ) != cond.target:
                return False
        for func in self.before:
            (resolve(func, event_data) if isinstance(func, str) else func)(*args, **kwargs)
        dest_name = self.dest
        if dest_name:  # None: an internal transition, no state change
            # _change_state's steps, inline (a frame less on every trigger).
            machine = event_data.machine
            states = machine.states
            source = states[self.source]
            if source.on_exit:
                source.exit(event_data)
            dest = states[dest_name]
            # The assignment Machine.set_state makes, for the one model being triggered:
            # the state's value is its name, as states are strings (checked at construction).
            setattr(event_data.model, machine.model_attribute, dest_name)
            event_data.state = dest
            if dest.on_enter:
                dest.enter(event_data)
            if dest.final:
                machine.callbacks(machine.on_final, event_data)
        for func in self.after:
            (resolve(func, event_data) if isinstance(func, str) else func)(*args, **kwargs)
        return True


class LeanEvent(Event):
    def trigger(self, model: object, *args: Any, **kwargs: Any) -> bool:
        # No queue (refused at construction), so Machine._process would call at once; the
        # steps of ``_trigger`` inline (a frame less on every trigger).
        machine = self.machine
        event_data = EventData(None, self, machine, model, args, kwargs)
        name = getattr(model, machine.model_attribute)  # a string state's name
        state = event_data.state = machine.states[name]
        candidates = self.transitions.get(name)
        if candidates is None:
            return self._is_valid_source(state)
        for trans in candidates:
            event_data.transition = trans
            if trans.execute(event_data):
                event_data.result = True
                return True
        return False


class LeanMachine(Machine):
    """A ``transitions.Machine`` whose triggers skip work this configuration never needs."""

    transition_cls = LeanTransition
    event_cls = LeanEvent

    def __init__(self, **kwargs: Any) -> None:
        for option in ("queued", "send_event", "before_state_change", "after_state_change",
                       "prepare_event", "finalize_event", "on_exception"):
            if kwargs.get(option):
                raise ValueError(f"LeanMachine does not run {option}: use a plain Machine")
        super().__init__(**kwargs)
        if not all(isinstance(s.value, str) for s in self.states.values()):
            # Enum states are looked up by name, not by the value the model holds.
            raise ValueError("LeanMachine takes string states, not enum members")
