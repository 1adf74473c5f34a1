"""The three units under a real systemd: PID 1 of a Debian container (tests/service/systemdkit.py),
with the station installed from its wheel offline and the units by `station install-service`,
as docs/operations.md tells a studio. What test_unit.py checks offline is checked here on the
running units: READY, STATUS, the watchdog, Restart=, credentials, a config error, the journal's
priorities, the clock check, the exposure and the stop.

Needs root, systemd-nspawn (systemd-container) and debootstrap; a host that cannot boot the
container fails these tests with the reason (never a skip). One container for the whole file
(``xdist_group``: one worker runs them, in order): the tests of one unit follow one another on
it, as an operator's session would.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator

import pytest

from tests.service import systemdkit
from tests.service.systemdkit import DIST, STATION, VENVS, WHEELS, Container
from tests.service.wheelkit import build_wheel

pytestmark = [pytest.mark.xdist_group("systemd"), pytest.mark.timeout(600)]

EXPOSURE_MAX = 2.5
PHASE = re.compile(r"^(no shoe|shuffle check|burn indicator|burning|between rounds|"
                   r"betting open|player [123]|banker [123]|reveal|shoe closed|paused)"
                   r"(, shoe \S+ round \d+)?(: .+)?$")
STATE = "/var/lib/private"  # DynamicUser=: systemd keeps StateDirectory= here


def wait_for(what: str, ok: Callable[[], bool], timeout: float = 60.0) -> None:
    # A deadline to fail by, not a timed assertion: it only bounds a test that would hang.
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not {what} after {timeout:.0f} s")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    tmp = tmp_path_factory.mktemp("systemd")
    try:
        tree = systemdkit.rootfs(tmp / "debootstrap.log")
        wheel = build_wheel(tmp)
        house = systemdkit.wheelhouse(wheel)
        c = Container(tree, [(house, WHEELS), (wheel.parent, DIST)], tmp / "console.log",
                      writable=[(systemdkit.venvs(), VENVS)])
    except systemdkit.Unbootable as exc:
        pytest.fail(f"the units cannot be tested under systemd on this host: {exc}")
    try:
        systemdkit.install_station(c, house)  # docs/operations.md, step 1, offline
        yield c
    finally:
        c.close()


def cursor(c: Container) -> str:
    out = c.run("journalctl", "-n0", "--show-cursor", "--no-pager").stdout
    return out.strip().rsplit("cursor: ", 1)[-1]


LEVELS = {"emerg": 0, "alert": 1, "crit": 2, "err": 3, "warning": 4, "notice": 5, "info": 6,
          "debug": 7}


def journal(c: Container, unit: str, after: str | None = None, priority: str | None = None
            ) -> list[str]:
    """The unit's lines (after the cursor ``after``), at ``priority`` or above. Without a
    cursor, `journalctl -p` itself filters, as an operator types it; with one, the
    priority is filtered here: systemd 252's journalctl drops matching lines when
    --after-cursor and -p are combined."""
    args = ["journalctl", "-u", unit, "--no-pager"]
    if after is None:
        if priority:
            args.append(f"--priority={priority}")
        return c.run(*args, "-o", "cat").stdout.splitlines()
    entries = [json.loads(line) for line in
               c.run(*args, f"--after-cursor={after}", "-o", "json").stdout.splitlines()]
    most = LEVELS[priority] if priority else 7
    return [e["MESSAGE"] for e in entries
            if isinstance(e.get("MESSAGE"), str) and int(e.get("PRIORITY", 6)) <= most]


def logged(c: Container, unit: str, after: str | None, priority: str | None,
           line_ok: Callable[[str], bool]) -> None:
    """Wait for a line ``line_ok`` at ``priority`` or above: journald reads a service's stream
    apart from systemd's own messages, so a line may land after "Failed to start"."""
    wait_for(f"logged at {priority}", lambda: any(
        line_ok(line) for line in journal(c, unit, after, priority)), 30)


def active(c: Container, unit: str) -> bool:
    return c.show(unit, "ActiveState")["ActiveState"] == "active"


def ready_seconds(c: Container, unit: str) -> float:
    """From systemd starting the main process to the unit becoming active (READY=1)."""
    p = c.show(unit, "ExecMainStartTimestampMonotonic", "ActiveEnterTimestampMonotonic")
    return (int(p["ActiveEnterTimestampMonotonic"])
            - int(p["ExecMainStartTimestampMonotonic"])) / 1e6


