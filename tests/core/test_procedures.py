"""Table procedures on the station itself (issue 22, docs/rules.md "Procedures"): the dealer's
own pause, the supervisor's shuffle check, where the cut card was. Every message is built as
the daemon builds it and validated against its schema; replay of the same events gives the
same outputs and messages."""

from __future__ import annotations

from typing import Any

import pytest

from drivers.codes import CardCode, CodeFormat, code_event
from drivers.events import CardRead, Command, InputEvent
from drivers.simulated import SimulatedDealer, random_shoes
from station.journal.recovery import Recovered
from station.settings.paytable import load_paytable
from station.table.outputs import Announced, Notice, Output, Published, Refused
from station.table.procedures import PAUSE_CODES, PAUSE_WORDS, penetration
from station.table.simulation import simulate
from station.table.station import Station
from station.table.tablerules import TableRules
from station.wire.observe import Snapshot, build, changes
from station.wire.recording import event_from_json, event_to_json
from station.wire.schema import validate
from tests.conftest import REPO
from tests.tablekit import Table

SEED000 = REPO / "config" / "paytables" / "seed000.yaml"


class Watched(Table):
    """A table whose every event is also turned into upstream messages."""

    def __init__(self, paytable: bool = False, **rules: Any) -> None:
        super().__init__(**rules)
        if paytable:
            self.station = Station(TableRules(**rules), load_paytable(SEED000))
        self.messages: list[dict[str, Any]] = []

    def send(self, event: InputEvent) -> list[Output]:
        before = Snapshot.of(self.station)
        out = super().send(event)
        after = Snapshot.of(self.station)
        for kind, args in changes(before, after, event, out, self.station.rules.decks):
            message = build(kind, args, table=self.station.rules.table,
                            seq=len(self.messages) + 1)
            self.messages.append(message)
        return out

    def pause(self, code: str | None, note: str | None = None,
              actor: str = "dealer:test") -> list[Output]:
        return self.send(Command("pause", actor, self.tick(1.0), note, code))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["kind"] == kind]

    def refusals(self) -> list[Refused]:
        return [o for o in self.outputs if isinstance(o, Refused)]


def _valid(messages: list[dict[str, Any]]) -> None:
    for m in messages:
        events = {} if m["kind"] == "status" else {"prev_seq": None}  # the feed adds it
        validate({**m, **events, "sig": "A" * 86 + "=="})


def _note(code: str) -> str | None:
    return "the lamp over the shoe went out" if code == "other" else None


# --- the dealer's pause -----------------------------------------------------------------------
@pytest.mark.parametrize("code", PAUSE_CODES)
def test_each_code_pauses_mid_round_and_is_published_with_who_and_why(code: str) -> None:
    t = Watched()
    t.new_shoe()
    t.round("4S", "3H")
    t.pause(code, _note(code), actor="bob (web 127.0.0.1)")
    assert t.phase == "paused"
    (pause,) = t.of("pause")
    words = PAUSE_WORDS[code][0]
    assert pause["raised_by"] == "bob (web 127.0.0.1)" and pause["code"] == code
    assert pause["reason"].startswith(f"held by the dealer: {words}")
    assert ("note" in pause) == (code == "other")
    assert pause["round"] == 1
    assert t.prompt.startswith(f"PAUSED: held by the dealer: {words}")
    # Resumed, the round goes on from the card it waited for.
    t.cmd("resume", actor="alice (web 127.0.0.1)")
    assert t.phase == "player_2"
    (resume,) = t.of("resume")
    assert resume["by"] == "alice (web 127.0.0.1)"
    _valid(t.messages)


def test_a_pause_mid_round_that_is_voided_refunds_the_round() -> None:
    t = Watched(paytable=True)
    t.new_shoe()
    t.round("4S", "3H", "9C")
    t.pause("misdeal")
    t.cmd("void", actor="alice (web 127.0.0.1)")
    (r,) = t.records
    assert r["status"] == "void" and r["void_reason"] == "held by the dealer: misdeal"
    assert r["voided_by"] == "alice (web 127.0.0.1)"
    assert {b["outcome"] for b in r["bets"].values()} == {"push"}
    assert t.phase == "between_rounds"
    _valid(t.messages)


