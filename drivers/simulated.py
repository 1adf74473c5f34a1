"""A simulated table: a seeded 8-deck shoe, an automatic dealer and scripted faults.

The dealer does what a person at the table does when the display asks for it (``Due``):
press NEW SHOE, open and close betting, draw the next card. It yields ``(delay_s, event)``
steps; a fast simulation only advances its virtual clock by ``delay_s``, the realistic driver
(``drivers.sim_table.SimulatedTable``) sleeps it. This module is pure (no clock, no thread,
no log), so the station's fast simulation imports it without any I/O. Events carry the
dealer's virtual timestamps, so a seeded run is reproducible to the byte.

A shoe is a list of tokens in draw order from the burn indicator on: card codes and ``CUT``,
the cut card, which the dealer meets when drawing the card after it. Faults are attached to
the draw number of a card in the shoe (1 = the burn indicator) or to a finished round.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from drivers.events import CardRead, Command, CutCardSeen, DeviceLost, DeviceRestored, InputEvent

CUT = "CUT"
RANKS = "A23456789TJQK"
SUITS = "SHDC"
CODES = tuple(r + s for s in SUITS for r in RANKS)
EPOCH = 1_767_225_600.0  # 2026-01-01T00:00:00Z: virtual time starts here, for reproducible ids

SUPERVISOR_POLICIES = ("none", "resume", "void")
FAULT_KINDS = ("garbled", "double", "lost", "delay", "not_due", "cut")


class Due(Enum):
    """What the station's display asks of the people at the table right now."""

    NEW_SHOE = "new_shoe"
    CARD = "card"
    OPEN_BETTING = "open_betting"
    CLOSE_BETTING = "close_betting"
    PAUSED = "paused"
    REVEAL = "reveal"  # squeeze, VIP: cards face down wait for the player's reveal
    WAIT = "wait"  # nothing for the people at the table: the station's countdown runs
    SHUFFLE_CHECK = "shuffle_check"  # the supervisor confirms the shuffle (docs/rules.md)


@dataclass(frozen=True, slots=True)
class Fault:
    """One scripted fault.

    - ``garbled``: the first read of card ``card`` is unreadable; the dealer re-scans it.
    - ``double``: card ``card`` is read twice, ``seconds`` apart (a bouncing scanner).
    - ``lost``: the reader is lost just before card ``card`` and back ``seconds`` later.
    - ``delay``: the dealer waits ``seconds`` before card ``card``.
    - ``not_due``: after round ``after_round`` the dealer draws a card when none is due.
    - ``cut``: the cut card lies just before card ``card`` (1: before the burn indicator),
      instead of where the shuffle or the shoe file put it.
    ``shoe`` is the shoe number (1-based) the fault applies to.
    """

    kind: str
    card: int | None = None
    after_round: int | None = None
    seconds: float = 0.04
    shoe: int = 1


@dataclass(frozen=True, slots=True)
class Pace:
    """Seconds between a person's actions; the defaults are a brisk live table."""

    card_s: float = 1.5
    open_betting_s: float = 3.0
    betting_s: float = 12.0
    new_shoe_s: float = 45.0
    supervisor_s: float = 20.0
    reveal_s: float = 6.0  # a squeezing player takes this long over each reveal


@dataclass(frozen=True, slots=True)
class Player:
    """What the simulated players do on a table in a mode (docs/modes.md).

    ``reveal``: ``player`` reveals each face-down hand after ``Pace.reveal_s``; ``timer``
    lets every deadline reveal. ``betting``: who opens and closes betting, ``dealer`` (the
    buttons) or ``upstream`` (a simulated game server's commands). The VIP player asks, by
    round number within each shoe: to skip ``skip_rounds``; for a new shoe at round
    ``new_shoe_at`` (0: never); for another dealer at ``dealer_at``.
    """

    reveal: str = "player"
    betting: str = "dealer"
    skip_rounds: tuple[int, ...] = ()
    new_shoe_at: int = 0
    dealer_at: tuple[int, ...] = ()


Step = tuple[float, InputEvent]


