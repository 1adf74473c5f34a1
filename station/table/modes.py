"""The table modes of the rule pages (RULES.md 4, docs/modes.md) on one station.

Pure: no I/O and no clock. Time enters only as events: the station keeps its deadlines here
(``deadlines``, name -> due time) and a ``TimerExpired`` that the daemon's clock, or a
simulation at virtual time, posts when one falls due is journaled like any input, so a replay
reproduces every output with no clock at all.

- Betting (``table.betting``): by the dealer's buttons, by the station's countdown (betting
  opens as soon as the table is between rounds and closes ``betting_s`` later), or by the
  game server's commands. Betting commands from anyone else are refused.
- Squeeze and VIP (``table.mode``): cards are dealt face down and wait in the machine's
  ``reveal`` phase; a reveal opens the player hand, then the banker hand, then each third card.
  Squeeze: each reveal has a deadline (``reveal_s``). VIP (seed 003 包桌): the player may open
  the cards within ``open_cards_s`` of betting closing, after which the system opens them; a
  round may be skipped (飞牌, dealt face up with no bets), ``max_skips`` in a row at most; a new
  shoe may be asked for once ``new_shoe_after`` rounds have been played, and is late (the
  supervisor is alerted) ``new_shoe_s`` after the shoe closed; another dealer may be asked for.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from drivers.events import Command, TimerExpired
from station.table.actions import MODE_ACTIONS
from station.table.dealers import DealerDesk
from station.table.machine import DEALING, Dealing
from station.table.tablerules import TableRules


class ModesHost(Protocol):
    """What the modes may do to their station: read its round and its dealers, add a notice
    or refuse a command among the outputs of the event being applied. Nothing more, so the
    modes never import the station (``station.table.station.Station`` is one)."""

    @property
    def dealing(self) -> Dealing: ...

    @property
    def dealers(self) -> DealerDesk: ...

    def note(self, text: str) -> None: ...

    def refuse(self, ev: Command, detail: str, *, text: str | None = None,
               reason: str = "not_now") -> None: ...


# An upstream command's actor ends with its id in brackets (station.live.daemon): that is how the
# station tells the game server's betting commands from a dealer's button.
UPSTREAM_ACTOR = re.compile(r"\[([^\]]{1,128})\]$")
TIMERS = ("betting_opens", "betting", "reveal", "open_cards", "new_shoe")
_DEALING_STATES = frozenset(p.value for p in DEALING) | {"reveal"}


def upstream_id(actor: str) -> str | None:
    """The command id of an upstream command's actor; None for a person at the table."""
    m = UPSTREAM_ACTOR.search(actor)
    return m.group(1) if m else None


