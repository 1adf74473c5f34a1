"""The station core: applies one input event at a time and says what follows.

``Station.apply`` is the single writer's only entry point. It is deterministic in its inputs
(no clock, no I/O), so a recording replayed through it reproduces every output exactly.
Before the machine sees a read, the station drops a double read from the same reader inside
the dedupe window (by time, never by value: two identical cards in a row are legal in an
8-deck shoe), refuses a code that is not a card, and refuses a card the shoe cannot hold.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
from transitions import MachineError

from drivers.events import (
    CardRead,
    ClockAlert,
    Command,
    ConfigChanged,
    CutCardSeen,
    DeviceLost,
    DeviceRestored,
    InputEvent,
    InstallModified,
    TimerExpired,
)
from station.game.betguard import BetGuard
from station.game.bets.model import Paytable
from station.game.cards import Card, try_parse_card
from station.game.rules import BANKER_DRAWS
from station.game.shoe import ShoeCounts
from station.table import dealers as dealer_rules
from station.table.acks import ArchiveMark, parse_ack, parse_resend, take
from station.table.actions import (
    ARCHIVED_ACTION,
    COMMAND_TRIGGERS,
    CONFIRM_ACTION,
    PAUSE_ACTION,
    RESEND_ACTION,
    WIRE_NAMES,
)
from station.table.dealers import DealerDesk
from station.table.integrity import CARD_STATES, ShoeIntegrity, iso
from station.table.machine import BURN, DEALING, IN_ROUND, Dealing, Phase
from station.table.modes import TableModes, upstream_id
from station.table.msg import Msg, msg
from station.table.outputs import (
    Announced,
    Notice,
    Output,
    Prompt,
    Published,
    Refused,
    RefusedOutside,
    duration_said,
    duration_words,
)
from station.table.pauses import NoiseWatch, noise_reason
from station.table.procedures import (
    PACK_SHOWN,
    PACKS_MAX,
    PAUSE_WORDS,
    pack_of,
    pause_problem,
    pause_reason,
)
from station.table.tablerules import TableRules

_CARD_DUE = (*BURN, *DEALING)
_RESCAN = "show the card face up and scan it again"
_CHECK_DEVICE = "check its cable and power"
_CUT_OUT = "CUT CARD OUT: this round is the last"
_END_ASKED = "END SHOE asked for: this round is the last"  # END SHOE or close_shoe, mid-round
# A VIP player's new shoe asked for mid-round (seed 003 更换牌靴): the shoe ends after this
# round with no cut card out, so the instruction says who ended it, never the cut card.
_PLAYER_ASKED = "NEW SHOE asked for by the player: this round is the last"
_CHECK_TABLE = "check the cards on the table against those shown"
_CHECK_NOISE = "check the reader's cable and its port settings"
RESTART = "restart"  # the Command a daemon journals after rebuilding the station on start

# What each supervisor action will do, by the phase the pause came from: shown with the
# pause so the supervisor decides knowing the consequence.
_IN_ROUND_CHOICE = "supervisor: resume continues the round, void refunds it"
# Message ids the instructions pick by a value (written whole, so a test finds each in use).
_WAIT_IDS = {"upstream": "prompt.wait_upstream", "timer": "prompt.wait_timer"}
_HOW_IDS = {"dealer": "how.dealer", "timer": "how.timer", "upstream": "how.upstream"}
_HAND_IDS = {"player": "hand.player", "banker": "hand.banker"}
_HEAD_IDS = {"player": "head.player", "banker": "head.banker", "tie": "head.tie"}
# The same choices as message ids, for the pages (station.web.catalogue).
_IN_ROUND_CHOICE_ID = "choice.round"
SUPERVISOR_CHOICE_IDS: dict[Phase | None, str] = {
    Phase.BURN_INDICATOR: "choice.burn", Phase.BURNING: "choice.burn",
    Phase.BETWEEN_ROUNDS: "choice.aside_goes_on", Phase.NO_SHOE: "choice.aside",
    Phase.SHUFFLE_CHECK: "choice.aside_check_due", Phase.SHOE_CLOSED: "choice.aside",
    **{p: _IN_ROUND_CHOICE_ID for p in (Phase.BETTING_OPEN, Phase.PLAYER_1, Phase.BANKER_1,
                                        Phase.PLAYER_2, Phase.BANKER_2, Phase.PLAYER_3,
                                        Phase.BANKER_3, Phase.REVEAL)},
}
SUPERVISOR_CHOICES: dict[Phase | None, str] = {
    Phase.BURN_INDICATOR: "supervisor: resume continues the burn, void abandons the shoe",
    Phase.BURNING: "supervisor: resume continues the burn, void abandons the shoe",
    Phase.BETWEEN_ROUNDS: "supervisor: resume or void sets the card aside and goes on",
    Phase.NO_SHOE: "supervisor: resume or void sets the card aside",
    Phase.SHUFFLE_CHECK: "supervisor: resume or void sets the card aside; the shuffle check is "
                         "still due",
    Phase.SHOE_CLOSED: "supervisor: resume or void sets the card aside",
    **{p: _IN_ROUND_CHOICE for p in (Phase.BETTING_OPEN, Phase.PLAYER_1, Phase.BANKER_1,
                                     Phase.PLAYER_2, Phase.BANKER_2, Phase.PLAYER_3,
                                     Phase.BANKER_3, Phase.REVEAL)},
}




# A command refused before it reached the station (a bad signature, a stale command, a wrong
# PIN on the page): journaled with its whole story in its actor, so the station records it.
REFUSED_OUTSIDE = "command_refused"



def refused_parts(action: str, reason: str, figure: int | None) -> str:
    """The parts of a refusal made before the station, as a ``command_refused`` Command's
    ``code`` carries them into the journal: JSON, sorted keys."""
    return orjson.dumps({"action": action, "figure": figure, "reason": reason},
                        option=orjson.OPT_SORT_KEYS).decode()


def refused_outside(ev: Command) -> Notice:
    """The notice of a ``command_refused`` Command: its line, and its parts when it has them
    (a journal written before they were carried has only the line)."""
    if ev.code is None:
        return Notice(ev.actor)
    try:
        parts = orjson.loads(ev.code)
        figure = parts.get("figure")
        return RefusedOutside(ev.actor, str(parts["action"]), str(parts["reason"]),
                              figure if isinstance(figure, int) else None)
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
        return Notice(ev.actor)  # parts it cannot read: the line says it all the same


def _guard(rules: TableRules, paytable: Paytable | None) -> BetGuard | None:
    """The table's bet guard, or None when it is off or there are no bets to guard.
    ``ConfigError`` for a paytable with a bet the guard cannot value."""
    if rules.bet_guard == "off" or paytable is None:
        return None
    return BetGuard(paytable, rules.bet_guard, rules.bet_guard_max_rtp)


# The clock's states (``Station.clock``, every status's ``clock``): a ``ClockAlert`` of one of
# these names sets it; ``clock_unsynchronised`` is also an alert, ``clock_jump`` only an alert.
CLOCK_SYNCHRONISED = "synchronised"
CLOCK_UNSYNCHRONISED = "unsynchronised"
CLOCK_UNKNOWN = "unknown"
CLOCK_STATES = {"clock_synchronised": CLOCK_SYNCHRONISED,
                "clock_unsynchronised": CLOCK_UNSYNCHRONISED, "clock_unknown": CLOCK_UNKNOWN}


class Station:
    """One table's source of truth. Call ``apply`` from one thread only."""

    def __init__(self, rules: TableRules, paytable: Paytable | None = None, *,
                 prompts: bool = True, session: str = "") -> None:
        """``prompts=False`` builds no ``Prompt`` outputs: for a run with no display (a fast
        simulation), where composing the dealer's text for every card would be wasted.
        ``session`` goes into every shoe id, so two daemon starts within the same second
        never publish the same round key; a recording keeps it for replay."""
        self.rules = rules
        self.session = session
        self._prompts = prompts
        self.paytable = paytable
        self.dealing = Dealing(rules.table, rules.decks, rules.cut_card_between_rounds,
                               paytable, face_down=rules.mode in ("squeeze", "vip"),
                               guard=_guard(rules, paytable),
                               procedures=rules.procedures)
        self.modes = TableModes(self, rules)
        self._dedupe_s = rules.dedupe_ms / 1000.0
        self._last_read: dict[str, tuple[object, float]] = {}
        self._rescan_wanted = False  # paused on an unreadable card that was due
        self._noise = NoiseWatch()  # readers flooding the station with bad codes
        self._lost: dict[str, str] = {}
        # The clock check's last journaled finding (station.live.clock): every status
        # says it; "unknown" until a check has said.
        self.clock = CLOCK_UNKNOWN
        self._out: list[Output] = []
        self._shown = self._prompt()
        self._prompt_key: tuple[object, ...] = ()
        self.dealers = DealerDesk()  # who deals: signed in by badge or from the display
        # Shoe integrity: the report at each shoe's end and the repeated-shoe alarm.
        self.integrity = ShoeIntegrity(rules.repeat_cards, rules.repeat_threshold,
                                       rules.repeat_history)
        self._watch = self.integrity.watch
        # The archive's last acknowledgement per journal (station.table.acks), as journaled: shown
        # in the metrics and the view; retention reads them back from the journals instead.
        self.archive_marks: dict[str, ArchiveMark] = {}

    @property
    def prompt(self) -> Prompt:
        """What the display shows now; without prompts, composed when asked (a fast run
        still says where it ended)."""
        return self._shown if self._prompts else self._prompt()

    @property
    def phase(self) -> Phase:
        return self.dealing.phase

    @property
    def deadlines(self) -> dict[str, float]:
        """The deadlines set now (timer name -> due time, the events' clock): the daemon's
        clock posts a ``TimerExpired`` for each when it falls due."""
        return self.modes.deadlines

    def note(self, text: str) -> None:
        """A notice among the outputs of the event being applied."""
        self._out.append(Notice(text))

    def refuse(self, ev: Command, detail: str, *, text: str | None = None,
               reason: str = "not_now") -> None:
        """``ev`` is not taken, because ``detail``: a ``Refused`` among the outputs (shown as
        ``text``, by default "<action> refused from <actor>: <detail>"), and for a command
        from upstream its ``command_refused`` answer, journaled with this event like every
        message (docs/upstream.md)."""
        if text is None:
            text = f"{ev.action.replace('_', ' ')} refused from {ev.actor}: {detail}"
        self._out.append(Refused(text, ev.action, ev.actor, reason, detail))
        command_id = upstream_id(ev.actor)
        if command_id is not None:
            self.dealing.announcements.append({
                "type": "command_refused", "command_id": command_id,
                "action": WIRE_NAMES.get(ev.action, ev.action), "reason": reason,
                "detail": detail})

    def refused_while_lost(self, action: str) -> str | None:
        """Why ``action`` (``resume``, ``void``) is refused now for a device still lost, or
        None. The page asks too, so it never offers what the station refuses (issue 30)."""
        if self._lost and (action == "resume"
                           or (action == "void" and not self.dealing.round_open)):
            # A void still voids a round in play (its bets are refunded, the device-lost pause
            # latched again); with no round it would only set cards aside under a pause that
            # stays, an answer nobody could see: refused as resume is, until the device is back.
            return f"{', '.join(sorted(self._lost))} still lost; reconnect it first"
        return None

    @property
    def lost_devices(self) -> dict[str, str]:
        """Devices lost now, with what their driver said (a copy, for the display)."""
        return dict(self._lost)

    def prepare(self) -> None:
        """Build now the tables a round would otherwise build when it first needs them (the
        settlement's classes and cases, the bet guard's analyzer and running shoe). The
        daemon calls it on a thread of its own once READY=1 is out, its loop holding any
        event until it is done. Nothing it builds changes an output."""
        if self.dealing.settler is not None:
            self.dealing.settler.prepare()
        if self.dealing.guard is not None:
            self.dealing.guard.prepare()

    def apply(self, event: InputEvent) -> list[Output]:
        """Apply one event; return the notices, published rounds and prompt change it caused."""
        out = self._out = []
        if self._noise.sources:
            for source, n in self._noise.ended(event.ts):
                out.append(Notice(f"{source} stopped sending noise: {n} bad codes in all"))
        kind = type(event)
        if kind is CardRead:
            self._on_card(event)  # type: ignore[arg-type]
        elif kind is CutCardSeen:
            self.dealing.cut_card_seen()
        elif kind is Command:
            self._on_command(event)  # type: ignore[arg-type]
        elif kind is DeviceLost:
            self._on_lost(event)  # type: ignore[arg-type]
        elif kind is DeviceRestored:
            self._on_restored(event)  # type: ignore[arg-type]
        elif kind is TimerExpired:
            self.modes.on_timer(event)  # type: ignore[arg-type]
        elif kind is ClockAlert:
            self._on_clock(event)  # type: ignore[arg-type]
        elif kind is ConfigChanged:
            self._on_config(event)  # type: ignore[arg-type]
        elif kind is InstallModified:
            self._on_install(event)  # type: ignore[arg-type]
        else:
            raise TypeError(f"not an input event: {event!r}")
        d = self.dealing
        modes = self.modes
        if modes.active and (modes.deadlines or d.state in modes.busy):
            modes.after(event.ts)
        if d.notices:
            out.extend(Notice(n) for n in d.notices)
            d.notices.clear()
        if d.announcements:
            out.extend(Announced(m) for m in d.announcements)
            d.announcements.clear()
        if d.published:
            for r in d.published:
                out.append(Published(r))
            d.published.clear()
        # Shoe integrity; it may pause (a repeated shoe), so before the prompt.
        if kind is not CardRead or out or d.state in CARD_STATES or self.integrity.match:
            self.integrity.after(event, d, out)
            if modes.deadlines and d.state == "paused":
                modes.after(event.ts)  # the repeated-shoe pause stops every countdown too
        if not self._prompts:
            return out
        # The prompt is a function of these facts only; building it on every event would cost
        # a tenth of the per-card budget, so it is rebuilt only when one of them changed.
        key = (d.state, d.burn_left, d.round_no, d.last_round, tuple(d.pause_reasons),
               tuple(d.pause_actions), id(d.last_result), len(d.to_reveal),
               self.modes.new_shoe_late, self.modes.new_shoe_requested, d.skipped,
               d.end_requested_by)
        if key != self._prompt_key:
            self._prompt_key = key
            prompt = self._prompt()
            if prompt != self._shown:
                self._shown = prompt
                out.append(prompt)
        return out

    # --- reads ----------------------------------------------------------------------------
    def _on_card(self, ev: CardRead) -> None:
        card = try_parse_card(ev.code)
        # A reader flooding the station with codes that are not cards (a bad cable, the wrong
        # baud rate) is one fault: judged before the double-read window, so a scanner stuck
        # on one bad code is a flood too, not a notice per frame (station.table.pauses).
        if card is None:
            judged = self._noise.bad(ev.source, ev.ts)
            if judged == "swallow":
                return  # inside a flood already reported: nothing to show or publish
            if judged == "flood":
                self.dealing.fault(noise_reason(ev.source), _CHECK_NOISE)
                return
        # A double read is the same card twice, whatever its spelling: '4S' then '4s', '4S\r'
        # or 'TS' then '10S' 50 ms apart are one card. By time, never by value alone: two
        # identical cards in a row are legal in an 8-deck shoe.
        ident: object = card if card is not None else ev.code.strip()
        last = self._last_read.get(ev.source)
        self._last_read[ev.source] = (ident, ev.ts)
        # abs(): a wall clock stepped back (NTP) must not turn a bounce into a second card.
        # The window first: it rules out nearly every read before any card is compared.
        if (last is not None and self._dedupe_s > 0.0 and abs(ev.ts - last[1]) <= self._dedupe_s
                and last[0] == ident):
            # While cards are face down their values stay in the station (docs/modes.md).
            what = "a card" if self.dealing.face_down else ascii(ev.code)
            self._out.append(
                Notice(
                    f"double read of {what} from {ev.source} within "
                    f"{self.rules.dedupe_ms} ms suppressed"
                )
            )
            return
        d = self.dealing
        if card is None:
            # A dealer's badge, after the double-read window (a bouncing badge read signs in
            # once) and after the card parse (a code that is a card is a card, and a card
            # pays nothing for badges).
            if self.rules.pack_prefix and self._on_pack(ev):
                return
            if self.rules.badge_prefix and self._on_badge(ev):
                return
            self._on_unreadable(ev)
            return
        if ev.pack is not None and d.shuffle is not None and not self._of_this_shoe(ev, card):
            return
        if d.state == "paused" and self._rescan_wanted and not (d.shoe and d.shoe.held):
            self._on_rescan(card)
            return
        if d.shoe is not None and d.state != "no_shoe" and not self._count(d.shoe, card):
            return
        d.card_read(card)

    def _count(self, shoe: ShoeCounts, card: Card) -> bool:
        """Count ``card`` as drawn, or pause if the shoe cannot hold another copy of it."""
        # ShoeCounts.can_take and take, inline: this runs on every card.
        counts, i = shoe.counts, card.index
        if counts[i] >= shoe.decks:
            self.dealing.fault(
                f"{card.code} would be copy {counts[i] + 1} in a "
                f"{shoe.decks}-deck shoe: foreign card or misread", "set it aside"
            )
            return False
        counts[i] += 1
        if self._watch.collecting:
            self.integrity.card(card, self.dealing)
        return True

    def _on_unreadable(self, ev: CardRead) -> None:
        """A code that is not a card. Where a card is due, the dealer shows it face up and
        scans it again while paused; the station holds that re-scan and deals it as the due
        card when the supervisor resumes, so following the display never counts it twice."""
        d = self.dealing
        # On a face-down table a misread may hold part of a hidden card's code: not shown.
        # !a, not !r: what is not ASCII is shown escaped, never as a look-alike
        # (the same as repr() for the ASCII codes every reader sends).
        code = "" if d.face_down else f" {ev.code!a}"
        reason = f"unreadable code{code} from {ev.source}: not a card"
        due = d.phase in _CARD_DUE or (d.state == "paused" and d.paused_from in _CARD_DUE)
        if not due:
            d.fault(reason + " (no card is due)", "set the card aside")
            return
        if d.shoe is not None and d.shoe.held:
            # The card is already identified: a second garbled read changes nothing.
            d.fault(reason, "")
            return
        self._rescan_wanted = True
        d.fault(reason, _RESCAN)

    def _on_rescan(self, card: Card) -> None:
        d = self.dealing
        shoe = d.shoe
        assert shoe is not None  # a card-due phase has a shoe
        if not self._count(shoe, card):
            return
        shoe.held.append(card)
        if d.face_down:
            # Its value stays in the station until its reveal, as every face-down card's.
            d.replace_pause_action(_RESCAN, "re-scanned: keep it face down; resume deals it as "
                                   "the due card, void sets it aside")
            self._out.append(Notice("re-scan read a card: held for the supervisor"))
            return
        d.replace_pause_action(
            _RESCAN, f"re-scanned as {card.code}: keep it face up; resume deals it as the due "
            "card, void sets it aside",
        )
        self._out.append(Notice(f"re-scan read {card.code}: held for the supervisor"))

    # --- people ---------------------------------------------------------------------------
    def _on_command(self, ev: Command) -> None:
        if ev.action == RESTART:
            self._on_restart()
            return
        if ev.action == REFUSED_OUTSIDE:
            # Refused and answered before the station (station.live.daemon, station.web): the
            # actor says who sent what and why it was refused; ``code``, when given, holds the
            # refusal's parts (refused_parts), for a page to word it in its language.
            self._out.append(refused_outside(ev))
            return
        if ev.action == ARCHIVED_ACTION:
            self._archived(ev)
            return
        if ev.action == RESEND_ACTION:
            self._resend(ev)
            return
        if ev.action in dealer_rules.COMMANDS:
            self._on_dealer_command(ev)
            return
        if self.modes.command(ev):
            return
        if ev.action == "end_shoe":
            self._end_shoe(ev)
            return
        if ev.action == PAUSE_ACTION:
            self._dealer_pause(ev)
            return
        if ev.action == CONFIRM_ACTION:
            self._confirm_shuffle(ev)
            return
        if ev.action == "new_shoe" and self.rules.shuffle_check == "supervisor":
            try:
                self.dealing.shuffle_due()
            except MachineError:
                self.refuse(ev, f"not possible while {self.phase.value.replace('_', ' ')}")
                return
            self._out.append(Notice(f"new shoe by {ev.actor}: the supervisor checks the "
                                    "shuffle before the burn"))
            return
        trigger = COMMAND_TRIGGERS.get(ev.action)
        if trigger in ("betting_opened", "betting_closed"):
            refusal = self.modes.betting_refusal(ev)
            if refusal is not None:
                self.refuse(ev, refusal)
                return
        if trigger is None:
            self.refuse(ev, "not a command this station takes", reason="unknown_action",
                        text=f"unknown command {ev.action!r} from {ev.actor}: ignored")
            return
        why = self.refused_while_lost(ev.action)
        if why is not None:
            self.refuse(ev, why, text=f"{ev.action} refused: {why}")
            return
        arg = self._shoe_id(ev.ts) if ev.action == "new_shoe" else ev.actor
        d = self.dealing
        shoe = d.shoe
        # A re-scanned card held in a pause: resume deals it, void sets it aside with the round.
        held = shoe.held.pop() if shoe and shoe.held and ev.action in ("resume", "void") else None
        if held is not None and shoe is not None and ev.action == "void":
            shoe.stray.append(held)
        # What the one voiding wrote goes onto the void record (docs/messages.md, void_note).
        d.void_note = ev.note if ev.action == "void" else None
        try:
            if trigger in ("betting_opened", "betting_closed"):
                getattr(d, trigger)()
            else:
                getattr(d, trigger)(arg)
        except MachineError:
            if held is not None and shoe is not None:  # never while paused; kept consistent
                shoe.held.append(held)
                if ev.action == "void":
                    shoe.stray.remove(held)
            self.refuse(ev, f"not possible while {self.phase.value.replace('_', ' ')}")
            return
        finally:
            d.void_note = None
        if ev.action not in ("resume", "void"):
            return
        self._rescan_wanted = False
        if held is not None and ev.action == "resume":
            d.card_read(held)  # the re-scanned card, identified while paused
        # Who cleared a pause is on the display and in the journal, not only in logs.
        past = "resumed" if ev.action == "resume" else "voided"
        self._out.append(Notice(f"{past} by {ev.actor}"))
        if ev.action == "void" and self._lost:
            # A void refunds the round but must not let the table deal without its devices:
            # the device-lost pause is latched again until they are back.
            for source, reason in sorted(self._lost.items()):
                d.fault(self._lost_reason(source, reason), self._lost_action(source))

    def _archived(self, ev: Command) -> None:
        """The archive holds a journal of this station up to a record. The daemon checked the
        claim against the journals on disk and journaled the answer in the note
        (station.table.acks): taken silently (the dealer has nothing to do), or refused as not_now
        with what differs. Upstream only: nobody at the table acknowledges journals."""
        if upstream_id(ev.actor) is None:
            self.refuse(ev, "only the archive acknowledges journals, by a signed upstream "
                        "command", reason="unknown_action")
            return
        ack = parse_ack(ev.note)
        if ack is None:
            self.refuse(ev, "the journaled acknowledgement cannot be read", reason="malformed")
            return
        if ack.refusal is not None:
            self.refuse(ev, ack.refusal)
            return
        take(self.archive_marks, ack, ev.actor, ev.ts)

    def _resend(self, ev: Command) -> None:
        """The archive lacks records of a journal from one on (a gap it found) and asks for
        them again. The daemon checked the station holds them and set the mirror going,
        and journaled the answer in the note: taken silently, or refused (``not_now``, the
        detail saying what is gone) with an alert for the pit, since that gap cannot heal."""
        if upstream_id(ev.actor) is None:
            self.refuse(ev, "only the archive asks for records again, by a signed upstream "
                        "command", reason="unknown_action")
            return
        asked = parse_resend(ev.note)
        if asked is None:
            self.refuse(ev, "the journaled request cannot be read", reason="malformed")
            return
        if asked.refusal is None:
            return
        self.refuse(ev, asked.refusal)
        d = self.dealing
        d.announcements.append({
            "type": "alert", "alert": "records_unrecoverable", "by": "station",
            "detail": (f"the archive lacks journal {asked.journal[:16]} from record "
                       f"{asked.seq} and the station cannot send it: {asked.refusal}")[:500],
            "shoe": d.shoe.shoe_id if d.shoe is not None else None,
            "round": d.round_no or None})

    def _end_shoe(self, ev: Command) -> None:
        """END SHOE (the dealer's; ``close_shoe`` from upstream): between rounds the shoe
        closes at once; during a round, that round is the shoe's last and the shoe closes
        after it, as a VIP player's new-shoe request does. ``shoe_ended`` names who asked."""
        d = self.dealing
        state = d.state
        if state == "paused":
            self.refuse(ev, "the table is paused; ask again when it deals")
            return
        if state in ("burn_indicator", "burning"):
            self.refuse(ev, "the burn is not done; ask again once it is")
            return
        if d.shoe is None or not (state == "between_rounds" or d.round_open):
            self.refuse(ev, "no shoe is in play")
            return
        if d.end_requested_by is None:
            d.end_requested_by = "upstream" if upstream_id(ev.actor) is not None else "dealer"
        if state == "between_rounds":
            d.shoe_ended(ev.actor)
            return
        d.last_round = True
        self._out.append(Notice(f"end of shoe asked for by {ev.actor}: round {d.round_no} is "
                                "the shoe's last"))

    # --- procedures (station.table.procedures, docs/rules.md) ------------------------------------
    def _dealer_pause(self, ev: Command) -> None:
        """The dealer stops the table for what the station cannot see (seed 000): a pause as
        any other, cleared by a supervisor's resume or void, that says who raised it and why."""
        problem = pause_problem(ev.code, ev.note)
        if problem is not None:
            self.refuse(ev, problem, reason="malformed")
            return
        d = self.dealing
        if d.state == "paused":
            self.refuse(ev, "the table is paused already; a supervisor resumes or voids")
            return
        assert ev.code is not None
        d.fault(pause_reason(ev.code, ev.note), "")
        d.raised = (ev.actor, ev.code, ev.note)
        self._out.append(Notice(f"paused by {ev.actor}: {PAUSE_WORDS[ev.code][0]}"))

    def _confirm_shuffle(self, ev: Command) -> None:
        """The supervisor confirms the shuffle (seed 003): the shoe starts, its burn follows."""
        d = self.dealing
        if self.rules.shuffle_check != "supervisor":
            self.refuse(ev, "this table's shuffle is not checked (table.shuffle_check is none)")
            return
        if d.state != "shuffle_check":
            self.refuse(ev, "no shuffle check is due")
            return
        try:
            confirmed_at = iso(ev.ts)
        except (OverflowError, ValueError, OSError):
            confirmed_at = "badtime"  # recordings are checked on load; a live clock never is
        d.pending_shuffle = {"by": d.dealer, "confirmed_by": ev.actor,
                             "confirmed_at": confirmed_at, "method": self.rules.shuffle_method,
                             "packs": list(d.check_packs)}
        d.shuffle_confirmed(self._shoe_id(ev.ts))
        self._out.append(Notice(f"shuffle confirmed by {ev.actor}: burn the first card"))

    def _of_this_shoe(self, ev: CardRead, card: Card) -> bool:
        """Whether a card whose barcode names its pack is of a pack registered at this shoe's
        shuffle check (any pack is, where none was registered); else a pause on first sight,
        the card set aside and not counted, as a ninth copy is."""
        d = self.dealing
        packs = d.shuffle["packs"] if d.shuffle is not None else []
        if d.shoe is None or not packs or ev.pack in packs:
            return True
        what = "a card" if d.face_down else card.code  # no value leaves a face-down table
        pack = ascii(ev.pack)[1:-1][:PACK_SHOWN]
        d.fault(f"card from another pack: {what} of pack {pack} (not registered at the "
                "shuffle check)", "set it aside")
        return False

    def _on_pack(self, ev: CardRead) -> bool:
        """Whether ``ev`` was a pack or seal code (``reader.pack_prefix``): registered for the
        shoe during its shuffle check, a notice otherwise; never a card, never a pause."""
        code = ev.code.strip()
        if not code.startswith(self.rules.pack_prefix):
            return False
        ident = pack_of(code, self.rules.pack_prefix)
        d = self.dealing
        if ident is None:
            self._out.append(Notice(f"pack code {code[:60]!a} from {ev.source} is not "
                                    "a pack id (1-32 of A-Z a-z 0-9 . _ -): ignored"))
        elif d.state != "shuffle_check":
            self._out.append(Notice(f"pack {ident} scanned outside a shuffle check: ignored"))
        elif ident in d.check_packs:
            self._out.append(Notice(f"pack {ident} is registered already"))
        elif len(d.check_packs) >= PACKS_MAX:
            self._out.append(Notice(f"pack {ident} not registered: {PACKS_MAX} packs already"))
        else:
            d.check_packs.append(ident)
            self._out.append(Notice(f"pack {ident} registered for this shoe "
                                    f"({len(d.check_packs)} so far)"))
        return True

    # --- dealers (station.table.dealers) --------------------------------------------------------
    def _on_badge(self, ev: CardRead) -> bool:
        """Whether ``ev`` was a badge (signed in or out, or refused with a notice). A badge
        never pauses the table and is never a card."""
        badge = dealer_rules.parse_badge(ev.code, self.rules.badge_prefix)
        if badge is None:
            return False
        if badge.dealer is None:
            self._out.append(Notice(badge.problem))
            return True
        why = self._sign_refusal()
        if why is not None:
            self._out.append(Notice(f"badge of dealer {badge.dealer} refused: {why}"))
            return True
        self._signed(self.dealers.badge(badge.dealer))
        return True

    def _on_dealer_command(self, ev: Command) -> None:
        desk = self.dealers
        how = dealer_rules.how_of(ev.actor)
        dealer = dealer_rules.dealer_of(ev.actor) if ev.action == dealer_rules.SIGN_IN else None
        if ev.action == dealer_rules.SIGN_IN and dealer is None:
            self.refuse(ev, f"no dealer id ({dealer_rules.ID_RULE}); give the dealer's id")
            return
        why = self._sign_refusal()
        if why is None:
            done = desk.sign_in(dealer, how) if dealer is not None else desk.sign_out(how)
            if isinstance(done, dealer_rules.Change):
                self._signed(done)
                return
            why = done
        self.refuse(ev, why)

    def _sign_refusal(self) -> str | None:
        return dealer_rules.refusal(self.dealing.state)

    def _signed(self, change: dealer_rules.Change) -> None:
        self.dealing.dealer = change.dealer  # every round published from now carries it
        self._out.append(Notice(change.notice()))
        self._out.append(Announced(change.message()))

    def _on_restart(self) -> None:
        """The daemon restarted and rebuilt this station from its journal. Devices are opened
        afresh (a lost one says so again); a round or burn in progress pauses, because what
        happened at the table while the station was down is unknown."""
        self._lost.clear()
        d = self.dealing
        phase = d.paused_from if d.phase is Phase.PAUSED else d.phase
        if phase in BURN:
            d.fault("station restarted during the burn", _CHECK_TABLE)
        elif phase in IN_ROUND:
            d.fault("station restarted mid-round", _CHECK_TABLE)
        else:
            self._out.append(Notice("station restarted; nothing was in progress"))

    def _shoe_id(self, ts: float) -> str:
        try:
            stamp = datetime.fromtimestamp(ts, UTC).strftime("%Y%m%dT%H%M%SZ")
        except (OverflowError, ValueError, OSError):
            stamp = "badtime"  # recordings are checked on load; a live clock never gets here
        session = f"{self.session}-" if self.session else ""
        return f"{self.rules.table}-{stamp}-{session}{self.dealing.shoes_started + 1}"

    # --- devices --------------------------------------------------------------------------
    def _on_lost(self, ev: DeviceLost) -> None:
        self._lost[ev.source] = ev.reason
        self.dealing.fault(self._lost_reason(ev.source, ev.reason), self._lost_action(ev.source))

    @staticmethod
    def _lost_action(source: str) -> str:
        # The daemon's journal pauses the table like a device (station.live.daemon.JOURNAL).
        return "free space on the station's disk" if source == "journal" else _CHECK_DEVICE

    @staticmethod
    def _lost_reason(source: str, reason: str) -> str:
        return f"{source} lost ({reason})"

    def _on_clock(self, ev: ClockAlert) -> None:
        """The daemon's clock check (station.live.clock): the clock's state, which every
        status carries; for an alert, a note for the journal and the dealer's screen, and an
        alert for the pit. The table goes on."""
        d = self.dealing
        state = CLOCK_STATES.get(ev.alert)
        if state is not None:
            was, self.clock = self.clock, state
            if state == CLOCK_SYNCHRONISED and was == CLOCK_UNSYNCHRONISED:
                d.notices.append(f"CLOCK: {ev.detail}")
            if state != CLOCK_UNSYNCHRONISED:
                return  # a state, not an alert
        d.notices.append(f"CLOCK: {ev.detail}")
        d.announcements.append({"type": "alert", "alert": ev.alert, "by": "clock",
                                "detail": ev.detail,
                                "shoe": d.shoe.shoe_id if d.shoe is not None else None,
                                "round": d.round_no or None})

    def _on_config(self, ev: ConfigChanged) -> None:
        """The daemon started with another config or paytable than the journal's last: a
        note for the journal and the dealer's screen, and a ``config_changed`` upstream."""
        what = ", ".join(ev.keys) if ev.keys else "no key (the file or the paytable)"
        self.dealing.notices.append(f"CONFIG: changed since the journal's last: {what}"[:300])
        self.dealing.announcements.append({
            "type": "config_changed",
            "old": {"config": ev.old_config, "paytable": ev.old_paytable},
            "new": {"config": ev.new_config, "paytable": ev.new_paytable},
            "keys": list(ev.keys), "previous_journal": ev.previous_journal})

    def _on_install(self, ev: InstallModified) -> None:
        """The daemon's install check (station.live.install_watch): a note and an alert
        for the pit naming the files; the table goes on."""
        d = self.dealing
        d.notices.append(f"INSTALL: {ev.detail}"[:300])
        d.announcements.append({"type": "alert", "alert": "install_modified",
                                "by": "install_check", "detail": ev.detail,
                                "files": list(ev.files),
                                "shoe": d.shoe.shoe_id if d.shoe is not None else None,
                                "round": d.round_no or None})

    def _on_restored(self, ev: DeviceRestored) -> None:
        if self._lost.pop(ev.source, None) is not None:
            self._out.append(Notice(f"{ev.source} restored; a supervisor may resume"))

    # --- the display ----------------------------------------------------------------------
    def _prompt(self) -> Prompt:
        # Each instruction twice: the station's own English (the journal's, the log's and the
        # status message's words, byte for byte as ever) and its message id with parameters,
        # which the pages render in their language (station.web.catalogue); a test holds the
        # English catalogue's rendering to the English here.
        d = self.dealing
        phase = d.phase
        name = d.state
        if phase is Phase.PAUSED:
            todo = "; ".join(d.pause_actions)
            text = "PAUSED: " + "; ".join(d.pause_reasons)
            text += f" - {todo}; call supervisor" if todo else " - call supervisor"
            choice = SUPERVISOR_CHOICE_IDS.get(d.paused_from)
            return Prompt(name, text, SUPERVISOR_CHOICES.get(d.paused_from, ""), paused=True,
                          said_detail=msg(choice) if choice else None)
        if phase is Phase.NO_SHOE:
            return Prompt(name, "NEW SHOE: shuffle, insert the cut card, press NEW SHOE",
                          said=msg("prompt.new_shoe"))
        if phase is Phase.SHUFFLE_CHECK:
            return Prompt(name, "SHUFFLE CHECK: supervisor confirms the shuffle and places the "
                          "cut card", "do not deal", said=msg("prompt.shuffle_check"),
                          said_detail=msg("detail.do_not_deal"))
        if phase is Phase.SHOE_CLOSED:
            after = f"after round {d.round_no}" if d.round_no else "before any round"
            after_said = (msg("shoe.after_round", n=d.round_no) if d.round_no
                          else msg("shoe.before_any_round"))
            if self.modes.new_shoe_requested:
                # VIP (seed 003 更换牌靴): the dealer changes the shoe within new_shoe_s.
                late = "NEW SHOE LATE, supervisor alerted" if self.modes.new_shoe_late else (
                    f"within {duration_words(self.rules.new_shoe_s)}")
                late_said = (msg("late.alerted") if self.modes.new_shoe_late
                             else msg("late.within", d=duration_said(self.rules.new_shoe_s)))
                return Prompt(name, f"SHOE CLOSED {after}: the player asked for a new shoe - "
                              f"discard the rest, start a NEW SHOE ({late})",
                              **self._result_detail(),
                              said=msg("prompt.shoe_closed_player", after=after_said,
                                       late=late_said))
            return Prompt(
                name, f"SHOE CLOSED {after}: discard the rest, start a NEW SHOE",
                **self._result_detail(), said=msg("prompt.shoe_closed", after=after_said),
            )
        if phase is Phase.BURN_INDICATOR:
            return Prompt(name, "BURN: draw and show the first card",
                          said=msg("prompt.burn_first"))
        if phase is Phase.BURNING:
            shown = d.burn_indicator.code if d.burn_indicator else "?"
            return Prompt(name, f"BURN {d.burn_left} MORE FACE DOWN", f"{shown} shown",
                          said=msg("prompt.burn_more", n=d.burn_left),
                          said_detail=msg("detail.shown", card=shown))
        nxt = d.round_no + 1
        betting = self.rules.betting
        if phase is Phase.BETWEEN_ROUNDS:
            last = f" - {_CUT_OUT}" if d.last_round else ""
            last_said: Msg | str = msg("round.last", why=msg("last.cut_card")) if d.last_round \
                else ""
            if betting != "dealer":
                who = "the game server opens betting" if betting == "upstream" else (
                    "betting opens by itself")
                return Prompt(name, f"ROUND {nxt}: WAIT - {who}{last}", **self._result_detail(),
                              said=msg(_WAIT_IDS[betting], n=nxt, last=last_said))
            return Prompt(name, f"ROUND {nxt}: OPEN BETTING{last}", **self._result_detail(),
                          said=msg("prompt.open_betting", n=nxt, last=last_said))
        # The round is the last because the cut card is out, or because the shoe's end was
        # asked for, by the VIP player or END SHOE (then the shoe closes after it whatever the
        # cut card does): the same order as the view's shoe_end.
        last_words = (_PLAYER_ASKED if self.modes.new_shoe_requested
                      else _END_ASKED if d.end_requested_by else _CUT_OUT)
        last_id = ("last.player_asked" if self.modes.new_shoe_requested
                   else "last.end_asked" if d.end_requested_by else "last.cut_card")
        round_tag = f"ROUND {d.round_no}" + (f" - {last_words}" if d.last_round else "")
        tag_last: Msg | str = msg("round.last", why=msg(last_id)) if d.last_round else ""
        if phase is Phase.BETTING_OPEN:
            # Says how betting ends, so the dealer is never left waiting for nothing.
            how = {"dealer": "press CLOSE BETTING when bets are in",
                   "timer": f"betting closes by itself in {self.rules.betting_s:g} s",
                   "upstream": "the game server closes betting"}[betting]
            how_said = msg(_HOW_IDS[betting], s=self.rules.betting_s)
            return Prompt(name, f"ROUND {d.round_no}: BETTING OPEN - do not deal; {how}",
                          last_words if d.last_round else "",
                          said=msg("prompt.betting_open", n=d.round_no, how=how_said),
                          said_detail=msg(last_id) if d.last_round else None)
        skipped: Msg | str = ""
        if d.skipped:
            round_tag += " - SKIPPED by the player: deal face up, no bets"
            skipped = msg("round.skipped")
        tag = msg("round.tag", n=d.round_no, last=tag_last, skipped=skipped)
        if phase is Phase.REVEAL:
            return self._reveal_prompt(name, round_tag, tag)
        return self._deal_prompt(name, phase, round_tag, tag)

    def _reveal_prompt(self, name: str, round_tag: str, tag: Msg) -> Prompt:
        d = self.dealing
        hand = d.to_reveal[0]
        third = len(d.player if hand == "player" else d.banker) == 3
        what = f"{hand.upper()} THIRD CARD" if third else f"{hand.upper()} CARDS"
        if self.rules.mode == "vip":
            how = (f"the player opens the cards, or press REVEAL; the system opens them "
                   f"{self.rules.open_cards_s:g} s after betting closed")
            how_said = msg("how.vip_reveal", s=self.rules.open_cards_s)
        else:
            how = (f"the player squeezes, or press REVEAL; revealed by itself after "
                   f"{self.rules.reveal_s:g} s")
            how_said = msg("how.squeeze", s=self.rules.reveal_s)
        # Which hand waits, never a value or a total: the prompt leaves the station.
        return Prompt(name, f"REVEAL {what}: wait, do not deal", f"{round_tag}: {how}",
                      said=msg("prompt.reveal_third" if third else "prompt.reveal_cards",
                               hand=msg(_HAND_IDS[hand])),
                      said_detail=msg("detail.tagged", tag=tag, what=how_said))

    def _deal_prompt(self, name: str, phase: Phase, round_tag: str, tag: Msg) -> Prompt:
        d = self.dealing
        down: Msg | str = msg("deal.face_down") if d.squeezing() else ""
        if phase is Phase.PLAYER_3:
            pt = (d.player[0].value + d.player[1].value) % 10
            return Prompt(name, "DEAL PLAYER THIRD CARD" + " FACE DOWN" * d.squeezing(),
                          f"{round_tag}: player {pt} draws",
                          said=msg("prompt.third", hand=msg("hand.player"), down=down),
                          said_detail=msg("detail.tagged", tag=tag,
                                          what=msg("why.player_draws", total=pt)))
        if phase is Phase.BANKER_3:
            bt = (d.banker[0].value + d.banker[1].value) % 10
            if len(d.player) == 3:
                v = d.player[2].value
                why = f"banker {bt} draws on player third card {v}"
                on = ""
                if bt >= 3:
                    on = ",".join(map(str, sorted(BANKER_DRAWS[bt])))
                    why += f" (draws on {on})"
                why_said = msg("why.banker_draws_on", total=bt, third=v,
                               on=msg("why.draws_on", values=on) if on else "")
            else:
                why = f"player stood, banker {bt} draws"
                why_said = msg("why.player_stood", total=bt)
            return Prompt(name, "DEAL BANKER THIRD CARD" + " FACE DOWN" * d.squeezing(),
                          f"{round_tag}: {why}",
                          said=msg("prompt.third", hand=msg("hand.banker"), down=down),
                          said_detail=msg("detail.tagged", tag=tag, what=why_said))
        hand, n = {
            Phase.PLAYER_1: ("PLAYER", 1),
            Phase.BANKER_1: ("BANKER", 1),
            Phase.PLAYER_2: ("PLAYER", 2),
            Phase.BANKER_2: ("BANKER", 2),
        }[phase]
        return Prompt(name, f"DEAL {hand} CARD {n}{' FACE DOWN' if d.squeezing() else ''}",
                      round_tag, said=msg("prompt.deal", hand=msg(_HAND_IDS[hand.lower()]), n=n,
                                          down=down), said_detail=tag)

    def _result_detail(self) -> dict[str, Any]:
        """The last round's result, the detail of the prompts between rounds: ``detail`` and
        ``said_detail`` of a ``Prompt``."""
        r = self.dealing.last_result
        if r is None:
            return {"detail": ""}
        if r["status"] == "void":
            return {"detail": f"round {r['round']} VOID",
                    "said_detail": msg("detail.void", n=r["round"])}
        w = r["winner"]
        head = "TIE" if w == "tie" else f"{w.upper()} WINS"
        return {"detail": f"round {r['round']}: PLAYER {r['player_total']} BANKER "
                          f"{r['banker_total']}, {head}",
                "said_detail": msg("detail.result", n=r["round"], p=r["player_total"],
                                   b=r["banker_total"], head=msg(_HEAD_IDS[w]))}


def published_records(outputs: list[Output]) -> list[dict[str, Any]]:
    """The round records among ``outputs``, in order."""
    return [o.record for o in outputs if isinstance(o, Published)]
