"""``station simulate --messages OUT``: the stream ``station run`` with the file upstream writes.

The daemon's simulated table stamps each event with the wall clock, and its shoe ids carry the
journal's session tag, while ``simulate`` runs on the dealer's virtual clock: those are the
only bytes that may differ, with the journal head each status names (its hashes cover the
journal's header and times; ``simulate`` names a chain of its own, at the same record seq, and
the daemon's is checked against its journal). The comparison moves the daemon's messages onto
the simulation's clock and shoe ids and re-encodes them (re-signs them: Ed25519 signatures are
deterministic); what comes out must be the simulation's line, byte for byte. That the
re-encoding changes nothing else is checked on the daemon's own lines first.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.cli import main
from station.journal.verify import verify_journal
from station.wire.canonical import encode, normalize
from station.wire.signing import SignatureError, Signer
from tests.conftest import REPO
from tests.stationkit import FAST, finish, write_key
from tests.streamkit import consistent, lines_of

SHORT = REPO / "tests" / "shoes" / "short.txt"
PAYTABLE = REPO / "config" / "paytables" / "seed000.yaml"
# Faults both tables play alike, so the stream has pauses, resumes and a held card too.
FAULTS = [{"kind": "garbled", "card": 15}, {"kind": "not_due", "after_round": 3},
          {"kind": "lost", "card": 25, "seconds": 0.05}, {"kind": "double", "card": 40}]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", *args], capture_output=True,
                          text=True, timeout=100, check=False)


def daemon_config(tmp: Path, seed: int, key: Path | None) -> Path:
    upstream: dict[str, Any] = {"type": "file", "path": str(tmp / "upstream.jsonl")}
    if key is not None:
        upstream["signing_key_file"] = str(key)
    cfg = {
        "table": {"id": "t7", "paytable": str(PAYTABLE)},
        # A card every 3 ms: a wider double-read window would take two equal cards in a row
        # for one bounce (the simulation's 1.5 s apart never are).
        "reader": {"dedupe_ms": 1},
        # A dealer signs in with a badge before the shoe (a dealer message upstream).
        "simulation": {"seed": seed, "shoes": 1, "supervisor": "resume", "pace": FAST,
                       "faults": FAULTS, "dealer_badge": "DEALER-D042"},
        "display": {"type": "none"},
        "results": {"path": str(tmp / "results.jsonl"), "announcements_path": None},
        "recording": {"dir": None},
        "journal": {"path": str(tmp / "journal.sqlite3")},
        "upstream": upstream,
    }
    path = tmp / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def simulated(tmp: Path, config: Path, seed: int) -> bytes:
    faults = tmp / "faults.yaml"
    faults.write_text(yaml.safe_dump(FAULTS))
    out = tmp / "messages.jsonl"
    done = cli("simulate", "-c", str(config), "--seed", str(seed), "--shoes", "1",
               "--faults", str(faults), "--supervisor", "resume", "--messages", str(out))
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


def encoded(message: dict[str, Any], signer: Signer | None) -> bytes:
    """The payload the station makes of ``message`` (its ``sig`` made afresh, if signing)."""
    body = {k: v for k, v in message.items() if k != "sig"}
    return signer.sign(body) if signer is not None else encode(normalize(body))


def moved(value: Any, shoes: dict[str, str]) -> Any:
    """``value`` with every daemon shoe id (in ids, keys, round keys) the simulation's."""
    if isinstance(value, str):
        for ours, theirs in shoes.items():
            value = value.replace(ours, theirs)
        return value
    if isinstance(value, dict):
        return {k: moved(v, shoes) for k, v in value.items()}
    if isinstance(value, list):
        return [moved(v, shoes) for v in value]
    return value


def journal_heads(path: Path) -> tuple[str, dict[int, str]]:
    """The journal's id and each record's chain hash (record 0: the id), as hex."""
    journal_id = verify_journal(path, live=False).journal_id.hex()
    with contextlib.closing(sqlite3.connect(path)) as conn:
        rows = conn.execute("SELECT seq, hash FROM events").fetchall()
    return journal_id, {0: journal_id} | {int(seq): bytes(h).hex() for seq, h in rows}


