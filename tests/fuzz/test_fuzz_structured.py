"""Structured near-valid inputs (hypothesis) and fuzzed command lines of every subcommand.

Mutating bytes mostly breaks the syntax; these build files that parse and put odd values at
the keys the station reads, where type and bound checks matter. ``FUZZ_CASES`` scales the
number of examples (one per 40 mutation cases, at least 25 each).
"""

from __future__ import annotations

import atexit
import json
import os
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.services.fleet.plan import TABLES_MAX
from tests.fuzz import harness
from tests.fuzz.harness import REPO, SHORT_SHOE, Case
from tests.journal.journalkit import make_journal

CASES = int(os.environ.get("FUZZ_CASES", "560"))
SEED = int(os.environ.get("FUZZ_SEED", "0"))
EXAMPLES = max(25, CASES // 40)
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

_WORK = Path(tempfile.mkdtemp(prefix="station-fuzz-"))
atexit.register(shutil.rmtree, _WORK, True)
shutil.copytree(REPO / "config" / "paytables", _WORK / "paytables", dirs_exist_ok=True)
# Command lines name only this copy as a file that may be written: never a file of the repo.
SHOE_COPY = _WORK / "shoe.txt"
shutil.copy(SHORT_SHOE, SHOE_COPY)

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-2, max_value=10), st.sampled_from([2**63, 2**64, -(2**63), 5001, 3601]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8), st.sampled_from(["", "-", "../../x", "a\0b", "x" * 300, "main", "tie",
                                          "banker", "resume", "garbled", "null", "8"]),
)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6)


def _file(name: str, text: str | bytes) -> Path:
    path = _WORK / name
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogatepass")
    path.write_bytes(text)
    return path


def _assert_ok(case: Case) -> None:
    found = harness.check(case)
    assert not found, f"{case.argv}: {found}"


CONFIG_KEYS = {
    "table": ["id", "decks", "cut_card_between_rounds", "paytable", "paytable_variants",
              "shuffle_check", "shuffle_method", "penetration"],
    "reader": ["type", "dedupe_ms", "port", "baud", "framing", "code_format", "cut_code",
               "source", "decoder", "roi", "agree_frames", "pack_prefix"],
    "journal": ["path"],
    "upstream": ["type", "path", "host", "port", "prefix", "client_id", "credentials_file",
                 "tls", "signing_key_file", "keepalive_s", "session_expiry_s", "max_inflight",
                 "reconnect_max_s", "command_keys", "command_window_s", "command_skew_s"],
    "simulation": ["seed", "shoes", "supervisor", "pace", "faults"],
    "display": ["type", "host", "port", "language", "credentials_file", "sound"],
    "results": ["path", "announcements_path"], "recording": ["dir", "raw"],
    "integrity": ["repeat_cards", "repeat_threshold", "repeat_history"],
}


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for section in draw(st.lists(st.sampled_from(sorted(CONFIG_KEYS)), max_size=4)):
        keys = draw(st.lists(st.sampled_from(CONFIG_KEYS[section]), max_size=3))
        doc[section] = {k: draw(values) for k in keys}
    return doc


def _dump(doc: object) -> str:
    return yaml.safe_dump(doc, allow_unicode=True)


@SETTINGS
@given(configs())
def test_structured_configs(doc: dict[str, Any]) -> None:
    path = _file("config.yaml", _dump(doc))
    _assert_ok(harness.config_case(path, _WORK / "config.out"))


@SETTINGS
@given(st.lists(st.dictionaries(
    st.sampled_from(["kind", "card", "after_round", "seconds", "shoe", "x"]),
    st.one_of(st.sampled_from(["garbled", "double", "lost", "delay", "not_due", "cut"]),
              values), max_size=4), max_size=4))
def test_structured_fault_scripts(faults: list[dict[str, Any]]) -> None:
    path = _file("faults.yaml", _dump(faults))
    _assert_ok(harness.faults_case(path, _WORK / "faults.out"))


