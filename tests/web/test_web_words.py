"""Every pause reason the station gives, in Chinese (station/web/words.py).

The reasons are collected from what the station really produces: many seeded simulated
shoes with every fault kind and every supervisor policy, the pauses a simulation cannot
reach (set up card by card), random event sequences, and a real daemon whose journal stops
being writable and which then restarts mid-round. Each reason must come out in Chinese with
nothing English left but card codes, device names and what a device or a read itself said
(those kept verbatim), and every template in words.py must be met at least once.
"""

# ruff: noqa: RUF001 - the Chinese wording uses full-width punctuation
from __future__ import annotations

import dataclasses
import random
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.events import CardRead, Command, CutCardSeen, DeviceLost, DeviceRestored, InputEvent
from drivers.simulated import CODES, Fault, Pace, SimulatedDealer, random_shoes
from station.journal import JournalWriteError, read_journal
from station.live.assembly import build_daemon
from station.live.config import parse_config
from station.live.daemon import JOURNAL
from station.table.machine import DEALING, Phase
from station.table.outputs import Notice, Output, Prompt
from station.table.procedures import PAUSE_CODES
from station.table.simulation import simulate
from station.table.station import RESTART, Station
from station.table.tablerules import TableRules
from station.web import plain, words
from station.web.display import WebDisplay
from station.web.hub import Hub
from station.web.view import Surroundings, split_pause
from station.web.words import action_zh, detail_zh, reason_zh
from tests.sampling import examples
from tests.tablekit import Table

CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[SHDC](?![A-Za-z0-9])")
LETTERS = re.compile(r"[A-Za-z]+")


def english_left(zh: str, verbatim: Iterable[str]) -> list[str]:
    """The English words left in ``zh`` once the card codes and the ``verbatim`` pieces (device
    names, what a device or a read said) are taken out."""
    for piece in sorted(set(verbatim), key=len, reverse=True):
        if piece:
            zh = zh.replace(piece, " ")
    return LETTERS.findall(CARD.sub(" ", zh))


@dataclass
class Seen:
    """Pause reasons and actions as the station gave them (one by one, from the machine's own
    lists, and whole, as the prompt words them), and the verbatim pieces they may hold."""

    reasons: set[str] = field(default_factory=set)
    actions: set[str] = field(default_factory=set)
    prompts: set[tuple[str, str]] = field(default_factory=set)  # (text, detail) of pauses
    verbatim: set[str] = field(default_factory=set)
    views: list[dict[str, Any]] = field(default_factory=list)  # the daemon's, in order

    def event(self, ev: InputEvent) -> None:
        if isinstance(ev, Command) and ev.note is not None:
            self.verbatim.add(ev.note)  # a dealer's note is shown as written
        if isinstance(ev, CardRead):
            self.verbatim.update((ev.source, ascii(ev.code)))
            if ev.pack is not None:
                self.verbatim.add(ev.pack)  # a card's pack id is shown as read
        elif isinstance(ev, DeviceLost):
            if ev.source != JOURNAL:  # the station's own journal is named in Chinese
                self.verbatim.add(ev.source)
            # "driver failed: " and "not writable: " are the station's words, not the device's.
            for prefix in ("driver failed: ", "not writable: "):
                if ev.reason.startswith(prefix):
                    self.verbatim.add(ev.reason.removeprefix(prefix))
                    break
            else:
                self.verbatim.add(ev.reason)

    def station(self, station: Station) -> None:
        prompt = station.prompt
        if not prompt.paused:
            return
        self.prompts.add((prompt.text, prompt.detail))
        d = station.dealing
        self.reasons.update(d.pause_reasons)
        self.actions.update(d.pause_actions)
        # The prompt joins the reasons with "; ": words.py takes them apart again.
        assert split_pause(prompt.text)[0] == "; ".join(d.pause_reasons)
        assert reason_zh("; ".join(d.pause_reasons)) == "；".join(
            reason_zh(r) for r in d.pause_reasons)


