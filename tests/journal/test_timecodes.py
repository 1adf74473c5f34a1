"""``station journal export --vtt/--srt``: video timecodes from journals written by a real
``station run`` of a simulated table, read back by strict readers of the WebVTT and SubRip
subsets the station writes (docs/journal.md, Video timecodes)."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from drivers.events import ClockAlert
from station.cli import main
from station.journal import Journal, verify_journal
from station.journal.export import records
from tests.conftest import REPO
from tests.journal.journalkit import RULES, T0, event
from tests.stationkit import finish, start, table_config, write_key

VTT_TIME = r"(\d{2,}):([0-5]\d):([0-5]\d)\.(\d{3})"
SRT_TIME = r"(\d{2}):([0-5]\d):([0-5]\d),(\d{3})"
GLYPH = re.compile(r"^(10|[2-9AJQK])[\u2660\u2665\u2666\u2663]$")


@dataclass(frozen=True)
class Cue:
    start: int  # ms
    end: int
    ident: str | None
    lines: tuple[str, ...]


def _ms(m: re.Match[str], first: int) -> int:
    h, mi, s, ms = (int(m.group(first + i)) for i in range(4))
    return ((h * 60 + mi) * 60 + s) * 1000 + ms


def _ordered(cues: list[Cue]) -> list[Cue]:
    for before, cue in pairwise(cues):
        assert cue.start > before.start, f"cue {cue} does not start after {before}"
        assert before.end <= cue.start, f"{before} overlaps the next cue"
    assert all(c.start < c.end for c in cues)
    return cues


def read_vtt(text: str) -> list[Cue]:
    """A strict reader of the subset written: a ``WEBVTT`` header line, blocks separated by
    one blank line, NOTE blocks, cues of an optional id, ``HH:MM:SS.mmm --> HH:MM:SS.mmm``
    and one or more non-empty text lines with ``&`` and ``<`` escaped."""
    assert "\r" not in text and text.endswith("\n\n")
    blocks = text[:-2].split("\n\n")
    assert re.fullmatch(r"WEBVTT( [^\n]*)?", blocks[0]), blocks[0]
    cues = []
    for block in blocks[1:]:
        lines = block.split("\n")
        assert all(lines), f"an empty line inside a block: {block!r}"
        if lines[0].startswith("NOTE "):
            assert "-->" not in block
            continue
        ident = None
        if "-->" not in lines[0]:
            ident, lines = lines[0], lines[1:]
        m = re.fullmatch(f"{VTT_TIME} --> {VTT_TIME}", lines[0])
        assert m, f"not a cue timing: {lines[0]!r}"
        text_lines = lines[1:]
        assert text_lines, f"a cue with no text: {block!r}"
        for line in text_lines:
            assert "-->" not in line and "<" not in line
            assert not re.search(r"&(?!amp;|lt;|gt;)", line), line
        unescaped = tuple(x.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
                          for x in text_lines)
        cues.append(Cue(_ms(m, 1), _ms(m, 5), ident, unescaped))
    return _ordered(cues)


def read_srt(text: str) -> list[Cue]:
    """A strict SubRip reader: index from 1, ``HH:MM:SS,mmm --> HH:MM:SS,mmm``, text."""
    assert "\r" not in text and text.endswith("\n\n")
    cues = []
    for n, block in enumerate(text[:-2].split("\n\n"), start=1):
        lines = block.split("\n")
        assert lines[0] == str(n), f"index {lines[0]!r}, expected {n}"
        m = re.fullmatch(f"{SRT_TIME} --> {SRT_TIME}", lines[1])
        assert m, f"not a SubRip timing: {lines[1]!r}"
        assert len(lines) > 2 and all(lines[2:]) and not any("-->" in x for x in lines[2:])
        cues.append(Cue(_ms(m, 1), _ms(m, 5), None, tuple(lines[2:])))
    return _ordered(cues)


def run_table(tmp: Path, table: dict[str, Any] | None = None,
              players: dict[str, Any] | None = None, **simulation: Any) -> Path:
    """A real ``station run`` of a fast simulated table to the end; its journal."""
    tmp.mkdir()
    key, _ = write_key(tmp)
    upstream = {"type": "file", "path": str(tmp / "upstream.jsonl"),
                "signing_key_file": str(key)}
    config = table_config(tmp, seed=21, upstream=upstream, **simulation)
    cfg = yaml.safe_load(config.read_text())
    cfg["table"].update(table or {})
    if players:
        cfg["simulation"]["players"] = players
    config.write_text(yaml.safe_dump(cfg))
    finish(start(config), config, timeout_s=120)
    return tmp / "journal.sqlite3"


@pytest.fixture(scope="module")
def standard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two shoes; a card not due after round 3 (a pause the supervisor resumes)."""
    return run_table(tmp_path_factory.mktemp("vtt") / "standard", shoes=2, faults=[
        {"kind": "not_due", "after_round": 3}, {"kind": "cut", "card": 60},
        {"kind": "cut", "card": 40, "shoe": 2}])