def test_a_pause_between_rounds_holds_the_table_until_resumed() -> None:
    t = Watched()
    t.new_shoe()
    t.pause("equipment")
    assert t.phase == "paused"
    refused = t.cmd("open_betting")
    assert any(isinstance(o, Refused) for o in refused) and t.phase == "paused"
    t.card("5D")  # drawn while held: set aside, named
    assert "drawn while paused: 1 card (5D)" in t.station.dealing.pause_reasons
    t.cmd("void", actor="alice")  # between rounds a void refunds nothing: no round is open
    assert t.records == [] and t.phase == "between_rounds"
    t.round("4S", "3H", "2C", "5C")
    assert t.records[0]["status"] == "complete" and t.records[0]["round"] == 1


@pytest.mark.parametrize("where", ["no_shoe", "burn_indicator", "burning", "betting_open",
                                   "banker_2", "shoe_closed"])
def test_it_works_in_every_phase_and_resume_returns_there(where: str) -> None:
    t = Watched(cut_card_between_rounds="close_shoe")
    if where != "no_shoe":
        t.cmd("new_shoe")
    if where not in ("no_shoe", "burn_indicator"):
        t.card("3S")  # a 3 shown: three more to burn
    if where in ("betting_open", "banker_2", "shoe_closed"):
        t.cards("KD", "KH", "KC")
    if where == "betting_open":
        t.cmd("open_betting")
    if where == "banker_2":
        t.round("4S", "3H", "2C")
    if where == "shoe_closed":
        t.cut()
    assert t.phase == where
    t.pause("dispute")
    assert t.phase == "paused"
    t.cmd("resume", actor="alice")
    assert t.phase == where


def test_a_pause_while_paused_is_refused_with_the_reason_and_changes_nothing() -> None:
    t = Watched()
    t.new_shoe()
    t.pause("card_exposed")
    before = (t.station.dealing.pause_reasons, len(t.messages))
    out = t.pause("dispute", actor="upstream:pit/ann [c-9]")
    (refused,) = [o for o in out if isinstance(o, Refused)]
    assert refused.detail == "the table is paused already; a supervisor resumes or voids"
    assert (t.station.dealing.pause_reasons, len(t.messages) - 1) == before
    # From upstream the refusal is answered upstream, with the command's id.
    (answer,) = t.of("command_refused")
    assert (answer["command_id"], answer["action"], answer["reason"]) == ("c-9", "pause",
                                                                         "not_now")
    _valid(t.messages)


@pytest.mark.parametrize(("code", "note", "why"), [
    (None, None, "needs a reason code"),
    ("card_lost", None, "unknown reason 'card_lost'"),
    ("other", None, "other needs a note"),
    ("dispute", "", "a note is 1-200"),
    ("dispute", "x" * 201, "a note is 1-200"),
    ("dispute", "line\nbreak", "a note is 1-200"),
])
def test_a_bad_code_or_note_changes_nothing(code: str | None, note: str | None,
                                            why: str) -> None:
    t = Watched()
    t.new_shoe()
    before = t.phase
    out = t.pause(code, note)
    (refused,) = [o for o in out if isinstance(o, Refused)]
    assert why in refused.detail and refused.reason == "malformed"
    assert t.phase == before and t.of("pause") == []


def test_a_pause_stops_the_betting_countdown_and_resume_starts_it_again() -> None:
    t = Watched(betting="timer", betting_s=15.0)
    t.new_shoe()
    counting = dict(t.station.deadlines)
    assert counting, "a countdown runs between rounds"
    t.pause("card_dropped")
    assert t.station.deadlines == {}
    t.cmd("resume", actor="alice")
    assert set(t.station.deadlines) == set(counting)


def test_replay_reproduces_a_dealer_pause_exactly() -> None:
    t = Watched(paytable=True)
    t.new_shoe()
    t.round("4S", "3H")
    t.pause("other", "a player disputes the second card")
    t.pause("dispute")  # refused: paused already
    t.cmd("void", actor="alice")
    again = Watched(paytable=True)
    for ev in t.events:
        again.send(event_from_json(event_to_json(ev)))
    assert again.outputs == t.outputs and again.messages == t.messages
    assert event_to_json(t.events[-3])["code"] == "other"
    # Every other command keeps its bytes: no code key.
    assert "code" not in event_to_json(t.events[-1])


# --- the shuffle check ------------------------------------------------------------------------
def checked(**rules: Any) -> Watched:
    return Watched(shuffle_check="supervisor", pack_prefix="PK-", **rules)