def simulated(seed: int, supervisor: str, seen: Seen) -> None:
    """Two 8-deck shoes with one fault of every kind in each, at places the seed picks."""
    rng = random.Random(seed)
    faults: list[Fault] = []
    for shoe in (1, 2):
        cards = rng.sample(range(2, 380), 4)
        faults += [Fault("garbled", card=cards[0], shoe=shoe),
                   Fault("double", card=cards[1], shoe=shoe),
                   Fault("lost", card=cards[2], seconds=3.0, shoe=shoe),
                   Fault("delay", card=cards[3], seconds=2.0, shoe=shoe),
                   Fault("not_due", after_round=rng.randint(0, 70), shoe=shoe),
                   # Now and then inside the burn (a pause), else among the rounds.
                   Fault("cut", card=rng.choice([1, 2, 3, rng.randint(100, 400)]), shoe=shoe)]
    station = Station(TableRules(decks=8))
    dealer = SimulatedDealer(random_shoes(seed, 2, 8), faults, pace=Pace(),
                             supervisor=supervisor, start_ts=1_800_000_000.0)

    def record(ev: InputEvent) -> None:
        seen.event(ev)

    simulate(station, dealer, lambda outputs: seen.station(station), record)


def scenarios() -> Iterable[Table]:
    """The pauses no simulated fault reaches, each set up card by card."""
    t = Table()
    t.card("5H")  # no shoe started
    yield t
    t = Table()
    t.new_shoe()
    t.cmd("open_betting")
    t.card("5H")  # betting is still open
    t.card("6H")  # drawn while paused, one card
    t.card("6H", dt=1.0)  # two: the same card twice reads as two
    yield t
    t = Table()
    t.new_shoe()
    t.cmd("end_shoe")
    t.card("5H")  # the shoe is closed
    yield t
    t = Table(decks=1)
    t.new_shoe(("AS", "KD"))
    t.round("AS")  # a second ace of spades in a one-deck shoe
    yield t
    t = Table()
    t.new_shoe()
    t.card("5H")  # no round is open yet
    yield t
    t = Table()
    t.new_shoe()
    t.round("7S", "7H", "TS", "TH")  # player 7 and banker 7 stand
    t.card("2C")
    yield t
    t = Table()
    t.new_shoe()
    t.card("?!")  # unreadable with no card due
    yield t
    t = Table()
    t.new_shoe()
    t.round("2S")
    t.card("@@")  # unreadable where a card is due: scan it again
    t.card("3S")  # the re-scan is held
    t.card("##")  # another unreadable read changes nothing more
    yield t
    for where in ("burn", "round", "between"):
        t = Table()
        t.cmd("new_shoe")
        if where != "burn":
            t.cards("AS", "KD")
        if where == "round":
            t.round("2S", "3S")
        t.send(Command(RESTART, "station", t.tick(1.0)))
        yield t
    t = Table()
    t.new_shoe()
    t.send(DeviceLost("camera", "driver failed: RuntimeError: no frame in 5 s", t.tick(1.0)))
    t.send(DeviceLost("journal", "not writable: database or disk is full", t.tick(1.0)))
    t.lost("scanner")
    yield t
    t = Table()
    t.cmd("new_shoe")
    t.card("5S")
    t.cut()  # the cut card in the burn
    yield t
    # A squeeze table (docs/modes.md): a card drawn while a hand waits for its reveal, and a
    # re-scan while cards are face down, both named without the card's value.
    t = Table(mode="squeeze")
    t.new_shoe()
    t.round("2S", "3S", "4S", "5S")
    t.card("6S")
    yield t
    t = Table(mode="squeeze")
    t.new_shoe()
    t.round("2S")
    t.card("@@")
    t.card("3S")
    yield t
    # Bounded pauses (issue 18): reasons scrolled out of the pause, more than ten cards drawn
    # while paused, and a reader's flood of bad codes reported once.
    t = Table()
    t.new_shoe()
    t.card("5H")  # betting is still open
    for i in range(6):
        t.card(f"?{i}?")
    for rank in "23456789TJQK":
        t.card(rank + "C")
    for i in range(25):
        t.card(f"#{i}#", dt=0.01, source="cam-2")
    yield t
    # Table procedures (docs/rules.md): the dealer's pause, each code (the note kept as
    # written), and a card drawn during the shuffle check.
    for code in PAUSE_CODES:
        t = Table()
        t.new_shoe()
        note = "the lamp over the shoe went out" if code == "other" else None
        t.send(Command("pause", "dealer:test", t.tick(1.0), note, code))
        yield t
    t = Table(shuffle_check="supervisor")
    t.cmd("new_shoe")
    t.card("AS")
    yield t
    for mode in ("standard", "squeeze"):  # a card of a pack not registered at the check
        t = Table(shuffle_check="supervisor", pack_prefix="PK-", mode=mode)
        t.cmd("new_shoe")
        t.card("PK-A1")
        t.cmd("confirm_shuffle")
        t.send(CardRead("AS", "scanner", t.tick(1.0), "ZZ9"))
        yield t


