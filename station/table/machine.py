"""The dealing state machine: one reviewed table of phases and transitions.

Pure: no I/O, no clock. ``Dealing`` is the model ``transitions`` drives; the ``Station`` in
``station.table.station`` owns one, checks each raw read first (dedupe, card code, shoe composition)
and turns the model's facts into prompts. Only the station's loop thread may call triggers:
a plain ``Machine`` is not thread safe, and a locked one costs five times as much per trigger.

Triggers are past-tense events, conditions are predicates, callbacks are verbs. A card that
is not due has an explicit transition to ``PAUSED``, so nothing is ever dropped or guessed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from transitions import Machine

from station.game.betguard import ALERT, BetGuard
from station.game.betguard import BY as GUARD_BY
from station.game.bets.model import Paytable, open_bets
from station.game.cards import Card
from station.game.outcome import ValuesKey, values_key
from station.game.results import case_records, round_record, void_record
from station.game.rules import BANKER_DRAW, PLAYER_DRAW, banker_draws, player_draws
from station.game.settlement import Settler
from station.game.shoe import ShoeCounts
from station.table.fsm import LeanMachine
from station.table.pauses import DRAWN_SHOWN, PauseReasons
from station.table.procedures import Procedures, band_text, penetration


class Phase(StrEnum):
    NO_SHOE = "no_shoe"
    SHUFFLE_CHECK = "shuffle_check"  # table.shuffle_check: supervisor; nothing is dealt
    BURN_INDICATOR = "burn_indicator"
    BURNING = "burning"
    BETWEEN_ROUNDS = "between_rounds"
    BETTING_OPEN = "betting_open"
    PLAYER_1 = "player_1"
    BANKER_1 = "banker_1"
    PLAYER_2 = "player_2"
    BANKER_2 = "banker_2"
    PLAYER_3 = "player_3"
    BANKER_3 = "banker_3"
    REVEAL = "reveal"  # squeeze and VIP tables: dealt face down, waiting for the reveal
    SHOE_CLOSED = "shoe_closed"
    PAUSED = "paused"


P = Phase
DEALING = (P.PLAYER_1, P.BANKER_1, P.PLAYER_2, P.BANKER_2, P.PLAYER_3, P.BANKER_3)
IN_ROUND = (P.BETTING_OPEN, *DEALING, P.REVEAL)
BURN = (P.BURN_INDICATOR, P.BURNING)
NOT_DUE = (P.NO_SHOE, P.SHUFFLE_CHECK, P.BETWEEN_ROUNDS, P.BETTING_OPEN, P.SHOE_CLOSED, P.REVEAL)
RESUMABLE = tuple(p for p in Phase if p is not P.PAUSED)
WITH_SHOE = tuple(p for p in Phase if p not in (P.NO_SHOE, P.PAUSED))

_END = ["publish_result", "end_round"]


def _t(trigger: str, source: Any, dest: Any, **kw: Any) -> dict[str, Any]:
    # States are given to transitions as plain strings: with Enum states it spends a third of
    # each trigger resolving enum names (profiled). ``Dealing.phase`` maps back to ``Phase``.
    src = [p.value for p in source] if isinstance(source, list) else source.value
    return {"trigger": trigger, "source": src, "dest": dest and dest.value, **kw}


# The whole machine. Order matters where one trigger leaves a source several ways: the first
# transition whose conditions hold wins, so the unconditional one comes last.
TRANSITIONS: list[dict[str, Any]] = [
    # Shoe life (RULES.md 3). Where the shuffle is checked (seed 003), NEW SHOE waits for the
    # supervisor's confirmation, and the shoe starts only then.
    _t("shoe_started", [P.NO_SHOE, P.SHOE_CLOSED], P.BURN_INDICATOR, before="start_shoe"),
    _t("shuffle_due", [P.NO_SHOE, P.SHOE_CLOSED], P.SHUFFLE_CHECK, before="await_shuffle_check"),
    _t("shuffle_confirmed", P.SHUFFLE_CHECK, P.BURN_INDICATOR, before="start_shoe"),
    _t("card_read", P.BURN_INDICATOR, P.BURNING, before="show_burn_indicator"),
    _t("card_read", P.BURNING, P.BETWEEN_ROUNDS, conditions="is_last_burn_card",
       before="burn_card"),
    _t("card_read", P.BURNING, None, before="burn_card"),
    _t("shoe_ended", P.BETWEEN_ROUNDS, P.SHOE_CLOSED, before="close_shoe"),
    # A round (RULES.md 2).
    _t("betting_opened", P.BETWEEN_ROUNDS, P.BETTING_OPEN, before="open_round"),
    _t("betting_closed", P.BETTING_OPEN, P.PLAYER_1),
    _t("card_read", P.PLAYER_1, P.BANKER_1, before="deal_player"),
    _t("card_read", P.BANKER_1, P.PLAYER_2, before="deal_banker"),
    _t("card_read", P.PLAYER_2, P.BANKER_2, before="deal_player"),
    # Squeeze (RULES.md 4): the fourth card and each third card wait face down for their
    # reveal; what comes next is decided only once the hands it depends on are revealed.
    _t("card_read", P.BANKER_2, P.REVEAL, conditions="squeezing", before="deal_banker",
       after="begin_reveal"),
    _t("card_read", P.BANKER_2, P.PLAYER_3, conditions="player_must_draw", before="deal_banker"),
    _t("card_read", P.BANKER_2, P.BANKER_3, conditions="banker_must_draw_player_stood",
       before="deal_banker"),
    _t("card_read", P.BANKER_2, P.BETWEEN_ROUNDS, before="deal_banker", after=_END),
    _t("card_read", P.PLAYER_3, P.REVEAL, conditions="squeezing", before="deal_player",
       after="begin_reveal"),
    _t("card_read", P.PLAYER_3, P.BANKER_3, conditions="banker_must_draw_after_player_third",
       before="deal_player"),
    _t("card_read", P.PLAYER_3, P.BETWEEN_ROUNDS, before="deal_player", after=_END),
    _t("card_read", P.BANKER_3, P.REVEAL, conditions="squeezing", before="deal_banker",
       after="begin_reveal"),
    _t("card_read", P.BANKER_3, P.BETWEEN_ROUNDS, before="deal_banker", after=_END),
    # One reveal at a time: the player hand, then the banker hand, then each third card.
    _t("revealed", P.REVEAL, None, conditions="more_to_reveal", before="reveal_next"),
    _t("revealed", P.REVEAL, P.PLAYER_3, conditions="player_draws_now", before="reveal_next"),
    _t("revealed", P.REVEAL, P.BANKER_3, conditions="banker_draws_now", before="reveal_next"),
    _t("revealed", P.REVEAL, P.BETWEEN_ROUNDS, before="reveal_next", after=_END),
    # The shoe's last round is over (fired by ``end_round``): the rest of the shoe is discarded.
    _t("last_round_ended", P.BETWEEN_ROUNDS, P.SHOE_CLOSED, before="close_shoe"),
    # The cut card (RULES.md 3): the round in progress is the last; outside a round, policy.
    # One cut card per shoe: a second sighting (a sensor bounce) is only a notice.
    _t("cut_card_seen", list(IN_ROUND), None, before="mark_last_round"),
    _t("cut_card_seen", [P.BETWEEN_ROUNDS, *BURN], None, conditions="cut_seen_before",
       before="note_cut_card"),
    _t("cut_card_seen", P.BETWEEN_ROUNDS, P.SHOE_CLOSED, conditions="cut_closes_shoe_now",
       before=["note_cut_card", "close_shoe"]),
    _t("cut_card_seen", P.BETWEEN_ROUNDS, None, before="mark_next_round_last"),
    _t("cut_card_seen", list(BURN), P.PAUSED, before="pause_cut_card_in_burn"),
    _t("cut_card_seen", [P.NO_SHOE, P.SHUFFLE_CHECK, P.SHOE_CLOSED], None,
       before="note_cut_card_no_shoe"),
    _t("cut_card_seen", P.PAUSED, None, before="note_cut_card_while_paused"),
    # Anything unexpected halts the table until a supervisor acts (fail safe, DESIGN.md).
    _t("card_read", list(NOT_DUE), P.PAUSED, before="pause_card_not_due"),
    _t("card_read", P.PAUSED, None, before="set_aside_card_while_paused"),
    _t("fault", list(RESUMABLE), P.PAUSED, before="pause_for"),
    _t("fault", P.PAUSED, None, before="add_pause_reason"),
    # Supervisor actions. Void returns to between rounds, or closes the shoe when the voided
    # round was its last or the burn was abandoned.
    *[
        _t("resumed", P.PAUSED, p, conditions=f"paused_from_{p.value}", before="set_strays_aside",
           after="close_if_pending")
        for p in RESUMABLE
    ],
    _t("voided", P.PAUSED, P.NO_SHOE, conditions="paused_from_no_shoe", before="void_round"),
    _t("voided", P.PAUSED, P.SHUFFLE_CHECK, conditions="paused_from_shuffle_check",
       before="void_round"),
    _t("voided", P.PAUSED, P.SHOE_CLOSED, conditions="void_closes_shoe",
       before=["void_round", "close_shoe"]),
    _t("voided", P.PAUSED, P.BETWEEN_ROUNDS, before="void_round", after="close_if_pending"),
    _t("voided", list(IN_ROUND), P.SHOE_CLOSED, conditions="is_last_round",
       before=["void_round", "close_shoe"]),
    _t("voided", list(IN_ROUND), P.BETWEEN_ROUNDS, before="void_round"),
]


FACE_UP_TRANSITIONS = [t for t in TRANSITIONS if t.get("conditions") != "squeezing"]

_PHASES = {p.value: p for p in Phase}
_CALLBACK_KEYS = ("prepare", "conditions", "unless", "before", "after")


def _bound(table: list[dict[str, Any]], model: object) -> list[dict[str, Any]]:
    """``table`` with each callback name replaced by the model's bound method: transitions
    would otherwise look every name up on the model on every trigger. The table itself keeps
    the names (it is what docs/machine.md is drawn from)."""
    def bind(names: str | list[str]) -> list[Callable[..., Any]]:
        return [getattr(model, n) for n in ([names] if isinstance(names, str) else names)]

    return [{k: bind(v) if k in _CALLBACK_KEYS else v for k, v in t.items()} for t in table]
_DRAWN_PAUSED = "drawn while paused:"
_CUT_IN_BURN = "cut card came out during the burn: the shoe can give one more round"


class Dealing:
    """The model: the shoe, the round in progress and the pause, plus the callbacks named in
    ``TRANSITIONS``. ``events`` collects what the station must publish or show."""

    # The library's full Machine runs the same table (tests/core/test_fsm.py compares the two).
    machine_cls: type[Machine] = LeanMachine
    state: str
    # Bound by transitions at construction; declared so the type checker knows them.
    card_read: Callable[[Card], bool]
    cut_card_seen: Callable[[], bool]
    shoe_started: Callable[[str], bool]
    shuffle_due: Callable[[], bool]
    shuffle_confirmed: Callable[[str], bool]
    shoe_ended: Callable[[str], bool]
    betting_opened: Callable[[], bool]
    betting_closed: Callable[[], bool]
    fault: Callable[[str, str], bool]
    resumed: Callable[[str], bool]
    voided: Callable[[str], bool]
    last_round_ended: Callable[[], bool]
    revealed: Callable[[str], bool]

    def __init__(self, table: str, decks: int, cut_card_between_rounds: str,
                 paytable: Paytable | None = None, *, face_down: bool = False,
                 guard: BetGuard | None = None,
                 procedures: Procedures | None = None) -> None:
        """``face_down``: a squeeze or VIP table, where cards wait for their reveal;
        ``guard``: the bet guard (station.game.betguard), None when ``off``; ``procedures``: the
        table's procedure settings (station.table.procedures)."""
        self.guard = guard
        self.table = table
        self.procedures = procedures or Procedures()
        # The dealer's own pause in progress (raised_by, code, note), None for any other.
        self.raised: tuple[str, str, str | None] | None = None
        # The shuffle check of the shoe to come: the packs scanned during it, and the shuffle
        # block (station.table.procedures) that start_shoe gives the shoe it starts.
        self.check_packs: list[str] = []
        self.pending_shuffle: dict[str, Any] | None = None
        self.shuffle: dict[str, Any] | None = None
        self.face_down = face_down
        self.to_reveal: list[str] = []  # the hands whose cards wait for a reveal, in order
        self.revealed_n = {"player": 0, "banker": 0}  # cards of each hand revealed so far
        self.skipped = False  # a VIP round the player skipped: dealt face up, no bets
        self.auto_reveal = False  # the VIP open-cards deadline passed: the system opens them
        self.paytable = paytable
        self.settler = Settler(paytable) if paytable is not None else None
        self.open_bets: list[str] = []
        self._open_by_round: dict[int, list[str]] = {}
        self.announcements: list[dict[str, Any]] = []
        self.decks = decks
        self.cut_policy = cut_card_between_rounds
        self.shoe: ShoeCounts | None = None
        self.shoes_started = 0
        self.player: list[Card] = []
        self.banker: list[Card] = []
        self._reset_shoe_state()
        self.paused_from: Phase | None = None
        # What happened (goes upstream as a void's reason) and, apart, what the people at the
        # table must do about it (the display only): an instruction is never a reason.
        # Bounded (station.table.pauses): the first reason, a count, the last few. ``pause_reasons``
        # is what every message and view repeats, rebuilt after each change.
        self._reasons = PauseReasons()
        self.pause_reasons: list[str] = []
        self.pause_actions: list[str] = []
        # What the one voiding wrote (set by the station for the void in hand, then cleared).
        self.void_note: str | None = None
        self.drawn_while_paused: deque[str] = deque(maxlen=DRAWN_SHOWN)  # the last ones
        self.drawn_count = 0
        self.published: list[dict[str, Any]] = []  # drained by the station after each event
        self.notices: list[str] = []
        self.published_keys: set[str] = set()
        self.dealer: str | None = None  # signed in (station.table.dealers); on every round record
        case_records()  # built now (once per process), not on the first round's last card
        self.machine = self.machine_cls(
            model=self,
            states=[p.value for p in Phase],
            transitions=_bound(self.transitions_for(face_down), self),
            initial=Phase.NO_SHOE.value,
            auto_transitions=False,
            ignore_invalid_triggers=False,
        )

    @staticmethod
    def transitions_for(face_down: bool) -> list[dict[str, Any]]:
        """A face-up table leaves out the rows whose condition is ``squeezing``, false on it
        from start to end: one condition less on every round's fourth card and third cards.
        tests/core/test_fsm.py deals it against the library's machine on the whole table."""
        return TRANSITIONS if face_down else FACE_UP_TRANSITIONS

    @property
    def phase(self) -> Phase:
        return _PHASES[self.state]

    # --- shoe -----------------------------------------------------------------------------
    def start_shoe(self, shoe_id: str) -> None:
        self.shoes_started += 1
        # Keys hold the shoe id, so a key can only repeat within its shoe: keeping one shoe's
        # keys keeps memory flat over months of uptime.
        self.published_keys = set()
        self.shoe = ShoeCounts(shoe_id, self.decks)
        self._reset_shoe_state()
        if self.guard is not None:
            self.guard.new_shoe()
        self.shuffle, self.pending_shuffle = self.pending_shuffle, None

    def await_shuffle_check(self) -> None:
        # No shoe is in play until the supervisor confirms: a card drawn now counts against
        # none, and the closed shoe's report is out already.
        self.shoe = None
        self.shuffle = None
        self.check_packs = []

    def _reset_shoe_state(self) -> None:
        """What every new shoe starts from: one place, so a new field cannot be missed."""
        self.round_no = 0
        self.round_open = False
        self.last_round = False  # the round in progress (or the next one) closes the shoe
        self.cut_seen = False
        self.close_on_resume = False  # close_shoe policy, cut card seen while paused between
        # Who asked for the shoe's end (END SHOE: "dealer"; the pit's close_shoe: "upstream"),
        # None when nobody did: shoe_ended upstream names it (station.wire.observe).
        self.end_requested_by: str | None = None
        self.burn_indicator: Card | None = None
        self.burn_left = 0
        self.last_result: dict[str, Any] | None = None

    def show_burn_indicator(self, card: Card) -> None:
        # RULES.md 3 (seeds 000, 003): the shown card's value (A=1, 10/J/Q/K=10) is how many
        # more cards are burned face down; the shown card is discarded too.
        assert self.shoe is not None
        self.shoe.burned.append(card)
        self.burn_indicator = card
        self.burn_left = card.burn_count

    def burn_card(self, card: Card) -> None:
        assert self.shoe is not None
        self.shoe.burned.append(card)
        self.burn_left -= 1

    def is_last_burn_card(self, card: Card) -> bool:
        return self.burn_left == 1

    def close_shoe(self, *args: Any) -> None:
        self.round_open = False
        self.last_round = False

    # --- round ----------------------------------------------------------------------------
    def open_round(self) -> None:
        self.round_no += 1
        self.round_open = True
        self.player = []
        self.banker = []
        self.to_reveal = []
        self.revealed_n = {"player": 0, "banker": 0}
        self.skipped = False
        self.auto_reveal = False
        # RULES.md 5: cut-offs by round number; the list goes out with betting open and is
        # recorded with the round. Without a paytable no bets are settled here: betting open
        # is still announced, with none listed.
        assert self.shoe is not None
        if self.paytable is not None:
            # The list changes only at a cut-off: kept per round number (at most a shoe's
            # rounds), each round given its own copy, as records must not share one.
            cached = self._open_by_round.get(self.round_no)
            if cached is None:
                cached = self._open_by_round[self.round_no] = open_bets(self.paytable,
                                                                        self.round_no)
            self.open_bets = list(cached)
        opened: dict[str, Any] = {
            "type": "betting_open", "shoe": self.shoe.shoe_id, "round": self.round_no,
            "key": f"{self.shoe.shoe_id}:{self.round_no}", "open_bets": self.open_bets,
        }
        self.announcements.append(opened)
        if self.guard is not None and self.paytable is not None:
            self._guard(opened)

    def _guard(self, opened: dict[str, Any]) -> None:
        """The bet guard at this opening (station.game.betguard): ``rtp`` of every open bet for
        the cards left, the bets it closed this shoe, and an alert for each bet newly over
        its limit. Computed here, in ``Station.apply``: about 0.4 ms (docs/paytables.md)."""
        guard = self.guard
        shoe = self.shoe
        assert guard is not None and shoe is not None
        found = guard.opening(self.open_bets, shoe.counts, self.decks)
        opened["rtp"] = found.rtp
        if guard.mode == "close":
            opened["closed_by_guard"] = found.closed
        for alert in found.alerts:
            then = ("closed for the rest of the shoe" if guard.mode == "close"
                    else "the guard only observes")
            self.announcements.append({
                "type": "alert", "alert": ALERT, "bet": alert["bet"], "rtp": alert["rtp"],
                "detail": f"bet {alert['bet']} returns {alert['rtp']:.4%} for the cards left, "
                          f"over the limit of {float(guard.limit):.4%}: {then}",
                "by": GUARD_BY, "shoe": shoe.shoe_id, "round": self.round_no})

    def deal_player(self, card: Card) -> None:
        self.player.append(card)

    def deal_banker(self, card: Card) -> None:
        self.banker.append(card)

    def _two_card_totals(self, banker_second: Card | None = None) -> tuple[int, int]:
        p = (self.player[0].value + self.player[1].value) % 10
        b2 = banker_second if banker_second is not None else self.banker[1]
        return p, (self.banker[0].value + b2.value) % 10

    # The three conditions a round's fourth or fifth card meets: the tableau's tables
    # (station.game.rules, built from player_draws and banker_draws) indexed by the two-card totals.
    def player_must_draw(self, card: Card) -> bool:
        p, b = self.player, self.banker
        return PLAYER_DRAW[(p[0].value + p[1].value) % 10 * 10 + (b[0].value + card.value) % 10]

    def banker_must_draw_player_stood(self, card: Card) -> bool:
        p, b = self.player, self.banker
        return BANKER_DRAW[((p[0].value + p[1].value) % 10 * 10
                            + (b[0].value + card.value) % 10) * 11]

    def banker_must_draw_after_player_third(self, card: Card) -> bool:
        p, b = self.player, self.banker
        return BANKER_DRAW[((p[0].value + p[1].value) % 10 * 10
                            + (b[0].value + b[1].value) % 10) * 11 + 1 + card.value]

    def is_last_round(self, *args: Any) -> bool:
        return self.last_round

    # --- squeeze --------------------------------------------------------------------------
    def squeezing(self, card: Card | None = None) -> bool:
        return self.face_down and not self.skipped and not self.auto_reveal

    def visible(self, hand: str) -> list[Card]:
        """The cards of ``hand`` whose values may leave the station now: on a squeeze or VIP
        table only those revealed, from the moment each is dealt."""
        cards = self.player if hand == "player" else self.banker
        return cards[:self.revealed_n[hand]] if self.squeezing() else cards

    def begin_reveal(self, card: Card) -> None:
        if len(self.player) == 2 and len(self.banker) == 2:
            self.to_reveal = ["player", "banker"]
        else:  # a third card: the banker's always comes after the player's
            self.to_reveal = ["banker" if len(self.banker) == 3 else "player"]

    def reveal_next(self, actor: str) -> None:
        hand = self.to_reveal.pop(0)
        cards = self.player if hand == "player" else self.banker
        first = self.revealed_n[hand]
        self.revealed_n[hand] = len(cards)
        assert self.shoe is not None
        self.announcements.append({
            "type": "reveal", "shoe": self.shoe.shoe_id, "round": self.round_no, "hand": hand,
            "cards": [[i + 1, c.code] for i, c in enumerate(cards) if i >= first],
            "by": actor,
        })

    def more_to_reveal(self, actor: str) -> bool:
        return len(self.to_reveal) > 1

    def player_draws_now(self, actor: str) -> bool:
        return len(self.player) == 2 and len(self.banker) == 2 and player_draws(
            *self._two_card_totals())

    def banker_draws_now(self, actor: str) -> bool:
        if len(self.banker) != 2:
            return False
        if len(self.player) == 2:
            return banker_draws(*self._two_card_totals(), None)
        return banker_draws(*self._two_card_totals(), self.player[2].value)

    def publish_result(self, *args: Any) -> None:
        shoe = self.shoe
        assert shoe is not None
        player, banker = self.player, self.banker
        shoe.dealt += len(player) + len(banker)
        self.round_open = False
        # From the cards and the case of the values, without a RoundOutcome (results.py and
        # settlement.py say how; their tests hold both to the outcome's way).
        key = values_key(player, banker)
        record = round_record(shoe.shoe_id, self.round_no, player, banker, key,
                              dealer=self.dealer)
        if self.settler is not None or self.skipped:
            self._add_bets(record, (player, banker, key))
        self._add_cut_card(record)
        self._publish(record)

    def _add_bets(self, record: dict[str, Any],
                  deal: tuple[list[Card], list[Card], ValuesKey] | None) -> None:
        """The round's bets on its record, with the bets open in it: settled on ``deal`` (the
        hands and their values key), or all refunded for a void round (``None``); on a VIP
        round the player skipped (seed 003 飞牌), none at all."""
        settler = self.settler
        if self.skipped:
            record["skipped"] = True
            if settler is not None:
                record["open_bets"] = []
                record["bets"] = {}
        elif settler is not None:
            record["open_bets"] = self.open_bets
            record["bets"] = (settler.settle_round(*deal) if deal is not None
                              else settler.refund_all())

    def _add_cut_card(self, record: dict[str, Any]) -> None:
        """Where the cut card was, on the record of the round it made the last (kept only on a
        table that records its procedures: ``note_cut_card``)."""
        shoe = self.shoe
        if self.last_round and shoe is not None and shoe.cut_card_at is not None:
            record["cut_card_at"] = shoe.cut_card_at
            record["penetration"] = penetration(shoe.cut_card_at, self.decks)

    def end_round(self, *args: Any) -> None:
        # A round ends between rounds; the last one then closes the shoe. One extra trigger per
        # shoe instead of a failed condition on every round's last card.
        if self.last_round:
            self.last_round_ended()

    def _publish(self, record: dict[str, Any]) -> None:
        # Verify-then-publish: a round key leaves the station once, whatever path led here.
        key = record["key"]
        if key in self.published_keys:
            raise AssertionError(f"round {key} would be published twice")
        self.published_keys.add(key)
        self.last_result = record
        self.published.append(record)

    # --- cut card -------------------------------------------------------------------------
    def mark_last_round(self) -> None:
        self.note_cut_card()
        self.last_round = True

    def note_cut_card(self, *args: Any) -> None:
        if self.cut_seen:
            self.notices.append("cut card seen again in this shoe: ignored (sensor bounce?)")
            return
        self.cut_seen = True
        shoe = self.shoe
        if shoe is None:
            return
        # Every card counted out of the shoe since it started: burn, dealt, set aside. Kept
        # (for the last round's record and the shoe report) only where the table records its
        # procedures (``Procedures.on_records``): a standard table's outputs keep their bytes.
        at = shoe.drawn
        shoe.cut_out_at = at
        if self.procedures.on_records:
            shoe.cut_card_at = at
        band = self.procedures.penetration
        share = penetration(at, self.decks)
        if band is not None and not band[0] <= share <= band[1]:
            self.announcements.append({
                "type": "alert", "alert": "cut_card_position", "by": "station",
                "shoe": shoe.shoe_id, "round": self.round_no or None,
                "detail": f"cut card after {at} cards: penetration {share:g}, outside "
                          f"table.penetration {band_text(band)}"})

    def cut_seen_before(self) -> bool:
        return self.cut_seen

    def cut_closes_shoe_now(self) -> bool:
        return self.cut_policy == "close_shoe"

    def mark_next_round_last(self) -> None:
        self.note_cut_card()
        self.last_round = True

    def note_cut_card_no_shoe(self) -> None:
        self.notices.append("cut card seen with no shoe in play: ignored")

    def note_cut_card_while_paused(self) -> None:
        # The same rules as outside a pause, applied to the phase the pause came from.
        first = not self.cut_seen
        self.note_cut_card()
        src = self.paused_from
        if not first or src in (P.NO_SHOE, P.SHUFFLE_CHECK, P.SHOE_CLOSED):
            return
        if src in BURN:
            self.last_round = True
            self.add_pause_reason(_CUT_IN_BURN)
        elif src is P.BETWEEN_ROUNDS and self.cut_policy == "close_shoe":
            self.close_on_resume = True
            self.notices.append("cut card seen while paused: the shoe closes when cleared")
        elif src is P.BETWEEN_ROUNDS:
            self.last_round = True
            self.notices.append("cut card seen while paused: the next round is the last")
        else:
            self.last_round = True
            self.notices.append("cut card seen while paused: this round is the last")

    def close_if_pending(self, actor: str) -> None:
        if self.close_on_resume and self.state == P.BETWEEN_ROUNDS.value:
            self.close_on_resume = False
            self.last_round_ended()

    def pause_cut_card_in_burn(self) -> None:
        self.note_cut_card()
        self.last_round = True
        self._pause(_CUT_IN_BURN)

    # --- pauses ---------------------------------------------------------------------------
    def _pause(self, reason: str, action: str = "") -> None:
        self.paused_from = self.phase
        self.raised = None  # the station sets it after a dealer's pause begins
        self._reasons.start(reason)
        self.pause_reasons = self._reasons.shown()
        self.pause_actions = [action] if action else []
        self.drawn_while_paused.clear()
        self.drawn_count = 0

    def pause_for(self, reason: str, action: str = "") -> None:
        self._pause(reason, action)

    def add_pause_reason(self, reason: str, action: str = "") -> None:
        if self._reasons.add(reason):
            self.pause_reasons = self._reasons.shown()
        if action and action not in self.pause_actions:
            self.pause_actions.append(action)

    def replace_pause_action(self, old: str, new: str) -> None:
        """Change one instruction once it has been followed (a re-scan received)."""
        self.pause_actions = [new if a == old else a for a in self.pause_actions]

    def pause_card_not_due(self, card: Card) -> None:
        self._set_aside(card)
        if self.phase is P.REVEAL:
            # Named without its value: while a squeeze is on, no card value leaves the station.
            self._pause("card not due: a card was drawn before the cards dealt face down were "
                        "revealed", "set it aside face down")
            return
        self._pause(f"card not due: {card.code} ({self._why_not_due()})", "set it aside")

    def _why_not_due(self) -> str:
        phase = self.phase
        if phase is P.BETTING_OPEN:
            return "betting is still open"
        if phase is P.NO_SHOE:
            return "no shoe started"
        if phase is P.SHUFFLE_CHECK:
            return "the shuffle is not confirmed yet"
        if phase is P.SHOE_CLOSED:
            return "the shoe is closed"
        # Between rounds: name the third card the dealer probably reached for.
        result = self.last_result
        if result is None or result["status"] != "complete":
            return "no round is open"
        if result["natural"]:
            return "extra card: a natural, no third cards"
        p3, b3 = len(result["player"]) == 3, len(result["banker"]) == 3
        if not p3 and not b3:
            return (f"extra card: player stands on {result['player_total']}, banker stands on "
                    f"{result['banker_total']}")
        if p3 and not b3:
            return "extra card to banker: banker stands"
        return "extra card: the round is over"

    def _set_aside(self, card: Card) -> None:
        if self.shoe is not None:
            self.shoe.stray.append(card)

    def set_aside_card_while_paused(self, card: Card) -> None:
        self._set_aside(card)
        self.drawn_while_paused.append(card.code)
        self.drawn_count += 1
        # One reason listing every such card, so two identical strays read as two; past
        # DRAWN_SHOWN cards, the last ones (a reader repeating a card must not grow it).
        self._reasons.drop_prefixed(_DRAWN_PAUSED)
        n = self.drawn_count
        cards = " ".join(self.drawn_while_paused)
        if n > DRAWN_SHOWN:
            cards = f"the last {DRAWN_SHOWN}: {cards}"
        self.add_pause_reason(f"{_DRAWN_PAUSED} {n} card{'s' * (n > 1)} ({cards})",
                              "set the cards drawn while paused aside")
        self.pause_reasons = self._reasons.shown()

    def set_strays_aside(self, actor: str) -> None:
        if self.shoe is not None:
            self.shoe.discarded.extend(self.shoe.stray)
            self.shoe.stray.clear()
        self.raised = None
        self._reasons.clear()
        self.pause_reasons = []
        self.pause_actions = []

    def void_round(self, actor: str) -> None:
        reason = "; ".join(self.pause_reasons) or "voided by supervisor"
        self.set_strays_aside(actor)
        if not self.round_open:
            return
        assert self.shoe is not None
        self.shoe.discarded.extend(self.player)
        self.shoe.discarded.extend(self.banker)
        self.round_open = False
        # A void ends the squeeze: the void record lists the cards.
        self.to_reveal = []
        self.revealed_n = {"player": len(self.player), "banker": len(self.banker)}
        record = void_record(
            self.shoe.shoe_id, self.round_no, player=tuple(self.player),
            banker=tuple(self.banker), reason=reason, actor=actor, note=self.void_note,
            dealer=self.dealer,
        )
        if self.settler is not None or self.skipped:
            self._add_bets(record, None)
        self._add_cut_card(record)
        self._publish(record)

    def void_closes_shoe(self, actor: str) -> bool:
        src = self.paused_from
        return src in BURN or src is P.SHOE_CLOSED or (self.round_open and self.last_round)


def _add_paused_from_predicates() -> None:
    # One predicate per phase for the resume transitions, so the table stays declarative.
    for phase in Phase:
        def pred(self: Dealing, *args: Any, _p: Phase = phase) -> bool:
            return self.paused_from is _p

        setattr(Dealing, f"paused_from_{phase.value}", pred)


_add_paused_from_predicates()
