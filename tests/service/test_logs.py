"""Logging for journald: plain lines without timestamps, syslog priority prefixes only when
stderr really is the journal stream, one line per card and per change of phase."""

from __future__ import annotations

import io
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from station.live.service.logs import JournaldFormatter, configure, priority, stream_is_journal
from tests.daemon.test_daemon import config_dict


def run_station(tmp: Path, journal_stream: str | None) -> list[str]:
    cfg = config_dict(tmp, shoes=1)
    path = tmp / "station.yaml"
    path.write_text(yaml.safe_dump(cfg))
    log = tmp / "stderr.log"
    env = {k: v for k, v in os.environ.items() if k != "JOURNAL_STREAM"}
    with log.open("wb") as err:
        st = os.fstat(err.fileno())
        if journal_stream is not None:
            env["JOURNAL_STREAM"] = journal_stream or f"{st.st_dev}:{st.st_ino}"
        subprocess.run([sys.executable, "-m", "station.cli", "run", "-c", str(path)], cwd=tmp,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                       env=env, timeout=100, check=True)
    return log.read_text().splitlines()


def test_under_the_journal_every_line_has_a_priority_and_no_timestamp(tmp_path: Path) -> None:
    lines = run_station(tmp_path, "")  # "": this very stderr file's dev:inode
    logged = [x for x in lines if not x.startswith("station: ")]  # the start/stop summary
    assert logged and all(re.match(r"^<[2-7]>[\w.]+: ", x) for x in logged), logged[:5]
    assert not any(re.search(r"\d\d:\d\d:\d\d", x) for x in logged)  # journald stamps them
    cards = [x for x in logged if x.startswith("<6>station.table: card ")]
    assert len(cards) > 300  # one per card of the shoe
    assert any(x.startswith("<4>station.live.assembly: upstream: no signing key") for x in logged)
    assert any(x.startswith("<6>station.table: now betting open, shoe ") for x in logged)
    assert any("station.table: round " in x and "published" in x for x in logged)


def test_a_journal_stream_that_is_not_stderr_keeps_the_plain_format(tmp_path: Path) -> None:
    lines = run_station(tmp_path, "1:2")  # inherited from a parent whose stderr it was
    assert any(x.startswith("INFO station.table: card ") for x in lines)
    assert not any(x.startswith("<") for x in lines)


def test_priorities_follow_syslog() -> None:
    assert [priority(level) for level in (50, 40, 30, 20, 10, 5)] == [2, 3, 4, 6, 7, 7]
    record = logging.LogRecord("station.x", logging.ERROR, __file__, 1, "two\nlines", None,
                               None)
    assert JournaldFormatter().format(record) == "<3>station.x: two\n<3>lines"


def test_a_stream_without_a_file_is_not_the_journal() -> None:
    assert not stream_is_journal(io.StringIO(), {"JOURNAL_STREAM": "1:2"})
    buf = io.StringIO()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    root.handlers[:] = []
    try:
        assert configure(logging.INFO, buf, {"JOURNAL_STREAM": "1:2"}) is False
        logging.getLogger("station.x").info("hello")
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    assert buf.getvalue() == "INFO station.x: hello\n"


def test_raw_device_traffic_is_never_logged(tmp_path: Path) -> None:
    # docs/operations.md: raw traffic stays out of the journal (station monitor --raw shows it):
    # a live scanner's chunks appear only as the cards they mean.
    from drivers.sim_serial import PtyScanner  # noqa: PLC0415
    from tests import webkit  # noqa: PLC0415

    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.live_config(tmp_path, pty.path)
        log = tmp_path / "stderr.log"
        with log.open("wb") as err:
            st = os.fstat(err.fileno())
            env = {**os.environ, "JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"}
            proc = subprocess.Popen([sys.executable, "-m", "station.cli", "run", "-c",
                                     str(config)], cwd=tmp_path, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=err, env=env)
        try:
            base = webkit.url_of(config)
            deadline = time.monotonic() + 30
            while True:  # the page answers once the station is up
                try:
                    webkit.state(base)
                    break
                except OSError:
                    assert proc.poll() is None and time.monotonic() < deadline, \
                        log.read_text()[-2000:]
                    time.sleep(0.05)
            webkit.wait_state(base, lambda s: s["devices"] == [
                {"name": "scanner", "ok": True, "reason": ""}], what="scanner open")
            webkit.command(base, "new-shoe")
            pty.write(b"5S\rKD\r")
            pty.write(b"QD\rJD\r")
            webkit.wait_state(base, lambda s: (s["shoe"] or {}).get("drawn", 0) >= 4,
                              what="four cards")
        finally:
            proc.terminate()
            proc.wait(20)
    lines = log.read_text().splitlines()
    assert any("station.table: card 5S" in x for x in lines), lines[-20:]
    # However the line split the bytes into reads: no code with its terminator, in any of
    # the ways bytes are shown (hex, repr, the drivers' \xNN form).
    for code in (b"5S", b"KD", b"QD", b"JD"):
        for shown in ((code + b"\r").hex(), code.decode() + "\\r", code.decode() + "\\x0d"):
            assert not any(shown in x for x in lines), (shown, lines)


def test_a_squeeze_table_logs_no_card_value_at_info_before_its_reveal(
        caplog: pytest.LogCaptureFixture) -> None:
    """docs/modes.md: on a squeeze table the table log says a card was dealt face down;
    its value is at debug level only until the reveal (the round's line then has it)."""
    from drivers.events import CardRead, Command, InputEvent  # noqa: PLC0415
    from station.live.service.tablelog import TableLog  # noqa: PLC0415
    from station.table.station import Station  # noqa: PLC0415
    from station.table.tablerules import TableRules  # noqa: PLC0415

    station = Station(TableRules(mode="squeeze"))
    table_log = TableLog(station)
    # Burn AS (one more card: 2S), then a round of four cards none of which appears anywhere
    # else, so any mention of one is a leak.
    events: list[InputEvent] = [Command("new_shoe", "dealer", 1.0), CardRead("AS", "s", 2.0),
                                CardRead("2S", "s", 3.0), Command("open_betting", "dealer", 4.0),
                                Command("close_betting", "dealer", 5.0)]
    hidden = ["7H", "QC", "8D", "JS"]
    events += [CardRead(code, "s", 6.0 + i) for i, code in enumerate(hidden)]
    with caplog.at_level(logging.INFO, logger="station.table"):
        for event in events:
            table_log.observe(event, station.apply(event), 0.0)
    infos = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    # Every card of such a table is logged so, the burn's included.
    assert sum("card (face down)" in line for line in infos) == 6, infos
    assert not any(re.search(rf"\b{code}\b", line) for line in infos for code in hidden), infos
    assert station.phase.value == "reveal"