def test_no_card_is_dealt_before_the_supervisor_confirms() -> None:
    t = checked()
    t.cmd("new_shoe", actor="dealer:D7")
    assert t.phase == "shuffle_check" and t.of("shoe_started") == []
    assert t.prompt.startswith("SHUFFLE CHECK: supervisor confirms the shuffle")
    t.card("AS")
    assert t.phase == "paused"
    assert t.station.dealing.pause_reasons == [
        "card not due: AS (the shuffle is not confirmed yet)"]
    t.cmd("resume", actor="alice")
    assert t.phase == "shuffle_check"  # still due
    t.card("9H")
    t.cmd("void", actor="alice")
    assert t.phase == "shuffle_check" and t.records == []
    assert t.of("shoe_started") == []
    # Betting, a burn card, END SHOE: nothing moves the table on but the confirmation.
    t.cmd("open_betting")
    t.cmd("new_shoe")
    assert t.phase == "shuffle_check"


def test_the_confirmation_starts_the_shoe_and_names_who_shuffled_and_who_checked() -> None:
    t = checked(shuffle_method="machine")
    t.send(CardRead("DEALER-D042", "scanner", t.tick(1.0)))  # the dealer signs in
    t.cmd("new_shoe", actor="dealer:D042")
    t.card("PK-A1")
    t.card("PK-B2")
    t.card("PK-A1")  # again: registered once
    t.cmd("confirm_shuffle", actor="alice (web 127.0.0.1)")
    assert t.phase == "burn_indicator"
    (started,) = t.of("shoe_started")
    assert started["shuffle"] == {"by": "D042", "confirmed_by": "alice (web 127.0.0.1)",
                                  "confirmed_at": started["ts"], "method": "machine",
                                  "packs": ["A1", "B2"]}
    t.cards("2S", "7D", "8D")  # the burn: a 2 shown, two burned
    t.round("4S", "3H", "5C", "5D")
    t.cut()
    t.round("9S", "9H", "TC", "TD")
    (report,) = [o.message for o in t.outputs if isinstance(o, Announced)
                 and o.message.get("type") == "shoe_report"]
    assert report["shuffle"] == started["shuffle"]
    _valid(t.messages)


def test_the_shoe_report_says_who_raised_each_dealers_pause() -> None:
    t = Watched(decks=1)
    t.new_shoe()
    t.pause("other", "the lamp over the shoe went out", actor="bob (web 127.0.0.1)")
    t.cmd("resume", actor="alice")
    t.card("5D")  # not due: a pause the station raised
    t.cmd("void", actor="alice")
    t.cmd("end_shoe")
    (report,) = [o.message for o in t.outputs if isinstance(o, Announced)
                 and o.message.get("type") == "shoe_report"]
    dealers, station = report["pauses"]
    assert (dealers["raised_by"], dealers["code"], dealers["note"], dealers["by"]) == (
        "bob (web 127.0.0.1)", "other", "the lamp over the shoe went out", "alice")
    assert "raised_by" not in station and station["cleared"] == "void"
    _valid(t.messages)


def test_confirmation_refused_where_nothing_is_checked_or_nothing_is_due() -> None:
    t = Watched()
    t.new_shoe()
    t.cmd("confirm_shuffle", actor="alice")
    c = checked()
    c.cmd("confirm_shuffle", actor="alice")  # before NEW SHOE
    c.cmd("new_shoe")
    c.card("AS")
    c.cmd("confirm_shuffle", actor="alice")  # paused: the card first
    assert [r.detail for r in t.refusals() + c.refusals()] == [
        "this table's shuffle is not checked (table.shuffle_check is none)",
        "no shuffle check is due", "no shuffle check is due"]
    assert c.phase == "paused"


def test_a_standard_table_keeps_its_rules_bytes() -> None:
    assert TableRules().to_json() == {"table": "table-1", "decks": 8, "dedupe_ms": 150,
                                      "cut_card_between_rounds": "next_round_last",
                                      "badge_prefix": "DEALER-"}
    checked_rules = TableRules(shuffle_check="supervisor", penetration=(0.5, 0.9))
    assert checked_rules.to_json()["penetration"] == (0.5, 0.9)


# --- where the cut card was -------------------------------------------------------------------
def _last(t: Watched) -> dict[str, Any]:
    return [r for r in t.records if "cut_card_at" in r][-1]


def test_cut_card_right_after_the_burn() -> None:
    # A 1-deck shoe: 52 cards. Burn 4 shown + 4 face down = 5 cards, then the cut card.
    t = Watched(decks=1, penetration=(0.0, 1.0))
    t.new_shoe(burn=("4S", "KD", "KH", "KC", "KS"))
    t.cut()  # between rounds: the next round is the shoe's last
    t.round("4C", "3H", "2C", "5C")
    (r,) = t.records
    assert (r["cut_card_at"], r["penetration"]) == (5, round(5 / 52, 4)) == (5, 0.0962)
    assert t.phase == "shoe_closed"


