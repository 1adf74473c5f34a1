"""The bet guard (issue 25) at a table: a stacked one-deck shoe where Player pair turns
positive at a known round; ``observe`` alerts then and not before, ``close`` takes it out of
the next ``open_bets``, a replay reproduces both, and ``off`` adds nothing."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.cli import main
from station.game.analysis.composition import CompositionAnalyzer
from station.game.betguard import BetGuard, limit_of, published
from station.game.cards import RANKS, parse_card
from station.settings.paytable import load_paytable
from station.table.outputs import Announced
from station.web.view import ShoeHistory, Surroundings, build_view, notices_of
from station.wire.feed import Feed
from station.wire.messages import STATION_VERSION
from station.wire.observe import Snapshot
from station.wire.recording import read_recording
from station.wire.schema import validate
from tests.conftest import REPO
from tests.sampling import examples

PAYTABLES = Path(__file__).resolve().parents[2] / "config" / "paytables"
BURN = ["AS", "AH"]  # the ace shown burns one more card
# One deck: the small ranks and the faces first, 7 8 9 K last, so that pairs grow likely as
# the shoe empties. Player pair (11 to 1) returns 12 * P(pair); over 1 from round 4 on.
# tests/recordings/bet_guard_closes_player_pair.jsonl was made from it with close.
STACKED = REPO / "tests" / "shoes" / "bet_guard_stacked.txt"
TURNS = 4  # the round at whose betting opening Player pair first returns more than 1


def _run(tmp: Path, guard: str | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                               Path]:
    """(announcements, round records, recording) of the stacked shoe with ``guard``."""
    key = "" if guard is None else f", bet_guard: {guard}"
    config = tmp / f"{guard}.yaml"
    config.write_text(f"table: {{id: t-1, decks: 1, paytable: {PAYTABLES / 'seed000.yaml'}"
                      f"{key}}}\n")
    ann, out, rec = (tmp / f"{guard}.{n}" for n in ("ann.jsonl", "out.jsonl", "rec.jsonl"))
    assert main(["simulate", "-c", str(config), "--shoe-file", str(STACKED), "--out",
                 str(out), "--announcements", str(ann), "--record", str(rec)]) == 0
    return ([json.loads(line) for line in ann.read_text().splitlines()],
            [json.loads(line) for line in out.read_text().splitlines()], rec)


def _pair_rtp(records: list[dict[str, Any]], round_no: int) -> Fraction:
    """Player pair's return at round ``round_no``'s opening, worked out apart from the
    analyzer: 12 * sum over ranks of R (R - 1) / (n (n - 1)) for the cards not yet out."""
    out = list(BURN)
    for r in records:
        if r["round"] < round_no:
            out += r["player"] + r["banker"]
    left = {rank: 4 for rank in RANKS}
    for code in out:
        left[parse_card(code).rank] -= 1
    n = sum(left.values())
    return 12 * Fraction(sum(k * (k - 1) for k in left.values()), n * (n - 1))


def _opens(announcements: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {a["round"]: a for a in announcements if a["type"] == "betting_open"}


def _alerts(announcements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [a for a in announcements if a["type"] == "alert"]


def test_observe_alerts_at_the_round_the_bet_turns_and_not_before(tmp_path: Path) -> None:
    announcements, records, _ = _run(tmp_path, "observe")
    opens = _opens(announcements)
    for round_no, opened in opens.items():
        exact = _pair_rtp(records, round_no)
        assert opened["rtp"]["player_pair"] == published(exact)
        assert (exact > 1) == (round_no >= TURNS)
        assert "player_pair" in opened["open_bets"]  # observe closes nothing
        assert set(opened["rtp"]) == set(opened["open_bets"])
        assert "closed_by_guard" not in opened
    pair = [a for a in _alerts(announcements) if a["bet"] == "player_pair"]
    assert len(pair) == 1  # once per bet and shoe, though it stays positive
    assert pair[0]["round"] == TURNS and pair[0]["rtp"] == opens[TURNS]["rtp"]["player_pair"]
    assert pair[0]["alert"] == "bet_positive" and pair[0]["by"] == "bet_guard"
    # The alert follows its betting_open.
    at = announcements.index(opens[TURNS])
    assert pair[0] in announcements[at + 1:at + 12]


def test_close_takes_the_bet_out_of_the_next_open_bets(tmp_path: Path) -> None:
    announcements, records, _ = _run(tmp_path, "close")
    opens = _opens(announcements)
    for round_no, opened in opens.items():
        closed = round_no >= TURNS
        assert ("player_pair" in opened["open_bets"]) is not closed
        assert ("player_pair" in opened["closed_by_guard"]) is closed
        assert set(opened["rtp"]) == set(opened["open_bets"])
    by_round = {r["round"]: r for r in records}
    assert "player_pair" in by_round[TURNS - 1]["open_bets"]
    assert "player_pair" not in by_round[TURNS]["open_bets"]  # the round record agrees
    assert [a["round"] for a in _alerts(announcements) if a["bet"] == "player_pair"] == [TURNS]
    # Every bet it closed was over the limit when it did, and the cut-offs still apply.
    for alert in _alerts(announcements):
        assert alert["rtp"] > 1
        assert alert["bet"] not in opens[alert["round"]]["open_bets"]


@pytest.mark.parametrize("guard", ["observe", "close"])
def test_a_replay_reproduces_every_figure_and_closure(tmp_path: Path, guard: str) -> None:
    announcements, _, rec = _run(tmp_path, guard)
    opened = read_recording(rec)
    assert opened.rules.bet_guard == guard
    station = opened.station()
    feed = Feed(station.rules.table, station.rules.decks, None)
    again: list[dict[str, Any]] = []
    for event in opened.events:
        before = Snapshot.of(station)
        outputs = station.apply(event)
        for _, payload in feed.messages(before, Snapshot.of(station), event, outputs):
            message = orjson.loads(payload)
            message.pop(STATION_VERSION, None)
            if message["kind"] in ("betting_open", "alert"):
                # The upstream contract's schemas, with the new fields (unsigned here).
                validate(message | {"sig": "A" * 86 + "=="})
        again += [o.message for o in outputs if isinstance(o, Announced)]
    assert again == announcements


def test_off_adds_nothing(tmp_path: Path) -> None:
    """A config that says off publishes what a table published before the guard; its
    recording's rules do not mention the guard."""
    announcements, _, rec = _run(tmp_path, "off")
    assert not _alerts(announcements)
    assert all(set(a) == {"type", "shoe", "round", "key", "open_bets"}
               for a in announcements if a["type"] == "betting_open")
    assert "bet_guard" not in json.loads(rec.read_text().splitlines()[0])["rules"]