def assert_same_but_the_clock(daemon: bytes, simulation: bytes, signer: Signer | None,
                              journal: Path) -> None:
    journal_id, heads = journal_heads(journal)
    ours, theirs = lines_of(daemon), lines_of(simulation)
    assert len(ours) == len(theirs), f"{len(ours)} daemon messages, {len(theirs)} simulated"
    shoes: dict[str, str] = {}
    clocks: dict[str, str] = {}
    for n, (line, want) in enumerate(zip(ours, theirs, strict=True), 1):
        msg, sim = json.loads(line), json.loads(want)
        assert encoded(msg, signer) == line, f"line {n}: the re-encoding is not faithful"
        if msg.get("shoe") is not None:
            assert shoes.setdefault(msg["shoe"], sim["shoe"]) == sim["shoe"], f"line {n}"
        # One event, one time: messages of the same event share it in both streams.
        assert clocks.setdefault(msg["ts"], sim["ts"]) == sim["ts"], f"line {n}: clock"
        on_our_clock = moved(msg, shoes) | {"ts": sim["ts"]}
        if msg["kind"] == "status":
            # Record N's status names record N-1 of the daemon's own journal.
            head = msg["journal"]
            assert head["id"] == journal_id and head["head"] == heads[head["seq"]], f"line {n}"
            assert head["seq"] == sim["journal"]["seq"], f"line {n}: not the same record"
            on_our_clock["journal"] = sim["journal"]
        if msg["kind"] == "shoe_report":
            # A shoe report's times are the clock's too: its start, end, length and pauses.
            on_our_clock |= {k: sim[k] for k in ("started", "ended", "duration_s")}
            on_our_clock["pauses"] = [p | {"ts": q["ts"]} for p, q in
                                      zip(on_our_clock["pauses"], sim["pauses"], strict=True)]
        assert encoded(on_our_clock, signer) == want, (
            f"line {n} differs beyond the clock:\n  daemon    {line!r}\n  simulated {want!r}")
    assert len(set(shoes.values())) == len(shoes)
    # Both clocks only go forward. (Not one to one: the simulated reader is lost at the very
    # moment of the card before, which the wall clock tells apart.)
    assert list(clocks) == sorted(clocks) and list(clocks.values()) == sorted(clocks.values())


@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed"])
def test_a_simulated_shoe_streams_what_the_daemon_writes(tmp_path: Path, signed: bool) -> None:
    key_file, key = write_key(tmp_path) if signed else (None, None)
    seed = 23
    config = daemon_config(tmp_path, seed, key_file)
    # A simulation checks no clock: its statuses say "unknown". A daemon whose clock source
    # cannot tell journals no clock state either (a synchronised one would, at start).
    env = os.environ | {"STATION_CLOCK_SOURCE": "unknown"}
    with (tmp_path / "station.log").open("ab") as log:  # finish() reads it
        proc = subprocess.Popen([sys.executable, "-m", "station.cli", "run", "-c", str(config)],
                                cwd=tmp_path, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=log, env=env)
    finish(proc, config, timeout_s=90)
    daemon = (tmp_path / "upstream.jsonl").read_bytes()
    stream = simulated(tmp_path, config, seed)
    public = key.public_key() if key is not None else None
    messages = consistent(stream, public)
    kinds = {m["kind"] for m in messages}
    assert {"pause", "resume", "shoe_ended", "dealer"} <= kinds, "a fault or the dealer is missing"
    assert sum(m["kind"] == "round" for m in messages) > 50
    consistent(daemon, public)
    assert_same_but_the_clock(daemon, stream, Signer(key) if key is not None else None,
                              tmp_path / "journal.sqlite3")


