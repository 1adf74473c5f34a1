"""Floods of refused requests against a real ``station run`` (issue 18, defect 4): every
request is answered (2xx/4xx, never a hang or a reset), the table keeps dealing, the journal
grows by the refusal budget and one counted line per source and interval, not by a record a
request, every refusal is still accounted for, and parallel wrong PINs get exactly the
documented five guesses before the lockout."""

from __future__ import annotations

import http.client
import json
import re
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from drivers.events import Command
from station.web import pins
from station.web.server import JOURNAL_FULL, JOURNAL_INTERVAL_S, REFUSALS_BURST, REFUSALS_PER_S
from tests import webkit
from tests.abuse.scale import pick
from tests.web.test_web_api import journaled_commands
from tests.web.test_web_ctl import ctl
from tests.webkit import state, wait_state

WORKERS = 8
SUMMARY = re.compile(r"^127\.0\.0\.1: (\d+) more refused in ")
FULL_VOID = re.compile(r"^\w+ \(web 127\.0\.0\.1\): void refused \(")


def post(port: int, action: str, body: dict[str, Any], source: str = "127.0.0.1",
         ) -> tuple[int, dict[str, Any], dict[str, str]]:
    """One command on its own connection; the status, the JSON answer and the headers. A
    reset or a hang (no answer in 60 s) raises."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60,
                                      source_address=(source, 0))
    try:
        conn.request("POST", f"/api/commands/{action}", json.dumps(body),
                     {"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read()), dict(resp.getheaders())
    finally:
        conn.close()


def flood(port: int, action: str, body: dict[str, Any], n: int,
          ) -> list[tuple[int, dict[str, Any], dict[str, str]]]:
    with ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(lambda _: post(port, action, body), range(n)))


def refused_records(config: Path) -> list[Command]:
    return [c for c in journaled_commands(config) if c.action == "command_refused"]


def ceiling(elapsed_s: float) -> int:
    """The most records a source's refusals may add over ``elapsed_s``: JOURNAL_FULL in full
    and one summary per interval (a flood straddles one more interval than it lasts)."""
    intervals = int(elapsed_s // JOURNAL_INTERVAL_S) + 2
    return intervals * (JOURNAL_FULL + 1)


def test_locked_out_voids_are_answered_and_journaled_as_counts(tmp_path: Path) -> None:
    config = webkit.sim_config(tmp_path, card_s=0.05, shoes=None)
    with webkit.running(config):
        base = webkit.url_of(config)
        port = int(base.rsplit(":", 1)[1])
        for _ in range(pins.MAX_FAILURES):
            post(port, "void", {"actor": "x", "pin": "0000"})
        before = len(refused_records(config))
        n = pick(300, 3000)
        start = time.monotonic()
        answers = flood(port, "void", {"actor": "x", "pin": "0000"}, n)
        elapsed = time.monotonic() - start
        statuses = Counter(status for status, _, _ in answers)
        assert set(statuses) <= {403, 429}, statuses
        assert all(a["error"] and a["fix"] for _, a, _ in answers)
        # Past the budget: 429 with Retry-After, before the PIN is even looked at.
        over = [h for _, a, h in answers if "too many refused" in a["error"]]
        assert over and all(int(h["Retry-After"]) >= 1 for h in over)
        added = len(refused_records(config)) - before
        assert added <= ceiling(elapsed), (added, elapsed)
        # `station ctl` is a client of the same API: held to the same budget (kept empty by
        # more of the flood meanwhile), it says how long to wait and exits 1 (refused).
        more: list[tuple[int, dict[str, Any], dict[str, str]]] = []
        ctl_done = threading.Event()

        def keep_empty() -> None:
            while not ctl_done.is_set():
                more.extend(flood(port, "void", {"actor": "x", "pin": "0000"}, 16))

        flooder = threading.Thread(target=keep_empty)
        flooder.start()
        try:
            done = ctl("void", "--url", base, env={"STATION_PIN": "0000"})
        finally:
            ctl_done.set()
            flooder.join(120)
        n += len(more)
        assert done.returncode == 1, done.stderr
        assert "too many refused requests from 127.0.0.1" in done.stderr
        assert re.search(r"wait \d+ s", done.stderr) and "Traceback" not in done.stderr
        n += 1

        # Every refusal is in the journal: in full, or counted in a summary.
        def accounted() -> int:
            records = refused_records(config)
            full = sum(1 for c in records if FULL_VOID.match(c.actor))
            counted = sum(int(m.group(1)) for c in records if (m := SUMMARY.match(c.actor)))
            return full + counted

        deadline = time.monotonic() + JOURNAL_INTERVAL_S * 3 + 30
        while accounted() < n + pins.MAX_FAILURES and time.monotonic() < deadline:
            time.sleep(0.5)
        assert accounted() == n + pins.MAX_FAILURES


def test_refused_new_shoes_are_answered_and_dealing_goes_on(tmp_path: Path) -> None:
    config = webkit.sim_config(tmp_path, card_s=0.02, shoes=None)
    results = tmp_path / "results.jsonl"
    with webkit.running(config):
        base = webkit.url_of(config)
        port = int(base.rsplit(":", 1)[1])
        wait_state(base, lambda s: s["round"]["no"] >= 1, what="the first round")
        commands_before = len(journaled_commands(config))
        n = pick(300, 3000)
        first = _lines(results)
        answers: list[tuple[int, dict[str, Any], dict[str, str]]] = []
        start = time.monotonic()
        # The flood goes on until it has sent n and the table has published two more
        # rounds while it ran (however fast this machine answers).
        while len(answers) < n or _lines(results) < first + 2:
            assert time.monotonic() - start < 300, "the table stopped dealing in the flood"
            answers += flood(port, "new-shoe", {"actor": "script"}, 50)
        elapsed = time.monotonic() - start
        statuses = Counter(status for status, _, _ in answers)
        assert set(statuses) <= {200, 409, 429}, statuses
        assert statuses[429] > 0
        # What reached the station is the budget: a burst, then a few a second.
        reached = [c for c in journaled_commands(config)[commands_before:]
                   if c.action == "new_shoe"]
        assert len(reached) <= REFUSALS_BURST + REFUSALS_PER_S * elapsed + 2, (
            len(reached), elapsed)
        wait_state(base, lambda s: True)
        deadline = time.monotonic() + JOURNAL_INTERVAL_S * 3 + 30
        while time.monotonic() < deadline:
            summaries = [c for c in refused_records(config) if SUMMARY.match(c.actor)]
            if summaries:
                break
            time.sleep(0.5)
        assert summaries and "new_shoe over the refusal budget" in summaries[0].actor
        assert state(base)["phase"]


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_parallel_wrong_pins_get_exactly_the_documented_guesses(tmp_path: Path) -> None:
    config = webkit.sim_config(tmp_path, card_s=0.05, shoes=None)
    with webkit.running(config):
        port = int(webkit.url_of(config).rsplit(":", 1)[1])
        n = pick(100, 100)
        # Each from its own loopback address: no source's budget stands in the way.
        sources = [f"127.0.0.{2 + i}" for i in range(n)]
        with ThreadPoolExecutor(n) as pool:
            answers = list(pool.map(
                lambda src: post(port, "resume", {"actor": "x", "pin": "0000"}, src), sources))
    errors = [a["error"] for _, a, _ in answers]
    wrong = [e for e in errors if e.startswith("wrong PIN")]
    locking = [e for e in errors if e.startswith(f"{pins.MAX_FAILURES} wrong PINs in a row")]
    assert len(wrong) == pins.MAX_FAILURES - 1, Counter(errors)
    assert len(locking) == 1
    assert all(e.startswith("locked for") for e in errors if e not in wrong + locking)


@pytest.mark.parametrize("threads", [pick(100, 100)])
def test_the_pin_counter_is_atomic(tmp_path: Path, threads: int) -> None:
    checker = pins.PinChecker(webkit.write_pins(tmp_path))
    barrier = threading.Barrier(threads)

    def guess() -> tuple[str, str]:
        barrier.wait()
        return checker.check("0000")

    with ThreadPoolExecutor(threads) as pool:
        verdicts = list(pool.map(lambda _: guess(), range(threads)))
    kinds = Counter(v for v, _ in verdicts)
    assert kinds[pins.Verdict.WRONG] == pins.MAX_FAILURES - 1, kinds
    assert kinds[pins.Verdict.LOCKED] == threads - pins.MAX_FAILURES + 1