def shuffled_shoe(rng: random.Random, decks: int = 8, cut_from_end: tuple[int, int] = (14, 18)
                  ) -> list[str]:
    """A shuffled shoe with the cut card ``cut_from_end`` cards (inclusive range) from the end,
    where a live baccarat dealer usually places it."""
    cards = list(CODES) * decks
    rng.shuffle(cards)
    cards.insert(len(cards) - rng.randint(*cut_from_end), CUT)
    return cards


class SimulatedDealer:
    """An automatic dealer playing ``shoes`` one after another, with ``faults`` injected.

    ``supervisor`` is what the simulated pit supervisor does on a pause: ``resume``,
    ``void``, or ``none`` (nobody comes: the simulation stops there). Call ``steps`` from one
    thread only.
    """

    def __init__(
        self,
        shoes: Iterator[Sequence[str]],
        faults: Sequence[Fault] = (),
        *,
        pace: Pace = Pace(),
        supervisor: str = "none",
        source: str = "sim-shoe",
        actor: str = "dealer:sim",
        start_ts: float = EPOCH,
        badges: Sequence[str] = (),
        change_every: int = 0,
        player: Player = Player(),
    ) -> None:
        """``badges``: dealer badge codes; the first is scanned before the first shoe, and
        every ``change_every`` shoes (0: never) the next one takes over, in turn."""
        if supervisor not in SUPERVISOR_POLICIES:
            raise ValueError(f"supervisor must be none, resume or void, not {supervisor!r}")
        self._shoes = shoes
        self._faults = list(faults)
        self.pace = pace
        self.supervisor = supervisor
        self.source = source
        self.actor = actor
        self.now = start_ts
        self.shoe_no = 0
        self._tokens: deque[str] = deque()
        self._drawn = 0  # cards drawn from the current shoe, the burn indicator being 1
        self._rounds_opened = 0
        self._in_hand: str | None = None  # a card out of the shoe whose read did not count
        self._rescan: str | None = None  # a garbled card, to scan again while paused
        self._pending: list[Step] = []
        self.exhausted_mid_round = False
        self.finished = False
        self.player = player
        # The table's round number, set by whoever drives the dealer (a fast simulation):
        # the VIP player's requests are by round (SimulatedTable sets it from round_changed).
        self.round_no = 0
        self._asked: set[tuple[int, int, str]] = set()
        self._commands = 0
        self._badges = tuple(badges)
        self._change_every = change_every

    def continue_shoe(self, shoe_no: int, drawn: int, cut_seen: bool, rounds_opened: int
                      ) -> None:
        """Pick up a physical shoe where a restarted station's journal says it stands: shoe
        ``shoe_no`` (1-based; 0 = none started) with ``drawn`` cards already out of it (those
        are gone), the cut card out if ``cut_seen``. Shoes before it are skipped. Call before
        the first ``steps``."""
        if shoe_no < 1:
            return
        for _ in range(shoe_no - 1):
            if next(self._shoes, None) is None:
                return
        shoe = next(self._shoes, None)
        if shoe is None:
            return
        self.shoe_no = shoe_no
        left: deque[str] = deque()
        taken = 0
        for token in self._place_cut(shoe):
            if token == CUT:
                if not cut_seen and taken >= drawn:
                    left.append(token)  # still in the shoe, ahead of the next card
            elif taken < drawn:
                taken += 1
            else:
                left.append(token)
        self._tokens = left
        self._drawn = drawn
        self._rounds_opened = rounds_opened
        # Faults of the cards already drawn happened before the restart.
        self._faults = [f for f in self._faults
                        if not (f.shoe < shoe_no or (f.shoe == shoe_no and f.card is not None
                                                     and f.card <= drawn))]

    # --- what a person does ---------------------------------------------------------------
    def steps(self, due: Due) -> list[Step]:
        """The dealer's next actions for ``due``; empty when the simulation is over."""
        if self._pending:
            pending, self._pending = self._pending, []
            return pending
        if due is Due.CARD:
            return self._draw()
        if due in (Due.OPEN_BETTING, Due.CLOSE_BETTING, Due.WAIT):
            asked = self._vip_requests(due)
            if asked:
                return asked
        if due is Due.WAIT:
            return []  # the station's countdown runs; nothing for the people to do
        if due is Due.REVEAL:
            if self.player.reveal == "timer":
                return []  # the deadline reveals
            return [self._command(self.pace.reveal_s, "reveal", "player:sim")]
        if due is Due.OPEN_BETTING:
            return self._open_betting()
        if due is Due.CLOSE_BETTING:
            return [self._command(self.pace.betting_s, "close_betting", self._betting_actor())]
        if due is Due.NEW_SHOE:
            return self._new_shoe()
        if due is Due.SHUFFLE_CHECK:
            # The simulated supervisor confirms; with none of ours, a real one may (a live
            # table's page, station ctl, upstream), or the simulation ends here.
            if self.supervisor == "none":
                return []
            return [self._command(self.pace.supervisor_s, "confirm_shuffle", "supervisor:sim")]
        if self._rescan is not None:
            # As the display says: show the unreadable card face up and scan it again while
            # paused; the station holds it and deals it when the supervisor resumes.
            code, self._rescan = self._rescan, None
            self._in_hand = None
            return [self._read(self.pace.card_s, code)]
        if self.supervisor == "none":
            # Nobody of ours comes: a fast simulation stops here; at a live table a real
            # supervisor (upstream, the display) may still clear the pause.
            return []
        if self.supervisor == "void":
            self._in_hand = None  # a voided round's cards, read or not, go to the discard
        return [self._command(self.pace.supervisor_s, self.supervisor, "supervisor:sim")]

    def not_taken(self, events: Sequence[InputEvent]) -> None:
        """The driver did not post ``events`` (the rest of a ``steps`` answer): someone else
        moved the table on meanwhile, e.g. a pit's void mid-round, so they are no longer due.
        The card the dealer was about to deal stays in hand for the next card due, and the
        cut card stays ahead in the shoe: a voided round's next card is never dealt into it."""
        if not events:
            return
        first = events[0]
        if isinstance(first, CutCardSeen):
            self._tokens.appendleft(CUT)
        elif isinstance(first, CardRead) and first.source == self.source:
            # A garbled read's card is in hand already; a plain card's code is the card.
            if self._in_hand is None:
                self._in_hand = first.code
            self._rescan = None
        # The rest (a bouncing read's second, a command) are forgotten: asked again if due.

    def _new_shoe(self) -> list[Step]:
        shoe = next(self._shoes, None)
        if shoe is None:
            self.finished = True
            return []
        # The first shoe starts at once, so a demo shows cards within seconds; the shuffle
        # and checks of a new shoe take ``new_shoe_s`` between shoes.
        delay = self.pace.new_shoe_s if self.shoe_no else self.pace.open_betting_s
        self.shoe_no += 1
        self._tokens = deque(self._place_cut(shoe))
        self._drawn = 0
        self._rounds_opened = 0
        self._in_hand = None
        self._rescan = None
        return [*self._badge_steps(), self._command(delay, "new_shoe", self.actor)]

    def _badge_steps(self) -> list[Step]:
        """The dealer's badge scan before shoe ``shoe_no`` (already counted): the first
        dealer signs in before shoe 1; every ``change_every`` shoes the next takes over."""
        if not self._badges:
            return []
        n = self.shoe_no - 1  # shoes played before this one
        if n == 0:
            return [self._read(self.pace.open_betting_s, self._badges[0])]
        if self._change_every and len(self._badges) > 1 and n % self._change_every == 0:
            badge = self._badges[(n // self._change_every) % len(self._badges)]
            return [self._read(self.pace.open_betting_s, badge)]
        return []

    def _place_cut(self, shoe: Sequence[str]) -> list[str]:
        placed = next((f for f in self._faults if f.kind == "cut" and f.shoe == self.shoe_no),
                      None)
        if placed is None or placed.card is None:
            return list(shoe)
        self._faults.remove(placed)
        cards = [t for t in shoe if t != CUT]
        cards.insert(min(placed.card - 1, len(cards)), CUT)
        return cards

    def _open_betting(self) -> list[Step]:
        if self._faults and self._fault("not_due", after_round=self._rounds_opened):
            drawn: list[Step] = []
            if self._tokens and self._tokens[0] == CUT:
                drawn.extend(self._draw())  # the cut card comes out ahead of the stray card
            drawn.extend(self._draw())
            if drawn:
                return drawn
        if not any(t != CUT for t in self._tokens):
            # Nothing left to deal a round with: the dealer closes the shoe.
            return [self._command(self.pace.open_betting_s, "end_shoe", self.actor)]
        self._rounds_opened += 1
        return [self._command(self.pace.open_betting_s, "open_betting", self._betting_actor())]

    def _betting_actor(self) -> str:
        if self.player.betting != "upstream":
            return self.actor
        # As the daemon names an accepted upstream command: its signer, then its id.
        self._commands += 1
        return f"game-server:sim [sim-{self._commands}]"

    def _vip_requests(self, due: Due) -> list[Step]:
        """The VIP player's request for the round about to be dealt, once each."""
        p = self.player
        if not (p.skip_rounds or p.new_shoe_at or p.dealer_at):
            return []
        upcoming = self.round_no + (1 if due is Due.OPEN_BETTING else 0)
        for action, wanted in (("skip", upcoming in p.skip_rounds),
                               ("request_new_shoe", 0 < p.new_shoe_at == upcoming),
                               ("request_dealer", upcoming in p.dealer_at)):
            key = (self.shoe_no, upcoming, action)
            if wanted and key not in self._asked:
                self._asked.add(key)
                # As soon as betting opens (or before): the pace of a button, not of a card.
                return [self._command(self.pace.open_betting_s, action, "player:sim")]
        return []

    def _draw(self) -> list[Step]:
        if self._in_hand is not None:
            code, self._in_hand = self._in_hand, None
            return [self._read(self.pace.card_s, code)]
        if self._tokens and self._tokens[0] == CUT:
            # The cut card comes out alone; the dealer then looks at the display again (it may
            # say PAUSED, during the burn) before drawing the next card.
            self._tokens.popleft()
            return [self._at(self.pace.card_s, lambda t: CutCardSeen(self.source, t))]
        if not self._tokens:
            self.exhausted_mid_round = True
            self.finished = True
            return []
        code = self._tokens.popleft()
        self._drawn += 1
        if self._faults:
            return self._draw_with_faults(code, self._drawn)
        return [self._read(self.pace.card_s, code)]

    def _draw_with_faults(self, code: str, n: int) -> list[Step]:
        out: list[Step] = []
        delay = self._fault("delay", card=n)
        # Part of the step's own delay, so the realistic driver waits it too (not only the
        # virtual clock).
        wait = delay.seconds if delay is not None else 0.0
        lost = self._fault("lost", card=n)
        if lost is not None:
            out.append(self._at(wait, lambda t: DeviceLost(self.source, "no answer", t)))
            self._pending.append(self._at(lost.seconds, lambda t: DeviceRestored(self.source, t)))
            self._in_hand = code
            return out
        if self._fault("garbled", card=n) is not None:
            self._in_hand = code
            self._rescan = code
            out.append(self._read(wait + self.pace.card_s, "\x15?" + code[:1]))
            return out
        out.append(self._read(wait + self.pace.card_s, code))
        double = self._fault("double", card=n)
        if double is not None:
            out.append(self._read(double.seconds, code))
        return out

    def unused_faults(self) -> list[Fault]:
        """Faults that never happened (a card past the shoe, a shoe never reached, a round
        never played): the caller says so, so a fault script never fails silently."""
        return list(self._faults)

    # --- helpers --------------------------------------------------------------------------
    def _fault(self, kind: str, card: int | None = None, after_round: int | None = None
               ) -> Fault | None:
        for i, f in enumerate(self._faults):
            if (f.kind == kind and f.shoe == self.shoe_no and f.card == card
                    and f.after_round == after_round):
                return self._faults.pop(i)
        return None

    def _at(self, delay: float, make: Callable[[float], InputEvent]) -> Step:
        self.now += delay
        return (delay, make(self.now))

    def _read(self, delay: float, code: str) -> Step:
        self.now += delay
        return (delay, CardRead(code, self.source, self.now))

    def _command(self, delay: float, action: str, actor: str) -> Step:
        self.now += delay
        return (delay, Command(action, actor, self.now))


def random_shoes(seed: int, count: int | None, decks: int = 8) -> Iterator[list[str]]:
    """``count`` shuffled shoes (endless when ``None``) from one seeded generator."""
    rng = random.Random(seed)
    n = 0
    while count is None or n < count:
        n += 1
        yield shuffled_shoe(rng, decks)