@pytest.mark.parametrize(("seed", "supervisor"), [(1, "resume"), (2, "void"), (3, "resume")])
def test_the_stream_of_shuffled_shoes_is_consistent_from_outside(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int, supervisor: str) -> None:
    faults = tmp_path / "faults.yaml"
    faults.write_text(yaml.safe_dump([{**f, "shoe": shoe} for f in FAULTS for shoe in (1, 2)]))
    out, results = tmp_path / "messages.jsonl", tmp_path / "rounds.jsonl"
    code = main(["simulate", "--seed", str(seed), "--shoes", "2", "--faults", str(faults),
                 "--supervisor", supervisor, "--messages", str(out), "--out", str(results)])
    err = capsys.readouterr().err
    assert code == 0, err
    messages = consistent(out.read_bytes())
    assert f"{len(messages)} upstream messages (seq 1-{len(messages)}) written to {out}" in err
    # Every round of --out went upstream, in the same order, with the same record.
    rounds = [json.loads(x) for x in results.read_text().splitlines()]
    sent = [m for m in messages if m["kind"] == "round"]
    # v and key are the record's
    envelope = {"kind", "table", "seq", "prev_seq", "ts", "station_version"}
    assert [{k: v for k, v in m.items() if k not in envelope} for m in sent] == rounds
    assert [m["shoe"] for m in messages if m["kind"] == "shoe_started"] == \
        [m["shoe"] for m in messages if m["kind"] == "shoe_ended"] and \
        len({r["shoe"] for r in rounds}) == 2
    if supervisor == "void":
        assert any(r["status"] == "void" for r in rounds)