SEED000 = yaml.safe_load((REPO / "config" / "paytables" / "seed000.yaml").read_text())
BET_KEYS = ["key", "label", "kind", "side", "total", "totals", "colour", "bets", "pays", "push",
            "cutoff_round", "note"]


@SETTINGS
@given(st.data())
def test_structured_paytables(data: st.DataObject) -> None:
    doc = json.loads(json.dumps(SEED000))
    for _ in range(data.draw(st.integers(1, 3))):
        bet = doc["bets"][data.draw(st.integers(0, len(doc["bets"]) - 1))]
        key = data.draw(st.sampled_from(BET_KEYS))
        if key == "pays" and data.draw(st.booleans()):
            bet["pays"] = {data.draw(st.sampled_from(["win", "win_with_6", "x"])): data.draw(
                values)}
        else:
            bet[key] = data.draw(values)
    path = _file("paytable.yaml", _dump(doc))
    _assert_ok(harness.paytable_case(path, _WORK / "paytable.out", analyze=False))


@SETTINGS
@given(st.dictionaries(st.one_of(st.sampled_from(["AS", "TD", "10D", "4d", "KH", "XX", ""]),
                                 st.text(max_size=4)), values, max_size=8))
def test_structured_remaining_cards(doc: dict[str, Any]) -> None:
    """``analyze --remaining`` with a JSON object of cards left: codes and counts of any
    type (issue 25)."""
    path = _file("remaining.json", json.dumps(doc, allow_nan=True))
    _assert_ok(harness.remaining_case(path))


HEADER_RULES = {"table": "table-1", "decks": 8, "dedupe_ms": 150,
                "cut_card_between_rounds": "next_round_last",
                # The bet guard's keys (issue 25): checked as a config's are.
                "bet_guard": "close", "bet_guard_max_rtp": 1.0}
EVENT_KINDS = ["card", "cut", "lost", "restored", "cmd", "timer", "x"]


@st.composite
def events(draw: st.DrawFn) -> dict[str, Any]:
    ev: dict[str, Any] = {"t": draw(st.one_of(st.just(1767225700.0), values)),
                          "e": draw(st.sampled_from(EVENT_KINDS))}
    for key in draw(st.lists(st.sampled_from(["code", "src", "reason", "action", "actor",
                                              "name"]), max_size=3)):
        ev[key] = draw(st.one_of(st.sampled_from(["AS", "sim-shoe", "new_shoe", "resume",
                                                  "void", "dealer", "betting", "reveal",
                                                  "open_cards", "skip"]), values))
    return ev


@SETTINGS
@given(st.dictionaries(st.sampled_from(sorted(HEADER_RULES)), values, max_size=2),
       st.lists(events(), max_size=6), st.booleans())
def test_structured_recordings(rules: dict[str, Any], evs: list[dict[str, Any]],
                               keep_version: bool) -> None:
    header: dict[str, Any] = {"format": "dealer-station-recording",
                              "rules": {**HEADER_RULES, **rules}}
    if keep_version:
        header["version"] = 1
    lines = [json.dumps(header)] + [json.dumps(e) for e in evs]
    path = _file("recording.jsonl", "\n".join(lines) + "\n")
    _assert_ok(harness.recording_case(path, _WORK / "recording.out"))


@SETTINGS
@given(st.lists(st.fixed_dictionaries({}, optional={
    "shoe": st.one_of(st.just("s"), values), "round": st.one_of(st.integers(-1, 3), values),
    "status": st.one_of(st.sampled_from(["complete", "void"]), values),
    "winner": st.one_of(st.sampled_from(["banker", "player", "tie"]), values),
    "banker_pair": st.one_of(st.booleans(), values), "player_pair": st.booleans(),
    "bets": st.one_of(values, st.dictionaries(st.sampled_from(["lucky_6", "tie", "x"]),
                                              st.fixed_dictionaries({}, optional={
                                                  "outcome": st.sampled_from(["win", "lose"]),
                                                  "pays": values}), max_size=2)),
}), max_size=5))
def test_structured_results(records: list[dict[str, Any]]) -> None:
    path = _file("results.jsonl", "\n".join(json.dumps(r) for r in records) + "\n")
    _assert_ok(harness.results_case(path, _WORK / "results.svg"))


