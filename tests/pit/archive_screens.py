"""Screenshots of the floor with the archive's alerts and with the pit cut off from the broker
(issue 33), in docs/pit/: a floor of 20 tables at 1920x1080, 1366x768 and 1280x800 in English
and Chinese, first with the archive's storage, gap and refusal alerts and a recovery on four
tables (their tiles and the alert list), then with the broker stopped past the keep-alive
(the banner in a row under the bar, every tile greyed). The real pit over a real Mosquitto
(tests/pit/pitfloor.py); the alerts are signed with an archive key of the script's, exactly
as station.services.archive publishes them. Look at them before committing them.

    .venv/bin/python -m tests.pit.archive_screens [--out docs/pit]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from station.wire.messages import iso_ts
from station.wire.signing import Signer, public_pem
from tests import webkit
from tests.pit.pitfloor import Floors
from tests.pit.screens import SIZES, shot
from tests.upstream.broker import wait_until

# table -> the archive's problem and its words (as the archive says them).
ALERTS = {
    "t2": ("storage", "cannot write records 6990 to 7012 (database or disk is full); they "
                      "are held and written when it can"),
    "t5": ("gap", "record 412 arrived after record 388: records 389 to 411 are missing"),
    "t7": ("conflict", "record 96 differs from the record 96 the archive holds (a rewritten "
                       "history, or a forgery)"),
    "t9": ("recovered", "writing again after 61.2 s (7 tries); the records held meanwhile "
                        "are written"),
}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("docs/pit"))
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    with tempfile.TemporaryDirectory() as tmp, webkit.browser() as browser:
        floors = Floors(Path(tmp), sizes=(20,))
        try:
            floor = floors.floors[20]
            (floor.folder.dir / "archive.pub.pem").write_bytes(public_pem(key.public_key()))
            cfg = yaml.safe_load(floor.config.read_text())
            cfg["pit"]["archive_key_file"] = "archive.pub.pem"
            floor.config.write_text(yaml.safe_dump(cfg))
            floor.restart()
            floor.pit.timeout_s = 300.0
            floors.calm(floor)
            floors.publisher.publish([
                (f"{floor.prefix}/{table}/archive", Signer(key).sign({
                    "v": 1, "kind": "archive_alert", "table": table, "ts": iso_ts(time.time()),
                    "archive": "dc1", "problem": problem, "detail": detail,
                    "journal": "8cef" * 16, "seq": 412, "not_published": 0}))
                for table, (problem, detail) in ALERTS.items()])
            wait_until(lambda: len([a for a in floor.pit.get("/api/alerts")["alerts"]
                                    if a["kind"].startswith("archive_")]) == len(ALERTS),
                       60, "the archive's alerts on the floor", 0.1)
            for lang in ("en", "zh"):
                for name, size in SIZES.items():
                    shot(browser, floor, f"/?lang={lang}", size,
                         args.out / f"floor-archive-{lang}-{name}.png")
            floors.broker.stop()
            wait_until(lambda: floor.pit.get("/api/tables")["broker"]["stale"], 60,
                       "the tiles stale", 0.2)
            for lang in ("en", "zh"):
                for name, size in SIZES.items():
                    shot(browser, floor, f"/?lang={lang}", size,
                         args.out / f"floor-broker-lost-{lang}-{name}.png")
            floors.broker.start()
        finally:
            floors.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