class FullDisk:
    """The journal seen through a disk that fills and empties: a seam at the file-system
    boundary (tests/journal/test_durability.py fills a real one)."""

    def __init__(self, journal: Any) -> None:
        self.journal = journal
        self.full = threading.Event()

    def append(self, *args: Any, **kwargs: Any) -> int:
        if self.full.is_set():
            raise JournalWriteError(DISK_FULL)
        seq: int = self.journal.append(*args, **kwargs)
        return seq

    def __getattr__(self, name: str) -> Any:
        return getattr(self.journal, name)


class Watched(WebDisplay):
    """The real web display, keeping every view it built and every pause it was shown."""

    def __init__(self, station: Station, seen: Seen) -> None:
        self.seen = seen
        super().__init__(station, Hub(), Surroundings("t7", "zh", True, "file", None,
                                                      ("sim-shoe",)))

    def show(self, outputs: list[Output]) -> None:
        super().show(outputs)
        self.seen.views.append(self.view)
        self.seen.station(self.station)
        for o in outputs:
            if isinstance(o, Prompt) and o.paused:
                self.seen.prompts.add((o.text, o.detail))


def the_daemons(tmp: Path, seen: Seen) -> None:
    """A real daemon (simulated table) with the web display in Chinese: its journal cannot be
    written for a while, then it stops mid-round and starts again."""
    data = {
        "table": {"id": "t7"},
        "reader": {"dedupe_ms": 1},
        "simulation": {"seed": 4, "supervisor": "resume",
                       "pace": {"card_s": 0.002, "open_betting_s": 0.002, "betting_s": 0.002,
                                "new_shoe_s": 0.002, "supervisor_s": 0.01}},
        "display": {"type": "none"},
        "results": {"path": str(tmp / "results.jsonl"), "announcements_path": None},
        "recording": {"dir": None},
        "journal": {"path": str(tmp / "journal.sqlite3")},
    }
    config = parse_config(tmp / "station.yaml", data)
    built = build_daemon(config)
    d = built.daemon
    d.display = Watched(d.station, seen)
    disk = FullDisk(d.journal)
    d.journal = disk  # type: ignore[assignment]
    timer = threading.Timer(0.3, disk.full.clear)
    backstop = threading.Timer(30, d.request_stop)  # the test fails, never hangs

    def until() -> bool:
        if d.events_applied == 40 and not d.outage_count:
            disk.full.set()
            timer.start()
        return bool(d.outage_count and not d._outage and d.station.phase in DEALING
                    and d.events_applied > 80)

    backstop.start()
    try:
        d.run(until=until)
    finally:
        timer.cancel()
        backstop.cancel()
        built.close()
    assert d.outage_count == 1 and d.station.phase in DEALING, "the run did not get there"
    built = build_daemon(config)  # the restart: rebuilt from the journal, mid-round
    try:
        Watched(built.daemon.station, seen)
        assert built.daemon.station.phase is Phase.PAUSED
    finally:
        built.close()
    for ev in read_journal(tmp / "journal.sqlite3").events:
        seen.event(ev)
    seen.verbatim.add(DISK_FULL)


