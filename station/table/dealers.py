"""Who deals at the table: dealer badges, sign in and out, and the rules for when. Pure.

A dealer signs in and out with a badge (a code the card scanner reads that starts with the
configured prefix, ``dealers.badge_prefix``) or from the display (``station ctl sign-in``).
One dealer is signed in at a time; every published round carries the dealer's id. The
station (``station.table.station``) owns one ``DealerDesk`` and asks it what each badge or command
means; nothing here reads a clock or a file, so a replay gives the same sign-ins.

Signing in or out changes who is accountable for the cards on the table, so it is taken
only when no card is on it or due: no shoe, the shoe closed, between rounds, betting open.
Anything else (dealing, the burn, a pause) refuses it with a notice saying when to do it;
a badge is never a card and never pauses the table.

A VIP player may ask for another dealer (seed 003, 更换荷官): the current dealer goes on until
the new one signs in. ``DealerDesk.request_change`` opens that request; it stays open until a
dealer other than the one dealing when it was asked signs in, which closes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

DEFAULT_PREFIX: Final = "DEALER-"
DEALER_ID: Final = re.compile(r"[A-Za-z0-9._-]{1,32}")
ID_RULE: Final = "1-32 of A-Z a-z 0-9 . _ -"

SIGN_IN: Final = "sign_in"
SIGN_OUT: Final = "sign_out"
CHANGE: Final = "change"
COMMANDS: Final = (SIGN_IN, SIGN_OUT)  # the ``drivers.events.Command`` actions
HOWS: Final = ("badge", "display", "upstream")
MESSAGE_TYPE: Final = "dealer"  # the ``Announced`` message's ``type``, and the upstream kind

# A command's actor carries the dealer id: ``dealer:<id>``, then who pressed it, e.g.
# ``dealer:D042 (web 127.0.0.1)`` or ``dealer:D042 upstream:pit/ann [c-9]``. The id travels
# in the journal and the recording inside the actor, so Command needs no new field.
ACTOR_PREFIX: Final = "dealer:"
_ACTOR = re.compile(r"dealer:([A-Za-z0-9._-]{1,32})(?=\s|$)(.*)", re.S)

# States (``station.table.machine.Phase`` values) with no card on the table and none due.
# The shuffle check too: the dealer who shuffled signs in before the supervisor confirms.
SIGN_STATES: Final = frozenset({"no_shoe", "shuffle_check", "shoe_closed", "between_rounds",
                                "betting_open"})
_BURN = frozenset({"burn_indicator", "burning"})
_WHEN = "between rounds, or while betting is open"


def valid_id(dealer: str) -> bool:
    return DEALER_ID.fullmatch(dealer) is not None


def prefix_problem(prefix: object) -> str | None:
    """Why ``prefix`` cannot be a badge prefix, or None. ``""`` turns badges off."""
    if not isinstance(prefix, str):
        return "must be text such as DEALER- (or null for no badges)"
    if prefix and not re.fullmatch(r"[!-~]{2,16}", prefix):
        return "must be 2-16 printable ASCII characters without spaces, e.g. DEALER-"
    return None


@dataclass(frozen=True, slots=True)
class Badge:
    """A code that starts with the badge prefix: a dealer's id, or why it is not one."""

    dealer: str | None
    problem: str = ""


def parse_badge(code: str, prefix: str) -> Badge | None:
    """The badge in a scanned ``code``, or None when it does not start with ``prefix`` (or
    badges are off). ASCII white space around the code (a scanner's line ending) is ignored;
    Unicode spaces are not (a badge is ASCII, as a card is: issue 18)."""
    if not prefix:
        return None
    text = code.strip(" \t\r\n\x0b\x0c")
    if not text.startswith(prefix):
        return None
    rest = text[len(prefix):]
    if valid_id(rest):
        return Badge(rest)
    shown = rest if len(rest) <= 40 else rest[:40] + "..."
    return Badge(None, f"badge {prefix}{shown!a} refused: a dealer id after {prefix} is "
                       f"{ID_RULE}; scan a valid dealer badge")