class TableModes:
    """Timers, betting control, reveals and the VIP requests of one station."""

    def __init__(self, station: ModesHost, rules: TableRules) -> None:
        self.station = station
        self.rules = rules
        self.vip = rules.mode == "vip"
        self.squeeze = rules.mode == "squeeze"
        self.timed_betting = rules.betting == "timer"
        # Nothing to do after an event on a standard table driven by its dealer: the fast
        # simulation pays one attribute test per event for the modes.
        self.active = rules.mode != "standard" or rules.betting != "dealer"
        self.deadlines: dict[str, float] = {}
        self._keys: dict[str, tuple[Any, ...]] = {}  # what each deadline was set for
        self.pauses = 0  # pauses begun: a resume starts every countdown again in full
        self._paused = False
        # The states in which ``after`` has anything to do for this table's modes.
        busy = {"paused"}
        if self.timed_betting:
            busy |= {"between_rounds", "betting_open"}
        if self.squeeze or self.vip:
            busy |= {"reveal"}
        if self.vip:
            busy |= _DEALING_STATES | {"no_shoe", "burn_indicator", "shoe_closed"}
        self.busy = frozenset(busy)
        self.skips_in_a_row = 0
        self.new_shoe_requested = False
        self.new_shoe_late = False

    @property
    def dealing(self) -> Dealing:
        return self.station.dealing

    # --- commands -------------------------------------------------------------------------
    def betting_refusal(self, ev: Command) -> str | None:
        """Why a betting command is not taken on this table, or None when it is."""
        # The pattern ends with "]" and a "$" that also matches before a final newline: it
        # is searched only for such an actor.
        from_upstream = ev.actor.endswith(("]", "]\n")) and upstream_id(ev.actor) is not None
        if self.rules.betting == "timer":
            return "this table's betting runs on the station's countdown"
        if self.rules.betting == "upstream" and not from_upstream:
            return "this table's betting is opened and closed by the game server"
        if self.rules.betting == "dealer" and from_upstream:
            return "this table's betting is driven by the dealer"
        return None

    def command(self, ev: Command) -> bool:
        """Handle a mode command (reveal, skip, the VIP requests); False if not one."""
        if ev.action not in MODE_ACTIONS:
            return False
        d = self.dealing
        what = ev.action.replace("_", " ")
        if ev.action == "reveal":
            if not (self.vip or self.squeeze):
                self.refuse(ev, "this table deals face up (table.mode is standard)")
            elif d.state != "reveal":
                self.refuse(ev, "no card is waiting for its reveal")
            else:
                hand = d.to_reveal[0]
                d.revealed(ev.actor)
                self.station.note(f"{hand} cards revealed by {ev.actor}")
            return True
        if not self.vip:
            self.refuse(ev, f"{what} is a VIP table's request (table.mode is {self.rules.mode})")
            return True
        if ev.action == "skip":
            self._skip(ev)
        elif ev.action == "request_new_shoe":
            self._request_new_shoe(ev)
        else:
            refused = self.station.dealers.request_change()
            if refused is not None:
                self.refuse(ev, refused)
                return True
            self.station.note(f"another dealer asked for by {ev.actor}: the dealer goes on "
                              "until the new one signs in")
            self.announce({"type": "alert", "alert": "dealer_requested", "by": ev.actor,
                           **self._where(),
                           "detail": "another dealer was asked for; the dealer goes on until "
                           "the new one signs in"})
        return True

    def vip_refusal(self, action: str) -> str | None:
        """Why the VIP request ``action`` (skip, request_new_shoe, request_dealer) would be
        refused now, or None when it would be taken: one answer for the command and for the
        page that offers the button."""
        d = self.dealing
        if action == "skip":
            if d.state not in ("between_rounds", "betting_open"):
                return "a round can be skipped only before its cards are dealt"
            if d.state == "betting_open" and d.skipped:
                return "this round is skipped already"
            if self.skips_in_a_row >= self.rules.max_skips:
                return (f"{self.skips_in_a_row} rounds skipped in a row already, the most "
                        "the VIP rules allow; this round is played")
            return None
        if action == "request_new_shoe":
            if d.shoe is None or d.state in ("no_shoe", "shoe_closed", "burn_indicator",
                                             "burning"):
                return "no shoe is in play"
            played = d.round_no - (1 if d.round_open else 0)
            if played < self.rules.new_shoe_after:
                return (f"{played} rounds played in this shoe; a new shoe may be asked for "
                        f"once {self.rules.new_shoe_after} have been played")
            if d.state == "paused":
                return "the table is paused; ask again when it deals"
            return None
        if action == "request_dealer":
            if self.station.dealers.change_requested:
                return "a request for another dealer is open already"
            return None
        raise ValueError(f"not a VIP request: {action!r}")

    def _skip(self, ev: Command) -> None:
        d = self.dealing
        refused = self.vip_refusal("skip")
        if refused is not None:
            self.refuse(ev, refused)
            return
        if d.state == "between_rounds":
            d.betting_opened()
        d.skipped = True
        d.open_bets = []
        self.skips_in_a_row += 1
        # What went out with betting open is corrected by betting closed (``skipped``).
        for a in d.announcements:
            if a.get("type") == "betting_open":
                a["skipped"] = True
                a["open_bets"] = []
                if "rtp" in a:  # the bet guard's returns are of open bets: none now
                    a["rtp"] = {}
        d.betting_closed()
        self.station.note(f"round {d.round_no} skipped by {ev.actor} "
                          f"({self.skips_in_a_row} in a row): dealt face up, no bets")

    def _request_new_shoe(self, ev: Command) -> None:
        d = self.dealing
        refused = self.vip_refusal("request_new_shoe")
        if refused is not None:
            self.refuse(ev, refused)
            return
        self.new_shoe_requested = True
        self.new_shoe_late = False
        if d.round_open:
            d.last_round = True
            self.station.note(f"new shoe asked for by {ev.actor}: round {d.round_no} is the "
                              "shoe's last")
        else:
            d.last_round_ended()
            self.station.note(f"new shoe asked for by {ev.actor}: the shoe is closed")

    def refuse(self, ev: Command, why: str) -> None:
        self.station.refuse(ev, why)

    def _where(self) -> dict[str, Any]:
        d = self.dealing
        return {"shoe": d.shoe.shoe_id if d.shoe is not None else None,
                "round": d.round_no or None}

    def announce(self, message: dict[str, Any]) -> None:
        self.dealing.announcements.append(message)

    # --- time -----------------------------------------------------------------------------
    def on_timer(self, ev: TimerExpired) -> None:
        due = self.deadlines.get(ev.timer)
        if due is None or ev.ts < due or self.dealing.state == "paused":
            # Never from this station's own clock; a recording edited by hand, say.
            self.station.note(f"timer {ev.timer!r} is not due: ignored")
            return
        del self.deadlines[ev.timer]
        d = self.dealing
        if ev.timer == "betting_opens":
            d.betting_opened()
        elif ev.timer == "betting":
            d.betting_closed()  # the prompt and betting_closed upstream say so: no notice
        elif ev.timer == "reveal":
            hand = d.to_reveal[0]
            d.revealed("timer")
            self.station.note(f"{hand} cards revealed: the squeeze's "
                              f"{self.rules.reveal_s:g} s were up")
        elif ev.timer == "open_cards":
            d.auto_reveal = True
            while d.state == "reveal":
                d.revealed("timer")
            self._open_dealt()
            self.station.note(f"the system opens the cards: {self.rules.open_cards_s:g} s "
                              "since betting closed")
        else:
            self.new_shoe_late = True
            self.station.note(f"NEW SHOE LATE: asked for {self.rules.new_shoe_s:g} s ago; "
                              "supervisor alerted")
            self.announce({"type": "alert", "alert": "new_shoe_late", "by": "timer",
                           **self._where(),
                           "detail": f"the new shoe asked for is not started after "
                           f"{self.rules.new_shoe_s:g} s"})

    def _open_dealt(self) -> None:
        """The VIP deadline came while cards were still being dealt: the face-down cards
        already on the table are opened too, with a reveal each hand, so every card's value
        goes upstream before the result (the rest of the round is dealt face up)."""
        d = self.dealing
        for hand, cards in (("player", d.player), ("banker", d.banker)):
            first = d.revealed_n[hand]
            if len(cards) > first and d.shoe is not None:
                d.revealed_n[hand] = len(cards)
                self.announce({"type": "reveal", "shoe": d.shoe.shoe_id, "round": d.round_no,
                               "hand": hand, "by": "timer",
                               "cards": [[i + 1, c.code] for i, c in enumerate(cards)
                                         if i >= first]})

    def after(self, ts: float) -> None:
        """After every event: what the mode does by itself, then the deadlines it sets."""
        d = self.dealing
        state = d.state
        if state not in self.busy:
            # A state in which this table's modes do nothing and want no deadline (a card
            # mid-round on a timer table): most events stop here, keeping timers cheap.
            if self.deadlines:
                self.deadlines.clear()
            return
        if state == "paused":
            if not self._paused:
                self._paused = True
                self.pauses += 1
            self.deadlines.clear()  # a pause stops every countdown
            return
        self._paused = False
        if state == "player_1" and not d.skipped:
            self.skips_in_a_row = 0  # a round is played: the run of skips is broken
        if state == "reveal" and d.auto_reveal:
            while d.state == "reveal":
                d.revealed("timer")
            state = d.state
        if state == "no_shoe" or (state == "burn_indicator" and self.new_shoe_requested):
            self.new_shoe_requested = self.new_shoe_late = False
        self._sync(ts, state)
        if "betting" in self.deadlines:
            for a in d.announcements:
                if a.get("type") == "betting_open" and a.get("round") == d.round_no:
                    a["closes_at"] = self.deadlines["betting"]
                    a["betting_s"] = self.rules.betting_s

    def _wanted(self, state: str) -> tuple[str, tuple[Any, ...], float] | None:
        """The one deadline this table wants in ``state`` (no state wants two): its name,
        what it is about (its key) and its length."""
        d = self.dealing
        rules = self.rules
        if self.timed_betting and state == "between_rounds":
            # Betting opens after the last result, as an event of its own: what the result
            # sent upstream (its last card) is never mixed with the next round's opening.
            return "betting_opens", (d.shoes_started, d.round_no, self.pauses), rules.result_s
        if self.timed_betting and state == "betting_open":
            if d.skipped:
                return None
            return "betting", (d.shoes_started, d.round_no, self.pauses), rules.betting_s
        if self.squeeze and state == "reveal":
            step = (d.shoes_started, d.round_no, len(d.player) + len(d.banker),
                    len(d.to_reveal), self.pauses)
            return "reveal", step, rules.reveal_s
        if (self.vip and d.round_open and state in _DEALING_STATES and not d.skipped
                and not d.auto_reveal):
            return ("open_cards", (d.shoes_started, d.round_no, self.pauses),
                    rules.open_cards_s)
        if (self.vip and state == "shoe_closed" and self.new_shoe_requested
                and not self.new_shoe_late):  # the alarm is raised once
            return "new_shoe", (d.shoes_started, self.pauses), rules.new_shoe_s
        return None

    def _sync(self, ts: float, state: str) -> None:
        want = self._wanted(state)
        deadlines = self.deadlines
        if want is None:
            deadlines.clear()
            return
        name, key, seconds = want
        for other in [n for n in deadlines if n != name]:
            del deadlines[other]
        if self._keys.get(name) != key:
            # A deadline is set once for what it is about; once it fired it stays gone.
            self._keys[name] = key
            deadlines[name] = ts + seconds