def test_a_config_defaults_to_observe(tmp_path: Path) -> None:
    announcements, _, rec = _run(tmp_path, None)
    assert all("rtp" in a for a in announcements if a["type"] == "betting_open")
    assert json.loads(rec.read_text().splitlines()[0])["rules"]["bet_guard"] == "observe"


@pytest.mark.parametrize("value, why", [
    ("shut", "'shut' is not one of: off, observe, close"),
    ("0.3", "0.3 is not a return from 0.5 to 2.0"),
    ("true", "True is not a return"),
])
def test_bad_guard_keys_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    value: str, why: str) -> None:
    key = "bet_guard" if value == "shut" else "bet_guard_max_rtp"
    config = tmp_path / "c.yaml"
    config.write_text(f"table: {{id: t-1, {key}: {value}}}\n")
    assert main(["simulate", "-c", str(config), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"table.{key}: {why}" in err, err


def test_the_limit_is_the_decimal_written() -> None:
    assert limit_of(1.005) == Fraction(201, 200)
    assert published(Fraction(1234565, 10**6) + Fraction(1, 10**7) / 2) == 1.234565


@cache
def _guards() -> tuple[CompositionAnalyzer, BetGuard]:
    table = load_paytable(PAYTABLES / "seed003.yaml")
    return CompositionAnalyzer(table), BetGuard(table, "close", 0.97)


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.integers(0, 51), min_size=0, max_size=300))
def test_the_guard_never_closes_a_bet_under_the_limit(out: list[int]) -> None:
    """Random shoes (8 decks less a random draw): every bet the guard closes returns more
    than the limit by the full analysis, and every open bet over it is closed."""
    analyzer, guard = _guards()
    drawn = [0] * 52
    for i in out:
        if drawn[i] < 8:
            drawn[i] += 1
    guard.new_shoe()
    keys = list(analyzer.paytable.keys)
    found = guard.opening(keys, drawn, 8)
    full = {b.key: b.rtp for b in analyzer.analyze([8 - n for n in drawn]).bets}
    for key in found.closed:
        assert full[key] > Fraction(97, 100)
    for key in keys:
        assert full[key] <= Fraction(97, 100)


