"""sd_notify against a real datagram socket: the notifier, the heartbeat, and a loop that
hangs (its pings must stop: only the loop that owns the machine may ping)."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.base import EventSource
from drivers.events import DeviceRestored
from station.live.assembly import build_daemon
from station.live.config import parse_config
from station.live.service.notify import MAX_STATUS_CHARS, Notifier, one_line
from station.live.service.watchdog import Heartbeat, watchdog_interval
from tests.daemon.test_daemon import config_dict
from tests.service.notifykit import NotifySocket, pings


@pytest.fixture(params=[False, True], ids=["path", "abstract"])
def notify_socket(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[NotifySocket]:
    s = NotifySocket(tmp_path, abstract=request.param)
    yield s
    s.close()


def test_the_notifier_sends_one_datagram_of_lines(notify_socket: NotifySocket) -> None:
    n = Notifier.from_env(notify_socket.env())
    assert n is not None
    assert n.ready("dealing, shoe s round 3")
    got = notify_socket.wait_for("READY")
    assert got["READY"] == "1" and got["STATUS"] == "dealing, shoe s round 3"
    assert int(got["MAINPID"]) > 0
    assert n.watchdog() and notify_socket.wait_for("WATCHDOG") == {"WATCHDOG": "1"}
    assert n.stopping("stopping (SIGTERM)")
    assert notify_socket.wait_for("STOPPING")["STATUS"] == "stopping (SIGTERM)"
    n.close()


def test_a_status_is_one_bounded_line() -> None:
    text = one_line("PAUSED: a\nREADY=1\n" + "x" * 1000)
    assert "\n" not in text and len(text) == MAX_STATUS_CHARS  # no injected READY line


@pytest.mark.parametrize("value", ["", "relative/path", "x"])
def test_no_or_a_bad_notify_socket_means_no_notifier(value: str) -> None:
    assert Notifier.from_env({"NOTIFY_SOCKET": value}) is None


def test_a_socket_that_is_gone_is_logged_once_and_never_raises(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    n = Notifier(str(tmp_path / "nobody"))
    assert not n.watchdog() and not n.watchdog()
    assert sum("cannot send" in r.getMessage() for r in caplog.records) == 1


@pytest.mark.parametrize(("env", "interval"), [
    ({"WATCHDOG_USEC": "10000000"}, 5.0),
    ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "4242"}, 5.0),
    ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"}, None),  # another process's
    ({"WATCHDOG_USEC": "0"}, None),
    ({"WATCHDOG_USEC": "ten"}, None),
    ({}, None),
])
def test_the_ping_interval_is_half_of_watchdog_usec(env: dict[str, str],
                                                    interval: float | None) -> None:
    assert watchdog_interval(env, pid=4242) == interval


class Stuck(EventSource):
    """A driver whose ``applied()`` (called on the station loop) blocks while ``hold`` is
    clear: the loop that owns the machine is hung, as by a driver call that never returns."""

    name = "stuck"

    def __init__(self) -> None:
        super().__init__()
        self.hold = threading.Event()
        self.hold.set()
        self.inside = threading.Event()

    def _run(self) -> None:
        self.stopping.wait()

    def applied(self) -> None:
        self.inside.set()
        self.hold.wait(30)


def test_pings_come_on_time_from_the_loop_and_stop_while_it_is_blocked(
        tmp_path: Path, notify_socket: NotifySocket) -> None:
    built = build_daemon(parse_config(tmp_path / "s.yaml", config_dict(tmp_path)))
    d = built.daemon
    stuck = Stuck()
    d.sources = [stuck]
    notifier = Notifier(notify_socket.address)
    beat = Heartbeat(notifier, lambda: d.station.phase.value, 0.05)
    d.heartbeat = beat
    loop = threading.Thread(target=d.run, name="station-loop")
    loop.start()
    try:
        ready = notify_socket.wait_for("READY", 10)
        assert ready["STATUS"] == "no_shoe"
        before = pings(notify_socket.collect(1.0))
        gaps = [b - a for a, b in itertools.pairwise(before)]
        assert len(before) >= 5 and max(gaps) < 0.5, gaps  # every 50 ms, with slack for load
        stuck.hold.clear()
        d.post(stuck, DeviceRestored("stuck", time.time()))
        assert stuck.inside.wait(10)
        notify_socket.collect(0.1)  # a ping already in flight when the loop went in
        assert pings(notify_socket.collect(1.0)) == []  # hung: systemd would restart us
        stuck.hold.set()
        after = pings(notify_socket.collect(1.0))
        assert len(after) >= 3  # came back: pings again
    finally:
        stuck.hold.set()
        d.request_stop()
        loop.join(30)
        built.close()
        notifier.close()
    assert not loop.is_alive()


def test_ready_comes_once_status_on_each_change() -> None:
    sent: list[tuple[str, ...]] = []

    class Recorder(Notifier):
        def send(self, *lines: str) -> bool:
            sent.append(lines)
            return True

    state = ["no shoe"]
    now = [0.0]
    beat = Heartbeat(Recorder("/run/x"), lambda: state[0], 10.0, clock=lambda: now[0])
    assert beat() == 10.0
    assert sent[0][0] == "READY=1" and sent[1] == ("WATCHDOG=1",)
    now[0] = 4.0
    assert beat() == 6.0 and len(sent) == 2  # nothing changed, no ping due
    state[0] = "dealing"
    now[0] = 10.5
    assert beat() == 10.0
    assert sent[2:] == [("STATUS=dealing",), ("WATCHDOG=1",)]


def test_status_says_phase_shoe_round_and_a_pause_reason() -> None:
    # docs/operations.md: STATUS= carries the phase, the shoe and the round; a pause adds why.
    from station.live.service.watchdog import describe  # noqa: PLC0415
    from station.wire.observe import Snapshot  # noqa: PLC0415

    dealing = Snapshot("player_1", 1, "t1-20261201T000000Z-1", 12, (), (), ())
    assert describe(dealing) == "player 1, shoe t1-20261201T000000Z-1 round 12"
    paused = Snapshot("paused", 1, "t1-20261201T000000Z-1", 12, ("AS",), (),
                      ("scanner lost (cable pulled)", "card not due: 4H"))
    assert describe(paused) == ("paused, shoe t1-20261201T000000Z-1 round 12: scanner lost "
                                "(cable pulled); card not due: 4H")
    assert describe(Snapshot("no_shoe", 0, None, 0, (), (), ())) == "no shoe"
