"""Properties over any shoe and any sequence of events (hypothesis).

The reference dealer here reads the literal tableau of tests/core/test_tableau.py, not
station.game.rules, so the machine is checked against the rule page, not against itself.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from drivers.events import (
    CardRead,
    Command,
    CutCardSeen,
    DeviceLost,
    DeviceRestored,
    TimerExpired,
)
from drivers.simulated import CODES, CUT, SimulatedDealer
from station.game.cards import parse_card
from station.table.machine import Phase
from station.table.outputs import Published
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules
from tests.core.test_tableau import banker_should_draw, player_should_draw
from tests.sampling import examples

FULL_SHOE = [c for c in CODES for _ in range(8)]


def value(code: str) -> int:
    return parse_card(code).value


def reference_rounds(tokens: list[str]) -> list[tuple[list[str], list[str]]]:
    """Deal a shoe by hand from the rule page: burn, then rounds until the cut card's round."""
    cards = [t for t in tokens if t != CUT]
    cut_at = tokens.index(CUT) if CUT in tokens else len(tokens) + 1  # cards before the cut
    first = parse_card(cards[0])
    if cut_at <= first.burn_count:
        return []  # the cut card is met during the burn: the station pauses (tested below)
    i = 1 + first.burn_count
    rounds = []
    while i + 4 <= len(cards):
        p, b = [cards[i], cards[i + 2]], [cards[i + 1], cards[i + 3]]
        i += 4
        pt, bt = sum(map(value, p)) % 10, sum(map(value, b)) % 10
        third = None
        if player_should_draw(pt, bt):
            if i >= len(cards):
                break
            p.append(cards[i])
            third = value(cards[i])
            i += 1
        if banker_should_draw(pt, bt, third):
            if i >= len(cards):
                break
            b.append(cards[i])
            i += 1
        rounds.append((p, b))
        if i > cut_at:  # the card after the cut was dealt in this round: it was the last
            break
    return rounds


def check_legal(record: dict[str, Any]) -> None:
    """A published complete round obeys the tableau and its totals are right."""
    p, b = record["player"], record["banker"]
    pt, bt = sum(map(value, p[:2])) % 10, sum(map(value, b[:2])) % 10
    assert (len(p) == 3) == player_should_draw(pt, bt), record
    third = value(p[2]) if len(p) == 3 else None
    assert (len(b) == 3) == banker_should_draw(pt, bt, third), record
    assert record["player_total"] == sum(map(value, p)) % 10
    assert record["banker_total"] == sum(map(value, b)) % 10


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order=st.permutations(FULL_SHOE), cut_from_end=st.integers(1, 415))
def test_any_shoe_order_deals_by_the_tableau(order: list[str], cut_from_end: int) -> None:
    tokens = list(order)
    tokens.insert(len(tokens) - cut_from_end, CUT)
    station = Station(TableRules())
    records: list[dict[str, Any]] = []

    def collect(outs: list[Any]) -> None:
        records.extend(o.record for o in outs if isinstance(o, Published))

    end = simulate(station, SimulatedDealer(iter([tokens])), collect)
    expected = reference_rounds(tokens)
    assert [(r["player"], r["banker"]) for r in records] == expected
    for r in records:
        check_legal(r)
    assert [r["round"] for r in records] == list(range(1, len(records) + 1))
    assert len({r["key"] for r in records}) == len(records)
    shoe = station.dealing.shoe
    assert shoe is not None
    in_hand = len(station.dealing.player) + len(station.dealing.banker)
    in_hand = in_hand if station.dealing.round_open else 0
    set_aside = len(shoe.stray) + len(shoe.discarded)
    assert len(shoe.burned) + shoe.dealt + in_hand + set_aside + shoe.remaining == 416
    cut_in_burn = tokens.index(CUT) <= parse_card(tokens[0]).burn_count
    if cut_in_burn:
        assert station.phase is Phase.PAUSED and "during the burn" in end.pause_reason
    elif end.exhausted_mid_round:
        assert station.dealing.round_open
    else:
        assert station.phase in (Phase.SHOE_CLOSED, Phase.BETWEEN_ROUNDS)


CODE = st.sampled_from([*CODES, "?", "ZZ", "10H", "", "4s", "th ", "QD\r"])
ACTIONS = ["new_shoe", "open_betting", "close_betting", "end_shoe", "resume", "void", "nonsense"]
MODE_ACTIONS = ["reveal", "skip", "request_new_shoe", "request_dealer"]
# What the dealer or supervisor does next when following the display, by phase.
LEGAL: dict[str, str] = {
    "no_shoe": "new_shoe", "shoe_closed": "new_shoe", "between_rounds": "open_betting",
    "betting_open": "close_betting", "reveal": "reveal", "shuffle_check": "confirm_shuffle",
}
PHASES_SEEN: set[str] = set()
TALLY = {"events": 0, "paused_after": 0, "complete": 0, "void": 0}


