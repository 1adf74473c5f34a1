"""The cached ``Settler`` settles exactly as the reference ``settle`` does."""

from __future__ import annotations

import copy
import json
import pickle
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from drivers.simulated import CODES
from station.game.analysis.first_two import first_four_classes
from station.game.cards import parse_card
from station.game.outcome import decide
from station.game.rules import banker_draws, player_draws
from station.game.settlement import _TABLES, CLASS_TABLES_KEPT, Settler, _class_of, settle
from station.settings.paytable import load_paytable
from tests.conftest import REPO, mixed_paytable

PAYTABLES = [("seed000.yaml", ()), ("seed000.yaml", ("no_commission",)),
             ("seed000.yaml", ("tie_9_to_1",)), ("seed003.yaml", ())]


@pytest.mark.parametrize(("name", "variants"), PAYTABLES)
def test_settler_matches_settle_on_random_rounds(name: str, variants: tuple[str, ...]) -> None:
    table = load_paytable(REPO / "config" / "paytables" / name, variants)
    settler = Settler(table)
    rng = random.Random(5)
    cards = [parse_card(c) for c in CODES] * 8
    for _ in range(4000):
        hand = rng.sample(cards, 6)
        p, b = [hand[0], hand[2]], [hand[1], hand[3]]
        pt, bt = (p[0].value + p[1].value) % 10, (b[0].value + b[1].value) % 10
        third = None
        if player_draws(pt, bt):
            p.append(hand[4])
            third = hand[4].value
        if banker_draws(pt, bt, third):
            b.append(hand[5])
        outcome = decide(tuple(p), tuple(b))
        fast = settler.settle(outcome)
        assert fast == settle(table, outcome)
        assert list(fast) == list(table.keys), "paytable order is part of the record"


def test_settler_refunds_a_void_round(tmp_path: Path) -> None:
    table = load_paytable(REPO / "config" / "paytables" / "seed000.yaml")
    refund = Settler(table).refund_all()
    assert set(refund) == set(table.keys)
    assert all(v == {"outcome": "push", "pays": 0} for v in refund.values())


def test_no_record_can_change_another_records_bet_entries() -> None:
    """Records share their (read-only) entries: every way of changing one is refused, and
    what a record does to its own ``bets`` mapping leaves the next record alone."""
    table = load_paytable(REPO / "config" / "paytables" / "seed000.yaml")
    settler = Settler(table)
    hand = (parse_card("9S"), parse_card("KD")), (parse_card("2C"), parse_card("3D"))
    first: dict[str, Any] = settler.settle(decide(*hand))
    second = settler.settle(decide(*hand))
    entry: Any = first["player"]
    changes: list[Callable[[], object]] = [
        lambda: entry.__setitem__("pays", 999), lambda: entry.__delitem__("pays"),
        entry.clear, lambda: entry.pop("pays"), entry.popitem,
        lambda: entry.setdefault("x", 1), lambda: entry.update(pays=999),
        lambda: entry.__ior__({"pays": 999}),
    ]
    for change in changes:
        with pytest.raises(TypeError, match="cannot be changed"):
            change()
    first["player"] = {"outcome": "changed", "pays": 999}  # its own mapping: allowed
    first["tie"] = dict(first["tie"], pays=999)
    assert second["player"] == {"outcome": "win", "pays": 1}
    assert second["tie"] == {"outcome": "lose", "pays": 0}
    assert settler.settle(decide(*hand)) == settle(table, decide(*hand))
    assert list(settler.settle(decide(*hand))) == list(table.keys)


def test_bet_entries_serialize_and_copy_as_plain_objects() -> None:
    """Consumers write records with orjson (no ``default=``) and json, and may copy them."""
    table = load_paytable(REPO / "config" / "paytables" / "seed003.yaml")
    bets = Settler(table).settle(decide((parse_card("4D"), parse_card("4D")),
                                        (parse_card("9S"), parse_card("KC"))))
    plain = {k: dict(v) for k, v in bets.items()}
    assert orjson.dumps(bets) == orjson.dumps(plain)
    assert json.dumps(bets) == json.dumps(plain)
    assert orjson.loads(orjson.dumps(bets)) == plain
    for copied in (copy.deepcopy(bets), pickle.loads(pickle.dumps(bets)), copy.copy(bets)):
        assert copied == plain and list(copied) == list(plain)


