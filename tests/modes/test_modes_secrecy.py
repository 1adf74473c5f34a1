"""The squeeze promise (issue 11, RULES.md 4, docs/modes.md): no value leaves the station
before its reveal.

Random shoes, random ways and times of revealing (the dealer's button, the player's client
upstream, the deadline, with early timer events thrown in), through the real Station and
every exit the daemon gives it (tests/modeskit.py: upstream messages as signed bytes would
carry them, the console display, the table log at info level, the page's view in both
languages, the metrics text). After every event, for every card still face down, no exit may
carry its code (as a token), its hand's total next to the hand's name, or anything that only
follows from it: the third-card prompt and its phases.

What is still face down is worked out here from the order the rules give (player pair,
banker pair, then each third card; all at once when the VIP deadline opens them), not from
the station's own notion of what is visible, so a station that reveals too much fails.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.events import Command, InputEvent, TimerExpired
from station.game.cards import Card, hand_total, parse_card
from station.settings.paytable import load_paytable
from station.table.outputs import Output
from station.table.station import Station
from station.table.tablerules import TableRules
from tests.modeskit import Table, face_down_rules
from tests.sampling import examples

PAYTABLE = load_paytable(Path(__file__).resolve().parents[2] / "config" / "paytables" /
                         "seed003.yaml")
RANKS = "A23456789TJQK"
CODES = [r + s for r in RANKS for s in "SHDC"]
# Enough cards for a burn (at most 11) and a few rounds.
SHOES = st.lists(st.sampled_from(CODES), min_size=40, max_size=70).filter(
    lambda cards: max(Counter(cards).values()) <= 8)  # an 8-deck shoe holds 8 of each
REVEALS = st.tuples(st.sampled_from(["dealer", "client", "timer"]),
                    st.sampled_from([0.5, 3.0, 29.0, 59.0, 200.0]))
SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


class Truth:
    """Which cards of the round in progress are face down, from the rules' reveal order and
    the reveals this test sent: counted here, never asked of the station."""

    def __init__(self, station: Station) -> None:
        self.station = station
        self.round: tuple[Any, int] = (None, 0)
        self.steps = 0  # reveals done in this round
        self.all_open = False

    def before(self, event: InputEvent) -> None:
        d = self.station.dealing
        where = (d.shoe.shoe_id if d.shoe else None, d.round_no)
        if where != self.round:
            self.round, self.steps, self.all_open = where, 0, False
        if d.state == "reveal" and self._reveals(event):
            if isinstance(event, TimerExpired) and event.timer == "open_cards":
                self.all_open = True
            else:
                self.steps += 1

    def _reveals(self, event: InputEvent) -> bool:
        due = self.station.deadlines.get(getattr(event, "timer", ""))
        if isinstance(event, TimerExpired):
            return due is not None and event.ts >= due
        return isinstance(event, Command) and event.action == "reveal"

    def hidden(self) -> list[tuple[str, int, Card]]:
        """(hand, index in the hand, card) of every card dealt in the round and not yet
        revealed (cards are compared by place: two cards of one code may be one object)."""
        d = self.station.dealing
        where = (d.shoe.shoe_id if d.shoe else None, d.round_no)
        if where != self.round:
            self.round, self.steps, self.all_open = where, 0, False
        if not d.round_open or d.skipped or self.all_open:
            return []
        groups: list[list[tuple[str, int, Card]]] = [
            [("player", i, c) for i, c in enumerate(d.player[:2])],
            [("banker", i, c) for i, c in enumerate(d.banker[:2])]]
        if len(d.player) == 3:
            groups.append([("player", 2, d.player[2])])
        if len(d.banker) == 3:
            groups.append([("banker", 2, d.banker[2])])
        return [hc for g in groups[self.steps:] for hc in g]


def _total_pattern(hand: str, total: int) -> re.Pattern[str]:
    """The hand's name next to its total: "player 5 draws", "BANKER 5", "player total: 5",
    "player_total": 5. Not a card's position in a key (``...:player:2``), nor a phase
    (``banker_2``, the log's "now banker 2"), where a digit sits by the name by chance."""
    return re.compile(rf'"{hand}_total"\s*:\s*{total}\b|(?<![:\w-])(?<!now ){hand}'
                      rf'(?: total)?(?:\s+|\s*=\s*|:\s+){total}\b', re.IGNORECASE)


def check_secrecy(station: Station, truth: Truth, texts: list[str]) -> None:
    hidden = truth.hidden()
    if not hidden:
        return
    d = station.dealing
    down = {(hand, i) for hand, i, _ in hidden}
    shown_codes = {c.code for hand in ("player", "banker")
                   for i, c in enumerate(d.player if hand == "player" else d.banker)
                   if (hand, i) not in down}
    everything = "\n".join(texts)
    for hand, _, card in hidden:
        if card.code in shown_codes:
            continue  # the same code face up in this round: it may be named
        assert not re.search(rf"(?<![A-Za-z0-9]){card.code}(?![A-Za-z0-9])", everything), (
            f"{card.code} ({hand}) left the station before its reveal:\n{everything}")
    for hand in ("player", "banker"):
        cards = d.player if hand == "player" else d.banker
        if not any(h == hand for h, _, _ in hidden):
            continue
        total = hand_total(cards)
        up = [c for i, c in enumerate(cards) if (hand, i) not in down]
        if up and hand_total(up) == total:
            continue  # what is face up already says this total
        found = _total_pattern(hand, total).search(everything)
        assert not found, (found,
            f"{hand} total {total} left the station before its reveal:\n{everything}")
    # The third-card rule gives totals away: nothing may follow from a card still down.
    first_four_down = any(i < 2 for _, i, _ in hidden)
    player_third_down = ("player", 2) in down
    if first_four_down:
        assert not re.search(r"player_3|banker_3|DEAL (PLAYER|BANKER) THIRD|\bdraws\b|\bstood\b"
                             r"|\"position\":3|third_card", everything), everything
    if player_third_down:
        assert not re.search(r"banker_3|DEAL BANKER THIRD|\bdraws\b|\bstood\b"
                             r"|\"hand\":\"banker\",\"position\":3", everything), everything


def play(rules: TableRules, cards: list[str], reveals: st.DataObject | None,
         check: bool) -> Table:
    station = Station(rules, PAYTABLE)
    truth = Truth(station)

    def choose() -> tuple[str, float]:
        if reveals is None:
            return ("dealer", 1.0)
        return reveals.draw(REVEALS)

    def observe(event: InputEvent, outputs: list[Output], texts: list[str]) -> None:
        if check:
            check_secrecy(station, truth, texts)

    table = Table(station, cards, choose, observe)
    original_send = table.send

    def send(event: InputEvent) -> list[Output]:
        truth.before(event)
        return original_send(event)

    table.send = send  # type: ignore[method-assign]
    table.run()
    return table


@SETTINGS
@given(cards=SHOES, data=st.data(), mode=st.sampled_from(["squeeze", "vip"]))
def test_no_value_leaves_before_its_reveal(cards: list[str], data: st.DataObject,
                                           mode: str) -> None:
    table = play(face_down_rules(mode, reveal_s=30.0), cards, data, check=True)
    assert table.station.dealing.state in ("between_rounds", "burning", "burn_indicator",
                                           "player_1", "banker_1", "player_2", "banker_2",
                                           "player_3", "banker_3")


@SETTINGS
@given(cards=SHOES, data=st.data(), mode=st.sampled_from(["squeeze", "vip"]))
def test_the_published_rounds_are_the_standard_tables(cards: list[str], data: st.DataObject,
                                                      mode: str) -> None:
    """The same cards on a standard table publish the same records, key for key."""
    face_down = play(face_down_rules(mode), cards, data, check=False)
    standard = play(face_down_rules("standard"), cards, None, check=False)
    assert face_down.published == standard.published


def test_the_check_sees_what_it_looks_for() -> None:
    """The secrecy check is not vacuous: shoes with reveals at every step, where every hand
    had cards face down that were checked, and rounds of every shape were played."""
    shapes: set[tuple[int, int]] = set()
    checked = 0
    for seed in range(12):
        rng = random.Random(seed)
        cards = [rng.choice(CODES) for _ in range(70)]
        station_rules = face_down_rules("squeeze")
        table = play(station_rules, cards, None, check=True)
        checked += len(table.published)
        shapes |= {(len(r["player"]), len(r["banker"])) for r in table.published}
    assert shapes == {(2, 2), (3, 2), (2, 3), (3, 3)}
    assert checked >= 50
    assert {parse_card(c).code for c in CODES} == set(CODES)