class RandomTable(RuleBasedStateMachine):
    """Deals real rounds most of the time, and throws any event at any time in between; the
    station must never crash, lose a card or publish nonsense."""

    RULES = TableRules(dedupe_ms=100)

    def __init__(self) -> None:
        super().__init__()
        self.station = Station(self.RULES)
        self.now = 0.0
        self.records: list[dict[str, Any]] = []

    def send(self, event: Any) -> None:
        for o in self.station.apply(event):
            if isinstance(o, Published):
                self.records.append(o.record)
                TALLY[o.record["status"]] += 1
        phase = self.station.phase.value
        PHASES_SEEN.add(phase)
        TALLY["events"] += 1
        TALLY["paused_after"] += phase == "paused"

    def tick(self, dt: float) -> float:
        self.now += dt
        return self.now

    @rule(codes=st.lists(st.sampled_from(CODES), min_size=1, max_size=12),
          supervisor=st.sampled_from(["resume", "resume", "resume", "void"]),
          cut=st.integers(0, 30))
    def follow_the_display(self, codes: list[str], supervisor: str, cut: int) -> None:
        """Do what the display asks, card after card: a table being dealt properly."""
        for code in codes:
            phase = self.station.phase.value
            if phase == "paused":
                self.send(DeviceRestored("a", self.tick(0.1)))
                self.send(Command(supervisor, "supervisor:pbt", self.tick(5.0)))
            elif self.station.deadlines and phase in ("between_rounds", "betting_open"):
                # The station's countdown runs: its deadline comes, as the daemon's clock
                # would post it.
                name, due = min(self.station.deadlines.items(), key=lambda kv: kv[1])
                self.now = max(self.now, due)
                self.send(TimerExpired(name, self.now))
            elif phase in LEGAL:
                self.send(Command(LEGAL[phase], "dealer:pbt", self.tick(2.0)))
            else:
                if cut == 0:
                    self.send(CutCardSeen("cut", self.tick(0.3)))
                self.send(CardRead(code, "a", self.tick(2.0)))

    @rule(code=CODE, dt=st.sampled_from([0.01, 0.5, 2.0]), source=st.sampled_from(["a", "b"]))
    def card(self, code: str, dt: float, source: str) -> None:
        self.send(CardRead(code, source, self.tick(dt)))

    @rule(action=st.sampled_from(ACTIONS))
    def command(self, action: str) -> None:
        self.send(Command(action, "someone", self.tick(1.0)))

    @rule(name=st.sampled_from(["betting_opens", "betting", "reveal", "open_cards", "new_shoe",
                                "nonsense"]),
          late=st.sampled_from([0.0, 100.0, 1000.0]))
    def timer(self, name: str, late: float) -> None:
        """A deadline's event at any time: early ones (and unknown ones) change nothing."""
        self.send(TimerExpired(name, self.tick(late)))

    @rule()
    def cut(self) -> None:
        self.send(CutCardSeen("cut", self.tick(0.3)))

    @rule(lost=st.booleans())
    def device(self, lost: bool) -> None:
        now = self.tick(0.1)
        self.send(DeviceLost("a", "gone", now) if lost else DeviceRestored("a", now))

    @invariant()
    def rounds_are_numbered_from_one_in_each_shoe(self) -> None:
        by_shoe: dict[str, list[int]] = {}
        for r in self.records:
            by_shoe.setdefault(r["shoe"], []).append(r["round"])
        for numbers in by_shoe.values():
            # Every opened round ends published, complete or void: no number is skipped.
            assert numbers == list(range(1, len(numbers) + 1))

    @invariant()
    def published_rounds_are_legal_and_unique(self) -> None:
        keys = [r["key"] for r in self.records]
        assert len(keys) == len(set(keys))
        for r in self.records:
            if r["status"] == "complete":
                check_legal(r)
            else:
                assert r["winner"] is None and r["voided_by"]

    @invariant()
    def every_counted_card_is_classed(self) -> None:
        d = self.station.dealing
        shoe = d.shoe
        if shoe is None:
            return
        in_round = len(d.player) + len(d.banker) if d.round_open else 0
        total = (len(shoe.burned) + shoe.dealt + len(shoe.discarded) + len(shoe.stray)
                 + len(shoe.held) + in_round)
        assert total == shoe.drawn
        assert all(n <= 8 for n in shoe.counts)

    @invariant()
    def a_pause_always_says_why(self) -> None:
        prompt = self.station.prompt
        if prompt.paused:
            assert self.station.dealing.pause_reasons and "call supervisor" in prompt.text


