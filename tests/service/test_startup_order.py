"""What comes before READY=1 and what after (issue 35): READY does not wait for the install
check, the first retention survey or the tables a round builds; a card is taken while the
install check is still hashing, and its finding is journaled behind that card."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from drivers.events import CardRead, InstallModified
from station.journal import read_journal
from station.live.assembly import build_daemon
from station.live.config import parse_config
from station.live.install_check import Difference, Report
from station.live.install_watch import InstallWatch
from station.live.service.notify import Notifier
from station.live.service.watchdog import Heartbeat
from tests.daemon.test_daemon import config_dict
from tests.service.notifykit import NotifySocket


class HeldCheck:
    """An install check that finds one changed file, and returns only once released."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self) -> Report:
        self.started.set()
        assert self.release.wait(30), "the test never released the check"
        return Report(Path("/site"), 10, 0, (Difference("changed", Path("/site/x.py")),))


def test_ready_and_a_card_come_before_the_install_checks_first_finding(
        tmp_path: Path) -> None:
    built = build_daemon(parse_config(tmp_path / "s.yaml", config_dict(tmp_path)))
    d = built.daemon
    check = HeldCheck()
    d.install_watch = InstallWatch(check)
    sock = NotifySocket(tmp_path)
    notifier = Notifier(sock.address)
    d.heartbeat = Heartbeat(notifier, lambda: d.station.phase.value, None)
    survey_started = threading.Event()
    card_taken = threading.Event()
    d.observer = lambda event, _outputs, _s: (card_taken.set() if isinstance(event, CardRead)
                                              else None)
    d.after_ready.append(survey_started.set)  # as the retention's first survey is
    loop = threading.Thread(target=d.run, name="station-loop")
    loop.start()
    try:
        # With the check run before READY (as before issue 35) this never comes while the
        # check is held.
        sock.wait_for("READY", 20)
        assert check.started.wait(20) and survey_started.wait(20)
        assert card_taken.wait(30), "no card taken while the check was held"
        check.release.set()
        deadline = time.monotonic() + 30
        while not any(isinstance(e, InstallModified)
                      for e in read_journal(tmp_path / "journal.sqlite3").events):
            assert time.monotonic() < deadline, "the check's finding was never journaled"
            time.sleep(0.05)
    finally:
        check.release.set()
        d.request_stop()
        loop.join(30)
        built.close()
        notifier.close()
        sock.close()
    assert not loop.is_alive()
    events = list(read_journal(tmp_path / "journal.sqlite3").events)
    first_card = next(i for i, e in enumerate(events) if isinstance(e, CardRead))
    finding = next(i for i, e in enumerate(events) if isinstance(e, InstallModified))
    assert first_card < finding, [type(e).__name__ for e in events[:5]]