DISK_FULL = "record not journaled: the disk is full (test)"
SUPERVISORS = ("none", "resume", "void")


def repeated_shoe(seen: Seen, mode: str) -> None:
    """The same shoe dealt twice: the repeated-shoe alarm (docs/integrity.md), which on a
    face-down table does not name the earlier shoe (docs/modes.md)."""
    shoe = next(random_shoes(7, 1))
    station = Station(TableRules(mode=mode))
    dealer = SimulatedDealer(iter([shoe, list(shoe)]), supervisor="resume")
    apply = station.apply

    def seen_apply(ev: InputEvent) -> list[Output]:
        out = apply(ev)
        seen.event(ev)
        if station.dealing.shoe is not None:  # shoe ids are kept as they are in Chinese
            seen.verbatim.add(station.dealing.shoe.shoe_id)
        seen.station(station)
        return out

    station.apply = seen_apply  # type: ignore[method-assign,assignment]
    simulate(station, dealer)
    assert any(r.startswith("repeated shoe") for r in seen.reasons), mode


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> Seen:
    found = Seen()
    repeated_shoe(found, "standard")
    repeated_shoe(found, "squeeze")
    for seed in range(60):
        simulated(seed, SUPERVISORS[seed % 3], found)
    for table in scenarios():
        for ev in table.events:
            found.event(ev)
        replayed = Station(table.station.rules)
        for ev in table.events:
            replayed.apply(ev)
            found.station(replayed)
    the_daemons(tmp_path_factory.mktemp("daemon"), found)
    return found


def test_every_pause_reason_the_station_gives_is_in_chinese(seen: Seen) -> None:
    assert len(seen.reasons) > 25, sorted(seen.reasons)
    for reason in sorted(seen.reasons):
        zh = reason_zh(reason)
        assert not english_left(zh, seen.verbatim), (reason, zh)
        # What the device or the read said is kept as it was, inside the Chinese sentence.
        for piece in seen.verbatim:
            if piece and piece in reason and not CARD.fullmatch(piece):
                assert piece in zh, (reason, zh, piece)
        for code in CARD.findall(reason):
            assert code in zh, (reason, zh)


def test_what_to_do_and_the_supervisors_choice_are_in_chinese(seen: Seen) -> None:
    for action in sorted(seen.actions):
        zh = action_zh(action)
        assert not english_left(zh, seen.verbatim), (action, zh)
    for text, detail in sorted(seen.prompts):
        reason, todo = split_pause(text)
        for zh in (reason_zh(reason), action_zh(todo), detail_zh(detail) if detail else ""):
            assert not english_left(zh, seen.verbatim), (text, detail, zh)


def test_the_daemons_outage_and_restart_are_shown_in_chinese(seen: Seen) -> None:
    zh = [v["prompt"]["zh"] for v in seen.views if v["prompt"]["paused"]]
    reasons = [z["reason"] for z in zh]
    assert f"工作站日志无法写入（{DISK_FULL}）" in reasons
    assert any(r.startswith(f"工作站日志无法写入（{DISK_FULL}）") for r in reasons)
    assert "请勿派牌；清理工作站磁盘空间；请呼叫主管" in [z["todo"] for z in zh]
    assert reasons[-1].endswith("工作站在牌局中途重启"), reasons[-1]
    for z in zh:
        assert not english_left(z["reason"] + z["todo"] + z["detail"], seen.verbatim), z


