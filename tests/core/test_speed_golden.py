"""Byte-identical output across speed work (issue 13): digests taken from the code before it.

Every optimisation of the per-round path must leave what a seeded simulation publishes, shows,
announces and records, and what its replay publishes and shows, exactly as it was. The
digests below were taken from the tree before any of that work; a change that alters a single
byte of any of these outputs fails here, whatever the other tests say.

Two runs are pinned: the shipped configuration (`station simulate --shoes 20 --seed 1`, the
default paytable's bets), and a run with every kind of fault, the 42-bet seed 003 paytable
(first-two-card bets included) and each supervisor policy, so pauses, re-scans, voids and
refunds are pinned as well as the clean path.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

FAULTS = """\
- {kind: garbled, card: 20}
- {kind: double, card: 30}
- {kind: lost, card: 40, seconds: 8}
- {kind: delay, card: 50, seconds: 3}
- {kind: not_due, after_round: 9}
- {kind: not_due, after_round: 12}
- {kind: cut, card: 3, shoe: 2}
- {kind: garbled, card: 100, shoe: 3}
- {kind: not_due, after_round: 5, shoe: 3}
"""

# name -> digest of each output, from the tree before issue 13's changes. Changed on purpose
# once since (issue 11, dealers): every round record gained `"dealer":null` and every
# recording header `"badge_prefix": "DEALER-"`; with exactly those bytes taken out, each new
# output hashed to the digest it replaced (checked when they were updated), and the display
# and announcements did not change at all.
GOLDEN: dict[str, dict[str, str]] = {
    "faults_resume": {
        "rounds": "16205a55032307103f21df4842e550dfec639c0e7525079d42cf7c16605e4207",
        "rounds_no_display": "16205a55032307103f21df4842e550dfec639c0e7525079d42cf7c16605e4207",
        "display": "9f2506011e22fc6964ea98e1d52c75789304b7fb4310aa038ed6bddec0e38c88",
        "announcements": "e12cea25bfcf4d333befbc9b8adb0a56b99b20dca97d4067ff592876238e0325",
        "recording": "38ecc91a4b6eb56eab602498b1408caeaab97aadbd32d28f63d9f8229ebfbc94",
        "replay_rounds": "16205a55032307103f21df4842e550dfec639c0e7525079d42cf7c16605e4207",
        "replay_display": "9f2506011e22fc6964ea98e1d52c75789304b7fb4310aa038ed6bddec0e38c88",
    },
    "faults_void": {
        "rounds": "28b26c7cd98daf81ed7f98074395ffecbc60932a0c848f75b3c9651d9e759883",
        "rounds_no_display": "28b26c7cd98daf81ed7f98074395ffecbc60932a0c848f75b3c9651d9e759883",
        "display": "82f2ba1c8a654fd62257b2dd1c20c99f2e7cac51f7fd1d1842b2be04f12f7776",
        "announcements": "d8c473545f8e28e0251c563e97a8e2c8e67f2f4f6b9f32bd1a1ed77450039450",
        "recording": "3ae9351f78488fc5a0e4f293e531019976e1543d42bd073ea3953ffe29f679db",
        "replay_rounds": "28b26c7cd98daf81ed7f98074395ffecbc60932a0c848f75b3c9651d9e759883",
        "replay_display": "82f2ba1c8a654fd62257b2dd1c20c99f2e7cac51f7fd1d1842b2be04f12f7776",
    },
    "shipped": {
        "rounds": "eabc5a80d052787b66628222db90d19eee3e6161c78f3072543eedfbdd68cea4",
        "rounds_no_display": "eabc5a80d052787b66628222db90d19eee3e6161c78f3072543eedfbdd68cea4",
        "display": "9e50f67f21ec516576d95788a572d585380d1d410ca7a2e45e5baedb15f354ac",
        "announcements": "dcedbe8292d08a7d00cbaa79c75dbfc19769d44436e3c56448c25ea7983306ae",
        "recording": "44b066c366fd1dc218d6547275f92e1227ab367ae869159931a0789419051134",
        "replay_rounds": "eabc5a80d052787b66628222db90d19eee3e6161c78f3072543eedfbdd68cea4",
        "replay_display": "9e50f67f21ec516576d95788a572d585380d1d410ca7a2e45e5baedb15f354ac",
    },
}


def _station(*args: str) -> subprocess.CompletedProcess[bytes]:
    res = subprocess.run([sys.executable, "-m", "station.cli", *args], cwd=REPO,
                         capture_output=True, timeout=100, check=False)
    assert res.returncode == 0, res.stderr.decode(errors="replace")
    return res


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _display(stderr: bytes, summary: bytes) -> bytes:
    # The last line is a summary with a wall-clock rate; everything before it is the display.
    lines = stderr.splitlines(keepends=True)
    assert lines and lines[-1].startswith(summary), lines[-1:]
    return b"".join(lines[:-1])


def _betting_open(data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    reports = [line for line in lines if json.loads(line)["type"] == "shoe_report"]
    assert reports, "a shoe report at each shoe's end"
    return b"".join(line for line in lines if json.loads(line)["type"] == "betting_open")


def digests(tmp: Path, *args: str) -> dict[str, str]:
    """Run ``station simulate ARGS`` with every output, then replay its recording."""
    rec, ann = tmp / "rec.jsonl", tmp / "ann.jsonl"
    sim = _station("simulate", *args, "--out", "-", "--record", str(rec),
                   "--announcements", str(ann), "--display")
    # The recording's header names the paytable file by its path on this machine.
    recording = rec.read_bytes().replace(str(REPO).encode(), b"<repo>")
    rep = _station("replay", str(rec), "--out", "-", "--display")
    # Without a display the station builds no prompts: the fast path, pinned on its own.
    plain = _station("simulate", *args, "--out", "-")
    return {
        "rounds": _sha(sim.stdout),
        "rounds_no_display": _sha(plain.stdout),
        "display": _sha(_display(sim.stderr, b"simulated ")),
        # Betting open, as before the speed work; the shoe reports (issue 11) came later.
        "announcements": _sha(_betting_open(ann.read_bytes())),
        "recording": _sha(recording),
        "replay_rounds": _sha(rep.stdout),
        "replay_display": _sha(_display(rep.stderr, b"replayed ")),
    }


RUNS: dict[str, tuple[str, ...]] = {
    "shipped": ("--shoes", "20", "--seed", "1"),
    "faults_resume": ("--shoes", "4", "--seed", "7", "--paytable",
                      "config/paytables/seed003.yaml", "--faults", "{faults}",
                      "--supervisor", "resume"),
    "faults_void": ("--shoes", "4", "--seed", "7", "--paytable",
                    "config/paytables/seed003.yaml", "--faults", "{faults}",
                    "--supervisor", "void"),
}


def run_digests(name: str, tmp: Path) -> dict[str, str]:
    faults = tmp / "faults.yaml"
    faults.write_text(FAULTS)
    return digests(tmp, *(a.format(faults=faults) for a in RUNS[name]))


@pytest.mark.parametrize("name", sorted(RUNS))
def test_outputs_are_byte_identical_to_before_the_speed_work(name: str, tmp_path: Path
                                                               ) -> None:
    assert run_digests(name, tmp_path) == GOLDEN[name]


if __name__ == "__main__":
    # Prints the digests of this tree, to fill GOLDEN once (never to "fix" a failing test).
    import tempfile

    for run in sorted(RUNS):
        with tempfile.TemporaryDirectory() as d:
            print(f"    {run!r}: {run_digests(run, Path(d))!r},")


def test_replay_without_a_display_says_where_the_session_ended(tmp_path: Path) -> None:
    # Without --display the station composes no prompt per event; the ending it reports is
    # composed when asked, and must be the one the display would have shown last.
    faults = tmp_path / "faults.yaml"
    faults.write_text("- {kind: double, card: 30}\n- {kind: not_due, after_round: 5}\n")
    rec = tmp_path / "rec.jsonl"
    _station("simulate", "--shoes", "1", "--seed", "7", "--faults", str(faults),
             "--record", str(rec))
    plain = _station("replay", str(rec)).stderr.decode().splitlines()[-1]
    shown = _station("replay", str(rec), "--display").stderr.decode().splitlines()
    assert plain == shown[-1]
    assert plain.endswith(f"ended {shown[-2]}") and "PAUSED" in plain