# -- command lines ---------------------------------------------------------------------------


def _argv_pool() -> dict[str, list[str]]:
    rec = sorted((REPO / "tests" / "recordings").glob("*_shoe.jsonl"))[0]
    bad_yaml = _file("bad.yaml", "table: [\n")
    out = str(_WORK / "argv.out")
    paths = [str(SHOE_COPY), str(_WORK / "missing"), str(_WORK), "", "-", "a\0b", "p" * 300,
             str(bad_yaml), out]
    return {
        "files": paths,
        "outs": [out, "-", str(_WORK), str(_WORK / "no" / "such"), "", str(SHOE_COPY)],
        "ints": ["-1", "0", "1", "2", "x", "", "1e3", "99999999999999999999", "٣", " 2"],
        "small": ["-1", "0", "1", "2", "x", "", "1.5", "-0"],
        "recordings": [str(rec), *paths],
        "paytables": [str(REPO / "config" / "paytables" / "seed000.yaml"), *paths],
        "configs": [str(REPO / "config" / "station.yaml"), *paths],
        "journals": [str(_journal())],
        "times": ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00", "2026-13-01T00:00:00Z",
                  "x", "", "2025-12-31T23:00:00+01:00", "9999-12-31T23:59:59Z"],
        "words": ["no_commission", "tie_9_to_1", "x", "", "none", "resume", "void", "BPT",
                  "BPTX", "s", "-", "--", "--nope", "\x00"],
    }


def _journal() -> Path:
    """A real journal (whose messages are not the station's: a reader must cope)."""
    path = _WORK / "journal.sqlite3"
    return path if path.exists() else make_journal(path)


def _simulate(rng: random.Random, pool: dict[str, list[str]]) -> list[str]:
    argv = ["simulate"]
    options: list[tuple[str, str | None]] = [
        # --shoes only small: a valid large count is a long simulation on purpose.
        ("--shoes", "small"), ("--shoe-file", "files"), ("--seed", "ints"), ("--out", "outs"),
        ("--record", "outs"), ("--announcements", "outs"), ("--messages", "outs"),
        ("--faults", "files"),
        ("--supervisor", "words"), ("--display", None), ("-c", "configs"),
        ("--paytable", "paytables"), ("--no-bets", None), ("--variant", "words"),
        ("--stats", None), ("--progress", None), ("--bet-guard", "words")]
    for name, values in rng.sample(options, rng.randint(0, 5)):
        argv.append(name)
        if values is not None:
            argv.append(rng.choice(pool[values]))
    if "--shoe-file" not in argv and "--shoes" not in argv:
        argv += ["--shoe-file", str(SHOE_COPY)]
    return argv


def _fleet(rng: random.Random, pool: dict[str, list[str]]) -> list[str]:
    """Only counts a fleet refuses: a valid one would start tables that run until stopped."""
    counts = ["0", "-1", "-0", "x", "", "1.5", str(TABLES_MAX + 1), "99999999999999999999"]
    argv = ["fleet"]
    for name, values in (("-c", pool["configs"]), ("--tables", counts),
                         ("--dir", pool["outs"])):
        if rng.random() < 0.9:
            argv += [name, rng.choice(values)]
    return argv if "--tables" in argv else [*argv, "--tables", rng.choice(counts)]