def test_every_template_is_met(seen: Seen) -> None:
    """No template in words.py is dead, so none drifts from the station's wording unseen."""
    reasons = seen.reasons | {split_pause(t)[0] for t, _ in seen.prompts}
    actions = {a for t, _ in seen.prompts for a in split_pause(t)[1].split("; ")}
    whys = {m["why"] for r in reasons
            if (m := re.fullmatch(r"card not due: \S+ \((?P<why>.+)\)", r))}
    for rules, texts in ((words._REASONS, reasons), (words.NOT_DUE, whys)):
        for pattern, _ in rules:
            assert any(pattern.fullmatch(t) for t in texts), pattern.pattern
    # Every dealer action has its message id, and every id is met (do not deal is the shuffle
    # check's detail, not a pause's action).
    # An action may be two (the page reads them cut at every ";", as action_words does).
    everything = {p.strip() for a in actions | seen.actions for p in a.split(";")} - {""}
    unknown = {a for a in everything if words.todo_said(a) is None}
    assert not unknown, unknown
    met = {a for a in words._TODO_IDS if a in everything}
    assert set(words._TODO_IDS) - met <= {"do not deal"}, set(words._TODO_IDS) - met
    assert any(words.todo_said(a) and a.startswith("re-scanned as ") for a in everything)


@pytest.mark.parametrize(("en", "zh"), [
    ("card not due: 4H (extra card: the round is over)", "不应派的牌：4H（多派一张：本局已结束）"),
    ("card not due: 9C (extra card: player stands on 7, banker stands on 6)",
     "不应派的牌：9C（多派一张：闲7点停牌，庄6点停牌）"),
    ("scanner lost (port vanished; errno 5)", "scanner 断线（port vanished; errno 5）"),
    ("scanner lost (a); station restarted mid-round", "scanner 断线（a）；工作站在牌局中途重启"),
    ("journal lost (not writable: disk I/O error)", "工作站日志无法写入（disk I/O error）"),
    ("cam lost (driver failed: OSError: gone)", "cam 驱动程序故障（OSError: gone）"),
    ("unreadable code '\\x15?4' from sim-shoe: not a card",
     "sim-shoe 读到无法识别的码 '\\x15?4'：不是牌"),
    ("something new; station restarted during the burn", "something new；工作站在烧牌时重启"),
])
def test_reason_words(en: str, zh: str) -> None:
    assert reason_zh(en) == zh


# --- random events: whatever happens at the table, the pause reads in Chinese -------------
SOURCES = ("scanner", "cam-2")
# What a device says and what a read holds: no ASCII letter, so nothing hides an English word
# the translation left (those pieces need not be stripped to check the rest).
NOISE = st.text(alphabet=st.sampled_from(list("0123456789 ;:()[]'\"-_.,/\\?！é中文\x15")),
                max_size=20)
EVENT = st.one_of(
    st.builds(CardRead, st.sampled_from(CODES) | NOISE, st.sampled_from(SOURCES),
              st.just(0.0)),
    st.builds(Command, st.sampled_from(["new_shoe", "open_betting", "close_betting",
                                        "end_shoe", "resume", "void", RESTART]),
              st.just("someone"), st.just(0.0)),
    st.builds(CutCardSeen, st.just("cut"), st.just(0.0)),
    st.builds(DeviceLost, st.sampled_from(SOURCES),
              st.sampled_from(["", "driver failed: "]).flatmap(
                  lambda head: NOISE.map(lambda said: head + said)), st.just(0.0)),
    st.builds(DeviceLost, st.just(JOURNAL), NOISE.map(lambda said: "not writable: " + said),
              st.just(0.0)),
    st.builds(DeviceRestored, st.sampled_from([*SOURCES, JOURNAL]), st.just(0.0)),
)


def _dealt(events: list[InputEvent]) -> list[InputEvent]:
    """Events with increasing times (a second apart: no double reads)."""
    return [dataclasses.replace(ev, ts=1_800_000_000.0 + i) for i, ev in enumerate(events)]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(EVENT, max_size=40))