def exposure(c: Container, unit: str) -> float:
    out = c.run("systemd-analyze", "security", "--no-pager", unit, check=False).stdout
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", out)
    assert found, out[-2000:]
    return float(found.group(1))


def stop_in_time(c: Container, unit: str) -> None:
    c.run("systemctl", "stop", unit)
    p = c.show(unit, "Result", "ExecMainCode", "ExecMainStatus", "ActiveState")
    # Result=success: the main process exited by itself, 0, within TimeoutStopSec=15 (a
    # SIGKILL after the timeout would make it "timeout", a crash "signal"/"exit-code").
    assert (p["Result"], p["ExecMainStatus"], p["ActiveState"]) == ("success", "0", "inactive")


def failed_start(c: Container, unit: str) -> dict[str, str]:
    """``systemctl start`` of a unit that must fail: it fails at once (no READY), and the
    unit's main process status and restart count."""
    c.run("systemctl", "reset-failed", unit, check=False)
    started = c.run("systemctl", "start", unit, check=False, timeout=90)
    assert started.returncode != 0, f"systemctl start {unit} succeeded"
    return c.show(unit, "ExecMainStatus", "NRestarts", "Result", "ActiveState")


def metric(c: Container, port: int, name: str) -> float:
    out = c.run("python3", "-c", f"import urllib.request; print(urllib.request.urlopen("
                f"'http://127.0.0.1:{port}/metrics', timeout=5).read().decode())").stdout
    found = re.search(rf"^{name} (\S+)$", out, re.M)
    assert found, out[-2000:]
    return float(found.group(1))


# --- the station ---------------------------------------------------------------------------

STATION_UNIT = "dealer-station.service"