@pytest.fixture(scope="module")
def squeeze(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_table(tmp_path_factory.mktemp("vtt") / "squeeze",
                     {"mode": "squeeze", "reveal_s": 0.05}, {"reveal": "timer"},
                     faults=[{"kind": "cut", "card": 40}])


def journal_messages(path: Path) -> list[tuple[int, float, dict[str, Any]]]:
    """(seq, wall_ts, message) of every message the journal published on the events topic."""
    return [(r.seq, r.wall_ts, orjson.loads(p)) for r in records(verify_journal(path))
            for topic, p in r.messages if topic == "events"]


def export(journal: Path, *extra: str) -> int:
    return main(["journal", "export", str(journal), *extra])


def test_cues_start_at_the_journals_wall_times_in_both_formats(standard: Path,
                                                               tmp_path: Path) -> None:
    vtt, srt = tmp_path / "t.vtt", tmp_path / "t.srt"
    assert export(standard, "--vtt", str(vtt), "--srt", str(srt)) == 0
    cues = read_vtt(vtt.read_text(encoding="utf-8"))
    walls = {r.seq: round(r.wall_ts * 1000) for r in records(verify_journal(standard))}
    first = datetime.fromtimestamp(min(walls.values()) / 1000, UTC)
    midnight = round(first.replace(hour=0, minute=0, second=0, microsecond=0).timestamp() * 1000)
    for cue in cues:
        assert cue.ident is not None and cue.ident.startswith("seq ")
        # The UTC time of day (from the first cue's day) the station journaled the record.
        assert cue.start == walls[int(cue.ident[4:])] - midnight, cue
    # Every record that published something shown has its cue, or shares one journaled in
    # the same millisecond.
    starts = {c.start for c in cues}
    shown = {seq for seq, _, m in journal_messages(standard) if m["kind"] not in (
        "shoe_report", "command_refused")}
    assert shown and all(walls[s] - midnight in starts for s in shown)
    assert [(c.start, c.end, c.lines) for c in read_srt(srt.read_text(encoding="utf-8"))] == [
        (c.start, c.end, c.lines) for c in cues]
    text = [line for c in cues for line in c.lines]
    assert any(x.startswith("PAUSED: card not due: ") for x in text)
    assert any(x.startswith("RESUMED by supervisor:") for x in text)
    rounds = [m for _, _, m in journal_messages(standard) if m["kind"] == "round"]
    results = [x for x in text if re.match(r"R\d+ (VOID|P: .* = (PLAYER WINS|BANKER WINS|"
                                           r"TIE) \d-\d$)", x)]
    assert len(results) == len(rounds) >= 10


def test_video_start_counts_from_the_videos_first_frame(standard: Path,
                                                        tmp_path: Path) -> None:
    # The first record a cue shows (not the clock check's state, which has none).
    first = min(r.wall_ts for r in records(verify_journal(standard))
                if not isinstance(r.event, ClockAlert))
    at = datetime.fromtimestamp(int(first) - 60, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = tmp_path / "t.vtt"
    assert export(standard, "--vtt", str(out), "--video-start", at) == 0
    cues = read_vtt(out.read_text(encoding="utf-8"))
    assert cues[0].start == round(first * 1000) - (int(first) - 60) * 1000
    assert cues[0].start < 62_000


def test_face_down_values_appear_only_once_revealed(squeeze: Path, tmp_path: Path) -> None:
    out = tmp_path / "s.vtt"
    assert export(squeeze, "--vtt", str(out)) == 0
    cues = read_vtt(out.read_text(encoding="utf-8"))
    reveals: dict[tuple[int, str], list[tuple[int, int]]] = {}
    for seq, _, m in journal_messages(squeeze):
        if m["kind"] == "reveal":
            reveals.setdefault((m["round"], m["hand"]), []).append((seq, len(m["cards"])))
    assert reveals
    seen_down = seen_open = 0
    for cue in cues:
        seq = int(str(cue.ident)[4:])
        for line in cue.lines:
            hands = re.match(r"R(\d+) P: (.*?) \| B: (.*?)( = | \(|$)", line)
            if not hands:
                continue
            n_round = int(hands.group(1))
            for hand, part in (("player", hands.group(2)), ("banker", hands.group(3))):
                shown = [c for c in part.split() if GLYPH.match(c)]
                opened = sum(n for s, n in reveals.get((n_round, hand), []) if s <= seq)
                assert len(shown) <= opened, f"a face-down value before its reveal: {line}"
                seen_down += part.count("(down)")
                seen_open += len(shown)
    assert seen_down and seen_open


def test_shoe_limits_the_track_to_one_shoe(standard: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    shoes = list(dict.fromkeys(m["shoe"] for _, _, m in journal_messages(standard)
                               if m["kind"] == "shoe_started"))
    assert len(shoes) == 2
    whole, one = tmp_path / "all.vtt", tmp_path / "one.srt"
    assert export(standard, "--vtt", str(whole)) == 0
    assert export(standard, "--srt", str(one), "--shoe", shoes[1]) == 0
    cues = read_srt(one.read_text(encoding="utf-8"))
    assert cues[0].lines[0] == f"SHOE {shoes[1]} started, 8 decks"
    assert cues[-1].lines[-1].startswith("SHOE ENDED: ")
    assert shoes[0] not in one.read_text(encoding="utf-8")
    everything = read_vtt(whole.read_text(encoding="utf-8"))
    assert 0 < len(cues) < len(everything)
    assert [c.lines for c in cues] == [c.lines for c in everything][-len(cues):]
    capsys.readouterr()
    missing = tmp_path / "none.vtt"
    assert export(standard, "--vtt", str(missing), "--shoe", "t7-nope") == 2
    err = capsys.readouterr().err
    assert "--shoe 't7-nope': no such shoe" in err and shoes[0] in err and shoes[1] in err
    assert not missing.exists() and not list(tmp_path.glob(".*partial*"))


@pytest.mark.parametrize(("extra", "says"), [
    (["--out", "x.jsonl"], "give one or the other"),
    (["--video-start", "yesterday"], "--video-start 'yesterday': not a time"),
    (["--video-start", "2026-01-01T10:00:00"], "has no time zone"),
    (["--shoe", " "], "--shoe is empty"),
])
def test_bad_options_exit_2_and_write_nothing(standard: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              extra: list[str], says: str) -> None:
    out = tmp_path / "t.vtt"
    assert export(standard, "--vtt", str(out), *extra) == 2
    err = capsys.readouterr().err
    assert err.startswith("station journal: error: ") and says in err, err
    assert list(tmp_path.iterdir()) == []


def test_timecode_options_need_vtt_or_srt(standard: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert export(standard, "--shoe", "x") == 2
    assert "--shoe goes with --vtt or --srt" in capsys.readouterr().err


def test_the_journal_and_existing_files_are_never_written_over(
        standard: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = standard.read_bytes()
    assert export(standard, "--vtt", str(standard), "--force") == 2
    assert "refusing to write over the journal" in capsys.readouterr().err
    assert standard.read_bytes() == before
    out = tmp_path / "t.srt"
    out.write_text("mine\n")
    assert export(standard, "--srt", str(out)) == 2
    assert "exists; choose another --srt, or add --force" in capsys.readouterr().err
    assert out.read_text() == "mine\n"
    assert export(standard, "--srt", str(out), "--force") == 0
    assert read_srt(out.read_text(encoding="utf-8"))


def test_a_damaged_journal_exits_1_and_writes_nothing(standard: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    copy = tmp_path / "j.sqlite3"
    copy.write_bytes(standard.read_bytes())
    conn = sqlite3.connect(copy, isolation_level=None)
    conn.execute("UPDATE events SET wall_ts = wall_ts + 1 WHERE seq = 20")
    conn.close()
    vtt, srt = tmp_path / "t.vtt", tmp_path / "t.srt"
    assert export(copy, "--vtt", str(vtt), "--srt", str(srt)) == 1
    assert "FAILED, nothing written: " in capsys.readouterr().err
    assert not vtt.exists() and not srt.exists()
    assert export(REPO / "README.md", "--vtt", str(vtt)) == 2
    assert "not a journal" in capsys.readouterr().err
    assert not vtt.exists()


def test_messages_the_station_would_not_write_are_left_out_with_a_note(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "odd.sqlite3"
    odd = [b'{"kind":"card","round":1,"hand":"player","position":"x","card":"AS"}',
           b'{"kind":"reveal","round":1,"hand":"player","cards":[7]}', b"not json", b"[1]",
           b'{"kind":["pause"]}', b'{"kind":"pause","reason":"a --> b <i>&"}']
    with Journal.create(path, RULES, None, "test") as journal:
        for i, payload in enumerate(odd):
            journal.append(event(i), T0 + i, 1000.0 + i, [("events", payload)])
    out, srt = tmp_path / "o.vtt", tmp_path / "o.srt"
    assert export(path, "--vtt", str(out)) == 0
    err = capsys.readouterr().err
    assert "record 1: a card message with fields of the wrong type left out" in err
    assert "record 2: a reveal message" in err
    cues = read_vtt(out.read_text(encoding="utf-8"))
    assert [c.lines for c in cues] == [("PAUSED: a -> b <i>&",)]
    # SubRip cannot count past 99 hours: refused, nothing written.
    assert export(path, "--srt", str(srt), "--video-start", "2025-12-01T00:00:00Z") == 2
    assert "more than 99 hours after the track's start" in capsys.readouterr().err
    assert not srt.exists()


def test_a_refused_srt_leaves_the_vtt_unwritten(standard: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    vtt, srt = tmp_path / "t.vtt", tmp_path / "t.srt"
    srt.write_text("mine\n")
    assert export(standard, "--vtt", str(vtt), "--srt", str(srt)) == 2
    assert f"{srt}: exists" in capsys.readouterr().err
    assert not vtt.exists() and srt.read_text() == "mine\n"


def test_a_clock_set_back_keeps_the_track_in_order_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "back.sqlite3"
    # Wall times as journaled: two in one millisecond, then the clock set back 2 s.
    walls = [T0 + 10.0, T0 + 10.0002, T0 + 12.0, T0 + 10.5, T0 + 20.0]
    with Journal.create(path, RULES, None, "test") as journal:
        for i, wall in enumerate(walls):
            pause = {"kind": "pause", "reason": f"reason {i}", "shoe": None, "round": None}
            journal.append(event(i), wall, 1000.0 + i, [("events", orjson.dumps(pause))])
    out = tmp_path / "o.vtt"
    assert export(path, "--vtt", str(out)) == 0
    assert ("record 4: its wall clock time is 1.500 s before the previous record's"
            in capsys.readouterr().err)
    cues = read_vtt(out.read_text(encoding="utf-8"))
    day = 10_000  # T0 is midnight UTC: a cue's time is the journal's, from midnight
    assert [(c.ident, c.start, c.end, c.lines) for c in cues] == [
        ("seq 1", day, day + 2000, ("PAUSED: reason 0", "PAUSED: reason 1")),
        ("seq 3", day + 2000, day + 7000, ("PAUSED: reason 2", "PAUSED: reason 3")),
        ("seq 5", day + 10_000, day + 15_000, ("PAUSED: reason 4",))]
