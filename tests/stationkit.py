"""Run the real ``station run`` process against a temporary table, for the durability tests."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.wire.signing import private_pem

FAST = {"card_s": 0.003, "open_betting_s": 0.003, "betting_s": 0.003, "new_shoe_s": 0.003,
        "supervisor_s": 0.01}
STATION = str(Path(sys.executable).parent / "station")


def write_key(folder: Path) -> tuple[Path, Ed25519PrivateKey]:
    key = Ed25519PrivateKey.generate()
    path = folder / "signing.pem"
    path.write_bytes(private_pem(key))
    path.chmod(0o600)
    return path, key


def table_config(tmp: Path, *, seed: int, upstream: dict[str, Any],
                 journal: Path | None = None, **simulation: Any) -> Path:
    cfg = {
        "table": {"id": "t7"},
        "reader": {"dedupe_ms": 1},
        "simulation": {"seed": seed, "shoes": 1, "supervisor": "resume", "pace": FAST,
                       **simulation},
        "display": {"type": "none"},
        "results": {"path": str(tmp / "results.jsonl"), "announcements_path": None},
        "recording": {"dir": None},
        "journal": {"path": str(journal or tmp / "journal.sqlite3")},
        "upstream": upstream,
    }
    path = tmp / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def start(config: Path) -> subprocess.Popen[bytes]:
    """The daemon, its stderr appended to ``station.log`` beside the config (a pipe nobody
    reads could fill and stall it)."""
    with (config.parent / "station.log").open("ab") as log:
        return subprocess.Popen([STATION, "run", "-c", str(config)], cwd=config.parent,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=log)


def finish(proc: subprocess.Popen[bytes], config: Path, timeout_s: float = 60) -> str:
    """Wait for the daemon to stop by itself, with exit 0 and no traceback; its log."""
    proc.wait(timeout_s)
    log = (config.parent / "station.log").read_text()
    assert proc.returncode == 0, log[-3000:]
    assert "Traceback" not in log, log[-3000:]
    return log


def journaled(journal: Path) -> int:
    """Records in the journal, read as another process would (0 before it exists)."""
    if not journal.exists():
        return 0
    try:
        with closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=1)) as db:
            (n,) = db.execute("SELECT count(*) FROM events").fetchone()
            return int(n)
    except sqlite3.Error:
        return 0


def wait_for(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(0.003)


def simulated_rounds(seed: int, *extra: str) -> list[tuple[Any, ...]]:
    """What an uninterrupted ``station simulate`` deals for ``seed``: the reference."""
    done = subprocess.run(
        [STATION, "simulate", "--seed", str(seed), "--shoes", "1", "--no-bets", "--out", "-",
         *extra], capture_output=True, text=True, check=True, timeout=60)
    return [essence(json.loads(line)) for line in done.stdout.splitlines()]


def essence(record: dict[str, Any]) -> tuple[Any, ...]:
    """What must not change however often the station restarts: the cards and the result."""
    return (record["round"], record["status"], tuple(record["player"]),
            tuple(record["banker"]), record["winner"])


def first_by_key(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """De-duplicate by idempotency key, as a game server does, keeping first deliveries."""
    seen: set[str] = set()
    out = []
    for m in messages:
        if m["key"] not in seen:
            seen.add(m["key"])
            out.append(m)
    return out


def check_stream(messages: list[dict[str, Any]], seed: int, *simulate_args: str
                 ) -> list[dict[str, Any]]:
    """Every message once after de-duplication, in seq order with no gap; the rounds are
    those of an uninterrupted simulation; every announced round got its result."""
    unique = first_by_key(m for m in messages if "seq" in m)  # type: ignore[arg-type]
    seqs = [m["seq"] for m in unique]
    assert seqs == list(range(1, len(seqs) + 1)), "messages missing or out of order"
    rounds = [m for m in unique if m["kind"] == "round"]
    got, want = [essence(r) for r in rounds], simulated_rounds(seed, *simulate_args)
    first = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), None)
    assert got == want, (f"{len(got)} rounds against {len(want)}; first difference at "
                         f"{first}: {got[first] if first is not None else None} != "
                         f"{want[first] if first is not None else None}; "
                         f"pauses: {[m['reason'] for m in unique if m['kind'] == 'pause']}")
    announced = {m["round_key"] for m in unique if m["kind"] == "betting_open"}
    assert announced == {r["key"] for r in rounds}
    return unique