def test_any_pause_at_all_reads_in_chinese(events: list[InputEvent]) -> None:
    station = Station(TableRules(decks=1))
    # A raw read is shown as Python writes it in ASCII ('\x15', '\xe9'): kept as it is, like
    # the device names.
    verbatim = [*SOURCES, *(ascii(ev.code) for ev in events if isinstance(ev, CardRead))]
    for ev in _dealt(events):
        station.apply(ev)
        prompt = station.prompt
        if not prompt.paused:
            continue
        reason, todo = split_pause(prompt.text)
        zh = reason_zh(reason) + action_zh(todo) + detail_zh(prompt.detail)
        assert not english_left(zh, verbatim), (prompt.text, zh)


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=400))
def test_any_text_is_returned_translated_or_as_it_is(text: str) -> None:
    for translate in (reason_zh, action_zh, detail_zh):
        out = translate(text)
        assert isinstance(out, str)


def test_a_long_reason_ends() -> None:
    """A driver that says a lot must not stall the loop thread, which builds the view: the
    pieces are bounded (a runaway would hit the test's timeout)."""
    said = "; ".join(["x" * 40 + " lost (" + "y; " * 20] * 40)
    assert reason_zh("scanner lost (" + said + ")").startswith("scanner")


def test_the_examples_in_docs_display_md_are_what_the_page_shows() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "display.md").read_text()
    rows = re.findall(r"^\| `(.+)` \| (.+) \|$", text.split("| the station says |")[1]
                      .split("\n\n")[0], flags=re.MULTILINE)
    assert len(rows) >= 5
    for en, zh in rows:
        assert reason_zh(en) == zh, en


# --- the page's plain words (station/web/plain.py): no raw byte, repr or driver jargon ------
RAW = re.compile(r"\\x|'|\"|Error|errno|Errno|driver|\(\)|\x15")


def _raw_pieces(seen: Seen) -> list[str]:
    """What a device or a read said (never on the page), without the devices' names and the
    card codes, which the page does show."""
    return [p for p in seen.verbatim
            if len(p) > 2 and p not in plain.DEVICES and p not in SOURCES
            and not CARD.fullmatch(p) and not p.isdigit()]


def test_every_pause_reason_has_a_plain_sentence_in_both_languages(seen: Seen) -> None:
    raw = _raw_pieces(seen)
    whole = {split_pause(t)[0] for t, _ in seen.prompts}
    ids = [p for p in seen.verbatim if p not in plain.DEVICES]
    for reason in sorted(seen.reasons):
        assert plain.known(reason), reason
    for reason in sorted(seen.reasons | whole):
        for zh in (False, True):
            said = plain.reasons_plain(reason, zh=zh)
            assert plain.UNKNOWN[zh] not in said, (reason, said)
            for sentence in said:
                assert not RAW.search(sentence), (reason, sentence)
                assert not [p for p in raw if p in sentence], (reason, sentence)
                if zh:
                    assert not english_left(sentence, ids), (reason, sentence)
        # One sentence per reason the station joined, card codes kept.
        assert len(plain.reasons_plain(reason)) <= len(reason.split("; "))
        for code in CARD.findall(reason):
            if "unreadable" not in reason:
                assert code in " ".join(plain.reasons_plain(reason)), (reason, code)


@pytest.mark.parametrize(("en", "plain_en", "plain_zh"), [
    ("unreadable code '\\x15?Q' from scanner: not a card",
     ["The card scanner read something that is not a card"], ["读牌器读到的不是牌"]),
    ("unreadable code '?unknown:4006381333931' from scanner: not a card (no card is due)",
     ["The card scanner read something that is not a card (no card was due)"],
     ["读牌器读到的不是牌（此时无牌应派）"]),
    ("scanner lost (device reports readiness to read but returned no data (device "
     "disconnected or multiple access on port?))",
     ["The card scanner is disconnected"], ["读牌器断开连接"]),
    ("cam-2 lost (driver failed: OSError: gone)", ["Cam-2 stopped working"],
     ["cam-2的程序停止工作"]),
    ("journal lost (not writable: disk I/O error)",
     ["The station cannot write its records (disk full or failing)"],
     ["工作站无法写入记录（磁盘满或故障）"]),
    ("card not due: TS (extra card: the round is over); station restarted mid-round",
     ["TS was not due (extra card: the round is over)",
      "The station restarted in the middle of a round"],
     ["TS 不应派出（多派一张：本局已结束）", "工作站在牌局中途重启"]),
    ("something new from a later station; another", [plain.UNKNOWN[0]], [plain.UNKNOWN[1]]),
])
def test_plain_words(en: str, plain_en: list[str], plain_zh: list[str]) -> None:
    assert plain.reasons_plain(en) == plain_en
    assert plain.reasons_plain(en, zh=True) == plain_zh


