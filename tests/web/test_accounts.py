"""Named accounts (issue 31): the accounts file with roles read and fuzzed, the per-account
lockout (doubling, rebuilt from history, a locked account beside a working one, a made-up
name treated as a real one), the one secret-check thread and its memory, `station
accounts` on the command line."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.errors import ConfigError
from station.table.roles import PIT_BOSS, SUPERVISOR, SURVEILLANCE
from station.web import pins, secretpool
from station.web.accounts import Accounts, Verdict
from station.web.lockout import Lockout

ANN, BOB, EVE = ("ann", "4711"), ("bob", "9090"), ("eve", "5555")


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def entries() -> list[pins.Entry]:
    return [pins.hash_pin(*ANN), pins.hash_pin(*BOB, roles=(PIT_BOSS, SUPERVISOR)),
            pins.hash_pin(*EVE, roles=(SURVEILLANCE,))]


def accounts(tmp_path: Path, entries: list[pins.Entry], clock: Clock) -> Accounts:
    path = tmp_path / "accounts.pins"
    pins.save(path, entries)
    return Accounts(path, (PIT_BOSS,), clock=clock)


def test_roles_are_read_and_a_line_without_them_has_the_services_role(
        tmp_path: Path, entries: list[pins.Entry]) -> None:
    checker = accounts(tmp_path, entries, Clock())
    text = (tmp_path / "accounts.pins").read_text()
    assert "roles=pit_boss,supervisor" in text and "4711" not in text
    assert checker.check(*ANN, "resume").verdict == Verdict.OK  # the old line: pit_boss
    assert checker.check(*BOB, "void").roles == (PIT_BOSS, SUPERVISOR)
    got = checker.check(*EVE, "resume")
    assert got.verdict == Verdict.NOT_ALLOWED and got.roles == (SURVEILLANCE,)
    assert checker.check(*EVE, "read").verdict == Verdict.OK


def test_a_locked_account_never_blocks_another(tmp_path: Path,
                                                entries: list[pins.Entry]) -> None:
    clock = Clock()
    checker = accounts(tmp_path, entries, clock)
    got = [checker.check("ann", "0000", "resume") for _ in range(5)]
    assert [g.verdict for g in got] == [Verdict.WRONG] * 5
    assert got[-1].lock_s == 60 and got[-1].failures == 5
    assert checker.check(*ANN, "resume").verdict == Verdict.LOCKED  # even the right PIN
    assert checker.check(*BOB, "resume").verdict == Verdict.OK  # another: not locked
    clock.now += 61
    assert checker.check(*ANN, "resume").verdict == Verdict.OK


def test_the_lock_doubles_and_a_right_pin_resets_it() -> None:
    lock = Lockout()
    durations = []
    now = 0.0
    for _ in range(4):
        for _ in range(5):
            d = lock.failed("ann", now)
        durations.append(d)
        now += d + 1
    assert durations == [60, 120, 240, 480]
    lock.succeeded("ann")
    assert [lock.failed("ann", now) for _ in range(5)][-1] == 60


def test_a_made_up_name_is_counted_as_a_real_one(tmp_path: Path,
                                                 entries: list[pins.Entry]) -> None:
    checker = accounts(tmp_path, entries, Clock())
    real = [checker.check("ann", "0000", "resume") for _ in range(5)]
    made = [checker.check("zed", "0000", "resume") for _ in range(5)]
    assert [(g.verdict, g.lock_s, g.failures) for g in real] == [
        (g.verdict, g.lock_s, g.failures) for g in made]
    # Another's PIN is just wrong.
    assert checker.check("bob", ANN[1], "resume").verdict == Verdict.WRONG


def test_the_lockout_is_rebuilt_from_history(tmp_path: Path,
                                             entries: list[pins.Entry]) -> None:
    clock = Clock()
    checker = accounts(tmp_path, entries, clock)
    history = [("ann", "wrong", clock.now - 10 + i) for i in range(5)]
    history += [("bob", "wrong", clock.now - 5), ("bob", "ok", clock.now - 4)]
    checker.restore(history)
    assert checker.check(*ANN, "resume").verdict == Verdict.LOCKED
    assert checker.check(*BOB, "resume").verdict == Verdict.OK
    assert checker.lockout.failures("bob") == 0


def test_names_remembered_are_bounded() -> None:
    lock = Lockout(max_names=100)
    for i in range(1000):
        lock.failed(f"n{i}", 0.0)
    assert len(lock._names) == 100


def test_parallel_checks_are_counted_one_by_one(tmp_path: Path,
                                                entries: list[pins.Entry]) -> None:
    """30 guesses at once for one account: exactly 5 are checked, the rest find the lock."""
    checker = accounts(tmp_path, entries, Clock())
    got: list[str] = []
    threads = [threading.Thread(target=lambda: got.append(
        secretpool.run(lambda: checker.check("ann", "0000", "resume")).verdict))
        for _ in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(got) == sorted([Verdict.WRONG] * 5 + [Verdict.LOCKED] * 25)


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_the_memory_of_the_checks_goes_back(tmp_path: Path) -> None:
    """Parallel wrong PINs through the one secret-check thread leave no scrypt block behind:
    RSS grows by less than one check's 16 MiB (no time is measured)."""
    path = tmp_path / "a.pins"
    pins.save(path, [pins.hash_pin(*ANN)])
    checker = Accounts(path, (PIT_BOSS,), lockout=Lockout(max_failures=10**9))
    secretpool.run(lambda: None)  # the thread exists, as in a running service
    before = rss_kib()
    threads = [threading.Thread(target=lambda i=i: secretpool.run(
        lambda: checker.check(f"n{i % 7}", "0000", "resume"))) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert secretpool.mmap_threshold_fixed
    assert rss_kib() - before < 8 * 1024


GOOD = ("# accounts\nann scrypt$16384$8$1$" + "ab" * 16 + "$" + "cd" * 32
        + " roles=pit_boss,supervisor\nbob scrypt$16384$8$1$" + "ab" * 16 + "$" + "cd" * 32
        + "\n")


def test_seeded_mutations_of_an_accounts_file_are_read_or_refused_with_one_line() -> None:
    rng = random.Random(31)
    assert len(pins.parse(Path("a.pins"), GOOD)) == 2
    for _ in range(2000):
        text = list(GOOD)
        for _ in range(rng.randint(1, 5)):
            text[rng.randrange(len(text))] = rng.choice("$ =,\n#x0roles_9\t")
        try:
            pins.parse(Path("a.pins"), "".join(text))
        except ConfigError as exc:
            assert "\n" not in str(exc) and "a.pins: line" in str(exc)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_accounts_text_is_read_or_refused(text: str) -> None:
    try:
        for e in pins.parse(Path("a.pins"), text):
            assert e.roles is None or all(e.roles)
    except ConfigError as exc:
        assert "\n" not in str(exc)


def station(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, check=False)


def test_station_accounts_on_the_command_line(tmp_path: Path) -> None:
    config = tmp_path / "station.yaml"
    config.write_text("display: {type: web, credentials_file: accounts.pins}\n")
    path = tmp_path / "accounts.pins"
    pins.save(path, [pins.hash_pin("old", "1111")])  # a PIN file of before roles
    done = station("accounts", "add", "carol", "--role", "supervisor", "--role", "dealer",
                   "-c", str(config), stdin="2468\n")
    assert done.returncode == 0, done.stderr
    assert "added carol (supervisor,dealer)" in done.stderr
    assert path.stat().st_mode & 0o777 == 0o600 and "2468" not in path.read_text()
    done = station("accounts", "list", "-c", str(config))
    assert done.stdout == "carol\tsupervisor,dealer\nold\tsupervisor\n"
    done = station("accounts", "passwd", "carol", "-c", str(config), stdin="1357\n")
    assert done.returncode == 0, done.stderr
    carol = next(e for e in pins.load(path) if e.name == "carol")
    assert carol.matches("1357") and carol.roles == ("supervisor", "dealer")
    for args, words in ((("add", "dave", "--role", "boss"), "'boss' is not a role"),
                        (("add", "dave"), "at least one role"),
                        (("add", "carol", "--role", "dealer"), "already has an account"),
                        (("remove", "zed"), "no account zed"),
                        (("passwd", "zed"), "no account zed"),
                        (("add", "../x", "--role", "dealer"), "name '../x'")):
        done = station("accounts", *args, "-c", str(config), stdin="9753\n")
        assert done.returncode == 2 and words in done.stderr, (args, done.stderr)
        assert len(done.stderr.splitlines()) == 1
    done = station("accounts", "remove", "old", "-c", str(config))
    assert done.returncode == 0 and [e.name for e in pins.load(path)] == ["carol"]