@pytest.fixture(scope="module")
def station(box: Container) -> Container:
    c = box
    c.run(STATION, "install-service")
    c.run(STATION, "keygen", "/etc/dealer-station/credentials")
    # A brisk simulated table (the skeleton's is a live table's pace): rounds every few
    # seconds, so a restart finds one in hand and rounds are published after it.
    c.sh("sed -i 's/^  supervisor: resume$/  supervisor: resume\\n  pace: {card_s: 0.3, "
         "open_betting_s: 0.3, betting_s: 0.5, new_shoe_s: 1, supervisor_s: 2}/' "
         "/etc/dealer-station/station.yaml")
    # What an operator checks before the first start (operations.md, step 4).
    checked = c.sh("cd / && " + STATION + " check-config -c /etc/dealer-station/station.yaml "
                   "--credentials /etc/dealer-station/credentials", check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    c.run("systemctl", "daemon-reload")
    return c


def test_station_starts_ready_with_status(station: Container) -> None:
    c = station
    mark = cursor(c)
    c.run("systemctl", "start", STATION_UNIT, timeout=90)  # Type=notify: returns at READY
    assert active(c, STATION_UNIT)
    print(f"station READY {ready_seconds(c, STATION_UNIT):.2f} s after its start")
    status = c.show(STATION_UNIT, "StatusText")["StatusText"]
    assert PHASE.match(status), status
    logged(c, STATION_UNIT, mark, "info", lambda line: line.startswith("station: table "))
    start = [line for line in journal(c, STATION_UNIT, mark, "info")
             if line.startswith("station: table table-1")]
    # Under systemd no Ctrl-C stops it: the start line says how it does stop.
    assert "Ctrl-C" not in start[0] and "systemctl stop" in start[0], start[0]
    wait_for("dealing", lambda: ", shoe " in c.show(STATION_UNIT, "StatusText")["StatusText"])


def _restarted(c: Container, unit: str, before: int, pid: str) -> bool:
    p = c.show(unit, "NRestarts", "ActiveState", "MainPID")
    return int(p["NRestarts"]) > before and p["ActiveState"] == "active" and p["MainPID"] != pid


def test_station_hung_is_restarted_by_the_watchdog(station: Container) -> None:
    c = station
    p = c.show(STATION_UNIT, "NRestarts", "MainPID")
    mark = cursor(c)
    # A loop that never comes round again.
    c.run("systemctl", "kill", "--kill-who=main", "--signal=SIGSTOP", STATION_UNIT)
    wait_for("restarted by the watchdog",
             lambda: _restarted(c, STATION_UNIT, int(p["NRestarts"]), p["MainPID"]), 60)
    logged(c, STATION_UNIT, mark, "warning", lambda line: "Watchdog timeout" in line)
    # The restart pauses the round in hand (or the shoe, between rounds): said at warning,
    # so `-p warning` shows it.
    logged(c, STATION_UNIT, mark, "warning",
           lambda line: "now paused" in line and "restarted" in line)


def _results(c: Container) -> list[dict[str, object]]:
    text = c.run("cat", f"{STATE}/dealer-station/var/results.jsonl", check=False).stdout
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _shoe(c: Container) -> str:
    status = c.show(STATION_UNIT, "StatusText")["StatusText"]
    found = re.search(r", shoe (\S+) round", status)
    return found.group(1) if found else ""


def test_station_killed_comes_back_on_the_same_shoe(station: Container) -> None:
    c = station
    wait_for("a round published", lambda: len(_results(c)) > 0, 120)
    shoe = _shoe(c)
    assert shoe
    p = c.show(STATION_UNIT, "NRestarts", "MainPID")
    c.run("systemctl", "kill", "--kill-who=main", "--signal=SIGKILL", STATION_UNIT)
    wait_for("restarted after kill -9",
             lambda: _restarted(c, STATION_UNIT, int(p["NRestarts"]), p["MainPID"]), 60)
    wait_for("dealing again", lambda: _shoe(c) != "")
    assert _shoe(c) == shoe  # the journal's shoe, resumed
    before = len(_results(c))
    wait_for("a round published after the restart", lambda: len(_results(c)) > before, 120)
    keys = [r["key"] for r in _results(c)]
    assert len(keys) == len(set(keys)), keys  # nothing published twice


def test_station_checks_the_containers_real_clock(station: Container) -> None:
    c = station
    real = c.run("timedatectl", "show", "-p", "NTPSynchronized", "--value").stdout.strip()
    assert real in ("yes", "no"), real
    # The unit's clock check reads the kernel's adjtimex state, as timedatectl does; under the
    # shipped unit's filters it must not be "unknown" (-1).
    wait_for("the clock checked", lambda: metric(c, 9464, "station_clock_synchronised") != -1)
    assert metric(c, 9464, "station_clock_synchronised") == (1.0 if real == "yes" else 0.0)
    if real == "no":
        logged(c, STATION_UNIT, None, "warning",
               lambda line: "clock unsynchronised" in line)


def test_station_exposure_on_the_running_unit(station: Container) -> None:
    level = exposure(station, STATION_UNIT)
    print(f"station exposure {level} (running unit)")
    assert level <= EXPOSURE_MAX


def test_station_stops_in_time(station: Container) -> None:
    c = station
    mark = cursor(c)
    stop_in_time(c, STATION_UNIT)
    logged(c, STATION_UNIT, mark, None, lambda line: line.startswith("station: stopped after"))


def test_station_without_its_signing_key_does_not_start(station: Container) -> None:
    c = station
    key = "/etc/dealer-station/credentials/signing-key.pem"
    c.run("mv", key, key + ".away")
    try:
        p = failed_start(c, STATION_UNIT)
        assert p["ExecMainStatus"] == "243", p  # 243/CREDENTIALS, as operations.md says
    finally:
        c.run("mv", key + ".away", key)
        # A missing credential is restarted (it may come back): stop the pending restart.
        c.run("systemctl", "stop", STATION_UNIT)
        c.run("systemctl", "reset-failed", STATION_UNIT, check=False)


def test_station_config_error_fails_at_once_logged_as_an_error(station: Container) -> None:
    c = station
    config = "/etc/dealer-station/station.yaml"
    c.run("cp", config, config + ".good")
    c.sh(f"sed -i 's/^  decks: 8/  decks: 8\\n  deks: 6/' {config}")
    try:
        mark = cursor(c)
        p = failed_start(c, STATION_UNIT)
        assert p["ExecMainStatus"] == "2", p
        # RestartPreventExitStatus=2: a config error is not restarted five times over (else
        # it is "activating", its restart due in RestartSec=).
        assert p["ActiveState"] == "failed", p
        logged(c, STATION_UNIT, mark, "err", lambda line: "deks" in line and "error:" in line)
    finally:
        c.run("mv", config + ".good", config)
        c.run("systemctl", "reset-failed", STATION_UNIT, check=False)


def test_station_warning_priority_shows_warnings_and_errors_only(station: Container) -> None:
    c = station
    warned = journal(c, STATION_UNIT, None, "warning")
    assert any("Watchdog timeout" in line for line in warned), warned
    card = "station.table: card "
    assert not any(line.startswith(card) for line in warned), warned
    assert any(line.startswith(card) for line in journal(c, STATION_UNIT))


# --- the pit and the archive ---------------------------------------------------------------
# Both talk to the container's own Mosquitto (Debian's, as a studio's broker would be: the
# skeletons' 127.0.0.1:1883), on the container's own loopback.

SERVICES = {
    # service: (unit, config, its check, key name, what STATUS says once READY)
    "pit": ("dealer-pit.service", "/etc/dealer-pit/pit.yaml", "pit --check", "pit-key",
            "serving http://127.0.0.1:8090/"),
    "archive": ("dealer-archive.service", "/etc/dealer-archive/archive.yaml",
                "archive --check", "signing-key", "archiving baccarat/+/journal from "
                "127.0.0.1:1883"),
}


@pytest.fixture(scope="module")
def broker(box: Container) -> Container:
    box.run("systemctl", "start", "mosquitto")
    return box


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_service_check_names_the_units_credentials(broker: Container, service: str) -> None:
    c = broker
    _, config, check, key, _ = SERVICES[service]
    etc = config.rsplit("/", 1)[0]
    c.run(STATION, "install-service", "--service", service)
    c.run(STATION, "keygen", f"{etc}/credentials", "--name", key)
    # As docs/operations.md has it, without the unit's folder: the error says how to give it,
    # and names this service's key and file, not the station's upstream.
    bare = c.sh(f"cd / && {STATION} {check} -c {config}", check=False)
    assert bare.returncode == 2, bare.stdout + bare.stderr
    assert f"--credentials {etc}/credentials" in bare.stderr, bare.stderr
    assert f"--name {key}" in bare.stderr and "upstream" not in bare.stderr, bare.stderr
    checked = c.sh(f"cd / && {STATION} {check} -c {config} --credentials {etc}/credentials",
                   check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert ": good;" in checked.stdout


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_service_starts_ready_restarts_and_stops(broker: Container, service: str) -> None:
    c = broker
    unit, _, _, _, ready = SERVICES[service]
    c.run("systemctl", "daemon-reload")
    mark = cursor(c)
    c.run("systemctl", "start", unit, timeout=90)
    assert active(c, unit)
    print(f"{service} READY {ready_seconds(c, unit):.2f} s after its start")
    assert c.show(unit, "StatusText")["StatusText"] == ready
    logged(c, unit, mark, "info", lambda line: line.startswith(f"station {service}: "))
    start = [line for line in journal(c, unit, mark) if line.startswith(f"station {service}: ")]
    assert "Ctrl-C" not in start[0] and "systemctl stop" in start[0], start
    level = exposure(c, unit)
    print(f"{service} exposure {level} (running unit)")
    assert level <= EXPOSURE_MAX
    p = c.show(unit, "NRestarts", "MainPID")
    c.run("systemctl", "kill", "--kill-who=main", "--signal=SIGKILL", unit)
    wait_for("restarted after kill -9", lambda: _restarted(c, unit, int(p["NRestarts"]),
                                                            p["MainPID"]), 60)
    assert c.show(unit, "StatusText")["StatusText"] == ready
    stop_in_time(c, unit)


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_service_config_error_and_missing_key_fail_at_once(broker: Container, service: str
                                                           ) -> None:
    c = broker
    unit, config, _, key, _ = SERVICES[service]
    etc = config.rsplit("/", 1)[0]
    c.run("cp", config, config + ".good")
    c.sh(f"sed -i 's/^  prefix: baccarat/  prefix: baccarat\\n  prefx: x/' {config}")
    try:
        mark = cursor(c)
        # Type=notify, both: `systemctl start` itself fails, before any READY.
        p = failed_start(c, unit)
        assert (p["ExecMainStatus"], p["ActiveState"]) == ("2", "failed"), p
        logged(c, unit, mark, "err", lambda line: "prefx" in line and "error:" in line)
    finally:
        c.run("mv", config + ".good", config)
    pem = f"{etc}/credentials/{key}.pem"
    c.run("mv", pem, pem + ".away")
    try:
        assert failed_start(c, unit)["ExecMainStatus"] == "243"
    finally:
        c.run("mv", pem + ".away", pem)
        c.run("systemctl", "stop", unit)
        c.run("systemctl", "reset-failed", unit, check=False)
