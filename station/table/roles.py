"""Who may do what: the roles an account may hold and the one reviewed table of the actions
each allows (docs/operations.md, "Accounts and roles"). Pure.

Every action a person takes with a name and PIN (the dealer page's supervisor actions, the
pit's commands, acknowledgements and dealer changes) is looked up here, and nowhere else:
the station's page and the pit ask ``allows``; tests/core/test_roles.py holds each row to a
literal copy, action by action, and docs/operations.md's table to this one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

DEALER: Final = "dealer"
SUPERVISOR: Final = "supervisor"
PIT_BOSS: Final = "pit_boss"
SURVEILLANCE: Final = "surveillance"  # reads everything, acts on nothing
ADMIN: Final = "admin"  # manages accounts
ROLES: Final = (DEALER, SUPERVISOR, PIT_BOSS, SURVEILLANCE, ADMIN)

READ: Final = "read"  # the pit's pages and API, a dealer page beyond loopback
ACKNOWLEDGE: Final = "acknowledge"  # a pit alert, one or every one of a kind
DEALER_CHANGE: Final = "dealer_change"  # the pit's note of who deals now
MANAGE_ACCOUNTS: Final = "manage_accounts"

# action -> the roles that may take it. One row per action; a role not named may not.
TABLE: Final[dict[str, tuple[str, ...]]] = {
    READ: (DEALER, SUPERVISOR, PIT_BOSS, SURVEILLANCE, ADMIN),
    # A paused table: only a supervisor at the table, or a pit boss, resumes or voids it.
    "resume": (SUPERVISOR, PIT_BOSS),
    "void": (SUPERVISOR, PIT_BOSS),
    "confirm_shuffle": (SUPERVISOR, PIT_BOSS),
    # END SHOE from the pit (the dealer's own button needs no PIN on the kiosk).
    "close_shoe": (SUPERVISOR, PIT_BOSS),
    "pause": (DEALER, SUPERVISOR, PIT_BOSS),
    # A VIP table's requests, pressed for the player (docs/modes.md).
    "skip": (SUPERVISOR, PIT_BOSS),
    "request_new_shoe": (SUPERVISOR, PIT_BOSS),
    "request_dealer": (SUPERVISOR, PIT_BOSS),
    ACKNOWLEDGE: (SUPERVISOR, PIT_BOSS),
    DEALER_CHANGE: (SUPERVISOR, PIT_BOSS),
    MANAGE_ACCOUNTS: (ADMIN,),
}
ACTIONS: Final = tuple(TABLE)


def allows(roles: Iterable[str], action: str) -> bool:
    """True when one of ``roles`` may take ``action``; an action not in the table: nobody."""
    may = TABLE.get(action, ())
    return any(role in may for role in roles)


def roles_problem(roles: Iterable[str]) -> str | None:
    """What is wrong with a list of roles, or None."""
    got = list(roles)
    if not got:
        return f"an account needs at least one role: {', '.join(ROLES)}"
    unknown = [r for r in got if r not in ROLES]
    if unknown:
        return f"{unknown[0][:40]!r} is not a role; roles: {', '.join(ROLES)}"
    if len(set(got)) != len(got):
        return "a role is named twice"
    return None