def test_a_device_back_is_said_to_be_back() -> None:
    """The pause's reason was worded when the scanner was lost; once it is back the page
    says so, not that it is still lost (the station still needs a supervisor's resume)."""
    reason = "scanner lost (port vanished)"
    assert plain.reasons_plain(reason, still_lost={"scanner"}) == [
        "The card scanner is disconnected"]
    assert plain.reasons_plain(reason, still_lost=set()) == [
        "The card scanner is back: a supervisor may resume"]
    assert plain.reasons_plain(reason, zh=True, still_lost=set()) == [
        "读牌器已恢复：主管可恢复牌局"]
    t = Table()
    t.new_shoe()
    t.lost("scanner")
    display = WebDisplay(t.station, Hub(), Surroundings("t1", "en"))
    display.show(t.restored("scanner"))
    assert display.view["prompt"]["plain"] == [
        "The card scanner is back: a supervisor may resume"]
    assert display.view["prompt"]["reason"] == "scanner lost (port vanished)"  # the log's


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(EVENT, max_size=40))
def test_any_pause_at_all_reads_plain(events: list[InputEvent]) -> None:
    station = Station(TableRules(decks=1))
    raw = [repr(ev.code) for ev in events if isinstance(ev, CardRead) and ev.code not in CODES]
    for ev in _dealt(events):
        station.apply(ev)
        if not station.prompt.paused:
            continue
        reason, _ = split_pause(station.prompt.text)
        for zh in (False, True):
            said = plain.reasons_plain(reason, zh=zh)
            assert plain.UNKNOWN[zh] not in said, (reason, said)
            for sentence in said:
                assert "\x15" not in sentence and not [r for r in raw if r in sentence]


def test_once_the_device_is_back_its_cable_is_no_longer_asked_for() -> None:
    t = Table()
    t.new_shoe()
    t.lost("scanner")
    display = WebDisplay(t.station, Hub(), Surroundings("t1", "zh"))
    display.show([])
    p = display.view["prompt"]
    assert "check its cable and power" in p["todo"] == p["todo_now"]
    assert "检查其线缆和电源" in p["zh"]["todo_now"]
    display.show(t.restored("scanner"))
    p = display.view["prompt"]
    assert "check its cable and power" in p["todo"]  # the station's words, as journaled
    assert "check its cable and power" not in p["todo_now"]
    assert "检查其线缆和电源" not in p["zh"]["todo_now"] and p["zh"]["todo_now"]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.one_of(EVENT, st.builds(
    Command, st.sampled_from(["reveal", "skip", "request_new_shoe", "request_dealer", "sign_in",
                              "sign_out", "end_shoe"]),
    st.sampled_from(["dealer:D9", "dealer (web 127.0.0.1)", "upstream:pit"]), st.just(0.0))),
    max_size=40), st.sampled_from(["standard", "squeeze", "vip"]))
def test_every_notice_reads_in_chinese(events: list[InputEvent], mode: str) -> None:
    """What the page's message line shows on a Chinese page: each notice the station gives,
    with no English left but ids, names and what a device or a read said."""
    station = Station(TableRules(decks=1, mode=mode))
    verbatim = [*SOURCES, "D9", "pit", "cut", "someone",
                *(repr(ev.code) for ev in events if isinstance(ev, CardRead))]
    for ev in _dealt(events):
        for out in station.apply(ev):
            if isinstance(out, Notice):
                zh = words.notice_zh(out.text)
                assert not english_left(zh, verbatim), (out.text, zh)
