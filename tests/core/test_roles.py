"""The role -> action table (station.table.roles), action by action against a literal
reviewed copy, and docs/operations.md's table held to it."""

from __future__ import annotations

import re

import pytest

from station.table.roles import ACTIONS, ROLES, TABLE, allows, roles_problem
from tests.conftest import REPO

D, S, P, V, A = "dealer", "supervisor", "pit_boss", "surveillance", "admin"
# Written out by hand on purpose: a change to the table must change this too.
REVIEWED = {
    "read": {D, S, P, V, A},
    "resume": {S, P},
    "void": {S, P},
    "confirm_shuffle": {S, P},
    "close_shoe": {S, P},
    "pause": {D, S, P},
    "skip": {S, P},
    "request_new_shoe": {S, P},
    "request_dealer": {S, P},
    "acknowledge": {S, P},
    "dealer_change": {S, P},
    "manage_accounts": {A},
}


@pytest.mark.parametrize("action", list(REVIEWED))
@pytest.mark.parametrize("role", ROLES)
def test_each_role_against_each_action(role: str, action: str) -> None:
    assert allows([role], action) == (role in REVIEWED[action])


def test_the_table_is_the_reviewed_one_and_surveillance_acts_on_nothing() -> None:
    assert set(ACTIONS) == set(REVIEWED)
    assert [a for a in ACTIONS if allows([V], a)] == ["read"]
    assert not allows(ROLES, "explode")  # an action not in the table: nobody


def test_roles_problems() -> None:
    assert roles_problem([S]) is None
    assert roles_problem([]) is not None
    assert "not a role" in str(roles_problem(["boss"]))
    assert "twice" in str(roles_problem([S, S]))


def test_the_docs_table_is_the_table() -> None:
    text = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    section = text.split("## Accounts and roles", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, re.M)
    assert {a: {r.strip(" `") for r in roles.split(",")} for a, roles in rows} == {
        a: set(r) for a, r in TABLE.items()}