@pytest.mark.parametrize("name", ["seed000.yaml", "seed003.yaml"])
def test_settler_matches_settle_on_every_class_of_the_first_four_cards(name: str) -> None:
    """Pairs, same-suit and identical pairs, 4s and diamonds come up rarely in random deals:
    every class of the first four cards (and a relabelled copy of it) is settled here, each
    after the class was cached from another deal of it, so a cache key too coarse fails."""
    table = load_paytable(REPO / "config" / "paytables" / name)
    settler = Settler(table)
    size = len(settler.prepare())
    rng = random.Random(11)
    swap_suits = {"S": "C", "C": "S", "H": "H", "D": "D"}
    others = [r for r in "A23567890JQK".replace("0", "T")]
    for four, _ in first_four_classes(8):
        ranks = dict(zip(others, rng.sample(others, len(others)), strict=True))
        ranks["4"] = "4"
        twin = [parse_card(ranks[c.rank] + swap_suits[c.suit]) for c in four]
        for deal in ([*four], twin):
            p, b = (deal[0], deal[2]), (deal[1], deal[3])
            outcome = decide(p, b)
            assert settler.settle(outcome) == settle(table, outcome), deal
            assert _class_of(p, b) in settler.prepare(), "the table holds every class"
    # Complete before the first round, so it never grows, however long the run.
    assert len(settler.prepare()) == size


def test_a_deal_outside_the_class_table_is_settled_afresh() -> None:
    table = load_paytable(REPO / "config" / "paytables" / "seed003.yaml")
    settler = Settler(table)
    settler._by_class = {}
    for four, _ in first_four_classes(8)[::50]:
        outcome = decide((four[0], four[2]), (four[1], four[3]))
        assert settler.settle(outcome) == settle(table, outcome), four


PAIR_ONLY = """name: pairs
bets:
  - {key: pp, label: PP, kind: pair, side: player, pays: {win: PAYS}, push: [],
     cutoff_round: null}
"""


def test_class_tables_are_shared_and_a_few_are_kept(tmp_path: Path) -> None:
    """Settlers of the same card bets share one table; one per set of card bets, and only
    the last few sets, so a process that loads many paytables stays small."""
    seed000 = REPO / "config" / "paytables" / "seed000.yaml"
    assert (Settler(load_paytable(seed000)).prepare()
            is Settler(load_paytable(seed000)).prepare())
    tables = []
    for pays in range(11, 12 + CLASS_TABLES_KEPT):
        path = tmp_path / f"p{pays}.yaml"
        path.write_text(PAIR_ONLY.replace("PAYS", str(pays)), encoding="utf-8")
        settler = Settler(load_paytable(path))
        tables.append(settler.prepare())
        outcome = decide((parse_card("9S"), parse_card("9H")), (parse_card("2C"), parse_card("3D")))
        assert settler.settle(outcome) == {"pp": {"outcome": "win", "pays": pays}}
    assert len({id(t) for t in tables}) == len(tables)  # the pays differ: a table each
    assert len(_TABLES) == CLASS_TABLES_KEPT
    assert not any(t is tables[0] for t in _TABLES.values())  # the oldest went first


# --- the values cases, all built before the first round (issue 13) ---------------------------
def test_every_case_of_the_values_is_built_before_the_first_round() -> None:
    """The cases built are those the exact analysis gives a weight (an independent
    enumeration of the tableau): none missing, none that no round can reach."""
    from station.game.analysis.tree import index_key, round_weights  # noqa: PLC0415

    reachable = {tuple(index_key(i)) for i, w in enumerate(round_weights(8)) if w}
    assert len(reachable) == 205
    for name in ("seed000.yaml", "seed003.yaml"):
        settler = Settler(load_paytable(REPO / "config" / "paytables" / name))
        assert not settler._by_values  # built by prepare (after READY in the daemon)
        settler.prepare()
        assert set(settler._by_values) == reachable