def _command(rng: random.Random, pool: dict[str, list[str]]) -> list[str]:
    cmd = rng.choice(["simulate", "replay", "roads", "analyze", "run", "monitor", "journal",
                      "keygen", "fleet", "junk"])
    if cmd == "journal":
        verb = rng.choice(["verify", "export", "nonsense"])
        argv = ["journal", verb, rng.choice([*pool["journals"], *pool["recordings"],
                                             *pool["files"], *pool["words"]])]
        if verb == "export":
            # The recording (--out) or the video timecodes (--vtt, --srt and their options),
            # each sometimes, so that mixes and options out of place are tried too.
            for name, values in (("--out", "outs"), ("--vtt", "outs"), ("--srt", "outs"),
                                 ("--shoe", "words"), ("--video-start", "times")):
                if rng.random() < (0.5 if name in ("--out", "--vtt") else 0.3):
                    argv += [name, rng.choice(pool[values])]
        return argv + (["--force"] if rng.random() < 0.2 else [])
    if cmd == "keygen":
        argv = ["keygen", rng.choice(pool["words"] + pool["outs"])]
        return argv + (["--name", rng.choice(pool["words"])] if rng.random() < 0.3 else [])
    if cmd == "fleet":
        return _fleet(rng, pool)
    if cmd == "simulate":
        return _simulate(rng, pool)
    if cmd == "replay":
        argv = ["replay", rng.choice(pool["recordings"])]
        if rng.random() < 0.5:
            argv += ["--out", rng.choice(pool["outs"])]
        return argv + (["--display"] if rng.random() < 0.3 else [])
    if cmd == "roads":
        argv = ["roads"]
        if rng.random() < 0.5:
            argv += ["--results", rng.choice([*pool["recordings"], *pool["files"]])]
        if rng.random() < 0.6:
            argv += ["--sequence", rng.choice(pool["words"])]
        for opt in ("--shoe", "--svg"):
            if rng.random() < 0.3:
                argv += [opt, rng.choice(pool["words"] + pool["outs"])]
        return argv + (["--json"] if rng.random() < 0.5 else [])
    if cmd == "analyze":
        argv = ["analyze", rng.choice(pool["paytables"])]
        if rng.random() < 0.5:
            argv += ["--decks", rng.choice(pool["ints"])]
        if rng.random() < 0.3:
            argv += ["--variant", rng.choice(pool["words"])]
        return argv + rng.sample(["--json", "--strict"], rng.randint(0, 2))
    if cmd in ("run", "monitor"):
        # Never a config that loads: that would start a daemon (or a monitor) that runs
        # until stopped.
        return [cmd, "-c", rng.choice([p for p in pool["files"] if not p.endswith(".out")])]
    return rng.sample(pool["words"], rng.randint(0, 3))