@given(st.fractions(min_value=0, max_value=3))
def test_published_is_round_half_even_to_six_decimals(x: Fraction) -> None:
    assert published(x) == float(round(x, 6))


def _stats(tmp: Path, capsys: pytest.CaptureFixture[str], guard: str) -> str:
    assert main(["simulate", "--shoe-file", str(STACKED), "-c", str(_config(tmp)),
                 "--bet-guard", guard, "--stats", "--out", str(tmp / "o.jsonl")]) == 0
    return capsys.readouterr().err


def _config(tmp: Path) -> Path:
    path = tmp / "plain.yaml"
    path.write_text(f"table: {{id: t-1, decks: 1, paytable: {PAYTABLES / 'seed000.yaml'}}}\n")
    return path


def test_simulate_stats_counts_the_closures_and_the_return_saved(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--bet-guard`` overrides the config's; ``--stats`` counts one closure per alert and,
    with observe, sums rtp - 1 over each closed bet's openings from its alert on."""
    announcements, _, _ = _run(tmp_path, "observe")
    alerts = _alerts(announcements)
    opens = _opens(announcements)
    saved = sum(opens[r]["rtp"][a["bet"]] - 1 for a in alerts for r in opens
                if r >= a["round"] and a["bet"] in opens[r]["rtp"])
    rounds = sum(1 for a in alerts for r in opens
                 if r >= a["round"] and a["bet"] in opens[r]["rtp"])
    err = _stats(tmp_path, capsys, "observe")
    assert (f"bet guard observe: would have closed {len(alerts)} bets over 1 shoes "
            f"({len(alerts)}.00 a shoe, at most {len(alerts)} in one)") in err
    assert f"return saved: {saved:+.4f} units per unit staked, summed over {rounds} " in err
    err = _stats(tmp_path, capsys, "close")
    assert "bet guard close: closed " in err and "return saved: not known with close" in err
    assert "bet guard off: nothing valued" in _stats(tmp_path, capsys, "off")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_dealer_page_shows_nothing_of_it(tmp_path: Path, language: str) -> None:
    """The page's view at every event of the closing session holds no return, alert or
    closure: a dealer does not need them (the pit and the game server get them upstream)."""
    _, _, rec = _run(tmp_path, "close")
    opened = read_recording(rec)
    station = opened.station()
    history = ShoeHistory()
    notices: list[str] = []
    around = Surroundings(table="t-1", language=language)
    for event in opened.events:
        outputs = station.apply(event)
        history.add(outputs)
        notices += notices_of(outputs)
        text = json.dumps(build_view(station, station.prompt, history, notices, around),
                          ensure_ascii=False)
        for word in ("rtp", "bet_positive", "closed_by_guard", "bet_guard", "player_pair",
                     "return"):
            assert word not in text, (word, text)


def test_a_paytable_the_guard_cannot_value_is_refused_unless_it_is_off(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A combined bet over pair bets has no composition analysis: the config says so at
    load, naming the bet, instead of the station failing when it starts."""
    text = (PAYTABLES / "seed000.yaml").read_text().replace("\nbets:\n", (
        "\nbets:\n  - {key: any_pair, label: x, kind: any_of, bets: [player_pair, "
        "banker_pair], pays: {win: 5}, push: [], cutoff_round: null}\n"), 1)
    (tmp_path / "p.yaml").write_text(text)
    config = tmp_path / "c.yaml"
    config.write_text("table: {id: t-1, paytable: p.yaml}\n")
    assert main(["simulate", "-c", str(config), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "table.bet_guard: the guard cannot value bet(s) any_pair of the paytable" in err
    config.write_text("table: {id: t-1, paytable: p.yaml, bet_guard: off}\n")
    assert main(["simulate", "-c", str(config), "--out", str(tmp_path / "o")]) == 0


def test_a_vip_round_skipped_at_once_has_no_returns_either() -> None:
    """A skipped round has no bets (seed 003 飞牌): its betting_open carries an empty ``rtp``
    as it carries empty ``open_bets``; the next round is valued again."""
    from tests.modes.test_modes_vip import Desk  # noqa: PLC0415 - the VIP table's own test desk

    t = Desk(bet_guard="observe")
    t.start()
    t.client("skip")
    while t.d.state != "between_rounds":
        t.card()
    t.play()
    skipped, played = t.messages("betting_open")
    assert skipped["skipped"] is True and skipped["open_bets"] == [] and skipped["rtp"] == {}
    assert set(played["rtp"]) == set(played["open_bets"]) and played["open_bets"]


def test_with_fewer_than_six_cards_left_nothing_is_valued() -> None:
    """A round may need six cards: with five left the guard publishes ``{}`` and closes
    nothing, keeping the closures it made before."""
    table = load_paytable(PAYTABLES / "seed000.yaml")
    guard = BetGuard(table, "close", 1.0)
    keys = list(table.keys)
    drawn = [1] * 52
    for i in range(4):  # four aces left, and a 2: pairs of aces all but certain
        drawn[i * 13] = 0
    drawn[1] = 0
    found = guard.opening(keys, drawn, 1)
    assert found.rtp == {} and found.closed == [] and found.alerts == []
    assert keys == list(table.keys)
    drawn[2] = drawn[3] = 0  # seven cards: valued, and the pairs are closed
    found = guard.opening(keys, drawn, 1)
    assert "player_pair" in found.closed and "player_pair" not in keys
    drawn[2] = drawn[3] = 1
    keys = list(table.keys)
    found = guard.opening(keys, drawn, 1)  # five again: the earlier closures still hold
    assert found.rtp == {} and "player_pair" in found.closed and "player_pair" not in keys


def test_a_return_exactly_at_the_limit_is_not_over_it() -> None:
    """Nine cards, three aces and six other ranks: a Player pair is 6 / 72 = 1/12 likely,
    so at 11 to 1 it returns exactly 1. Strictly over the limit alerts; at it, not."""
    table = load_paytable(PAYTABLES / "seed000.yaml")
    left = ["AS", "AH", "AD", "2C", "3C", "4C", "5C", "6C", "7C"]
    drawn = [1] * 52
    for code in left:
        drawn[parse_card(code).index] = 0
    assert CompositionAnalyzer(table).rtp([1 - n for n in drawn])["player_pair"] == 1
    at = BetGuard(table, "close", 1.0).opening(list(table.keys), drawn, 1)
    assert "player_pair" not in [a["bet"] for a in at.alerts] and at.rtp["player_pair"] == 1.0
    under = BetGuard(table, "close", 0.999999).opening(list(table.keys), drawn, 1)
    assert "player_pair" in under.closed


def test_check_config_names_the_guard(tmp_path: Path) -> None:
    from station.live.config import load_config  # noqa: PLC0415
    from station.live.service.check import check  # noqa: PLC0415

    config = tmp_path / "c.yaml"
    config.write_text(f"table: {{id: t-1, paytable: {PAYTABLES / 'seed000.yaml'}, "
                      "bet_guard: close, bet_guard_max_rtp: 1.02}\n")
    table = next(f for f in check(load_config(config)) if f.what == "table")
    assert table.detail.endswith("paytable seed000.yaml, bet guard close (limit 1.02)")
