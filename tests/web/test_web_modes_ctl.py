"""`station ctl reveal|skip|request-new-shoe|request-dealer` against a real VIP table (a live
scanner on a pty): the exit codes of the other commands (docs/display.md), and the PIN the
VIP requests need."""

from __future__ import annotations

from pathlib import Path

import yaml

from drivers.sim_serial import PtyScanner
from tests import webkit
from tests.web.test_web_ctl import ctl
from tests.webkit import PIN, wait_state


def test_the_modes_commands_from_a_terminal(tmp_path: Path) -> None:
    with PtyScanner(tmp_path / "scanner") as pty:
        config = webkit.live_config(tmp_path, pty.path)
        data = yaml.safe_load(config.read_text())
        data["table"].update({"mode": "vip", "new_shoe_after": 30})
        config.write_text(yaml.safe_dump(data))
        c = str(config)
        with webkit.running(config) as proc:
            base = webkit.url_of(config)
            webkit.wait_reading(proc, pty.path)
            done = ctl("reveal", "-c", c)
            assert done.returncode == 1
            assert "no card is waiting for its reveal" in done.stderr
            # A VIP request needs a supervisor's PIN, as resume and void do.
            done = ctl("skip", "-c", c)
            assert done.returncode == 2 and "needs a supervisor's PIN" in done.stderr
            done = ctl("skip", "-c", c, env={"STATION_PIN": "0000"})
            assert done.returncode == 1 and "wrong PIN" in done.stderr
            assert ctl("new-shoe", "-c", c).returncode == 0
            pty.send(["AH", "KD"])
            wait_state(base, lambda s: s["phase"] == "between_rounds", what="the burn")
            done = ctl("skip", "-c", c, env={"STATION_PIN": PIN})
            assert done.returncode == 0, done.stderr
            assert "skip: done; round 1 skipped by alice" in done.stdout
            done = ctl("request-new-shoe", "-c", c, stdin=PIN + "\n")
            assert done.returncode == 1
            assert "0 rounds played in this shoe" in done.stderr
            done = ctl("request-dealer", "-c", c, env={"STATION_PIN": PIN})
            assert done.returncode == 0, done.stderr
            status = ctl("status", "-c", c)
            assert status.returncode == 0
            assert "ALERT: ANOTHER DEALER ASKED FOR" in status.stdout
            done = ctl("request-dealer", "-c", c, env={"STATION_PIN": PIN})
            assert done.returncode == 1 and "open already" in done.stderr
            pty.send(["4H", "6C", "JC", "TD"])  # a skipped round is dealt face up
            wait_state(base, lambda s: s["round"]["no"] == 1 and s["phase"] == "player_3",
                       what="the skipped round's third card")