def test_cut_card_mid_shoe_counts_set_aside_cards_too() -> None:
    t = Watched(decks=1, penetration=(0.0, 1.0))
    t.new_shoe()  # 2 cards: ace shown, one burned
    t.round("4S", "3H", "2C", "5C")  # 4: player 7, banker 8, both stand
    t.card("6D")  # not due: paused, set aside (counted: it left the shoe)
    t.cmd("void", actor="alice")
    t.round("TS", "TH", "9C", "8C")  # 4: naturals
    t.cut()
    t.round("2S", "2H", "3C", "3D", "8S")  # 5: player 5 draws (8), banker 5 stands
    r = _last(t)
    assert r["round"] == 3 and r["cut_card_at"] == 2 + 4 + 1 + 4 == 11
    assert r["penetration"] == penetration(11, 1) == 0.2115


def test_cut_card_among_the_last_rounds_cards() -> None:
    t = Watched(decks=1, penetration=(0.0, 1.0))
    t.new_shoe()
    t.round("4S", "3H")  # two cards of round 1 dealt, then the cut card
    t.cut()
    t.cards("2C", "5C")
    (r,) = t.records
    assert r["cut_card_at"] == 4 and t.phase == "shoe_closed"
    (report,) = [o.message for o in t.outputs if isinstance(o, Announced)
                 and o.message.get("type") == "shoe_report"]
    assert (report["cut_card_at"], report["penetration"]) == (4, 0.0769)


def test_a_standard_table_publishes_no_cut_card_position() -> None:
    t = Watched(decks=1)
    t.new_shoe()
    t.round("4S", "3H")
    t.cut()
    t.cards("2C", "5C")
    assert "cut_card_at" not in t.records[0]
    (report,) = [o.message for o in t.outputs if isinstance(o, Announced)
                 and o.message.get("type") == "shoe_report"]
    assert "cut_card_at" not in report


@pytest.mark.parametrize(("band", "alert"), [
    ((0.0, 1.0), False), ((0.0769, 0.0769), False),  # the edges are inside
    ((0.08, 0.9), True), ((0.0, 0.07), True),
])
def test_the_alert_fires_outside_the_band_and_never_inside(band: tuple[float, float],
                                                           alert: bool) -> None:
    t = Watched(decks=1, penetration=band)
    t.new_shoe()
    t.round("4S", "3H")
    t.cut()  # after 4 cards of 52: 0.0769
    alerts = t.of("alert")
    assert bool(alerts) is alert
    if alert:
        (a,) = alerts
        assert a["alert"] == "cut_card_position" and a["by"] == "station"
        assert "penetration 0.0769, outside table.penetration" in a["detail"]
    t.cut()  # a bounce: never a second alert
    assert len(t.of("alert")) == len(alerts)
    _valid(t.messages)


# --- the simulated table ----------------------------------------------------------------------
@pytest.mark.parametrize("supervisor", ["resume", "none"])
def test_the_simulated_supervisor_confirms_each_shuffle(supervisor: str) -> None:
    # Regression: the shuffle_check phase had nothing due for the simulated table, and the
    # daemon failed on its first NEW SHOE there (a KeyError in station.table.simulation).
    station = Station(TableRules(shuffle_check="supervisor"))
    dealer = SimulatedDealer(random_shoes(4, 2), supervisor=supervisor)
    outputs: list[Output] = []
    end = simulate(station, dealer, outputs.extend)
    confirmed = [o for o in outputs if isinstance(o, Notice)
                 and o.text == "shuffle confirmed by supervisor:sim: burn the first card"]
    if supervisor == "none":  # nobody of ours confirms: the table waits at the check
        assert end.final_phase.value == "shuffle_check" and confirmed == []
        return
    assert len(confirmed) == 2 and end.rounds > 100
    reports = [o.message for o in outputs if isinstance(o, Announced)
               and o.message.get("type") == "shoe_report"]
    assert [r["shuffle"]["confirmed_by"] for r in reports] == ["supervisor:sim"] * 2
    assert all(0.8 < r["penetration"] < 1.0 for r in reports)


# --- cards of this shoe's packs only ----------------------------------------------------------
PACK_FORMAT = r"(?:(?P<pack>[A-Za-z0-9._-]{1,32})/)?(?P<rank>10|[A2-9TJQK])(?P<suit>[SHDC])"