@pytest.mark.parametrize("name", ["seed000.yaml", "seed003.yaml"])
def test_no_round_of_a_simulation_builds_a_values_case(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case is in place before the first round: a round that had to build one (tens of
    microseconds on its last card) fails here, and every round still settles as ``settle``."""
    from drivers.simulated import SimulatedDealer, random_shoes  # noqa: PLC0415
    from station.table.simulation import simulate  # noqa: PLC0415
    from station.table.station import Station  # noqa: PLC0415
    from station.table.tablerules import TableRules  # noqa: PLC0415

    table = load_paytable(REPO / "config" / "paytables" / name)
    station = Station(TableRules(), table, prompts=False)

    def refuse(self: Settler, outcome: Any) -> Any:
        raise AssertionError(f"a values case built during a round: {outcome}")

    monkeypatch.setattr(Settler, "_template", refuse)
    checked = 0
    real = station.dealing._publish

    def check(record: dict[str, Any]) -> None:
        nonlocal checked
        outcome = decide(tuple(map(parse_card, record["player"])),
                         tuple(map(parse_card, record["banker"])))
        assert record["bets"] == settle(table, outcome)
        checked += 1
        real(record)

    station.dealing._publish = check  # type: ignore[method-assign]
    simulate(station, SimulatedDealer(random_shoes(5, 8)))
    assert checked > 500


# --- a round's record and bets from its cards, without its outcome (issue 13) ----------------
def _rounds(rng: random.Random) -> list[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """Rounds dealt by the tableau: every class of the first four cards, every case of the
    values, and random deals, each completed with random third cards where they are due."""
    from station.game.outcome import values_cases  # noqa: PLC0415

    cards = [parse_card(c) for c in CODES]

    def complete(p: list[Any], b: list[Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        pt, bt = (p[0].value + p[1].value) % 10, (b[0].value + b[1].value) % 10
        third = None
        if player_draws(pt, bt):
            p.append(rng.choice(cards))
            third = p[2].value
        if banker_draws(pt, bt, third):
            b.append(rng.choice(cards))
        return tuple(p), tuple(b)

    out = [complete([f[0], f[2]], [f[1], f[3]]) for f, _ in first_four_classes(8)]
    out += [(o.player, o.banker) for o in values_cases().values()]
    out += [complete(rng.sample(cards, 2), rng.sample(cards, 2)) for _ in range(20_000)]
    return out


def test_a_rounds_record_from_its_cards_is_the_record_of_its_outcome() -> None:
    from station.game.outcome import values_key  # noqa: PLC0415
    from station.game.results import complete_record, round_record  # noqa: PLC0415

    keys = set()
    for n, (p, b) in enumerate(_rounds(random.Random(5))):
        key = values_key(p, b)
        keys.add(key)
        want = complete_record("table-1-20260101T000003Z-1", n, decide(p, b), f"d{n % 3}")
        got = round_record("table-1-20260101T000003Z-1", n, p, b, key, dealer=f"d{n % 3}")
        assert list(got.items()) == list(want.items()), (p, b)  # key order too
    assert len(keys) == 205


@pytest.mark.parametrize("name", ["seed000.yaml", "seed003.yaml"])
def test_a_rounds_bets_from_its_cards_are_the_bets_of_its_outcome(name: str) -> None:
    from station.game.outcome import values_key  # noqa: PLC0415

    table = load_paytable(REPO / "config" / "paytables" / name)
    settler = Settler(table)
    for p, b in _rounds(random.Random(6))[::3]:
        got = settler.settle_round(p, b, values_key(p, b))
        assert list(got.items()) == list(settle(table, decide(p, b)).items()), (p, b)


def test_a_bet_reading_values_and_cards_is_settled_from_the_cards_too(tmp_path: Path) -> None:
    """A bet made of a values bet and a card bet is settled every round (no case or class
    decides it): ``settle_round`` builds that round's outcome for it, and agrees with
    ``settle``."""
    from station.game.outcome import values_key  # noqa: PLC0415

    path = tmp_path / "mixed.yaml"
    path.write_text(mixed_paytable(), encoding="utf-8")
    table = load_paytable(path)
    settler = Settler(table)
    assert [b.key for b in settler._live] == ["any"]
    wins = 0
    for p, b in _rounds(random.Random(7))[::5]:
        got = settler.settle_round(p, b, values_key(p, b))
        assert got == settle(table, decide(p, b)), (p, b)
        wins += got["any"]["outcome"] == "win"
    assert wins > 100


def test_values_tables_are_shared_and_a_few_are_kept(tmp_path: Path) -> None:
    """As the class tables: Settlers of the same values bets share one table of their cases,
    and only the last few sets of values bets are kept (docs/architecture.md)."""
    from station.game.settlement import _VALUES  # noqa: PLC0415

    tables = []
    for pays in range(8, 9 + CLASS_TABLES_KEPT):
        path = tmp_path / f"t{pays}.yaml"
        path.write_text("name: ties\nbets:\n  - {key: tie, label: T, kind: tie, pays: {win: "
                        f"{pays}}}, push: [], cutoff_round: null}}\n", encoding="utf-8")
        Settler(load_paytable(path)).prepare()
        Settler(load_paytable(path)).prepare()
        tables.append(next(reversed(_VALUES.values())))
        outcome = decide((parse_card("9S"), parse_card("KH")), (parse_card("4C"), parse_card("5D")))
        assert Settler(load_paytable(path)).settle(outcome) == {
            "tie": {"outcome": "win", "pays": pays}}
    assert len({id(t) for t in tables}) == len(tables)
    assert len(_VALUES) == CLASS_TABLES_KEPT
    assert not any(t is tables[0] for t in _VALUES.values())  # the oldest went first