@pytest.mark.parametrize("batch", range(4))
def test_fuzzed_command_lines(batch: int) -> None:
    rng = random.Random(f"{SEED}:argv:{batch}")
    pool = _argv_pool()
    failures = []
    for _ in range(max(10, CASES // 16)):
        argv = _command(rng, pool)
        # analyze --strict and journal verify report a finding with exit 1.
        allowed = (0, 1, 2) if "--strict" in argv or argv[:2] == ["journal", "verify"] \
            else (0, 2)
        shutil.copy(SHORT_SHOE, SHOE_COPY)  # a case may have written over it (exit 0)
        case = Case(argv, None, [Path(a) for a in argv if a.endswith("argv.out")], allowed)
        found = harness.check(case)
        if found:
            failures.append(f"{argv!r}: {found}")
    assert not failures, "\n\n".join(failures[:5]) + f"\n({len(failures)} failing)"


def test_fuzzed_fleet_command_lines() -> None:
    """`station fleet` with every kind of bad option: exit 2 naming it, never a start."""
    rng = random.Random(f"{SEED}:fleet")
    pool = _argv_pool()
    failures = []
    for _ in range(30):
        argv = _fleet(rng, pool)
        found = harness.check(Case(argv, None, [Path(a) for a in argv if a.endswith("argv.out")],
                                   (2,)))
        if found:
            failures.append(f"{argv!r}: {found}")
    assert not failures, "\n\n".join(failures[:5]) + f"\n({len(failures)} failing)"


# The table modes (docs/modes.md): the table keys, the simulated players, and a recording
# whose header carries them and whose events include the clock's timers.
MODE_KEYS = ["mode", "betting", "betting_s", "result_s", "reveal_s", "open_cards_s",
             "new_shoe_s", "max_skips", "new_shoe_after", "x"]
mode_values = st.one_of(st.sampled_from(["standard", "squeeze", "vip", "dealer", "timer",
                                         "upstream", 0, 0.01, 5, 30, 60.0, 86401, 10**7]),
                        values)
player_values = st.one_of(st.sampled_from(["player", "timer", [2, 3, 4, 5, 6, 7], [1], 31, 0]),
                          values)


@SETTINGS
@given(st.dictionaries(st.sampled_from(MODE_KEYS), mode_values, max_size=4),
       st.dictionaries(st.sampled_from(["reveal", "skip_rounds", "new_shoe_at", "dealer_at",
                                        "x"]), player_values, max_size=3),
       st.one_of(st.none(), mode_values))
def test_structured_mode_configs(table: dict[str, Any], players: dict[str, Any],
                                 reveal_s: object) -> None:
    simulation: dict[str, Any] = {"players": players}
    if reveal_s is not None:
        simulation["pace"] = {"reveal_s": reveal_s}
    path = _file("config.yaml", _dump({"table": table, "simulation": simulation}))
    _assert_ok(harness.config_case(path, _WORK / "config.out"))


@SETTINGS
@given(st.dictionaries(st.sampled_from(MODE_KEYS), mode_values, max_size=3),
       st.lists(events(), max_size=6))
def test_structured_mode_recordings(rules: dict[str, Any], evs: list[dict[str, Any]]) -> None:
    header = {"format": "dealer-station-recording", "version": 1,
              "rules": {**HEADER_RULES, **rules}}
    lines = [json.dumps(header)] + [json.dumps(e) for e in evs]
    path = _file("recording.jsonl", "\n".join(lines) + "\n")
    _assert_ok(harness.recording_case(path, _WORK / "recording.out"))


# Table procedures (docs/rules.md): the shuffle check, the cut card's band, pack codes, and a
# recording whose header carries them and whose events include the dealer's pause.
PROCEDURE_KEYS = ["shuffle_check", "shuffle_method", "penetration", "pack_prefix", "x"]
procedure_values = st.one_of(
    st.sampled_from(["none", "supervisor", "manual", "machine", "PK-", "", [0.6, 0.9],
                     [0.9, 0.6], [0, 1], [-0.1, 0.5], [0.5], [True, 1], None]), values)
procedure_events = st.fixed_dictionaries(
    {"t": st.just(1767225700.0), "e": st.just("cmd"),
     "action": st.sampled_from(["pause", "confirm_shuffle", "new_shoe", "resume"]),
     "actor": st.sampled_from(["dealer", "ann (web 127.0.0.1)"])},
    optional={"code": st.one_of(st.sampled_from(["card_dropped", "other", "nope"]), values),
              "note": st.one_of(st.sampled_from(["a lamp failed", "", "x" * 300]), values)})


@SETTINGS
@given(st.dictionaries(st.sampled_from(PROCEDURE_KEYS), procedure_values, max_size=3),
       st.one_of(st.none(), procedure_values))
def test_structured_procedure_configs(table: dict[str, Any], pack_prefix: object) -> None:
    doc: dict[str, Any] = {"table": table}
    if pack_prefix is not None:
        doc["reader"] = {"pack_prefix": pack_prefix}
    path = _file("config.yaml", _dump(doc))
    _assert_ok(harness.config_case(path, _WORK / "config.out"))


@SETTINGS
@given(st.dictionaries(st.sampled_from(PROCEDURE_KEYS), procedure_values, max_size=3),
       st.lists(st.one_of(procedure_events, events()), max_size=6))
def test_structured_procedure_recordings(rules: dict[str, Any],
                                         evs: list[dict[str, Any]]) -> None:
    header = {"format": "dealer-station-recording", "version": 1,
              "rules": {**HEADER_RULES, **rules}}
    lines = [json.dumps(header)] + [json.dumps(e) for e in evs]
    path = _file("recording.jsonl", "\n".join(lines) + "\n")
    _assert_ok(harness.recording_case(path, _WORK / "recording.out"))