def test_the_random_table_deals_real_rounds_and_reaches_every_phase() -> None:
    PHASES_SEEN.clear()
    TALLY.update(dict.fromkeys(TALLY, 0))
    run_state_machine_as_test(
        # Derandomized, as the squeeze table's: the tallies below must not depend on luck (a
        # random draw once voided only 4 rounds in 806 under the noise watch).
        RandomTable,
        settings=settings(max_examples=150, stateful_step_count=60, deadline=None,
                          derandomize=True))
    # The properties above only mean something if the random table really deals.
    # (A squeeze table reveals; only a table whose shuffle is checked has the check.)
    assert {p.value for p in Phase} - {"reveal", "shuffle_check"} == PHASES_SEEN, sorted(
        PHASES_SEEN)
    assert TALLY["complete"] >= 100 and TALLY["void"] >= 10, TALLY
    assert TALLY["paused_after"] < TALLY["events"] / 2, TALLY


class RandomSqueezeTable(RandomTable):
    """The same random table dealing face down (a squeeze table with a betting countdown):
    reveals, deadlines and the VIP requests thrown in at any time."""

    RULES = TableRules(dedupe_ms=100, mode="squeeze", betting="timer", betting_s=10.0)

    @rule(action=st.sampled_from(MODE_ACTIONS))
    def mode_command(self, action: str) -> None:
        self.send(Command(action, "someone", self.tick(1.0)))

    @invariant()
    def no_hidden_card_is_in_a_prompt(self) -> None:
        d = self.station.dealing
        # (A pause may name a stray card that happens to share a hidden card's code.)
        hidden = [c.code for hand in ("player", "banker")
                  for c in (d.player if hand == "player" else d.banker)[len(d.visible(hand)):]]
        if hidden and not self.station.prompt.paused:
            line = self.station.prompt.line()
            assert not any(re.search(rf"\b{code}\b", line) for code in hidden), line


def test_the_random_squeeze_table_deals_and_reveals() -> None:
    PHASES_SEEN.clear()
    TALLY.update(dict.fromkeys(TALLY, 0))
    run_state_machine_as_test(
        RandomSqueezeTable,
        # Derandomized: the tallies below must not depend on the run's luck (CI).
        settings=settings(max_examples=100, stateful_step_count=60, deadline=None,
                          derandomize=True),
    )
    assert "reveal" in PHASES_SEEN, sorted(PHASES_SEEN)
    assert TALLY["complete"] >= 5 and TALLY["void"] >= 5, TALLY


class RandomCheckedTable(RandomTable):
    """The same random table with the table procedures (docs/rules.md): the shuffle checked
    by a supervisor, pack codes, cards that name their pack, the cut card's band, and the
    dealer's own pause with any code at any time."""

    RULES = TableRules(dedupe_ms=100, shuffle_check="supervisor", penetration=(0.3, 0.9),
                       pack_prefix="PK-")

    @rule(code=st.sampled_from(["card_dropped", "misdeal", "other", "nope", None]),
          note=st.sampled_from([None, "a lamp failed", ""]))
    def dealer_pause(self, code: str | None, note: str | None) -> None:
        self.send(Command("pause", "dealer:pbt", self.tick(1.0), note, code))

    @rule(action=st.sampled_from(["confirm_shuffle", "new_shoe"]))
    def check(self, action: str) -> None:
        self.send(Command(action, "supervisor:pbt", self.tick(1.0)))

    @rule(code=st.sampled_from(["PK-A1", "PK-B2", "PK-", "PK-?"]))
    def pack(self, code: str) -> None:
        self.send(CardRead(code, "a", self.tick(0.5)))

    @rule(code=st.sampled_from(CODES), pack=st.sampled_from(["A1", "B2", "ZZ"]))
    def packed_card(self, code: str, pack: str) -> None:
        self.send(CardRead(code, "a", self.tick(2.0), pack))

    @invariant()
    def the_cut_cards_place_is_only_on_a_shoes_last_round(self) -> None:
        marked = [r for r in self.records if "cut_card_at" in r]
        assert len({r["shoe"] for r in marked}) == len(marked)
        for r in marked:
            assert 0 <= r["cut_card_at"] <= 416 and r["penetration"] == round(
                r["cut_card_at"] / 416, 4)


def test_the_random_checked_table_deals_through_its_procedures() -> None:
    PHASES_SEEN.clear()
    TALLY.update(dict.fromkeys(TALLY, 0))
    run_state_machine_as_test(
        RandomCheckedTable,
        settings=settings(max_examples=100, stateful_step_count=60, deadline=None,
                          derandomize=True),
    )
    assert {p.value for p in Phase} - {"reveal"} == PHASES_SEEN, sorted(PHASES_SEEN)
    assert TALLY["complete"] >= 50 and TALLY["void"] >= 5, TALLY