def test_stdout_carries_the_same_bytes_as_a_file(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    to_file = cli("simulate", "--shoe-file", str(SHORT), "--messages", str(out))
    to_stdout = subprocess.run(
        [sys.executable, "-m", "station.cli", "simulate", "--shoe-file", str(SHORT),
         "--messages", "-"], capture_output=True, timeout=60, check=True)
    assert to_file.returncode == 0, to_file.stderr
    assert to_stdout.stdout == out.read_bytes()
    assert len(consistent(to_stdout.stdout)) == 64  # with the shoe report


def test_a_config_names_the_signing_key_and_a_bad_key_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key_file, key = write_key(tmp_path)
    config = tmp_path / "station.yaml"
    config.write_text(yaml.safe_dump({"table": {"id": "t8"},
                                      "upstream": {"signing_key_file": "signing.pem"}}))
    out = tmp_path / "m.jsonl"
    argv = ["simulate", "-c", str(config), "--shoe-file", str(SHORT), "--messages", str(out)]
    assert main(argv) == 0, capsys.readouterr().err
    messages = consistent(out.read_bytes(), key.public_key())
    assert {m["table"] for m in messages} == {"t8"}
    # A key other users can read: refused by name, before anything is written.
    kept = out.read_bytes()
    key_file.chmod(0o644)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "upstream.signing_key_file" in err and "chmod 600" in err and str(config) in err
    assert out.read_bytes() == kept
    # Without --messages the key is not read: the table simulates as before.
    assert main(["simulate", "-c", str(config), "--shoe-file", str(SHORT)]) == 0
    # The key is an input of a --messages run: no output may write over it.
    key_file.chmod(0o600)
    before = key_file.read_bytes()
    assert main([*argv[:-2], "--out", str(key_file), "--messages", str(out)]) == 2
    assert "is an input of this command" in capsys.readouterr().err
    assert key_file.read_bytes() == before


def test_an_unsigned_stream_needs_no_key_and_the_table_comes_from_the_config(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "station.yaml"
    config.write_text(yaml.safe_dump({"table": {"id": "t9", "decks": 6}}))
    out = tmp_path / "m.jsonl"
    assert main(["simulate", "-c", str(config), "--messages", str(out)]) == 0
    messages = consistent(out.read_bytes())
    started = next(m for m in messages if m["kind"] == "shoe_started")
    assert started["table"] == "t9" and started["decks"] == 6


def test_keys_of_another_station_do_not_verify(tmp_path: Path) -> None:
    write_key(tmp_path)
    config = tmp_path / "station.yaml"
    config.write_text(yaml.safe_dump({"upstream": {"signing_key_file": "signing.pem"}}))
    out = tmp_path / "m.jsonl"
    done = cli("simulate", "-c", str(config), "--shoe-file", str(SHORT), "--messages", str(out))
    assert done.returncode == 0, done.stderr
    with pytest.raises(SignatureError):
        consistent(out.read_bytes(), Ed25519PrivateKey.generate().public_key())


# --- OUT refused like the other outputs ------------------------------------------------------
@pytest.mark.parametrize(("make", "said"), [
    (str, "is a directory"),
    (lambda d: str(d / "no" / "such.jsonl"), "does not exist"),
    (lambda d: str(d / "keep.jsonl"), "--out writes the same file"),
    (lambda d: str(d / "." / "keep.jsonl"), "--out writes the same file"),
    (lambda d: str(d / "shoe.txt"), "is an input of this command"),
    (lambda d: str(d / "link.txt"), "is an input of this command"),
    (lambda d: "", "an empty file name"),
    (lambda d: str(d / "keep.jsonl" / "x"), "cannot write (Not a directory)"),
], ids=["directory", "missing-folder", "same-as-out", "same-as-out-spelt-otherwise",
        "the-shoe-file", "a-hard-link-to-the-shoe-file", "empty", "under-a-file"])
def test_a_bad_out_is_refused_and_nothing_is_touched(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, said: str) -> None:
    shoe = tmp_path / "shoe.txt"
    shoe.write_bytes(SHORT.read_bytes())
    (tmp_path / "link.txt").hardlink_to(shoe)
    keep = tmp_path / "keep.jsonl"
    keep.write_text("rounds of yesterday\n")
    listing = sorted(p.name for p in tmp_path.iterdir())
    code = main(["simulate", "--shoe-file", str(shoe), "--out", str(keep),
                 "--messages", make(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "--messages" in err and said in err and "Traceback" not in err
    assert keep.read_text() == "rounds of yesterday\n"
    assert shoe.read_bytes() == SHORT.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == listing  # no temporary left


def test_only_one_output_may_be_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--shoe-file", str(SHORT), "--out", "-", "--messages", "-"])
    assert code == 2 and "--out already writes to stdout" in capsys.readouterr().err


def test_a_nul_byte_in_out_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    # The CLI refuses it in any argument: no file can be named with one.
    assert main(["simulate", "--shoe-file", str(SHORT), "--messages", "a\0b"]) == 2
    err = capsys.readouterr().err
    assert "NUL byte" in err and "Traceback" not in err


def test_an_existing_out_is_replaced_only_when_the_simulation_succeeds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.jsonl"
    out.write_text("yesterday's stream\n")
    bad_faults = tmp_path / "faults.yaml"
    bad_faults.write_text("- {kind: nonsense, card: 3}\n")
    assert main(["simulate", "--shoe-file", str(SHORT), "--faults", str(bad_faults),
                 "--messages", str(out)]) == 2
    assert out.read_text() == "yesterday's stream\n"
    assert main(["simulate", "--shoe-file", str(SHORT), "--messages", str(out)]) == 0
    assert len(consistent(out.read_bytes())) == 64
    capsys.readouterr()


def test_a_simulation_without_messages_loads_no_upstream_code() -> None:
    # The snapshots and the feed cost a plain simulate nothing: it never even imports them.
    feed = ["station.wire.feed", "station.wire.observe", "station.wire.signing",
            "station.upstream.stream"]
    probe = ("import sys; from station.cli import main; "
             f"code = main(['simulate', '--shoe-file', {str(SHORT)!r}, '--out', '-']); "
             f"print([m for m in {feed!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.splitlines()[-1] == "[]", done.stdout[-500:]


@pytest.mark.parametrize("session", ["modes_squeeze_timer", "modes_vip_dealer",
                                     "modes_standard_upstream"])
def test_a_table_mode_s_stream_is_consistent_from_outside(tmp_path: Path, session: str) -> None:
    """docs/upstream.md: the same outside check holds on squeeze, VIP and countdown tables:
    face-down cards, their reveals filling them in, skipped rounds, alerts, every message
    valid by its schema."""
    config = REPO / "tests" / "recordings" / f"{session}.config.yaml"
    out = tmp_path / "stream.jsonl"
    res = cli("simulate", "-c", str(config), "--shoes", "2", "--supervisor", "resume",
              "--messages", str(out))
    assert res.returncode == 0, res.stderr
    messages = consistent(out.read_bytes())
    kinds = {m["kind"] for m in messages}
    if session != "modes_standard_upstream":
        assert {"reveal", "card"} <= kinds
        assert any(m["kind"] == "card" and m.get("face_down") for m in messages)
    if session == "modes_vip_dealer":
        assert any(m["kind"] == "round" and m.get("skipped") for m in messages)