def actor_for(dealer: str, by: str = "") -> str:
    """The ``Command`` actor of a sign-in: the dealer id, then who pressed it."""
    return f"{ACTOR_PREFIX}{dealer} {by}".rstrip() if by else f"{ACTOR_PREFIX}{dealer}"


def dealer_of(actor: str) -> str | None:
    """The dealer id inside a sign-in's actor, or None when it has none (or a bad one)."""
    m = _ACTOR.match(actor)
    return m[1] if m else None


def how_of(actor: str) -> str:
    """``upstream`` for a command a signed upstream command carried, else ``display`` (the
    page and ``station ctl``)."""
    m = _ACTOR.match(actor)
    by = m[2] if m else actor
    return "upstream" if by.lstrip().startswith("upstream") else "display"


def refusal(state: str) -> str | None:
    """Why signing in or out is not taken in machine state ``state``, with when to do it;
    None when it is taken."""
    if state in SIGN_STATES:
        return None
    if state == "paused":
        return f"not while paused: sign after the supervisor clears the pause, {_WHEN}"
    if state in _BURN:
        return f"not during the burn: sign once the burn is done, {_WHEN}"
    return f"not while a card is due: sign after this round is published, {_WHEN}"


@dataclass(frozen=True, slots=True)
class Change:
    """One sign-in, sign-out or change of dealer: what goes on the display and upstream."""

    action: str
    dealer: str | None
    previous: str | None
    how: str
    request_closed: bool = False

    def message(self) -> dict[str, Any]:
        """The ``Announced`` message (``station.wire.messages.dealer`` builds the
        upstream message from it)."""
        return {"type": MESSAGE_TYPE, "action": self.action, "dealer": self.dealer,
                "previous": self.previous, "how": self.how,
                "request_closed": self.request_closed}

    def notice(self) -> str:
        by = f" ({self.how})"
        if self.action == SIGN_IN:
            text = f"dealer {self.dealer} signed in{by}"
        elif self.action == SIGN_OUT:
            text = f"dealer {self.previous} signed out{by}"
        else:
            text = f"dealer change: {self.previous} out, {self.dealer} in{by}"
        return text + ("; the request for another dealer is closed" if self.request_closed
                       else "")


class DealerDesk:
    """Who is signed in now, and an open request for another dealer. Call from the station's
    loop thread only (it belongs to the ``Station``)."""

    def __init__(self) -> None:
        self.dealer: str | None = None
        # The dealer who was dealing when another dealer was asked for (a VIP request);
        # None when no request is open. May be None inside an open request too: see _asked.
        self._asked_of: str | None = None
        self._asked = False

    @property
    def change_requested(self) -> bool:
        return self._asked

    def request_change(self) -> str | None:
        """Open a request for another dealer; the refusal when one is open already. The
        current dealer goes on until a different dealer signs in."""
        if self._asked:
            return "a request for another dealer is open already"
        self._asked = True
        self._asked_of = self.dealer
        return None

    def badge(self, dealer: str) -> Change:
        """A valid badge scanned where signing is allowed: the signed-in dealer's own badge
        signs out, anyone else's signs in (a change when someone else is signed in)."""
        if dealer == self.dealer:
            return self._set(None, "badge")
        return self._set(dealer, "badge")

    def sign_in(self, dealer: str, how: str) -> Change | str:
        """From the display or upstream: a Change, or why not (as a sentence)."""
        if dealer == self.dealer:
            return f"{dealer} is signed in already"
        return self._set(dealer, how)

    def sign_out(self, how: str) -> Change | str:
        if self.dealer is None:
            return "no dealer is signed in"
        return self._set(None, how)

    def _set(self, dealer: str | None, how: str) -> Change:
        previous = self.dealer
        action = SIGN_OUT if dealer is None else SIGN_IN if previous is None else CHANGE
        self.dealer = dealer
        closed = False
        if self._asked and dealer is not None and dealer != self._asked_of:
            self._asked = False
            self._asked_of = None
            closed = True
        return Change(action, dealer, previous, how, closed)