def test_a_code_format_may_name_the_cards_pack() -> None:
    f = CodeFormat(PACK_FORMAT)
    assert f.classify("8812A/10h") == CardCode("TH", "8812A/10h", "8812A")
    assert f.classify("AS") == CardCode("AS", "AS")  # plain codes keep working
    read = code_event(f.classify("8812A/AS"), b"8812A/AS", "scanner", 5.0)
    assert read == CardRead("AS", "scanner", 5.0, "8812A")
    # Recorded only when read: a plain card's line keeps its bytes.
    assert event_to_json(read)["pack"] == "8812A"
    assert event_from_json(event_to_json(read)) == read
    plain = CardRead("AS", "scanner", 5.0)
    assert "pack" not in event_to_json(plain) and event_from_json(event_to_json(plain)) == plain


def packed(**rules: Any) -> Watched:
    t = checked(**rules)
    t.cmd("new_shoe")
    t.cards("PK-A1", "PK-B2")
    t.cmd("confirm_shuffle", actor="alice")
    return t


def pcard(t: Watched, code: str, pack: str | None) -> list[Output]:
    return t.send(CardRead(code, "scanner", t.tick(1.5), pack))


def test_a_shoe_of_registered_packs_deals_through_unchanged() -> None:
    t, plain = packed(), checked()
    plain.cmd("new_shoe")
    plain.cards("PK-A1", "PK-B2")
    plain.cmd("confirm_shuffle", actor="alice")
    reads: list[tuple[str, str | None]] = [("AS", "A1"), ("KD", "B2")]
    for code, pack in reads:
        pcard(t, code, pack)
        plain.card(code)
    for table in (t, plain):
        table.round()
    # A card without a pack id is judged as before.
    reads = [("4S", "B2"), ("3H", "A1"), ("5C", "A1"), ("5D", None)]
    for code, pack in reads:
        pcard(t, code, pack)
        plain.card(code)
    assert t.records and [r["player"] for r in t.records] == [r["player"]
                                                              for r in plain.records]
    assert t.phase == plain.phase == "between_rounds"


def test_a_card_of_another_pack_pauses_on_first_sight_and_is_not_counted() -> None:
    t = packed()
    pcard(t, "AS", "A1")
    pcard(t, "KD", "ZZ9")  # the second burn card, of a pack nobody registered
    assert t.phase == "paused"
    assert t.station.dealing.pause_reasons == [
        "card from another pack: KD of pack ZZ9 (not registered at the shuffle check)"]
    shoe = t.station.dealing.shoe
    assert shoe is not None and shoe.drawn == 1  # only the ace: the stranger never counted
    t.cmd("resume", actor="alice")
    assert t.phase == "burning"  # the burn card is still due
    # On a face-down table the card's value stays in the station.
    s = packed(mode="squeeze")
    pcard(s, "AS", "A1")
    pcard(s, "KD", "ZZ9")
    assert s.station.dealing.pause_reasons == [
        "card from another pack: a card of pack ZZ9 (not registered at the shuffle check)"]


def test_packs_are_not_checked_where_none_were_registered() -> None:
    t = checked()
    t.cmd("new_shoe")
    t.cmd("confirm_shuffle", actor="alice")
    pcard(t, "AS", "ANY")
    pcard(t, "KD", "OTHER")
    assert t.phase == "between_rounds"


def test_a_simulated_table_restarted_during_the_check_deals_the_shoe_it_was_given() -> None:
    # Regression: a restart during the check positioned the simulated shoe at the end of the
    # previous one, and the table ran out of cards right after the confirmation.
    def rounds(station: Station, dealer: SimulatedDealer) -> list[tuple[Any, ...]]:
        out: list[Output] = []
        simulate(station, dealer, out.extend)
        return [(r["round"], r["player"], r["banker"]) for r in
                (o.record for o in out if isinstance(o, Published))]

    whole = rounds(Station(TableRules(shuffle_check="supervisor")),
                   SimulatedDealer(random_shoes(4, 1), supervisor="resume"))
    station = Station(TableRules(shuffle_check="supervisor"))
    station.apply(Command("new_shoe", "dealer:sim", 1.0))
    assert station.phase.value == "shuffle_check"
    dealer = SimulatedDealer(random_shoes(4, 1), supervisor="resume", start_ts=10.0)
    dealer.continue_shoe(*Recovered(station).shoe_position)
    assert rounds(station, dealer) == whole and len(whole) > 50
